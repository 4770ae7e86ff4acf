"""The import directions between the layers of ``baloot_engine``, checked over every module.

The layers, lowest first: ``rules`` ← ``solver`` ← ``bots`` ← ``analysis`` ← ``screening`` ←
``learning`` ← ``research`` ← ``lanes`` ← ``telemetry`` ← ``api`` ← ``server``. ``screening``,
the batch fair-play screen, runs on the analysis (Ray only where it is installed, imported by
its executor alone); ``lanes``, where heavy work runs in processes of its own, knows nothing
of the game, of gRPC or of metrics; ``analysis``,
the round analysis of match records, runs on the bots and the solver; ``learning``, the
solved-deal corpus and the training of the LEARNED bot's networks, on the bots and the solver
(the bots serve its exported weights with numpy alone); ``research``, the game-AI environments,
uses the rules and the bots and nothing of the service (nothing imports it, tests/research
checks that). A module may import its own layer and the layers below it, never one above:
nothing under ``api/`` imports ``server/``, telemetry imports neither, and the rules core, the
solver and the bots know nothing of the service around them (nor of prometheus or structlog;
the solver nor of gRPC or protobuf). The package's ``__init__`` (the version) is below every
layer; ``__main__`` (the entry point) is above them all. And no module imports a private name
(``_name``) of another.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import pytest

import baloot_engine

PACKAGE = "baloot_engine"
PACKAGE_DIR = Path(baloot_engine.__file__).parent
LAYERS = (
    "rules",
    "solver",
    "bots",
    "analysis",
    "screening",
    "learning",
    "research",
    "lanes",
    "telemetry",
    "api",
    "server",
)
# Libraries a layer must not import, beyond the layer order itself.
FORBIDDEN_LIBRARIES = {
    "rules": ("structlog", "prometheus_client"),
    "solver": ("structlog", "prometheus_client", "grpc", "google"),
    "bots": ("structlog", "prometheus_client", "torch"),
    "analysis": ("structlog", "prometheus_client", "grpc", "google"),
    "screening": ("structlog", "prometheus_client", "grpc", "google"),
    "learning": ("structlog", "prometheus_client", "grpc", "google"),
    "research": ("structlog", "prometheus_client", "grpc"),
    "lanes": ("structlog", "prometheus_client", "grpc", "google"),
}
_ROOT = -1  # baloot_engine/__init__.py: importable by every layer
_ENTRY = len(LAYERS)  # baloot_engine/__main__.py: imports the server


def module_name(path: Path) -> str:
    """``baloot_engine.api.servicer`` for ``.../baloot_engine/api/servicer.py``."""
    parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> int:
    """The rank of a module of the package in :data:`LAYERS` (see :data:`_ROOT`, :data:`_ENTRY`)."""
    parts = module.split(".")
    assert parts[0] == PACKAGE, module
    if len(parts) == 1:
        return _ROOT
    if parts[1] == "__main__":
        return _ENTRY
    if parts[1] not in LAYERS:
        raise AssertionError(f"{module} belongs to no layer: add it to LAYERS")
    return LAYERS.index(parts[1])


def imported_from(node: ast.ImportFrom, package: str) -> str:
    """The module a ``from … import`` names, a relative one resolved from ``package``."""
    base = node.module or ""
    if node.level:
        anchor = package.split(".")
        anchor = anchor[: len(anchor) - (node.level - 1)]
        base = ".".join([*anchor, base] if base else anchor)
    return base


def imported_modules(module: str, source: str, *, is_package: bool = False) -> list[str]:
    """Every module ``source`` imports (also inside functions), relative imports resolved.

    ``from baloot_engine import api`` names the module ``baloot_engine.api``;
    ``from baloot_engine import __version__`` names the package itself.
    """
    package = module if is_package else module.rpartition(".")[0]
    names: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = imported_from(node, package)
            if base == PACKAGE:
                names += [
                    f"{PACKAGE}.{alias.name}" if alias.name in (*LAYERS, "__main__") else base
                    for alias in node.names
                ]
            else:
                names.append(base)
    return names


def violations(module: str, source: str, *, is_package: bool = False) -> list[str]:
    """The imports of ``module`` (with this source) that break the layer order."""
    own = layer_of(module)
    found = []
    for name in imported_modules(module, source, is_package=is_package):
        top = name.split(".")[0]
        if top == PACKAGE:
            if layer_of(name) > own:
                found.append(f"{module} imports {name}")
        elif own >= 0 and own < _ENTRY and top in FORBIDDEN_LIBRARIES.get(LAYERS[own], ()):
            found.append(f"{module} imports {name}")
    return found


MODULES = sorted(PACKAGE_DIR.rglob("*.py"))


def problems_of(check: Callable[..., list[str]]) -> list[str]:
    """What ``check`` (:func:`violations`, :func:`private_imports`) finds in every module."""
    return [
        problem
        for path in MODULES
        for problem in check(
            module_name(path),
            path.read_text(encoding="utf-8"),
            is_package=path.name == "__init__.py",
        )
    ]


def test_every_module_respects_the_layer_order() -> None:
    assert problems_of(violations) == []


def test_every_module_belongs_to_a_layer() -> None:
    for path in MODULES:
        layer_of(module_name(path))
    assert {module_name(p).split(".")[1] for p in MODULES if p.parent != PACKAGE_DIR} == set(LAYERS)


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("baloot_engine.api.servicer", "from baloot_engine.server.logs import get_logger"),
        ("baloot_engine.api.views", "import baloot_engine.server.app"),
        ("baloot_engine.api.views", "from baloot_engine import server"),
        ("baloot_engine.telemetry.metrics", "from baloot_engine.api import outbound"),
        ("baloot_engine.telemetry.logs", "from baloot_engine.server.settings import Settings"),
        ("baloot_engine.telemetry.logs", "def f():\n    from ..server import app\n"),
        ("baloot_engine.rules.game", "from baloot_engine.telemetry.logs import get_logger"),
        ("baloot_engine.rules.game", "from baloot_engine.bots import suggest"),
        ("baloot_engine.rules.game", "import structlog"),
        ("baloot_engine.bots.search", "from prometheus_client import Counter"),
        ("baloot_engine.bots.search", "from .. import telemetry"),
        ("baloot_engine.research.encoding", "from baloot_engine.api import views"),
        ("baloot_engine.research.pettingzoo_env", "import grpc"),
    ],
)
def test_an_upward_import_is_reported(module: str, source: str) -> None:
    assert violations(module, source) != []


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("baloot_engine.server.app", "from baloot_engine.api.servicer import SERVICE_NAME"),
        ("baloot_engine.api.servicer", "from baloot_engine.telemetry.metrics import Metrics"),
        ("baloot_engine.api.outbound", "from .enums import PHASE_NUMBERS"),
        ("baloot_engine.telemetry.metrics", "from baloot_engine.rules.actions import Event"),
        ("baloot_engine.bots.search", "from baloot_engine.rules import game"),
        ("baloot_engine.research.agents", "from baloot_engine.bots import suggest"),
        ("baloot_engine.server.settings", "from baloot_engine import __version__"),
        ("baloot_engine.__main__", "from baloot_engine.server.app import main"),
    ],
)
def test_a_downward_import_is_allowed(module: str, source: str) -> None:
    assert violations(module, source) == []


def test_relative_imports_resolve_from_their_package() -> None:
    assert imported_modules("baloot_engine.api.views", "from .outbound import add_action") == [
        "baloot_engine.api.outbound"
    ]
    assert imported_modules(
        "baloot_engine.api", "from .views import build_view", is_package=True
    ) == ["baloot_engine.api.views"]
    assert imported_modules("baloot_engine.bots.search", "from ..rules.game import apply") == [
        "baloot_engine.rules.game"
    ]


def private_imports(module: str, source: str, *, is_package: bool = False) -> list[str]:
    """The names starting with ``_`` that ``source`` imports from another module of the
    package (``from baloot_engine.x import _y``), or reads from one it imported
    (``x._y``). A package may import its own private submodules (``solver._search``)."""
    package = module if is_package else module.rpartition(".")[0]
    tree = ast.parse(source)
    found: list[str] = []
    imported: set[str] = set()  # local names bound to modules of the package
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == PACKAGE:
                    imported.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            base = imported_from(node, package)
            if base.split(".")[0] != PACKAGE:
                continue
            for alias in node.names:
                name = alias.name
                if name.startswith("_") and not name.startswith("__"):
                    own_submodule = base == package and is_package
                    if base != module and not own_submodule:
                        found.append(f"{module} imports {base}.{name}")
                elif (PACKAGE_DIR.parent / base.replace(".", "/") / name).is_dir() or (
                    PACKAGE_DIR.parent / base.replace(".", "/") / f"{name}.py"
                ).exists():
                    imported.add(alias.asname or name)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in imported
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            found.append(f"{module} reads {node.value.id}.{node.attr}")
    return found


def test_no_module_imports_a_private_name_of_another() -> None:
    assert problems_of(private_imports) == []


@pytest.mark.parametrize(
    ("module", "source", "bad"),
    [
        ("baloot_engine.bots.inference", "from baloot_engine.bots.tracking import _spent", True),
        ("baloot_engine.api.analysis", "from baloot_engine.api import records\nrecords._x()", True),
        ("baloot_engine.api.analysis", "from . import records\nrecords._rows_in(1)", True),
        ("baloot_engine.api.analysis", "from .records import rounds_in", False),
        ("baloot_engine.solver", "from baloot_engine.solver import _search", False),
        ("baloot_engine.api.x", "from baloot_engine.solver import _search", True),
        ("baloot_engine.api.x", "from google.protobuf import descriptor as _d", False),
    ],
)
def test_a_private_import_is_reported(module: str, source: str, bad: bool) -> None:
    is_package = module == "baloot_engine.solver"
    assert bool(private_imports(module, source, is_package=is_package)) is bad
