"""The costliest records the record RPCs accept without a credential, at their bounds.

VerifyRecord, ReplayRecord and a record position of SolveDeal replay a record inline. Their
work is bounded by ``MAX_RECORD_ACTIONS`` and by ``MAX_SAWA_POSITIONS`` (the Sawa searches
that judge the record's claims). This measures, in one process, the CPU of:

- a valid record of ``MAX_RECORD_ACTIONS`` actions (a long random match, cut there), verified
  and replayed to its last step;
- a record whose claim needs more search than allowed (refused at the bound);

each beside a calibration loop run in the same process, so that the numbers travel between
machines of different speed (the ratio) as well as in milliseconds.

    python bench/bench_record_cost.py [--repeats 5] [--seed 5]
"""

from __future__ import annotations

import argparse
import contextlib
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

from baloot.v1 import records_pb2
from baloot_engine.api import records
from baloot_engine.api.status import ApiError
from baloot_engine.rules import sawa
from baloot_engine.rules.ruleset import SEEDS

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench_records import record_of_a_match


def calibration() -> None:
    """A fixed amount of plain Python work (about 5 ms on a 2020s core)."""
    total = 0
    for i in range(100_000):
        total += i * i


def cpu_ms(action: Callable[[], object], repeats: int) -> float:
    """The least CPU of ``repeats`` runs, in milliseconds."""
    best = float("inf")
    for _ in range(repeats):
        sawa._verdict.cache_clear()  # every record is a new one: nothing cached
        started = time.process_time()
        with contextlib.suppress(ApiError):  # the record refused at the bound
            action()
        best = min(best, time.process_time() - started)
    return 1000 * best


def longest_record(rng: random.Random) -> records_pb2.MatchRecord:
    """A valid record of at most MAX_RECORD_ACTIONS actions, as near to it as whole rounds go."""
    whole = record_of_a_match(SEEDS.replace(match_target=2500), rng)
    record = records_pb2.MatchRecord()
    record.CopyFrom(whole)
    del record.rounds[:]
    total = 0
    for recorded in whole.rounds:
        if total + len(recorded.actions) > records.MAX_RECORD_ACTIONS:
            break
        record.rounds.add().CopyFrom(recorded)
        total += len(recorded.actions)
    return record


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    from tests.api.test_record_cost import _record_with_a_hard_claim

    long = longest_record(random.Random(args.seed))
    hard = _record_with_a_hard_claim(random.Random(args.seed))
    steps = records.total_steps(long)
    assert records.verify(long).valid
    cases: list[tuple[str, Callable[[], object]]] = [
        (f"VerifyRecord, {steps} actions", lambda: records.verify(long)),
        (
            f"ReplayRecord to step {steps}",
            lambda: records.replay_response(long, records.replay_to(long, steps), steps),
        ),
        ("VerifyRecord, a claim past the search bound", lambda: records.verify(hard)),
    ]
    print(f"bounds: {records.MAX_RECORD_ACTIONS} actions, {records.MAX_SAWA_POSITIONS} positions")
    for name, action in cases:
        spent = cpu_ms(action, args.repeats)
        unit = cpu_ms(calibration, args.repeats)
        print(
            f"  {name}: {spent:.1f} ms CPU = {spent / unit:.2f} calibration loops ({unit:.1f} ms)"
        )


if __name__ == "__main__":
    main()
