"""Baloot for game-AI research: PettingZoo, Gymnasium and OpenSpiel on the rules core.

Installed with the ``research`` extra (``pip install -e '.[research]'`` from a clone of the
repository), which brings numpy, Gymnasium, PettingZoo and OpenSpiel; the rest of the package
needs none of them. Importing this package (or any module of it) registers the OpenSpiel game
``python_baloot`` with pyspiel and the Gymnasium environment ``baloot_engine/Baloot-v0``.

* :func:`env` / :func:`raw_env`: the PettingZoo AEC environment, :func:`parallel_env` the same
  under PettingZoo's parallel API (:mod:`~baloot_engine.research.pettingzoo_env`);
* :class:`BalootGymEnv`: one seat against the bots, a Gymnasium environment
  (:mod:`~baloot_engine.research.gym_env`);
* :mod:`baloot_engine.research.openspiel_game`: the OpenSpiel game ``python_baloot``;
* :class:`ViewReader`, :func:`action_to_message`, :func:`action_from_message`,
  :func:`rules_to_message`: from the environments to the service
  (:mod:`~baloot_engine.research.bridge`);
* :mod:`~baloot_engine.research.encoding`: the action table and the observation tensor both
  share (docs/research.md lists every index);
* :mod:`~baloot_engine.research.agents`: the bots (RANDOM, BASIC, STRONG, EXPERT) as agents;
* :mod:`~baloot_engine.research.oracle`: the perfect-information value of a state.
"""

from __future__ import annotations

from importlib.util import find_spec

if any(find_spec(name) is None for name in ("numpy", "gymnasium", "pettingzoo", "pyspiel")):
    raise ImportError(  # pragma: no cover
        "baloot_engine.research needs the research extra: pip install -e '.[research]' from "
        "the repository's root"
    )

from baloot_engine.research import gym_env, openspiel_game
from baloot_engine.research.bridge import (
    MissedTrickError,
    ViewReader,
    action_from_message,
    action_to_message,
    rules_from_message,
    rules_to_message,
)
from baloot_engine.research.gym_env import BalootGymEnv
from baloot_engine.research.pettingzoo_env import BalootEnv, env, parallel_env, raw_env

gym_env.register()
GAME_NAME = openspiel_game.GAME_NAME
"""The OpenSpiel name of the game, registered with pyspiel by this import."""
ENV_ID = gym_env.ENV_ID
"""The Gymnasium id of :class:`BalootGymEnv`, registered by this import."""

__all__ = [
    "ENV_ID",
    "GAME_NAME",
    "BalootEnv",
    "BalootGymEnv",
    "MissedTrickError",
    "ViewReader",
    "action_from_message",
    "action_to_message",
    "env",
    "parallel_env",
    "raw_env",
    "rules_from_message",
    "rules_to_message",
]
