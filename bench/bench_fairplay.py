"""Fair-play analysis: calibration on honest bots, detection power on cheating bots, ROC chart.

    .venv/bin/python bench/bench_fairplay.py [--matches 40] [--honest-matches N]
                                             [--expert-matches N] [--want KIND=N ...]
                                             [--minutes M] [--first-seed 1]
                                             [--sets 4000] [--set-size 3 10 30]
                                             [--pool bench/fairplay_pool.jsonl] [--report-only]
                                             [--min-decisions N] [--min-gain-decisions N]
                                             [--chart docs/images/fairplay_roc.png]
                                             [--validation bench/fairplay_validation.jsonl]
                                             [--part-time] [--power]

A pool of seeded matches is played and analysed once per bot type
(:mod:`baloot_engine.analysis.fairplay`, its default worlds): the honest levels RANDOM, BASIC,
STRONG and EXPERT (every seat at that level, and every seat analysed: an honest match gives
four entries), and the cheaters of ``bench/fairplay_bots.py`` in seat 0, the other seats honest
STRONG (seat 0 analysed): the solver's player peeking at every hand, at its partner's, at its
left opponent's (``expert-*``), and STRONG's search peeking at every hand or its partner's
(``strong-*``); and partners who tell each other their hands, seats 0 and 2 both peeking at the
other's (``expert-pair``, ``strong-pair``, both seats analysed). Each entry keeps every card
decision's figures — the index of the card played and the value vector of each state of
knowledge, rounded to 3 decimals — and the CPU seconds of its analysis, so that any statistic
can be recomputed from the pool file alone; entries go to the file as they are made (a run that
stops keeps what it did; the next run adds to it; ``--report-only`` reads it alone).
``--power`` prints what any weighing of the gains could add: each cheater's signal per decision
on its own knowledge, the best weighted sum of the four knowledges' gains (in sample, and fitted
on one half of the seeds then scored on the other) and decisions weighted by their fair values'
range (:func:`report_power`).
``--matches`` is the entries wanted per type (``--honest-matches``, ``--expert-matches`` and
``--want kind=N`` override it per type), played round robin until ``--minutes`` run out,
from seed ``--first-seed`` on.

``bench/fairplay_validation.jsonl`` holds honest matches that no calibration has seen (seeds 75
to 94 of BASIC, STRONG and EXPERT, made with ``--pool bench/fairplay_validation.jsonl
--first-seed 75 --matches 0 --want basic=80 --want strong=80 --want expert=80``), and play
the calibration never sees (:data:`HELD_OUT`): 124 matches of an EXPERT that reads the calls
and the play (``reading``, :data:`READING`: seeds 1 to 94 and 101 to 130, ``--first-seed 1
--want reading=376`` then ``--first-seed 101 --want reading=496``) and honest STRONG and
EXPERT under the KAMMELNA rules (``--want strong-kammelna=160 --want expert-kammelna=120``,
seeds 1 to 40 and 1 to 30); the test suite scores them at the shipped constants, and the
report prints their figures at the end (``--validation``). Never calibrate on it: add new
matches to the pool instead, and new held-out ones from a seed above both.

Partnerships are scored too: both seats of one team of one match, their counts added (two per
honest match, one per colluding pair's); their thresholds are calibrated on honest
partnerships as the seats' are on honest seats, and the colluding pairs' partnership sets
flagged at them are the detection power for collusion.

Sets of ``--set-size`` entries (matches of one player) are then drawn from each pool with
replacement (``--sets`` per type and size): the sets overlap, and with a pool smaller than the
set an entry may count twice, which the output says. Three scores are compared per
hypothesis: the hits' z-score alone (the statistic before the hindsight gain), the larger of
the hits' z-score and the gain score (the score until 3 December 2026) and the shipped one,
their weighted sum (``combined_score``). The nulls are the highest hit rate of an honest level
and the lowest line in the mean fair loss on or above every honest level's mean hindsight gain
(:func:`gain_nulls`); the threshold of each score, hypothesis and set
size is the smallest that flags at most 1 % of the sets of every honest level, among the sets
that get a verdict (RANDOM's, whose cards lose more than ``MAX_FAIR_LOSS`` a decision, get
none); the cheaters' sets flagged at it are the detection power. The ROC chart (sets of ten
matches, the shipped score; false-positive rate on the honest players' sets, on a log
scale, against detection) is a PNG written without a plotting library. CPU per match analysed
is also given in calibration loops (``bench_rules.calibration_loops``), for a machine that is
shared.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import math
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
    MIN_GAIN_DECISIONS,
    PARTNERSHIP_THRESHOLDS,
    PEEKS,
    THRESHOLDS,
    BaseRate,
    Count,
    DecisionFigures,
    GainNull,
    Hypothesis,
    Knowledge,
    Tally,
    bounded_gain,
    cross_fitted_gain,
    fair_of,
    gain_z,
    record_figures,
    score,
    tally_of,
)
from baloot_engine.analysis.selfplay import play_record
from baloot_engine.bots import Level
from baloot_engine.bots.expert import ExpertBudget
from baloot_engine.rules.ruleset import KAMMELNA

ROOT = Path(__file__).resolve().parents[1]
HONEST = ("random", "basic", "strong", "expert")
NULL = ("basic", "strong", "expert")
"""The honest levels that get a verdict (RANDOM's play is no better than chance): the ROC's
honest sets, and the levels whose standard errors the nulls carry."""
READING = ExpertBudget(weighted_sampling=True, agree=0.4)
"""An honest player who reads the table as people do: EXPERT whose card play's worlds are
fitted to the calls (a buyer holds his trumps) and weighed by a model of the other seats' play
(a seat that ducked probably had no cheap winner). Its choices lean toward the real layout as
far as the calls and the play reveal it, further than the analysis' fair worlds (dealt alike
among the hands the play allows) do, so its cards may gain a little from the hidden hands
without anyone seeing them."""
HELD_OUT = ("reading", "strong-kammelna", "expert-kammelna")
"""Honest players the calibration never sees, played only into the validation pool to check
that the thresholds hold for play they were not set on: :data:`READING`, and honest STRONG and
EXPERT under the KAMMELNA rule set (the calibration's matches are all SEEDS; KAMMELNA lets a
seat whose partner is winning the trick discard freely, never asks it to overtrump its
partner, and scores otherwise)."""
CHEATERS = {
    "expert-all": (Level.EXPERT, "all", Hypothesis.ALL),
    "expert-partner": (Level.EXPERT, "partner", Hypothesis.PARTNER),
    "expert-left": (Level.EXPERT, "left", Hypothesis.OPPONENT),
    "strong-all": (Level.STRONG, "all", Hypothesis.ALL),
    "strong-partner": (Level.STRONG, "partner", Hypothesis.PARTNER),
}
PAIRS = {"expert-pair": Level.EXPERT, "strong-pair": Level.STRONG}
"""Partners who tell each other their hands: seats 0 and 2 both peek at the partner's hand
(seats 1 and 3 honest STRONG); both are analysed, and scored one by one and as a partnership."""
TYPES = (*HONEST, *CHEATERS, *PAIRS, *HELD_OUT)
OWN = {kind: hypothesis for kind, (_, _, hypothesis) in CHEATERS.items()} | dict.fromkeys(
    PAIRS, Hypothesis.PARTNER
)
"""Each cheating type's own hypothesis."""


def play(kind: str, seed: int) -> tuple[object, list[object]]:
    """A seeded match of bot type ``kind`` (its seats: :func:`measured_seats`)."""
    if kind == "reading":
        return play_record([Level.EXPERT] * 4, seed, expert=READING)  # type: ignore[return-value]
    if kind.endswith("-kammelna"):
        level = Level(kind.removesuffix("-kammelna"))
        return play_record([level] * 4, seed, rules=KAMMELNA)  # type: ignore[return-value]
    if kind in HONEST:
        level = Level(kind)
        return play_cheat_record([level] * 4, ["none"] * 4, seed)  # type: ignore[return-value]
    if kind in PAIRS:
        level = PAIRS[kind]
        levels = [level, Level.STRONG, level, Level.STRONG]
        peeks = ["partner", "none", "partner", "none"]
        return play_cheat_record(levels, peeks, seed)  # type: ignore[return-value]
    level, peek, _ = CHEATERS[kind]
    levels = [level, Level.STRONG, Level.STRONG, Level.STRONG]
    return play_cheat_record(levels, [peek, "none", "none", "none"], seed)  # type: ignore[return-value]


def measured_seats(kind: str) -> tuple[int, ...]:
    """The seats analysed in a match of ``kind``: every seat of an honest match, both
    partners of a colluding pair, seat 0 of a lone cheater."""
    if kind in HONEST or kind in HELD_OUT:
        return (0, 1, 2, 3)
    return (0, 2) if kind in PAIRS else (0,)


FIGURE_ORDER = ("fair", "fair/2", *(k.value for k in PEEKS))
"""The order of the value vectors in a pool entry's decisions: the two fair samples (their mean
is the fair values), then each peeking state of knowledge."""


def measure(kind: str, seed: int) -> list[dict[str, object]]:
    """Play one match and analyse its measured seats: every seat of an honest match (four
    honest players of that level), seats 0 and 2 of a colluding pair's, seat 0 of a lone
    cheater's; each seat's decisions and CPU.

    A decision is stored as ``[taken, fair, fair/2, all, partner, left, right]``: the index
    of the card played among the legal cards, the value vectors of the two fair samples and
    of each peeking state of knowledge
    (:data:`FIGURE_ORDER`), rounded to 3 decimals, so that any statistic can be recomputed
    from the pool."""
    start, rounds = play(kind, seed)
    entries: list[dict[str, object]] = []
    for seat in measured_seats(kind):
        began = time.process_time()
        figures = [
            f
            for f in record_figures(start, rounds, seats=(seat,), seed=seed)  # type: ignore[arg-type]
            if isinstance(f, DecisionFigures)
        ]
        cpu = time.process_time() - began
        entries.append(
            {
                "kind": kind,
                "seed": seed,
                "seat": seat,
                "rounds": len(rounds),
                "cpu": round(cpu, 3),
                "figures": [[f.taken, *_vectors(f)] for f in figures],
            }
        )
    return entries


def _vectors(found: DecisionFigures) -> list[list[float]]:
    """A decision's value vectors in :data:`FIGURE_ORDER`, rounded to 3 decimals."""
    assert found.fair_samples is not None
    vectors = [*found.fair_samples, *(found.values[k] for k in PEEKS)]
    return [[round(v, 3) for v in vector] for vector in vectors]


def figures_from(entry: dict[str, object]) -> list[DecisionFigures]:
    """A pool entry's decisions (its seat's, in the order played)."""
    seat = int(entry["seat"])  # type: ignore[call-overload]
    found = []
    for index, (taken, *vectors) in enumerate(entry["figures"]):  # type: ignore[attr-defined]
        named = {
            name: tuple(float(v) for v in vector)
            for name, vector in zip(FIGURE_ORDER, vectors, strict=True)
        }
        first, second = named.pop("fair"), named.pop("fair/2")
        values = {Knowledge(name): vector for name, vector in named.items()}
        values[Knowledge.FAIR] = fair_of(first, second)
        found.append(DecisionFigures(0, index, seat, int(taken), values, (first, second)))
    return found


def tally_from(entry: dict[str, object]) -> Tally:
    """A pool entry's tally."""
    seat = int(entry["seat"])  # type: ignore[call-overload]
    return tally_of(figures_from(entry), (seat,))[seat]


def tallied_from(path: Path) -> list[tuple[dict[str, object], Tally]]:
    """A pool file's entries, each with its tally."""
    return [
        (entry, tally_from(entry))
        for entry in (json.loads(line) for line in path.read_text().splitlines())
    ]


def fill(pool: Path, wanted: dict[str, int], stop_at: float, first_seed: int = 1) -> None:
    """Add matches to the pool, round robin over the types, until every type has ``wanted``
    entries (an entry is one seat of one match) or the time is up; each type's next match is
    the smallest seed from ``first_seed`` on that its entries do not have."""
    seeds: dict[str, set[int]] = {k: set() for k in TYPES}
    have: dict[str, int] = dict.fromkeys(TYPES, 0)
    if pool.exists():
        for line in pool.read_text().splitlines():
            entry = json.loads(line)
            seeds[entry["kind"]].add(entry["seed"])
            have[entry["kind"]] += 1
    while time.time() < stop_at:
        missing = [k for k in TYPES if have[k] < wanted[k]]
        if not missing:
            return
        for kind in missing:
            if time.time() >= stop_at:
                return
            seed = next(s for s in range(first_seed, 10**6) if s not in seeds[kind])
            entries = measure(kind, seed)
            seeds[kind].add(seed)
            have[kind] += len(entries)
            with pool.open("a") as out:
                out.writelines(json.dumps(entry, separators=(",", ":")) + "\n" for entry in entries)
            done = sum(have.values())
            total = sum(max(wanted[k], have[k]) for k in TYPES)
            cpu = sum(float(e["cpu"]) for e in entries)  # type: ignore[arg-type]
            print(
                f"  [{done}/{total}] {kind} seed {seed}: {entries[0]['rounds']} rounds, "
                f"{len(entries)} seat(s) analysed in {cpu:.1f} s CPU",
                flush=True,
            )


def ratio(
    tallies: Sequence[Tally], knowledge: Knowledge, part: str, whole: str
) -> tuple[float, float]:
    """A pool's ratio of two of its counts' fields (``part`` over ``whole``: hits over telling
    decisions, gains over decisions) for one state of knowledge, the left and right opponents
    one (the seats are alike, their counts added), and its standard error, each entry a cluster
    of decisions."""
    pair = (
        (Knowledge.LEFT, Knowledge.RIGHT)
        if knowledge in (Knowledge.LEFT, Knowledge.RIGHT)
        else (knowledge,)
    )
    tops = [sum(getattr(t.counts[k], part) for k in pair) for t in tallies]
    bottoms = [sum(getattr(t.counts[k], whole) for k in pair) for t in tallies]
    n = sum(bottoms)
    if not n:
        return 0.0, 0.0
    value = sum(tops) / n
    spread = math.sqrt(sum((a - value * b) ** 2 for a, b in zip(tops, bottoms, strict=True)))
    return value, spread / n


def _error(errors: Sequence[float]) -> float:
    """The largest of ``errors``, rounded up to 3 decimals."""
    return math.ceil(max(errors, default=0.0) * 1000 - 1e-9) / 1000


def base_rates(pools: dict[str, list[Tally]]) -> dict[Knowledge, BaseRate]:
    """The null: per state of knowledge, the highest hit rate of an honest level (so that no
    honest level's z-score drifts up as its sets grow), and the largest standard error of the
    levels that get a verdict (:data:`NULL`), rounded up to 3 decimals (:func:`ratio`)."""
    rates: dict[Knowledge, list[float]] = {k: [] for k in PEEKS}
    errors: dict[Knowledge, list[float]] = {k: [] for k in PEEKS}
    for kind in HONEST:
        tallies = pools.get(kind)
        if not tallies:
            continue
        for knowledge in PEEKS:
            rate, error = ratio(tallies, knowledge, "hits", "telling")
            rates[knowledge].append(rate)
            if kind in NULL:
                errors[knowledge].append(error)
    return {k: BaseRate(round(max(rates[k]), 3), _error(errors[k])) for k in PEEKS}


def gain_nulls(pools: dict[str, list[Tally]]) -> dict[Knowledge, GainNull]:
    """The null of the gain scores: per state of knowledge, the line ``a + b L`` in the mean
    fair loss ``L`` (``analysis.fairplay.gain_null``) that lies on or above every honest
    level's mean hindsight gain per decision: the lowest such line with ``b >= 0``, through
    the level that plays worst (:func:`envelope`); and its standard error, the largest of the
    means' of the levels that get a verdict (:data:`NULL`), rounded up to 3 decimals
    (:func:`ratio`). RANDOM's does not count: its point sets the line's slope, but at the fair
    losses that get a verdict the line rests on the purposeful levels' means."""
    points: dict[Knowledge, list[tuple[float, float]]] = {k: [] for k in PEEKS}
    errors: dict[Knowledge, list[float]] = {k: [] for k in PEEKS}
    for kind in HONEST:
        tallies = pools.get(kind)
        if not tallies:
            continue
        decisions = sum(t.decisions for t in tallies)
        loss = sum(t.fair_loss for t in tallies) / decisions if decisions else 0.0
        for knowledge in PEEKS:
            mean, error = ratio(tallies, knowledge, "gain_sum", "gain_decisions")
            points[knowledge].append((loss, mean))
            if kind in NULL:
                errors[knowledge].append(error)
    return {k: GainNull(*envelope(points[k]), _error(errors[k])) for k in PEEKS}


def envelope(points: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """The line ``(a, b)``, ``a + b x`` on or above every point ``(x, y)``: through the point
    of the largest ``x``, with the steepest slope ``b >= 0`` that keeps every other point on
    or below it (the lowest such line at the smaller ``x``), 0 when none is; ``b`` rounded
    down and ``a`` up to 4 decimals, so that it stays above them."""
    anchor_x, anchor_y = max(points)
    slopes = [(anchor_y - y) / (anchor_x - x) for x, y in points if x < anchor_x]
    slope = math.floor(max(0.0, min(slopes, default=0.0)) * 1e4) / 1e4
    intercept = max(y - slope * x for x, y in points)
    return math.ceil(intercept * 1e4 - 1e-9) / 1e4, slope


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
    "expert-pair": (0, 150, 150),
    "strong-pair": (150, 100, 30),
}


_DIGITS = {
    "0": ("111", "101", "101", "101", "111"),
    "1": ("010", "110", "010", "010", "111"),
    "2": ("111", "001", "111", "100", "111"),
    "5": ("111", "100", "111", "001", "111"),
    ".": ("000", "000", "000", "000", "010"),
}
"""A 3x5 pixel font for the tick labels."""
LOG_FLOOR = 0.001
"""The left end of the false-positive axis (log scale); a rate of 0 is drawn there."""


def _x_of(fpr: float) -> float:
    """A false-positive rate's place on the log axis, 0-1."""
    return (math.log10(max(fpr, LOG_FLOOR)) - math.log10(LOG_FLOOR)) / -math.log10(LOG_FLOOR)


def write_png(path: Path, curves: dict[str, list[tuple[float, float]]], size: int = 480) -> None:
    """The ROC chart: x the false-positive rate on a log scale from 0.001 to 1 (grid at 1, 2
    and 5 of each decade, the 1 % line darker), y the detection rate (grid every 0.1); the
    dashed line is chance; one colour per cheater (COLOURS)."""
    margin = 40
    width = height = size
    pixels = [[(255, 255, 255)] * width for _ in range(height)]
    inner = size - 2 * margin

    def put_px(px: int, py: int, colour: tuple[int, int, int]) -> None:
        if 0 <= px < width and 0 <= py < height:
            pixels[py][px] = colour

    def put(x: float, y: float, colour: tuple[int, int, int], thick: int = 1) -> None:
        px = margin + round(x * inner)
        py = height - margin - round(y * inner)
        for dx in range(-thick + 1, thick):
            for dy in range(-thick + 1, thick):
                put_px(px + dx, py + dy, colour)

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

    def text(label: str, px: int, py: int) -> None:
        """``label`` at twice the font's size, its top left at (px, py)."""
        for char in label:
            for row, bits in enumerate(_DIGITS[char]):
                for col, bit in enumerate(bits):
                    if bit == "1":
                        for dx in (0, 1):
                            for dy in (0, 1):
                                put_px(px + 2 * col + dx, py + 2 * row + dy, (0, 0, 0))
            px += 8

    grey = (225, 225, 225)
    for decade in (0.001, 0.01, 0.1):
        for step in (1, 2, 5):
            x = _x_of(decade * step)
            line((x, 0), (x, 1), grey)
    for i in range(11):
        line((0, i / 10), (1, i / 10), grey)
    line((_x_of(0.01), 0), (_x_of(0.01), 1), (110, 110, 110), dash=4)
    line((0, 0), (1, 0), (0, 0, 0), 2)
    line((0, 0), (0, 1), (0, 0, 0), 2)
    diagonal = [(f, f) for f in (LOG_FLOOR * 10 ** (i / 20) for i in range(61))]
    for a, b in itertools.pairwise(diagonal):
        line((_x_of(a[0]), a[1]), (_x_of(b[0]), b[1]), (0, 0, 0), dash=3)
    for label, fpr in (("0.001", 0.001), ("0.01", 0.01), ("0.1", 0.1), ("1", 1.0)):
        px = margin + round(_x_of(fpr) * inner) - 4 * len(label)
        text(label, px, height - margin + 8)
    for label, rate in (("0", 0.0), ("0.5", 0.5), ("1", 1.0)):
        text(label, margin - 8 - 8 * len(label), height - margin - round(rate * inner) - 5)
    for name, points in curves.items():
        for a, b in itertools.pairwise(points):
            # A step curve: across at the lower detection rate, then up.
            line((_x_of(a[0]), a[1]), (_x_of(b[0]), a[1]), COLOURS[name], 2)
            line((_x_of(b[0]), a[1]), (_x_of(b[0]), b[1]), COLOURS[name], 2)
    raw = b"".join(b"\x00" + bytes(c for px in row for c in px) for row in pixels)

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
    png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    path.write_bytes(png)


SCORES = ("hits", "larger", "combined")
"""The scores compared: the hits' z-score alone (the statistic before the hindsight gain), the
larger of the hits' z-score and the gain score (the score until 3 December 2026), and the
shipped one, their weighted sum (``combined_score``)."""


def _zs(
    sets: Sequence[Tally],
    hypothesis: Hypothesis,
    rates: dict[Knowledge, BaseRate],
    nulls: dict[Knowledge, GainNull],
    least: tuple[int, int],
    which: str,
) -> list[float]:
    """Each set's score for a hypothesis (minus infinity: too few decisions for a verdict):
    ``which`` is "hits" (the hits' z-score alone), "larger" (the larger of the hits' z-score
    and the gain score, each on enough decisions) or "combined" (the shipped score)."""

    def one(tally: Tally, hits: int, gains: int) -> float:
        result = score(
            tally,
            hypothesis,
            base_rates=rates,
            gain_nulls=nulls,
            min_decisions=hits,
            min_gain_decisions=gains,
        )
        return result.combined if result.enough else float("-inf")

    never = 2**62
    found = []
    for tally in sets:
        if which == "hits":
            found.append(one(tally, least[0], never))
        elif which == "larger":
            found.append(max(one(tally, least[0], never), one(tally, never, least[1])))
        else:
            found.append(one(tally, least[0], least[1]))
    return found


def _threshold(zs_per_level: Sequence[Sequence[float]]) -> float:
    """The smallest threshold (to 2 decimals) that flags at most 1 % of every honest level's
    sets: just above the highest level's 99th percentile (a set at the percentile itself is
    not flagged, nor are its ties)."""
    tops = [percentile(zs, 0.99) for zs in zs_per_level]
    finite = [t for t in tops if t != float("-inf")]
    return (math.floor(max(finite) * 100 + 1e-9) + 1) / 100 if finite else 0.0


def _share(found: Sequence[float], threshold: float) -> float:
    return sum(1 for z in found if z >= threshold) / len(found)


def partnerships(tallied: Sequence[tuple[dict[str, object], Tally]]) -> dict[str, list[Tally]]:
    """The partnerships of the pool: both seats of one team in one match, their tallies added
    (honest matches give two, a colluding pair's match one; a lone cheater's partner is not
    analysed)."""
    teams: dict[tuple[str, int, int], list[Tally]] = {}
    for entry, tally in tallied:
        kind = str(entry["kind"])
        if kind in HONEST or kind in PAIRS or kind in HELD_OUT:
            key = (kind, int(entry["seed"]), int(entry["seat"]) & 1)  # type: ignore[call-overload]
            teams.setdefault(key, []).append(tally)
    found: dict[str, list[Tally]] = {k: [] for k in (*HONEST, *PAIRS, *HELD_OUT)}
    for (kind, _, _), pair in sorted(teams.items()):
        if len(pair) == 2:
            total = Tally()
            for tally in pair:
                total.add(tally)
            found[kind].append(total)
    return found


def report_partnerships(
    teams: dict[str, list[Tally]],
    set_sizes: Sequence[int],
    sets: int,
    rates: dict[Knowledge, BaseRate],
    nulls: dict[Knowledge, GainNull],
    least: tuple[int, int],
) -> tuple[dict[int, dict[str, dict[Hypothesis, list[float]]]], dict[int, dict[Hypothesis, float]]]:
    """Calibrate the partnerships' thresholds on honest partnerships and measure how many of
    the colluding pairs' sets they flag; the scores and thresholds per set size."""
    print("\npartnerships (the two seats of a team in one match, their counts added):")
    for kind, found in teams.items():
        if not found:
            continue
        total = Count()
        for tally in found:
            total.add(tally.counts[Knowledge.PARTNER])
        decisions = sum(t.decisions for t in found)
        print(
            f"  {kind:15} {len(found):4} partnerships {decisions:5} decisions, partner's hand: "
            f"hits {total.hits}/{total.telling}, mean gain {total.gain_mean:+.4f}"
        )
    rng = random.Random(2027)
    zs: dict[int, dict[str, dict[Hypothesis, list[float]]]] = {}
    thresholds: dict[int, dict[Hypothesis, float]] = {}
    for size in set_sizes:
        zs[size] = {}
        for kind, found in teams.items():
            if found:
                drawn = draw_sets(found, size, sets, rng)
                zs[size][kind] = {
                    h: _zs(drawn, h, rates, nulls, least, "combined") for h in Hypothesis
                }
        thresholds[size] = {
            h: _threshold([zs[size][k][h] for k in HONEST if k in zs[size]]) for h in Hypothesis
        }
    shipped = thresholds[10 if 10 in thresholds else set_sizes[0]]
    for size in set_sizes:
        print(
            f"  sets of {size} matches of one partnership: threshold for <= 1 % of every honest "
            "level's sets: "
            + ", ".join(f"{h.value} >= {thresholds[size][h]:.2f}" for h in Hypothesis)
        )
        for kind in teams:
            if kind not in zs[size]:
                continue
            cells = [
                f"{h.value} {100 * _share(zs[size][kind][h], thresholds[size][h]):5.1f} % "
                f"({100 * _share(zs[size][kind][h], shipped[h]):5.1f} %)"
                for h in Hypothesis
            ]
            own = "  [own: partner]" if kind in PAIRS else ""
            print(f"    {kind:15} flagged: {'; '.join(cells)}{own}")
    print(
        "  (flagged: at that size's partnership threshold (at the ten-match one); the "
        "thresholds above flag at most 1 % of every honest level's partnership sets)"
    )
    return zs, thresholds


PART_TIME = (
    ("expert-all", "expert", Hypothesis.ALL),
    ("expert-all", "strong", Hypothesis.ALL),
    ("expert-partner", "expert", Hypothesis.PARTNER),
)
"""The part-time peekers estimated: (the peeker whose decisions are drawn, the honest level
whose decisions fill the rest, the hypothesis scored)."""
PART_TIME_SHARES = (0.1, 0.2, 0.3, 0.5)
"""The shares of a part-time peeker's decisions made while peeking."""


def report_part_time(pool: Path, set_sizes: Sequence[int], sets: int) -> None:
    """Estimate how often a player who peeks on only part of his decisions is flagged, at the
    shipped constants: each decision of a set is drawn from a peeker's pool with the given
    chance and from an honest level's otherwise (a set holds as many decisions as that many of
    the peeker's matches do on average). Decisions are drawn one by one, across matches, so
    the sets are a little less varied than real matches make them: an estimate, not a pool."""
    wanted = {kind for row in PART_TIME for kind in row[:2]}
    figures: dict[str, list[DecisionFigures]] = {}
    matches: dict[str, int] = {}
    for line in pool.read_text().splitlines():
        entry = json.loads(line)
        kind = str(entry["kind"])
        if kind not in wanted:
            continue
        found = [dataclasses.replace(f, seat=0) for f in figures_from(entry)]
        figures.setdefault(kind, []).extend(found)
        matches[kind] = matches.get(kind, 0) + 1
    rng = random.Random(1001)
    print(
        "\npart-time peekers (each decision peeking with the given chance, honest otherwise), "
        "flagged at the shipped constants:"
    )
    for cheat, honest, hypothesis in PART_TIME:
        if not figures.get(cheat) or not figures.get(honest):
            continue
        per_match = len(figures[cheat]) / matches[cheat]
        cells = []
        for share in PART_TIME_SHARES:
            found = []
            for size in set_sizes:
                count = round(per_match * size)
                flagged = 0
                for _ in range(sets):
                    drawn = [
                        rng.choice(figures[cheat] if rng.random() < share else figures[honest])
                        for _ in range(count)
                    ]
                    flagged += score(tally_of(drawn, (0,))[0], hypothesis).flagged
                found.append(f"{100 * flagged / sets:.1f}")
            cells.append(f"{share:.0%}: " + " / ".join(found))
        sizes = " / ".join(str(size) for size in set_sizes)
        print(
            f"  {cheat} over {honest} ({hypothesis.value}), {sizes} matches: {'; '.join(cells)} %"
        )


def report_held_out(path: Path, set_sizes: Sequence[int], sets: int) -> None:
    """Score matches no calibration saw (the validation pool) at the shipped constants: per
    player type, its mean fair loss and gains, and the share of its sets of each size flagged
    on each hypothesis, seat by seat and as partnerships."""
    tallied = tallied_from(path)
    seats: dict[str, list[Tally]] = {}
    for entry, tally in tallied:
        seats.setdefault(str(entry["kind"]), []).append(tally)
    teams = partnerships(tallied)
    print(f"\nheld out ({path.name}, never calibrated on), at the shipped constants:")
    rng = random.Random(75)
    for kind, found in seats.items():
        total = Tally()
        for tally in found:
            total.add(tally)
        gains = ", ".join(f"{k.value} {total.counts[k].gain_mean:+.4f}" for k in PEEKS)
        matches = len({(e["seed"]) for e, _ in tallied if e["kind"] == kind})
        print(
            f"  {kind:15} {matches} matches, {total.decisions} decisions, fair loss "
            f"{total.mean_fair_loss:.2f}; mean gain: {gains}"
        )
        for size in set_sizes:
            cells = []
            for name, pool, thresholds in (
                ("seat", found, THRESHOLDS),
                ("partnership", teams.get(kind, []), PARTNERSHIP_THRESHOLDS),
            ):
                if not pool:
                    continue
                drawn = draw_sets(pool, size, sets, rng)
                shares = [
                    sum(score(t, h, thresholds=thresholds).flagged for t in drawn) / len(drawn)
                    for h in Hypothesis
                ]
                cells.append(f"{name} " + " / ".join(f"{100 * share:.1f}" for share in shares))
            print(f"    sets of {size}: flagged % (all / partner / opponent): {'; '.join(cells)}")


def _mean_spread(values: Sequence[float]) -> str:
    """Percentages' mean, standard deviation and range over the draws, as the report prints
    them."""
    mean = sum(values) / len(values)
    spread = math.sqrt(sum((v - mean) ** 2 for v in values) / max(1, len(values) - 1))
    return (
        f"{100 * mean:5.1f} % ± {100 * spread:4.1f} (range {100 * min(values):5.1f}-"
        f"{100 * max(values):5.1f})"
    )


def report_draws(
    pool: Path, size: int, sets: int, draws: int, least: tuple[int, int], first: int = 3000
) -> None:
    """How much the detection figures of one size owe to the draw of sets: ``draws``
    independent draws (seeds ``first`` on), each calibrating its own thresholds on honest
    sets as the report does, then each cheater's share flagged on its own hypothesis at that
    draw's thresholds and at the shipped ones; seats and partnerships. The pool's matches stay
    the same: this is the spread of the estimate on one pool, not of the pool itself."""
    tallied = tallied_from(pool)
    pools: dict[str, list[Tally]] = {k: [] for k in TYPES}
    for entry, tally in tallied:
        pools[str(entry["kind"])].append(tally)
    if not any(pools[kind] for kind in HONEST):
        return
    rates, nulls = base_rates(pools), gain_nulls(pools)
    teams = partnerships(tallied)
    own: dict[str, list[float]] = {}
    at_shipped: dict[str, list[float]] = {}
    found_thresholds: dict[str, list[float]] = {}
    for draw in range(draws):
        rng = random.Random(first + draw)
        for unit, groups, cheaters, shipped in (
            ("seat", pools, OWN, THRESHOLDS),
            (
                "partnership",
                teams,
                dict.fromkeys(PAIRS, Hypothesis.PARTNER),
                PARTNERSHIP_THRESHOLDS,
            ),
        ):
            zs: dict[str, dict[Hypothesis, list[float]]] = {}
            for kind in (*HONEST, *cheaters):
                if groups.get(kind):
                    drawn = draw_sets(groups[kind], size, sets, rng)
                    zs[kind] = {
                        h: _zs(drawn, h, rates, nulls, least, "combined") for h in Hypothesis
                    }
            thresholds = {h: _threshold([zs[k][h] for k in HONEST if k in zs]) for h in Hypothesis}
            for h in Hypothesis:
                found_thresholds.setdefault(f"{unit} {h.value}", []).append(thresholds[h])
            for kind, hypothesis in cheaters.items():
                if kind in zs:
                    key = f"{kind} ({unit})"
                    own.setdefault(key, []).append(
                        _share(zs[kind][hypothesis], thresholds[hypothesis])
                    )
                    at_shipped.setdefault(key, []).append(
                        _share(zs[kind][hypothesis], shipped[hypothesis])
                    )
    print(
        f"\n{draws} draws of {sets} sets of {size} matches (seeds {first} on), each calibrated "
        "on its own honest sets; flagged on the own hypothesis at that draw's threshold, and at "
        "the shipped one:"
    )
    for key, shares in own.items():
        print(f"  {key:26} {_mean_spread(shares)};  shipped: {_mean_spread(at_shipped[key])}")
    for key, values in found_thresholds.items():
        mean = sum(values) / len(values)
        print(f"  threshold, {key:20} mean {mean:.2f}, range {min(values):.2f}-{max(values):.2f}")


KNOWLEDGE_OF = {Hypothesis.ALL: 0, Hypothesis.PARTNER: 1, Hypothesis.OPPONENT: 2}
"""The index, in :data:`PEEKS`, of the knowledge each hypothesis' gain is read on (for "one
opponent" the left one: the lone cheater peeks at its left)."""


def decision_gains(entry: dict[str, object]) -> tuple[list[list[float]], list[float]]:
    """A pool entry's decisions as the gain score counts them: per decision with a choice, the
    bounded cross-fitted gain on each peeking knowledge (:data:`PEEKS` order), and the range of
    its fair values (best less worst card, card points)."""
    gains, ranges = [], []
    for found in figures_from(entry):
        samples = found.fair_samples
        assert samples is not None
        gains.append(
            [bounded_gain(cross_fitted_gain(found.values[k], samples, found.taken)) for k in PEEKS]
        )
        fair = found.values[Knowledge.FAIR]
        ranges.append(max(fair) - min(fair))
    return gains, ranges


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """``matrix^-1 vector`` by Gaussian elimination with partial pivoting (a small symmetric
    positive definite matrix: a covariance)."""
    size = len(vector)
    rows = [[*matrix[i], vector[i]] for i in range(size)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(rows[r][col]))
        if abs(rows[pivot][col]) < 1e-12:
            raise ValueError("a singular matrix")
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(size):
            if r != col:
                factor = rows[r][col] / rows[col][col]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    return [rows[i][size] / rows[i][i] for i in range(size)]


def _moments(vectors: Sequence[Sequence[float]]) -> tuple[list[float], list[list[float]]]:
    """The mean and the covariance of vectors."""
    n, size = len(vectors), len(vectors[0])
    mean = [sum(v[i] for v in vectors) / n for i in range(size)]
    cov = [
        [sum((v[i] - mean[i]) * (v[j] - mean[j]) for v in vectors) / n for j in range(size)]
        for i in range(size)
    ]
    return mean, cov


def _snr(honest: Sequence[float], cheat: Sequence[float]) -> float:
    """How far a cheater's mean lies from the honest mean, in honest standard deviations of
    one decision: the gain score's drift per root decision (0 when either is empty or honest
    play does not spread)."""
    if not honest or not cheat:
        return 0.0
    mean = sum(honest) / len(honest)
    spread = math.sqrt(sum((h - mean) ** 2 for h in honest) / len(honest))
    return (sum(cheat) / len(cheat) - mean) / spread if spread > 0 else 0.0


def report_power(pool: Path) -> None:
    """What any linear form of the hindsight gains could catch, decision by decision: the
    signal of each cheater on its own knowledge (its mean gain less the honest one, over the
    honest spread of one decision; BASIC, STRONG and EXPERT pooled), the best weighted sum of
    the four knowledges' gains (weights ``cov^-1 (mean gap)``, fitted on the whole pool, and
    fitted on the matches of one parity of seed then scored on the other), and the best
    weighting of decisions by the range of their fair values (five bins, each weighted by its
    own signal over its variance, fitted on the whole pool). At a given number of decisions a
    score's drift from the honest one grows with this signal, so the ratio of a form's signal
    to the own knowledge's (printed) is about how much further it would carry a cheater's
    score: what the shipped score (the own knowledge's gain with the hits) could gain from
    another form, before any calibration."""
    by_kind: dict[str, list[tuple[int, list[list[float]], list[float]]]] = {}
    for line in pool.read_text().splitlines():
        entry = json.loads(line)
        gains, ranges = decision_gains(entry)
        by_kind.setdefault(entry["kind"], []).append((int(entry["seed"]), gains, ranges))

    def rows(kind: str, parity: int | None = None) -> list[tuple[list[float], float]]:
        return [
            (g, r)
            for seed, gains, ranges in by_kind.get(kind, [])
            if parity is None or seed % 2 == parity
            for g, r in zip(gains, ranges, strict=True)
        ]

    honest = [row for kind in NULL for row in rows(kind)]
    if not honest:
        return
    cuts = sorted(r for _, r in honest)
    cuts = [cuts[len(cuts) * q // 5] for q in range(1, 5)]

    def bin_of(spread: float) -> int:
        return sum(spread >= cut for cut in cuts)

    print(
        "\nsignal per decision (mean bounded gain less the honest one, in honest standard "
        "deviations of one decision), and each form's ratio to the own knowledge's:"
    )
    for kind, hypothesis in OWN.items():
        cheat = rows(kind)
        if not cheat:
            continue
        k = KNOWLEDGE_OF[hypothesis]
        per_match = len(cheat) / len(by_kind[kind])
        own = _snr([g[k] for g, _ in honest], [g[k] for g, _ in cheat])
        mean_h, cov = _moments([g for g, _ in honest])
        mean_c = [sum(g[i] for g, _ in cheat) / len(cheat) for i in range(len(PEEKS))]
        gap = [c - h for c, h in zip(mean_c, mean_h, strict=True)]
        try:
            weights = _solve(cov, gap)
        except ValueError:
            continue  # honest gains that do not vary: too few decisions to say anything
        best = math.sqrt(max(0.0, sum(w * d for w, d in zip(weights, gap, strict=True))))
        halves: list[tuple[float, float]] = []
        for fit in (0, 1):
            fit_h = [g for kd in NULL for g, _ in rows(kd, fit)]
            fit_c = [g for g, _ in rows(kind, fit)]
            scored_h = [g for kd in NULL for g, _ in rows(kd, 1 - fit)]
            scored_c = [g for g, _ in rows(kind, 1 - fit)]
            if not fit_h or not fit_c or not scored_h or not scored_c:
                continue
            mh, cv = _moments(fit_h)
            mc = [sum(g[i] for g in fit_c) / len(fit_c) for i in range(len(PEEKS))]
            try:
                w = _solve(cv, [c - h for c, h in zip(mc, mh, strict=True)])
            except ValueError:
                continue
            halves.append(
                (
                    _snr(
                        [sum(a * b for a, b in zip(w, g, strict=True)) for g in scored_h],
                        [sum(a * b for a, b in zip(w, g, strict=True)) for g in scored_c],
                    ),
                    _snr([g[k] for g in scored_h], [g[k] for g in scored_c]),
                )
            )
        binned = 0.0
        for b in range(5):
            hb = [g[k] for g, r in honest if bin_of(r) == b]
            cb = [g[k] for g, r in cheat if bin_of(r) == b]
            if hb and cb:
                binned += len(cb) / len(cheat) * _snr(hb, cb) ** 2
        binned = math.sqrt(binned)

        def ratio(signal: float, to: float) -> str:
            return f"x{signal / to:.2f}" if to else "x-"

        print(
            f"  {kind:15} own knowledge {own:.3f}; best sum of the four {best:.3f} "
            f"({ratio(best, own)}) in sample, "
            + " / ".join(f"{h:.3f} ({ratio(h, o)})" for h, o in halves)
            + " fitted on one half of the seeds, scored on the other (ratio to the own "
            f"knowledge on that half); decisions weighted by "
            f"the fair range {binned:.3f} ({ratio(binned, own)}); {per_match:.1f} decisions a "
            "match"
        )


def report(
    pool: Path,
    set_sizes: Sequence[int],
    sets: int,
    chart: Path | None,
    loops: float,
    least: tuple[int, int],
) -> None:
    """Calibrate on the honest pools and measure the detection power on the cheaters'."""
    tallied = tallied_from(pool)
    entries = [entry for entry, _ in tallied]
    pools: dict[str, list[Tally]] = {k: [] for k in TYPES}
    cpu: list[float] = []
    decisions_cpu = 0
    for entry, tally in tallied:
        pools[entry["kind"]].append(tally)
        cpu.append(entry["cpu"])
        decisions_cpu += tally.decisions
    print(
        f"\npool: {len(entries)} entries (one seat of one match each); hits/telling per knowledge:"
    )
    present = [kind for kind in TYPES if pools[kind]]
    for kind in present:
        tallies = pools[kind]
        decisions = sum(t.decisions for t in tallies)
        loss = sum(t.fair_loss for t in tallies) / decisions if decisions else 0.0
        rates = []
        for knowledge in PEEKS:
            telling = sum(t.counts[knowledge].telling for t in tallies)
            hits = sum(t.counts[knowledge].hits for t in tallies)
            share = f"{hits / telling:.2f}" if telling else "-"
            rates.append(f"{knowledge.value} {hits}/{telling} ({share})")
        print(
            f"  {kind:15} {len(tallies):4} entries {decisions:5} decisions, "
            f"fair loss {loss:.2f}: {', '.join(rates)}"
        )
    print(
        "\nhindsight gain per knowledge: mean (card points a decision), score against 0 over "
        "the whole pool:"
    )
    for kind in present:
        cells = []
        for knowledge in PEEKS:
            total = Count()
            for tally in pools[kind]:
                total.add(tally.counts[knowledge])
            cells.append(f"{knowledge.value} {total.gain_mean:+.4f} ({gain_z(total):+.2f})")
        print(f"  {kind:15} {', '.join(cells)}")
    if not any(pools[kind] for kind in HONEST):
        print("\nno honest level in the pool: nothing to calibrate on")
        return
    rates = base_rates(pools)
    print(
        "\nnull (the highest honest level's hit rate, and its standard error): "
        + ", ".join(f"{k.value} {v.rate:.3f} (error {v.error:.3f})" for k, v in rates.items())
    )
    nulls = gain_nulls(pools)
    print(
        "null of the gain score (a + b x mean fair loss, on or above every honest level, and its "
        "standard error): "
        + ", ".join(
            f"{k.value} {a:+.4f} {b:+.4f} L (error {e:.3f})" for k, (a, b, e) in nulls.items()
        )
    )
    mean_cpu = sum(cpu) / len(cpu) if cpu else 0.0
    per_decision = sum(cpu) / decisions_cpu if decisions_cpu else 0.0
    print(
        f"CPU per match analysed (one seat): {mean_cpu:.2f} s ({1000 * per_decision:.0f} ms a "
        f"decision) = {mean_cpu * loops / 1e6:.2f} M calibration loops at {loops:,.0f} loops/s; "
        "a match's four seats: four times that"
    )
    rng = random.Random(2026)
    zs: dict[int, dict[str, dict[tuple[str, Hypothesis], list[float]]]] = {}
    thresholds: dict[int, dict[tuple[str, Hypothesis], float]] = {}
    keys = [(which, h) for which in SCORES for h in Hypothesis]
    for size in set_sizes:
        zs[size] = {}
        for kind in TYPES:
            if pools[kind]:
                drawn = draw_sets(pools[kind], size, sets, rng)
                zs[size][kind] = {
                    (which, h): _zs(drawn, h, rates, nulls, least, which) for which, h in keys
                }
        thresholds[size] = {
            key: _threshold([zs[size][k][key] for k in HONEST if k in zs[size]]) for key in keys
        }
    shipped_size = 10 if 10 in thresholds else set_sizes[0]
    shipped = thresholds[shipped_size]
    smallest = min(len(p) for p in pools.values() if p)
    for size in set_sizes:
        twice = "; a match may count twice in a set" if size > smallest else ""
        print(
            f"\nsets of {size} matches: {sets} per type drawn with replacement from the pools "
            f"(they overlap{twice})"
        )
        for which in SCORES:
            print(
                f"  threshold ({which}) for <= 1 % of every honest level's sets: "
                + ", ".join(f"{h.value} >= {thresholds[size][which, h]:.2f}" for h in Hypothesis)
            )
        for kind in TYPES:
            if kind not in zs[size]:
                continue
            cells = []
            for hypothesis in Hypothesis:
                key = ("combined", hypothesis)
                at_own = _share(zs[size][kind][key], thresholds[size][key])
                at_shipped = _share(zs[size][kind][key], shipped[key])
                cells.append(
                    f"{hypothesis.value} {100 * at_own:5.1f} % ({100 * at_shipped:5.1f} %)"
                )
            own = f"  [own: {OWN[kind].value}]" if kind in OWN else ""
            print(f"  {kind:15} flagged: {'; '.join(cells)}{own}")
    print(
        f"  (flagged on the combined score: at that size's threshold (at the shipped one, the "
        f"{shipped_size}-match threshold); a verdict needs {least[0]} telling decisions for the "
        f"hits, {least[1]} decisions for the gain)"
    )
    print("\ndetection at <= 1 % false positives on every honest level (own hypothesis):")
    print(
        "  " + f"{'cheater':15} {'score':9}" + "".join(f"{size:>8} matches" for size in set_sizes)
    )
    for kind, hypothesis in OWN.items():
        if kind not in zs[set_sizes[0]]:
            continue
        for which in SCORES:
            key = (which, hypothesis)
            cells = [
                f"{100 * _share(zs[size][kind][key], thresholds[size][key]):14.1f} %"
                for size in set_sizes
            ]
            print(f"  {kind:15} {which:9}" + "".join(cells))
    teams = partnerships(tallied)
    team_zs, team_thresholds = report_partnerships(teams, set_sizes, sets, rates, nulls, least)
    print("\nfor analysis/fairplay.py:")
    print(
        "BASE_RATES = {"
        + ", ".join(f"Knowledge.{k.name}: BaseRate{tuple(v)}" for k, v in rates.items())
        + "}"
    )
    print(
        "GAIN_NULLS = {"
        + ", ".join(
            f"Knowledge.{k.name}: GainNull({a}, {b}, {e})" for k, (a, b, e) in nulls.items()
        )
        + "}"
    )
    print(
        "THRESHOLDS = {"
        + ", ".join(f"Hypothesis.{h.name}: {shipped['combined', h]}" for h in Hypothesis)
        + "}"
    )
    if 10 in team_thresholds:
        print(
            "PARTNERSHIP_THRESHOLDS = {"
            + ", ".join(f"Hypothesis.{h.name}: {team_thresholds[10][h]}" for h in Hypothesis)
            + "}"
        )
    if chart is not None and 10 in zs:
        curves = {}
        for kind, (_, _, hypothesis) in CHEATERS.items():
            if kind not in zs[10]:
                continue
            key = ("combined", hypothesis)
            honest = [z for k in NULL if k in zs[10] for z in zs[10][k][key]]
            curves[kind] = roc(honest, zs[10][kind][key])
            at_one = max(t for f, t in curves[kind] if f <= 0.01)
            print(
                f"ROC (10 matches, honest players pooled) {kind}: "
                f"{100 * at_one:.1f} % detected at <= 1 % FPR"
            )
        for kind in PAIRS:
            if kind not in team_zs.get(10, {}):
                continue
            honest = [
                z for k in NULL if k in team_zs[10] for z in team_zs[10][k][Hypothesis.PARTNER]
            ]
            curves[kind] = roc(honest, team_zs[10][kind][Hypothesis.PARTNER])
            at_one = max(t for f, t in curves[kind] if f <= 0.01)
            print(
                f"ROC (10 matches, partnerships, honest players pooled) {kind}: "
                f"{100 * at_one:.1f} % detected at <= 1 % FPR"
            )
        write_png(chart, curves)
        print(f"ROC chart: {chart}")


def main() -> None:
    """Fill the pool, then report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--matches", type=int, default=40, help="pool entries per bot type (seat-matches)"
    )
    parser.add_argument(
        "--honest-matches", type=int, default=0, help="entries per honest level (0: --matches)"
    )
    parser.add_argument("--expert-matches", type=int, default=0, help="entries of honest EXPERT")
    parser.add_argument(
        "--want",
        action="append",
        default=[],
        metavar="KIND=N",
        help="entries wanted of one bot type (e.g. random=16), over the options above",
    )
    parser.add_argument("--sets", type=int, default=4000)
    parser.add_argument("--set-size", type=int, nargs="+", default=[3, 10, 30])
    parser.add_argument("--pool", type=Path, default=ROOT / "bench" / "fairplay_pool.jsonl")
    parser.add_argument("--minutes", type=float, default=0.0, help="stop filling after this")
    parser.add_argument(
        "--first-seed",
        type=int,
        default=1,
        help="the first match seed to fill with (the validation pool's start at 75)",
    )
    parser.add_argument("--report-only", action="store_true")
    parser.add_argument(
        "--min-decisions", type=int, default=MIN_DECISIONS, help="telling decisions a verdict needs"
    )
    parser.add_argument(
        "--min-gain-decisions",
        type=int,
        default=MIN_GAIN_DECISIONS,
        help="decisions a verdict from the hindsight gain needs",
    )
    parser.add_argument("--chart", type=Path, default=ROOT / "docs" / "images" / "fairplay_roc.png")
    parser.add_argument(
        "--part-time",
        action="store_true",
        help="also estimate part-time peekers' detection (some five minutes of CPU)",
    )
    parser.add_argument(
        "--draws",
        type=int,
        default=0,
        help="also repeat the ten-match figures on this many independent draws of sets",
    )
    parser.add_argument(
        "--power",
        action="store_true",
        help="also print what any linear form of the gains could catch (signal per decision)",
    )
    parser.add_argument(
        "--validation",
        type=Path,
        default=ROOT / "bench" / "fairplay_validation.jsonl",
        help="held-out matches scored at the shipped constants after the report",
    )
    args = parser.parse_args()
    loops = calibration_loops(2.0, time.process_time)
    print(f"calibration {loops:,.0f} loops/s")
    if not args.report_only:
        wanted = dict.fromkeys(TYPES, args.matches) | dict.fromkeys(HELD_OUT, 0)
        for kind in HONEST:
            wanted[kind] = args.honest_matches or args.matches
        if args.expert_matches:
            wanted["expert"] = args.expert_matches
        for want in args.want:
            kind, _, count = want.partition("=")
            if kind not in wanted:
                parser.error(f"--want: no bot type {kind!r}")
            wanted[kind] = int(count)
        stop_at = time.time() + args.minutes * 60 if args.minutes else float("inf")
        fill(args.pool, wanted, stop_at, args.first_seed)
    least = (args.min_decisions, args.min_gain_decisions)
    report(args.pool, args.set_size, args.sets, args.chart, loops, least)
    if args.draws:
        report_draws(args.pool, 10, args.sets, args.draws, least)
    if args.power:
        report_power(args.pool)
    if args.part_time:
        report_part_time(args.pool, [size for size in args.set_size if size >= 10], 400)
    if args.validation.exists() and args.validation != args.pool:
        report_held_out(args.validation, args.set_size, args.sets)


if __name__ == "__main__":
    main()
