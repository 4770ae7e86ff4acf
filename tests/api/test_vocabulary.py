"""One word for each thing: a "round" is one deal of the match, a "hand" is a seat's cards.

The contract, the documentation and the code comments say "round" for a deal of the match
(docs/rules.md, "Words"); the phrases below use "hand" for it and would bring the old muddle
back. ("Hand" for the cards a seat holds is right and stays.)
"""

from __future__ import annotations

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCES = sorted(
    [
        *ROOT.glob("proto/**/*.proto"),
        *ROOT.glob("docs/*.md"),
        *ROOT.glob("service/baloot_engine/**/*.py"),
    ]
)
ROUND_MEANT = re.compile(
    r"loses the hand|hands? dealt|dealt hand of|(the|a|this) hand (ends|is over|is redealt|"
    r"is cancelled|was cancelled|is played out)|redealt hand|(scored|next|previous|cancelled) "
    r"hand\b|hand number|hands? of the match|once per hand",
    re.IGNORECASE,
)
# Exact texts a client already matches on, kept as they are.
KEPT = ("with the match ledger a seat's claim is judged once per hand",)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_hand_never_means_a_round(path: pathlib.Path) -> None:
    text = path.read_text(encoding="utf-8")
    for kept in KEPT:
        text = text.replace(kept, "")
    text = re.sub(r"\s*\n\s*(?://+|#+)?\s*", " ", text)  # wrapped comment lines joined
    found = [text[max(m.start() - 30, 0) : m.end() + 30] for m in ROUND_MEANT.finditer(text)]
    where = path.relative_to(ROOT)
    assert not found, f"{where}: say 'round' for a deal of the match:\n" + "\n".join(found)
