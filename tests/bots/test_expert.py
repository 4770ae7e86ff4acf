"""EXPERT: seeded decisions repeat, unseeded ones stay legal at any budget, which is capped."""

from __future__ import annotations

import random

from baloot_engine.bots import Level, suggest
from baloot_engine.bots.expert import MAX_SECONDS, with_seconds
from baloot_engine.rules.game import legal_actions
from baloot_engine.rules.state import Phase
from tests.bots.games import RULE_SETS, TINY_EXPERT, bot, walk


def test_a_seeded_expert_match_replays_exactly() -> None:
    def record(seed: int) -> list[object]:
        return [
            (s.phase, s.turn, s.hands, s.trick)
            for s in walk(RULE_SETS["seeds"], seed, bot(Level.EXPERT), max_hands=2)
        ]

    assert record(3) == record(3)


def test_unseeded_expert_decisions_are_legal_even_with_no_time() -> None:
    rng = random.Random(2)
    states = [
        s
        for s in walk(RULE_SETS["kammelna"], 6, bot(Level.BASIC), max_hands=3)
        if s.phase is Phase.PLAYING
    ]
    for state in rng.sample(states, 10):
        for seconds in (0.0, 0.02):
            expert = TINY_EXPERT._replace(seconds=seconds)
            action = suggest(state, state.turn, Level.EXPERT, expert=expert)
            assert action in legal_actions(state, state.turn)


def test_the_time_budget_is_capped() -> None:
    assert with_seconds(TINY_EXPERT, 60).seconds == MAX_SECONDS
    assert with_seconds(TINY_EXPERT, 0.25).seconds == 0.25
    assert with_seconds(TINY_EXPERT, -1).seconds == 0.0
