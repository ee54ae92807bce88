"""scorer/ is the pure rules core: importing it loads no GUI, vision or numeric libraries."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

SCORER = Path(__file__).resolve().parents[2] / "scorer"
HEAVY = ("kivy", "cv2", "numpy", "onnxruntime", "torch", "ultralytics", "sqlite3", "ui", "vision")


def test_importing_scorer_loads_no_heavy_or_io_modules() -> None:
    code = (
        "import sys, scorer, scorer.log, scorer.jhyap, scorer.seep, scorer.cards\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"


def test_scorer_sources_do_no_file_or_process_io() -> None:
    banned_calls = {"open", "print", "input", "exec", "eval"}
    banned_modules = {"os", "io", "pathlib", "subprocess", "shutil", "socket", "sqlite3", *HEAVY}
    for path in sorted(SCORER.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in banned_calls, f"{path.name}:{node.lineno} calls {node.func.id}()"
            if isinstance(node, ast.Import):
                for alias in node.names:
                    assert alias.name.split(".")[0] not in banned_modules, f"{path.name} imports {alias.name}"
            if isinstance(node, ast.ImportFrom) and node.module:
                assert node.module.split(".")[0] not in banned_modules, f"{path.name} imports {node.module}"
