"""Every test or golden file that the code, the docs and the scripts name exists (the compiled
solver's header once named a test file that never did)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLACES = ("service/baloot_engine", "docs", "bench", "scripts", "mk", "clients/python")
SUFFIXES = {".py", ".pyi", ".c", ".md", ".mk", ".toml"}
NAMED = re.compile(r"\btests/[\w./-]+\.(?:py|json)\b")


def _texts() -> list[Path]:
    found = [ROOT / "README.md", ROOT / "Makefile", ROOT / "CHANGELOG.md"]
    for place in PLACES:
        found += [p for p in (ROOT / place).rglob("*") if p.suffix in SUFFIXES and p.is_file()]
    return found


def test_every_named_test_file_exists() -> None:
    named = 0
    missing = []
    for path in _texts():
        for name in NAMED.findall(path.read_text(encoding="utf-8")):
            named += 1
            if not (ROOT / name).is_file():
                missing.append(f"{path.relative_to(ROOT)}: {name}")
    assert missing == []
    assert named > 20  # the pattern does find the names
