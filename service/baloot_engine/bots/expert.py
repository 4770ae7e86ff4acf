"""EXPERT: a deeper determinized search, finished by the exact endgame solver.

Like STRONG (:mod:`baloot_engine.bots.search`), the bot samples worlds consistent with its
seat's observation and tries every candidate card in every world. Two things differ:

* each play-out runs the heuristic card policy only until few cards are left in each hand; the
  rest of the round is then solved exactly in that world (:mod:`baloot_engine.bots.endgame`),
  and once few enough cards are left at the decision itself the whole remainder is solved;
* the work is bounded by a wall-clock budget (500 ms by default) rather than a count of card
  plays, so it samples many more worlds than STRONG does. It stops before a world that would,
  at the pace of the worlds so far, end after the deadline.

A seeded decision has no deadline, so that it repeats exactly: it samples ``ExpertBudget.worlds``
worlds, and stops earlier, by the same rule, before a world that would take its *work* past
what its time budget buys (``seconds × work_per_second`` units of :func:`world_work`, a count
calibrated to cost about that much CPU time on the reference machine). Typical decisions do
all their worlds; only the costliest are cut, so a seeded decision costs about as much as an
unseeded one at most. An unseeded one samples until its deadline (at least ``min_worlds``, at
most ``max_worlds``), which makes the number of worlds, and possibly the choice, vary with the
machine's speed.
"""

from __future__ import annotations

import random
import time
from typing import Final, Literal, NamedTuple

from baloot_engine.bots.cardplay import choose_card
from baloot_engine.bots.endgame import Solver
from baloot_engine.bots.inference import play_history, play_weight
from baloot_engine.bots.search import (
    Finisher,
    Sampler,
    Scorer,
    card_candidates,
    declared_projects,
    known_baloot,
)
from baloot_engine.bots.signals import signal_marks, signal_weight, signalled
from baloot_engine.bots.tracking import Tracker, sample_hands, track
from baloot_engine.rules.cards import (
    ACE,
    FULL_DECK,
    HIGHER,
    LAST_TRICK_BONUS,
    POINTS,
    STRENGTHS,
    SUIT_MASKS,
    trick_winner_index,
)
from baloot_engine.rules.contract import Contract
from baloot_engine.rules.facts import AwardedProject
from baloot_engine.rules.observation import Observation
from baloot_engine.rules.play import allowed_cards
from baloot_engine.rules.ruleset import RuleSet
from baloot_engine.solver import TRICK_WEIGHT, DealSearch, Position, deal_value, new_search

MAX_SECONDS: Final = 5.0
"""The largest time budget an EXPERT decision may be given."""

WORK_PER_SECOND: Final = 400_000
"""Units of :func:`world_work` that one second of CPU time does on the reference machine (the
shared 2-core machine of the project, 2 December 2026, where the calibration loop of
``bench/bench_rules.py`` ran about 220,000 times a second of CPU; 400 seeded decisions with a
choice took 2.5 µs a unit, p5-p95 1.9-3.5 µs, over those costing more than 100 ms)."""

PLAY_WORK: Final = 2.5
"""The work of a card played by the heuristic in a play-out, in solver nodes."""
PLAY_OUT_WORK: Final = 10
"""The work of starting a play-out (one candidate in one world) and scoring it, in nodes."""
WORLD_WORK: Final = 20
"""The work of sampling a world, in nodes."""


NODE_WORK: Final = 0.048
"""The work of a node of the compiled solver in a whole-world solve, in :func:`world_work` units
(calibrated like :data:`WORK_PER_SECOND`, whose unit was one node of the pure-Python solver: the
197 seeded decisions of six matches took 0.111 µs of CPU a node over those costing more than
100 ms, with the calibration loop at 238,000 a second: 0.120 µs on the reference machine's
220,000, so 0.048 units. The solver's table keyed by shapes tries four to five times fewer nodes
than the search this was first calibrated on, 0.077 µs a node and 0.033 units, and each of its
nodes does more)."""


class ExpertBudget(NamedTuple):
    """How much work one EXPERT decision may do.

    ``worlds`` sampled worlds for a seeded decision (no deadline, so it repeats exactly); an
    unseeded one samples until ``seconds`` of wall-clock time have passed, at least
    ``min_worlds`` and at most ``max_worlds``. Play-outs hand over to the exact solver once
    ``solve_at`` cards are left in each hand (0: heuristic play-outs to the end). Once
    ``exact_at`` cards or fewer are left in the seat's hand at the decision itself, every
    candidate is solved exactly in every world, and at most ``exact_worlds`` worlds are
    sampled (few cards leave few worlds, and each costs a whole solve). A seeded decision
    (no deadline) also stops before its work would pass ``seconds × work_per_second`` units
    (:func:`world_work`; at least ``min_worlds`` worlds). With ``agree`` above 0
    each world counts by how likely the other seats' plays are in it
    (:func:`~baloot_engine.bots.inference.play_weight`, ``agree`` its model's chance of the
    heuristic card); 0 counts every world alike. ``match_aware`` (on by default) scores the
    card play by the chance to win the match after the round rather than by its points
    (:mod:`baloot_engine.bots.equity`); ``match_aware_calls`` (on by default) does the same for
    the bids and the doubling calls (their margins turned into what those points are worth at
    the totals).

    ``full_solve`` (on by default) solves each sampled world exactly from the decision to the
    end of the round once ``solve_at`` cards or fewer are left in the seat's hand (8: from the
    first lead on), points and tricks, one table per world for every candidate; a solve the
    deadline (unseeded) or the work bound (seeded, a count of solver nodes of ``node_work``
    units each) stops drops its world. Off, the decision is the one measured before the
    compiled solver (:data:`BASELINE_EXPERT_BUDGET`): heuristic play-outs solved for the last
    ``solve_at`` cards. ``calls_solve_at`` above 0 plays the sampled deals of the bids and
    doubling calls by the heuristic until that many cards are left in each hand and solves the
    rest (8: each deal solved from its first lead); 0 plays them out by the heuristic alone.
    ``weighted_sampling`` (off by default) samples the card play's worlds with
    :func:`~baloot_engine.bots.inference.sample_weighted` (made to fit the calls when a few
    tries find such a world) instead of alike. ``mix`` above 0 (off by default) values each
    solved world's candidate at ``1 - mix`` times its solve plus ``mix`` times a heuristic
    play-out of it solved for its last three cards (the baseline's value of that world).
    ``call_samples`` above 0 samples that many deals for each bid and doubling call instead
    of the defaults (:data:`~baloot_engine.bots.policies.BIDDING_SAMPLES`,
    :data:`~baloot_engine.bots.policies.EXPERT_DOUBLING_SAMPLES`). ``resample`` above 1, with
    ``agree`` above 0, draws that many worlds for each world the card play uses and keeps one
    of them in proportion to the play model's weight (:func:`resampled`): the worlds then
    follow the model and count alike, rather than being drawn alike and weighed.
    ``postpone`` (off by default) values each candidate with the seat's own next card chosen
    once for every world it will not tell apart then (:func:`_next_turn`): in each world the
    other seats play their solved best cards up to the seat's next turn, the worlds are grouped
    by the cards the seat will have seen, and each group counts the one next card best over
    the whole group, not each world's own (whole-world solves only; a step against strategy
    fusion, the solves' assumption that the seat will know every hand from the next card on).
    ``signal`` (off by default) keeps the discard signal of :mod:`~baloot_engine.bots.signals`
    between partners: among cards valued exactly alike the seat throws as the convention says,
    and its worlds count less where the partner's throws would have broken it (whole-world
    solves only).
    """

    worlds: int = 96
    min_worlds: int = 4
    max_worlds: int = 2000
    seconds: float = 0.5
    solve_at: int = 8
    exact_at: int = 3
    exact_worlds: int = 2000
    agree: float = 0.0
    match_aware: bool = True
    match_aware_calls: bool = True
    work_per_second: int = WORK_PER_SECOND
    full_solve: bool = True
    node_work: float = NODE_WORK
    calls_solve_at: int = 0
    weighted_sampling: bool = False
    mix: float = 0.0
    call_samples: int = 0
    resample: int = 0
    postpone: bool = False
    signal: bool = False


DEFAULT_EXPERT_BUDGET: Final = ExpertBudget()

BASELINE_EXPERT_BUDGET: Final = ExpertBudget(
    solve_at=3, exact_at=3, full_solve=False, node_work=1.0
)
"""EXPERT as it played before whole-world solves: heuristic play-outs, the last three cards of
each round solved (the benchmark's ``expert_baseline``)."""


def with_seconds(budget: ExpertBudget, seconds: float) -> ExpertBudget:
    """``budget`` with its time budget set to ``seconds`` (capped at :data:`MAX_SECONDS`)."""
    return budget._replace(seconds=max(0.0, min(MAX_SECONDS, seconds)))


def world_work(nodes: int, candidates: int, plays: int, node_work: float = 1.0) -> float:
    """The work of one world, a deterministic stand-in for its CPU time: its solver ``nodes``
    (every candidate's solve, ``node_work`` units each), plus ``candidates`` play-outs of
    ``plays`` heuristic cards each, plus the sampling of the world."""
    return nodes * node_work + candidates * (PLAY_OUT_WORK + PLAY_WORK * plays) + WORLD_WORK


def _play_out_then_solve(
    hands: list[int],
    trick: list[int],
    leader: int,
    played: int,
    abnat: tuple[int, int],
    won: tuple[int, int],
    akka: bool,
    contract: Contract,
    rules: RuleSet,
    solver: Solver,
    solve_at: int,
) -> tuple[tuple[int, int], tuple[int, int]]:
    """Finish the round: heuristic cards until ``solve_at`` cards are left in each hand, then the
    exact solver; return (abnat with the last-trick bonus, tricks won)."""
    trump = contract.trump
    points = POINTS[trump + 1]
    strength = STRENGTHS[trump + 1]
    higher = HIGHER[trump + 1]
    buyer = contract.buyer_team
    open_lead = trump < 0 or not contract.closed
    a0, a1 = abnat
    w0, w1 = won
    gone = played
    for card in trick:
        gone |= 1 << card
    while True:
        n = len(trick)
        left = 8 - w0 - w1  # cards in the hand of a seat that has not played to this trick
        if left <= solve_at:
            return _solved(hands, tuple(trick), leader, played, akka, (a0, a1), (w0, w1), solver)
        if n == 4:
            led = trick[0] >> 3
            best = 0
            for i in (1, 2, 3):
                card = trick[i]
                if card >> 3 in (led, trump) and strength[card] > strength[trick[best]]:
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
                if winner & 1:
                    a1 += LAST_TRICK_BONUS
                else:
                    a0 += LAST_TRICK_BONUS
                return (a0, a1), (w0, w1)
            trick.clear()
            leader = winner
            akka = False
            continue
        seat = (leader + n) & 3
        hand = hands[seat]
        # allowed_cards, answered here in its two commonest cases (see search.play_out).
        if n:
            led = trick[0] >> 3
            options = hand & SUIT_MASKS[led] if led != trump else 0
        else:
            options = hand if open_lead else 0
        if not options:
            options = allowed_cards(hand, tuple(trick), leader, seat, played, akka, contract, rules)
        if options & (options - 1):
            card = choose_card(options, hand, trick, gone, trump, seat & 1 == buyer)
        else:
            card = options.bit_length() - 1
        if n == 0 and trump >= 0 and card >> 3 != trump and card & 7 != ACE:
            akka = higher[card] & ~played == 0
        hands[seat] = hand ^ (1 << card)
        gone |= 1 << card
        trick.append(card)


def solved_finisher(solve_at: int) -> Finisher:
    """Plays a whole deal by the heuristic until ``solve_at`` cards are left in each hand, then
    exactly (8: solved from the first lead, its tricks exact too), for the calls' simulations."""

    def finish(
        hands: list[int], leader: int, contract: Contract, rules: RuleSet
    ) -> tuple[tuple[int, int], tuple[int, int]]:
        if solve_at < 8:
            solver = Solver(contract, rules, 0)
            return _play_out_then_solve(
                hands, [], leader, 0, (0, 0), (0, 0), False, contract, rules, solver, solve_at
            )
        deal = (hands[0], hands[1], hands[2], hands[3])
        return deal_value(Position(deal, (), leader, 0, False, contract, rules))

    return finish


def _solved(
    hands: list[int],
    trick: tuple[int, ...],
    leader: int,
    played: int,
    akka: bool,
    abnat: tuple[int, int],
    won: tuple[int, int],
    solver: Solver,
) -> tuple[tuple[int, int], tuple[int, int]]:
    """The end of the round by exact play: the abnat and (estimated) tricks of both teams.

    The solver counts card points only; the tricks are estimated from them (a team that wins
    no point in the rest wins no trick, else each team wins at least one), which is what the
    scoring needs for a kaboot.
    """
    team = solver.team
    points = solver.points
    rest = LAST_TRICK_BONUS
    for card in trick:
        rest += points[card]
    still = hands[0] | hands[1] | hands[2] | hands[3]
    m = still
    while m:
        low = m & -m
        rest += points[low.bit_length() - 1]
        m ^= low
    ours = solver.solve((hands[0], hands[1], hands[2], hands[3]), trick, leader, played, akka)
    theirs = rest - ours
    left = 8 - won[0] - won[1]
    if theirs == 0:
        mine_tricks, their_tricks = left, 0
    elif ours == 0:
        mine_tricks, their_tricks = 0, left
    else:
        mine_tricks, their_tricks = left - 1, 1
    if team == 0:
        return (abnat[0] + ours, abnat[1] + theirs), (won[0] + mine_tricks, won[1] + their_tricks)
    return (abnat[0] + theirs, abnat[1] + ours), (won[0] + their_tricks, won[1] + mine_tricks)


def resampled(sampler: Sampler, obs: Observation, agree: float, draws: int) -> Sampler:
    """A sampler that draws ``draws`` worlds from ``sampler`` and keeps one in proportion to
    how likely the other seats' plays are in it (:func:`~baloot_engine.bots.inference.play_weight`
    with ``agree``; sampling-importance-resampling): its worlds follow the play model, each
    counting alike."""
    contract = obs.contract
    assert contract is not None
    history = play_history(obs)
    rules = obs.rules

    def sample(
        seen: Observation, tracker: Tracker, rng: random.Random
    ) -> tuple[int, int, int, int]:
        worlds = [sampler(seen, tracker, rng) for _ in range(draws)]
        weights = [play_weight(history, w, contract, rules, agree) for w in worlds]
        if sum(weights) <= 0.0:
            return worlds[0]
        return rng.choices(worlds, weights)[0]

    return sample


def expert_card(
    obs: Observation,
    options: int,
    rng: random.Random,
    budget: ExpertBudget,
    *,
    deadline: float | None,
    sampler: Sampler = sample_hands,
) -> int:
    """The card of ``options`` with the best average result over sampled, solved worlds."""
    contract = obs.contract
    assert contract is not None
    trump = contract.trump
    first, candidates = card_candidates(obs, options)
    if len(candidates) <= 1:
        return first
    if budget.resample > 1 and budget.agree > 0:
        sampler = resampled(sampler, obs, budget.agree, budget.resample)
        budget = budget._replace(agree=0.0)
    tracker = track(obs)
    scorer = Scorer(contract, obs.rules, obs.team, obs.match_scores if budget.match_aware else None)
    projects = declared_projects(obs)
    baloot = known_baloot(obs)
    table = scorer.table(projects, baloot)
    won = obs.tricks_won
    if budget.full_solve and 8 - won[0] - won[1] <= budget.solve_at:
        chosen = _solved_card(
            obs, candidates, rng, budget, deadline, sampler, tracker, scorer, projects, baloot
        )
        if chosen is not None:
            return chosen
        # Not one world solved in time: a quick answer by short play-outs instead.
        budget = budget._replace(
            full_solve=False, solve_at=3, exact_at=3, worlds=budget.min_worlds, node_work=1.0
        )
        deadline = None
    totals = [0.0] * len(candidates)
    limit = budget.worlds if deadline is None else budget.max_worlds
    solve_at = budget.solve_at
    if 8 - won[0] - won[1] <= budget.exact_at:
        solve_at = 8
        limit = min(limit, budget.exact_worlds)
    agree = budget.agree
    history = play_history(obs) if agree > 0 else None
    # A seeded decision's bound: its work, counted the same way whatever the machine.
    allowed = budget.seconds * budget.work_per_second
    plays = max(0, 32 - obs.played.bit_count() - len(obs.trick) - 1 - 4 * solve_at)
    work = 0.0
    started = time.perf_counter()
    for done in range(limit):
        if done >= max(1, budget.min_worlds):
            # Stop when another world, at the pace so far, would end after the deadline (or,
            # seeded, take the work past what the time budget buys).
            if deadline is None:
                if work + work / done > allowed:
                    break
            else:
                now = time.perf_counter()
                if now + (now - started) / done > deadline:
                    break
        world = sampler(obs, tracker, rng)
        weight = 1.0 if history is None else play_weight(history, world, contract, obs.rules, agree)
        solver = Solver(contract, obs.rules, obs.team)
        for i, card in enumerate(candidates):
            hands = list(world)
            hands[obs.seat] ^= 1 << card
            akka = obs.akka
            if not obs.trick and trump >= 0 and card >> 3 != trump and card & 7 != ACE:
                akka = HIGHER[trump + 1][card] & ~obs.played == 0
            abnat, tricks = _play_out_then_solve(
                hands,
                [*obs.trick, card],
                obs.leader,
                obs.played,
                obs.abnat,
                won,
                akka,
                contract,
                obs.rules,
                solver,
                solve_at,
            )
            value = table.get((abnat, tricks))
            if value is None:
                value = scorer.value(abnat, tricks, projects, baloot, table=table)
            totals[i] += weight * value
        work += world_work(solver.nodes, len(candidates), plays)
    best = 0
    for i in range(1, len(candidates)):
        if totals[i] > totals[best]:
            best = i
    return candidates[best]


class _Turn(NamedTuple):
    """The seat's next turn in one world after a candidate: the cards the others play before
    it (what the seat will have seen), and the solved value of each card it may then play."""

    seen: tuple[int, ...]
    values: dict[int, int]


def _next_turn(
    search: DealSearch,
    hands: list[int],
    trick: tuple[int, ...],
    leader: int,
    played: int,
    akka: bool,
    seat: int,
    contract: Contract,
    rules: RuleSet,
    max_nodes: int,
    until: float,
) -> _Turn | Literal[False] | None:
    """Play on from a position in one world, every other seat choosing its solved best card
    there, to the seat's own next turn, and value each card it may then play (solved, from the
    position of the decision: points and tricks won on the way counted in). False when the
    round ends first, None when the search stopped (its node bound or deadline)."""
    trump = contract.trump
    points = POINTS[trump + 1]
    team = seat & 1
    gained = 0
    seen: list[int] = []
    while True:
        if len(trick) == 4:
            winner = (leader + trick_winner_index(trick, trump)) & 3
            for card in trick:
                played |= 1 << card
            if winner & 1 == team:
                p = points[trick[0]] + points[trick[1]] + points[trick[2]] + points[trick[3]]
                if not (hands[0] | hands[1] | hands[2] | hands[3]):
                    p += LAST_TRICK_BONUS
                gained += TRICK_WEIGHT * p + 1
            if not (hands[0] | hands[1] | hands[2] | hands[3]):
                return False
            trick = ()
            leader = winner
            akka = False
        mover = (leader + len(trick)) & 3
        options = allowed_cards(hands[mover], trick, leader, mover, played, akka, contract, rules)
        values: dict[int, int] = {}
        m = options
        while m:
            low = m & -m
            card = low.bit_length() - 1
            m ^= low
            if mover != seat and not m and not values:
                values[card] = 0  # a forced card: no search
                break
            after = [hands[0], hands[1], hands[2], hands[3]]
            after[mover] ^= low
            call = akka
            if not trick and trump >= 0 and card >> 3 != trump and card & 7 != ACE:
                call = HIGHER[trump + 1][card] & ~played == 0
            found = search.value(
                (after[0], after[1], after[2], after[3]),
                (*trick, card),
                leader,
                played,
                call,
                max(1, max_nodes - search.nodes) if max_nodes else 0,
                until,
            )
            if found is None:
                return None
            values[card] = gained + found
        if mover == seat:
            return _Turn(tuple(seen), values)
        if mover & 1 == team:
            card = max(values, key=lambda c: (values[c], -c))
        else:
            card = min(values, key=lambda c: (values[c], c))
        seen.append(card)
        if not trick and trump >= 0 and card >> 3 != trump and card & 7 != ACE:
            akka = HIGHER[trump + 1][card] & ~played == 0
        hands[mover] ^= 1 << card
        trick = (*trick, card)


def _solved_card(
    obs: Observation,
    candidates: list[int],
    rng: random.Random,
    budget: ExpertBudget,
    deadline: float | None,
    sampler: Sampler,
    tracker: Tracker,
    scorer: Scorer,
    projects: tuple[AwardedProject, ...],
    baloot: tuple[int, ...],
) -> int | None:
    """The candidate with the best average result over sampled worlds, each solved exactly from
    the decision to the end of the round (None if not one world was solved within the budget).

    One search (one transposition table) per world serves every candidate. An unseeded decision
    passes its deadline to the solver and drops a world the deadline stops; a seeded one passes
    the nodes its work bound has left, which stops at the same node whatever the machine.
    """
    contract = obs.contract
    assert contract is not None
    trump = contract.trump
    rules = obs.rules
    team = obs.team
    table = scorer.table(projects, baloot)
    won = obs.tricks_won
    left = 8 - won[0] - won[1]
    points = POINTS[trump + 1]
    rest = LAST_TRICK_BONUS
    m = FULL_DECK & ~obs.played
    while m:
        low = m & -m
        rest += points[low.bit_length() - 1]
        m ^= low
    trick = obs.trick
    played = obs.played
    leader = obs.leader
    seat = obs.seat
    afters: list[tuple[int, tuple[int, ...], bool]] = []
    for card in candidates:
        akka = obs.akka
        if not trick and trump >= 0 and card >> 3 != trump and card & 7 != ACE:
            akka = HIGHER[trump + 1][card] & ~played == 0
        afters.append((card, (*trick, card), akka))
    agree = budget.agree
    history = play_history(obs) if agree > 0 else None
    totals = [0.0] * len(candidates)
    limit = budget.worlds if deadline is None else budget.max_worlds
    limit = min(limit, budget.exact_worlds)
    allowed = budget.seconds * budget.work_per_second
    node_work = max(budget.node_work, 1e-9)
    until = 0.0 if deadline is None else time.monotonic() + (deadline - time.perf_counter())
    work = 0.0
    done = 0
    started = time.perf_counter()
    values = [0.0] * len(candidates)
    mix = budget.mix
    plays = max(0, 32 - played.bit_count() - len(trick) - 1 - 12)
    postpone = budget.postpone
    marks = signal_marks(obs) if budget.signal else 0
    groups: list[dict[tuple[int, ...], dict[int, float]]] = [{} for _ in candidates]

    def scored(found: int) -> float:
        ours, our_tricks = divmod(found, TRICK_WEIGHT)
        theirs, their_tricks = rest - ours, left - our_tricks
        if team == 0:
            abnat = (obs.abnat[0] + ours, obs.abnat[1] + theirs)
            tricks = (won[0] + our_tricks, won[1] + their_tricks)
        else:
            abnat = (obs.abnat[0] + theirs, obs.abnat[1] + ours)
            tricks = (won[0] + their_tricks, won[1] + our_tricks)
        value = table.get((abnat, tricks))
        if value is None:
            value = scorer.value(abnat, tricks, projects, baloot, table=table)
        return value

    for _ in range(limit):
        if done >= max(1, budget.min_worlds):
            if deadline is None:
                if work + work / done > allowed:
                    break
            else:
                now = time.perf_counter()
                if now + (now - started) / done > deadline:
                    break
        world = sampler(obs, tracker, rng)
        weight = 1.0 if history is None else play_weight(history, world, contract, rules, agree)
        if marks:
            weight *= signal_weight(obs, marks, world)
        search = new_search(contract, rules, team)
        solver = Solver(contract, rules, team) if mix > 0 else None
        stopped = False
        turns: list[tuple[tuple[int, ...], dict[int, float]] | None] = [None] * len(candidates)
        for i, (card, after, akka) in enumerate(afters):
            hands = [world[0], world[1], world[2], world[3]]
            hands[seat] ^= 1 << card
            max_nodes = 0
            if deadline is None:
                max_nodes = max(1, int((allowed - work) / node_work) - search.nodes)
            found = search.value(
                (hands[0], hands[1], hands[2], hands[3]),
                after,
                leader,
                played,
                akka,
                max_nodes,
                until,
            )
            if found is None:
                stopped = True
                break
            value = scored(found)
            if postpone:
                turn = _next_turn(
                    search,
                    hands,
                    after,
                    leader,
                    played,
                    akka,
                    seat,
                    contract,
                    rules,
                    0 if deadline is not None else max(1, int((allowed - work) / node_work)),
                    until,
                )
                if turn is None:
                    stopped = True
                    break
                if turn is not False:
                    turns[i] = (turn.seen, {c: scored(v) for c, v in turn.values.items()})
            if solver is not None:
                # The baseline's value of this world: its play-out of the candidate, one
                # solver a world as the baseline's (the search is done with the hands).
                abnat, tricks = _play_out_then_solve(
                    hands,
                    [*after],
                    leader,
                    played,
                    obs.abnat,
                    won,
                    akka,
                    contract,
                    rules,
                    solver,
                    3,
                )
                heuristic = table.get((abnat, tricks))
                if heuristic is None:
                    heuristic = scorer.value(abnat, tricks, projects, baloot, table=table)
                values[i] = (1.0 - mix) * value + mix * heuristic
            else:
                values[i] = value
        work += world_work(search.nodes, len(candidates), 0, node_work)
        if solver is not None:
            work += world_work(solver.nodes, len(candidates), plays) - WORLD_WORK
        if stopped:
            break
        done += 1
        for i in range(len(candidates)):
            next_turn = turns[i]
            if next_turn is None:
                totals[i] += weight * values[i]
                continue
            seen_cards, next_values = next_turn
            group = groups[i].setdefault(seen_cards, {})
            for c, v in next_values.items():
                group[c] = group.get(c, 0.0) + weight * v
    if not done:
        return None
    for i in range(len(candidates)):
        # The seat's next card is one choice for every world it cannot tell apart then.
        for group in groups[i].values():
            totals[i] += max(group.values())
    best = 0
    for i in range(1, len(candidates)):
        if totals[i] > totals[best]:
            best = i
    if budget.signal:
        best = signalled(trick, obs.hand, played, trump, candidates, totals, best)
    return candidates[best]


__all__ = [
    "BASELINE_EXPERT_BUDGET",
    "DEFAULT_EXPERT_BUDGET",
    "MAX_SECONDS",
    "WORK_PER_SECOND",
    "ExpertBudget",
    "expert_card",
    "resampled",
    "solved_finisher",
    "with_seconds",
    "world_work",
]
