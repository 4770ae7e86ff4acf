"""The readings benchmark (``bench/bench_reading.py``) measures what it says.

Not a timed test. Its solved play model must value each earlier play of the hand in the
position it was really made from (a world's hands put back as they were then), and its figures
must be shares of the real deal.
"""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import bench_reading  # noqa: E402 - needs bench/ on the path

from baloot_engine.analysis.selfplay import play_record  # noqa: E402
from baloot_engine.bots import Level, suggest  # noqa: E402
from baloot_engine.bots.inference import play_history  # noqa: E402
from baloot_engine.rules.actions import Action, Play  # noqa: E402
from baloot_engine.rules.observation import observe  # noqa: E402
from baloot_engine.rules.state import Phase, State  # noqa: E402
from baloot_engine.solver import Position, position_of, solve  # noqa: E402


def _log_softmax(position: Position, card: int, beta: float) -> float:
    solution = solve(position)
    if len(solution.values) < 2:
        return 0.0
    team = position.seat & 1
    values = {v.play.card: v.points[team] + v.tricks[team] / 9.0 for v in solution.values}
    top = max(values.values())
    total = sum(math.exp(beta * (v - top)) for v in values.values())
    return beta * (values[card] - top) - math.log(total)


def _checked(seed: int) -> bool:
    """Play one hand of a seeded BASIC match and check the model at seat 0's first decision
    from the third trick on; whether one was checked."""
    positions: list[tuple[Position, int, int]] = []
    checked = False

    def decide(state: State, seat: int, decision: int) -> Action:
        nonlocal checked
        action = suggest(state, seat, Level.BASIC, seed=decision)
        if state.phase is not Phase.PLAYING or checked:
            return action
        if seat == 0 and len(state.tricks) >= 2:
            history = play_history(observe(state, 0))
            real = state.hands
            world = (real[0], real[1], real[2], real[3])
            assert state.contract is not None
            for beta in bench_reading.BETAS:
                (found,) = bench_reading.solved_log_weights(
                    history, world, state.contract, state.rules, (beta,)
                )
                expected = sum(
                    _log_softmax(p, card, beta) for p, card, who in positions if who != 0
                )
                assert math.isclose(found, expected, abs_tol=1e-9)
                assert found < 0.0
            checked = True
        elif isinstance(action, Play):
            positions.append((position_of(state), action.card, seat))
        return action

    play_record([Level.BASIC] * 4, seed, max_rounds=1, decide=decide)
    return checked


def test_the_solved_model_values_each_earlier_play_from_its_real_position() -> None:
    """In the real deal, the model's log-likelihood of the other seats' plays is the sum, over
    those plays, of the log-softmax of the exact values in the positions the game itself was in
    when each was made."""
    assert _checked(3)
    assert _checked(5)


def test_every_reading_is_scored_on_the_same_decisions_as_shares() -> None:
    """Each decision gives every reading its placed and partner shares (0 to 1) and its spread
    (1 for worlds counted alike)."""
    readings = bench_reading.Readings(6)
    rng = random.Random(1)

    def decide(state: State, seat: int, decision: int) -> Action:
        if state.phase is Phase.PLAYING:
            readings.measure(state, seat, rng)
        return suggest(state, seat, Level.BASIC, seed=decision)

    play_record([Level.BASIC] * 4, 7, max_rounds=1, decide=decide)
    counts = {name: len(found) for name, found in readings.figures.items()}
    assert set(counts) >= {"alike", "calls", "heuristic 0.4", "solved 0.1"}
    assert len(set(counts.values())) == 1
    assert counts["alike"] > 5
    for name, found in readings.figures.items():
        for placed, partner, spread in found:
            assert 0.0 <= placed <= 1.0
            assert 0.0 <= partner <= 1.0
            assert 0.0 < spread <= 1.0 + 1e-9
            if name == "alike":
                assert math.isclose(spread, 1.0)
