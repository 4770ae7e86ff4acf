"""Bots: a fair player for any seat, at four levels (RANDOM, BASIC, STRONG, EXPERT).

:func:`suggest` is the entry point: it takes the seat's observation of a match state (what the
seat may know, :func:`baloot_engine.rules.observation.observe`, the same definition the views
encode) and lets the level's policy choose one of the seat's legal actions from that
observation alone. In table play a BASIC, STRONG or EXPERT bot first calls Qayd when what its
seat may know proves a violation (:mod:`baloot_engine.bots.qayd`); bots never play an illegal
card. Pure
Python like the rules core; the gRPC layer calls it for the ``SuggestAction`` RPC.
"""

from __future__ import annotations

import random
import secrets
import time

from baloot_engine.bots.expert import BASELINE_EXPERT_BUDGET, DEFAULT_EXPERT_BUDGET, ExpertBudget
from baloot_engine.bots.policies import Level, decide
from baloot_engine.bots.qayd import proven_call
from baloot_engine.bots.search import DEFAULT_BUDGET, Budget
from baloot_engine.rules import errors
from baloot_engine.rules.actions import Action
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.observation import observe
from baloot_engine.rules.state import Phase, State


def suggest(
    state: State,
    seat: int,
    level: Level,
    seed: int | None = None,
    *,
    budget: Budget = DEFAULT_BUDGET,
    expert: ExpertBudget = DEFAULT_EXPERT_BUDGET,
) -> Action:
    """One legal action (or a proven Qayd call) for ``seat``, by a bot that sees only that seat.

    With a ``seed`` the choice is a pure function of (what the seat knows, level, seed);
    without one the bot draws from the operating system's random generator and a STRONG or
    EXPERT bot also stops searching at its wall-clock budget (``budget.seconds``,
    ``expert.seconds``). A seeded EXPERT decision samples ``expert.worlds`` worlds, fewer when
    their work would pass what ``expert.seconds`` buys (a deterministic count, not a clock).
    A seat with nothing to do now is refused with a :class:`RuleError` whose reason says why
    (MATCH_OVER, WRONG_PHASE, NOT_YOUR_TURN).
    """
    if not 0 <= seat <= 3:
        raise errors.malformed(errors.INVALID_SEAT, f"a seat is 0-3, got {seat}")
    observation = observe(state, seat)
    if level is not Level.RANDOM:
        # Table play: a violation the seat can prove from the public play is called at once.
        call = proven_call(observation)
        if call is not None:
            return call
    if not observation.legal_actions or state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
        raise _nothing_to_do(state, seat)
    if seed is None:
        rng = random.Random(secrets.randbits(128))
        seconds = expert.seconds if level is Level.EXPERT else budget.seconds
        deadline = time.perf_counter() + seconds
    else:
        rng = random.Random(seed)
        deadline = None
    return decide(observation, level, rng, budget=budget, deadline=deadline, expert=expert)


def _nothing_to_do(state: State, seat: int) -> RuleError:
    phase = state.phase
    if phase is Phase.MATCH_OVER:
        return RuleError(errors.MATCH_OVER, "the match is over")
    if phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
        return RuleError(
            errors.WRONG_PHASE,
            f"no bot action in phase {phase.value}: the next round is dealt with DealRound",
        )
    if phase is Phase.ROUND_REVIEW:
        return errors.under_review(seat)
    refusal = errors.not_your_turn(state.turn, seat)
    refusal.details["seat"] = str(seat)
    return refusal


__all__ = ["BASELINE_EXPERT_BUDGET", "Budget", "ExpertBudget", "Level", "suggest"]
