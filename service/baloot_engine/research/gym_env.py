"""One seat against the project's bots: a single-agent Gymnasium environment.

``BalootGymEnv(seat=0, preset="seeds", opponents="basic", partner="basic")`` (or
``gymnasium.make("baloot_engine/Baloot-v0", ...)``, registered when
:mod:`baloot_engine.research` is imported) is the PettingZoo environment of
:mod:`~baloot_engine.research.pettingzoo_env` seen from one seat: the agent plays ``seat``,
the bots (:class:`~baloot_engine.research.agents.BotAgent`, RANDOM, BASIC, STRONG or EXPERT)
play the other three, its partner at the ``partner`` level and the other team at the
``opponents`` level. Observations, actions, rewards, rules and deals are those of the
PettingZoo environment: ``{"observation": float32[2350], "action_mask": int8[105]}``, an index
of the action table, the team's game points minus the other team's when a deal is scored
(``reward="points"``) or 1 / -1 for the match (``reward="win"``, ``match=True``);
``reset(seed=n)`` deals what ``env().reset(seed=n)`` deals, and seeds the bots too.

An episode of one deal (``match=False``) ends when the deal is scored or cancelled (reward 0,
``info["redeal"]``), as in the PettingZoo environment; a deal the bots cancel before the agent
has acted (a Kawesh) is dealt again within ``reset``. ``illegal="raise"`` (the default)
refuses an action outside the mask with ValueError; ``illegal="random"`` plays a legal action
drawn with the environment's generator instead and says so in ``info["illegal"]`` (for tools,
such as Gymnasium's ``check_env``, that try unmasked actions). ``action_masks()`` gives the
mask as booleans, as maskable learners ask for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt

from baloot_engine.bots import ExpertBudget, Level
from baloot_engine.bots.expert import DEFAULT_EXPERT_BUDGET
from baloot_engine.bots.search import DEFAULT_BUDGET, Budget
from baloot_engine.research.agents import BotAgent
from baloot_engine.research.pettingzoo_env import AGENTS, BalootEnv, Observed
from baloot_engine.rules.ruleset import Preset, RuleSet

ENV_ID = "baloot_engine/Baloot-v0"
"""The Gymnasium id of :class:`BalootGymEnv`."""


class BalootGymEnv(gymnasium.Env[Observed, np.int64]):
    """One seat against the bots (see the module's documentation)."""

    # Gymnasium declares it an attribute of the instance.
    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        seat: int = 0,
        preset: str | Preset | RuleSet = Preset.SEEDS,
        flags: Mapping[str, object] | None = None,
        *,
        opponents: Level | str = Level.BASIC,
        partner: Level | str = Level.BASIC,
        match: bool = False,
        reward: str = "points",
        illegal: str = "raise",
        render_mode: str | None = None,
        budget: Budget = DEFAULT_BUDGET,
        expert: ExpertBudget = DEFAULT_EXPERT_BUDGET,
    ) -> None:
        if seat not in (0, 1, 2, 3):
            raise ValueError(f"the agent's seat is 0-3, got {seat}")
        if illegal not in ("raise", "random"):
            raise ValueError(f"illegal is 'raise' or 'random', got {illegal!r}")
        self.table = BalootEnv(preset, flags, match=match, reward=reward, render_mode=render_mode)
        self.seat = seat
        self.agent = AGENTS[seat]
        self.levels = tuple(
            Level(partner) if other == (seat ^ 2) else Level(opponents) for other in range(4)
        )
        self.illegal = illegal
        self.render_mode = render_mode
        self.budget = budget
        self.expert = expert
        self.observation_space = self.table.observation_space(self.agent)
        self.action_space = self.table.action_space(self.agent)
        self.bots = self._bots(None)

    # ---- Gymnasium API ---------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observed, dict[str, Any]]:
        """A new episode; ``seed`` fixes its deals (as the PettingZoo environment's) and the
        bots' decisions. No options are taken."""
        super().reset(seed=seed)
        del options
        if seed is not None:
            self.bots = self._bots(seed)
        table = self.table
        table.reset(seed=seed)
        while True:
            self._bots_play()
            if not table.terminations[self.agent]:
                return self._observe(), {}
            table.reset()  # the bots cancelled the deal before the agent acted: deal again

    def step(self, action: Any) -> tuple[Observed, float, bool, bool, dict[str, Any]]:
        """Play the agent's action, then the bots' until the agent is to act again or the
        episode ends."""
        table = self.table
        if table.agent_selection != self.agent or table.terminations[self.agent]:
            raise RuntimeError("the episode is over: reset() the environment")
        info: dict[str, Any] = {}
        index = int(action)
        mask = table.observe(self.agent)["action_mask"]
        if not 0 <= index < len(mask) or not mask[index]:
            if self.illegal == "raise":
                raise ValueError(f"action {action!r} is not legal now (see the action mask)")
            index = int(self.np_random.choice(np.flatnonzero(mask)))
            info["illegal"] = True
        table.step(index)
        reward = table.rewards[self.agent]
        info.update(table.infos[self.agent])
        reward += self._bots_play()
        done = table.terminations[self.agent]
        if done:
            info.update(table.infos[self.agent])
        return self._observe(), float(reward), done, False, info

    def render(self) -> str | None:
        return self.table.render()

    def close(self) -> None:
        """Nothing to release."""

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions of the agent now, as booleans."""
        mask: npt.NDArray[np.bool_] = self.table.observe(self.agent)["action_mask"].astype(bool)
        return mask

    # ---- helpers ---------------------------------------------------------------------------

    def _bots(self, seed: int | None) -> dict[str, BotAgent]:
        return {
            name: BotAgent(
                level,
                None if seed is None else seed * 4 + other,
                budget=self.budget,
                expert=self.expert,
            )
            for other, (name, level) in enumerate(zip(AGENTS, self.levels, strict=True))
            if other != self.seat
        }

    def _bots_play(self) -> float:
        """Let the bots act until the agent is on turn or the episode is over; the agent's
        rewards on the way."""
        table = self.table
        earned = 0.0
        while table.agent_selection != self.agent and not table.terminations[self.agent]:
            name = table.agent_selection
            table.step(self.bots[name](table, name))
            earned += table.rewards[self.agent]
        return earned

    def _observe(self) -> Observed:
        observed = self.table.observe(self.agent)
        return {
            "observation": observed["observation"].copy(),
            "action_mask": observed["action_mask"].copy(),
        }


def register() -> None:
    """Register :data:`ENV_ID` with Gymnasium (once; importing the package does it)."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(ENV_ID, entry_point=f"{__name__}:BalootGymEnv")
