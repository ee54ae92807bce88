"""Shared test configuration: Kivy's environment, slow tests first, and each test's CPU time on request."""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Generator
from typing import Any

import pytest

# Kivy must not parse pytest's argv, and must keep its config out of the user's home.
os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules that hold the most slow tests run first, each module kept whole and in its own order:
    the long kiosk walks start at once, and the two pytest-xdist workers of make test (work stealing: an
    idle worker takes the far end of the other's queue) end on short tests instead of one worker finishing
    a long walk alone. Every worker sorts the same way."""
    slow: dict[str, int] = {}
    for item in items:
        if item.get_closest_marker("slow"):
            module = item.nodeid.split("::")[0]
            slow[module] = slow.get(module, 0) + 1
    items.sort(key=lambda item: -slow.get(item.nodeid.split("::")[0], 0))  # stable: order kept within


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: Any) -> Generator[None, None, None]:
    """With TABLETALLY_CPU_REPORT=FILE, each test appends ``CPU_S WALL_S NODEID`` to FILE: the CPU seconds
    of the test's process and of the child processes it waited for (set-up and tear-down included), which
    a loaded machine does not inflate as it does the wall time. ``sort -rn FILE`` lists the costliest."""
    report = os.environ.get("TABLETALLY_CPU_REPORT")
    if not report:
        yield
        return
    cpu, wall = _cpu_seconds(), time.monotonic()
    yield
    line = f"{_cpu_seconds() - cpu:.2f} {time.monotonic() - wall:.2f} {item.nodeid}\n"
    with open(report, "a", encoding="utf-8") as out:  # one short append per test: whole lines from workers
        out.write(line)
