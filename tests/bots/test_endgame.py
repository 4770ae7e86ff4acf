"""The exact endgame solver agrees with a plain minimax over every legal card."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from baloot_engine.bots.endgame import Solver
from baloot_engine.rules.cards import LAST_TRICK_BONUS, POINTS
from baloot_engine.rules.contract import Contract
from baloot_engine.rules.ruleset import RuleSet
from baloot_engine.solver import TRICK_WEIGHT, reference
from tests.bots.games import RULE_SETS
from tests.golden.solver_positions import end_position


def minimax(
    hands: list[int],
    trick: tuple[int, ...],
    leader: int,
    played: int,
    akka: bool,
    contract: Contract,
    rules: RuleSet,
    team: int,
) -> int:
    """Every legal card of every seat, no pruning, no table: the reference value in points."""
    held = (hands[0], hands[1], hands[2], hands[3])
    value = reference.minimax(held, trick, leader, played, akka, contract, rules, team)
    return value // TRICK_WEIGHT


def _position(
    seed: int, per_hand: int, in_trick: int
) -> tuple[list[int], tuple[int, ...], int, int, Contract]:
    """A random end of a hand: ``per_hand`` cards each, ``in_trick`` of them already played."""
    position = end_position(seed, per_hand, in_trick, RULE_SETS["seeds"])
    return list(position.hands), position.trick, position.leader, position.played, position.contract


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 10**9),
    per_hand=st.integers(1, 3),
    in_trick=st.integers(0, 3),
    team=st.integers(0, 1),
    rules_name=st.sampled_from(sorted(RULE_SETS)),
)
def test_the_solver_finds_the_minimax_value(
    seed: int, per_hand: int, in_trick: int, team: int, rules_name: str
) -> None:
    rules = RULE_SETS[rules_name]
    hands, trick, leader, played, contract = _position(seed, per_hand, in_trick)
    solver = Solver(contract, rules, team)
    held = (hands[0], hands[1], hands[2], hands[3])
    expected = minimax(list(hands), trick, leader, played, False, contract, rules, team)
    assert solver.solve(held, trick, leader, played, False) == expected
    # The table of an earlier search gives the same answer, and the two sides add up.
    assert solver.solve(held, trick, leader, played, False) == expected
    other = Solver(contract, rules, 1 - team).solve(held, trick, leader, played, False)
    left = hands[0] | hands[1] | hands[2] | hands[3]
    cards = [*trick, *(c for c in range(32) if left >> c & 1)]
    total = LAST_TRICK_BONUS + sum(POINTS[contract.trump + 1][c] for c in cards)
    assert expected + other == total


def test_the_table_saves_work() -> None:
    hands, trick, leader, played, contract = _position(7, 4, 0)
    rules = RULE_SETS["seeds"]
    solver = Solver(contract, rules, 0)
    held = (hands[0], hands[1], hands[2], hands[3])
    solver.solve(held, trick, leader, played, False)
    first = solver.nodes
    assert first > 0
    solver.solve(held, trick, leader, played, False)
    assert solver.nodes == first  # answered from the table
