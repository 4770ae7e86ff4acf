"""The OpenSpiel game: OpenSpiel's random simulation test, its observers, bots, parameters."""

from __future__ import annotations

import pickle

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

from baloot_engine.research import openspiel_game
from baloot_engine.research.encoding import (
    NUM_ACTIONS,
    OBSERVATION_SIZE,
    describe,
    encode,
    legal_indices,
)
from baloot_engine.research.openspiel_game import GAME_NAME, BalootState, parse_flags
from baloot_engine.rules.game import legal_actions
from baloot_engine.rules.observation import observe
from baloot_engine.rules.ruleset import FEDERATION, KAMMELNA, SEEDS


@pytest.mark.parametrize("preset", ["seeds", "kammelna", "federation"])
def test_openspiel_random_simulation_test_passes(preset: str) -> None:
    game = pyspiel.load_game(GAME_NAME, {"preset": preset})
    pyspiel.random_sim_test(game, num_sims=6, serialize=False, verbose=False)


def test_openspiel_random_simulation_test_passes_with_serialization_and_flags() -> None:
    game = pyspiel.load_game(
        GAME_NAME,
        {"preset": "kammelna", "flags": "sawa:true;auto_declare_projects:true", "dealer": 2},
    )
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_the_game_describes_itself() -> None:
    game = pyspiel.load_game(GAME_NAME)
    assert game.num_players() == 4
    assert game.num_distinct_actions() == NUM_ACTIONS
    assert game.max_chance_outcomes() == 32
    assert game.observation_tensor_size() == OBSERVATION_SIZE
    assert game.information_state_tensor_size() == OBSERVATION_SIZE
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert str(pickle.loads(pickle.dumps(game))) == str(game)  # noqa: S301 - our own bytes


def _played_to_decisions(seed: int, decisions: int) -> list[BalootState]:
    game = pyspiel.load_game(GAME_NAME, {"preset": "federation"})
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    seen: list[BalootState] = []
    while not state.is_terminal() and len(seen) < decisions:
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            assert abs(sum(probabilities) - 1.0) < 1e-9
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
            continue
        seen.append(state.clone())
        state.apply_action(int(rng.choice(state.legal_actions())))
    return seen


def test_tensors_strings_and_legal_actions_are_the_core_s() -> None:
    for state in _played_to_decisions(7, 40):
        core = state.core
        player = state.current_player()
        assert player == core.turn
        assert state.legal_actions() == legal_indices(legal_actions(core, player))
        for seat in range(4):
            expected = encode(observe(core, seat))
            assert np.array_equal(np.asarray(state.observation_tensor(seat)), expected)
            assert np.array_equal(np.asarray(state.information_state_tensor(seat)), expected)
            assert state.observation_string(seat) == describe(observe(core, seat))
            if seat != player:
                assert state.legal_actions(seat) == []


def test_the_public_observer_sees_no_hand() -> None:
    game = pyspiel.load_game(GAME_NAME)
    observer = game.make_py_observer(
        pyspiel.IIGObservationType(
            perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE
        )
    )
    state = _played_to_decisions(8, 3)[-1]
    observer.set_from(state, 1)
    assert not observer.dict["hand"].any()
    assert observer.dict["buy_card"].any()
    assert "hand []" in observer.string_from(state, 1)
    with pytest.raises(ValueError, match="all players"):
        game.make_py_observer(
            pyspiel.IIGObservationType(
                perfect_recall=False,
                public_info=True,
                private_info=pyspiel.PrivateInfoType.ALL_PLAYERS,
            )
        )


def test_our_bots_and_openspiel_s_random_bots_play_a_deal() -> None:
    game = pyspiel.load_game(GAME_NAME, {"preset": "seeds"})
    for seed in range(3):
        bots = [
            openspiel_game.bot(0, "basic", seed),
            pyspiel.make_uniform_random_bot(1, seed),
            openspiel_game.bot(2, "basic", seed + 10),
            pyspiel.make_uniform_random_bot(3, seed + 10),
        ]
        returns = evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(seed))
        assert sum(returns) == 0
        assert returns[0] == returns[2]


def test_parameters_set_the_rules_and_the_match() -> None:
    game = openspiel_game.load_game(preset="kammelna", flags="sawa:true;match_target:101")
    assert game.rules == KAMMELNA.replace(sawa=True, match_target=101)
    assert openspiel_game.load_game().rules == SEEDS
    assert openspiel_game.load_game(preset="federation").rules == FEDERATION
    state = openspiel_game.load_game(dealer=3, score_0=120, score_1=40).new_initial_state()
    assert state.core.dealer == 3
    assert state.core.match_scores == (120, 40)
    assert parse_flags(" sawa:TRUE; match_target:90 ;kawesh:no_court_cards") == {
        "sawa": True,
        "match_target": 90,
        "kawesh": "no_court_cards",
    }
    with pytest.raises(ValueError, match="name:value"):
        parse_flags("sawa")
