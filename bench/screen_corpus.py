"""The screen's corpus: seeded matches of honest and cheating players, one record file each.

    .venv/bin/python bench/screen_corpus.py DIR [--want KIND=N ...] [--minutes M] [--first-seed 1]

Writes ``DIR/<kind>/<seed>.json`` (the ``MatchRecord`` JSON of ``baloot-analyze``), round robin
over the kinds until each has its ``N`` records or ``--minutes`` run out; a file that exists is
kept (the run resumes), and each is written whole (a temporary file renamed). The kinds are
``bench/screen_bots.py``'s. A line per kind at the end: records, rounds, CPU seconds.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from google.protobuf import json_format
from screen_bots import CHEATER_KINDS, HONEST_KINDS, play_kind

from baloot_engine.api.analysis import record_message

DEFAULT_WANT = {
    "basic": 400,
    "basic-mistakes": 400,
    "learned": 400,
    "strong": 800,
    "strong-noisy": 400,
    "expert": 20,
    "strong-all": 300,
    "strong-pair": 300,
    "strong-bidding": 300,
}


def record_text(kind: str, seed: int) -> tuple[str, int]:
    """The record JSON of the seeded match of ``kind`` and its rounds."""
    start, rounds = play_kind(kind, seed)
    message = record_message(start, rounds, match_id=f"{kind}/{seed}")
    return json_format.MessageToJson(message, indent=None, sort_keys=True) + "\n", len(rounds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--want", action="append", default=[], metavar="KIND=N")
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--first-seed", type=int, default=1)
    args = parser.parse_args(argv)
    want = dict(DEFAULT_WANT)
    for item in args.want:
        kind, _, n = item.partition("=")
        if kind not in (*HONEST_KINDS, *CHEATER_KINDS):
            parser.error(f"unknown kind {kind}")
        want[kind] = int(n)
    stop = time.monotonic() + 60 * args.minutes
    made = dict.fromkeys(want, 0)
    rounds = dict.fromkeys(want, 0)
    cpu = dict.fromkeys(want, 0.0)
    seeds = dict.fromkeys(want, args.first_seed)
    have = dict.fromkeys(want, 0)
    while time.monotonic() < stop:
        busy = False
        for kind, n in want.items():
            if have[kind] >= n or time.monotonic() >= stop:
                continue
            busy = True
            folder = args.directory / kind
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"{seeds[kind]:05d}.json"
            seeds[kind] += 1
            have[kind] += 1
            if path.exists():
                continue
            began = time.process_time()
            text, count = record_text(kind, seeds[kind] - 1)
            cpu[kind] += time.process_time() - began
            made[kind] += 1
            rounds[kind] += count
            partial = path.with_suffix(".tmp")
            partial.write_text(text, encoding="utf-8")
            partial.replace(path)
        if not busy:
            break
    for kind in want:
        print(
            f"{kind:16s} made {made[kind]:5d} records {rounds[kind]:6d} rounds "
            f"{cpu[kind]:8.1f} s CPU (have {have[kind]})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
