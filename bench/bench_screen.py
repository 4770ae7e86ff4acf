"""The screen's calibration, detection power and throughput.

    .venv/bin/python bench/bench_screen.py calibrate OUT/stage1.jsonl [--charts docs/images]
    .venv/bin/python bench/bench_screen.py throughput CORPUS [--records 16] [--stage2]

The corpus is made by ``bench/screen_corpus.py`` (``CORPUS/<kind>/<seed>.json``) and screened
by ``baloot-screen CORPUS --out OUT --no-stage2`` (resumable: run it again as the corpus grows).

``calibrate`` reads the stage-1 rows. Honest kinds (``bench/screen_bots.py``: BASIC, STRONG,
EXPERT, LEARNED, STRONG with random cards, BASIC with mistakes) give every seat and both
partnerships of each match; the cheaters give their cheating seat (``strong-all``,
``strong-bidding``: seat 0) or partnership (``strong-pair``: seats 0 and 2). A set is a group's
rows over consecutive matches of one kind (10 or 30): disjoint sets for the honest, and for
the cheaters too when there are enough matches, else drawn with replacement (the output says
which). It fits the honest nulls (:mod:`baloot_engine.screening.stats`: per honest kind, the
mean gain per decision, the mean fair loss and the hit rate; the lowest line with a slope of
at least 0 on or above every honest kind, the highest hit rate), then prints, at those nulls,
the false-positive rate of the honest sets per seat and per partnership at several thresholds
beside the z-model's predicted tail, the detection rate of each cheater at 10 and 30 matches
at the reporting threshold, and writes an ROC chart per set size (SVG) and the honest scores'
histogram.

``throughput`` screens ``--records`` records of the corpus's STRONG and BASIC matches three
times: in this process (the serial executor), on Ray with one worker and with two; it prints
records per core-hour, the speed-up from one to two workers (wall clock, the same run), the
peak memory of a worker and the load average around each.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from screen_bots import CHEATER_KINDS, HONEST_KINDS

from baloot_engine.analysis.fairplay import BaseRate, GainNull, Knowledge
from baloot_engine.screening.stage1 import SeatCounts, row_counts
from baloot_engine.screening.stats import (
    SCREEN_THRESHOLD,
    THRESHOLDS,
    Null,
    SetScore,
    predicted_tail,
    set_score,
)

ROOT = Path(__file__).resolve().parents[1]
CHEATER_GROUPS = {"strong-all": ("0",), "strong-pair": ("0,2",), "strong-bidding": ("0",)}
TAIL_POINTS = (1.5, 2.0, 2.5, 3.0, 3.5, 4.0)
MIN_NULL_DECISIONS = 1000
"""An honest kind enters a null with at least this many decisions (a mean over fewer is too
noisy to set the highest honest mean by)."""
ROUNDS: dict[str, int] = defaultdict(int)
"""The rounds analysed per kind (read with the rows)."""


def load_rows(path: Path) -> dict[str, dict[str, list[tuple[int, SeatCounts]]]]:
    """kind -> group -> [(seed, counts)] sorted by seed."""
    found: dict[str, dict[str, list[tuple[int, SeatCounts]]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if "error" in row:
            continue
        kind, _, name = str(row["record"]).partition("/")
        seed = int(name.split(".")[0])
        if row["group"] == "0":
            ROUNDS[kind] += int(row["rounds"])
        found[kind][str(row["group"])].append((seed, row_counts(row)))
    for groups in found.values():
        for items in groups.values():
            items.sort(key=lambda x: x[0])
    return found


def add(items: Sequence[SeatCounts]) -> SeatCounts:
    total = SeatCounts()
    for item in items:
        total.add(item)
    return total


def fit_null(points: Sequence[tuple[float, float, float]]) -> Null:
    """The lowest line ``a + b L`` with ``b >= 0`` on or above every (L, mean, error) point: the
    flat line through the highest mean, or a line through two points with a positive slope whose
    value at the mean loss of the points is the least; its error is the standard error of the
    point (or the larger of the two) it passes through."""
    top = max(points, key=lambda p: p[1])
    best = Null(top[1], 0.0, top[2])
    centre = sum(loss for loss, _, _ in points) / len(points)

    def height(null: Null) -> float:
        return null.intercept + null.slope * centre

    for i, (l1, m1, e1) in enumerate(points):
        for l2, m2, e2 in points[i + 1 :]:
            if abs(l2 - l1) < 1e-9:
                continue
            slope = (m2 - m1) / (l2 - l1)
            if slope <= 0:
                continue
            line = Null(m1 - slope * l1, slope, max(e1, e2))
            above = all(line.intercept + slope * loss >= m - 1e-9 for loss, m, _ in points)
            if above and height(line) < height(best):
                best = line
    return Null(round(best.intercept, 4), round(best.slope, 4), round(best.error, 4))


def _fit(label: str, points: list[tuple[str, int, float, float, float, int, int]]) -> Null:
    """A null from each honest kind's (kind, decisions, mean gain, its error, mean fair loss,
    telling, hits)."""
    print(f"  {label}: honest kind, decisions, mean gain +- s.e., mean fair loss, hits")
    rates = []
    for kind, n, mean, error, loss, telling, hits in points:
        rate = hits / telling if telling else 0.0
        rate_error = math.sqrt(rate * (1 - rate) / telling) if telling else 0.0
        rates.append((rate, rate_error))
        print(
            f"    {kind:15s} {n:7d} {mean:+.4f} +- {error:.4f}  loss {loss:.3f}  "
            f"hits {hits}/{telling} = {rate:.3f} +- {rate_error:.3f}"
        )
    line = fit_null([(p[4], p[2], p[3]) for p in points])
    top = max(rates)
    found = line._replace(hit_rate=round(top[0], 4), hit_error=round(top[1], 4))
    print(f"    null: {found}")
    return found


def nulls_of(
    rows: dict[str, dict[str, list[tuple[int, SeatCounts]]]],
) -> tuple[Null, dict[Knowledge, BaseRate], dict[Knowledge, GainNull]]:
    """The honest nulls: of the calls, and of the cards per state of knowledge (the left and
    right opponents pooled)."""
    honest = {
        kind: [c for g in ("0", "1", "2", "3") for _, c in rows[kind].get(g, [])]
        for kind in HONEST_KINDS
        if kind in rows
    }
    points = []
    for kind, seats in honest.items():
        counts = [c.call for c in seats]
        n = sum(c.n for c in counts)
        if n < MIN_NULL_DECISIONS:
            continue
        mean = sum(c.gain_sum for c in counts) / n
        error = math.sqrt(sum((c.gain_sum - mean * c.n) ** 2 for c in counts)) / n
        loss = sum(c.fair_loss for c in counts) / n
        points.append(
            (
                kind,
                n,
                mean,
                error,
                loss,
                sum(c.telling for c in counts),
                sum(c.hits for c in counts),
            )
        )
    call = _fit("bids and calls", points)
    base_rates: dict[Knowledge, BaseRate] = {}
    gain_nulls: dict[Knowledge, GainNull] = {}
    for knowledges in ((Knowledge.ALL,), (Knowledge.PARTNER,), (Knowledge.LEFT, Knowledge.RIGHT)):
        points = []
        for kind, seats in honest.items():
            n = telling = hits = 0
            total = loss_sum = 0.0
            units = []
            for seat in seats:
                tally = seat.card
                for k in knowledges:
                    count = tally.counts[k]
                    n += count.gain_decisions
                    total += count.gain_sum
                    telling += count.telling
                    hits += count.hits
                    units.append((count.gain_sum, count.gain_decisions))
                loss_sum += tally.fair_loss * len(knowledges)
            if n < MIN_NULL_DECISIONS:
                continue
            mean = total / n
            error = math.sqrt(sum((g - mean * m) ** 2 for g, m in units)) / n
            points.append((kind, n, mean, error, loss_sum / n, telling, hits))
        found = _fit("cards, " + "/".join(k.value for k in knowledges), points)
        for k in knowledges:
            base_rates[k] = BaseRate(found.hit_rate, found.hit_error)
            gain_nulls[k] = GainNull(found.intercept, found.slope, found.error)
    return call, base_rates, gain_nulls


def sets_of(
    items: Sequence[tuple[int, SeatCounts]], size: int, draws: int, rng: random.Random
) -> tuple[list[SeatCounts], bool]:
    """Disjoint sets of ``size`` consecutive matches, or ``draws`` sets drawn with
    replacement when fewer than 10 disjoint sets exist (second value: drawn)."""
    counts = [c for _, c in items]
    disjoint = len(counts) // size
    if disjoint >= 10 or draws == 0:
        return [add(counts[i * size : (i + 1) * size]) for i in range(disjoint)], False
    if not counts:
        return [], True
    return [add([rng.choice(counts) for _ in range(size)]) for _ in range(draws)], True


def calibrate(path: Path, charts: Path | None) -> None:
    from baloot_engine.screening.report import histogram_svg, roc_svg

    rows = load_rows(path)
    print(f"stage-1 rows: {path}")
    for kind in sorted(rows):
        matches = len(rows[kind].get("0", []))
        print(f"  {kind:15s} {matches:5d} matches, {ROUNDS[kind]:6d} rounds")
    honest_rounds = sum(ROUNDS[k] for k in HONEST_KINDS)
    print(f"  honest rounds: {honest_rounds} (each seen by four seats and two partnerships)")
    call_null, base_rates, gain_nulls = nulls_of(rows)

    def scored(counts: SeatCounts) -> SetScore:
        return set_score(counts, call_null=call_null, base_rates=base_rates, gain_nulls=gain_nulls)

    rng = random.Random(58)
    curves: dict[int, dict[str, list[tuple[float, float]]]] = {}
    honest_scores: dict[str, list[float]] = {}
    for size in (10, 30):
        print(f"\nsets of {size} matches")
        honest: dict[str, list[float | None]] = {"seat": [], "pair": []}
        by_kind: dict[str, list[float]] = {}
        for kind in HONEST_KINDS:
            for group in ("0", "1", "2", "3", "0,2", "1,3"):
                sets, _ = sets_of(rows.get(kind, {}).get(group, []), size, 0, rng)
                scores = [scored(s).score for s in sets]
                honest["pair" if "," in group else "seat"].extend(scores)
                by_kind.setdefault(kind, []).extend(x for x in scores if x is not None)
        for who in ("seat", "pair"):
            scores = honest[who]
            verdict = [x for x in scores if x is not None]
            print(f"  honest {who}-sets: {len(scores)} ({len(verdict)} with a verdict)")
            line = "    threshold  measured  predicted(5 parts)"
            print(line)
            for t in (*TAIL_POINTS, THRESHOLDS[who]):
                flagged = sum(1 for x in verdict if x >= t)
                rate = flagged / len(verdict) if verdict else 0.0
                print(f"    {t:9.2f}  {flagged:4d} = {rate:.4f}  {predicted_tail(t, 5):.5f}")
            if size == 10:
                honest_scores[who] = verdict
        for kind, scores in by_kind.items():
            if scores:
                top = max(scores)
                print(f"    {kind:15s} {len(scores):4d} group-sets, highest score {top:.2f}")
        curves[size] = {}
        all_honest = [x for who in honest.values() for x in who if x is not None]
        for kind, groups in CHEATER_GROUPS.items():
            for group in groups:
                sets, drawn = sets_of(rows.get(kind, {}).get(group, []), size, 200, rng)
                found_scores = [scored(s) for s in sets]
                found = [x.score for x in found_scores if x.score is not None]
                who = "pair" if "," in group else "seat"
                t = THRESHOLDS[who]
                caught = sum(1 for x in found if x >= t)
                screened = sum(1 for x in found if x >= SCREEN_THRESHOLD)
                cards = [x.card for x in found_scores if x.card is not None]
                calls = [x.call for x in found_scores if x.call is not None]
                print(
                    f"  {kind:15s} group {group}: {caught}/{len(sets)} sets reported at "
                    f"{t}, {screened} sent to stage 2 at {SCREEN_THRESHOLD} "
                    f"({'drawn with replacement' if drawn else 'disjoint'}); "
                    f"median card z {sorted(cards)[len(cards) // 2] if cards else None}, "
                    f"median call z {sorted(calls)[len(calls) // 2] if calls else None}"
                )
                points = []
                for step in range(161):
                    t = -2.0 + step * 0.05
                    fp = sum(1 for x in all_honest if x >= t) / max(1, len(all_honest))
                    tp = sum(1 for x in found if x >= t) / max(1, len(sets))
                    points.append((fp, tp))
                curves[size][f"{kind} ({group})"] = points
    print(f"\nproposed constants: CALL_NULL = {tuple(call_null)}")
    print("  CARD_BASE_RATES =", {k.value: tuple(v) for k, v in base_rates.items()})
    print("  CARD_GAIN_NULLS =", {k.value: tuple(v) for k, v in gain_nulls.items()})
    if charts is not None:
        charts.mkdir(parents=True, exist_ok=True)
        for size, found in curves.items():
            (charts / f"screen_roc_{size}.svg").write_text(
                roc_svg(found, title=f"Screen ROC, sets of {size} matches"), encoding="utf-8"
            )
        (charts / "screen_honest_scores.svg").write_text(
            histogram_svg(
                {
                    "honest seats": honest_scores.get("seat", []),
                    "honest partnerships": honest_scores.get("pair", []),
                },
                {"report": THRESHOLDS["seat"]},
                title="Honest sets of 10 matches: screen scores",
                low=-5.0,
                high=6.0,
                bins=44,
            ),
            encoding="utf-8",
        )
        print(f"charts in {charts}")


def _measured(args: tuple[Any, Any]) -> tuple[str, int]:
    """A stage-1 unit run with the worker's peak memory (kB) beside it."""
    from baloot_engine.api.screen_cli import load_record
    from baloot_engine.screening.driver import stage1_unit
    from baloot_engine.screening.stage1 import STAGE1_BUDGET

    unit, seed = args
    text = stage1_unit(unit, load_record, STAGE1_BUDGET, seed)
    return text, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _warm(_: int) -> int:
    """Start a worker and import what a unit needs."""
    import baloot_engine.api.screen_cli  # noqa: F401

    time.sleep(0.5)
    return os.getpid()


def throughput(corpus: Path, count: int, stage2: bool) -> None:
    from baloot_engine.screening.driver import units_of
    from baloot_engine.screening.executors import RayExecutor, SerialExecutor

    units = [u for u in units_of([corpus]) if u.record.startswith(("strong/", "basic/"))]
    units = sorted(units, key=lambda u: (int(u.record.split("/")[1].split(".")[0]), u.record))
    units = sorted(units[:count], key=lambda u: -len(u.data))  # the longest first: no long tail
    items = [(u, 0) for u in units]
    print(f"{len(units)} records (STRONG and BASIC), load average {os.getloadavg()}")
    began, cpu = time.monotonic(), time.process_time()
    serial = [t for _, (t, _) in SerialExecutor().run(_measured, items)]
    wall = time.monotonic() - began
    cpu = time.process_time() - cpu
    rounds = sum(int(json.loads(text.splitlines()[0]).get("rounds", 0)) for text in serial if text)
    print(
        f"  serial: {wall:.1f} s wall, {cpu:.1f} s CPU: {3600 * len(units) / cpu:.0f} records "
        f"per core-hour (CPU), {rounds} rounds: {cpu / max(1, rounds):.3f} s CPU a round"
    )
    walls = {}
    for workers in (1, 2):
        executor = RayExecutor(num_cpus=workers)
        list(executor.run(_warm, range(4 * workers)))  # the workers started, the package read
        began = time.monotonic()
        load = os.getloadavg()
        results = dict(executor.run(_measured, items))
        walls[workers] = time.monotonic() - began
        texts = [results[i][0] for i in range(len(items))]
        memory = max(m for _, m in results.values())
        executor.close()
        print(
            f"  ray, {workers} worker(s): {walls[workers]:.1f} s wall "
            f"({3600 * len(units) / walls[workers] / workers:.0f} records per core-hour), "
            f"worker peak memory {memory / 1024:.0f} MB, same bytes as serial: "
            f"{texts == serial}, load average before {load}"
        )
    print(f"  speed-up 1 -> 2 workers: {walls[1] / walls[2]:.2f}x")
    if stage2:
        from baloot_engine.api.screen_cli import load_record
        from baloot_engine.screening.stage2 import Stage2Job, stage2_unit

        chosen = [u for u in units_of([corpus]) if u.record.startswith("strong/")][:10]
        job = Stage2Job("strong", ("0",), tuple((u.record, u.data) for u in chosen), 0, None)
        cpu = time.process_time()
        stage2_unit(job, load_record)
        cpu = time.process_time() - cpu
        print(
            f"  stage 2, one seat over {len(chosen)} STRONG records: {cpu:.1f} s CPU "
            f"({3600 * len(chosen) / cpu:.0f} seat-records per core-hour)"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("calibrate")
    c.add_argument("rows", type=Path)
    c.add_argument("--charts", type=Path, default=None)
    t = sub.add_parser("throughput")
    t.add_argument("corpus", type=Path)
    t.add_argument("--records", type=int, default=16)
    t.add_argument("--stage2", action="store_true", help="time one stage-2 set too")
    args = parser.parse_args(argv)
    if args.command == "calibrate":
        calibrate(args.rows, args.charts)
    else:
        throughput(args.corpus, args.records, args.stage2)
    _ = CHEATER_KINDS
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
