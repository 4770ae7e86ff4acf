"""CHANGELOG.md names every proto file added after 0.1.0 with what each language's build does.

A new (or moved: renamed) file of ``proto/baloot/v1`` breaks a client whose build lists the
files; the changelog's entries that name the file must, between them, say what the build of each
language of the contract does with it.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROTO = ROOT / "proto" / "baloot" / "v1"
# The files of 0.1.0, the first release: the clients were written with them.
FIRST_RELEASE = {"engine_service.proto", "errors.proto", "rules.proto", "types.proto"}
LANGUAGES = ("Python", "TypeScript", "Go", "Java", "Kotlin")


def _entries() -> list[str]:
    """The changelog's top-level bullets, each with its continuation lines."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    return [
        entry
        for entry in re.split(r"^(?=- |#)", text, flags=re.MULTILINE)
        if entry.startswith("- ")
    ]


def test_the_first_release_files_are_still_there() -> None:
    # A file of 0.1.0 moved or renamed is a new file: it needs its entry.
    assert {path.name for path in PROTO.glob("*.proto")} >= FIRST_RELEASE


def test_every_later_proto_file_has_a_note_for_every_language() -> None:
    entries = _entries()
    later = sorted({path.name for path in PROTO.glob("*.proto")} - FIRST_RELEASE)
    assert later
    for name in later:
        naming = [entry for entry in entries if f"baloot/v1/{name}" in entry]
        assert naming, f"CHANGELOG.md names no new file baloot/v1/{name}"
        said = {
            language
            for entry in naming
            for language in LANGUAGES
            if re.search(rf"\b{language}\b", entry)
        }
        assert said == set(LANGUAGES), f"baloot/v1/{name}: nothing said for {set(LANGUAGES) - said}"
