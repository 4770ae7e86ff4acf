"""Stage 1 of the screen: one record's cheap counts per seat and per partnership.

The record is analysed once by :func:`baloot_engine.analysis.analyze` at a small budget
(:data:`STAGE1_BUDGET`): every card, bid and doubling call of every seat with a choice is
valued fairly (worlds or deals sampled from what the seat could know) and in hindsight (the
real deal solved exactly). From those values each decision gives:

* its **hindsight gain** (:func:`baloot_engine.analysis.fairplay.hindsight_gain`): what the
  action taken gained valued on the real deal rather than fairly, less the same for the
  actions a fair player would likely take; an honest choice rests on what the seat knows and
  gains nothing on average, a choice that follows the hidden cards gains. Cards are valued in
  card points, bids and calls in game points (:data:`CALL_SCALE`), each gain bounded
  (:data:`CARD_LIMIT`, :data:`CALL_LIMIT`);
* whether it **tells** (the actions best on the real deal and those best fairly have nothing
  in common) and, if so, whether it is a **hit** (the seat took one best on the real deal
  only: a choice right only with hidden knowledge).

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
from baloot_engine.analysis.fairplay import bounded_gain, hindsight_gain
from baloot_engine.rules.record import RecordedRound
from baloot_engine.rules.state import State
from baloot_engine.solver import COMPILED

STAGE1_BUDGET: Final = Budget(worlds=2, call_deals=8)
"""The analysis budget of stage 1: two worlds per card, eight played-out deals per bid or
call (the cheap end; stage 2 runs the fair-play report in full)."""
CARD_LIMIT: Final = 12.0
"""The most one card decision's gain counts, either way (card points)."""
CALL_SCALE: Final = 10.0
"""Bids and calls are valued in game points; their values are weighed as if ten times larger
(a game point is about ten card points), so that one temperature serves both."""
CALL_LIMIT: Final = 16.0
"""The most one bid's or call's gain counts, either way (game points: a Hokm round's worth)."""
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
    """One seat's (or partnership's) counts: cards, and bids with doubling calls."""

    card: Counts = field(default_factory=Counts)
    call: Counts = field(default_factory=Counts)

    def add(self, other: SeatCounts) -> None:
        """Add another seat's counts into this one."""
        self.card.add(other.card)
        self.call.add(other.call)


def _best(values: Sequence[float]) -> frozenset[int]:
    top = max(values)
    return frozenset(i for i, v in enumerate(values) if v >= top - EPSILON)


def decision_gain(decision: Decision) -> tuple[bool, float, bool, bool, float] | None:
    """A decision's ``(is_card, gain, telling, hit, fair_loss)``, None when a value is
    missing (a card without card points, an alternative without a hindsight value)."""
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
    gained = hindsight_gain(known, fair, taken)
    if card:
        gained = bounded_gain(gained)
    else:
        gained = max(-CALL_LIMIT, min(CALL_LIMIT, gained / CALL_SCALE))
    best_known, best_fair = _best(known), _best(fair)
    telling = not best_known & best_fair
    hit = telling and taken in best_known
    loss = max(fair) - fair[taken]
    return card, gained, telling, hit, loss if card else loss / CALL_SCALE


def seat_counts(decisions: Iterable[Decision]) -> dict[int, SeatCounts]:
    """Each seat's counts over a record's decisions."""
    counts = {seat: SeatCounts() for seat in range(4)}
    for decision in decisions:
        found = decision_gain(decision)
        if found is None:
            continue
        card, gained, telling, hit, loss = found
        into = counts[decision.seat]
        (into.card if card else into.call).add_decision(gained, telling, hit, loss)
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
    row: dict[str, float | int] = {}
    for name, part in (("card", counts.card), ("call", counts.call)):
        row[f"{name}_n"] = part.n
        row[f"{name}_gain_sum"] = _r(part.gain_sum)
        row[f"{name}_gain_squares"] = _r(part.gain_squares)
        row[f"{name}_telling"] = part.telling
        row[f"{name}_hits"] = part.hits
        row[f"{name}_fair_loss"] = _r(part.fair_loss)
    return row


def row_counts(row: dict[str, object]) -> SeatCounts:
    """A row's counts (the inverse of :func:`counts_row`)."""
    found = SeatCounts()
    for name, part in (("card", found.card), ("call", found.call)):
        part.n = int(row[f"{name}_n"])  # type: ignore[call-overload]
        part.gain_sum = float(row[f"{name}_gain_sum"])  # type: ignore[arg-type]
        part.gain_squares = float(row[f"{name}_gain_squares"])  # type: ignore[arg-type]
        part.telling = int(row[f"{name}_telling"])  # type: ignore[call-overload]
        part.hits = int(row[f"{name}_hits"])  # type: ignore[call-overload]
        part.fair_loss = float(row[f"{name}_fair_loss"])  # type: ignore[arg-type]
    return found


def stamp(budget: Budget, seed: int) -> dict[str, str | int]:
    """What a row was computed with: the versions, the budget and the seed."""
    return {
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
    decisions = [
        d for d in analyze(start, rounds, budget=budget, seed=seed) if isinstance(d, Decision)
    ]
    counts = seat_counts(decisions)
    scored_rounds = len({d.round_index for d in decisions})
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
    "CARD_LIMIT",
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
