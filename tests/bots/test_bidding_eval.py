"""Bidding by simulation: every buying bid is valued, the choice is legal, a seed repeats it."""

from __future__ import annotations

import random

from baloot_engine.bots import Level
from baloot_engine.bots.bidding_eval import evaluate_bids
from baloot_engine.bots.policies import BASIC_STYLE, choose_bid_evaluated
from baloot_engine.rules.actions import Bid, BidKind
from baloot_engine.rules.cards import parse_card
from baloot_engine.rules.observation import observe
from baloot_engine.rules.state import Phase, State
from tests.bots.games import RULE_SETS, bot, walk


def _bidding_states(rules_name: str) -> list[State]:
    return [
        s
        for seed in range(6)
        for s in walk(RULE_SETS[rules_name], seed, bot(Level.BASIC), max_hands=2)
        if s.phase is Phase.BIDDING
    ]


def test_every_buying_bid_is_valued_and_the_choice_is_legal() -> None:
    checked = 0
    for rules_name in sorted(RULE_SETS):
        for state in _bidding_states(rules_name):
            obs = observe(state, state.turn)
            bids = [a for a in obs.legal_actions if isinstance(a, Bid)]
            values = evaluate_bids(obs, bids, random.Random(1), 4)
            buying = {b for b in bids if b.kind not in (BidKind.PASS, BidKind.KAWESH)}
            assert set(values) == buying
            assert values == evaluate_bids(obs, bids, random.Random(1), 4)
            chosen = choose_bid_evaluated(obs, bids, BASIC_STYLE, random.Random(2), 4)
            assert chosen in bids
            checked += 1
    assert checked > 50


def test_a_strong_sun_hand_is_worth_buying_and_a_weak_one_is_not() -> None:
    for state in _bidding_states("seeds"):
        obs = observe(state, state.turn)
        sun = Bid(BidKind.SUN)
        if sun not in obs.legal_actions or obs.buy_card & 7 == 7:
            continue
        free = [c for c in range(32) if c != obs.buy_card]
        strong = [parse_card(n) for n in ("AS", "AH", "AD", "AC", "10S")]
        weak = [c for c in free if c & 7 in (0, 1, 2)][:5]
        if obs.buy_card in strong:
            continue
        values = []
        for cards in (strong, weak):
            hand = 0
            for card in cards:
                hand |= 1 << card
            values.append(evaluate_bids(obs._replace(hand=hand), [sun], random.Random(3), 24)[sun])
        assert values[0] > 20 > values[1]
        return
    raise AssertionError("no Sun bid found")
