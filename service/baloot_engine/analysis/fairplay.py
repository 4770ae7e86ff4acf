"""Fair-play analysis: how often a seat found the card that is right only for the hidden layout.

A player who sees cards he should not (a partner telling his hand over a phone call, a look at
another screen) keeps finding the one card that is best for the real layout and wrong for
most layouts he could have believed in. The statistic is the one bridge uses, computed
exactly: at each card decision of a seat with a choice, every legal card is valued by the
solver (:mod:`baloot_engine.solver`) under five states of knowledge:

* **fair**: worlds sampled from the seat's own observation (:mod:`baloot_engine.bots.tracking`);
* **all**: every hand known (the solver on the real position);
* **partner**: worlds sampled with the partner's real hand fixed;
* **left** / **right**: worlds sampled with one opponent's real hand fixed.

For each hypothesis (every hand seen, the partner's hand known, one opponent's hand known) a
decision *tells* when the cards best under that knowledge and the cards best fairly have
nothing in common; it is a *hit* when the seat played one of the former. An honest player
hits at a base rate (:data:`BASE_RATES`, measured on honest bots of every level); a peeker
hits far more often. Over ``n`` telling decisions with ``h`` hits the score is the z-score
``(h - n p0) / sqrt(n p0 (1 - p0) + n^2 e^2)``, ``e`` the base rate's own standard error,
counted on at least :data:`MIN_DECISIONS` telling decisions.

A peeker who leans toward the hidden cards without playing the exact best one is caught by the
second score, the *hindsight gain* (:func:`hindsight_gain`): at every decision with a choice,
``d = (K[t] - F[t]) - sum_c P[c] (K[c] - F[c])``, what the card played ``t`` gained valued with
the peeking knowledge ``K`` rather than fairly (``F``), less the same for the cards a fair
player would likely play (``P``: :func:`fair_weights`, from fair values only). The fair values
estimate the knowing ones' mean over the layouts the seat may believe in, and an honest choice
rests on what the seat knows only, so honest play gains nothing on average, whatever its
strength or style; a peeker's choices follow the hidden cards and gain. The fair values come
from two independent samples of worlds, and each sample's gain is weighed by the other's values
(:func:`cross_fitted_gain`), so that the weights know nothing of the errors of the values they
weigh. The score is the self-normalised sum :func:`gain_z` of the gains, each bounded
(:func:`bounded_gain`), against the honest null :data:`GAIN_NULLS`, a line in the seat's mean
fair loss (what is left: the bots' sampler is not the exact posterior). A hypothesis
is flagged when its score passes its threshold, :data:`THRESHOLDS` for a seat and
:data:`PARTNERSHIP_THRESHOLDS` for a partnership (set so that at most 1 % of honest sets of ten
matches are flagged). The score (:func:`combined_score`) adds the gain score and half the hits'
z, normalised to about a standard normal score for honest play; when only one of them rests on
enough decisions (:data:`MIN_DECISIONS` telling decisions for the hits,
:data:`MIN_GAIN_DECISIONS` decisions for the gain), that one alone. The "one opponent" score
is the larger of the left and right ones. A seat whose cards lost more than
:data:`MAX_FAIR_LOSS` card points a decision against the fair best card (play no better than
chance) gets no verdict. The counts are additive: a set of records is scored by adding each
record's :class:`Tally` per seat (and per partnership, both seats of a team added).

This is a statistic for a referee to look at, never proof of cheating; it runs on records of
finished matches only (docs/fairplay.md). Pure Python like the analysis it builds on: a pure
function of the records, the worlds per decision and the seed.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Final, NamedTuple

from baloot_engine.analysis.core import (
    AnalysisStoppedError,
    ReplayedRound,
    StopCheck,
    replayed_rounds,
    representatives,
    solve_position,
)
from baloot_engine.bots.tracking import Tracker, sample_hands, track
from baloot_engine.rules.actions import Play
from baloot_engine.rules.contract import partner_of
from baloot_engine.rules.game import legal_actions
from baloot_engine.rules.observation import observe
from baloot_engine.rules.record import RecordedRound, Step
from baloot_engine.rules.state import State
from baloot_engine.solver import Position, SolverBudgetError, position_of, solve

DEFAULT_WORLDS: Final = 8
"""Worlds per decision and per sampled state of knowledge (partner, left, right; the fair
values take two independent samples of this many, :data:`FAIR_SAMPLES`)."""
MAX_WORLDS: Final = 64
"""The most worlds per decision a report may ask for."""
MAX_RECORDS: Final = 100
"""The most records one report reads."""
EPSILON: Final = 1e-6
FAIR_SAMPLES: Final = ("fair", "fair/2")
"""The two independent samples of fair worlds (the names of their random streams)."""


class Knowledge(Enum):
    """What the cards of a decision are valued from."""

    FAIR = "fair"
    ALL = "all"
    PARTNER = "partner"
    LEFT = "left"
    RIGHT = "right"


class Hypothesis(Enum):
    """What a seat may have seen that it should not have."""

    ALL = "all"
    """Every hand (a look at every screen, or a whole table telling)."""
    PARTNER = "partner"
    """The partner's hand (partners telling each other their cards)."""
    OPPONENT = "opponent"
    """One opponent's hand (a look at one screen)."""


PEEKS: Final = (Knowledge.ALL, Knowledge.PARTNER, Knowledge.LEFT, Knowledge.RIGHT)
"""The states of knowledge compared with the fair one."""


class BaseRate(NamedTuple):
    """The honest null of one state of knowledge's hits: the share ``rate`` of telling
    decisions where honest play hits, known to within ``error`` (its standard error,
    :func:`z_score`)."""

    rate: float
    error: float


BASE_RATES: Final = {
    Knowledge.ALL: BaseRate(0.346, 0.014),
    Knowledge.PARTNER: BaseRate(0.319, 0.011),
    Knowledge.LEFT: BaseRate(0.318, 0.009),
    Knowledge.RIGHT: BaseRate(0.318, 0.009),
}
"""The null of the z-scores: per state of knowledge, the share of telling decisions where an
honest level hits the peek-best card, the highest of RANDOM, BASIC, STRONG and EXPERT on the
pool of ``bench/bench_fairplay.py`` (the left and right opponents pooled), and the largest of
those levels' standard errors."""


class GainNull(NamedTuple):
    """The honest null of one state of knowledge's gain score: ``intercept + slope L`` card
    points a decision at a mean fair loss ``L`` (:func:`gain_null`), known to within
    ``error`` (the standard error of the honest means it rests on, :func:`gain_z`)."""

    intercept: float
    slope: float
    error: float


GAIN_NULLS: Final = {
    Knowledge.ALL: GainNull(0.0573, 0.0128, 0.04),
    Knowledge.PARTNER: GainNull(0.0817, 0.0026, 0.033),
    Knowledge.LEFT: GainNull(0.0127, 0.0, 0.025),
    Knowledge.RIGHT: GainNull(0.0127, 0.0, 0.025),
}
"""The null of the gain scores: per state of knowledge, the mean hindsight gain per decision
honest play may have (card points), a line ``a + b L`` in the mean fair loss ``L`` of the seat
or partnership scored (:func:`gain_null`), fitted as the lowest line with ``b >= 0`` that lies
on or above every honest level of the pool of ``bench/bench_fairplay.py`` (RANDOM, BASIC,
STRONG, EXPERT; the left and right opponents pooled) through the level that plays worst, and
the standard error of those levels' means (the largest of those that get a verdict). With the
gain cross-fitted (:func:`cross_fitted_gain`) it would be zero if the sampler of the
bots were the exact posterior; it is not (it reads no inference from the other seats' play or
bids), and what is left grows with how far the play strays from the fair best card: on "all
hands" EXPERT -0.08, STRONG +0.05, BASIC +0.08 and RANDOM +0.11 card points a decision at
mean fair losses of 0.5, 1.2, 1.4 and 4.3. A null as high as RANDOM's for every seat would
push purposeful honest play's scores below zero by more the more matches a report holds, so
that no one threshold would hold at 1 % for three matches and for thirty; one as low as the
best levels' would flag weak honest players more than 1 %. The line does neither
(docs/fairplay.md). The error enters the score (:func:`gain_z`) so that an honest level whose
true mean lies a little above the pool's is not flagged more and more as its reports grow."""
THRESHOLDS: Final = {
    Hypothesis.ALL: 2.44,
    Hypothesis.PARTNER: 2.14,
    Hypothesis.OPPONENT: 2.69,
}
"""The score (:func:`combined_score`) from which a seat is flagged: the
smallest that flags at most 1 % of the sets of ten matches of every honest level on the
benchmark's pool, among the sets that get a verdict (:data:`MAX_FAIR_LOSS`; RANDOM's get none)
(docs/fairplay.md)."""
PARTNERSHIP_THRESHOLDS: Final = {
    Hypothesis.ALL: 2.12,
    Hypothesis.PARTNER: 2.13,
    Hypothesis.OPPONENT: 2.68,
}
"""The same for a partnership (its two seats' counts added): the smallest score that flags
at most 1 % of the honest partnerships' sets of ten matches on the benchmark's pool."""
MIN_DECISIONS: Final = 20
"""No verdict from the hits on fewer telling decisions than this."""
MIN_GAIN_DECISIONS: Final = 60
"""No verdict from the hindsight gain on fewer decisions than this."""
MAX_FAIR_LOSS: Final = 3.0
"""No verdict on a seat (or a partnership) whose cards lost more than this many card points a
decision on average against the fair best card: play no better than chance (RANDOM loses 4.3,
the weakest bot that plays with a purpose, BASIC, 1.4, and the STRONG-based peekers 1.5 to
1.8 on the benchmark's pool). Such play shows no purpose that a hidden card could explain, and
peeking gains nothing to a seat that throws its cards away; the thresholds are calibrated on
the play that gets a verdict (docs/fairplay.md)."""
HITS_WEIGHT: Final = 0.5
"""The weight of the hits' z in the score, the gain score's being 1 (:func:`combined_score`).
Chosen on the benchmark's pool among 0 to 1.5 and the larger of the two (the score until
3 December 2026): it caught the most of the STRONG-based peekers of every kind, whose choices
lean toward the hidden cards without always finding the exact best one (docs/fairplay.md)."""
SCORE_CORRELATION: Final = 0.4
"""The correlation of the hits' z and the gain score over honest sets (0.05 to 0.53 on the
benchmark's pool, about 0.4 for the levels that play by sense), by which their weighted sum is
normalised to about a standard normal score."""
GAIN_TEMPERATURE: Final = 0.1
"""How sharply a fair player is taken to prefer the better cards in the hindsight gain
(:func:`fair_weights`): a card worth 10 card points less fairly is e times less likely."""
GAIN_LIMIT: Final = 12.0
"""The most one decision's hindsight gain counts, either way (card points,
:func:`bounded_gain`). A few decisions swing by 20 to 60 card points on where one hidden card
lies; unbounded, they make most of the gains' spread and little of their evidence. Chosen on
the benchmark's pool among 6 to 15 and no limit: bounded at 12, the gain score alone (a flat
null) caught 68 % of the STRONG-based all-hands peekers' sets of ten (58 % unbounded) and 72 %
of the partner peekers' (59 %), on the pool of 24 honest matches a level; with the shipped
score and calibration on the grown pool (the cheaters' first 64 matches), 65.7 % (62.5 %) and
65.8 % (64.8 %); every EXPERT-based peeker still (docs/fairplay.md)."""


@dataclass(slots=True)
class Count:
    """One state of knowledge's counts over a seat's decisions (additive).

    ``telling``: decisions whose best cards under that knowledge and the fair best cards have
    nothing in common; ``hits``: those where the seat played one of the former; ``gain``: the
    card points the card played gave more than the fair best card under that knowledge, summed
    over the telling decisions.

    The hindsight gain (:func:`hindsight_gain`, each decision's bounded by
    :func:`bounded_gain`), over every decision with a choice: ``gain_decisions`` decisions,
    ``gain_sum`` their gains summed (card points), ``gain_squares`` the squares of the gains
    summed.
    """

    telling: int = 0
    hits: int = 0
    gain: float = 0.0
    gain_decisions: int = 0
    gain_sum: float = 0.0
    gain_squares: float = 0.0

    def add(self, other: Count) -> None:
        """Add another count into this one."""
        self.telling += other.telling
        self.hits += other.hits
        self.gain += other.gain
        self.gain_decisions += other.gain_decisions
        self.gain_sum += other.gain_sum
        self.gain_squares += other.gain_squares

    def add_gain(self, gained: float) -> None:
        """Count one decision's hindsight gain."""
        self.gain_decisions += 1
        self.gain_sum += gained
        self.gain_squares += gained * gained

    @property
    def gain_mean(self) -> float:
        """The mean hindsight gain per decision (card points, tricks as a ninth)."""
        return self.gain_sum / self.gain_decisions if self.gain_decisions else 0.0


@dataclass(slots=True)
class Tally:
    """One seat's (or one partnership's) additive counts over one or more records.

    ``decisions``: card decisions with a choice; ``fair_loss``: the card points their cards
    lost against the fair best card, summed; ``counts`` per peeking state of knowledge.
    """

    decisions: int = 0
    fair_loss: float = 0.0
    counts: dict[Knowledge, Count] = field(default_factory=lambda: {k: Count() for k in PEEKS})

    def add(self, other: Tally) -> None:
        """Add another tally into this one."""
        self.decisions += other.decisions
        self.fair_loss += other.fair_loss
        for knowledge in PEEKS:
            self.counts[knowledge].add(other.counts[knowledge])

    @property
    def mean_fair_loss(self) -> float:
        """The card points lost per decision against the fair best card."""
        return self.fair_loss / self.decisions if self.decisions else 0.0


@dataclass(frozen=True, slots=True)
class Score:
    """One hypothesis' score for a seat or a partnership.

    ``telling``/``hits``/``gain`` are the counts it rests on (for "one opponent", the
    opponent with the larger score); ``expected`` the hits honest play gives at the base rate;
    ``z`` the hits' z-score, ``p_value`` its one-sided normal tail; ``gain_decisions``,
    ``gain_mean`` and ``gain_z`` the hindsight gain's decisions, mean and score;
    ``combined`` the score (:func:`combined_score` of ``z``, on at least :data:`MIN_DECISIONS`
    telling decisions, and ``gain_z``, on at least :data:`MIN_GAIN_DECISIONS` decisions);
    ``enough`` whether either rests on that many and the play has a purpose (mean fair loss at
    most :data:`MAX_FAIR_LOSS`; no verdict otherwise); ``flagged`` whether
    ``combined`` passes ``threshold`` (a seat's, :data:`THRESHOLDS`, or a partnership's,
    :data:`PARTNERSHIP_THRESHOLDS`).
    """

    hypothesis: Hypothesis
    telling: int
    hits: int
    expected: float
    gain: float
    z: float
    p_value: float
    enough: bool
    flagged: bool
    gain_decisions: int = 0
    gain_mean: float = 0.0
    gain_z: float = 0.0
    combined: float = 0.0
    threshold: float = 0.0


@dataclass(frozen=True, slots=True)
class Row:
    """The report's line for one seat (``seats`` of one) or one partnership (two seats)."""

    seats: tuple[int, ...]
    decisions: int
    mean_fair_loss: float
    scores: tuple[Score, ...]


@dataclass(frozen=True, slots=True)
class Progress:
    """How far the report is: decisions done of the total, records done of the total."""

    done: int
    total: int
    records_done: int
    records: int


@dataclass(frozen=True, slots=True)
class FairPlayReport:
    """The whole report: one row per seat, then one per partnership (seats 0 and 2, 1 and 3)."""

    records: int
    rows: tuple[Row, ...]


def z_score(telling: int, hits: int, base: float, base_error: float = 0.0) -> float:
    """The z-score of ``hits`` among ``telling`` decisions against the base rate (0 on none):
    ``(h - n p) / sqrt(n p (1 - p) + n^2 e^2)``, ``e`` the base rate's own standard error
    (``base_error``; a rate measured on honest bots' play), so that an honest seat whose true
    rate lies above the measured one scores no more than about that many errors however many
    decisions it has, and short reports are hardly touched."""
    if telling <= 0:
        return 0.0
    spread = math.sqrt(telling * base * (1.0 - base) + (telling * base_error) ** 2)
    return (hits - telling * base) / spread


def p_value(z: float) -> float:
    """The one-sided normal tail of a z-score (the chance honest play scores this or more)."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def score(
    tally: Tally,
    hypothesis: Hypothesis,
    *,
    base_rates: dict[Knowledge, BaseRate] = BASE_RATES,
    gain_nulls: dict[Knowledge, GainNull] = GAIN_NULLS,
    thresholds: dict[Hypothesis, float] = THRESHOLDS,
    min_decisions: int = MIN_DECISIONS,
    min_gain_decisions: int = MIN_GAIN_DECISIONS,
    max_fair_loss: float = MAX_FAIR_LOSS,
) -> Score:
    """A tally's score for one hypothesis: the hits' z-score and the hindsight gain's score,
    those that rest on enough decisions combined (:func:`combined_score`) against one
    threshold; no verdict (``enough`` false) when the tally's mean fair loss is above
    ``max_fair_loss`` (play no better than chance, :data:`MAX_FAIR_LOSS`)."""
    if hypothesis is Hypothesis.ALL:
        chosen = [Knowledge.ALL]
    elif hypothesis is Hypothesis.PARTNER:
        chosen = [Knowledge.PARTNER]
    else:
        chosen = [Knowledge.LEFT, Knowledge.RIGHT]
    # Rounded as the row gives it, so that the report's own figure says why there is no verdict.
    purposeful = round(tally.mean_fair_loss, 3) <= max_fair_loss
    best: Score | None = None
    for knowledge in chosen:
        count = tally.counts[knowledge]
        base = base_rates[knowledge]
        z = z_score(count.telling, count.hits, base.rate, base.error)
        null = gain_nulls[knowledge]
        gained = gain_z(count, gain_null(null, tally.mean_fair_loss), null.error)
        hits_enough = count.telling >= min_decisions
        gain_enough = count.gain_decisions >= min_gain_decisions
        counted = hits_enough or gain_enough
        enough = purposeful and counted
        # Rounded as the report gives it, so that the flag is what the published score shows.
        combined = round(
            combined_score(
                z if hits_enough or not counted else None,
                gained if gain_enough or not counted else None,
            ),
            3,
        )
        found = Score(
            hypothesis,
            count.telling,
            count.hits,
            round(count.telling * base.rate, 3),
            round(count.gain, 3),
            round(z, 3),
            p_value(z),
            enough,
            enough and combined >= thresholds[hypothesis],
            count.gain_decisions,
            round(count.gain_mean, 3),
            round(gained, 3),
            combined,
            thresholds[hypothesis],
        )
        if best is None or (found.enough, found.combined) > (best.enough, best.combined):
            best = found
    assert best is not None
    return best


def combined_score(z: float | None, gained: float | None) -> float:
    """The score of a hypothesis from the hits' z and the gain score (None: not counted, too
    few decisions): ``(gain_z + c z) / sqrt(1 + c^2 + 2 c rho)``, ``c`` :data:`HITS_WEIGHT`
    and ``rho`` :data:`SCORE_CORRELATION`, about a standard normal score for honest play; one
    of them alone when the other is not counted (0 when neither is).

    The two see the same lean from two sides: the hits count the decisions where the seat
    found the exact card that only the hidden cards make best, the gain what every choice
    gained by the hidden cards. A peeker who uses what he sees well scores high on both; one
    who leans toward the hidden cards without always finding the best one scores a little on
    each, and their sum catches him where the larger of the two would not."""
    if z is None:
        return gained if gained is not None else 0.0
    if gained is None:
        return z
    c = HITS_WEIGHT
    return (gained + c * z) / math.sqrt(1.0 + c * c + 2.0 * c * SCORE_CORRELATION)


def fair_weights(fair: Sequence[float]) -> list[float]:
    """How likely a fair player is taken to play each card: ``exp(GAIN_TEMPERATURE * F[c])``,
    normalised. From the fair values only (what the seat could know)."""
    top = max(fair)
    weights = [math.exp(GAIN_TEMPERATURE * (value - top)) for value in fair]
    total = sum(weights)
    return [weight / total for weight in weights]


def hindsight_gain(
    values: Sequence[float],
    fair: Sequence[float],
    taken: int,
    weighed: Sequence[float] | None = None,
) -> float:
    """What the card played gained valued with some knowledge rather than fairly, less the
    same for the cards a fair player would likely play (card points, tricks as a ninth):
    ``(K[t] - F[t]) - sum_c P[c] (K[c] - F[c])``, ``P`` the :func:`fair_weights` of
    ``weighed`` (by default the fair values ``F`` themselves).

    When ``weighed`` is a second fair estimate from worlds sampled independently of ``F``'s,
    the weights know nothing of ``F``'s sampling errors, and each ``K[c] - F[c]`` averages
    zero whatever the weights: weights resting on ``F`` itself favour the cards whose fair
    value the worlds overestimate, whose ``K - F`` is then low, an offset that grows with the
    spread of the worlds (:func:`cross_fitted_gain`).

    The fair values estimate the mean of the knowing values over the worlds the seat may
    believe in, so each ``K[c] - F[c]`` averages zero given what the seat knows; the weights
    rest on that knowledge only, so a seat whose choice rests on its own information gains
    nothing on average, whatever its strength or style, and a seat that knows the hidden hands
    gains. Weighing the cards by how likely a fair player plays them (rather than alike) is
    what a statistician would call the locally most powerful test against a player whose
    choices lean toward the knowing values; on the benchmark's pool it caught more of the
    peekers that lean only a little (docs/fairplay.md)."""
    weights = fair_weights(fair if weighed is None else weighed)
    expected = sum(w * (v - f) for w, v, f in zip(weights, values, fair, strict=True))
    return (values[taken] - fair[taken]) - expected


def cross_fitted_gain(
    values: Sequence[float], samples: tuple[Sequence[float], Sequence[float]], taken: int
) -> float:
    """The hindsight gain from two independent fair estimates: each one's gain weighed by the
    other's values, the two averaged. Neither half's weights rest on the worlds of the values
    they weigh, so a seat whose choice rests on its own information gains nothing on average
    (given exact sampling), whatever its strength and however untidy its positions; using
    both halves both ways keeps all the worlds' precision."""
    first, second = samples
    return 0.5 * (
        hindsight_gain(values, first, taken, second) + hindsight_gain(values, second, taken, first)
    )


def bounded_gain(gained: float) -> float:
    """A decision's hindsight gain as the score counts it: within ``±GAIN_LIMIT``
    (:data:`GAIN_LIMIT`), a robust score in which no single decision weighs more than a
    typical handful."""
    return max(-GAIN_LIMIT, min(GAIN_LIMIT, gained))


def fair_of(first: Sequence[float], second: Sequence[float]) -> tuple[float, ...]:
    """The fair values of a decision: the mean of its two fair samples."""
    return tuple((a + b) / 2.0 for a, b in zip(first, second, strict=True))


def gain_null(null: GainNull, fair_loss: float) -> float:
    """The honest null of the gain score at a mean fair loss: ``intercept + slope fair_loss``
    (:data:`GAIN_NULLS`)."""
    return null.intercept + null.slope * fair_loss


def gain_z(count: Count, null: float = 0.0, null_error: float = 0.0) -> float:
    """The self-normalised sum of the hindsight gains less their honest mean ``null`` per
    decision: ``sum (d - null) / sqrt(sum (d - null)^2 + n^2 null_error^2)`` (0 on none).

    ``null_error`` is the standard error of ``null`` itself (a mean measured on honest bots'
    play): an honest seat whose true mean lies above the measured one by some errors would
    otherwise score without bound as its decisions grow; with it, its score tends to that many
    errors at most, and short reports are hardly touched."""
    n = count.gain_decisions
    squares = count.gain_squares - 2.0 * null * count.gain_sum + n * null * null
    squares += (n * null_error) ** 2
    if n == 0 or squares <= 0.0:
        return 0.0
    return (count.gain_sum - n * null) / math.sqrt(squares)


def _best(values: Sequence[float]) -> frozenset[int]:
    top = max(values)
    return frozenset(i for i, v in enumerate(values) if v >= top - EPSILON)


def _peeking(tracker: Tracker, hands: tuple[int, int, int, int], seats: Iterable[int]) -> Tracker:
    """The tracker of a seat that also knows the real hands of ``seats``."""
    known = list(tracker.known)
    excluded = list(tracker.excluded)
    for seat in seats:
        known[seat] = hands[seat] & tracker.unseen
        excluded[seat] = tracker.unseen & ~hands[seat]
    return tracker._replace(
        known=(known[0], known[1], known[2], known[3]),
        excluded=(excluded[0], excluded[1], excluded[2], excluded[3]),
    )


def _sampled(
    position: Position,
    plays: Sequence[Play],
    same: Sequence[int],
    wanted: Sequence[int],
    sample: Callable[[], tuple[int, int, int, int]],
    worlds: int,
    stop: StopCheck,
) -> list[float]:
    """The mean card points (tricks as a ninth) of the seat's team after each play, over
    ``worlds`` sampled worlds (a world drawn twice is solved once)."""
    team = position.seat & 1
    sums = [0.0] * len(plays)
    solved: dict[tuple[int, int, int, int], list[float]] = {}
    for _ in range(worlds):
        stop.check()
        world = sample()
        outcome = solved.get(world)
        if outcome is None:
            values = solve_position(replace(position, hands=world), plays, wanted, stop.deadline)
            outcome = solved[world] = []
            for i in range(len(plays)):
                abnat, won = values[same[i]]
                outcome.append(abnat[team] + won[team] / 9.0)
        for i, value in enumerate(outcome):
            sums[i] += value
    return [s / worlds for s in sums]


@dataclass(frozen=True, slots=True)
class DecisionFigures:
    """One card decision's figures: the values per state of knowledge and the card played."""

    round_index: int
    action_index: int
    seat: int
    taken: int
    values: dict[Knowledge, tuple[float, ...]]
    fair_samples: tuple[tuple[float, ...], tuple[float, ...]] | None = None
    """The fair values of two independent samples of worlds (``values[FAIR]`` is their mean),
    for the hindsight gain (:func:`cross_fitted_gain`); None: both are the fair values
    themselves (the gain then weighs by the values it weighs)."""


def decision_figures(
    round_: ReplayedRound,
    step: Step,
    worlds: int,
    rng_of: Callable[[str], random.Random],
    stop: StopCheck,
) -> DecisionFigures | None:
    """The figures of one card decision (None for a forced card or a card the rules forbid):
    ``worlds`` worlds per sampled state of knowledge, twice that for the fair one (two
    independent samples, ``fair_samples``)."""
    before = step.before
    seat = step.seat
    position = position_of(before)
    if position.seat != seat:
        return None
    real = solve(
        position, deadline=stop.deadline, search=round_.search(position.contract, seat & 1)
    )
    plays = [v.play for v in real.values]
    if len(plays) < 2 or step.action not in plays:
        return None
    team = seat & 1
    values: dict[Knowledge, tuple[float, ...]] = {
        Knowledge.ALL: tuple(v.points[team] + v.tricks[team] / 9.0 for v in real.values)
    }
    obs = observe(before, seat)
    tracker = track(obs)
    same = representatives(position, plays)
    wanted = sorted(set(same))
    hands = before.hands
    peeks: dict[str, tuple[int, ...]] = {
        FAIR_SAMPLES[0]: (),
        FAIR_SAMPLES[1]: (),
        Knowledge.PARTNER.value: (partner_of(seat),),
        Knowledge.LEFT.value: ((seat + 1) & 3,),
        Knowledge.RIGHT.value: ((seat + 3) & 3,),
    }
    samples = {}
    for label, seen in peeks.items():
        rng = rng_of(label)
        known = _peeking(tracker, hands, seen) if seen else tracker

        def sample(known: Tracker = known, rng: random.Random = rng) -> tuple[int, int, int, int]:
            return sample_hands(obs, known, rng)

        samples[label] = tuple(_sampled(position, plays, same, wanted, sample, worlds, stop))
    first, second = samples.pop(FAIR_SAMPLES[0]), samples.pop(FAIR_SAMPLES[1])
    values[Knowledge.FAIR] = fair_of(first, second)
    for knowledge in (Knowledge.PARTNER, Knowledge.LEFT, Knowledge.RIGHT):
        values[knowledge] = samples[knowledge.value]
    return DecisionFigures(
        round_.index,
        step.action_index,
        seat,
        plays.index(step.action),
        values,
        (first, second),
    )


def tally_of(figures: Iterable[DecisionFigures], seats: Iterable[int]) -> dict[int, Tally]:
    """The tally of each seat of ``seats`` over decisions' figures."""
    tallies = {seat: Tally() for seat in seats}
    for found in figures:
        tally = tallies.get(found.seat)
        if tally is None:
            continue
        fair = found.values[Knowledge.FAIR]
        samples = found.fair_samples or (fair, fair)
        fair_best = _best(fair)
        tally.decisions += 1
        tally.fair_loss += max(0.0, max(fair) - fair[found.taken])
        for knowledge in PEEKS:
            values = found.values[knowledge]
            count = tally.counts[knowledge]
            count.add_gain(bounded_gain(cross_fitted_gain(values, samples, found.taken)))
            best = _best(values)
            if best & fair_best:
                continue
            count.telling += 1
            if found.taken in best:
                count.hits += 1
            reference = max(values[i] for i in fair_best)
            count.gain += values[found.taken] - reference
    return tallies


def _card_steps(round_: ReplayedRound, seats: frozenset[int]) -> list[Step]:
    steps = []
    for step in round_.steps:
        if step.seat not in seats or not isinstance(step.action, Play):
            continue
        if sum(1 for a in legal_actions(step.before, step.seat) if isinstance(a, Play)) >= 2:
            steps.append(step)
    return steps


def record_figures(
    start: State,
    rounds: Sequence[RecordedRound],
    *,
    seats: Iterable[int] = (0, 1, 2, 3),
    worlds: int = DEFAULT_WORLDS,
    seed: int = 0,
    record_index: int = 0,
    deadline: float | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Iterator[int | DecisionFigures | None]:
    """One record's card decisions of ``seats``: first the number of decisions to analyse (an
    ``int``), then each decision's figures as computed (None for one with nothing to compare).

    Raises the replay's :class:`~baloot_engine.rules.record.DivergenceError` for a record the
    rules refuse, and :class:`AnalysisStoppedError` past ``deadline`` (:func:`time.monotonic`)
    or when cancelled.
    """
    if not 1 <= worlds <= MAX_WORLDS:
        raise ValueError(f"worlds per decision are 1-{MAX_WORLDS}, got {worlds}")
    stop = StopCheck(deadline, cancelled)
    chosen = frozenset(seats)
    plans = [
        (r, _card_steps(r, chosen)) for r in replayed_rounds(start, rounds) if r.ended and r.scored
    ]
    yield sum(len(steps) for _, steps in plans)
    for round_, steps in plans:
        for step in steps:
            stop.check()

            def rng_of(
                label: str, place: str = f"{round_.index}/{step.action_index}"
            ) -> random.Random:
                return random.Random(f"fairplay/{seed}/{record_index}/{place}/{label}")

            try:
                found = decision_figures(round_, step, worlds, rng_of, stop)
            except SolverBudgetError:
                raise AnalysisStoppedError("the analysis ran past its deadline") from None
            yield found


def rows_of(
    tallies: dict[int, Tally],
    *,
    base_rates: dict[Knowledge, BaseRate] = BASE_RATES,
    thresholds: dict[Hypothesis, float] = THRESHOLDS,
    partnership_thresholds: dict[Hypothesis, float] = PARTNERSHIP_THRESHOLDS,
    min_decisions: int = MIN_DECISIONS,
) -> tuple[Row, ...]:
    """The report's rows: each seat, then each partnership (its two seats' tallies added,
    flagged against the partnerships' thresholds)."""
    groups: list[tuple[int, ...]] = [(s,) for s in sorted(tallies)]
    for team in (0, 1):
        pair = (team, team + 2)
        if all(s in tallies for s in pair):
            groups.append(pair)
    rows = []
    for group in groups:
        total = Tally()
        for seat in group:
            total.add(tallies[seat])
        rows.append(
            Row(
                group,
                total.decisions,
                round(total.mean_fair_loss, 3),
                tuple(
                    score(
                        total,
                        h,
                        base_rates=base_rates,
                        thresholds=thresholds if len(group) == 1 else partnership_thresholds,
                        min_decisions=min_decisions,
                    )
                    for h in Hypothesis
                ),
            )
        )
    return tuple(rows)


def fair_play(
    records: Sequence[tuple[State, Sequence[RecordedRound]]],
    *,
    seats: Iterable[int] = (0, 1, 2, 3),
    worlds: int = DEFAULT_WORLDS,
    seed: int = 0,
    deadline: float | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Iterator[Progress | FairPlayReport]:
    """The fair-play report of a set of records (the same players in the same seats).

    Every record is replayed first (raising the replay's
    :class:`~baloot_engine.rules.record.DivergenceError` for one the rules refuse); then yields
    a :class:`Progress` (0 of the total), one after each decision and after each record, and
    the :class:`FairPlayReport` last. Deterministic for a seed; ``deadline`` and ``cancelled``
    stop it with :class:`AnalysisStoppedError`.
    """
    if len(records) > MAX_RECORDS:
        raise ValueError(f"a report reads at most {MAX_RECORDS} records, got {len(records)}")
    chosen = sorted(set(seats))
    tallies = {seat: Tally() for seat in chosen}
    # Every record replayed first (a record the rules refuse fails before any work), so that
    # the total is known from the first progress report.
    plans = []
    total = 0
    for index, (start, rounds) in enumerate(records):
        items = record_figures(
            start,
            rounds,
            seats=chosen,
            worlds=worlds,
            seed=seed,
            record_index=index,
            deadline=deadline,
            cancelled=cancelled,
        )
        count = next(items)
        assert isinstance(count, int)
        total += count
        plans.append(items)
    done = 0
    yield Progress(0, total, 0, len(records))
    for index, items in enumerate(plans):
        figures: list[DecisionFigures] = []
        for item in items:
            done += 1
            if isinstance(item, DecisionFigures):
                figures.append(item)
            yield Progress(done, total, index, len(records))
        for seat, tally in tally_of(figures, chosen).items():
            tallies[seat].add(tally)
        yield Progress(done, total, index + 1, len(records))
    yield FairPlayReport(len(records), rows_of(tallies))


__all__ = [
    "BASE_RATES",
    "DEFAULT_WORLDS",
    "GAIN_LIMIT",
    "GAIN_NULLS",
    "GAIN_TEMPERATURE",
    "HITS_WEIGHT",
    "MAX_FAIR_LOSS",
    "MAX_RECORDS",
    "MAX_WORLDS",
    "MIN_DECISIONS",
    "MIN_GAIN_DECISIONS",
    "PARTNERSHIP_THRESHOLDS",
    "SCORE_CORRELATION",
    "THRESHOLDS",
    "BaseRate",
    "Count",
    "DecisionFigures",
    "FairPlayReport",
    "GainNull",
    "Hypothesis",
    "Knowledge",
    "Progress",
    "Row",
    "Score",
    "Tally",
    "bounded_gain",
    "combined_score",
    "cross_fitted_gain",
    "fair_of",
    "fair_play",
    "fair_weights",
    "gain_null",
    "gain_z",
    "hindsight_gain",
    "p_value",
    "record_figures",
    "rows_of",
    "score",
    "tally_of",
    "z_score",
]
