"""The UI reaches the rules engine through the scorer's typed facade only (``from scorer import ...``)."""

from __future__ import annotations

import ast
from pathlib import Path

UI = Path(__file__).resolve().parents[2] / "ui"


def scorer_submodule_imports(source: str) -> list[str]:
    """The ``scorer.<module>`` imports in ``source`` (``import scorer.x``, ``from scorer.x import y``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("scorer."):
            found.append(f"from {node.module} import ...")
        elif isinstance(node, ast.Import):
            found += [f"import {a.name}" for a in node.names if a.name.startswith("scorer.")]
    return found


def test_the_check_finds_submodule_imports_and_accepts_the_facade() -> None:
    source = (
        "import scorer\nfrom scorer import Card\n"
        "def f():\n    import scorer.seep as s\n    from scorer.log import score\n"
    )
    assert scorer_submodule_imports(source) == ["import scorer.seep", "from scorer.log import ..."]


def test_no_ui_module_imports_a_scorer_submodule() -> None:
    offenders = {
        str(path.relative_to(UI.parent)): found
        for path in sorted(UI.rglob("*.py"))
        if (found := scorer_submodule_imports(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}
