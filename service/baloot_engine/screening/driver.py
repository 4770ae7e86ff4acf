"""The screen of a day's records: the work units, what is done, the outputs.

Inputs are record files (``*.json``, one ``MatchRecord`` each) and streams (``*.jsonl``, one
record a line), or folders of them (searched recursively). Every record is a unit of stage 1
(:func:`stage1_unit`); the records of one folder are one **set** (the same players in the same
seats, as a fair-play report reads them), scored per seat and per partnership
(:mod:`baloot_engine.screening.stats`); a group whose score passes the screen's threshold sends
its set to stage 2 (:func:`baloot_engine.screening.stage2.stage2_unit`).

Outputs, in ``out``:

* ``stage1.jsonl``: the rows of every record (six a record: the seats, then the partnerships),
  sorted by record; with ``parquet``, ``stage1.parquet`` too;
* ``sets.jsonl``: each set's and group's scores, and whether it was screened and reported;
* ``stage2/<set>.json``: the evidence of each set stage 1 flagged;
* ``summary.json``, ``summary.md`` and ``summary.svg``: counts, flags, timings and a chart of
  the scores.

A unit's result is a pure function of its record (or set), the budget, the seed and the
versions it is stamped with, and the driver writes them in a fixed order, so that a day
screened twice gives the same bytes. A re-run reads what ``out`` holds and skips every record
whose rows carry the same content digest and stamp (and every stage-2 set whose file names the
same inputs): an interrupted screen resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple, TextIO

from baloot_engine.analysis.budget import Budget
from baloot_engine.rules.record import DivergenceError, RecordedRound
from baloot_engine.rules.state import State
from baloot_engine.screening.executors import Executor
from baloot_engine.screening.stage1 import GROUPS, STAGE1_BUDGET, stage1_rows, stamp
from baloot_engine.screening.stats import (
    SCREEN_THRESHOLD,
    predicted_tail,
    set_score,
    summed,
    threshold_of,
)


class RecordError(Exception):
    """A record that cannot be read or that the rules refuse."""


Loader = Callable[[bytes], tuple[State, Sequence[RecordedRound]]]
"""Reads one record's bytes into its start and rounds (raises :class:`RecordError`)."""


class Unit(NamedTuple):
    """One record to screen: its name (``set/file`` or ``set/file:line``), set, bytes."""

    record: str
    set: str
    data: bytes

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def dumps(row: dict[str, Any]) -> str:
    """One JSON line: keys sorted, no spaces (the same bytes for the same row)."""
    return json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"


def stage1_unit(unit: Unit, load: Loader, budget: Budget, seed: int) -> str:
    """A record's stage-1 rows as JSON lines (a row with ``error`` for a refused record)."""
    try:
        start, rounds = load(unit.data)
        rows = stage1_rows(
            start, rounds, record=unit.record, digest=unit.digest, budget=budget, seed=seed
        )
    except (RecordError, DivergenceError) as error:
        failed: dict[str, Any] = {"record": unit.record, "sha256": unit.digest, "group": ""}
        failed.update(stamp(budget, seed))
        failed["error"] = str(error)
        rows = [failed]
    return "".join(dumps(row) for row in rows)


def units_of(inputs: Sequence[Path]) -> list[Unit]:
    """The records of the inputs, in name order (a folder's set: its path below the input)."""
    units: list[Unit] = []
    for given in inputs:
        if given.is_dir():
            files = sorted(
                p for p in given.rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl")
            )
            root = given
        else:
            files, root = [given], given.parent
        for path in files:
            relative = path.relative_to(root)
            set_name = relative.parent.as_posix()
            name = relative.as_posix()
            if path.suffix == ".jsonl":
                lines = path.read_bytes().splitlines()
                for number, line in enumerate(lines, 1):
                    if line.strip():
                        units.append(Unit(f"{name}:{number}", set_name, line))
            else:
                units.append(Unit(name, set_name, path.read_bytes()))
    units.sort(key=lambda u: u.record)
    return units


class Progress:
    """A one-line progress bar on a stream (when it is a terminal, or asked for)."""

    def __init__(self, stream: TextIO, shown: bool, total: int, label: str) -> None:
        self.stream, self.shown, self.total, self.label = stream, shown, total, label
        self.done = 0
        self.began = time.monotonic()

    def step(self) -> None:
        self.done += 1
        if not self.shown:
            return
        width = 30
        filled = width * self.done // max(1, self.total)
        rate = self.done / max(1e-9, time.monotonic() - self.began)
        self.stream.write(
            f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] "
            f"{self.done}/{self.total} {rate:.2f}/s"
        )
        if self.done == self.total:
            self.stream.write("\n")
        self.stream.flush()


@dataclass
class Screen:
    """What one screen did: the counts the summary reports."""

    records: int = 0
    screened: int = 0
    skipped: int = 0
    refused: int = 0
    sets: int = 0
    groups: int = 0
    flagged: list[dict[str, Any]] = field(default_factory=list)
    reported: list[dict[str, Any]] = field(default_factory=list)
    stage2_done: int = 0
    stage2_skipped: int = 0
    seconds: dict[str, float] = field(default_factory=dict)


def _read_rows(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a line cut by an interrupted run: its record is screened again
    return rows


def _write(path: Path, text: str) -> None:
    partial_path = path.with_name(path.name + ".partial")
    partial_path.write_text(text, encoding="utf-8")
    partial_path.replace(path)


_GROUP_ORDER = {",".join(str(s) for s in g): i for i, g in enumerate(GROUPS)}


def _row_key(row: dict[str, Any]) -> tuple[str, int]:
    return (str(row["record"]), _GROUP_ORDER.get(str(row.get("group", "")), -1))


def screen(
    inputs: Sequence[Path],
    out: Path,
    load: Loader,
    executor: Executor,
    *,
    budget: Budget = STAGE1_BUDGET,
    seed: int = 0,
    stage2: bool = True,
    parquet: bool = False,
    progress: TextIO = sys.stderr,
    show_progress: bool = False,
    stage2_worlds: int | None = None,
) -> Screen:
    """Screen the records of ``inputs`` into ``out`` (see the module's documentation)."""
    from baloot_engine.screening.report import write_summary
    from baloot_engine.screening.stage2 import Stage2Job, stage2_unit

    out.mkdir(parents=True, exist_ok=True)
    result = Screen()
    began = time.monotonic()
    units = units_of(inputs)
    result.records = len(units)
    wanted = stamp(budget, seed)
    stage1_path = out / "stage1.jsonl"
    journal = out / "stage1.jsonl.partial-rows"
    kept: dict[str, list[dict[str, Any]]] = {}
    for row in [*_read_rows(stage1_path), *_read_rows(journal)]:
        if all(row.get(k) == v for k, v in wanted.items()):
            kept.setdefault(f"{row['record']}\0{row['sha256']}", []).append(row)
    todo = [u for u in units if f"{u.record}\0{u.digest}" not in kept]
    # Every set moves on together (its first records first, set after set): a screen cut short
    # has scored a part of every set rather than all of a few.
    place: dict[str, int] = {}
    order = []
    for unit in todo:
        place[unit.set] = place.get(unit.set, -1) + 1
        order.append((place[unit.set], unit.set, unit.record))
    todo = [todo[i] for i in sorted(range(len(todo)), key=order.__getitem__)]
    result.skipped = len(units) - len(todo)
    bar = Progress(progress, show_progress, len(todo), "stage 1")
    with journal.open("a", encoding="utf-8") as log:
        work = partial(stage1_unit, load=load, budget=budget, seed=seed)
        for index, text in executor.run(work, todo):
            log.write(text)
            log.flush()
            unit = todo[index]
            kept[f"{unit.record}\0{unit.digest}"] = [json.loads(x) for x in text.splitlines()]
            result.screened += 1
            bar.step()
    result.seconds["stage1"] = round(time.monotonic() - began, 3)
    rows: list[dict[str, Any]] = []
    for unit in units:
        rows.extend(kept[f"{unit.record}\0{unit.digest}"])
    rows.sort(key=_row_key)
    _write(stage1_path, "".join(dumps(r) for r in rows))
    journal.unlink(missing_ok=True)
    if parquet:
        write_parquet(rows, out / "stage1.parquet")
    result.refused = sum(1 for r in rows if "error" in r)

    # Sets: each folder's records, each group's counts added.
    by_set: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for row in rows:
        if "error" in row:
            continue
        set_name = str(row["record"]).rpartition("/")[0] or "."
        by_set.setdefault(set_name, {}).setdefault(str(row["group"]), []).append(row)
    set_rows: list[dict[str, Any]] = []
    jobs: list[Stage2Job] = []
    data_of = {u.record: u.data for u in units}
    for set_name in sorted(by_set):
        flagged_groups: list[str] = []
        for group in sorted(by_set[set_name], key=lambda g: _GROUP_ORDER.get(g, 99)):
            members = by_set[set_name][group]
            found = set_score(summed(members))
            score = found.score
            entry: dict[str, Any] = {
                "set": set_name,
                "group": group,
                "records": len(members),
                "card_z": found.card,
                "hypothesis": found.hypothesis,
                "call_z": found.call,
                "score": score,
                "card_decisions": found.counts.card.decisions,
                "call_decisions": found.counts.call.n,
                "screened": score is not None and score >= SCREEN_THRESHOLD,
                "reported": score is not None and score >= threshold_of(group),
                "threshold": threshold_of(group),
                "predicted_tail": None
                if score is None
                else float(f"{predicted_tail(threshold_of(group), found.parts):.3g}"),
            }
            set_rows.append(entry)
            result.groups += 1
            if entry["screened"]:
                flagged_groups.append(group)
                result.flagged.append(entry)
            if entry["reported"]:
                result.reported.append(entry)
        result.sets += 1
        if flagged_groups:
            records = sorted({str(r["record"]) for g in by_set[set_name].values() for r in g})
            jobs.append(
                Stage2Job(
                    set_name,
                    tuple(flagged_groups),
                    tuple((name, data_of[name]) for name in records),
                    seed,
                    stage2_worlds,
                )
            )
    _write(out / "sets.jsonl", "".join(dumps(r) for r in set_rows))

    began2 = time.monotonic()
    if stage2 and jobs:
        folder = out / "stage2"
        folder.mkdir(exist_ok=True)
        todo2 = []
        for job in jobs:
            path = folder / f"{job.file_name}.json"
            if path.exists() and _read_key(path) == job.key:
                result.stage2_skipped += 1
            else:
                todo2.append(job)
        bar2 = Progress(progress, show_progress, len(todo2), "stage 2")
        for index, text in executor.run(partial(stage2_unit, load=load), todo2):
            _write(folder / f"{todo2[index].file_name}.json", text)
            result.stage2_done += 1
            bar2.step()
    result.seconds["stage2"] = round(time.monotonic() - began2, 3)
    write_summary(out, result, set_rows, executor.name)
    return result


def _read_key(path: Path) -> str | None:
    try:
        found = json.loads(path.read_text(encoding="utf-8")).get("key")
    except (OSError, json.JSONDecodeError):
        return None
    return found if isinstance(found, str) else None


def write_parquet(rows: Sequence[dict[str, Any]], path: Path) -> None:
    """The rows as a Parquet table (pyarrow, the ``screen`` extra)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = sorted({k for r in rows for k in r})
    table = pa.Table.from_pylist([{k: r.get(k) for k in columns} for r in rows])
    partial_path = path.with_name(path.name + ".partial")
    pq.write_table(table, partial_path)
    partial_path.replace(path)


def iter_rows(path: Path) -> Iterator[dict[str, Any]]:
    """The rows of a ``stage1.jsonl`` or ``sets.jsonl``."""
    yield from _read_rows(path)


__all__ = [
    "Loader",
    "Progress",
    "RecordError",
    "Screen",
    "Unit",
    "dumps",
    "iter_rows",
    "screen",
    "stage1_unit",
    "units_of",
    "write_parquet",
]
