"""The play-outs of the searches play exactly the cards of the plain policy loop.

``search.play_out`` and EXPERT's play-outs answer the forced card and the two commonest legal
cases (a lead in an open game or in Sun, a plain suit led and held) themselves instead of asking
``allowed_cards``; these tests check that what the rules core returns there is what they use,
and that a whole play-out equals a loop that asks the rules core for every card.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from baloot_engine.bots.cardplay import choose_card
from baloot_engine.bots.endgame import Solver
from baloot_engine.bots.expert import _play_out_then_solve
from baloot_engine.bots.search import play_out
from baloot_engine.rules.cards import (
    ACE,
    HIGHER,
    LAST_TRICK_BONUS,
    POINTS,
    SUIT_MASKS,
    trick_winner_index,
)
from baloot_engine.rules.contract import Contract, ContractType, PlayMode
from baloot_engine.rules.play import allowed_cards
from baloot_engine.rules.ruleset import RuleSet
from tests.bots.games import RULE_SETS, end_of_hand


def _contract(rng: random.Random) -> Contract:
    trump = rng.choice((-1, 0, 1, 2, 3))
    return Contract(
        ContractType.SUN if trump < 0 else ContractType.HOKM,
        trump,
        rng.randrange(4),
        mode=PlayMode.CLOSED if trump >= 0 and rng.random() < 0.3 else PlayMode.OPEN,
    )


@settings(max_examples=400, deadline=None)
@given(
    seed=st.integers(0, 10**9),
    size=st.integers(1, 8),
    in_trick=st.integers(0, 3),
    akka=st.booleans(),
    rules_name=st.sampled_from(sorted(RULE_SETS)),
)
def test_the_shortcuts_are_what_the_rules_core_allows(
    seed: int, size: int, in_trick: int, akka: bool, rules_name: str
) -> None:
    rng = random.Random(seed)
    deck = list(range(32))
    rng.shuffle(deck)
    hand = 0
    for card in deck[:size]:
        hand |= 1 << card
    trick = tuple(deck[size : size + in_trick])
    played = 0
    for card in deck[size + in_trick : size + in_trick + rng.randrange(0, 32 - size - in_trick)]:
        played |= 1 << card
    contract = _contract(rng)
    leader = rng.randrange(4)
    seat = (leader + in_trick) & 3
    allowed = allowed_cards(
        hand, trick, leader, seat, played, akka, contract, RULE_SETS[rules_name]
    )
    if trick:
        led = trick[0] >> 3
        if led != contract.trump and hand & SUIT_MASKS[led]:
            assert allowed == hand & SUIT_MASKS[led]
    elif contract.trump < 0 or not contract.closed:
        assert allowed == hand


def _plain_play_out(
    hands: list[int],
    trick: list[int],
    leader: int,
    played: int,
    akka: bool,
    contract: Contract,
    rules: RuleSet,
) -> tuple[tuple[int, int], tuple[int, int]]:
    """The policy for every seat, the rules core asked for every card."""
    trump = contract.trump
    abnat = [0, 0]
    won = [0, 0]
    while True:
        if len(trick) == 4:
            winner = (leader + trick_winner_index(trick, trump)) & 3
            abnat[winner & 1] += sum(POINTS[trump + 1][c] for c in trick)
            won[winner & 1] += 1
            for card in trick:
                played |= 1 << card
            trick = []
            leader = winner
            akka = False
            if not any(hands):
                abnat[winner & 1] += LAST_TRICK_BONUS
                return (abnat[0], abnat[1]), (won[0], won[1])
            continue
        seat = (leader + len(trick)) & 3
        options = allowed_cards(
            hands[seat], tuple(trick), leader, seat, played, akka, contract, rules
        )
        gone = played
        for card in trick:
            gone |= 1 << card
        card = choose_card(
            options, hands[seat], trick, gone, trump, seat & 1 == contract.buyer_team
        )
        if not trick and trump >= 0 and card >> 3 != trump and card & 7 != ACE:
            akka = HIGHER[trump + 1][card] & ~played == 0
        hands[seat] ^= 1 << card
        trick.append(card)


@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 10**9),
    per_hand=st.integers(1, 8),
    in_trick=st.integers(0, 3),
    rules_name=st.sampled_from(sorted(RULE_SETS)),
)
def test_a_play_out_plays_the_policy_s_cards(
    seed: int, per_hand: int, in_trick: int, rules_name: str
) -> None:
    rules = RULE_SETS[rules_name]
    rng = random.Random(seed)
    hands, played = end_of_hand(rng, per_hand)
    contract = _contract(rng)
    leader = rng.randrange(4)
    trick: list[int] = []
    akka = False
    for position in range(in_trick):
        seat = (leader + position) & 3
        options = allowed_cards(
            hands[seat], tuple(trick), leader, seat, played, akka, contract, rules
        )
        card = rng.choice([c for c in range(32) if options >> c & 1])
        hands[seat] ^= 1 << card
        trick.append(card)
    expected = _plain_play_out(list(hands), list(trick), leader, played, False, contract, rules)
    done = 8 - per_hand
    got = play_out(
        list(hands), list(trick), leader, played, [0, 0], [0, done], False, contract, rules
    )
    assert got[0] == expected[0]
    assert got[1] == (expected[1][0], expected[1][1] + done)
    solver = Solver(contract, rules, 0)
    heuristic = _play_out_then_solve(
        list(hands),
        list(trick),
        leader,
        played,
        (0, 0),
        (done, 0),
        False,
        contract,
        rules,
        solver,
        0,
    )
    assert heuristic == (expected[0], (expected[1][0] + done, expected[1][1]))
