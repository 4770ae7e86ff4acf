"""OpenSpiel's resampling of an information state, and its IS-MCTS playing whole deals."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts

from baloot_engine.research import GAME_NAME, openspiel_game
from baloot_engine.research.openspiel_game import BalootState

CUSTOM = (
    "sawa:true;auto_declare_projects:true;kawesh:no_court_cards;"
    "sun_priority_claim:higher_priority;closed_chooser:buyer;first_leader:buyer;"
    "round1_hokm_reopens_to_all:true;doubling_window:before_buyer_completion;"
    "akka_requires_declaration:true;partner_winning_rule:positional;match_target:101"
)
GAMES = {
    "seeds": {"preset": "seeds"},
    "kammelna+sawa": {"preset": "kammelna", "flags": "sawa:true"},
    "federation": {"preset": "federation", "flags": "split_long_runs:false"},
    "custom": {"preset": "seeds", "flags": CUSTOM},
}


def _decisions(params: dict[str, str], seed: int, deals: int) -> list[BalootState]:
    """The decision nodes of ``deals`` random deals."""
    game = pyspiel.load_game(GAME_NAME, params)
    rng = np.random.RandomState(seed)
    found = []
    for _ in range(deals):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probabilities)))
                continue
            found.append(state.clone())
            state.apply_action(int(rng.choice(state.legal_actions())))
    return found


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_resampled_state_is_one_the_player_cannot_tell_apart(name: str) -> None:
    """Every decision of 12 random deals per rule set: the same information state, turn and
    legal actions for the player, another deal of the hidden cards in most samples."""
    sampler = pyspiel.UniformProbabilitySampler(7, 0.0, 1.0)
    decisions = _decisions(GAMES[name], 3, 12)
    other_deals = 0
    for state in decisions:
        player = state.current_player()
        resampled = state.resample_from_infostate(player, sampler)
        assert resampled.current_player() == player
        assert resampled.information_state_string(player) == state.information_state_string(player)
        assert resampled.observation_tensor(player) == state.observation_tensor(player)
        assert resampled.legal_actions() == state.legal_actions()
        assert resampled.history()[32:] == state.history()[32:]
        assert resampled.core.hands[player] == state.core.hands[player]
        other_deals += resampled.dealt != state.dealt
    assert other_deals > 0.8 * len(decisions)


@pytest.mark.parametrize("name", ["kammelna+sawa", "custom"])
def test_the_resampling_reads_nothing_the_player_does_not_see(name: str) -> None:
    """Two states the player cannot tell apart (a state and one resampled from it) resample
    to the very same state from the same draw."""
    for state in _decisions(GAMES[name], 5, 4):
        player = state.current_player()
        twin = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(1, 0, 1))
        for seed in (2, 3):
            first = state.resample_from_infostate(
                player, pyspiel.UniformProbabilitySampler(seed, 0, 1)
            )
            second = twin.resample_from_infostate(
                player, pyspiel.UniformProbabilitySampler(seed, 0, 1)
            )
            assert first.history() == second.history()


def test_chance_and_terminal_states_resample() -> None:
    game = pyspiel.load_game(GAME_NAME)
    state = game.new_initial_state()
    for card in (5, 9, 30):
        state.apply_action(card)
    resampled = state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0, 0, 1))
    assert resampled.is_chance_node()
    assert len(resampled.history()) == 3
    rng = np.random.RandomState(0)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    final = state.resample_from_infostate(1, pyspiel.UniformProbabilitySampler(0, 0, 1))
    assert final.is_terminal()
    assert final.returns() == state.returns()


@pytest.mark.parametrize("name", ["seeds", "custom"])
def test_openspiel_is_mcts_plays_whole_deals(name: str) -> None:
    """OpenSpiel's IS-MCTS (its Python ISMCTSBot, random roll-outs) plays team 0 through two
    whole deals against BASIC bots; every decision it makes resamples the hidden cards."""
    game = pyspiel.load_game(GAME_NAME, GAMES[name])
    rng = np.random.RandomState(1)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    searcher = ismcts.ISMCTSBot(game, evaluator, 2.0, max_simulations=12, random_state=rng)
    bots = {seat: openspiel_game.bot(seat, "basic", seat) for seat in (1, 3)}
    searched = 0
    for _ in range(2):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probabilities)))
            elif state.current_player() in bots:
                state.apply_action(bots[state.current_player()].step(state))
            else:
                action = int(searcher.step(state))
                assert action in state.legal_actions()
                searched += len(state.legal_actions()) > 1
                state.apply_action(action)
        returns = state.returns()
        assert returns[0] == returns[2] == -returns[1] == -returns[3]
    assert searched >= 4
