"""The shape of the rules package: an acyclic import graph, imports at module level only,
and every ``Code:`` pointer of ``docs/rules.md`` naming something that exists."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

import baloot_engine.rules

RULES_DIR = Path(baloot_engine.rules.__file__).parent
PACKAGE = "baloot_engine.rules"
RULES_DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def _modules() -> dict[str, ast.Module]:
    return {
        path.stem: ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for path in sorted(RULES_DIR.glob("*.py"))
    }


def _rules_imports(tree: ast.Module) -> set[str]:
    """The rules modules a module imports anywhere (``TYPE_CHECKING`` blocks included)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == PACKAGE:
                found.update(alias.name for alias in node.names)
            elif node.module.startswith(PACKAGE + "."):
                found.add(node.module.removeprefix(PACKAGE + ".").split(".")[0])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(PACKAGE + "."):
                    found.add(alias.name.removeprefix(PACKAGE + ".").split(".")[0])
    return found


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` as a path that comes back to its start, or None."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = finished
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_no_import_cycle_among_the_rules_modules() -> None:
    modules = _modules()
    graph = {name: _rules_imports(tree) & modules.keys() for name, tree in modules.items()}
    assert graph["game"] >= {"bidding", "doubling", "play", "match"}
    assert _cycle(graph) is None


def test_the_cycle_check_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_the_phase_modules_do_not_call_one_another() -> None:
    modules = _modules()
    phases = {"bidding", "doubling", "play", "declaring", "sawa", "match"}
    for name in phases:
        assert _rules_imports(modules[name]) & (phases - {name}) <= {"play"}, name
    # Sawa's proof asks play's card rules; nothing else crosses between them.
    assert _rules_imports(modules["sawa"]) & phases == {"play"}


def _function_level_imports(tree: ast.Module) -> list[int]:
    lines: list[int] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines += [
                inner.lineno
                for inner in ast.walk(node)
                if isinstance(inner, (ast.Import, ast.ImportFrom))
            ]
    return lines


def test_no_import_inside_a_function_in_rules() -> None:
    offenders = {
        name: lines for name, tree in _modules().items() if (lines := _function_level_imports(tree))
    }
    assert offenders == {}


def test_the_function_import_check_sees_one() -> None:
    tree = ast.parse("def f():\n    from x import y\n    return y\n")
    assert _function_level_imports(tree) == [2]


def test_every_rules_module_says_what_it_owns() -> None:
    for name, tree in _modules().items():
        assert ast.get_docstring(tree), f"rules/{name}.py has no module docstring"


# ---------------------------------------------------------------------------------------
# docs/rules.md: every "Code:" pointer names a module and attributes that exist.

_POINTER = re.compile(r"`rules/(\w+)\.py`(?:\s*\(([^)]*)\))?")
_NAME = re.compile(r"`([A-Za-z_][\w.]*)`")


def _code_pointers(text: str) -> list[tuple[str, str]]:
    """(module, dotted attribute or "") for every pointer of every ``**Code:**`` paragraph."""
    pointers: list[tuple[str, str]] = []
    for paragraph in re.split(r"\n\s*\n", text):
        if "**Code:**" not in paragraph:
            continue
        code = paragraph[paragraph.index("**Code:**") :]
        for module, inside in _POINTER.findall(code):
            names = _NAME.findall(inside or "")
            pointers += [(module, name) for name in names] or [(module, "")]
    return pointers


POINTERS = _code_pointers(RULES_DOC.read_text(encoding="utf-8"))


def test_the_pointer_parser() -> None:
    text = "Intro.\n\n**Code:** `rules/a.py` (`f`, `C.x`; see\n`g`), `rules/b.py`.\n\nNext."
    assert _code_pointers(text) == [("a", "f"), ("a", "C.x"), ("a", "g"), ("b", "")]
    assert len(POINTERS) > 80


@pytest.mark.parametrize(("module", "name"), POINTERS, ids=str)
def test_code_pointer_names_something_that_exists(module: str, name: str) -> None:
    target: object = importlib.import_module(f"{PACKAGE}.{module}")
    for part in filter(None, name.split(".")):
        assert hasattr(target, part), f"docs/rules.md points at rules/{module}.py `{name}`"
        target = getattr(target, part)
