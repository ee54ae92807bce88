"""Write the Raspberry Pi's requirements lock: every package the kiosk installs, pinned, with its hash.

The Pi runs Raspberry Pi OS Bookworm: 64-bit ARM (aarch64) and Python 3.11. This resolves TableTally's
runtime dependencies (``pyproject.toml``) and its build requirements for that platform with pip's own
resolver, wheels only, numpy (and tqdm) held at the versions Debian's packages install (picamera2 is built
against them), and writes ``deploy/requirements-pi.txt``: one ``name==version --hash=sha256:...`` line per
wheel. ``deploy/install.sh`` installs from it with ``--require-hashes --only-binary :all:``, so a package
that changed on PyPI, or a source build, is refused.

    python deploy/lock.py            # rewrite deploy/requirements-pi.txt (asks PyPI through pip)
    python deploy/lock.py --check    # exit 1 when the lock no longer covers pyproject.toml's dependencies
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
PYPROJECT = HERE.parent / "pyproject.toml"
LOCK = HERE / "requirements-pi.txt"
PYTHON_VERSION = "3.11"  # Raspberry Pi OS Bookworm's python3
# Held at Bookworm's own versions: the packages picamera2 (from apt) depends on that the kiosk needs too.
# install.sh pins apt's versions of picamera2's dependencies (deploy/render.py constraints); the lock agrees.
DEBIAN_PINS = {"numpy": "1.24.2", "tqdm": "4.64.1"}  # python3-numpy 1:1.24.2-1+deb12u1, python3-tqdm 4.64.1-1
PLATFORMS = (
    "manylinux_2_36_aarch64",  # Bookworm's glibc 2.36, and every older manylinux tag it accepts
    "manylinux_2_35_aarch64",
    "manylinux_2_31_aarch64",
    "manylinux_2_28_aarch64",
    "manylinux_2_24_aarch64",
    "manylinux_2_17_aarch64",
    "manylinux2014_aarch64",
    "linux_aarch64",
)


def _name(requirement: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return re.sub(r"[-_.]+", "-", match.group(1)).lower() if match else ""


def wanted() -> tuple[list[str], list[str]]:
    """(runtime dependencies, build requirements) from pyproject.toml."""
    data = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    return list(data["project"]["dependencies"]), list(data["build-system"]["requires"])


def resolve(requirements: list[str]) -> list[tuple[str, str, str, str]]:
    """(name, version, wheel file, sha256) of every wheel pip would install on the Pi."""
    with tempfile.TemporaryDirectory() as folder:
        constraints = Path(folder) / "constraints.txt"
        constraints.write_text("".join(f"{n}=={v}\n" for n, v in DEBIAN_PINS.items()), encoding="utf-8")
        report = Path(folder) / "report.json"
        command = [sys.executable, "-m", "pip", "install", "--quiet", "--dry-run", "--ignore-installed"]
        command += ["--report", str(report), "--target", str(Path(folder) / "target")]
        command += ["--python-version", PYTHON_VERSION, "--implementation", "cp", "--abi", "cp311"]
        command += ["--only-binary=:all:", "--constraint", str(constraints)]
        for platform in PLATFORMS:
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


def render(runtime: list[tuple[str, str, str, str]], build: list[tuple[str, str, str, str]]) -> str:
    lines = [
        "# The Raspberry Pi's requirements lock (aarch64, Python 3.11: Raspberry Pi OS Bookworm), written by",
        "# `python deploy/lock.py` from pyproject.toml. deploy/install.sh installs it with --require-hashes",
        "# --only-binary :all:, so only these exact wheels go in. Do not edit: change pyproject.toml, rerun.",
        "# Held at Bookworm's versions (the venv uses apt's copies, picamera2 is built against them): "
        + ", ".join(f"{n} {v}" for n, v in DEBIAN_PINS.items()),
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


def locked(text: str) -> dict[str, str]:
    """name -> version of a lock file's pins."""
    pins = {}
    for line in text.splitlines():
        match = re.match(r"([A-Za-z0-9._-]+)==(\S+) ", line)
        if match:
            pins[_name(match.group(1))] = match.group(2)
    return pins


def missing_from_lock(text: str) -> list[str]:
    """pyproject.toml requirements (runtime and build) that the lock does not pin."""
    runtime, build = wanted()
    pins = locked(text)
    return [req for req in runtime + build if _name(req) not in pins]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="only check that the lock covers pyproject.toml")
    args = parser.parse_args(argv)
    if args.check:
        missing = missing_from_lock(LOCK.read_text(encoding="utf-8"))
        for req in missing:
            print(f"lock.py: {LOCK.name} does not pin {req}: run python deploy/lock.py", file=sys.stderr)
        return 1 if missing else 0
    runtime, build = wanted()
    LOCK.write_text(render(resolve(runtime), resolve(build)), encoding="utf-8")
    print(f"lock.py: wrote {LOCK}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
