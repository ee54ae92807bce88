"""The wheel the Pi installs: built here with setuptools (no network, no build isolation) from a copy of
the packages and the project's files, it holds the kiosk's packages and none of the development tools
(vision.devtools, ui.devtools: pyproject's exclude)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_built_wheel_holds_no_development_tools(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "checkpoints", ".yolo-config", "*.mo")
    for name in ("pyproject.toml", "README.md", "scorer", "vision", "ui", "models", "deploy"):
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=skip)
        else:
            shutil.copy2(path, source / name)
    out = tmp_path / "wheel"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q"]
        + ["-w", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert build.returncode == 0, build.stderr[-2000:]
    (wheel,) = out.glob("tabletally-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    modules = {n[: -len(".py")].replace("/", ".") for n in names if n.endswith(".py")}
    assert {"vision.pipeline", "vision.reading.detector", "vision.runtimes.choice", "ui.cli"} <= modules
    assert not [n for n in names if "/devtools/" in n], "development tools in the wheel"
    assert (source / "vision" / "devtools" / "bench.py").is_file()  # they exist, and were left out
