"""The rules core is pure Python: no gRPC, protobuf, structlog or prometheus imports."""

from __future__ import annotations

import ast
from pathlib import Path

import baloot_engine.rules

FORBIDDEN = ("grpc", "google", "protobuf", "structlog", "prometheus_client", "baloot.")
RULES_DIR = Path(baloot_engine.rules.__file__).parent


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return names


def test_rules_core_imports_nothing_of_the_service_stack() -> None:
    offenders = {
        path.name: name
        for path in RULES_DIR.glob("*.py")
        for name in _imports(path)
        if name.startswith(FORBIDDEN) or name == "baloot"
    }
    assert offenders == {}


def test_the_check_sees_the_modules() -> None:
    assert len(list(RULES_DIR.glob("*.py"))) >= 10
