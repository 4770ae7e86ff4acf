"""Fair-play analysis: calibration on honest bots, detection power on cheating bots, ROC chart.

    .venv/bin/python bench/bench_fairplay.py [--matches 20] [--expert-matches 8]
                                             [--sets 400] [--set-size 3 10 30]
                                             [--pool bench/fairplay_pool.jsonl] [--report-only]
                                             [--chart docs/images/fairplay_roc.png]

A pool of seeded matches is played and analysed once per bot type, seat 0 being the one
measured (:mod:`baloot_engine.analysis.fairplay`, its default worlds): the honest levels
RANDOM, BASIC, STRONG and EXPERT (every seat at that level), and the cheaters of
``bench/fairplay_bots.py`` in seat 0 (the other seats STRONG): the solver's player peeking at
every hand, at its partner's, at its left opponent's (``expert-*``), and STRONG's search
peeking at every hand or its partner's (``strong-*``). Each match's additive counts and the
CPU seconds of its analysis go to the pool file as they are made (a run that stops keeps what
it did; the next run adds to it; ``--report-only`` reads it alone).

Sets of ``--set-size`` matches are then drawn from each pool with replacement (``--sets`` per
type and size): the sets overlap, and with a pool smaller than the set a match may count
twice, which the output says. The honest rate of hits (BASIC, STRONG, EXPERT pooled) is the
null of the z-scores; the threshold of each hypothesis and set size is the smallest that
flags at most 1 % of the honest sets of every level (RANDOM included); the cheaters' sets
flagged at it are the detection power. The ROC chart (sets of ten matches; false-positive rate
on honest BASIC/STRONG/EXPERT sets against detection) is a PNG written without a plotting
library. CPU per match analysed is also given in calibration loops
(``bench_rules.calibration_loops``), for a machine that is shared.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import struct
import sys
import time
import zlib
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_rules import calibration_loops
from fairplay_bots import play_cheat_record

from baloot_engine.analysis.fairplay import (
    MIN_DECISIONS,
    PEEKS,
    Count,
    DecisionFigures,
    Hypothesis,
    Knowledge,
    Tally,
    record_figures,
    score,
    tally_of,
)
from baloot_engine.bots import Level

ROOT = Path(__file__).resolve().parents[1]
HONEST = ("random", "basic", "strong", "expert")
NULL = ("basic", "strong", "expert")
"""The honest levels whose hit rates make the null (RANDOM only checks the threshold)."""
CHEATERS = {
    "expert-all": (Level.EXPERT, "all", Hypothesis.ALL),
    "expert-partner": (Level.EXPERT, "partner", Hypothesis.PARTNER),
    "expert-left": (Level.EXPERT, "left", Hypothesis.OPPONENT),
    "strong-all": (Level.STRONG, "all", Hypothesis.ALL),
    "strong-partner": (Level.STRONG, "partner", Hypothesis.PARTNER),
}
TYPES = (*HONEST, *CHEATERS)


def play(kind: str, seed: int) -> tuple[object, list[object]]:
    """A match of bot type ``kind`` (seat 0 measured)."""
    if kind in HONEST:
        level = Level(kind)
        return play_cheat_record([level] * 4, ["none"] * 4, seed)  # type: ignore[return-value]
    level, peek, _ = CHEATERS[kind]
    levels = [level, Level.STRONG, Level.STRONG, Level.STRONG]
    return play_cheat_record(levels, [peek, "none", "none", "none"], seed)  # type: ignore[return-value]


def measure(kind: str, seed: int) -> dict[str, object]:
    """Play and analyse one match: seat 0's tally and the CPU of the analysis."""
    start, rounds = play(kind, seed)
    began = time.process_time()
    figures = [
        f
        for f in record_figures(start, rounds, seats=(0,), seed=seed)  # type: ignore[arg-type]
        if isinstance(f, DecisionFigures)
    ]
    cpu = time.process_time() - began
    tally = tally_of(figures, (0,))[0]
    return {
        "kind": kind,
        "seed": seed,
        "rounds": len(rounds),
        "cpu": cpu,
        "decisions": tally.decisions,
        "fair_loss": tally.fair_loss,
        "counts": {k.value: [c.telling, c.hits, c.gain] for k, c in tally.counts.items()},
    }


def tally_from(entry: dict[str, object]) -> Tally:
    """A pool entry's tally."""
    tally = Tally()
    tally.decisions = int(entry["decisions"])  # type: ignore[call-overload]
    tally.fair_loss = float(entry["fair_loss"])  # type: ignore[arg-type]
    counts: dict[str, list[float]] = entry["counts"]  # type: ignore[assignment]
    for knowledge in PEEKS:
        telling, hits, gain = counts[knowledge.value]
        tally.counts[knowledge] = Count(int(telling), int(hits), float(gain))
    return tally


def fill(pool: Path, wanted: dict[str, int], stop_at: float) -> None:
    """Add matches to the pool until every type has its count (round robin) or time is up."""
    have: dict[str, set[int]] = {k: set() for k in TYPES}
    if pool.exists():
        for line in pool.read_text().splitlines():
            entry = json.loads(line)
            have[entry["kind"]].add(entry["seed"])
    while time.time() < stop_at:
        missing = [k for k in TYPES if len(have[k]) < wanted[k]]
        if not missing:
            return
        for kind in missing:
            if time.time() >= stop_at:
                return
            seed = next(s for s in range(1, 10**6) if s not in have[kind])
            entry = measure(kind, seed)
            have[kind].add(seed)
            with pool.open("a") as out:
                out.write(json.dumps(entry) + "\n")
            done = sum(len(v) for v in have.values())
            total = sum(max(wanted[k], len(have[k])) for k in TYPES)
            print(
                f"  [{done}/{total}] {kind} seed {seed}: {entry['rounds']} rounds, "
                f"{entry['decisions']} decisions, analysis {entry['cpu']:.1f} s CPU",
                flush=True,
            )


def base_rates(pools: dict[str, list[Tally]]) -> dict[Knowledge, float]:
    """The null: the hit rate among telling decisions of the honest levels, pooled."""
    rates = {}
    for knowledge in PEEKS:
        telling = sum(t.counts[knowledge].telling for k in NULL for t in pools.get(k, []))
        hits = sum(t.counts[knowledge].hits for k in NULL for t in pools.get(k, []))
        rates[knowledge] = hits / telling if telling else 0.3
    return rates


def draw_sets(tallies: Sequence[Tally], size: int, count: int, rng: random.Random) -> list[Tally]:
    """``count`` sets of ``size`` matches drawn from a pool with replacement, summed."""
    sets = []
    for _ in range(count):
        total = Tally()
        for tally in rng.choices(tallies, k=size):
            total.add(tally)
        sets.append(total)
    return sets


def percentile(values: Sequence[float], share: float) -> float:
    """The value below which ``share`` of ``values`` lie (nearest rank)."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, int(share * len(ordered) + 0.999999) - 1))
    return ordered[index]


def roc(honest: Sequence[float], cheats: Sequence[float]) -> list[tuple[float, float]]:
    """(false-positive rate, detection rate) at every threshold."""
    points = [(1.0, 1.0)]
    for t in sorted(set(honest) | set(cheats)):
        fpr = sum(1 for z in honest if z >= t) / len(honest)
        tpr = sum(1 for z in cheats if z >= t) / len(cheats)
        points.append((fpr, tpr))
    points.append((0.0, 0.0))
    return sorted(points)


# ---------------------------------------------------------------------------------------
# A PNG without a plotting library: axes, grid, the chance diagonal and one curve per cheater.

COLOURS = {
    "expert-all": (200, 30, 30),
    "expert-partner": (30, 90, 200),
    "expert-left": (30, 150, 60),
    "strong-all": (230, 140, 20),
    "strong-partner": (140, 60, 170),
}


def write_png(path: Path, curves: dict[str, list[tuple[float, float]]], size: int = 480) -> None:
    """The ROC chart: x the false-positive rate (0-1, grid every 0.1, the 1 % line dashed),
    y the detection rate; black the chance diagonal, a colour per cheater (COLOURS)."""
    margin = 30
    width = height = size
    pixels = [[(255, 255, 255)] * width for _ in range(height)]
    inner = size - 2 * margin

    def put(x: float, y: float, colour: tuple[int, int, int], thick: int = 1) -> None:
        px = margin + round(x * inner)
        py = height - margin - round(y * inner)
        for dx in range(-thick + 1, thick):
            for dy in range(-thick + 1, thick):
                if 0 <= px + dx < width and 0 <= py + dy < height:
                    pixels[py + dy][px + dx] = colour

    def line(
        a: tuple[float, float],
        b: tuple[float, float],
        colour: tuple[int, int, int],
        thick: int = 1,
        dash: int = 0,
    ) -> None:
        steps = max(2, int(max(abs(a[0] - b[0]), abs(a[1] - b[1])) * inner * 2))
        for i in range(steps + 1):
            if dash and (i // dash) % 2:
                continue
            t = i / steps
            put(a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, colour, thick)

    for i in range(11):
        v = i / 10
        line((v, 0), (v, 1), (225, 225, 225))
        line((0, v), (1, v), (225, 225, 225))
    line((0.01, 0), (0.01, 1), (120, 120, 120), dash=4)
    line((0, 0), (1, 0), (0, 0, 0), 2)
    line((0, 0), (0, 1), (0, 0, 0), 2)
    line((0, 0), (1, 1), (0, 0, 0), dash=6)
    for name, points in curves.items():
        for a, b in itertools.pairwise(points):
            # A step curve: across at the lower rate, then up.
            line(a, (b[0], a[1]), COLOURS[name], 2)
            line((b[0], a[1]), b, COLOURS[name], 2)
    raw = b"".join(b"\x00" + bytes(c for px in row for c in px) for row in pixels)

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
    png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    path.write_bytes(png)


def report(
    pool: Path, set_sizes: Sequence[int], sets: int, chart: Path | None, loops: float
) -> None:
    """Calibrate on the honest pools and measure the detection power on the cheaters'."""
    entries = [json.loads(line) for line in pool.read_text().splitlines()]
    pools: dict[str, list[Tally]] = {k: [] for k in TYPES}
    cpu: list[float] = []
    for entry in entries:
        pools[entry["kind"]].append(tally_from(entry))
        cpu.append(entry["cpu"])
    print("\npool (matches per type; seat 0 measured):")
    for kind in TYPES:
        tallies = pools[kind]
        decisions = sum(t.decisions for t in tallies)
        loss = sum(t.fair_loss for t in tallies) / decisions if decisions else 0.0
        rates = []
        for knowledge in PEEKS:
            telling = sum(t.counts[knowledge].telling for t in tallies)
            hits = sum(t.counts[knowledge].hits for t in tallies)
            rates.append(f"{knowledge.value} {hits}/{telling}")
        print(
            f"  {kind:15} {len(tallies):4} matches, {decisions:5} decisions, "
            f"fair loss {loss:.2f}/decision; hits/telling: {', '.join(rates)}"
        )
    rates = base_rates(pools)
    print(
        "\nnull (honest BASIC/STRONG/EXPERT pooled): "
        + ", ".join(f"{k.value} {v:.3f}" for k, v in rates.items())
    )
    mean_cpu = sum(cpu) / len(cpu) if cpu else 0.0
    print(
        f"CPU per match analysed (seat 0): {mean_cpu:.2f} s = "
        f"{mean_cpu * loops / 1e6:.2f} M calibration loops ({loops:,.0f} loops/s); "
        f"all four seats: about 4x"
    )
    rng = random.Random(2026)
    results: dict[int, dict[str, dict[Hypothesis, list[float]]]] = {}
    for size in set_sizes:
        results[size] = {}
        flagged_ok: dict[str, dict[Hypothesis, list[bool]]] = {}
        for kind in TYPES:
            if not pools[kind]:
                continue
            drawn = draw_sets(pools[kind], size, sets, rng)
            results[size][kind] = {}
            flagged_ok[kind] = {}
            for hypothesis in Hypothesis:
                scores = [score(t, hypothesis, base_rates=rates) for t in drawn]
                results[size][kind][hypothesis] = [
                    s.z if s.enough else float("-inf") for s in scores
                ]
        smallest = min(len(p) for p in pools.values() if p)
        twice = "; a match may count twice" if size > smallest else ""
        print(
            f"\nsets of {size} matches ({sets} per type, drawn with replacement from the pools"
            f"{twice}):"
        )
        thresholds = {}
        for hypothesis in Hypothesis:
            per_level = [
                percentile(results[size][k][hypothesis], 0.99) for k in HONEST if k in results[size]
            ]
            finite = [v for v in per_level if v != float("-inf")]
            thresholds[hypothesis] = max(finite) + 1e-9 if finite else 0.0
        print(
            "  threshold (z) for <= 1 % flagged on every honest level: "
            + ", ".join(f"{h.value} {t:.2f}" for h, t in thresholds.items())
        )
        for kind in TYPES:
            if kind not in results[size]:
                continue
            shares = []
            for hypothesis in Hypothesis:
                zs = results[size][kind][hypothesis]
                share = sum(1 for z in zs if z >= thresholds[hypothesis]) / len(zs)
                mean = [z for z in zs if z != float("-inf")]
                shown = f"{sum(mean) / len(mean):5.2f}" if mean else "  -  "
                shares.append(f"{hypothesis.value} {100 * share:5.1f} % (mean z {shown})")
            own = f" [own: {CHEATERS[kind][2].value}]" if kind in CHEATERS else ""
            print(f"  {kind:15} flagged: {'; '.join(shares)}{own}")
    if chart is not None and 10 in results:
        curves = {}
        for kind, (_, _, hypothesis) in CHEATERS.items():
            if kind not in results[10]:
                continue
            honest = [z for k in NULL if k in results[10] for z in results[10][k][hypothesis]]
            curves[kind] = roc(honest, results[10][kind][hypothesis])
            at_one = max(t for f, t in curves[kind] if f <= 0.01)
            print(f"  ROC (10 matches) {kind}: detection {100 * at_one:.1f} % at <= 1 % FPR")
        write_png(chart, curves)
        print(f"ROC chart: {chart}")
    print(f"(at least {MIN_DECISIONS} telling decisions for a verdict; fewer count as not flagged)")


def main() -> None:
    """Fill the pool, then report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20, help="pool size per bot type")
    parser.add_argument("--expert-matches", type=int, default=8, help="pool of honest EXPERT")
    parser.add_argument("--sets", type=int, default=400)
    parser.add_argument("--set-size", type=int, nargs="+", default=[3, 10, 30])
    parser.add_argument("--pool", type=Path, default=ROOT / "bench" / "fairplay_pool.jsonl")
    parser.add_argument("--minutes", type=float, default=0.0, help="stop filling after this")
    parser.add_argument("--report-only", action="store_true")
    parser.add_argument("--chart", type=Path, default=ROOT / "docs" / "images" / "fairplay_roc.png")
    args = parser.parse_args()
    loops = calibration_loops(2.0)
    print(f"calibration {loops:,.0f} loops/s")
    if not args.report_only:
        wanted = dict.fromkeys(TYPES, args.matches)
        wanted["expert"] = args.expert_matches
        stop_at = time.time() + args.minutes * 60 if args.minutes else float("inf")
        fill(args.pool, wanted, stop_at)
    report(args.pool, args.set_size, args.sets, args.chart, loops)


if __name__ == "__main__":
    main()
