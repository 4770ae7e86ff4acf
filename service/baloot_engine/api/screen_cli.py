"""``baloot-screen``: the two-stage fair-play screen of a day's match records.

    baloot-screen RECORDS... --out DIR [--executor auto|ray|serial] [--num-cpus N]
                  [--address ADDR] [--seed S] [--worlds N] [--call-deals N]
                  [--stage2-worlds N] [--no-stage2] [--parquet] [--progress]

``RECORDS`` are ``MatchRecord`` JSON files (what ``save_record`` writes), ``.jsonl`` streams of
them (one record a line) or folders of both; the records of one folder are one set (the same
players in the same seats). Stage 1 runs on every record, stage 2 on each set stage 1 flags
(docs/screening.md). On Ray (the ``screen`` extra; ``auto`` uses it when it is installed):
this machine with ``--num-cpus`` workers, or the cluster at ``--address``. A re-run into the
same ``--out`` skips what is done. Exit 0 when nothing is reported, 1 when a seat or a
partnership passes the reporting threshold, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from google.protobuf import json_format

from baloot.v1 import records_pb2
from baloot_engine.analysis.budget import MAX_WORLDS, Budget
from baloot_engine.api.analysis import RecordRefusedError, prepare
from baloot_engine.rules.record import RecordedRound
from baloot_engine.rules.state import State
from baloot_engine.screening import STAGE1_BUDGET, RecordError, executor_of, screen


def load_record(data: bytes) -> tuple[State, list[RecordedRound]]:
    """A record's bytes (``MatchRecord`` JSON) verified into its start and rounds."""
    try:
        record = json_format.Parse(data, records_pb2.MatchRecord())
        return prepare(record)
    except (json_format.ParseError, ValueError, UnicodeDecodeError) as error:
        raise RecordError(f"not a record: {error}") from None
    except RecordRefusedError as error:
        raise RecordError(f"{error.reason}: {error}") from None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="baloot-screen", description=__doc__.splitlines()[0])
    parser.add_argument("records", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--executor", choices=("auto", "ray", "serial"), default="auto")
    parser.add_argument("--num-cpus", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--address", default=None, help="a Ray cluster (default: this machine)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--worlds", type=int, default=STAGE1_BUDGET.worlds)
    parser.add_argument("--call-deals", type=int, default=STAGE1_BUDGET.call_deals)
    parser.add_argument("--stage2-worlds", type=int, default=None)
    parser.add_argument("--no-stage2", action="store_true")
    parser.add_argument("--parquet", action="store_true", help="stage1.parquet too (pyarrow)")
    parser.add_argument("--progress", action="store_true")
    args = parser.parse_args(argv)
    if not 1 <= args.worlds <= MAX_WORLDS or args.call_deals < 1 or args.num_cpus < 1:
        parser.error(f"--worlds is 1-{MAX_WORLDS}, --call-deals and --num-cpus at least 1")
    missing = [str(p) for p in args.records if not p.exists()]
    if missing:
        parser.error(f"no such file or folder: {', '.join(missing)}")
    executor = executor_of(args.executor, args.num_cpus, args.address)
    try:
        result = screen(
            args.records,
            args.out,
            load_record,
            executor,
            budget=Budget(args.worlds, args.call_deals),
            seed=args.seed,
            stage2=not args.no_stage2,
            parquet=args.parquet,
            show_progress=args.progress or sys.stderr.isatty(),
            stage2_worlds=args.stage2_worlds,
        )
    finally:
        executor.close()
    print(
        f"{result.records} records ({result.screened} screened, {result.skipped} already done, "
        f"{result.refused} refused) in {result.sets} sets; {len(result.flagged)} groups "
        f"flagged by stage 1, {len(result.reported)} reported; {args.out / 'summary.md'}"
    )
    return 1 if result.reported else 0


if __name__ == "__main__":
    raise SystemExit(main())
