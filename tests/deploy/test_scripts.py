"""Static checks of the deploy scripts: shellcheck clean, and no downloads outside apt-get and pip."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
SCRIPTS = sorted(DEPLOY.glob("*.sh"))
# What the Pi runs (dev-setup.sh is the developer's machine setup and pi-check.sh the developer's check
# on arm64 roots, which fetches them: neither is part of the Pi install).
SHIPPED = [
    *(p for p in SCRIPTS if p.name not in ("dev-setup.sh", "pi-check.sh")),
    DEPLOY / "render.py",
    DEPLOY / "tabletally-kiosk.service.in",
]


def test_every_deploy_script_is_found() -> None:
    names = {p.name for p in SCRIPTS}
    assert {"install.sh", "update.sh", "uninstall.sh", "lib.sh", "dev-setup.sh"} <= names


@pytest.mark.skipif(
    shutil.which("shellcheck") is None, reason="shellcheck is not installed (deploy/dev-setup.sh)"
)
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_script_passes_shellcheck(script: Path) -> None:
    # shellcheck resolves `source=deploy/lib.sh` relative to the working directory: run from the repo root.
    result = subprocess.run(
        ["shellcheck", "--external-sources", "--severity=style", f"deploy/{script.name}"],
        cwd=DEPLOY.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("script", [p for p in SCRIPTS if p.name != "lib.sh"], ids=lambda p: p.name)
def test_runnable_scripts_are_executable_bash(script: Path) -> None:
    assert script.stat().st_mode & 0o111, f"{script.name} is not executable"
    assert script.read_text().startswith("#!/usr/bin/env bash\n")
    assert "set -euo pipefail" in script.read_text()


def _code_lines(path: Path) -> list[str]:
    comment = "#"
    return [
        line
        for line in path.read_text().splitlines()
        if line.strip() and not line.lstrip().startswith(comment)
    ]


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_nothing_downloads_outside_apt_and_pip(path: Path) -> None:
    forbidden = re.compile(r"\b(curl|wget|git\s+clone|urllib|urlopen|requests\.get|http\.client)\b|https?://")
    offenders = [line for line in _code_lines(path) if forbidden.search(line)]
    assert offenders == [], f"{path.name} fetches from the network by itself: {offenders}"
