"""Calibration: the analysis' verdict on each bot level, decision by decision, on the same deals.

A record is analysed once; at each of its analysed decisions every bot level is asked what it
would have done in the same state (seeing only what that seat saw), and that choice is looked
up among the decision's valued alternatives. The mean fair loss of a level is the mean, over
the decisions, of what the best fair choice gives more than the level's choice. Every level
meets exactly the same positions, so the figures compare the levels' decisions and nothing
else (not the contracts they would have bought, nor the luck of the cards).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from baloot_engine.analysis.budget import Budget
from baloot_engine.analysis.core import EPSILON, Decision, analyze
from baloot_engine.bots import Level, suggest
from baloot_engine.bots.expert import DEFAULT_EXPERT_BUDGET, ExpertBudget
from baloot_engine.rules.record import RecordedRound, replay
from baloot_engine.rules.state import State


class LevelFigures(NamedTuple):
    """One level's figures over the decisions of a calibration."""

    level: Level
    decisions: int
    mean_fair_loss: float
    mean_fair_loss_points: float  # card decisions only
    accuracy: float  # the share of its choices that were a best fair choice
    losses: tuple[float | None, ...]  # each decision's fair loss (None: not among its choices)


def calibrate(
    start: State,
    rounds: Sequence[RecordedRound],
    levels: Iterable[Level],
    *,
    budget: Budget,
    seed: int = 0,
    expert: ExpertBudget = DEFAULT_EXPERT_BUDGET,
) -> list[LevelFigures]:
    """Each level's mean fair loss on the decisions of one record (see the module)."""
    reports = analyze(start, rounds, budget=budget, seed=seed)
    decisions = [d for d in reports if isinstance(d, Decision)]
    states: dict[tuple[int, int], State] = {}
    wanted = {(d.round_index, d.action_index) for d in decisions}
    for step in replay(start, rounds):
        if (step.round_index, step.action_index) in wanted:
            states[(step.round_index, step.action_index)] = step.before
    figures: list[LevelFigures] = []
    for level in levels:
        losses: list[float] = []
        each: list[float | None] = []
        points: list[float] = []
        best = 0
        for number, decision in enumerate(decisions):
            state = states[(decision.round_index, decision.action_index)]
            choice = suggest(state, decision.seat, level, seed=seed * 7919 + number, expert=expert)
            found = [a for a in decision.alternatives if a.action == choice]
            if not found:
                each.append(None)
                continue
            top = decision.alternatives[decision.best_fair].fair
            mine = found[0].fair
            loss = max(0.0, top.score - mine.score)
            losses.append(loss)
            each.append(loss)
            gap = 0.0
            if top.points is not None and mine.points is not None:
                gap = top.points - mine.points
                points.append(gap)
            if loss <= EPSILON and gap <= EPSILON:
                best += 1
        count = len(losses)
        figures.append(
            LevelFigures(
                level,
                count,
                sum(losses) / count if count else 0.0,
                sum(points) / len(points) if points else 0.0,
                best / count if count else 1.0,
                tuple(each),
            )
        )
    return figures


__all__ = ["LevelFigures", "calibrate"]
