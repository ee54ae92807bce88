"""Fixtures of the kiosk's tests."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.ui.headless import DemoWalk
from tests.ui.headless import demo_walk as run_walk


@pytest.fixture(scope="session")
def demo_walk(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, str], DemoWalk]:
    """``demo_walk(language, size)``: the full scripted demo walk in that language at that size
    (tests.ui.headless.DemoWalk), run once for the whole session however many tests judge it. Under
    pytest-xdist the workers share it (their temporary folders have one parent)."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    return lambda language, size: run_walk(Path(root) / "walks", language, size)
