"""The screen's statistic: z-scores of a set of records' stage-1 counts, and its thresholds.

A seat (or a partnership) over a set of records is scored

* on its **cards**, by the fair-play report's statistic
  (:func:`baloot_engine.analysis.fairplay.score`) for each hypothesis (every hand seen, the
  partner's hand, one opponent's hand), against this stage's own honest nulls
  (:data:`CARD_BASE_RATES`, :data:`CARD_GAIN_NULLS`: stage 1 samples fewer worlds than the
  report, and its hit rates differ);
* on its **bids and doubling calls** (:func:`part_z`): the z-score of their hindsight gains less
  their honest mean (:func:`baloot_engine.analysis.fairplay.gain_z`) combined with the z-score
  of their hits against their honest rate, as the report combines its two
  (:func:`baloot_engine.analysis.fairplay.combined_score`).

Under honest play each is about a standard normal score; a player who sees hidden cards at the
cards raises a card score, one who sees the deal when bidding raises the call score. The
screen's score is the largest of those that rest on enough decisions (:data:`MIN_CARDS`,
:data:`MIN_CALLS`); under the null it passes ``t`` with probability at most
``1 - Phi(t)^k`` for ``k`` scores taken as independent (:func:`predicted_tail`: the four card
states of knowledge and the calls), which the calibration checks against the tail measured on
honest sets (``bench/bench_screen.py``, docs/screening.md). The nulls carry the standard errors
of the honest means they rest on, which enter the scores so that an honest level whose true
mean lies a little above the measured one is not flagged more and more as its sets grow. A
seat whose cards lost more than :data:`~baloot_engine.analysis.fairplay.MAX_FAIR_LOSS` card
points a decision against the fair best card (play no better than chance) gets no card score.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final, NamedTuple

from baloot_engine.analysis.fairplay import (
    SCORE_CORRELATION,
    BaseRate,
    Count,
    GainNull,
    Hypothesis,
    Knowledge,
    gain_z,
    score,
    z_score,
)
from baloot_engine.screening.stage1 import Counts, SeatCounts, row_counts


class Null(NamedTuple):
    """The honest mean gain per decision, ``intercept + slope L`` at a mean fair loss ``L``
    per decision (:func:`null_mean`), and the standard error of the means it rests on."""

    intercept: float
    slope: float
    error: float
    hit_rate: float = 0.35
    hit_error: float = 0.0


CALL_NULL: Final = Null(1.5869, 0.0, 0.0937, 0.2829, 0.0112)
"""The honest mean gain per bid or call (game points), a line in the group's mean fair loss
on them: the lowest line with a slope of at least 0 that lies on or above every honest kind
of the calibration, and the standard error of the mean (or the larger of the two) the line
passes through; and the honest share of telling bids and calls that are hits (the highest
kind's) with its standard error (``bench/bench_screen.py``)."""
CARD_BASE_RATES: Final[dict[Knowledge, BaseRate]] = {
    Knowledge.ALL: BaseRate(0.3782, 0.0105),
    Knowledge.PARTNER: BaseRate(0.3549, 0.0128),
    Knowledge.LEFT: BaseRate(0.3554, 0.0071),
    Knowledge.RIGHT: BaseRate(0.3554, 0.0071),
}
"""Per state of knowledge, the honest share of telling card decisions that are hits at stage
1's worlds (the highest honest kind's) and its standard error."""
CARD_GAIN_NULLS: Final[dict[Knowledge, GainNull]] = {
    Knowledge.ALL: GainNull(0.0726, 0.0, 0.0497),
    Knowledge.PARTNER: GainNull(0.0664, 0.0, 0.0474),
    Knowledge.LEFT: GainNull(-0.2981, 0.1818, 0.0742),
    Knowledge.RIGHT: GainNull(-0.2981, 0.1818, 0.0742),
}
"""Per state of knowledge, the honest mean cross-fitted card gain per decision, a line in the
mean fair loss fitted as :data:`CALL_NULL`'s."""
CALL_HITS_WEIGHT: Final = 1.0
"""The weight of the hits' z in the call score, the gain's being 1 (the fair-play report weighs
its card hits by half): a bid or a double right only on the real deal is what a player who
sees the deal when bidding does most often (59 % of the telling bids and calls of the
benchmark's bidding cheater against at most 28 % for every honest kind), while the gain's
honest mean varies from kind to kind (docs/screening.md)."""
MIN_TELLING: Final = 10
"""No hits' z on fewer telling decisions than this."""
MIN_CARDS: Final = 60
"""No card gain score on fewer card decisions with a choice than this."""
MIN_CARD_TELLING: Final = 20
"""No card hits' z on fewer telling card decisions than this."""
MIN_CALLS: Final = 20
"""No call score on fewer bids and doubling calls with a choice than this."""
SCREEN_THRESHOLD: Final = 2.5
"""The score from which stage 1 sends a seat or a partnership to stage 2 (a screen: loose; the
z-model sends at most 3.1 % of honest sets, 1.7 % of the benchmark's seats' sets of ten)."""
THRESHOLDS: Final = {"seat": 4.0, "pair": 4.0}
"""The score from which a seat or a partnership is reported to a referee: 4.0, where the
z-model (the largest of five standard normal scores) predicts 1.6 honest sets in 10,000
(docs/screening.md)."""


@dataclass(frozen=True, slots=True)
class SetScore:
    """A group's scores over a set of records.

    ``card``: the largest card score over the hypotheses and ``hypothesis`` its own;
    ``call``: the bids' and calls' score (None: too few decisions, or, for the cards, play no
    better than chance); ``score`` the larger (None: no verdict); ``parts`` how many scores
    it is the largest of; ``counts`` what they rest on."""

    card: float | None
    hypothesis: str | None
    call: float | None
    counts: SeatCounts

    @property
    def score(self) -> float | None:
        found = [z for z in (self.card, self.call) if z is not None]
        return max(found) if found else None

    @property
    def parts(self) -> int:
        return (4 if self.card is not None else 0) + (1 if self.call is not None else 0)


def null_mean(null: Null, counts: Counts) -> float:
    """The honest mean gain per decision at the counts' mean fair loss."""
    loss = counts.fair_loss / counts.n if counts.n else 0.0
    return null.intercept + null.slope * loss


def part_z(counts: Counts, null: Null) -> float:
    """The score of the bids and calls: the z-score of their gains against their honest mean
    plus :data:`CALL_HITS_WEIGHT` times the z-score of their hits against their honest rate
    (on at least :data:`MIN_TELLING` telling decisions), normalised as the fair-play report's
    (:func:`~baloot_engine.analysis.fairplay.combined_score`, the same correlation)."""
    count = Count(
        gain_decisions=counts.n, gain_sum=counts.gain_sum, gain_squares=counts.gain_squares
    )
    gained = gain_z(count, null_mean(null, counts), null.error)
    if counts.telling < MIN_TELLING:
        return gained
    hits = z_score(counts.telling, counts.hits, null.hit_rate, null.hit_error)
    c = CALL_HITS_WEIGHT
    return (gained + c * hits) / math.sqrt(1.0 + c * c + 2.0 * c * SCORE_CORRELATION)


def set_score(
    counts: SeatCounts,
    *,
    call_null: Null = CALL_NULL,
    base_rates: Mapping[Knowledge, BaseRate] = CARD_BASE_RATES,
    gain_nulls: Mapping[Knowledge, GainNull] = CARD_GAIN_NULLS,
) -> SetScore:
    """A group's scores from its counts over a set."""
    card: float | None = None
    hypothesis: str | None = None
    for h in Hypothesis:
        found = score(
            counts.card,
            h,
            base_rates=dict(base_rates),
            gain_nulls=dict(gain_nulls),
            min_decisions=MIN_CARD_TELLING,
            min_gain_decisions=MIN_CARDS,
        )
        if found.enough and (card is None or found.combined > card):
            card, hypothesis = found.combined, h.value
    call = None
    if counts.call.n >= MIN_CALLS:
        call = round(part_z(counts.call, call_null), 4)
    return SetScore(card, hypothesis, call, counts)


def summed(rows: Iterable[Mapping[str, object]]) -> SeatCounts:
    """The counts of rows added (one group over a set of records)."""
    total = SeatCounts()
    for row in rows:
        total.add(row_counts(dict(row)))
    return total


def normal_tail(z: float) -> float:
    """The one-sided upper tail of the standard normal at ``z``."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def predicted_tail(threshold: float, parts: int = 5) -> float:
    """The chance that an honest group's score passes ``threshold`` under the z-model: the
    larger of ``parts`` independent standard normal scores."""
    return 1.0 - (1.0 - normal_tail(threshold)) ** parts


def threshold_of(group: str) -> float:
    """The reporting threshold of a group (``"0"``: a seat; ``"0,2"``: a partnership)."""
    return THRESHOLDS["pair" if "," in group else "seat"]


__all__ = [
    "CALL_HITS_WEIGHT",
    "CALL_NULL",
    "CARD_BASE_RATES",
    "CARD_GAIN_NULLS",
    "MIN_CALLS",
    "MIN_CARDS",
    "MIN_CARD_TELLING",
    "MIN_TELLING",
    "SCREEN_THRESHOLD",
    "THRESHOLDS",
    "Null",
    "SetScore",
    "normal_tail",
    "null_mean",
    "part_z",
    "predicted_tail",
    "set_score",
    "summed",
    "threshold_of",
]
