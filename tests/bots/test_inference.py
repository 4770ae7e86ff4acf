"""Weighted sampling: it never rules out the real hands of callers that play by the thresholds,
and its worlds stay consistent with everything the seat saw."""

from __future__ import annotations

import random

import pytest

from baloot_engine.bots import Level
from baloot_engine.bots.inference import plausible, sample_weighted
from baloot_engine.bots.tracking import track
from baloot_engine.rules.observation import observe
from baloot_engine.rules.state import Phase
from tests.bots.games import RULE_SETS, bot, walk


@pytest.mark.parametrize("rules_name", sorted(RULE_SETS))
def test_the_real_hands_of_basic_callers_are_plausible(rules_name: str) -> None:
    checked = 0
    for seed in range(8):
        for state in walk(RULE_SETS[rules_name], seed, bot(Level.BASIC), max_hands=3):
            if state.phase is not Phase.PLAYING:
                continue
            for seat in range(4):
                hands = state.hands
                assert plausible(observe(state, seat), (hands[0], hands[1], hands[2], hands[3]))
                checked += 1
    assert checked > 300


def test_weighted_worlds_agree_with_the_tracker() -> None:
    rng = random.Random(4)
    checked = 0
    for seed in range(4):
        for state in walk(RULE_SETS["seeds"], seed, bot(Level.BASIC), max_hands=2):
            if state.phase is not Phase.PLAYING:
                continue
            obs = observe(state, state.turn)
            tracker = track(obs)
            world = sample_weighted(obs, tracker, rng)
            assert world[obs.seat] == obs.hand
            dealt = 0
            for other in range(4):
                if other != obs.seat:
                    assert world[other] & tracker.excluded[other] == 0
                    assert tracker.known[other] & ~world[other] == 0
                    assert world[other].bit_count() == tracker.sizes[other]
                    dealt |= world[other]
            assert dealt == tracker.unseen
            checked += 1
    assert checked > 50
