"""Write the Raspberry Pi's requirements locks: every package the kiosk installs, pinned, with its hash,
one lock per Raspberry Pi OS release the installer supports.

Raspberry Pi OS (64-bit) is aarch64 on every supported release; what differs is Debian's Python and the
numpy apt installs (picamera2, from apt, is compiled against it):

* Bookworm (Debian 12): Python 3.11, numpy 1.24.2 -> ``deploy/requirements-pi-bookworm.txt``
* Trixie (Debian 13): Python 3.13, numpy 2.2.4 -> ``deploy/requirements-pi-trixie.txt``

For each release this resolves TableTally's runtime dependencies (``pyproject.toml``) and its build
requirements for that platform with pip's own resolver, wheels only, the packages apt already installs
held at apt's versions, and writes one ``name==version --hash=sha256:...`` line per wheel.
``deploy/install.sh`` reads ``/etc/os-release``, takes the lock named after the release, and installs it
with ``--require-hashes --only-binary :all:``, so a package that changed on PyPI, or a source build, is
refused. A release without a lock is refused before anything changes.

Each lock's header names its release and Python (install.sh reads them) and a fingerprint of what it was
resolved from (pyproject.toml's requirements and the release's settings here), so ``--check`` can tell,
offline, whether a lock is still current.

    python deploy/lock.py                    # rewrite every lock (asks PyPI through pip)
    python deploy/lock.py --release trixie   # rewrite one
    python deploy/lock.py --check            # exit 1 when a lock is not current (offline)
    python deploy/lock.py --check --resolve  # also resolve again and name every pin that would change
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
PYPROJECT = HERE.parent / "pyproject.toml"

# Every glibc a release's manylinux tags may name, newest first (pip accepts a wheel for an older glibc).
_MANYLINUX = ("2_41", "2_39", "2_38", "2_36", "2_35", "2_34", "2_31", "2_28", "2_27", "2_24", "2_17")


@dataclass(frozen=True)
class Release:
    """One Raspberry Pi OS release: its Python, its glibc, and the versions apt holds."""

    codename: str
    debian: str
    python: str
    glibc: str
    # Held at the release's own versions: the packages picamera2 (from apt) depends on that the kiosk
    # needs too. install.sh pins apt's versions of picamera2's dependencies (deploy/render.py
    # constraints); the lock agrees with them.
    debian_pins: dict[str, str] = field(default_factory=dict)
    debian_sources: str = ""

    @property
    def lock(self) -> Path:
        return HERE / f"requirements-pi-{self.codename}.txt"

    @property
    def abi(self) -> str:
        return "cp" + self.python.replace(".", "")

    @property
    def platforms(self) -> tuple[str, ...]:
        newest = self.glibc.replace(".", "_")
        tags = [f"manylinux_{v}_aarch64" for v in _MANYLINUX if _glibc_key(v) <= _glibc_key(newest)]
        return (*tags, "manylinux2014_aarch64", "linux_aarch64")


def _glibc_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("_"))


RELEASES: dict[str, Release] = {
    "bookworm": Release(
        codename="bookworm",
        debian="12",
        python="3.11",
        glibc="2.36",
        debian_pins={"numpy": "1.24.2", "tqdm": "4.64.1"},
        debian_sources="python3-numpy 1:1.24.2-1+deb12u1, python3-tqdm 4.64.1-1",
    ),
    "trixie": Release(
        codename="trixie",
        debian="13",
        python="3.13",
        glibc="2.41",
        debian_pins={"numpy": "2.2.4", "tqdm": "4.67.1"},
        debian_sources="python3-numpy 1:2.2.4+ds-1, python3-tqdm 4.67.1-5",
    ),
}


def _name(requirement: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return re.sub(r"[-_.]+", "-", match.group(1)).lower() if match else ""


def wanted() -> tuple[list[str], list[str]]:
    """(runtime dependencies, build requirements) from pyproject.toml."""
    data = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    return list(data["project"]["dependencies"]), list(data["build-system"]["requires"])


def fingerprint(release: Release) -> str:
    """What a lock is resolved from: pyproject.toml's requirements and the release's settings."""
    runtime, build = wanted()
    inputs = {
        "runtime": sorted(runtime),
        "build": sorted(build),
        "python": release.python,
        "abi": release.abi,
        "platforms": list(release.platforms),
        "pins": release.debian_pins,
    }
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()[:16]


Pin = tuple[str, str, str, str]  # name, version, wheel file, sha256


def resolve(release: Release, requirements: list[str]) -> list[Pin]:
    """(name, version, wheel file, sha256) of every wheel pip would install on the Pi with ``release``."""
    with tempfile.TemporaryDirectory() as folder:
        constraints = Path(folder) / "constraints.txt"
        constraints.write_text(
            "".join(f"{n}=={v}\n" for n, v in release.debian_pins.items()), encoding="utf-8"
        )
        report = Path(folder) / "report.json"
        command = [sys.executable, "-m", "pip", "install", "--quiet", "--dry-run", "--ignore-installed"]
        command += ["--report", str(report), "--target", str(Path(folder) / "target")]
        command += ["--python-version", release.python, "--implementation", "cp", "--abi", release.abi]
        command += ["--only-binary=:all:", "--constraint", str(constraints)]
        for platform in release.platforms:
            command += ["--platform", platform]
        subprocess.run([*command, *requirements], check=True)
        installs = json.loads(report.read_text(encoding="utf-8"))["install"]
    out = []
    for item in installs:
        info = item["download_info"]
        out.append(
            (
                _name(item["metadata"]["name"]),
                item["metadata"]["version"],
                info["url"].rsplit("/", 1)[-1],
                info["archive_info"]["hashes"]["sha256"],
            )
        )
    return sorted(out)


def render(release: Release, runtime: list[Pin], build: list[Pin]) -> str:
    pins = ", ".join(f"{n} {v}" for n, v in release.debian_pins.items())
    lines = [
        f"# The Raspberry Pi's requirements lock for Raspberry Pi OS {release.codename.capitalize()} "
        f"(Debian {release.debian}, aarch64, Python {release.python}),",
        "# written by `python deploy/lock.py` from pyproject.toml. deploy/install.sh installs it with",
        "# --require-hashes --only-binary :all:, so only these exact wheels go in. Do not edit: change",
        "# pyproject.toml or deploy/lock.py, rerun it.",
        "# Held at the release's versions (the venv uses apt's copies, picamera2 is built against them):",
        f"# {pins} ({release.debian_sources})",
        f"# release: {release.codename}",
        f"# python: {release.python}",
        f"# inputs: {fingerprint(release)}",
        "",
        "# -- what the kiosk runs",
    ]
    lines += [
        f"{name}=={version} --hash=sha256:{digest}  # {wheel}" for name, version, wheel, digest in runtime
    ]
    lines += ["", "# -- what builds TableTally itself (pip install --no-build-isolation)"]
    seen = {name for name, *_ in runtime}
    lines += [
        f"{name}=={version} --hash=sha256:{digest}  # {wheel}"
        for name, version, wheel, digest in build
        if name not in seen
    ]
    return "\n".join(lines) + "\n"


def header(text: str, key: str) -> str | None:
    """The value of a lock's ``# key: value`` header line."""
    match = re.search(rf"^# {re.escape(key)}: (\S+)$", text, re.MULTILINE)
    return match.group(1) if match else None


def locked(text: str) -> dict[str, str]:
    """name -> version of a lock file's pins."""
    pins = {}
    for line in text.splitlines():
        match = re.match(r"([A-Za-z0-9._-]+)==(\S+) ", line)
        if match:
            pins[_name(match.group(1))] = match.group(2)
    return pins


def wheels(text: str) -> dict[str, str]:
    """name -> wheel file of a lock file's pins."""
    found = {}
    for line in text.splitlines():
        match = re.match(r"([A-Za-z0-9._-]+)==\S+ --hash=sha256:[0-9a-f]{64}  # (\S+\.whl)$", line)
        if match:
            found[_name(match.group(1))] = match.group(2)
    return found


def missing_from_lock(text: str) -> list[str]:
    """pyproject.toml requirements (runtime and build) that the lock does not pin."""
    runtime, build = wanted()
    pins = locked(text)
    return [req for req in runtime + build if _name(req) not in pins]


def wheel_fits(release: Release, wheel: str) -> bool:
    """Whether a wheel file installs on the release: pure Python, or aarch64 for its Python (or abi3)."""
    if wheel.endswith("-none-any.whl"):
        return True
    parts = wheel[: -len(".whl")].split("-")
    if len(parts) < 5:
        return False
    python_tag, abi_tag, platform_tag = parts[-3], parts[-2], parts[-1]
    if not any(p in release.platforms for p in platform_tag.split(".")):
        return False
    if abi_tag == "abi3":
        return all(int(t[2:]) <= int(release.abi[2:]) for t in python_tag.split(".") if t.startswith("cp"))
    return release.abi in python_tag.split(".") and abi_tag in (release.abi, "none")


def problems(release: Release, text: str) -> list[str]:
    """Why a lock's text is not current for ``release`` (nothing when it is)."""
    found = []
    name = release.lock.name
    if header(text, "release") != release.codename or header(text, "python") != release.python:
        found.append(f"{name} is not the lock of {release.codename} with Python {release.python}")
    if header(text, "inputs") != fingerprint(release):
        found.append(
            f"{name} was resolved from other requirements or settings than pyproject.toml's and lock.py's now"
        )
    found += [f"{name} does not pin {req}" for req in missing_from_lock(text)]
    pins = locked(text)
    found += [
        f"{name} pins {n} {pins.get(n)}, not the release's {v}"
        for n, v in release.debian_pins.items()
        if pins.get(n) != v
    ]
    found += [
        f"{name}: {wheel} does not install on {release.codename} (aarch64, {release.abi})"
        for wheel in wheels(text).values()
        if not wheel_fits(release, wheel)
    ]
    return found


def check(releases: list[Release], again: bool = False) -> int:
    status = 0
    for release in releases:
        if not release.lock.is_file():
            print(f"lock.py: {release.lock.name} is missing: run python deploy/lock.py", file=sys.stderr)
            status = 1
            continue
        text = release.lock.read_text(encoding="utf-8")
        found = problems(release, text)
        if again and not found:
            runtime, build = wanted()
            now = render(release, resolve(release, runtime), resolve(release, build))
            old, new = locked(text), locked(now)
            found += [
                f"{release.lock.name}: {n} {old.get(n, '(none)')} -> {new.get(n, '(none)')} resolves now"
                for n in sorted(set(old) | set(new))
                if old.get(n) != new.get(n)
            ]
        for problem in found:
            print(f"lock.py: {problem}: run python deploy/lock.py", file=sys.stderr)
        if found:
            status = 1
        else:
            print(f"lock.py: {release.lock.name} is current")
    return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--release", choices=sorted(RELEASES), action="append", help="only this release")
    parser.add_argument("--check", action="store_true", help="only check that the locks are current")
    parser.add_argument(
        "--resolve", action="store_true", help="with --check: resolve again and name each pin that changes"
    )
    args = parser.parse_args(argv)
    releases = [RELEASES[r] for r in (args.release or sorted(RELEASES))]
    if args.check:
        return check(releases, again=args.resolve)
    runtime, build = wanted()
    for release in releases:
        release.lock.write_text(
            render(release, resolve(release, runtime), resolve(release, build)), encoding="utf-8"
        )
        print(f"lock.py: wrote {release.lock}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
