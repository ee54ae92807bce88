"""What the headless kiosk tests share: the environment a Kivy child process renders in (SDL offscreen,
its config in the test's folder), a run of the scripted demo, and the JSON line it ends with; and the
full demo walk of one language at one size, run once per test session for every test that judges it
(``demo_walk``, through the ``demo_walk`` fixture of tests/ui/conftest.py).

Kivy is started only in child processes: nothing here imports it, so collecting the tests does not load
Kivy (or its GL) into the pytest process, where a later torch import in the models tests segfaulted.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def headless_env(tmp_path: Path) -> dict[str, str]:
    """This process's environment for a Kivy child: offscreen, quiet, unbuffered, its Kivy home in
    ``tmp_path`` (never the user's)."""
    env = dict(os.environ)
    env.update(
        SDL_VIDEODRIVER="offscreen",
        KIVY_NO_ARGS="1",
        KIVY_NO_CONSOLELOG="1",
        KIVY_HOME=str(tmp_path / "kivy-home"),
        PYTHONUNBUFFERED="1",
    )
    return env


def run_demo(tmp_path: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """``python -m ui.devtools.demo ARGS`` in a headless Kivy, from the repository root, its output captured.
    ``timeout`` is a hang guard only: a loaded machine makes the demo several times slower."""
    return subprocess.run(
        [sys.executable, "-m", "ui.devtools.demo", *args],
        cwd=ROOT,
        env=headless_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def result_line(stdout: str, prefix: str = "RESULT ") -> dict[str, Any]:
    """The JSON of the last line of ``stdout`` that starts with ``prefix`` (the demo's RESULT, TAPS...)."""
    lines = [line for line in stdout.splitlines() if line.startswith(prefix)]
    assert lines, f"no {prefix.strip()} line in the demo output:\n{stdout[-3000:]}"
    data: dict[str, Any] = json.loads(lines[-1][len(prefix) :])
    return data


def demo_result(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The demo's RESULT, once it is known to have ended well (else its error, or its stderr's tail)."""
    result = result_line(proc.stdout)
    assert proc.returncode == 0, result.get("error") or proc.stderr[-3000:]
    return result


@dataclass(frozen=True)
class DemoWalk:
    """The full scripted demo at one size in one language: its run, its screenshots and texts.json
    (``shots``, the size's folder), and the record it played into (``data``)."""

    language: str
    size: str
    proc: subprocess.CompletedProcess[str]
    shots: Path
    data: Path

    def result(self) -> dict[str, Any]:
        """The RESULT line, once the walk is known to have ended well."""
        return demo_result(self.proc)


def demo_walk(root: Path, language: str, size: str) -> DemoWalk:
    """``python -m ui.devtools.demo --out .. --data-dir .. --size SIZE --language LANGUAGE``, run once under
    ``root`` and kept there: every later call (from any test, and from any pytest-xdist worker sharing
    ``root``) gets the same walk. A file lock makes a second caller wait for the first's run."""
    folder = root / f"demo-walk-{language}-{size}"
    folder.mkdir(parents=True, exist_ok=True)
    kept = folder / "run.json"
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not kept.exists():
            args = ["--out", str(folder / "shots"), "--data-dir", str(folder / "data")]
            args += ["--size", size, "--language", language]
            # The timeout is a hang guard only: the walk takes 1-2 min, 5-7 on a heavily shared machine.
            proc = run_demo(folder, *args, timeout=900)
            run = {
                "args": proc.args,
                "returncode": proc.returncode,
                "stdout": proc.stdout,
                "stderr": proc.stderr,
            }
            kept.write_text(json.dumps(run), encoding="utf-8")
        run = json.loads(kept.read_text(encoding="utf-8"))
    proc = subprocess.CompletedProcess(run["args"], run["returncode"], run["stdout"], run["stderr"])
    return DemoWalk(language, size, proc, folder / "shots" / size, folder / "data")
