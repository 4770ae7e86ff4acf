"""Weighted sampling: it never rules out the real hands of callers that play by the thresholds,
and its worlds stay consistent with everything the seat saw. The play model finds the
heuristic's card in every choice of players that play by it, and weighs the real deal of
their games above the worlds the seat could sample."""

from __future__ import annotations

import math
import random

import pytest

from baloot_engine.bots import Level
from baloot_engine.bots.inference import plausible, play_history, play_weight, sample_weighted
from baloot_engine.bots.tracking import sample_hands, track
from baloot_engine.rules.observation import observe
from baloot_engine.rules.state import Phase
from tests.bots.games import RULE_SETS, bot, walk


@pytest.mark.parametrize("rules_name", sorted(RULE_SETS))
def test_the_real_hands_of_basic_callers_are_plausible(rules_name: str) -> None:
    checked = 0
    for seed in range(8):
        for state in walk(RULE_SETS[rules_name], seed, bot(Level.BASIC), max_rounds=3):
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
        for state in walk(RULE_SETS["seeds"], seed, bot(Level.BASIC), max_rounds=2):
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


@pytest.mark.parametrize("rules_name", sorted(RULE_SETS))
def test_basic_players_play_the_models_card_in_the_real_deal(rules_name: str) -> None:
    # Every factor of the real deal's weight is the model's chance of the heuristic card: a
    # power of 0.6, never one of the shares 0.4 / (k - 1) of the other cards.
    checked = 0
    for seed in range(6):
        for state in walk(RULE_SETS[rules_name], seed, bot(Level.BASIC), max_rounds=3):
            if state.phase is not Phase.PLAYING or not state.tricks:
                continue
            obs = observe(state, state.turn)
            assert obs.contract is not None
            hands = state.hands
            weight = play_weight(
                play_history(obs),
                (hands[0], hands[1], hands[2], hands[3]),
                obs.contract,
                obs.rules,
                0.6,
            )
            power = math.log(weight) / math.log(0.6)
            assert power == pytest.approx(round(power), abs=1e-9)
            checked += 1
    assert checked > 60


def test_the_real_deal_of_basic_players_outweighs_the_sampled_worlds() -> None:
    rng = random.Random(9)
    above = below = 0
    for seed in range(6):
        for state in walk(RULE_SETS["seeds"], seed, bot(Level.BASIC), max_rounds=3):
            if state.phase is not Phase.PLAYING or len(state.tricks) < 3:
                continue
            obs = observe(state, state.turn)
            assert obs.contract is not None
            history = play_history(obs)
            hands = state.hands
            real = play_weight(
                history, (hands[0], hands[1], hands[2], hands[3]), obs.contract, obs.rules
            )
            tracker = track(obs)
            for _ in range(8):
                world = play_weight(
                    history, sample_hands(obs, tracker, rng), obs.contract, obs.rules
                )
                if real > world * 1.000001:
                    above += 1
                elif world > real * 1.000001:
                    below += 1
    assert above > 3 * below > 0


def test_the_play_history_holds_only_the_other_seats_plays() -> None:
    for state in walk(RULE_SETS["seeds"], 2, bot(Level.BASIC), max_rounds=2):
        if state.phase is not Phase.PLAYING:
            continue
        obs = observe(state, state.turn)
        history = play_history(obs)
        played = sum(len(r.cards) for r in obs.tricks) + len(obs.trick)
        mine = (obs.full_hand & ~obs.hand).bit_count()
        assert len(history.events) == played - mine
        assert all(seat != obs.seat for seat, *_ in history.events)
        assert history.spent[obs.seat] == obs.full_hand & ~obs.hand
