"""The exact endgame solver agrees with a plain minimax over every legal card."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from baloot_engine.bots.endgame import Solver
from baloot_engine.rules.cards import ACE, HIGHER, LAST_TRICK_BONUS, POINTS, STRENGTHS
from baloot_engine.rules.contract import Contract, ContractType, PlayMode
from baloot_engine.rules.play import allowed_cards
from baloot_engine.rules.ruleset import RuleSet
from tests.bots.games import RULE_SETS, end_of_hand


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
    """Every legal card of every seat, no pruning, no table: the reference value."""
    trump = contract.trump
    if len(trick) == 4:
        strength = STRENGTHS[trump + 1]
        led = trick[0] >> 3
        best = 0
        for i in (1, 2, 3):
            card = trick[i]
            if card >> 3 in (led, trump) and strength[card] > strength[trick[best]]:
                best = i
        winner = (leader + best) & 3
        gained = sum(POINTS[trump + 1][c] for c in trick)
        now = played
        for card in trick:
            now |= 1 << card
        if not any(hands):
            return gained + LAST_TRICK_BONUS if winner & 1 == team else 0
        mine = gained if winner & 1 == team else 0
        return mine + minimax(hands, (), winner, now, False, contract, rules, team)
    seat = (leader + len(trick)) & 3
    options = allowed_cards(hands[seat], trick, leader, seat, played, akka, contract, rules)
    values = []
    for card in range(32):
        if not options >> card & 1:
            continue
        call = akka
        if not trick:
            call = (
                trump >= 0
                and card >> 3 != trump
                and card & 7 != ACE
                and HIGHER[trump + 1][card] & ~played == 0
            )
        after = list(hands)
        after[seat] ^= 1 << card
        values.append(minimax(after, (*trick, card), leader, played, call, contract, rules, team))
    return max(values) if seat & 1 == team else min(values)


def _position(
    seed: int, per_hand: int, in_trick: int
) -> tuple[list[int], tuple[int, ...], int, int, Contract]:
    """A random end of a hand: ``per_hand`` cards each, ``in_trick`` of them already played."""
    rng = random.Random(seed)
    hands, played = end_of_hand(rng, per_hand)
    trump = rng.choice((-1, 0, 1, 2, 3))
    contract = Contract(
        ContractType.SUN if trump < 0 else ContractType.HOKM,
        trump,
        rng.randrange(4),
        mode=PlayMode.CLOSED if trump >= 0 and rng.random() < 0.3 else PlayMode.OPEN,
    )
    leader = rng.randrange(4)
    trick: list[int] = []
    for position in range(in_trick):
        seat = (leader + position) & 3
        options = allowed_cards(
            hands[seat], tuple(trick), leader, seat, played, False, contract, RULE_SETS["seeds"]
        )
        card = rng.choice([c for c in range(32) if options >> c & 1])
        hands[seat] ^= 1 << card
        trick.append(card)
    return hands, tuple(trick), leader, played, contract


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
