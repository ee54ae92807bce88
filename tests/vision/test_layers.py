"""vision/ in layers (vision/__init__.py): every import inside vision, deferred and ``TYPE_CHECKING`` ones
included, goes to its own layer or one below, no modules import each other in a circle, and nothing the
wheel ships (models.training included) imports what it leaves out: the development tools (vision.devtools,
ui.devtools)."""

from __future__ import annotations

import ast
import tomllib
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYERS = {"base": 1, "runtimes": 2, "reader": 3, "reading": 4, "table": 5, "deck": 6}
TOP = 7  # vision.pipeline, vision.cameras, vision.teach and any other module at the top
DEVTOOLS = 8


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(package: str) -> dict[str, Path]:
    return {module_name(p): p for p in sorted((ROOT / package).rglob("*.py"))}


def imported(path: Path) -> set[str]:
    package = module_name(path).rsplit(".", 1)[0] if path.name != "__init__.py" else module_name(path)
    return imports_in(path.read_text(encoding="utf-8"), package)


def imports_in(source: str, package: str) -> set[str]:
    """Every module ``source`` (a module of ``package``) imports anywhere in it (in functions, under
    ``if TYPE_CHECKING:``), as dotted names; ``from a import b`` gives ``a.b`` as well as ``a`` (``b`` may
    be a module)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def layer(name: str) -> int:
    parts = name.split(".")
    if len(parts) < 3:
        return TOP if name != "vision" else 0
    if parts[1] == "devtools":
        return DEVTOOLS
    return LAYERS.get(parts[1], TOP)


def vision_graph() -> dict[str, set[str]]:
    mods = modules("vision")
    return {name: {m for m in imported(path) if m in mods and m != name} for name, path in mods.items()}


def test_every_vision_module_has_a_layer_that_the_package_doc_names() -> None:
    doc = (ROOT / "vision" / "__init__.py").read_text(encoding="utf-8")
    packages = {p.name for p in (ROOT / "vision").iterdir() if (p / "__init__.py").is_file()}
    assert packages == {*LAYERS, "devtools"}, "a new folder of vision needs its place in the layers"
    assert all(f"``vision.{name}``" in doc for name in LAYERS)


def test_no_vision_module_imports_from_a_layer_above_its_own() -> None:
    wrong = [
        f"{name} (layer {layer(name)}) imports {target} (layer {layer(target)})"
        for name, targets in vision_graph().items()
        for target in sorted(targets)
        if layer(target) > layer(name)
    ]
    assert not wrong, "\n".join(wrong)


def test_no_vision_modules_import_each_other_in_a_circle() -> None:
    graph = vision_graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    assert not circles, circles


def test_deferred_type_checking_and_relative_imports_are_all_seen() -> None:
    source = (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from vision.pipeline import read_cards\n"
        "def f():\n    from vision.base.types import Box\n    from .far import read_far\n"
    )
    found = imports_in(source, "vision.reading")
    assert {"vision.pipeline", "vision.base.types", "vision.reading.far"} <= found
    assert layer("vision.pipeline") > layer("vision.reading.far") > layer("vision.base.types")


def wheel_packages() -> tuple[list[str], list[str]]:
    """The package patterns the wheel takes and leaves out (pyproject: tool.setuptools.packages.find)."""
    find = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    return find["packages"]["find"]["include"], find["packages"]["find"]["exclude"]


def shipped(module: str, include: list[str], exclude: list[str]) -> bool:
    """Whether the wheel holds ``module`` (a dotted name; its package is matched as setuptools matches)."""
    package = (
        module if (ROOT / module.replace(".", "/") / "__init__.py").is_file() else module.rsplit(".", 1)[0]
    )
    return any(fnmatch(package, p) for p in include) and not any(fnmatch(package, p) for p in exclude)


def test_nothing_the_wheel_ships_imports_what_it_leaves_out() -> None:
    """The kiosk's code, models.training included (the Pi runs ``tabletally deck train`` with it), imports
    no module the wheel leaves out: the development tools (vision.devtools, ui.devtools) and the weights
    training starts from."""
    include, exclude = wheel_packages()
    every = {**modules("vision"), **modules("ui"), **modules("scorer"), **modules("models")}
    left_out = {name for name in every if not shipped(name, include, exclude)}
    assert {"vision.devtools.evaluate", "ui.devtools.demo"} <= left_out  # the patterns are read right
    assert "models.training.deck_tune" not in left_out
    wrong = [
        f"{name} imports {target}"
        for name, path in every.items()
        if name not in left_out
        for target in sorted(imported(path))
        if target in left_out or target.startswith(("vision.devtools", "ui.devtools"))
    ]
    assert not wrong, "\n".join(wrong)
