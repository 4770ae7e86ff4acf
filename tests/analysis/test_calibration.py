"""Calibration: on the same decisions, the analysis' fair loss orders the bot levels.

The bigger run (more rounds, the DEEP budget, EXPERT at its own budget) is in
``bench/bench_analysis.py``; its figures are in docs/analysis.md.
"""

from __future__ import annotations

from baloot_engine.analysis import Depth, budget_of
from baloot_engine.analysis.calibration import calibrate
from baloot_engine.analysis.selfplay import play_record
from baloot_engine.bots import Level
from baloot_engine.bots.expert import ExpertBudget


def test_random_play_loses_far_more_than_the_bots_and_expert_loses_little() -> None:
    start, rounds = play_record([Level.BASIC] * 4, 11, max_rounds=1)
    expert = ExpertBudget(worlds=24, match_aware=False, match_aware_calls=False)
    figures = {
        f.level: f
        for f in calibrate(
            start, rounds, list(Level), budget=budget_of(Depth.QUICK), seed=1, expert=expert
        )
    }
    decisions = {f.decisions for f in figures.values()}
    assert len(decisions) == 1
    assert decisions.pop() >= 20
    random_loss = figures[Level.RANDOM].mean_fair_loss
    for level in (Level.BASIC, Level.STRONG, Level.EXPERT):
        assert random_loss > 2 * figures[level].mean_fair_loss, figures
        assert figures[level].accuracy > figures[Level.RANDOM].accuracy
    assert figures[Level.EXPERT].mean_fair_loss < 1.5
