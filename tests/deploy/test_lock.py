"""The Raspberry Pi's requirements lock pins every runtime and build requirement, each with its hash, for
aarch64 and Python 3.11, and install.sh installs from it with hashes and wheels only."""

from __future__ import annotations

import re
from pathlib import Path

from deploy.lock import DEBIAN_PINS, LOCK, locked, missing_from_lock, wanted

ROOT = Path(__file__).resolve().parents[2]


def test_the_lock_pins_everything_pyproject_asks_for() -> None:
    text = LOCK.read_text(encoding="utf-8")
    assert missing_from_lock(text) == []
    runtime, build = wanted()
    assert runtime and build


def test_a_dependency_added_to_pyproject_is_caught() -> None:
    text = LOCK.read_text(encoding="utf-8")
    without_kivy = "\n".join(line for line in text.splitlines() if not line.lower().startswith("kivy=="))
    assert any("kivy" in req.lower() for req in missing_from_lock(without_kivy))


def test_every_pin_is_exact_with_a_sha256_of_an_aarch64_or_pure_python_wheel() -> None:
    pins = [
        line for line in LOCK.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")
    ]
    assert len(pins) >= 20
    for line in pins:
        assert re.match(r"^[A-Za-z0-9._-]+==[^ ]+ --hash=sha256:[0-9a-f]{64}  # \S+\.whl$", line), line
        wheel = line.rsplit("# ", 1)[1]
        assert wheel.endswith("-none-any.whl") or (
            "aarch64" in wheel and ("cp311" in wheel or "abi3" in wheel)
        ), line


def test_debian_packages_keep_their_versions() -> None:
    pins = locked(LOCK.read_text(encoding="utf-8"))
    for name, version in DEBIAN_PINS.items():
        assert pins[name] == version


def test_install_sh_installs_the_lock_with_hashes_and_wheels_only() -> None:
    script = (ROOT / "deploy" / "install.sh").read_text(encoding="utf-8")
    assert "--require-hashes --only-binary :all: --no-deps" in script
    assert "requirements-pi.txt" in script
    assert "--no-index --no-build-isolation" in script
    assert "install --upgrade --constraint" not in script  # pip is not upgraded from the network
