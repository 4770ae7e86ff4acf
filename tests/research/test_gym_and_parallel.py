"""The single-agent Gymnasium environment and the PettingZoo parallel API."""

from __future__ import annotations

import random

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import parallel_api_test

from baloot_engine.research import ENV_ID, BalootGymEnv, env, parallel_env
from baloot_engine.research.agents import BotAgent
from baloot_engine.research.encoding import NUM_ACTIONS


def test_gymnasium_check_env_passes(capsys: pytest.CaptureFixture[str]) -> None:
    environment = gymnasium.make(ENV_ID, preset="kammelna", illegal="random")
    check_env(environment.unwrapped)
    environment.close()
    assert "seat 0" in capsys.readouterr().out  # the human render mode prints the table


def _aec_returns(seed: int, levels: tuple[str, ...]) -> list[float]:
    """Each seat's return of one seeded episode of the PettingZoo environment, every seat a
    bot seeded as the Gymnasium environment seeds its bots."""
    table = env("seeds")
    table.reset(seed=seed)
    bots = [BotAgent(level, seed * 4 + seat) for seat, level in enumerate(levels)]
    returns = dict.fromkeys(table.possible_agents, 0.0)
    for agent in table.agent_iter():
        _, reward, done, truncated, _ = table.last()
        returns[agent] += reward
        table.step(None if done or truncated else bots[int(agent[-1])](table, agent))
    return list(returns.values())


@pytest.mark.parametrize("seat", [0, 3])
def test_the_agent_s_seat_plays_the_pettingzoo_environment_s_deals_against_seeded_bots(
    seat: int,
) -> None:
    """An agent playing as a seeded BASIC bot would gets, seed for seed, the return of the
    PettingZoo environment's episode in which every seat is that bot."""
    levels = ("random", "basic", "random", "basic") if seat == 3 else ("basic",) * 4
    partner, opponent = levels[seat ^ 2], levels[seat ^ 1]
    game = BalootGymEnv(seat, "seeds", opponents=opponent, partner=partner)
    scored = 0
    for seed in range(4):
        observation, _ = game.reset(seed=seed)
        me = BotAgent(levels[seat], seed * 4 + seat)
        total, done = 0.0, False
        while not done:
            assert observation["action_mask"].sum() > 0
            action = me.act(game.table.game_state, seat)
            assert observation["action_mask"][action] == 1
            observation, reward, done, truncated, _ = game.step(action)
            assert not truncated
            total += reward
        assert total == _aec_returns(seed, levels)[seat]
        scored += total != 0
    assert scored >= 2


def test_an_illegal_action_is_refused_or_replaced_as_asked() -> None:
    strict = BalootGymEnv(1)
    observation, _ = strict.reset(seed=3)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        strict.step(illegal)
    with pytest.raises(ValueError, match="not legal"):
        strict.step(NUM_ACTIONS)
    lenient = BalootGymEnv(1, illegal="random")
    observation, _ = lenient.reset(seed=3)
    assert lenient.action_masks().tolist() == observation["action_mask"].astype(bool).tolist()
    _, _, _, _, info = lenient.step(illegal)
    assert info["illegal"] is True


def test_reset_always_hands_the_agent_a_decision_even_when_bots_cancel_the_deal() -> None:
    """Under Kawesh rules a bot may cancel a deal before the agent acts: reset deals again."""
    game = BalootGymEnv(3, "seeds", {"kawesh": "no_court_cards"}, opponents="random")
    for seed in range(40):
        observation, _ = game.reset(seed=seed)
        assert observation["action_mask"].any()
        assert game.table.agent_selection == "seat_3"


def test_pettingzoo_parallel_api_test_passes() -> None:
    parallel_api_test(parallel_env("kammelna"), num_cycles=400)
    parallel_api_test(parallel_env("seeds", {"match_target": 41}, match=True), num_cycles=3000)


def test_the_parallel_api_applies_the_seat_on_turn_s_action_only() -> None:
    table = parallel_env("seeds")
    observations, _ = table.reset(seed=9)
    rng = random.Random(9)
    totals = dict.fromkeys(table.possible_agents, 0.0)
    while table.agents:
        acting = [a for a in table.agents if observations[a]["action_mask"].any()]
        assert len(acting) == 1
        mask = observations[acting[0]]["action_mask"]
        actions = dict.fromkeys(table.agents, 0)  # the others' actions are never read
        actions[acting[0]] = rng.choice(np.flatnonzero(mask).tolist())
        observations, rewards, _, _, infos = table.step(actions)
        for agent, reward in rewards.items():
            totals[agent] += reward
        for agent in table.agents:  # the seat to act next, named to every agent still in play
            assert infos[agent]["active_agent"] in table.possible_agents
    assert totals["seat_0"] == -totals["seat_1"] == totals["seat_2"] == -totals["seat_3"]
