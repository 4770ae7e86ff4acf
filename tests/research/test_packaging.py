"""The research package is an optional extra: the rest of the package never needs it.

numpy is a dependency of the package itself (the LEARNED bot's forward pass, docs/learning.md),
so only the frameworks are the research extra's own; the ``train`` extra (PyTorch) is imported
by the training module alone.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from tests.test_layers import MODULES, PACKAGE_DIR, imported_modules, module_name

ROOT = Path(__file__).resolve().parents[2]
RESEARCH_LIBRARIES = ("gymnasium", "pettingzoo", "pyspiel", "open_spiel")
TRAIN_LIBRARIES = ("torch", "matplotlib")


def test_no_module_outside_research_imports_it_or_its_libraries() -> None:
    found = []
    for path in MODULES:
        module = module_name(path)
        if module.startswith("baloot_engine.research"):
            continue
        source = path.read_text(encoding="utf-8")
        for name in imported_modules(module, source, is_package=path.name == "__init__.py"):
            if name.startswith("baloot_engine.research") or name.split(".")[0] in (
                RESEARCH_LIBRARIES
            ):
                found.append(f"{module} imports {name}")
    assert found == []
    assert (PACKAGE_DIR / "research" / "__init__.py").exists()


def test_the_research_extra_brings_the_frameworks_and_dev_installs_it() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    names = {requirement.split(">")[0].split("=")[0] for requirement in extras["research"]}
    assert names == {"numpy", "gymnasium", "pettingzoo", "open-spiel"}
    assert "research" in extras["dev"][0]
    assert not any(
        dependency.startswith(("pettingzoo", "open-spiel", "gymnasium"))
        for dependency in project["dependencies"]
    )
    assert any(dependency.startswith("numpy") for dependency in project["dependencies"])


def test_the_install_line_is_the_one_that_works_from_a_clone() -> None:
    """The package is not on PyPI: the docs install it from the repository's root, and the
    research package's own hint says the same."""
    line = "pip install -e '.[research]'"
    for path in (ROOT / "README.md", ROOT / "docs" / "research.md"):
        text = path.read_text(encoding="utf-8")
        assert line in text
        assert "baloot-engine[research]" not in text
    hint = (PACKAGE_DIR / "research" / "__init__.py").read_text(encoding="utf-8")
    assert "pip install -e '.[research]'" in hint


def test_only_the_training_imports_the_train_extra() -> None:
    found = []
    for path in MODULES:
        module = module_name(path)
        source = path.read_text(encoding="utf-8")
        for name in imported_modules(module, source, is_package=path.name == "__init__.py"):
            if name.split(".")[0] in TRAIN_LIBRARIES:
                found.append(module)
    assert set(found) == {"baloot_engine.learning.training"}
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    names = {requirement.split(">")[0].split("=")[0] for requirement in extras["train"]}
    assert names == {"torch", "matplotlib", "tqdm"}
    assert "train" not in extras["dev"][0]  # CI installs no PyTorch
