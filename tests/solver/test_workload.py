"""The solver's recorded workload (``bench/solver_workload.py``): the calls recorded in the
repository replay with the recorded answers, warm and cold, and the replay notices an answer that
differs. Not a timed test: the benchmark prints the times."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import solver_workload  # noqa: E402 - needs bench/ on the path

from baloot_engine.rules.ruleset import PRESETS, Preset  # noqa: E402
from baloot_engine.solver import position_of, solve  # noqa: E402
from tests.golden.solver_positions import first_lead  # noqa: E402


def _every(workload: solver_workload.Workload, step: int) -> solver_workload.Workload:
    """Every ``step``-th search of the workload and its calls (the calls keep their order)."""
    searches = {i: made for i, made in workload.searches.items() if i % step == 0}
    calls = [call for call in workload.calls if call["s"] in searches]
    return solver_workload.Workload(searches, calls)


def test_the_recorded_workload_replays_with_the_recorded_answers() -> None:
    workload = solver_workload.read(solver_workload.DEFAULT_FILE)
    sources = {made["source"] for made in workload.searches.values()}
    assert sources == set(solver_workload.SOURCES)  # EXPERT, the analysis and SolveDeal
    part = _every(workload, 15)
    warm = solver_workload.replay_warm(part)
    cold = solver_workload.replay_cold(part)
    assert warm.checked > 500
    assert cold.checked > 500
    assert (warm.wrong, cold.wrong) == (0, 0)
    # Full deals and endgames alike: calls from the first lead to the seventh trick.
    assert {depth for _, depth in warm.spent} >= set(range(7))


def test_a_recording_replays_the_same_cards_and_a_wrong_answer_is_noticed() -> None:
    recorder = solver_workload.Recorder()
    state = first_lead(3, PRESETS[Preset.SEEDS])
    with recorder.recording("solve_deal"):
        solution = solve(position_of(state))
    workload = solver_workload.Workload()
    for line in recorder.lines:
        if "search" in line:
            workload.searches[line["search"]] = line
        else:
            workload.calls.append(line)
    assert len(workload.searches) == 1
    assert sum(call["k"] for call in workload.calls) == solution.nodes
    warm = solver_workload.replay_warm(workload)
    assert (warm.wrong, warm.other_nodes, warm.checked) == (0, 0, len(workload.calls))
    # An answer recorded on the other side of its null window is noticed, warm and cold.
    above = next(i for i, call in enumerate(workload.calls) if call["v"] >= call["w"][1] > 0)
    wrong = dict(workload.calls[above], v=workload.calls[above]["w"][0])
    altered = replace(
        workload, calls=[*workload.calls[:above], wrong, *workload.calls[above + 1 :]]
    )
    assert solver_workload.replay_warm(altered).wrong == 1
    assert solver_workload.replay_cold(altered).wrong == 1
