"""Round analysis: the CPU of a whole match at each depth, the time to the first result, and the
calibration of the bot levels on the same decisions.

    .venv/bin/python bench/bench_analysis.py [--seed 3] [--depths quick,standard,deep]
                                             [--calibration-seeds 1,2,3] [--calibration-rounds 2]
                                             [--calibration-depth deep]

A whole match of BASIC bots (seeded; about eight rounds) is analysed for all four seats at
each depth, in this process: the CPU seconds of the analysis (``time.process_time``), the wall
time to the first decision and to the first report, the number of decisions. Then the
calibration: records of BASIC bots, analysed once; at each decision every bot level is asked
what it would do (EXPERT at its own budget, not match-aware, as the analysis is not) and its
choice's fair loss looked up (:mod:`baloot_engine.analysis.calibration`).

The machine may be shared: the load (``/proc/loadavg``) is printed, and a calibration loop
(``bench_rules.calibration_loops``) measured next to the analysis, so that the figures can be
compared as ratios (CPU seconds of a match × calibration loops per second).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_rules import calibration_loops

from baloot_engine.analysis import Decision, Depth, analyze, budget_of
from baloot_engine.analysis.calibration import calibrate
from baloot_engine.analysis.selfplay import play_record
from baloot_engine.bots import Level
from baloot_engine.bots.expert import BASELINE_EXPERT_BUDGET, ExpertBudget


def load() -> str:
    """The machine's load averages (1, 5 and 15 minutes)."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:  # pragma: no cover - not Linux
        return "?"


def match_at(depth: Depth, seed: int) -> dict[str, float]:
    """Analyse one whole match of BASIC bots at ``depth``: CPU, first results, decisions."""
    start, rounds = play_record([Level.BASIC] * 4, seed)
    began_wall = time.perf_counter()
    began_cpu = time.process_time()
    first_report = first_decision = 0.0
    decisions = 0
    for report in analyze(start, rounds, budget=budget_of(depth), seed=1):
        now = time.perf_counter() - began_wall
        first_report = first_report or now
        if isinstance(report, Decision):
            decisions += 1
            first_decision = first_decision or now
    return {
        "rounds": float(len(rounds)),
        "decisions": float(decisions),
        "cpu": time.process_time() - began_cpu,
        "wall": time.perf_counter() - began_wall,
        "first_report": first_report,
        "first_decision": first_decision,
    }


def first_over_rpc(pause: float) -> tuple[float, float]:
    """A server process started as ``make run`` starts it; ``pause`` seconds after it says it
    serves, one round is analysed at QUICK: the wall time to the first report and to the first
    decision (in seconds), as a client sees them."""
    import grpc

    from baloot.v1 import analysis_pb2
    from baloot.v1 import engine_service_pb2_grpc as pb_grpc
    from baloot_engine.api.analysis import record_message

    start, rounds = play_record([Level.BASIC] * 4, 3, max_rounds=2)
    record = record_message(start, rounds)
    process = subprocess.Popen(
        [sys.executable, "-m", "baloot_engine", "--port", "0", "--metrics-port", "0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        port = 0
        for line in process.stderr:
            event = json.loads(line)
            if event.get("event") == "server started":
                port = int(event["port"])
                break
        time.sleep(pause)
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = pb_grpc.BalootEngineServiceStub(channel)
            request = analysis_pb2.AnalyzeRecordRequest(
                record=record, depth=analysis_pb2.ANALYSIS_DEPTH_QUICK, rounds=[1], seed=1
            )
            began = time.perf_counter()
            first_report = first_decision = 0.0
            for response in stub.AnalyzeRecord(request, timeout=120):
                now = time.perf_counter() - began
                first_report = first_report or now
                if response.WhichOneof("report") == "decision":
                    first_decision = now
                    break
        return first_report, first_decision
    finally:
        process.terminate()
        process.wait(20)


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--depths", default="quick,standard,deep")
    parser.add_argument("--calibration-seeds", default="1,2,3")
    parser.add_argument("--calibration-rounds", type=int, default=2)
    parser.add_argument("--calibration-depth", default="deep")
    parser.add_argument(
        "--baseline-expert",
        action="store_true",
        help="also EXPERT as it played before it solved whole worlds (EXPERT-0)",
    )
    parser.add_argument(
        "--rpc-pauses",
        default="0,3",
        help="seconds between a server's start and its first analysis call (empty: none)",
    )
    args = parser.parse_args()
    loops = calibration_loops(2.0, time.process_time)
    print(f"load {load()}; calibration {loops:,.0f} loops/s")
    for pause in [float(p) for p in args.rpc_pauses.split(",") if p]:
        report, decision = first_over_rpc(pause)
        print(
            f"RPC, a server process's first analysis {pause:.0f} s after it serves: "
            f"first report {report * 1000:.0f} ms, first decision {decision * 1000:.0f} ms "
            f"({decision * loops / 1e3:,.0f} k calibration loops); load {load()}"
        )
    for name in [d for d in args.depths.split(",") if d]:
        depth = Depth(name)
        figures = match_at(depth, args.seed)
        budget = budget_of(depth)
        print(
            f"{depth.name:<8} worlds {budget.worlds:>2} deals {budget.call_deals:>2}: "
            f"{figures['rounds']:.0f} rounds, {figures['decisions']:.0f} decisions, "
            f"CPU {figures['cpu']:.1f} s (wall {figures['wall']:.1f} s, "
            f"{figures['cpu'] * loops / 1e6:.2f} M calibration loops), "
            f"first report {figures['first_report'] * 1000:.0f} ms, "
            f"first decision {figures['first_decision'] * 1000:.0f} ms; load {load()}"
        )
    seeds = [int(s) for s in args.calibration_seeds.split(",") if s]
    if not seeds:
        return
    expert = ExpertBudget(match_aware=False, match_aware_calls=False)
    # The rows: each level, then (``--baseline-expert``) EXPERT as it played before it solved
    # whole worlds, on the same decisions (the analysis is a pure function of its seed).
    rows: list[tuple[str, list[Level], ExpertBudget]] = [
        (level.name, [level], expert) for level in Level
    ]
    if args.baseline_expert:
        baseline = BASELINE_EXPERT_BUDGET._replace(match_aware=False, match_aware_calls=False)
        rows.append(("EXPERT-0", [Level.EXPERT], baseline))
    totals: dict[str, list[float]] = {name: [0.0, 0.0, 0.0, 0.0] for name, _, _ in rows}
    # Each row's fair loss decision by decision, aligned across the rows (same decisions).
    losses: dict[str, list[float | None]] = {name: [] for name, _, _ in rows}
    began = time.process_time()
    for seed in seeds:
        start, rounds = play_record([Level.BASIC] * 4, seed, max_rounds=args.calibration_rounds)
        budget = budget_of(Depth(args.calibration_depth))
        every = calibrate(start, rounds, list(Level), budget=budget, seed=seed, expert=expert)
        for name, levels, expert_budget in rows:
            if expert_budget is expert:
                chosen = [f for f in every if f.level in levels]
            else:
                chosen = calibrate(
                    start, rounds, levels, budget=budget, seed=seed, expert=expert_budget
                )
            for f in chosen:
                row = totals[name]
                row[0] += f.decisions
                row[1] += f.mean_fair_loss * f.decisions
                row[2] += f.mean_fair_loss_points * f.decisions
                row[3] += f.accuracy * f.decisions
                losses[name].extend(f.losses)
    print(
        f"calibration: {len(seeds)} records of {args.calibration_rounds} rounds, "
        f"{args.calibration_depth}, {time.process_time() - began:.0f} s CPU; load {load()}"
    )
    for name, (count, loss, points, accuracy) in totals.items():
        found = [x for x in losses[name] if x is not None]
        print(
            f"  {name:<8} {count:>4.0f} decisions  mean fair loss {loss / count:.3f} "
            f"± {standard_error(found):.3f} game points ({points / count:.2f} card points)  "
            f"accuracy {accuracy / count:.1%}"
        )
    pairs_of = list(itertools.pairwise([level.name for level in Level]))
    if args.baseline_expert:
        pairs_of.append(("EXPERT-0", "EXPERT"))
    for weaker, stronger in pairs_of:
        pairs = [
            a - b
            for a, b in zip(losses[weaker], losses[stronger], strict=True)
            if a is not None and b is not None
        ]
        mean = sum(pairs) / len(pairs)
        error = standard_error(pairs)
        print(
            f"  {weaker} - {stronger}: {mean:+.3f} ± {error:.3f} game points a "
            f"decision over the same {len(pairs)} decisions (z {mean / error if error else 0:.1f})"
        )


def standard_error(values: list[float]) -> float:
    """The standard error of the mean of ``values``."""
    return statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0


if __name__ == "__main__":
    main()
