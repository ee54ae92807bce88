"""The Raspberry Pi's requirements locks, one per Raspberry Pi OS release: each pins every runtime and build
requirement of pyproject.toml with its hash, for aarch64 and the release's Python, holds the packages apt
installs at apt's versions, and is current (``deploy/lock.py --check``); install.sh installs the release's
own lock with hashes and wheels only."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from deploy.lock import (
    RELEASES,
    Release,
    fingerprint,
    header,
    locked,
    missing_from_lock,
    problems,
    wanted,
    wheel_fits,
    wheels,
)

ROOT = Path(__file__).resolve().parents[2]
BOOKWORM, TRIXIE = RELEASES["bookworm"], RELEASES["trixie"]
each_release = pytest.mark.parametrize("release", list(RELEASES.values()), ids=list(RELEASES))


def _lock(release: Release) -> str:
    return release.lock.read_text(encoding="utf-8")


def test_there_is_a_lock_for_bookworm_and_for_trixie_and_no_other() -> None:
    assert sorted(p.name for p in (ROOT / "deploy").glob("requirements-pi*.txt")) == [
        "requirements-pi-bookworm.txt",
        "requirements-pi-trixie.txt",
    ]
    assert (BOOKWORM.python, BOOKWORM.abi) == ("3.11", "cp311")
    assert (TRIXIE.python, TRIXIE.abi) == ("3.13", "cp313")


@each_release
def test_each_lock_pins_every_runtime_and_build_requirement_of_pyproject(release: Release) -> None:
    text = _lock(release)
    runtime, build = wanted()
    assert runtime and build
    assert missing_from_lock(text) == []
    pins = locked(text)
    for requirement in runtime + build:
        name = re.match(r"[A-Za-z0-9._-]+", requirement).group(0).lower().replace("_", "-")  # type: ignore[union-attr]
        assert name in pins, requirement


@each_release
def test_each_pin_satisfies_pyproject_s_version_range(release: Release) -> None:
    from packaging.requirements import Requirement

    pins = locked(_lock(release))
    runtime, build = wanted()
    for text in runtime + build:
        requirement = Requirement(text)
        version = pins[requirement.name.lower().replace("_", "-")]
        assert requirement.specifier.contains(version, prereleases=True), (release.codename, text, version)


def test_a_dependency_dropped_from_a_lock_is_caught() -> None:
    text = _lock(TRIXIE)
    without_kivy = "\n".join(line for line in text.splitlines() if not line.lower().startswith("kivy=="))
    assert any("kivy" in req.lower() for req in missing_from_lock(without_kivy))
    assert any("does not pin kivy" in p for p in problems(TRIXIE, without_kivy))


@each_release
def test_every_pin_is_exact_with_a_sha256_of_a_wheel_for_the_release(release: Release) -> None:
    pins = [line for line in _lock(release).splitlines() if line and not line.startswith("#")]
    assert len(pins) >= 20
    for line in pins:
        assert re.match(r"^[A-Za-z0-9._-]+==[^ ]+ --hash=sha256:[0-9a-f]{64}  # \S+\.whl$", line), line
    for wheel in wheels(_lock(release)).values():
        assert wheel.endswith("-none-any.whl") or "aarch64" in wheel, wheel
        assert wheel_fits(release, wheel), (release.codename, wheel)


def test_a_wheel_for_another_python_or_machine_does_not_fit() -> None:
    cp311 = "charset_normalizer-3.5.3-cp311-cp311-manylinux2014_aarch64.manylinux_2_17_aarch64.whl"
    assert wheel_fits(BOOKWORM, cp311) and not wheel_fits(TRIXIE, cp311)
    assert not wheel_fits(TRIXIE, "numpy-2.2.4-cp313-cp313-manylinux_2_17_x86_64.manylinux2014_x86_64.whl")
    assert not wheel_fits(TRIXIE, "numpy-2.2.4-cp313-cp313-musllinux_1_2_aarch64.whl")
    abi3 = "opencv_python-4.11.0.86-cp37-abi3-manylinux_2_17_aarch64.manylinux2014_aarch64.whl"
    assert wheel_fits(BOOKWORM, abi3) and wheel_fits(TRIXIE, abi3)
    assert not wheel_fits(BOOKWORM, "x-1.0-cp312-abi3-manylinux_2_28_aarch64.whl")  # needs Python 3.12+
    assert not wheel_fits(BOOKWORM, "x-1.0-cp311-cp311-manylinux_2_39_aarch64.whl")  # glibc newer than 2.36
    assert wheel_fits(TRIXIE, "x-1.0-cp313-cp313-manylinux_2_39_aarch64.whl")


@each_release
def test_the_packages_apt_installs_keep_apt_s_versions(release: Release) -> None:
    pins = locked(_lock(release))
    assert release.debian_pins
    for name, version in release.debian_pins.items():
        assert pins[name] == version
    assert pins["numpy"].startswith("1." if release.codename == "bookworm" else "2.")


def test_the_newest_runtimes_that_resolve_are_in_both_locks() -> None:
    """opencv-python, onnxruntime, Kivy and ncnn: the same in both locks, except where apt's numpy holds
    Bookworm back (OpenCV 4.12 and later need numpy 2; Trixie has OpenCV's major version 5)."""
    bookworm, trixie = locked(_lock(BOOKWORM)), locked(_lock(TRIXIE))
    for name in ("onnxruntime", "kivy", "ncnn"):
        assert bookworm[name] == trixie[name], name
    assert bookworm["opencv-python"].startswith("4.") and trixie["opencv-python"].startswith("5.")


@each_release
def test_the_header_names_the_release_its_python_and_what_it_was_resolved_from(release: Release) -> None:
    text = _lock(release)
    assert header(text, "release") == release.codename
    assert header(text, "python") == release.python
    assert header(text, "inputs") == fingerprint(release)


def test_lock_check_finds_the_committed_locks_current() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "deploy" / "lock.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "lock.py: requirements-pi-bookworm.txt is current",
        "lock.py: requirements-pi-trixie.txt is current",
    ]


def test_lock_check_finds_a_stale_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = _lock(BOOKWORM)
    changed = Release(**{**BOOKWORM.__dict__, "debian_pins": {"numpy": "1.26.4", "tqdm": "4.64.1"}})
    found = problems(changed, text)
    assert any("resolved from other requirements or settings" in p for p in found)
    assert any("pins numpy 1.24.2, not the release's 1.26.4" in p for p in found)
    assert problems(TRIXIE, text)  # Bookworm's lock is not Trixie's
    assert any("not the lock of trixie" in p for p in problems(TRIXIE, text))


def test_install_sh_installs_the_release_s_lock_with_hashes_and_wheels_only() -> None:
    script = (ROOT / "deploy" / "install.sh").read_text(encoding="utf-8")
    assert "--require-hashes --only-binary :all: --no-deps" in script
    assert "LOCK_NAME=requirements-pi-$codename.txt" in script
    assert '-r "$SRC/deploy/$LOCK_NAME"' in script
    assert "--no-index --no-build-isolation" in script
    assert "install --upgrade --constraint" not in script  # pip is not upgraded from the network
