"""A seed makes every level repeat its choice exactly; without one the OS RNG is used."""

from __future__ import annotations

import random

import pytest

from baloot_engine.bots import ExpertBudget, Level, suggest
from baloot_engine.bots.search import DEFAULT_BUDGET
from baloot_engine.rules.actions import Play
from baloot_engine.rules.game import legal_actions
from baloot_engine.rules.state import Phase
from tests.bots.games import RULE_SETS, SMALL, bot, walk


@pytest.mark.parametrize("level", list(Level), ids=lambda level: level.value)
def test_the_same_seed_gives_the_same_action(level: Level) -> None:
    budget = DEFAULT_BUDGET if level is Level.STRONG else SMALL
    expert = ExpertBudget(worlds=8)
    checked = 0
    for state in walk(RULE_SETS["kammelna"], 2, bot(Level.BASIC), max_rounds=3):
        if len(legal_actions(state, state.turn)) < 2:
            continue
        first = suggest(state, state.turn, level, seed=42, budget=budget, expert=expert)
        again = suggest(state, state.turn, level, seed=42, budget=budget, expert=expert)
        assert first == again
        checked += 1
    assert checked > 10


def test_a_seeded_match_replays_exactly() -> None:
    def record(seed: int) -> list[object]:
        return [
            (s.phase, s.turn, s.hands, s.trick)
            for s in walk(RULE_SETS["seeds"], seed, bot(Level.STRONG), max_rounds=2)
        ]

    assert record(9) == record(9)


def test_random_levels_depend_on_the_seed_and_unseeded_calls_vary() -> None:
    states = [
        s
        for s in walk(RULE_SETS["seeds"], 4, bot(Level.BASIC), max_rounds=4)
        if s.phase is Phase.PLAYING and len(legal_actions(s, s.turn)) >= 3
    ]
    state = states[0]
    seeded = {suggest(state, state.turn, Level.RANDOM, seed=n) for n in range(40)}
    assert len(seeded) >= 2
    unseeded = {suggest(state, state.turn, Level.RANDOM) for _ in range(40)}
    assert len(unseeded) >= 2
    assert all(isinstance(a, Play) for a in unseeded)


def test_unseeded_strong_decisions_are_legal_and_bounded_in_time() -> None:
    rng = random.Random(1)
    states = list(walk(RULE_SETS["seeds"], 5, bot(Level.BASIC), max_rounds=3))
    for state in rng.sample(states, 8):
        action = suggest(state, state.turn, Level.STRONG)
        assert action in legal_actions(state, state.turn)
