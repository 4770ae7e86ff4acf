"""The exact solver: every hand known, the value of every legal card, and the par of a round.

Bridge players have double-dummy solvers; this is Baloot's. Given the cards each seat still
holds, the trick in progress, the completed tricks, the contract and the rule set, :func:`solve`
returns for the seat to move the exact outcome of each legal action when all four seats then
play perfectly, every hand seen: the card points (abnat, the last-trick 10 included) and the
tricks each team wins from the position to the end of the round. :func:`par` plays the best
line out through the rules core and scores it (contract, multiplier, projects, Baloot,
kaboot), the par of a duplicate board.

What "perfectly" means: each team plays for the most card points, and among lines worth the
same points for the most tricks (so a kaboot is found wherever it can be had). Both are
exact; a value is ``9 * points + tricks`` for one team (:data:`TRICK_WEIGHT`). A perfect
leader calls Akka wherever the call fits and means something (it only widens the partner's
choice); the calls and the no-call of a lead are still valued one by one. Illegal cards are
never considered: in table play (``illegal_moves_allowed``) the solver gives the value of
lawful play.

The legal cards are the rules core's, so every rule flag is followed (closed games,
over-trumping, the Akka exception, ``undertrump_required``…). The search runs in a compiled
module (``_search.c``) built with the package; the pure-Python :mod:`reference` computes the
same values and runs where the compiled module is missing. The solver sits above the rules
core and below the bots (``bots/endgame.py`` is a user of it).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Final, Literal, Protocol

from baloot_engine.rules.actions import Action, Declare, Play
from baloot_engine.rules.cards import (
    HIGHER,
    POINTS,
    STRENGTHS,
    trick_points,
    trick_winner_index,
)
from baloot_engine.rules.contract import Contract
from baloot_engine.rules.declaring import legal_declarations
from baloot_engine.rules.facts import RoundFacts
from baloot_engine.rules.game import apply, close_review
from baloot_engine.rules.match import reverse_kaboot_condition
from baloot_engine.rules.projects import best_projects
from baloot_engine.rules.ruleset import PartnerWinningRule, RuleSet
from baloot_engine.rules.scoring import RoundScore, score_round
from baloot_engine.rules.state import Phase, State, tricks_won
from baloot_engine.solver.reference import TRICK_WEIGHT, ReferenceDeal, akka_call, rest_of

try:
    from baloot_engine.solver import _search
except ImportError:  # pragma: no cover - the package's install builds it
    _search = None  # type: ignore[assignment]

Engine = Literal["compiled", "reference"]

COMPILED: Final = _search is not None
"""True when the compiled search is installed (the default engine then)."""

_PARTNER_RULES: Final = {
    PartnerWinningRule.AKKA_ONLY: 0,
    PartnerWinningRule.POSITIONAL: 1,
    PartnerWinningRule.ANY_PARTNER_WINNING: 2,
    PartnerWinningRule.NEVER: 3,
}


class SolverBudgetError(Exception):
    """The deadline or the node limit ran out before the answer was exact."""


class DealSearch(Protocol):
    """One deal's search (compiled or reference): the value of positions of that deal."""

    @property
    def nodes(self) -> int: ...

    def value(
        self,
        hands: tuple[int, int, int, int],
        trick: tuple[int, ...],
        leader: int,
        played: int,
        akka: bool,
        max_nodes: int = 0,
        deadline: float = 0.0,
        alpha: int = -1,
        beta: int = -1,
    ) -> int | None: ...


SearchWatcher = Callable[[DealSearch, Contract, RuleSet, int], DealSearch]
"""What :func:`watching_searches` is given: it receives each new search (with the contract, the
rule set and the team it was made for) and returns the search its caller gets."""

_watcher: SearchWatcher | None = None


@contextmanager
def watching_searches(watcher: SearchWatcher) -> Iterator[None]:
    """Within the block, every search :func:`new_search` makes (for the bots, the analysis,
    SolveDeal, every caller) goes through ``watcher`` first: the recorded-workload benchmark
    (``bench/solver_workload.py``) wraps each one to record its calls. Not thread-safe; for
    benchmarks and tests."""
    global _watcher  # noqa: PLW0603 - one process-wide hook, set only here
    saved, _watcher = _watcher, watcher
    try:
        yield
    finally:
        _watcher = saved


def new_search(
    contract: Contract, rules: RuleSet, team: int, engine: Engine | None = None
) -> DealSearch:
    """A search for the positions of one deal (one layout of the 32 cards), counting ``team``.

    Its transposition table is valid for that deal only: make one per deal (per sampled world).
    """
    if engine == "reference" or (engine is None and _search is None):
        reference = ReferenceDeal(contract, rules, team)
        return reference if _watcher is None else _watcher(reference, contract, rules, team)
    if _search is None:
        raise RuntimeError("the compiled solver is not installed")
    trump = contract.trump
    deal: DealSearch = _search.Deal(
        trump=trump,
        closed=contract.closed,
        overtrump_partner=rules.overtrump_partner,
        undertrump_required=rules.undertrump_required,
        partner_rule=_PARTNER_RULES[rules.partner_winning_rule],
        akka_declared=rules.akka_requires_declaration,
        team=team,
        points=POINTS[trump + 1],
        strength=STRENGTHS[trump + 1],
        higher=HIGHER[trump + 1],
        higher_sun=HIGHER[0],
    )
    return deal if _watcher is None else _watcher(deal, contract, rules, team)


@dataclass(frozen=True, slots=True)
class Position:
    """A position of a round in play, every hand known.

    ``hands`` are the cards still held; ``trick`` the cards of the trick in progress from
    ``leader`` on; ``played`` the cards of the completed tricks; ``abnat`` and ``tricks_won``
    what each team has won in them (the 10 of the last trick included once it is played).
    """

    hands: tuple[int, int, int, int]
    trick: tuple[int, ...]
    leader: int
    played: int
    akka: bool
    contract: Contract
    rules: RuleSet
    abnat: tuple[int, int] = (0, 0)
    tricks_won: tuple[int, int] = (0, 0)

    @property
    def seat(self) -> int:
        """The seat to play."""
        return (self.leader + len(self.trick)) & 3

    @property
    def over(self) -> bool:
        """True when every card of the round is played."""
        return not (self.trick or any(self.hands))

    def after(self, play: Play) -> Position:
        """The position once the seat to move plays ``play`` (a completed trick is counted)."""
        seat = self.seat
        hands = list(self.hands)
        hands[seat] ^= 1 << play.card
        trick = (*self.trick, play.card)
        akka = play.akka if not self.trick else self.akka
        leader, played = self.leader, self.played
        abnat, won = self.abnat, self.tricks_won
        if len(trick) == 4:
            trump = self.contract.trump
            winner = (leader + trick_winner_index(trick, trump)) & 3
            points = trick_points(trick, trump, last=not any(hands))
            team = winner & 1
            abnat = (abnat[0] + points, abnat[1]) if team == 0 else (abnat[0], abnat[1] + points)
            won = (won[0] + 1, won[1]) if team == 0 else (won[0], won[1] + 1)
            for card in trick:
                played |= 1 << card
            trick, leader, akka = (), winner, False
        return Position(
            (hands[0], hands[1], hands[2], hands[3]),
            trick,
            leader,
            played,
            akka,
            self.contract,
            self.rules,
            abnat,
            won,
        )


def played_out(
    tricks: Sequence[tuple[int, tuple[int, int, int, int]]],
    contract: Contract,
    rules: RuleSet,
    card_index: int = 0,
) -> Position:
    """A position of a round played out to its eighth trick, from its tricks (each its leader
    and four cards): the round at its first lead, after ``card_index`` of its cards. A lead
    that could be an Akka call is taken as one (what a perfect leader does)."""
    if len(tricks) != 8:
        raise ValueError("the round was not played out to its eighth trick")
    if not 0 <= card_index < 32:
        raise ValueError(f"a card index is 0-31, got {card_index}")
    hands = [0, 0, 0, 0]
    for leader, cards in tricks:
        for step, card in enumerate(cards):
            hands[(leader + step) & 3] |= 1 << card
    position = Position(
        (hands[0], hands[1], hands[2], hands[3]), (), tricks[0][0], 0, False, contract, rules
    )
    for index in range(card_index):
        leader, cards = tricks[index // 4]
        card = cards[index % 4]
        if position.seat != (leader + index % 4) & 3:
            raise ValueError("the tricks do not follow one another")
        call = index % 4 == 0 and akka_call(contract, rules, card, position.played)
        position = position.after(Play(card, call))
    return position


def position_of(state: State) -> Position:
    """The position of a state in the playing phase with a card to play."""
    if state.phase is not Phase.PLAYING or state.contract is None or state.turn < 0:
        raise ValueError("no card is to be played in this state")
    return Position(
        hands=state.hands,
        trick=state.trick,
        leader=state.leader,
        played=state.played,
        akka=state.akka,
        contract=state.contract,
        rules=state.rules,
        abnat=state.abnat,
        tricks_won=tricks_won(state.tricks),
    )


@dataclass(frozen=True, slots=True)
class ActionValue:
    """One legal action of the seat to move and where perfect play goes after it.

    ``points`` and ``tricks`` are each team's totals for the whole round at its end (what was
    won before the position included); ``kaboot_team`` is the team that wins all eight tricks
    (-1: none).
    """

    play: Play
    points: tuple[int, int]
    tricks: tuple[int, int]

    @property
    def kaboot_team(self) -> int:
        """The team that wins every trick of the round on this line, or -1."""
        if self.tricks[0] == 8:
            return 0
        return 1 if self.tricks[1] == 8 else -1


@dataclass(frozen=True, slots=True)
class Solution:
    """Every legal card of the seat to move, valued; the best for that seat's team first found.

    ``values`` are in the rules core's action order (ascending card, each card followed by its
    Akka call where one fits). ``best`` indexes the action a perfect player takes (the first of
    the equal best). ``nodes`` counts the cards the search tried.
    """

    seat: int
    values: tuple[ActionValue, ...]
    best: int
    nodes: int

    @property
    def best_value(self) -> ActionValue:
        """The value of the position: that of its best action."""
        return self.values[self.best]


def _plays(position: Position) -> list[Play]:
    """The legal card actions of the seat to move, in the rules core's order."""
    from baloot_engine.rules.play import allowed_cards

    seat = position.seat
    contract = position.contract
    mask = allowed_cards(
        position.hands[seat],
        position.trick,
        position.leader,
        seat,
        position.played,
        position.akka,
        contract,
        position.rules,
    )
    plays: list[Play] = []
    while mask:
        low = mask & -mask
        card = low.bit_length() - 1
        mask ^= low
        plays.append(Play(card))
        if not position.trick and akka_call(contract, position.rules, card, position.played):
            plays.append(Play(card, True))
    return plays


def _deadline_args(deadline: float | None, max_nodes: int | None) -> tuple[int, float]:
    return (max_nodes or 0, 0.0 if deadline is None else deadline)


def _exact(
    search: DealSearch,
    args: tuple[tuple[int, int, int, int], tuple[int, ...], int, int, bool],
    most: int,
    guess: int | None,
    limit: int,
    until: float,
    lower: int = 0,
    upper: int = -1,
) -> int | None:
    """The exact value of one position by null-window searches converging on it: each search
    proves a bound and the table keeps them. The first search tests the ``guess`` (the best
    value of the siblings valued before), or without one the middle of the values possible.
    Each next search steps on from the bound just proved, as MTD(f) does, but the step
    doubles while the searches keep failing the same way (a guess far off costs a few
    searches, not one per bound proved), and once the value lies between two proved bounds
    each search tests their middle. On the dear deals of ``bench/bench_solver.py`` this tried
    14-16 % fewer cards than plain MTD(f). ``lower`` and ``upper`` (default: 0 and ``most``)
    are bounds already known."""
    if upper < 0:
        upper = most
    test = (lower + upper + 1) // 2 if guess is None else max(lower + 1, min(guess, upper))
    step, heading = 1, 0
    nodes = search.nodes
    while lower < upper:
        left = 0 if not limit else limit - (search.nodes - nodes)
        if limit and left <= 0:
            return None
        found = search.value(*args, left, until, test - 1, test)
        if found is None:
            return None
        went = 1 if found >= test else -1
        if went > 0:
            lower = found
        else:
            upper = found
        if lower >= upper:
            break
        if went == heading:
            step *= 2
        elif heading:
            step = 0  # bracketed: halve what is left
        heading = went
        if not step:
            test = (lower + upper + 1) // 2
        elif went > 0:
            test = min(upper, lower + step)
        else:
            test = max(lower + 1, upper - step + 1)
    return lower


def solve(
    position: Position,
    *,
    deadline: float | None = None,
    max_nodes: int | None = None,
    engine: Engine | None = None,
    search: DealSearch | None = None,
) -> Solution:
    """The exact value of every legal card of the seat to move (see :class:`Solution`).

    ``deadline`` is a :func:`time.monotonic` time and ``max_nodes`` a bound on the cards tried
    over the whole call; past either, :class:`SolverBudgetError` (never a partial answer).
    ``search`` reuses the table of an earlier call on the same deal; it must count the team
    of the seat to move (:func:`new_search`).
    """
    if search is None:
        search = new_search(position.contract, position.rules, position.seat & 1, engine)
    started = search.nodes
    plays = _plays(position)
    found = solve_some(
        position,
        plays,
        range(len(plays)),
        deadline=deadline,
        max_nodes=max_nodes,
        search=search,
    )
    values = tuple(found[i] for i in range(len(plays)))
    team = position.seat & 1
    best = 0
    for index, value in enumerate(values):
        if (value.points[team], value.tricks[team]) > (
            values[best].points[team],
            values[best].tricks[team],
        ):
            best = index
    return Solution(position.seat, values, best, search.nodes - started)


def solve_some(
    position: Position,
    plays: Sequence[Play],
    wanted: Iterable[int],
    *,
    deadline: float | None = None,
    max_nodes: int | None = None,
    search: DealSearch | None = None,
) -> dict[int, ActionValue]:
    """The exact value of some of the legal actions of the seat to move: ``plays`` are its
    legal actions (:attr:`Solution.values`' order, the same in every deal that leaves the
    seat its hand), ``wanted`` the indexes of those to value. A caller that knows some
    actions share their value (equal cards) values one of each; otherwise as :func:`solve`.
    """
    seat = position.seat
    team = seat & 1
    if search is None:
        search = new_search(position.contract, position.rules, team)
    limit, until = _deadline_args(deadline, max_nodes)
    started = search.nodes
    hands = position.hands
    trick = position.trick
    rest, tricks_left = divmod(rest_of(hands, trick, position.contract.trump), TRICK_WEIGHT)
    if tricks_left == 0:
        raise ValueError("the round is over: no card is left to play")
    found: dict[int, ActionValue] = {}
    guess: int | None = None
    most = TRICK_WEIGHT * rest + tricks_left
    valued: dict[int, int] = {}  # card: the value found after it
    out = hands[0] | hands[1] | hands[2] | hands[3]
    for card in trick:
        out |= 1 << card
    for index in wanted:
        play = plays[index]
        after = list(hands)
        after[seat] ^= 1 << play.card
        akka = play.akka if not trick else position.akka
        lower, upper = _neighbours(position, play.card, out, valued, most)
        if lower == upper:
            value: int | None = lower
        else:
            value = _exact(
                search,
                (
                    (after[0], after[1], after[2], after[3]),
                    (*trick, play.card),
                    position.leader,
                    position.played,
                    akka,
                ),
                most,
                guess,
                0 if not limit else max(1, limit - (search.nodes - started)),
                until,
                lower,
                upper,
            )
        if value is None:
            raise SolverBudgetError("the solver's budget ran out before the values were exact")
        found[index] = _action_value(position, play, value, rest, tricks_left)
        valued[play.card] = value
        if guess is None or value > guess:
            guess = value  # the next card's first search tests the best value so far
    return found


def _neighbours(
    position: Position, card: int, out: int, valued: dict[int, int], most: int
) -> tuple[int, int]:
    """Bounds on the value after ``card`` from the values after the cards valued before it
    (``valued``) that are its neighbours: of the same suit, with no card still ``out`` between
    the two in strength. Played now, one goes to this trick and the other to the later trick it
    is played to, and every seat has the same choices in both lines, so the two values differ by
    at most 9 times the points' difference (the compiled search's neighbours, at the root):
    equal points, equal values, and no search at all. Not for a Hokm lead of a plain suit,
    where leading the strongest card still out (or the Ace) frees the partner from trumping
    (R20) and a card below it does not."""
    lower, upper = 0, most
    trump = position.contract.trump
    suit = card >> 3
    if not valued or (not position.trick and trump >= 0 and suit != trump):
        return lower, upper
    strengths = STRENGTHS[trump + 1]
    points = POINTS[trump + 1]
    mine = strengths[card]
    for other, value in valued.items():
        if other >> 3 != suit or other == card:
            continue
        low, high = sorted((mine, strengths[other]))
        between = out & (0xFF << (8 * suit)) & ~(1 << card) & ~(1 << other)
        if any(
            low < strengths[c] < high for c in range(8 * suit, 8 * suit + 8) if between >> c & 1
        ):
            continue
        swing = TRICK_WEIGHT * abs(points[card] - points[other])
        lower = max(lower, value - swing)
        upper = min(upper, value + swing)
    return lower, upper


def _action_value(
    position: Position, play: Play, value: int, rest: int, tricks_left: int
) -> ActionValue:
    """An action's totals for the round from its search value (the seat's team's
    ``9 * points + tricks`` from the position on; ``rest``, ``tricks_left``: what is left)."""
    mine_points, mine_tricks = divmod(value, TRICK_WEIGHT)
    theirs = (rest - mine_points, tricks_left - mine_tricks)
    ours = (mine_points, mine_tricks)
    by_team = (ours, theirs) if position.seat & 1 == 0 else (theirs, ours)
    return ActionValue(
        play,
        (position.abnat[0] + by_team[0][0], position.abnat[1] + by_team[1][0]),
        (position.tricks_won[0] + by_team[0][1], position.tricks_won[1] + by_team[1][1]),
    )


def deal_value(
    position: Position, *, deadline: float | None = None
) -> tuple[tuple[int, int], tuple[int, int]]:
    """Each team's card points and tricks at the round's end when the round is played
    perfectly from a trick's start (``position.trick`` empty): one search of the position's
    value, cheaper than valuing every lead with :func:`solve`; past ``deadline``,
    :class:`SolverBudgetError`."""
    if position.trick:
        raise ValueError("a deal's value is taken at a trick's start")
    search = new_search(position.contract, position.rules, 0)
    rest, tricks_left = divmod(rest_of(position.hands, (), position.contract.trump), TRICK_WEIGHT)
    value = _exact(
        search,
        (position.hands, (), position.leader, position.played, False),
        TRICK_WEIGHT * rest + tricks_left,
        None,
        0,
        0.0 if deadline is None else deadline,
    )
    if value is None:
        raise SolverBudgetError("the solver's budget ran out before the value was exact")
    ours, won = divmod(value, TRICK_WEIGHT)
    return (
        (position.abnat[0] + ours, position.abnat[1] + rest - ours),
        (position.tricks_won[0] + won, position.tricks_won[1] + tricks_left - won),
    )


@dataclass(frozen=True, slots=True)
class Par:
    """The par of a round from a position: the best line played out and scored.

    ``line`` is every action of it (declarations of the seats that could still declare, then
    the cards); ``score`` the rules core's score of the round; ``points`` and ``tricks`` each
    team's card points and tricks at its end.
    """

    line: tuple[tuple[int, Action], ...]
    score: RoundScore
    points: tuple[int, int]
    tricks: tuple[int, int]
    nodes: int


def par(
    state: State,
    *,
    deadline: float | None = None,
    max_nodes: int | None = None,
    engine: Engine | None = None,
    on_step: Callable[[State], None] | None = None,
    searches: dict[int, DealSearch] | None = None,
    first: Solution | None = None,
) -> Par:
    """Play the round out from ``state`` with perfect play and score it (the par result).

    A seat that may still declare projects declares its best ones (with every hand known,
    declaring never costs). Every card is the solver's best for its seat's team (the first of
    the equal best, as :func:`solve` picks it); one search per team serves the whole line.
    ``first``, the :func:`solve` of the state's position already made with ``searches``,
    spares its search (see :class:`_ParLine`).
    """
    if state.phase is not Phase.PLAYING or state.contract is None:
        raise ValueError("par is taken from a round in play")
    if searches is None:
        searches = pair_of_searches(state.contract, state.rules, engine)
    line: list[tuple[int, Action]] = []
    line_of = _ParLine(searches, deadline, max_nodes, first)
    position: Position | None = None
    while state.phase is Phase.PLAYING:
        seat = state.turn
        if position is None and not state.tricks:
            # Only here: a seat's declaration only closes as the trick goes on (R28), and its
            # cards do not change, so a later card of trick 1 opens none.
            for declarer in range(4):
                declarations = legal_declarations(state, declarer)
                if declarations:
                    action = _best_declaration(state, declarer, declarations)
                    state, _ = apply(state, declarer, action)
                    line.append((declarer, action))
        if position is None:
            position = position_of(state)  # declarations change no card
        play = line_of.best_play(position)
        state, _ = apply(state, seat, play)
        position = position.after(play)  # position_of(state), without reading the state
        line.append((seat, play))
        if on_step is not None:
            on_step(state)
    nodes = line_of.nodes
    if state.phase is Phase.ROUND_REVIEW:
        state, _ = close_review(state)
    score = state.last_score
    assert score is not None
    facts = score.facts
    return Par(tuple(line), score, facts.card_abnat, facts.tricks_won, nodes)


def par_with_facts(
    position: Position,
    facts: RoundFacts,
    *,
    dealer: int = -1,
    buyer_hand: int = 0,
    deadline: float | None = None,
    max_nodes: int | None = None,
    engine: Engine | None = None,
    searches: dict[int, DealSearch] | None = None,
    first: Solution | None = None,
) -> Par:
    """The par of a round whose table facts are known (a finished round): the cards from the
    position played perfectly, the declarations and multiplier as they were (``facts``), scored
    by ``score_round``. ``dealer`` (the seat that dealt the round) and ``buyer_hand`` (the
    buyer's eight cards) decide R43's reverse kaboot with the par's tricks, as the rules core
    does for a played round (:func:`~baloot_engine.rules.match.reverse_kaboot_condition`);
    without a dealer (-1) the par is no reverse kaboot. ``first`` as for :func:`par`."""
    if searches is None:
        searches = pair_of_searches(position.contract, position.rules, engine)
    line: list[tuple[int, Action]] = []
    line_of = _ParLine(searches, deadline, max_nodes, first)
    while not position.over:
        seat = position.seat
        play = line_of.best_play(position)
        line.append((seat, play))
        position = position.after(play)
    nodes = line_of.nodes
    played = replace(
        facts,
        card_abnat=position.abnat,
        tricks_won=position.tricks_won,
        reverse_kaboot=dealer >= 0
        and reverse_kaboot_condition(position.contract, dealer, buyer_hand, position.tricks_won),
    )
    score = score_round(played, position.rules)
    return Par(tuple(line), score, position.abnat, position.tricks_won, nodes)


class _ParLine:
    """The best line of a round, one position after another, each a card of :func:`solve`'s
    choice (its ``best``: the first action, in the rules core's order, of the best value for
    the mover's team) without valuing every card of every position.

    The first position is solved (or its solution given). Along the best line the value never
    changes: each team's totals at the round's end stay those of the first best action. So at
    each later position the best action is the first whose value reaches those totals, and a
    null-window search at that value says whether an action does (no action exceeds it). A
    seat with one legal action plays it unsearched. Every test runs on the search of the first
    position's team, whose table that solve filled: for the other team's seats the test is
    turned round (a team reaches ``w`` of what is left, ``rest``, when the other team gets at
    most ``rest - w``). The line is the one :func:`solve` at each position gives
    (tests/solver), at a small part of the cards tried."""

    def __init__(
        self,
        searches: dict[int, DealSearch],
        deadline: float | None,
        max_nodes: int | None,
        first: Solution | None,
    ) -> None:
        self.searches = searches
        self.until = 0.0 if deadline is None else deadline
        self.deadline = deadline
        self.max_nodes = max_nodes
        self.first = first
        self.nodes = 0  # the cards this line tried (not those of a given first solution)
        self.target: tuple[tuple[int, int], tuple[int, int]] | None = None
        self.team = 0  # the team whose search runs every test

    def best_play(self, position: Position) -> Play:
        """The best action at ``position``, the next of the line."""
        if self.target is None:
            self.team = position.seat & 1
            solution = self.first
            if solution is None:
                solution = solve(
                    position,
                    deadline=self.deadline,
                    max_nodes=None if self.max_nodes is None else max(1, self.max_nodes),
                    search=self.searches[self.team],
                )
                self.nodes += solution.nodes
            best = solution.best_value
            self.target = (best.points, best.tricks)
            return best.play
        plays = _plays(position)
        if len(plays) == 1:
            return plays[0]
        search = self.searches[self.team]
        team = position.seat & 1
        points, tricks = self.target
        wanted = (
            TRICK_WEIGHT * (points[team] - position.abnat[team])
            + tricks[team]
            - position.tricks_won[team]
        )
        if team == self.team:
            alpha = wanted - 1  # the test: the mover's team gets at least ``wanted``
        else:  # the other team gets at most what is left less ``wanted``
            alpha = rest_of(position.hands, position.trick, position.contract.trump) - wanted
        seat, trick = position.seat, position.trick
        for play in plays:
            after = list(position.hands)
            after[seat] ^= 1 << play.card
            left = 0
            if self.max_nodes is not None:
                left = self.max_nodes - self.nodes
                if left <= 0:
                    raise SolverBudgetError(
                        "the solver's budget ran out before the values were exact"
                    )
            started = search.nodes
            found = search.value(
                (after[0], after[1], after[2], after[3]),
                (*trick, play.card),
                position.leader,
                position.played,
                play.akka if not trick else position.akka,
                left,
                self.until,
                alpha,
                alpha + 1,
            )
            self.nodes += search.nodes - started
            if found is None:
                raise SolverBudgetError("the solver's budget ran out before the values were exact")
            if (found > alpha) == (team == self.team):
                return play
        raise AssertionError("no action reaches the value of the line")  # pragma: no cover


def pair_of_searches(
    contract: Contract, rules: RuleSet, engine: Engine | None = None
) -> dict[int, DealSearch]:
    """One search per team for the positions of one deal (each counts its own team)."""
    return {team: new_search(contract, rules, team, engine) for team in (0, 1)}


@dataclass(frozen=True, slots=True)
class Answer:
    """What the SolveDeal RPC answers: every legal card valued, and the par of the round."""

    solution: Solution
    par: Par


def answer_live(state: State, deadline: float) -> Answer:
    """The cards and the par of a round in play (a card to play), by ``deadline``."""
    assert state.contract is not None
    position = position_of(state)
    searches = pair_of_searches(state.contract, state.rules)
    solution = solve(position, deadline=deadline, search=searches[position.seat & 1])
    return Answer(solution, par(state, deadline=deadline, searches=searches, first=solution))


def answer_played_out(
    tricks: Sequence[tuple[int, tuple[int, int, int, int]]],
    dealer: int,
    facts: RoundFacts,
    contract: Contract,
    rules: RuleSet,
    card_index: int,
    deadline: float,
) -> Answer:
    """The cards and the par of a finished round (played out to its eighth trick), from its
    tricks, the seat that dealt it and its facts as scored, after ``card_index`` of its cards."""
    buyer_hand = played_out(tricks, contract, rules).hands[contract.buyer]
    position = played_out(tricks, contract, rules, card_index)
    searches = pair_of_searches(contract, rules)
    solution = solve(position, deadline=deadline, search=searches[position.seat & 1])
    return Answer(
        solution,
        par_with_facts(
            position,
            facts,
            dealer=dealer,
            buyer_hand=buyer_hand,
            deadline=deadline,
            searches=searches,
            first=solution,
        ),
    )


def _best_declaration(state: State, seat: int, declarations: list[Declare]) -> Declare:
    """The declaration of the seat's best projects (the rules core's choice), else the first."""
    best = {p.kind for p in best_projects(state.full_hands[seat], state.trump, state.rules)}
    for declaration in declarations:
        if set(declaration.kinds) == best:
            return declaration
    return max(declarations, key=lambda d: len(d.kinds))


def cut_counts(reset: bool = False) -> dict[str, int] | None:
    """How often each cut site of the compiled search ended a search since the last reset
    (table entries, quick tricks, the crossing, sure trumps, the cutoffs at a trick's last card,
    alpha-beta cutoffs at the first card tried or a later one, neighbours not tried; and the
    trick starts searched and last tricks counted). The counters are compiled in only on request
    (``CFLAGS=-DBALOOT_SOLVER_STATS`` when the package is built); None without them."""
    stats = getattr(_search, "stats", None)
    if stats is None:
        return None
    found: dict[str, int] = stats(reset=reset)
    return found


def now_plus(seconds: float) -> float:
    """A deadline ``seconds`` from now, on the clock :func:`solve` reads."""
    return time.monotonic() + seconds


__all__ = [
    "COMPILED",
    "TRICK_WEIGHT",
    "ActionValue",
    "Answer",
    "DealSearch",
    "Engine",
    "Par",
    "Position",
    "SearchWatcher",
    "Solution",
    "SolverBudgetError",
    "answer_live",
    "answer_played_out",
    "cut_counts",
    "deal_value",
    "new_search",
    "now_plus",
    "pair_of_searches",
    "par",
    "par_with_facts",
    "played_out",
    "position_of",
    "solve",
    "solve_some",
    "watching_searches",
]
