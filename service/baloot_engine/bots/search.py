"""STRONG: determinized search over the worlds consistent with what the seat knows.

For a card decision the bot samples deals of the unseen cards that agree with everything its
seat knows (:mod:`baloot_engine.bots.tracking`), plays every candidate card in every sampled
world, finishes the hand with the play-out policy of :mod:`baloot_engine.bots.cardplay` for all
four seats, scores the result with the rules core's own scoring and keeps the card with the best
average score difference for its team. Every candidate meets the same worlds (common random
numbers), cards that are equivalent in the seat's hand are tried once, and the work is bounded
by a budget of simulated card plays (plus a wall-clock deadline when no seed is given), so a
decision costs about the same at every point of the round.

Doubling decisions use the same machinery: sampled worlds are played out once per playing mode
and scored under each multiplier the seat may choose.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Final, NamedTuple

from baloot_engine.bots.cardplay import choose_card
from baloot_engine.bots.equity import equity_after, equity_slope, match_equity
from baloot_engine.bots.tracking import Tracker, sample_hands, track
from baloot_engine.rules.actions import Doubling, DoublingCall
from baloot_engine.rules.cards import ACE, HIGHER, POINTS, STRENGTHS, SUIT_MASKS
from baloot_engine.rules.contract import Contract, PlayMode
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.facts import AwardedProject, RoundFacts, award_projects
from baloot_engine.rules.observation import Observation
from baloot_engine.rules.play import allowed_cards
from baloot_engine.rules.projects import ProjectKind, best_projects, project_rank
from baloot_engine.rules.ruleset import FirstLeader, RuleSet
from baloot_engine.rules.scoring import score_round

GAHWA_VALUE: Final = 200
"""The score difference a Gahwa round is worth to the search (it decides the match)."""

EQUITY_SCALE: Final = 10_000
"""A match-aware score: the chance to win the match after the round, from -EQUITY_SCALE (lost)
to +EQUITY_SCALE (won)."""

_CLASS: Final = {
    ProjectKind.SIRA: 1.0,
    ProjectKind.FIFTY: 2.0,
    ProjectKind.HUNDRED: 3.5,
    ProjectKind.FOUR_HUNDRED: 5.0,
    ProjectKind.BALOOT: 0.0,
}


Sampler = Callable[[Observation, Tracker, random.Random], tuple[int, int, int, int]]
Finisher = Callable[[list[int], int, Contract, RuleSet], tuple[tuple[int, int], tuple[int, int]]]
"""Plays a whole deal out from its first lead: (hands, leader, contract, rules) -> (abnat with
the last-trick bonus, tricks won). :func:`play_whole` by default (the play-out policy)."""
"""Deals the unseen cards of one world (:func:`sample_hands` or a weighted variant)."""


class Budget(NamedTuple):
    """How much work one STRONG decision may do.

    ``steps`` simulated card plays in all; at least ``min_samples`` and at most ``max_samples``
    sampled worlds; ``seconds`` of wall-clock time when the decision is not seeded (a seeded
    decision must repeat exactly, so only the step budget bounds it).
    """

    steps: int = 6000
    min_samples: int = 6
    max_samples: int = 100
    seconds: float = 0.030


DEFAULT_BUDGET: Final = Budget()


_ScoreTable = dict[tuple[tuple[int, int], tuple[int, int]], int]
"""Score differences by (abnat, tricks won) for one contract, rule set, projects and Baloot."""

_TABLES: dict[tuple[object, ...], _ScoreTable] = {}
_MAX_TABLES: Final = 256


def in_score_units(
    points: float, match: tuple[int, int] | None, team: int, rules: RuleSet
) -> float:
    """A margin of ``points`` game points a round in the units a scorer for ``match`` uses:
    the points themselves, or (playing for the match) the chance that many points of
    difference are worth at these totals, on the :data:`EQUITY_SCALE`."""
    if match is None:
        return points
    target = rules.match_target
    return 2 * EQUITY_SCALE * points * equity_slope(match[team], match[1 - team], target)


def standing_value(match: tuple[int, int] | None, team: int, rules: RuleSet) -> float:
    """What a round with no result (a redeal) is worth to a scorer for ``match``: 0 points, or
    the chance to win the match from the totals as they stand."""
    if match is None:
        return 0.0
    target = rules.match_target
    if match[0] >= target or match[1] >= target:
        return 0.0
    return _on_scale(match_equity(match[team], match[1 - team], target))


def _on_scale(equity: float) -> float:
    """A chance to win the match as a match-aware score: -EQUITY_SCALE to +EQUITY_SCALE."""
    return EQUITY_SCALE * (2 * equity - 1)


class Scorer:
    """Round results to score differences for one team, with the rules core's scoring.

    The results are kept in tables shared by every decision of the process (by contract, rule
    set, team, projects and Baloot): the scoring is a pure function of them.
    """

    def __init__(
        self,
        contract: Contract,
        rules: RuleSet,
        team: int,
        match: tuple[int, int] | None = None,
    ) -> None:
        self.contract = contract
        self.rules = rules
        self.team = team
        self.match = match

    def table(
        self,
        projects: tuple[AwardedProject, ...],
        baloot: tuple[int, ...],
        contract: Contract | None = None,
    ) -> _ScoreTable:
        """The (shared) table of results already scored for these projects and Baloot."""
        contract = contract or self.contract
        key = (
            self.rules,
            self.team,
            contract.type,
            contract.buyer_team,
            contract.multiplier,
            contract.gahwa,
            projects,
            baloot,
            self.match,
        )
        table = _TABLES.get(key)
        if table is None:
            if len(_TABLES) >= _MAX_TABLES:
                _TABLES.clear()
            table = _TABLES[key] = {}
        return table

    def value(
        self,
        abnat: tuple[int, int],
        won: tuple[int, int],
        projects: tuple[AwardedProject, ...],
        baloot: tuple[int, ...],
        contract: Contract | None = None,
        table: _ScoreTable | None = None,
    ) -> int:
        if table is None:
            table = self.table(projects, baloot, contract)
        cached = table.get((abnat, won))
        if cached is not None:
            return cached
        contract = contract or self.contract
        facts = RoundFacts(
            contract=contract.type,
            buyer_team=contract.buyer_team,
            card_abnat=abnat,
            tricks_won=won,
            projects=projects,
            baloot_teams=baloot,
            multiplier=contract.multiplier,
            gahwa=contract.gahwa,
        )
        try:
            score = score_round(facts, self.rules)
        except RuleError:  # pragma: no cover - an estimate the scoring refuses
            value = abnat[self.team] - abnat[1 - self.team]
        else:
            if score.gahwa_winner is not None:
                value = GAHWA_VALUE if score.gahwa_winner == self.team else -GAHWA_VALUE
                if self.match is not None:
                    value *= EQUITY_SCALE // GAHWA_VALUE
            elif self.match is not None:
                equity = equity_after(
                    self.match, score.points, self.team, contract.buyer_team, self.rules
                )
                value = round(_on_scale(equity))
            else:
                value = score.points[self.team] - score.points[1 - self.team]
        table[(abnat, won)] = value
        return value


def play_out(
    hands: list[int],
    trick: list[int],
    leader: int,
    played: int,
    abnat: list[int],
    won: list[int],
    akka: bool,
    contract: Contract,
    rules: RuleSet,
) -> tuple[tuple[int, int], tuple[int, int]]:
    """Finish the hand with the play-out policy; return (abnat with the last-trick bonus, tricks).

    ``hands`` and ``trick`` are changed in place.
    """
    trump = contract.trump
    points = POINTS[trump + 1]
    strength = STRENGTHS[trump + 1]
    higher = HIGHER[trump + 1]
    buyer = contract.buyer_team
    suit_masks = SUIT_MASKS
    open_lead = trump < 0 or not contract.closed
    a0, a1 = abnat
    w0, w1 = won
    gone = played
    for card in trick:
        gone |= 1 << card
    last = 0
    while True:
        n = len(trick)
        if n == 4:
            led = trick[0] >> 3
            best = 0
            for i in (1, 2, 3):
                card = trick[i]
                suit = card >> 3
                if suit in (led, trump) and strength[card] > strength[trick[best]]:
                    best = i
            winner = (leader + best) & 3
            p = points[trick[0]] + points[trick[1]] + points[trick[2]] + points[trick[3]]
            if winner & 1:
                a1 += p
                w1 += 1
            else:
                a0 += p
                w0 += 1
            played = gone
            if w0 + w1 == 8:
                last = winner & 1
                break
            trick.clear()
            leader = winner
            akka = False
            continue
        seat = (leader + n) & 3
        hand = hands[seat]
        if hand & (hand - 1) == 0:
            card = hand.bit_length() - 1  # the last card of the hand: forced
        else:
            # allowed_cards, answered here in its two commonest cases, which are what it
            # returns then: a lead in an open game or in Sun (any card), a plain suit led and
            # held (that suit).
            if n:
                led = trick[0] >> 3
                options = hand & suit_masks[led] if led != trump else 0
            else:
                options = hand if open_lead else 0
            if not options:
                options = allowed_cards(
                    hand, tuple(trick), leader, seat, played, akka, contract, rules
                )
            if options & (options - 1):
                card = choose_card(options, hand, trick, gone, trump, seat & 1 == buyer)
            else:
                card = options.bit_length() - 1
        if n == 0 and trump >= 0 and card >> 3 != trump and card & 7 != ACE:
            akka = higher[card] & ~played == 0  # the leader calls Akka whenever he may
        hands[seat] = hand ^ (1 << card)
        gone |= 1 << card
        trick.append(card)
    if last:
        a1 += 10
    else:
        a0 += 10
    return (a0, a1), (w0, w1)


def _equivalence_groups(obs: Observation, options: int, trump: int) -> list[int]:
    """One card of each group of cards that win and lose exactly the same tricks."""
    points = POINTS[trump + 1]
    strength = STRENGTHS[trump + 1]
    in_trick = 0
    for card in obs.trick:
        in_trick |= 1 << card
    out = ~obs.hand & ~obs.played  # in another hand (or in the trick)
    chosen: list[int] = []
    for suit in range(4):
        suit_cards = list(range(suit * 8, suit * 8 + 8))
        suit_cards.sort(key=lambda c: strength[c], reverse=True)
        previous = -1
        for card in suit_cards:
            if options >> card & 1:
                if previous < 0 or points[previous] != points[card]:
                    chosen.append(card)
                previous = card
            elif out >> card & 1 or in_trick >> card & 1:
                previous = -1
            # a card of the own hand that is not an option, or a played card: no break
    return chosen


def declared_projects(obs: Observation) -> tuple[AwardedProject, ...]:
    """The projects that will score, as far as the seat can tell (R29)."""
    if obs.project_team >= 0:
        return tuple(AwardedProject(seat & 1, p.kind) for seat, p in obs.shown)
    first = (obs.dealer + 1) & 3
    best: tuple[float, int] | None = None
    team = -1
    for step in range(4):
        seat = (first + step) & 3
        kinds = obs.declared[seat]
        if not kinds:
            continue
        if seat == obs.seat and obs.own_projects:
            rank = max(
                (_CLASS[p.kind], project_rank(p)[1])
                if p.kind is not ProjectKind.HUNDRED
                # a sequence Hundred beats a four-of-a-kind one
                else (3.5 + (0.25 if p.sequence else -0.25), project_rank(p)[1])
                for p in obs.own_projects
            )
        else:
            rank = (max(_CLASS[kind] for kind in kinds), 3)
        if best is None or rank > best:
            best, team = rank, seat & 1
    if team < 0:
        return ()
    return tuple(
        AwardedProject(team, kind)
        for seat in range(4)
        if seat & 1 == team
        for kind in (obs.declared[seat] or ())
    )


def known_baloot(obs: Observation) -> tuple[int, ...]:
    return (obs.baloot_seat & 1,) if obs.baloot_seat >= 0 else ()


def card_candidates(obs: Observation, options: int) -> tuple[int, list[int]]:
    """The heuristic's card, and one card of each group of ``options`` that win and lose the
    same tricks, the heuristic's own first (so that a tie keeps it): what a search compares."""
    contract = obs.contract
    assert contract is not None
    gone = obs.played
    for card in obs.trick:
        gone |= 1 << card
    buyer = obs.team == contract.buyer_team
    first = choose_card(options, obs.hand, obs.trick, gone, contract.trump, buyer)
    candidates = _equivalence_groups(obs, options, contract.trump)
    candidates.sort(key=lambda c: c != first)
    return first, candidates


def search_card(
    obs: Observation,
    options: int,
    rng: random.Random,
    budget: Budget,
    *,
    deadline: float | None,
    sampler: Sampler = sample_hands,
) -> int:
    """The card of ``options`` with the best average result over sampled worlds."""
    contract = obs.contract
    assert contract is not None
    trump = contract.trump
    first, candidates = card_candidates(obs, options)
    if len(candidates) <= 1:
        return first
    tracker = track(obs)
    remaining = 32 - obs.played.bit_count() - len(obs.trick)
    per_sample = len(candidates) * remaining
    samples = max(budget.min_samples, min(budget.max_samples, budget.steps // per_sample))
    scorer = Scorer(contract, obs.rules, obs.team)
    projects = declared_projects(obs)
    baloot = known_baloot(obs)
    table = scorer.table(projects, baloot)
    won = obs.tricks_won
    totals = [0] * len(candidates)
    akka_now = obs.akka
    for done in range(samples):
        if deadline is not None and done >= 2 and time.perf_counter() > deadline:
            break
        world = sampler(obs, tracker, rng)
        for i, card in enumerate(candidates):
            hands = list(world)
            hands[obs.seat] ^= 1 << card
            trick = [*obs.trick, card]
            akka = akka_now
            if not obs.trick and trump >= 0 and card >> 3 != trump and card & 7 != ACE:
                akka = HIGHER[trump + 1][card] & ~obs.played == 0
            abnat, tricks = play_out(
                hands,
                trick,
                obs.leader,
                obs.played,
                list(obs.abnat),
                list(won),
                akka,
                contract,
                obs.rules,
            )
            value = table.get((abnat, tricks))
            if value is None:
                value = scorer.value(abnat, tricks, projects, baloot, table=table)
            totals[i] += value
    best = 0
    for i in range(1, len(candidates)):
        if totals[i] > totals[best]:
            best = i
    return candidates[best]


def deal_facts(
    hands: Sequence[int], contract: Contract, rules: RuleSet, first_seat: int
) -> tuple[tuple[AwardedProject, ...], tuple[int, ...]]:
    """What a whole deal scores besides its tricks: the projects every seat would declare,
    compared as the rules award them (``first_seat`` speaks first), and the team holding the
    Baloot (the king and queen of trump), empty when nobody does."""
    declared = [best_projects(hands[s], contract.trump, rules) for s in range(4)]
    awarded = award_projects(declared, first_seat)
    baloot: tuple[int, ...] = ()
    if contract.trump >= 0:
        kq = (3 << 5) << (8 * contract.trump)
        for seat in range(4):
            if hands[seat] & kq == kq:
                baloot = (seat & 1,)
    return awarded, baloot


def first_leader(obs: Observation, contract: Contract) -> int:
    if obs.rules.first_leader is FirstLeader.BUYER:
        return contract.buyer
    return (obs.dealer + 1) & 3


def with_call(contract: Contract, call: Doubling, rules: RuleSet) -> Contract:
    """The contract after a doubling call (the mode of a call that names none is kept)."""
    mode = contract.mode if call.mode is None else call.mode
    kind = call.call
    if kind is DoublingCall.DOUBLE:
        return replace(contract, multiplier=2, mode=mode)
    if kind is DoublingCall.TRIPLE:
        return replace(contract, multiplier=3)
    if kind is DoublingCall.FOUR:
        return replace(contract, multiplier=4, mode=mode)
    if kind is DoublingCall.GAHWA:
        if rules.gahwa_forces_open:
            mode = PlayMode.OPEN
        return replace(contract, gahwa=True, mode=mode)
    if kind is DoublingCall.CHOOSE_MODE:
        return replace(contract, mode=mode)
    return contract


def play_whole(
    hands: list[int], leader: int, contract: Contract, rules: RuleSet
) -> tuple[tuple[int, int], tuple[int, int]]:
    """A whole deal played out from its first lead by the play-out policy (``hands`` changed)."""
    return play_out(hands, [], leader, 0, [0, 0], [0, 0], False, contract, rules)


def search_doubling(
    obs: Observation,
    calls: list[Doubling],
    rng: random.Random,
    samples: int,
    margin: float,
    sampler: Sampler = sample_hands,
    *,
    match_aware: bool = False,
    finish: Finisher = play_whole,
) -> Doubling:
    """The doubling call with the best average result over sampled, played-out worlds.

    Declining (or keeping the level) wins ties and needs to be beaten by ``margin`` points per
    round: a raise hands the other team the next raise. With ``match_aware`` the results are
    scored by the chance to win the match after the round (the margin by what that many
    points are worth at the totals). ``finish`` plays each world out (EXPERT's solves the end).
    """
    contract = obs.contract
    assert contract is not None
    tracker: Tracker = track(obs)
    match = obs.match_scores if match_aware else None
    scorer = Scorer(contract, obs.rules, obs.team, match)
    margin = in_score_units(margin, match, obs.team, obs.rules)
    results = [with_call(contract, call, obs.rules) for call in calls]
    modes = sorted({c.mode for c in results}, key=lambda m: m.value)
    totals = [0.0] * len(calls)
    leader = first_leader(obs, contract)
    first_seat = (obs.dealer + 1) & 3
    for _ in range(samples):
        world = sampler(obs, tracker, rng)
        awarded, baloot = deal_facts(world, contract, obs.rules, first_seat)
        outcome = {}
        for mode in modes:
            played_contract = replace(contract, mode=mode)
            outcome[mode] = finish(list(world), leader, played_contract, obs.rules)
        for i, result in enumerate(results):
            abnat, won = outcome[result.mode]
            totals[i] += scorer.value(abnat, won, awarded, baloot, result)
    keep = [
        i
        for i, call in enumerate(calls)
        if call.call is DoublingCall.DECLINE or call.call is DoublingCall.CHOOSE_MODE
    ]
    best = keep[0] if keep else 0
    for i in range(len(calls)):
        bonus = 0.0 if i in keep else margin * samples
        if totals[i] - bonus > totals[best] - (0.0 if best in keep else margin * samples):
            best = i
    return calls[best]


TABLES: Final = (_TABLES, _MAX_TABLES)
"""The score tables' cache and its bound (``server/caches.py``)."""

__all__ = [
    "DEFAULT_BUDGET",
    "Budget",
    "Finisher",
    "Sampler",
    "deal_facts",
    "in_score_units",
    "play_out",
    "play_whole",
    "search_card",
    "search_doubling",
    "standing_value",
]
