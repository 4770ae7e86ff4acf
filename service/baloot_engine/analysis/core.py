"""The analysis of a match record: every decision valued from what its seat knew and in hindsight.

A record is replayed through the rules core (:func:`baloot_engine.rules.record.replay`); at each
decision of an analysed seat with a choice (a card, a bid, a doubling call) every legal
alternative is valued twice:

* **fair**: from what the seat could know at that moment. Worlds (deals of the cards it had
  not seen) are sampled consistently with its observation (:mod:`baloot_engine.bots.tracking`),
  and in each world every alternative is solved exactly to the end of the round
  (:mod:`baloot_engine.solver`). A bid or a doubling call fixes the contract, so it is valued
  by the bidding simulation of the bots (:mod:`baloot_engine.bots.bidding_eval`): sampled deals
  played out by the bots' play-out policy for the contract each call leads to;
* **hindsight**: every hand known, on the real deal: the solver on the position itself for a
  card, the contract each call leads to solved on the real deal for a bid or a call.

A value is the expected game-point margin of the seat's team for the round (its points minus
the other team's, scored by the rules core: contract, multiplier, projects, Baloot, kaboot),
with, for a card, the expected card points (abnat) of the team at the round's end, and the
chance to win the match after the round (:mod:`baloot_engine.bots.equity`). The loss of the
action taken is what the best alternative gives more on each scale.

The analysis is a pure function of the record, the seats and rounds asked for, the budget and
the seed: every decision draws its worlds from its own generator, seeded from the seed and the
decision's place. Only rounds that ended are analysed (a round in progress tells nothing).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Final

from baloot_engine.analysis.budget import Budget, budget_of
from baloot_engine.bots.bidding_eval import (
    contract_after_pass,
    contract_of,
    evaluate_bids,
    outbid_by_sun,
)
from baloot_engine.bots.handeval import BASIC_STYLE
from baloot_engine.bots.search import (
    EQUITY_SCALE,
    Scorer,
    deal_facts,
    declared_projects,
    first_leader,
    known_baloot,
    play_out,
    standing_value,
    with_call,
)
from baloot_engine.bots.tracking import sample_hands, track
from baloot_engine.rules.actions import Action, Bid, BidKind, Deal, Doubling, EventKind, Play
from baloot_engine.rules.cards import POINTS, STRENGTHS
from baloot_engine.rules.contract import Contract, PlayMode, partner_of
from baloot_engine.rules.dealing import REVEALED_INDEX, completion_cards, initial_hands
from baloot_engine.rules.facts import AwardedProject
from baloot_engine.rules.game import legal_actions
from baloot_engine.rules.observation import Observation, observe
from baloot_engine.rules.record import RecordedRound, Step, replay
from baloot_engine.rules.ruleset import RuleSet
from baloot_engine.rules.state import BidStage, Phase, State
from baloot_engine.solver import (
    DealSearch,
    Position,
    SolverBudgetError,
    deal_value,
    new_search,
    par,
    position_of,
    solve,
    solve_some,
)

EPSILON: Final = 1e-6
"""Values closer than this are equal (a tie with the best is a best choice)."""
KEY_MISTAKES: Final = 5
"""The most key mistakes listed per round and per match."""
STYLE: Final = BASIC_STYLE
"""The thresholds the other seats bid by in the bidding simulation (the bots' own)."""


class AnalysisStoppedError(Exception):
    """The analysis was cancelled or ran past its deadline; nothing more is computed."""


class DecisionKind(Enum):
    """What a decision chose."""

    CARD = "card"
    BID = "bid"
    CALL = "call"  # a doubling call (or the choice of the open or closed mode)


@dataclass(frozen=True, slots=True)
class Value:
    """The expected outcome of one alternative on one scale.

    ``score``: the game-point margin of the seat's team for the round (its points minus the
    other team's). ``points``: the team's card points (abnat) at the round's end, for a card
    (None for a bid or a call). ``match_chance``: the chance (0-1) that the team wins the match
    after the round, None when no match total is at stake (a redeal keeps the chance as it
    stands).
    """

    score: float
    points: float | None
    match_chance: float | None


@dataclass(frozen=True, slots=True)
class Alternative:
    """One legal action of a decision, valued fairly and in hindsight (None: not valued)."""

    action: Action
    fair: Value
    hindsight: Value | None


@dataclass(frozen=True, slots=True)
class Decision:
    """One analysed decision: its alternatives, the action taken, its losses.

    ``taken``, ``best_fair`` and ``best_hindsight`` index ``alternatives`` (``best_hindsight``
    is -1 when no hindsight value was found). The losses are what the best alternative gives
    more than the action taken, on the game-point margin (``*_loss``) and on the card points
    (``*_loss_points``, for a card). ``worlds`` is the number of deals the fair values are
    averaged over, ``worse_in`` those where the action taken did worse than the best fair
    choice.
    """

    round_index: int
    action_index: int
    seat: int
    kind: DecisionKind
    alternatives: tuple[Alternative, ...]
    taken: int
    best_fair: int
    best_hindsight: int
    fair_loss: float
    fair_loss_points: float | None
    hindsight_loss: float | None
    hindsight_loss_points: float | None
    worlds: int
    worse_in: int
    fair_loss_error: float = 0.0
    """The standard error of ``fair_loss`` over the sampled deals (the paired differences of
    the action taken and the best fair choice, deal by deal; 0 for bids, whose simulation gives
    means only): how much of the loss the deals agree on (:func:`key_mistakes`)."""

    @property
    def action(self) -> Action:
        """The action taken."""
        return self.alternatives[self.taken].action

    @property
    def best_action(self) -> Action:
        """The best fair choice."""
        return self.alternatives[self.best_fair].action

    @property
    def is_best(self) -> bool:
        """Whether the action taken was (one of) the best fair choice(s)."""
        return self.fair_loss <= EPSILON and (self.fair_loss_points or 0.0) <= EPSILON


@dataclass(frozen=True, slots=True)
class SeatFigures:
    """One seat's figures over a round or a match: decisions analysed, mean losses, accuracy.

    ``accuracy`` is the share of its decisions whose action was a best fair choice.
    """

    seat: int
    decisions: int
    best_choices: int
    mean_fair_loss: float
    mean_hindsight_loss: float
    mean_fair_loss_points: float

    @property
    def accuracy(self) -> float:
        """The share of best fair choices (1.0 for a seat with no decision)."""
        return self.best_choices / self.decisions if self.decisions else 1.0


@dataclass(frozen=True, slots=True)
class ParFigures:
    """The par of a deal (perfect play, every hand seen, from the first card) and its result.

    ``score`` and ``points`` are the game points and card points per team at par; ``actual``
    the game points the round really scored.
    """

    score: tuple[int, int]
    points: tuple[int, int]
    tricks: tuple[int, int]
    actual: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Progress:
    """How far the analysis is: decisions done of the total to analyse."""

    done: int
    total: int


@dataclass(frozen=True, slots=True)
class RoundSummary:
    """One analysed round: its key mistakes (costliest first), each seat's figures, its par.

    ``par`` is None for a round with no card play (a redeal or a round ended before it).
    """

    round_index: int
    contract: Contract | None
    key_mistakes: tuple[Decision, ...]
    seats: tuple[SeatFigures, ...]
    par: ParFigures | None


@dataclass(frozen=True, slots=True)
class MatchSummary:
    """The whole analysis: the rounds analysed, the key mistakes and each seat's figures."""

    rounds: int
    key_mistakes: tuple[Decision, ...]
    seats: tuple[SeatFigures, ...]


Report = Progress | Decision | RoundSummary | MatchSummary
"""What :func:`analyze` yields, in order."""


_Outcome = tuple[tuple[int, int], tuple[int, int], tuple[AwardedProject, ...], tuple[int, ...]]
"""A deal played perfectly: card points and tricks per team, the projects and Baloot scored."""


class ReplayedRound:
    """What a round's decisions share: its steps, its real deal, the real outcome's facts."""

    def __init__(self, index: int, steps: list[Step]) -> None:
        self.index = index
        self.steps = steps
        first = steps[0].state
        deal = steps[0].action
        self.deck = tuple(deal.deck) if isinstance(deal, Deal) else ()
        self.dealer = first.dealer
        self.rules: RuleSet = first.rules
        self.first_play: State | None = None
        self.projects: tuple[AwardedProject, ...] = ()
        self.baloot: tuple[int, ...] = ()
        self.actual: tuple[int, int] = (0, 0)
        self.scored = False
        for step in steps:
            if self.first_play is None and step.before.phase is Phase.PLAYING:
                self.first_play = step.before
            for event in step.events:
                if event.kind is EventKind.ROUND_SCORED and event.score is not None:
                    self.scored = True
                    self.projects = event.score.facts.projects
                    self.baloot = event.score.facts.baloot_teams
                    self.actual = event.score.points
        self.ended = steps[-1].ends_round
        self._searches: dict[int, DealSearch] = {}
        self._deals: dict[tuple[object, ...], _Outcome] = {}

    def search(self, contract: Contract, team: int) -> DealSearch:
        """The solver's search of the real deal for ``team`` (its table kept for the round)."""
        found = self._searches.get(team)
        if found is None:
            found = self._searches[team] = new_search(contract, self.rules, team)
        return found

    def deal_outcome(
        self, obs: Observation, contract: Contract, deadline: float | None
    ) -> _Outcome:
        """Perfect play of the real deal under ``contract`` from the first card: card points,
        tricks, and the projects and Baloot every seat would score."""
        key: tuple[object, ...] = (
            contract.type,
            contract.trump,
            contract.buyer,
            contract.ashkal,
            contract.mode,
        )
        cached = self._deals.get(key)
        if cached is None:
            taker = partner_of(contract.buyer) if contract.ashkal else contract.buyer
            deck = self.deck
            first = initial_hands(deck, self.dealer)
            rest = completion_cards(
                deck[REVEALED_INDEX + 1 :], self.dealer, taker, deck[REVEALED_INDEX]
            )
            hands = (
                first[0] | rest[0],
                first[1] | rest[1],
                first[2] | rest[2],
                first[3] | rest[3],
            )
            position = Position(
                hands=hands,
                trick=(),
                leader=first_leader(obs, contract),
                played=0,
                akka=False,
                contract=contract,
                rules=self.rules,
            )
            points, tricks = _deal_value(position, deadline)
            facts = deal_facts(hands, contract, self.rules, (self.dealer + 1) & 3)
            cached = self._deals[key] = (points, tricks, facts[0], facts[1])
        return cached


def representatives(position: Position, plays: Sequence[Play]) -> list[int]:
    """For each play, the index of the play whose value it shares in every world: cards of a
    suit next to each other in strength (no card held by another seat between them) and
    worth the same points win and lose the same tricks, so one of them is solved."""
    contract = position.contract
    points = POINTS[contract.trump + 1]
    strength = STRENGTHS[contract.trump + 1]
    seat = position.seat
    hand = position.hands[seat]
    in_trick = 0
    for card in position.trick:
        in_trick |= 1 << card
    out = ~hand & ~position.played  # another seat's card (in any world), or in the trick
    index = {play.card: i for i, play in enumerate(plays) if not play.akka}
    found = list(range(len(plays)))
    for suit in range(4):
        cards = sorted(range(suit * 8, suit * 8 + 8), key=lambda c: strength[c], reverse=True)
        previous = -1
        for card in cards:
            if card in index:
                if previous >= 0 and points[previous] == points[card]:
                    found[index[card]] = found[index[previous]]
                previous = card
            elif out >> card & 1 or in_trick >> card & 1:
                previous = -1
    return found


def solve_position(
    position: Position, plays: Sequence[Play], wanted: Sequence[int], deadline: float | None
) -> dict[int, tuple[tuple[int, int], tuple[int, int]]]:
    """The card points and tricks per team at the round's end after each play of ``wanted``
    (indexes of ``plays``), every hand known."""
    try:
        found = solve_some(position, plays, wanted, deadline=deadline)
    except SolverBudgetError:
        raise AnalysisStoppedError("the analysis ran past its deadline") from None
    return {i: (value.points, value.tricks) for i, value in found.items()}


def _plain(contract: Contract) -> Contract:
    """The contract scored on the game-point scale: a Gahwa round counts the points it would
    score as a plain round (that it decides the match shows in the match chance)."""
    return replace(contract, gahwa=False) if contract.gahwa else contract


def _deal_value(
    position: Position, deadline: float | None
) -> tuple[tuple[int, int], tuple[int, int]]:
    """The card points and tricks of each team when a whole deal is played perfectly."""
    try:
        return deal_value(position, deadline=deadline)
    except SolverBudgetError:
        raise AnalysisStoppedError("the analysis ran past its deadline") from None


def _chance(value: float) -> float:
    """A match-aware score (-EQUITY_SCALE..EQUITY_SCALE) as a chance to win, 0-1."""
    return (value / EQUITY_SCALE + 1.0) / 2.0


def _r(value: float) -> float:
    """Values are kept to a thousandth (what a report shows, and stable to print)."""
    return round(value, 3) + 0.0


class StopCheck:
    """Checks the deadline and the cancellation between units of work."""

    def __init__(self, deadline: float | None, cancelled: Callable[[], bool] | None) -> None:
        self.deadline = deadline
        self.cancelled = cancelled

    def check(self) -> None:
        if self.cancelled is not None and self.cancelled():
            raise AnalysisStoppedError("the analysis was cancelled")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise AnalysisStoppedError("the analysis ran past its deadline")


def _is_decision(step: Step, seats: frozenset[int]) -> bool:
    """Whether a step is a decision of an analysed seat with a choice of its kind."""
    action = step.action
    if step.seat not in seats or not isinstance(action, Play | Bid | Doubling):
        return False
    if isinstance(action, Bid) and action.kind is BidKind.KAWESH:
        return False
    kind = type(action)
    return sum(1 for a in legal_actions(step.before, step.seat) if type(a) is kind) >= 2


def _decision(
    round_: ReplayedRound,
    step: Step,
    kind: DecisionKind,
    alternatives: list[Alternative],
    taken: int,
    worlds: int,
    per_world: list[list[tuple[float, float]]] | None,
) -> Decision:
    def key(value: Value) -> tuple[float, float]:
        return (value.score, value.points or 0.0)

    best = max(range(len(alternatives)), key=lambda i: key(alternatives[i].fair))
    # Ties go to the action taken (a best choice), then to the first.
    if key(alternatives[taken].fair) >= tuple(x - EPSILON for x in key(alternatives[best].fair)):
        best = taken
    fair_best, fair_taken = alternatives[best].fair, alternatives[taken].fair
    fair_loss = max(0.0, fair_best.score - fair_taken.score)
    fair_loss_points = (
        None
        if fair_best.points is None or fair_taken.points is None
        else fair_best.points - fair_taken.points
    )
    best_hindsight = -1
    hindsight_loss: float | None = None
    hindsight_loss_points: float | None = None
    known = [i for i, a in enumerate(alternatives) if a.hindsight is not None]
    taken_hindsight = alternatives[taken].hindsight
    if known and taken_hindsight is not None:

        def hindsight_key(i: int) -> tuple[float, float]:
            value = alternatives[i].hindsight
            assert value is not None
            return key(value)

        best_hindsight = max(known, key=hindsight_key)
        if hindsight_key(taken) >= hindsight_key(best_hindsight):
            best_hindsight = taken
        top = alternatives[best_hindsight].hindsight
        assert top is not None
        hindsight_loss = _r(max(0.0, top.score - taken_hindsight.score))
        if top.points is not None and taken_hindsight.points is not None:
            hindsight_loss_points = _r(top.points - taken_hindsight.points)
    worse_in = 0
    error = 0.0
    if per_world is not None:
        # Worse on the scale of the loss: game points, or card points where those tie.
        on_points = fair_loss <= EPSILON
        worse_in = sum(
            1
            for values in per_world
            if (values[taken] < values[best] if on_points else values[taken][0] < values[best][0])
        )
        error = _paired_error([values[best][0] - values[taken][0] for values in per_world])
    return Decision(
        round_index=round_.index,
        action_index=step.action_index,
        seat=step.seat,
        kind=kind,
        alternatives=tuple(alternatives),
        taken=taken,
        best_fair=best,
        best_hindsight=best_hindsight,
        fair_loss=_r(fair_loss),
        fair_loss_points=None if fair_loss_points is None else _r(fair_loss_points),
        hindsight_loss=hindsight_loss,
        hindsight_loss_points=hindsight_loss_points,
        worlds=worlds,
        worse_in=worse_in,
        fair_loss_error=_r(error),
    )


def _paired_error(differences: Sequence[float]) -> float:
    """The standard error of the mean of paired differences (0 for fewer than two)."""
    n = len(differences)
    if n < 2:
        return 0.0
    mean = sum(differences) / n
    return math.sqrt(sum((d - mean) ** 2 for d in differences) / (n - 1) / n)


def _card(
    round_: ReplayedRound, step: Step, budget: Budget, rng: random.Random, stop: StopCheck
) -> Decision | None:
    before = step.before
    seat = step.seat
    position = position_of(before)
    contract = position.contract
    if position.seat != seat:
        return None
    team = seat & 1
    # Hindsight: the solver on the real position (one table per team serves the round).
    real = solve(position, deadline=stop.deadline, search=round_.search(contract, team))
    plays = [v.play for v in real.values]
    if len(plays) < 2 or step.action not in plays:
        return None  # a forced card, or a card the rules forbid (table play): nothing to compare
    taken = plays.index(step.action)
    rules = before.rules
    scorer = Scorer(_plain(contract), rules, team)
    match_scorer = Scorer(contract, rules, team, before.match_scores)
    # A Gahwa round decides the match: its cards are worth the match, the target's points
    # times the chance to win it, not the points the plain round would score.
    stake = float(rules.match_target) if contract.gahwa else 0.0

    def scored(margin: float, chance: float) -> float:
        return chance * stake if stake else margin

    hindsight: list[Value] = []
    for value in real.values:
        chance = _chance(
            match_scorer.value(value.points, value.tricks, round_.projects, round_.baloot)
        )
        margin = scorer.value(value.points, value.tricks, round_.projects, round_.baloot)
        hindsight.append(Value(_r(scored(margin, chance)), float(value.points[team]), _r(chance)))
    # Fair: worlds sampled from the seat's observation, each solved exactly.
    obs = observe(before, seat)
    tracker = track(obs)
    projects = declared_projects(obs)
    baloot = known_baloot(obs)
    solved: dict[tuple[int, int, int, int], list[tuple[float, float, float]]] = {}
    per_world: list[list[tuple[float, float]]] = []
    sums = [[0.0, 0.0, 0.0] for _ in plays]
    same = representatives(position, plays)
    wanted = sorted(set(same))
    for _ in range(budget.worlds):
        stop.check()
        world = sample_hands(obs, tracker, rng)
        outcome = solved.get(world)
        if outcome is None:
            values = solve_position(replace(position, hands=world), plays, wanted, stop.deadline)
            outcome = solved[world] = []
            for i in range(len(plays)):
                abnat, won = values[same[i]]
                chance = _chance(match_scorer.value(abnat, won, projects, baloot))
                outcome.append(
                    (
                        scored(float(scorer.value(abnat, won, projects, baloot)), chance),
                        float(abnat[team]),
                        chance,
                    )
                )
        per_world.append([(score, mine) for score, mine, _ in outcome])
        for i, (score, mine, chance) in enumerate(outcome):
            sums[i][0] += score
            sums[i][1] += mine
            sums[i][2] += chance
    n = budget.worlds
    alternatives = [
        Alternative(
            play,
            Value(_r(sums[i][0] / n), _r(sums[i][1] / n), _r(sums[i][2] / n)),
            hindsight[i],
        )
        for i, play in enumerate(plays)
    ]
    return _decision(round_, step, DecisionKind.CARD, alternatives, taken, n, per_world)


def _bid(
    round_: ReplayedRound, step: Step, budget: Budget, rng: random.Random, stop: StopCheck
) -> Decision | None:
    before = step.before
    seat = step.seat
    obs = observe(before, seat)
    bids = [a for a in obs.legal_actions if isinstance(a, Bid) and a.kind is not BidKind.KAWESH]
    if step.action not in bids or len(bids) < 2 or len(round_.deck) != 32:
        return None
    stop.check()
    state = rng.getstate()
    fair = evaluate_bids(obs, bids, rng, budget.call_deals, STYLE)
    rng.setstate(state)  # the same deals for the match-aware values
    stop.check()
    fair_match = evaluate_bids(obs, bids, rng, budget.call_deals, STYLE, match_aware=True)
    if any(b not in fair for b in bids):
        return None
    # Hindsight: the contract each bid leads to on the real hands, solved on the real deal.
    five = list(initial_hands(round_.deck, round_.dealer))
    alternatives: list[Alternative] = []
    for bid in bids:
        stop.check()
        if bid.kind is BidKind.PASS:
            contract = contract_after_pass(obs, five, STYLE)
        else:
            contract = contract_of(obs, bid)
            if contract is not None and obs.bid_stage is BidStage.LAP and bid.kind is BidKind.HOKM:
                contract = outbid_by_sun(obs, five, STYLE) or contract
        hindsight = _contract_value(round_, obs, contract, stop)
        alternatives.append(
            Alternative(
                bid,
                Value(_r(fair[bid]), None, _r(_chance(fair_match[bid]))),
                hindsight,
            )
        )
    taken = bids.index(step.action)
    return _decision(round_, step, DecisionKind.BID, alternatives, taken, budget.call_deals, None)


def _contract_value(
    round_: ReplayedRound, obs: Observation, contract: Contract | None, stop: StopCheck
) -> Value:
    """The hindsight value of a contract for the seat's team: the real deal solved exactly."""
    team = obs.team
    match = obs.match_scores
    if contract is None:  # a redeal
        return Value(0.0, None, _r(_chance(standing_value(match, team, obs.rules))))
    points, tricks, projects, baloot = round_.deal_outcome(obs, contract, stop.deadline)
    plain = _plain(contract)
    score = Scorer(plain, obs.rules, team).value(points, tricks, projects, baloot, plain)
    chance = _chance(
        Scorer(contract, obs.rules, team, match).value(points, tricks, projects, baloot, contract)
    )
    return Value(_r(score), None, _r(chance))


def _call(
    round_: ReplayedRound, step: Step, budget: Budget, rng: random.Random, stop: StopCheck
) -> Decision | None:
    before = step.before
    seat = step.seat
    obs = observe(before, seat)
    contract = obs.contract
    calls = [a for a in obs.legal_actions if isinstance(a, Doubling)]
    if contract is None or step.action not in calls or len(calls) < 2 or len(round_.deck) != 32:
        return None
    rules = obs.rules
    team = obs.team
    results = [with_call(contract, call, rules) for call in calls]
    modes = sorted({c.mode for c in results}, key=lambda m: m.value)
    scorer = Scorer(_plain(contract), rules, team)
    match_scorer = Scorer(contract, rules, team, obs.match_scores)
    tracker = track(obs)
    leader = first_leader(obs, contract)
    first_seat = (obs.dealer + 1) & 3
    totals = [[0.0, 0.0] for _ in calls]
    per_world: list[list[tuple[float, float]]] = []
    for _ in range(budget.call_deals):
        stop.check()
        world = sample_hands(obs, tracker, rng)
        awarded, baloot = deal_facts(world, contract, rules, first_seat)
        outcome: dict[PlayMode, tuple[tuple[int, int], tuple[int, int]]] = {}
        for mode in modes:
            outcome[mode] = play_out(
                list(world),
                [],
                leader,
                0,
                [0, 0],
                [0, 0],
                False,
                replace(contract, mode=mode),
                rules,
            )
        row: list[tuple[float, float]] = []
        for i, result in enumerate(results):
            abnat, won = outcome[result.mode]
            score = float(scorer.value(abnat, won, awarded, baloot, _plain(result)))
            totals[i][0] += score
            totals[i][1] += _chance(match_scorer.value(abnat, won, awarded, baloot, result))
            row.append((score, 0.0))
        per_world.append(row)
    n = budget.call_deals
    alternatives: list[Alternative] = []
    for i, call in enumerate(calls):
        stop.check()
        result = results[i]
        points, tricks, projects, baloot_ = round_.deal_outcome(obs, result, stop.deadline)
        hindsight = Value(
            _r(scorer.value(points, tricks, projects, baloot_, _plain(result))),
            None,
            _r(_chance(match_scorer.value(points, tricks, projects, baloot_, result))),
        )
        alternatives.append(
            Alternative(call, Value(_r(totals[i][0] / n), None, _r(totals[i][1] / n)), hindsight)
        )
    taken = calls.index(step.action)
    return _decision(round_, step, DecisionKind.CALL, alternatives, taken, n, per_world)


def _figures(decisions: Sequence[Decision], seats: Iterable[int]) -> tuple[SeatFigures, ...]:
    figures: list[SeatFigures] = []
    for seat in seats:
        mine = [d for d in decisions if d.seat == seat]
        count = len(mine)
        hindsight = [d.hindsight_loss for d in mine if d.hindsight_loss is not None]
        points = [d.fair_loss_points for d in mine if d.fair_loss_points is not None]
        figures.append(
            SeatFigures(
                seat=seat,
                decisions=count,
                best_choices=sum(1 for d in mine if d.is_best),
                mean_fair_loss=_r(sum(d.fair_loss for d in mine) / count) if count else 0.0,
                mean_hindsight_loss=_r(sum(hindsight) / len(hindsight)) if hindsight else 0.0,
                mean_fair_loss_points=_r(sum(points) / len(points)) if points else 0.0,
            )
        )
    return tuple(figures)


def key_mistakes(decisions: Iterable[Decision], most: int = KEY_MISTAKES) -> tuple[Decision, ...]:
    """The costliest decisions that were not a best fair choice, costliest first: by the fair
    loss in game points less its standard error over the sampled deals (a loss every deal
    agrees on ranks above a larger mean that one deal makes), then the fair loss, then in card
    points, then in the order played."""
    mistakes = [d for d in decisions if not d.is_best]
    mistakes.sort(
        key=lambda d: (
            -max(0.0, d.fair_loss - d.fair_loss_error),
            -d.fair_loss,
            -(d.fair_loss_points or 0.0),
            d.round_index,
            d.action_index,
        )
    )
    return tuple(mistakes[:most])


def _par(round_: ReplayedRound, stop: StopCheck) -> ParFigures | None:
    state = round_.first_play
    if state is None or not round_.scored:
        return None
    stop.check()
    try:
        found = par(state, deadline=stop.deadline)
    except SolverBudgetError:
        raise AnalysisStoppedError("the analysis ran past its deadline") from None
    return ParFigures(found.score.points, found.points, found.tricks, round_.actual)


def replayed_rounds(
    start: State, rounds: Sequence[RecordedRound], steps: Iterable[Step] | None = None
) -> list[ReplayedRound]:
    """The record replayed and cut into rounds (raises the replay's DivergenceError); given
    ``steps``, the replay of the record already made (its verification's), cut the same way."""
    grouped: list[list[Step]] = [[] for _ in rounds]
    for step in replay(start, rounds) if steps is None else steps:
        grouped[step.round_index].append(step)
    return [ReplayedRound(i, steps) for i, steps in enumerate(grouped) if steps]


_ANALYSERS: Final = {Play: _card, Bid: _bid, Doubling: _call}
_KINDS: Final = {Play: DecisionKind.CARD, Bid: DecisionKind.BID, Doubling: DecisionKind.CALL}


def analyze(
    start: State,
    rounds: Sequence[RecordedRound],
    *,
    seats: Iterable[int] = (0, 1, 2, 3),
    round_indices: Iterable[int] | None = None,
    budget: Budget | None = None,
    seed: int = 0,
    deadline: float | None = None,
    cancelled: Callable[[], bool] | None = None,
    replay_steps: Sequence[Step] | None = None,
    kinds: Iterable[DecisionKind] | None = None,
) -> Iterator[Report]:
    """Analyse a record (its start state and rounds, :mod:`baloot_engine.rules.record`; given
    ``replay_steps``, its replay already made, when the record was verified).

    Yields a :class:`Progress` first (0 of the total) and after each decision, each
    :class:`Decision` as it is computed, a :class:`RoundSummary` after each analysed round and
    a :class:`MatchSummary` at the end. ``seats`` and ``round_indices`` (default: all) choose
    what is analysed, ``kinds`` (default: all) which kinds of decisions; ``deadline`` (a
    :func:`time.monotonic` time) and ``cancelled`` stop the work between two units with
    :class:`AnalysisStoppedError`. A record that the rules refuse raises
    :class:`~baloot_engine.rules.record.DivergenceError` before anything is yielded.
    """
    budget = budget or budget_of()
    chosen_seats = frozenset(seats)
    stop = StopCheck(deadline, cancelled)
    replayed = replayed_rounds(start, rounds, replay_steps)
    wanted = None if round_indices is None else frozenset(round_indices)
    selected = [
        r for r in replayed if r.ended and r.scored and (wanted is None or r.index in wanted)
    ]
    chosen_kinds = frozenset(DecisionKind) if kinds is None else frozenset(kinds)
    plans = [
        (
            r,
            [
                s
                for s in r.steps
                if _is_decision(s, chosen_seats) and _KINDS[type(s.action)] in chosen_kinds
            ],
        )
        for r in selected
    ]
    total = sum(len(steps) for _, steps in plans)
    done = 0
    yield Progress(0, total)
    everything: list[Decision] = []
    ordered_seats = sorted(chosen_seats)
    for round_, steps in plans:
        decisions: list[Decision] = []
        for step in steps:
            stop.check()
            rng = random.Random(f"analysis/{seed}/{round_.index}/{step.action_index}")
            analyser = _ANALYSERS[type(step.action)]
            try:
                decision = analyser(round_, step, budget, rng, stop)
            except SolverBudgetError:
                raise AnalysisStoppedError("the analysis ran past its deadline") from None
            done += 1
            if decision is not None:
                decisions.append(decision)
                yield decision
            yield Progress(done, total)
        everything.extend(decisions)
        contract = round_.first_play.contract if round_.first_play is not None else None
        yield RoundSummary(
            round_.index,
            contract,
            key_mistakes(decisions),
            _figures(decisions, ordered_seats),
            _par(round_, stop),
        )
    yield MatchSummary(len(plans), key_mistakes(everything), _figures(everything, ordered_seats))


__all__ = [
    "EPSILON",
    "KEY_MISTAKES",
    "Alternative",
    "AnalysisStoppedError",
    "Decision",
    "DecisionKind",
    "MatchSummary",
    "ParFigures",
    "Progress",
    "Report",
    "RoundSummary",
    "SeatFigures",
    "Value",
    "analyze",
    "key_mistakes",
]
