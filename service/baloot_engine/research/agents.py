"""The bots (RANDOM, BASIC, STRONG, EXPERT) as agents of the research environments.

A :class:`BotAgent` decides with :func:`baloot_engine.bots.suggest`, which sees only what its
seat may know (the seat's observation), and answers with an action index of
:data:`~baloot_engine.research.encoding.ACTIONS`. It is called as ``agent(env, name)`` in a
PettingZoo loop, or as :meth:`BotAgent.act` with a rules-core state and a seat; the OpenSpiel
game wraps it as a ``pyspiel.Bot`` (:func:`baloot_engine.research.openspiel_game.bot`).

With a ``seed`` every decision is reproducible: decision ``n`` (counted from 0 by the agent)
uses the seed :func:`decision_seed` ``(seed, n)``; without one the bot draws from the
operating system's generator and STRONG and EXPERT stop at their time budgets.
"""

from __future__ import annotations

from typing import Any

from baloot_engine.bots import ExpertBudget, Level, suggest
from baloot_engine.bots.expert import DEFAULT_EXPERT_BUDGET
from baloot_engine.bots.search import DEFAULT_BUDGET, Budget
from baloot_engine.research.encoding import action_index
from baloot_engine.rules.state import State


def decision_seed(seed: int, decision: int) -> int:
    """The bot seed of decision ``decision`` of an agent seeded with ``seed``."""
    return seed * 1_000_003 + decision


class BotAgent:
    """One bot level playing one seat at a time (see the module's documentation)."""

    def __init__(
        self,
        level: Level | str,
        seed: int | None = None,
        *,
        budget: Budget = DEFAULT_BUDGET,
        expert: ExpertBudget = DEFAULT_EXPERT_BUDGET,
    ) -> None:
        self.level = Level(level)
        self.seed = seed
        self.budget = budget
        self.expert = expert
        self.decisions = 0

    def act(self, state: State, seat: int) -> int:
        """The action index the bot chooses for ``seat`` (on turn) in ``state``."""
        seed = None if self.seed is None else decision_seed(self.seed, self.decisions)
        self.decisions += 1
        action = suggest(state, seat, self.level, seed, budget=self.budget, expert=self.expert)
        return action_index(action)

    def __call__(self, env: Any, agent: str) -> int:
        """The action of ``agent`` (its name) in a PettingZoo environment of this package."""
        raw = env.unwrapped
        return self.act(raw.game_state, raw.agent_name_mapping[agent])
