"""The golden positions of ``solver_positions.json``: both engines give every legal action the
value the file holds, and on the small ones plain minimax (no pruning, no table) agrees."""

from __future__ import annotations

from typing import Any

import pytest

from baloot_engine.solver import COMPILED, TRICK_WEIGHT, solve
from baloot_engine.solver.reference import minimax
from tests.golden.solver_positions import (
    RULE_SETS,
    SMALL,
    load,
    position_in,
    values_in,
)

POSITIONS = load()
ENGINES = ["reference", "compiled"] if COMPILED else ["reference"]


def _cards_a_hand(entry: dict[str, Any]) -> int:
    return max(len(hand.split()) for hand in entry["hands"])


def test_the_file_covers_every_rule_set_and_what_positions_exercise() -> None:
    names = {entry["name"].split("-")[0] for entry in POSITIONS}
    assert names == set(RULE_SETS)
    assert any(_cards_a_hand(entry) == 8 for entry in POSITIONS)
    assert any(entry["contract"]["type"] == "sun" for entry in POSITIONS)
    assert any(entry["contract"]["mode"] == "closed" for entry in POSITIONS)
    assert any(entry["akka"] for entry in POSITIONS)
    assert any(value["akka"] for entry in POSITIONS for value in entry["values"])
    assert {len(entry["trick"].split()) for entry in POSITIONS} == {0, 1, 2, 3}


@pytest.mark.parametrize(
    ("engine", "entry"),
    [
        (engine, entry)
        for entry in POSITIONS
        for engine in ENGINES
        if engine == "compiled" or _cards_a_hand(entry) <= SMALL  # the reference: small ones
    ],
    ids=lambda p: p if isinstance(p, str) else p["name"],
)
def test_every_action_has_its_golden_value(engine: str, entry: dict[str, Any]) -> None:
    position = position_in(entry)
    solution = solve(position, engine=engine)  # type: ignore[arg-type]
    found = [(value.play, value.points, value.tricks) for value in solution.values]
    assert found == values_in(entry)
    assert solution.best == entry["best"]


@pytest.mark.parametrize(
    "entry",
    [entry for entry in POSITIONS if _cards_a_hand(entry) <= SMALL],
    ids=lambda entry: entry["name"],
)
def test_plain_minimax_gives_the_best_value(entry: dict[str, Any]) -> None:
    position = position_in(entry)
    args = (position.hands, position.trick, position.leader, position.played, position.akka)
    best = values_in(entry)[entry["best"]]
    for team in (0, 1):
        value = minimax(*args, position.contract, position.rules, team)
        assert divmod(value, TRICK_WEIGHT) == (best[1][team], best[2][team])
