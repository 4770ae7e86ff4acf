"""The PettingZoo environment: PettingZoo's own tests, seeding, masks, rewards, bots."""

from __future__ import annotations

import random

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from baloot_engine.bots import Level, suggest
from baloot_engine.research import env, raw_env
from baloot_engine.research.agents import BotAgent, decision_seed
from baloot_engine.research.core import round_rewards, shuffled_deck
from baloot_engine.research.encoding import (
    NUM_ACTIONS,
    OBSERVATION_SIZE,
    SAWA_INDEX,
    action_index,
    encode,
    legal_mask,
)
from baloot_engine.rules.actions import Deal, EventKind
from baloot_engine.rules.game import apply, legal_actions, new_match
from baloot_engine.rules.observation import observe
from baloot_engine.rules.ruleset import SEEDS, RuleSet
from baloot_engine.rules.state import Phase
from tests.research.walks import RULE_SETS

# PettingZoo's test warns that a dictionary observation (tensor and action mask, the layout of
# its own card-game environments) is not a plain array.
PETTINGZOO_DICT_WARNINGS = (
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably:UserWarning"),
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning"),
)


@PETTINGZOO_DICT_WARNINGS[0]
@PETTINGZOO_DICT_WARNINGS[1]
@pytest.mark.parametrize("preset", ["seeds", "kammelna", "federation"])
def test_pettingzoo_api_test_passes(preset: str) -> None:
    api_test(env(preset), num_cycles=300)


@PETTINGZOO_DICT_WARNINGS[0]
@PETTINGZOO_DICT_WARNINGS[1]
def test_pettingzoo_api_test_passes_for_a_match_with_flags() -> None:
    api_test(env("seeds", {"sawa": True, "match_target": 60}, match=True, reward="win"), 1000)


def test_pettingzoo_seed_test_passes() -> None:
    seed_test(lambda: env("kammelna"), num_cycles=300)


def _random_episode(seed: int, preset: str = "seeds") -> list[tuple[str, int, float]]:
    environment = env(preset)
    environment.reset(seed=seed)
    rng = random.Random(seed)
    trail = []
    for agent in environment.agent_iter():
        observation, reward, terminated, truncated, _ = environment.last()
        if terminated or truncated:
            trail.append((agent, -1, reward))
            environment.step(None)
            continue
        action = rng.choice(list(np.flatnonzero(observation["action_mask"])))
        trail.append((agent, int(action), reward))
        environment.step(int(action))
    return trail


def test_a_seed_fixes_the_episode() -> None:
    assert _random_episode(5) == _random_episode(5)
    assert _random_episode(5) != _random_episode(6)


@pytest.mark.parametrize("rules_name", sorted(RULE_SETS))
def test_the_mask_and_tensor_are_the_core_s_on_every_step(rules_name: str) -> None:
    """500 steps per rule set (2,000 in all), each checked against the rules core."""
    environment = raw_env(RULE_SETS[rules_name], match=True)
    environment.reset(seed=21)
    rng = random.Random(21)
    for _ in range(500):
        agent = environment.agent_selection
        seat = environment.agent_name_mapping[agent]
        state = environment.game_state
        assert seat == state.turn
        for other, name in enumerate(environment.agents):
            observed = environment.observe(name)
            expected = observe(state, other)
            assert np.array_equal(observed["observation"], encode(expected))
            if other == seat:
                mask = legal_mask(legal_actions(state, seat))
                if environment._refused == (len(state.tricks), seat):
                    mask[SAWA_INDEX] = 0
            else:
                mask = np.zeros(NUM_ACTIONS, np.int8)
            assert np.array_equal(observed["action_mask"], mask)
        mask = environment.observe(agent)["action_mask"]
        environment.step(int(rng.choice(list(np.flatnonzero(mask)))))
        if environment.terminations[agent]:
            environment.reset(seed=rng.randrange(1000))


def test_the_spaces_hold_the_observations() -> None:
    environment = env()
    environment.reset(seed=1)
    space = environment.observation_space("seat_0")
    observation = environment.observe(environment.agent_selection)
    assert observation["observation"].shape == (OBSERVATION_SIZE,)
    assert space.contains(observation)
    assert environment.action_space("seat_0").n == NUM_ACTIONS


def test_round_rewards_are_the_game_points_and_sum_to_zero() -> None:
    for seed in range(8):
        environment = raw_env(SEEDS)
        environment.reset(seed=seed)
        rng = random.Random(seed)
        totals = dict.fromkeys(environment.possible_agents, 0.0)
        while environment.agents:
            agent = environment.agent_selection
            observation, reward, terminated, _, _ = environment.last()
            totals[agent] += reward
            if terminated:
                environment.step(None)
                continue
            before = environment.game_state
            environment.step(int(rng.choice(list(np.flatnonzero(observation["action_mask"])))))
            after = environment.game_state
            if after.phase is Phase.ROUND_OVER or after.phase is Phase.MATCH_OVER:
                assert after.last_score is not None
                expected = round_rewards(after.last_score, SEEDS)
                assert tuple(environment.rewards[a] for a in environment.agents) == expected
            assert before is not after
        assert sum(totals.values()) == 0
        assert totals["seat_0"] == totals["seat_2"]


def test_a_match_episode_pays_each_round_and_ends_with_the_match() -> None:
    environment = raw_env(SEEDS.replace(match_target=60), match=True)
    environment.reset(seed=3)
    rng = random.Random(3)
    earned = dict.fromkeys(environment.possible_agents, 0.0)
    while environment.agents:
        agent = environment.agent_selection
        observation, reward, terminated, _, _ = environment.last()
        earned[agent] += reward
        if terminated:
            environment.step(None)
            continue
        environment.step(int(rng.choice(list(np.flatnonzero(observation["action_mask"])))))
    state = environment.game_state
    assert state.phase is Phase.MATCH_OVER
    if state.last_score is not None and state.last_score.gahwa_winner is None:
        assert earned["seat_0"] == state.match_scores[0] - state.match_scores[1]


def _bot_match(rules: RuleSet, seed: int, levels: tuple[str, str]) -> tuple[tuple[int, int], int]:
    environment = env(rules, match=True)
    environment.reset(seed=seed)
    agents = {
        name: BotAgent(levels[seat & 1], seed=seed + seat)
        for seat, name in enumerate(environment.possible_agents)
    }
    for agent in environment.agent_iter():
        _, _, terminated, truncated, _ = environment.last()
        environment.step(None if terminated or truncated else agents[agent](environment, agent))
    state = environment.unwrapped.game_state
    return state.match_scores, state.winner


def _core_match(rules: RuleSet, seed: int, levels: tuple[str, str]) -> tuple[tuple[int, int], int]:
    """The same match on the bare rules core: the documented deals, the same bot seeds."""
    rng = random.Random(seed)
    state = new_match(rules, dealer=rng.randrange(4))
    decisions = [0, 0, 0, 0]
    while state.phase is not Phase.MATCH_OVER:
        if state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
            state, _ = apply(state, state.dealer, Deal(shuffled_deck(rng)))
            continue
        seat = state.turn
        bot_seed = decision_seed(seed + seat, decisions[seat])
        decisions[seat] += 1
        action = suggest(state, seat, Level(levels[seat & 1]), bot_seed)
        state, events = apply(state, seat, action)
        assert all(event.kind is not EventKind.QAYD_JUDGED for event in events)
    return state.match_scores, state.winner


@pytest.mark.parametrize(("rules_name", "seed"), [("seeds", 1), ("kammelna", 2), ("federation", 3)])
def test_a_bot_match_through_the_environment_is_the_core_s_match(
    rules_name: str, seed: int
) -> None:
    rules = RULE_SETS[rules_name].replace(match_target=80)
    levels = ("basic", "random")
    through_env = _bot_match(rules, seed, levels)
    assert through_env == _core_match(rules, seed, levels)
    assert through_env[1] in (0, 1)


def test_an_illegal_action_is_refused() -> None:
    environment = raw_env()
    environment.reset(seed=1)
    mask = environment.observe(environment.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        environment.step(illegal)
    with pytest.raises(ValueError, match="not legal"):
        environment.step(NUM_ACTIONS)


def test_the_constructor_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="table play"):
        raw_env("seeds", {"illegal_moves_allowed": True})
    with pytest.raises(ValueError, match="match=True"):
        raw_env(reward="win")
    with pytest.raises(ValueError, match="reward"):
        raw_env(reward="abnat")
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb_array")
    assert raw_env("kammelna", {"sawa": True}).rules.sawa


def test_render_shows_the_public_table() -> None:
    environment = raw_env(render_mode="ansi")
    environment.reset(seed=2)
    text = environment.render()
    assert text is not None
    assert "bidding" in text
    assert "hand []" in text


def test_a_bot_agent_answers_with_a_legal_index() -> None:
    environment = raw_env()
    environment.reset(seed=4)
    for level in Level:
        agent = environment.agent_selection
        choice = BotAgent(level, seed=1)(environment, agent)
        assert environment.observe(agent)["action_mask"][choice] == 1
    state = environment.game_state
    expected = suggest(state, state.turn, Level.BASIC, decision_seed(9, 0))
    assert BotAgent("basic", seed=9).act(state, state.turn) == action_index(expected)


def test_observing_or_stepping_before_reset_is_refused() -> None:
    environment = env()
    with pytest.raises(RuntimeError, match="reset"):
        environment.observe("seat_0")
    with pytest.raises(RuntimeError, match="reset"):
        environment.step(0)
