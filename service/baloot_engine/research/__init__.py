"""Baloot for game-AI research: a PettingZoo environment and an OpenSpiel game on the rules core.

Installed with the ``research`` extra (``pip install 'baloot-engine[research]'``), which brings
numpy, Gymnasium, PettingZoo and OpenSpiel; the rest of the package needs none of them.

* :func:`env` / :func:`raw_env`: the PettingZoo AEC environment
  (:mod:`~baloot_engine.research.pettingzoo_env`);
* :mod:`baloot_engine.research.openspiel_game`: the OpenSpiel game ``python_baloot``,
  registered with pyspiel when imported;
* :mod:`~baloot_engine.research.encoding`: the action table and the observation tensor both
  share (docs/research.md lists every index);
* :mod:`~baloot_engine.research.agents`: the bots (RANDOM, BASIC, STRONG, EXPERT) as agents;
* :mod:`~baloot_engine.research.oracle`: the perfect-information value of a state.
"""

from __future__ import annotations

from importlib.util import find_spec

if find_spec("numpy") is None or find_spec("pettingzoo") is None:  # pragma: no cover
    raise ImportError(
        "baloot_engine.research needs the research extra: pip install 'baloot-engine[research]'"
    )

from baloot_engine.research.pettingzoo_env import BalootEnv, env, raw_env

__all__ = ["BalootEnv", "env", "raw_env"]
