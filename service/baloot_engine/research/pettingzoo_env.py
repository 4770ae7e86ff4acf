"""Baloot as a PettingZoo AEC environment: four agents, one per seat, on the rules core.

``env(...)`` (the same as ``raw_env(...)``: the environment enforces the order of calls itself,
so it needs no PettingZoo wrapper, whose attribute forwarding costs about a quarter of a step;
observing or stepping before ``reset`` raises). The agents
are ``seat_0`` … ``seat_3`` (the rules core's seats: partners 0 & 2 and 1 & 3); the agent to
act is the seat on turn. Each observation is a dictionary: ``"observation"`` is the tensor of
:func:`~baloot_engine.research.encoding.encode` of the seat's
:class:`~baloot_engine.rules.observation.Observation`, and ``"action_mask"`` marks the legal
actions of :data:`~baloot_engine.research.encoding.ACTIONS` (all 0 for a seat not on turn).

Constructor arguments: ``preset`` and ``flags`` (the rule set), ``match`` (an episode is one
deal, or a whole match), ``reward`` (``"points"``: after each scored round every seat receives
its team's game points minus the other team's; ``"win"``: 1 / -1 at the end of a match) and
``render_mode`` (``"ansi"`` or ``"human"``). ``reset(seed=…)`` seeds the episode's deals:
the first dealer is ``rng.randrange(4)`` and each deal is ``rng.shuffle`` of the cards 0-31,
with ``rng = random.Random(seed)``.

Episodes of one deal end when it is scored, or when it is cancelled (all four passed twice, or
a Kawesh) with rewards 0 and ``infos[agent]["redeal"]`` set. In a match a cancelled round is
dealt again. The environment asks only the seat on turn: a call another seat could make out
of turn (a Kawesh, a declaration before its card) it makes on its own turn. A refused Sawa
claim (``false_sawa = refused``) changes nothing but ``infos[agent]["sawa_refused"]``: the same
seat acts again, and Sawa is not in its mask again until the next trick.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from baloot_engine.research.core import (
    DEALING,
    LIVE,
    make_rules,
    match_rewards,
    redealt,
    round_rewards,
    scored_round,
    shuffled_deck,
)
from baloot_engine.research.encoding import (
    ACTION_INDEX,
    ACTIONS,
    NUM_ACTIONS,
    OBSERVATION_SIZE,
    SAWA_INDEX,
    Encoder,
    describe,
)
from baloot_engine.rules import errors
from baloot_engine.rules.actions import Deal, Event, Play
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.game import apply, new_match
from baloot_engine.rules.observation import Observation, observe, observe_public
from baloot_engine.rules.ruleset import Preset, RuleSet
from baloot_engine.rules.state import Phase, State

AGENTS = ("seat_0", "seat_1", "seat_2", "seat_3")
Observed = dict[str, npt.NDArray[Any]]
_PHASE_OVER = (Phase.ROUND_OVER, Phase.MATCH_OVER)


class BalootEnv(AECEnv[str, Observed, int]):  # type: ignore[misc]
    """The Baloot AEC environment (see the module's documentation)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "baloot_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        preset: str | Preset | RuleSet = Preset.SEEDS,
        flags: Mapping[str, object] | None = None,
        *,
        match: bool = False,
        reward: str = "points",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if reward not in ("points", "win"):
            raise ValueError(f"reward is 'points' or 'win', got {reward!r}")
        if reward == "win" and not match:
            raise ValueError("the 'win' reward needs match=True (a match is won, not a deal)")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode is 'ansi', 'human' or None, got {render_mode!r}")
        self.rules = make_rules(preset, flags)
        self.match = match
        self.reward = reward
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agent_name_mapping = {agent: seat for seat, agent in enumerate(AGENTS)}
        observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (OBSERVATION_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(AGENTS, observation_space)
        self.action_spaces = {agent: spaces.Discrete(NUM_ACTIONS) for agent in AGENTS}
        self._rng = random.Random(secrets.randbits(64))
        self.game_state = new_match(self.rules)
        self._observed: tuple[State, int, Observation, list[int]] | None = None
        self._has_reset = False
        self._paid = False  # the rewards of the last step are not all 0
        self._refused: tuple[int, int] | None = None  # (trick number, seat) of a refused Sawa
        self._encode = Encoder()

    # ---- PettingZoo API --------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start an episode; ``seed`` fixes its deals (without one the deals go on from the
        generator of the last seed). No options are taken."""
        del options
        if seed is not None:
            self._rng = random.Random(seed)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in AGENTS}
        state = new_match(self.rules, dealer=self._rng.randrange(4))
        self.game_state = self._deal(state)
        self._observed = None
        self._refused = None
        self._paid = False
        self._has_reset = True
        self.agent_selection = AGENTS[self.game_state.turn]

    def observe(self, agent: str) -> Observed:
        if not self._has_reset:
            raise RuntimeError("reset() the environment before observing it")
        seat = self.agent_name_mapping[agent]
        observation, legal = self._observation(seat)
        mask = bytearray(NUM_ACTIONS)
        if seat == self.game_state.turn and not self.terminations[agent]:
            for index in legal:
                mask[index] = 1
        return {
            "observation": self._encode(observation),
            "action_mask": np.frombuffer(mask, np.int8),
        }

    def step(self, action: int | None) -> None:
        if not self._has_reset:
            raise RuntimeError("reset() the environment before stepping it")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.agent_name_mapping[agent]
        state = self.game_state
        index = -1 if action is None else int(action)
        if index not in self._observation(seat)[1]:
            raise ValueError(f"action {action!r} is not legal for {agent} now")
        self._cumulative_rewards[agent] = 0.0
        if self.infos[agent]:  # a refused Sawa is news for one step only
            self.infos[agent] = {}
        rewards = self.rewards
        if self._paid:  # the last step's rewards were read by now
            for name in rewards:
                rewards[name] = 0.0
            self._paid = False
        try:
            state, events = apply(state, seat, ACTIONS[index])
        except RuleError as error:
            if error.reason != errors.SAWA_INVALID:
                raise
            self.infos[agent] = {"sawa_refused": True}
            self._refused = (len(state.tricks), seat)
            self._observed = None  # the same state, with Sawa no longer offered
            events = ()
        if state.phase in LIVE:  # the usual step: the deal goes on
            self.game_state = state
            self.agent_selection = AGENTS[state.turn]
        else:
            self._end_of_deal(state, events)
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        text = describe(observe_public(self.game_state), 0)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""

    # ---- helpers ---------------------------------------------------------------------------

    def _end_of_deal(self, state: State, events: tuple[Event, ...]) -> None:
        """A deal was scored or cancelled: pay the rewards, end the episode or deal again."""
        rewards = self.rewards
        done = False
        score = scored_round(events)
        if score is not None:
            if self.reward == "points":
                for name, value in zip(AGENTS, round_rewards(score, self.rules), strict=True):
                    rewards[name] = value
            if state.phase is Phase.MATCH_OVER:
                done = True
                if self.reward == "win":
                    for name, value in zip(AGENTS, match_rewards(state.winner), strict=True):
                        rewards[name] = value
            elif not self.match:
                done = True
        elif not self.match and redealt(events):
            done = True
            for name in AGENTS:
                self.infos[name] = {"redeal": True}
        if not done and state.phase in DEALING:
            state = self._deal(state)
        self.game_state = state
        if done:
            for name in self.agents:
                self.terminations[name] = True
        else:
            self.agent_selection = AGENTS[state.turn]
        self._paid = True
        self._accumulate_rewards()

    def _deal(self, state: State) -> State:
        state, _ = apply(state, state.dealer, Deal(shuffled_deck(self._rng)))
        return state

    def _observation(self, seat: int) -> tuple[Observation, list[int]]:
        """The seat's observation of the current state and the indexes of its legal actions
        (empty for a seat not on turn), kept until the state changes."""
        state = self.game_state
        seen = self._observed
        if seen is not None and seen[0] is state and seen[1] == seat:
            return seen[2], seen[3]
        observation = observe(state, seat)
        legal: list[int] = []
        if seat == state.turn and state.phase in LIVE:
            index = ACTION_INDEX
            legal = [
                action.card + 32 * action.akka if type(action) is Play else index[action]
                for action in observation.legal_actions
            ]
            if self._refused == (len(state.tricks), seat) and legal[-1] == SAWA_INDEX:
                legal.pop()  # Sawa is listed last
        self._observed = (state, seat, observation, legal)
        return observation, legal


def raw_env(
    preset: str | Preset | RuleSet = Preset.SEEDS,
    flags: Mapping[str, object] | None = None,
    *,
    match: bool = False,
    reward: str = "points",
    render_mode: str | None = None,
) -> BalootEnv:
    """The environment without wrappers."""
    return BalootEnv(preset, flags, match=match, reward=reward, render_mode=render_mode)


def env(
    preset: str | Preset | RuleSet = Preset.SEEDS,
    flags: Mapping[str, object] | None = None,
    *,
    match: bool = False,
    reward: str = "points",
    render_mode: str | None = None,
) -> BalootEnv:
    """The environment (the usual entry point; it enforces the order of calls itself)."""
    return raw_env(preset, flags, match=match, reward=reward, render_mode=render_mode)


def parallel_env(
    preset: str | Preset | RuleSet = Preset.SEEDS,
    flags: Mapping[str, object] | None = None,
    *,
    match: bool = False,
    reward: str = "points",
    render_mode: str | None = None,
) -> ParallelEnv[str, Observed, int | None]:
    """The environment under PettingZoo's parallel API.

    Baloot is played in turns, so each ``step(actions)`` applies the action of the one seat on
    turn (the only agent whose mask is not all 0, named in each ``infos[agent]
    ["active_agent"]``); the other agents' actions are not read. It is PettingZoo's own
    ``turn_based_aec_to_parallel`` over this environment: observations, rewards and ends are
    the AEC environment's, for every agent at every step. (PettingZoo's general
    ``aec_to_parallel`` would apply every agent's action in a fixed order each cycle, which
    Baloot's turns do not follow: the metadata says ``is_parallelizable: False`` for it.)
    """
    table = raw_env(preset, flags, match=match, reward=reward, render_mode=render_mode)
    return turn_based_aec_to_parallel(table)
