"""Stage 1 of the screen: one record's cheap counts per seat and per partnership.

Two cheap passes over the record, both pure functions of the record, the budget and the seed:

* **cards**: the fair-play figures (:func:`baloot_engine.analysis.fairplay.record_figures`) at
  :data:`STAGE1_CARD_WORLDS` worlds per decision (stage 2 runs the report's default): each card
  decision with a choice valued fairly (two independent samples of worlds drawn from what the
  seat could know), on the real position, and with the partner's or one opponent's hand known;
  their tally (:class:`~baloot_engine.analysis.fairplay.Tally`) counts the decisions where the
  card best with hidden knowledge and the fair best have nothing in common (*telling*), those
  where the seat played the former (*hits*: right only with hidden knowledge), and the
  cross-fitted hindsight gains;
* **bids and doubling calls**: the analysis (:func:`baloot_engine.analysis.analyze`, bids and
  calls only, :data:`STAGE1_BUDGET`) values every alternative fairly (deals sampled from the
  seat's view and played out) and on the real deal (the contract it leads to solved exactly);
  each decision gives its hindsight gain (:func:`baloot_engine.analysis.fairplay.hindsight_gain`,
  in game points, :data:`CALL_SCALE`, bounded by :data:`CALL_LIMIT`), and whether it tells and
  hits as above: a bid or a double whose value is good on the true deal but bad in expectation
  over the worlds the seat could believe in.

The counts are additive (sums and sums of squares), so a set of records is scored by adding its
rows (:mod:`baloot_engine.screening.stats`). A row is a flat dict of numbers and strings,
rounded so that the same record, budget and seed always give the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final

from baloot_engine import __version__
from baloot_engine.analysis import analyze
from baloot_engine.analysis.budget import Budget
from baloot_engine.analysis.core import Decision, DecisionKind
from baloot_engine.analysis.fairplay import (
    PEEKS,
    DecisionFigures,
    Tally,
    hindsight_gain,
    record_figures,
    tally_of,
)
from baloot_engine.rules.record import RecordedRound
from baloot_engine.rules.state import State
from baloot_engine.solver import COMPILED

STAGE1_BUDGET: Final = Budget(worlds=2, call_deals=8)
"""The budget of stage 1: ``worlds`` per card decision and per state of knowledge of the
fair-play figures, ``call_deals`` played-out deals per bid or call."""
CALL_SCALE: Final = 10.0
"""Bids and calls are valued in game points; their values are weighed as if ten times larger
(a game point is about ten card points), so that one temperature serves both."""
CALL_LIMIT: Final = 16.0
"""The most one bid's or call's gain counts, either way (game points: a Hokm round's worth)."""
SCREEN_VERSION: Final = 2
"""The version of stage 1's counts: rows of another version are computed again."""
EPSILON: Final = 1e-6
GROUPS: Final = ((0,), (1,), (2,), (3,), (0, 2), (1, 3))
"""Each seat, then each partnership."""


def engine_version() -> str:
    """The engine's version."""
    return __version__


def solver_version() -> str:
    """The solver's version: the engine's, and which search (compiled or the reference)."""
    return f"{__version__}+{'c' if COMPILED else 'py'}"


def model_version() -> str:
    """The learned model's version (its name and digest); stage 1 values nothing with it,
    but the bots' play-outs may, so a new model re-screens."""
    from baloot_engine.bots.network import model_version as version

    return version()


@dataclass(slots=True)
class Counts:
    """Additive counts of one kind of decision (cards, or bids and calls together)."""

    n: int = 0
    gain_sum: float = 0.0
    gain_squares: float = 0.0
    telling: int = 0
    hits: int = 0
    fair_loss: float = 0.0

    def add(self, other: Counts) -> None:
        """Add another count into this one."""
        self.n += other.n
        self.gain_sum += other.gain_sum
        self.gain_squares += other.gain_squares
        self.telling += other.telling
        self.hits += other.hits
        self.fair_loss += other.fair_loss

    def add_decision(self, gained: float, telling: bool, hit: bool, fair_loss: float) -> None:
        """Count one decision."""
        self.n += 1
        self.gain_sum += gained
        self.gain_squares += gained * gained
        self.telling += telling
        self.hits += hit
        self.fair_loss += fair_loss


@dataclass(slots=True)
class SeatCounts:
    """One seat's (or partnership's) counts: the fair-play tally of its cards, and the counts
    of its bids and doubling calls."""

    card: Tally = field(default_factory=Tally)
    call: Counts = field(default_factory=Counts)

    def add(self, other: SeatCounts) -> None:
        """Add another seat's counts into this one."""
        self.card.add(other.card)
        self.call.add(other.call)


def _best(values: Sequence[float]) -> frozenset[int]:
    top = max(values)
    return frozenset(i for i, v in enumerate(values) if v >= top - EPSILON)


def decision_gain(decision: Decision) -> tuple[float, bool, bool, float] | None:
    """A decision's ``(gain, telling, hit, fair_loss)``: cards in card points (their values
    from the seat's worlds and the real position), bids and calls in game points; None when a
    value is missing (an alternative without a hindsight value)."""
    card = decision.kind is DecisionKind.CARD
    fair: list[float] = []
    known: list[float] = []
    for alternative in decision.alternatives:
        hindsight = alternative.hindsight
        if hindsight is None:
            return None
        if card:
            if alternative.fair.points is None or hindsight.points is None:
                return None
            fair.append(alternative.fair.points)
            known.append(hindsight.points)
        else:
            fair.append(alternative.fair.score * CALL_SCALE)
            known.append(hindsight.score * CALL_SCALE)
    taken = decision.taken
    gained = hindsight_gain(known, fair, taken) / (1.0 if card else CALL_SCALE)
    gained = max(-CALL_LIMIT, min(CALL_LIMIT, gained))
    best_known, best_fair = _best(known), _best(fair)
    telling = not best_known & best_fair
    hit = telling and taken in best_known
    loss = (max(fair) - fair[taken]) / (1.0 if card else CALL_SCALE)
    return gained, telling, hit, loss


def seat_counts(
    figures: Iterable[DecisionFigures], decisions: Iterable[Decision]
) -> dict[int, SeatCounts]:
    """Each seat's counts over a record's card figures and bid and call decisions."""
    tallies = tally_of(figures, range(4))
    counts = {seat: SeatCounts(card=tallies[seat]) for seat in range(4)}
    for decision in decisions:
        if decision.kind is DecisionKind.CARD:
            continue
        found = decision_gain(decision)
        if found is None:
            continue
        gained, telling, hit, loss = found
        counts[decision.seat].call.add_decision(gained, telling, hit, loss)
    return counts


def group_counts(counts: dict[int, SeatCounts], group: Sequence[int]) -> SeatCounts:
    """A group's counts: its seats' added."""
    total = SeatCounts()
    for seat in group:
        total.add(counts[seat])
    return total


def _r(value: float) -> float:
    return round(value, 6) + 0.0


def counts_row(counts: SeatCounts) -> dict[str, float | int]:
    """The counts as the numeric columns of a row."""
    tally = counts.card
    row: dict[str, float | int] = {
        "card_n": tally.decisions,
        "card_fair_loss": _r(tally.fair_loss),
    }
    for knowledge in PEEKS:
        count = tally.counts[knowledge]
        name = knowledge.value
        row[f"{name}_telling"] = count.telling
        row[f"{name}_hits"] = count.hits
        row[f"{name}_gain"] = _r(count.gain)
        row[f"{name}_gain_n"] = count.gain_decisions
        row[f"{name}_gain_sum"] = _r(count.gain_sum)
        row[f"{name}_gain_squares"] = _r(count.gain_squares)
    part = counts.call
    row["call_n"] = part.n
    row["call_gain_sum"] = _r(part.gain_sum)
    row["call_gain_squares"] = _r(part.gain_squares)
    row["call_telling"] = part.telling
    row["call_hits"] = part.hits
    row["call_fair_loss"] = _r(part.fair_loss)
    return row


def _int(row: dict[str, object], key: str) -> int:
    value = row[key]
    assert isinstance(value, int | float)
    return int(value)


def _float(row: dict[str, object], key: str) -> float:
    value = row[key]
    assert isinstance(value, int | float)
    return float(value)


def row_counts(row: dict[str, object]) -> SeatCounts:
    """A row's counts (the inverse of :func:`counts_row`)."""
    found = SeatCounts()
    tally = found.card
    tally.decisions = _int(row, "card_n")
    tally.fair_loss = _float(row, "card_fair_loss")
    for knowledge in PEEKS:
        count = tally.counts[knowledge]
        name = knowledge.value
        count.telling = _int(row, f"{name}_telling")
        count.hits = _int(row, f"{name}_hits")
        count.gain = _float(row, f"{name}_gain")
        count.gain_decisions = _int(row, f"{name}_gain_n")
        count.gain_sum = _float(row, f"{name}_gain_sum")
        count.gain_squares = _float(row, f"{name}_gain_squares")
    part = found.call
    part.n = _int(row, "call_n")
    part.gain_sum = _float(row, "call_gain_sum")
    part.gain_squares = _float(row, "call_gain_squares")
    part.telling = _int(row, "call_telling")
    part.hits = _int(row, "call_hits")
    part.fair_loss = _float(row, "call_fair_loss")
    return found


def stamp(budget: Budget, seed: int) -> dict[str, str | int]:
    """What a row was computed with: the versions, the budget and the seed."""
    return {
        "screen": SCREEN_VERSION,
        "engine": engine_version(),
        "solver": solver_version(),
        "model": model_version(),
        "worlds": budget.worlds,
        "call_deals": budget.call_deals,
        "seed": seed,
    }


def stage1_rows(
    start: State,
    rounds: Sequence[RecordedRound],
    *,
    record: str,
    digest: str,
    budget: Budget = STAGE1_BUDGET,
    seed: int = 0,
) -> list[dict[str, object]]:
    """A record's stage-1 rows: one per seat, then one per partnership (:data:`GROUPS`).

    ``record`` names the record (its path in the day's folder), ``digest`` its content (the
    SHA-256 of its bytes). A pure function of the record, the budget and the seed."""
    figures = [
        f
        for f in record_figures(start, rounds, worlds=budget.worlds, seed=seed)
        if isinstance(f, DecisionFigures)
    ]
    decisions = [
        d
        for d in analyze(
            start, rounds, budget=budget, seed=seed, kinds=(DecisionKind.BID, DecisionKind.CALL)
        )
        if isinstance(d, Decision)
    ]
    counts = seat_counts(figures, decisions)
    scored_rounds = len({f.round_index for f in figures} | {d.round_index for d in decisions})
    rows: list[dict[str, object]] = []
    for group in GROUPS:
        row: dict[str, object] = {
            "record": record,
            "sha256": digest,
            "group": ",".join(str(s) for s in group),
            "rounds": scored_rounds,
        }
        row.update(stamp(budget, seed))
        row.update(counts_row(group_counts(counts, group)))
        rows.append(row)
    return rows


__all__ = [
    "CALL_LIMIT",
    "CALL_SCALE",
    "GROUPS",
    "STAGE1_BUDGET",
    "Counts",
    "SeatCounts",
    "counts_row",
    "decision_gain",
    "engine_version",
    "group_counts",
    "model_version",
    "row_counts",
    "seat_counts",
    "solver_version",
    "stage1_rows",
    "stamp",
]
