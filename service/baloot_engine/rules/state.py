"""The whole state of a match as one immutable snapshot, and its validation.

A ``State`` is a NamedTuple: immutable, cheap to derive with ``_replace`` (the hot path
of play), and comparable. Hidden information (hands, stock, deck) lives here too; the
API layer seals it in the token and the views expose only what a seat may see.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar, Final, NamedTuple

from baloot_engine.rules.actions import Bid, Doubling, QaydCategory, QaydVerdict
from baloot_engine.rules.cards import (
    FULL_DECK,
    KING_QUEEN,
    POINTS,
    format_card,
    trick_points,
    trick_winner_index,
)
from baloot_engine.rules.contract import Contract, ContractType
from baloot_engine.rules.facts import TRICKS_PER_ROUND
from baloot_engine.rules.projects import Project, ProjectKind
from baloot_engine.rules.ruleset import SEEDS, BothCrossRule, RuleSet
from baloot_engine.rules.scoring import RoundScore


class _PhaseType(type):
    """Lets ``Phase`` be iterated like an enum class, in declaration order."""

    def __iter__(cls) -> Iterator[Phase]:
        return iter(Phase.MEMBERS)

    def __len__(cls) -> int:
        return len(Phase.MEMBERS)


@dataclass(frozen=True, slots=True, eq=False)
class Phase(metaclass=_PhaseType):
    """Where a match stands: one of the seven members below, compared by identity.

    Not an ``Enum``: on Python 3.11 reading a member through an enum class
    (``Phase.PLAYING``) goes through the enum metaclass's ``__getattr__`` hook and costs
    about as much as a small function call, and the phase is compared on every call. Here
    the members are plain class attributes (a dictionary lookup), so ``Phase.PLAYING`` is
    the one spelling everywhere, hot paths included. Like an enum, a phase has a ``name``
    and a ``value``, the class iterates in order, and a phase copies and pickles as itself
    and reprs as ``Phase.NAME``. Phases compare and hash by identity (``eq=False``), so
    the phase table of :mod:`baloot_engine.rules.game` is a plain dictionary lookup.
    """

    name: str
    value: str

    AWAITING_DEAL: ClassVar[Phase]  # before the first hand, or after a cancelled hand
    BIDDING: ClassVar[Phase]
    DOUBLING: ClassVar[Phase]
    PLAYING: ClassVar[Phase]
    ROUND_OVER: ClassVar[Phase]  # a hand was scored; the next dealer deals
    MATCH_OVER: ClassVar[Phase]
    ROUND_REVIEW: ClassVar[Phase]  # table play: the 32nd card (or a Sawa) waits for Qayd calls
    MEMBERS: ClassVar[tuple[Phase, ...]]

    def __repr__(self) -> str:
        return f"Phase.{self.name}"

    def __copy__(self) -> Phase:
        return self

    def __deepcopy__(self, memo: object) -> Phase:
        return self

    def __reduce__(self) -> tuple[object, tuple[type, str]]:
        return getattr, (Phase, self.name)


Phase.MEMBERS = tuple(
    Phase(name, name.lower())
    for name in (
        "AWAITING_DEAL",
        "BIDDING",
        "DOUBLING",
        "PLAYING",
        "ROUND_OVER",
        "MATCH_OVER",
        "ROUND_REVIEW",
    )
)
(
    Phase.AWAITING_DEAL,
    Phase.BIDDING,
    Phase.DOUBLING,
    Phase.PLAYING,
    Phase.ROUND_OVER,
    Phase.MATCH_OVER,
    Phase.ROUND_REVIEW,
) = Phase.MEMBERS


LIVE_PHASES: Final = (Phase.BIDDING, Phase.DOUBLING, Phase.PLAYING, Phase.ROUND_REVIEW)
"""The phases of a round under way: dealt and not scored yet (under review included)."""


class BidStage(Enum):
    """Which question the bidding is asking (R5-R11)."""

    NONE = "none"
    LAP = "lap"  # the normal turn order R, O, L, D
    REOPEN = "reopen"  # round1_hokm_reopens_to_all: earlier passers asked for Sun
    CONFIRM = "confirm"  # the Hokm bidder confirms or switches to Sun (R6)
    PRIORITY = "priority"  # «قبلك»: earlier players asked whether they claim the Sun


class DoublingStep(Enum):
    """Which step of the doubling chain is being asked (R13-R15)."""

    NONE = "none"
    DOUBLE = "double"
    TRIPLE = "triple"
    FOUR = "four"
    GAHWA = "gahwa"
    CHOOSE_MODE = "choose_mode"


class BidRecord(NamedTuple):
    """A bid that was placed, in order: who, what, in which bidding round."""

    seat: int
    bid: Bid
    bidding_round: int


class DoublingRecord(NamedTuple):
    """A doubling call that was made, in order."""

    seat: int
    call: Doubling


class TrickRecord(NamedTuple):
    """A completed trick: who led, the four cards in play order, who won it."""

    leader: int
    cards: tuple[int, int, int, int]
    winner: int

    def points(self, trump: int, number: int) -> int:
        """The abnat of trick ``number`` (1-8): its cards, and the 10 of the last (R33)."""
        return trick_points(self.cards, trump, last=number == TRICKS_PER_ROUND)


def tricks_won(tricks: Sequence[TrickRecord]) -> tuple[int, int]:
    """The number of tricks each team has won."""
    team_1 = 0
    for record in tricks:
        team_1 += record.winner & 1
    return len(tricks) - team_1, team_1


class Declaration(NamedTuple):
    """What one seat declared in the first trick: the types and the cards they use."""

    kinds: tuple[ProjectKind, ...]
    projects: tuple[Project, ...]


class Violation(NamedTuple):
    """A rule broken in table play (§A.14), kept private in the token until a Qayd judges it.

    ``trick`` is 1-based; ``card`` is -1 for a false Sawa; ``evidence`` is the mask of the
    cards that prove it (see :class:`~baloot_engine.rules.actions.QaydVerdict`).
    """

    seat: int
    trick: int
    card: int
    rule: QaydCategory
    evidence: int


EMPTY_DECLARATIONS: tuple[Declaration | None, ...] = (None, None, None, None)


class State(NamedTuple):
    """A snapshot of a match. Build the first one with :func:`game.new_match`."""

    rules: RuleSet = SEEDS
    phase: Phase = Phase.AWAITING_DEAL
    dealer: int = 0
    hand_number: int = 0  # hands dealt so far, redeals included
    match_scores: tuple[int, int] = (0, 0)
    turn: int = -1  # the seat expected to act, -1 when nobody is
    # Cards.
    hands: tuple[int, int, int, int] = (0, 0, 0, 0)
    stock: tuple[int, ...] = ()  # undealt cards, in dealing order
    revealed: int = -1  # the face-up buy card while it is on the table
    buy_card: int = -1  # the revealed card of this hand, remembered for the views
    # Bidding.
    bidding_round: int = 0
    bid_stage: BidStage = BidStage.NONE
    to_ask: tuple[int, ...] = ()  # seats still to be asked in this stage; the first is on turn
    bids: tuple[BidRecord, ...] = ()
    pending_seat: int = -1  # Hokm bidder (or Sun caller in the PRIORITY stage)
    pending_suit: int = -1  # suit of the pending Hokm, -1 if it is named at confirmation
    pending_ashkal: bool = False  # the pending Sun of the PRIORITY stage is an Ashkal
    contract: Contract | None = None
    # Doubling.
    doubling_step: DoublingStep = DoublingStep.NONE
    doubling_calls: tuple[DoublingRecord, ...] = ()
    buyer_completed: bool = True  # false while the buyer's last cards wait (R16 variant)
    # Play.
    full_hands: tuple[int, int, int, int] = (0, 0, 0, 0)  # the 8-card hands at first lead
    leader: int = -1
    trick: tuple[int, ...] = ()  # cards of the trick in progress, in play order
    akka: bool = False  # the leader of the trick in progress called Akka
    tricks: tuple[TrickRecord, ...] = ()
    played: int = 0  # mask of the cards of completed tricks
    abnat: tuple[int, int] = (0, 0)  # card abnat won per team so far (R33: the last 10 too)
    declarations: tuple[Declaration | None, ...] = EMPTY_DECLARATIONS
    project_team: int = -1  # team whose projects score, once compared (-1: none or not yet)
    baloot_seat: int = -1  # seat holding K+Q of trump, -1 if none
    baloot_announced: bool = False
    sawa_seat: int = -1  # seat whose Sawa claim ended the hand
    # Results.
    last_score: RoundScore | None = None
    winner: int = -1  # team that won the match
    # Table play (§A.14).
    violations: tuple[Violation, ...] = ()  # unjudged, private: never in an observation
    last_qayd: QaydVerdict | None = None  # the verdict that ended the last scored hand

    @property
    def trump(self) -> int:
        """The trump suit of the contract, -1 for Sun or before a contract."""
        contract = self.contract
        return -1 if contract is None else contract.trump

    @property
    def trick_number(self) -> int:
        """1-based number of the trick in progress (9 once all eight are done)."""
        return len(self.tricks) + 1


_FIELD_INDEX = {name: index for index, name in enumerate(State._fields)}
_new_tuple = tuple.__new__


def _replace_fields(state: State, /, **changes: Any) -> State:
    """``State._replace``, about twice as fast as the generic one of ``namedtuple``.

    The generic method rebuilds all 35 fields through a dict of keyword arguments; deriving
    the next state is the hot path of play, so this copies the tuple once and sets only the
    changed slots. Same contract: unknown field names raise ``ValueError``.
    """
    values = list(state)
    index = _FIELD_INDEX
    try:
        for name, value in changes.items():
            values[index[name]] = value
    except KeyError as unknown:
        raise ValueError(f"Got unexpected field names: {[str(unknown.args[0])]!r}") from None
    return _new_tuple(State, values)


# mypy keeps checking every call against the fields; only the implementation changes.
State._replace = _replace_fields  # type: ignore[method-assign,assignment]

_TURN = _FIELD_INDEX["turn"]
_HANDS = _FIELD_INDEX["hands"]
_LEADER = _FIELD_INDEX["leader"]
_TRICK = _FIELD_INDEX["trick"]
_AKKA = _FIELD_INDEX["akka"]
_TRICKS = _FIELD_INDEX["tricks"]
_PLAYED = _FIELD_INDEX["played"]
_ABNAT = _FIELD_INDEX["abnat"]
_BALOOT_ANNOUNCED = _FIELD_INDEX["baloot_announced"]


def after_card(
    state: State,
    hands: tuple[int, int, int, int],
    trick: tuple[int, ...],
    turn: int,
    akka: bool,
    baloot_announced: bool,
) -> State:
    """``state`` after a card that leaves the trick open: the most frequent step of a match.

    The same as ``_replace`` with those five fields, without building and walking keyword
    arguments (a card play is about half as expensive this way).
    """
    values = list(state)
    values[_HANDS] = hands
    values[_TRICK] = trick
    values[_TURN] = turn
    values[_AKKA] = akka
    values[_BALOOT_ANNOUNCED] = baloot_announced
    return _new_tuple(State, values)


def after_trick(
    state: State,
    hands: tuple[int, int, int, int],
    record: TrickRecord,
    played: int,
    abnat: tuple[int, int],
    baloot_announced: bool,
) -> State:
    """``state`` after the fourth card of a trick: the winner of ``record`` leads the next."""
    values = list(state)
    values[_HANDS] = hands
    values[_TRICK] = ()
    values[_AKKA] = False
    values[_TRICKS] = (*state.tricks, record)
    values[_PLAYED] = played
    values[_ABNAT] = abnat
    values[_LEADER] = values[_TURN] = record.winner
    values[_BALOOT_ANNOUNCED] = baloot_announced
    return _new_tuple(State, values)


def _seat_problems(name: str, seat: int, allow_none: bool) -> list[str]:
    if allow_none and seat == -1:
        return []
    if not 0 <= seat <= 3:
        return [f"{name} must be a seat 0-3, got {seat}"]
    return []


# The contract types as module constants (see ``Phase``): ``validate`` runs on
# every call of the service.
_SUN = ContractType.SUN
_HOKM = ContractType.HOKM

MAX_HAND_NUMBER: Final = 2**31 - 1
"""The most hands a match can have dealt (a bound far beyond any real match)."""

MAX_MATCH_SCORE: Final = 100_000
"""The highest match score a team can hold: a target is at most 10 000 and a hand adds a few
hundred points at most."""

MAX_BIDS: Final = 32
"""The most bids a hand can hold (two laps of four, a confirmation, the «قبلك» questions)."""

MAX_DOUBLING_CALLS: Final = 16
"""The most doubling calls a hand can hold (Double, Triple, Four, Gahwa, declines, the mode)."""


def validate(state: State) -> list[str]:
    """List every way ``state`` is impossible (empty when it is consistent).

    Like python-chess's ``status()``, every violation is reported at once so that a
    corrupted or forged state can be refused with a complete explanation. The checks are
    the functions of :data:`CHECKS`, one concern each: the range of every field first, then
    what each phase leaves empty or requires, then the cards, the contract and the play. A
    new field gets its range in :func:`_field_problems` and its place in
    :func:`_phase_problems`.
    """
    problems = _field_problems(state)
    if problems:
        # The other checks index tables with these fields: out of range, they stop here.
        return problems
    for check in CHECKS:
        problems += check(state)
    return problems


def _field_problems(state: State) -> list[str]:
    """The range of every field on its own, whatever the phase.

    ``validate`` runs on every call of the service, so the common case (every field in range)
    is written to cost little: each seat is one chained comparison before its message is
    built, and a tuple's values are bounded by its ``min`` and ``max`` rather than a generator.
    """
    problems: list[str] = []
    if not isinstance(state.phase, Phase):
        return [f"unknown phase {state.phase!r}"]
    if not 0 <= state.dealer <= 3:
        problems += _seat_problems("dealer", state.dealer, False)
    if not -1 <= state.turn <= 3:
        problems += _seat_problems("turn", state.turn, True)
    if not 0 <= state.hand_number <= MAX_HAND_NUMBER:
        problems.append(f"hand_number must be 0-{MAX_HAND_NUMBER}, got {state.hand_number}")
    match_scores = state.match_scores
    if len(match_scores) != 2:
        problems.append("match scores must be two numbers")
    elif min(match_scores) < 0:
        problems.append("match scores must not be negative")
    elif max(match_scores) > MAX_MATCH_SCORE:
        problems.append(f"match scores must be at most {MAX_MATCH_SCORE}")
    hands = state.hands
    if len(hands) != 4 or min(hands) < 0 or max(hands) > FULL_DECK:
        problems.append("hands must be four card masks")
    stock = state.stock
    if len(stock) > 32 or (stock and (min(stock) < 0 or max(stock) >= 32)):
        problems.append("the stock holds a card out of range")
    if not -1 <= state.revealed < 32:
        problems.append(f"revealed card out of range: {state.revealed}")
    if not -1 <= state.buy_card < 32:
        problems.append(f"buy card out of range: {state.buy_card}")
    if state.bidding_round not in (0, 1, 2):
        problems.append(f"bidding_round must be 0-2, got {state.bidding_round}")
    to_ask = state.to_ask
    if len(to_ask) > 4 or len(set(to_ask)) != len(to_ask):
        problems.append("the seats to ask must be distinct, four at most")
    elif to_ask and (min(to_ask) < 0 or max(to_ask) > 3):
        problems.append("the seats to ask must be seats 0-3")
    if len(state.bids) > MAX_BIDS:
        problems.append(f"a hand holds at most {MAX_BIDS} bids")
    for record in state.bids:
        if not (0 <= record.seat <= 3 and record.bidding_round in (1, 2)):
            problems.append("a bid has a seat or bidding round out of range")
        if not -1 <= record.bid.suit <= 3:
            problems.append("a bid names a suit out of range")
    if not -1 <= state.pending_seat <= 3:
        problems += _seat_problems("pending_seat", state.pending_seat, True)
    if not -1 <= state.pending_suit <= 3:
        problems.append(f"pending_suit must be -1-3, got {state.pending_suit}")
    if len(state.doubling_calls) > MAX_DOUBLING_CALLS:
        problems.append(f"a hand holds at most {MAX_DOUBLING_CALLS} doubling calls")
    for call in state.doubling_calls:
        if not 0 <= call.seat <= 3:
            problems += _seat_problems("a doubling call's seat", call.seat, False)
    full_hands = state.full_hands
    if len(full_hands) != 4 or min(full_hands) < 0 or max(full_hands) > FULL_DECK:
        problems.append("full hands must be four card masks")
    if not -1 <= state.leader <= 3:
        problems += _seat_problems("leader", state.leader, True)
    trick = state.trick
    if len(trick) > 3:
        problems.append("a trick in progress holds at most 3 cards")
    if trick and (min(trick) < 0 or max(trick) >= 32):
        problems.append("the trick holds a card out of range")
    if len(state.tricks) > 8:
        problems.append("a round has at most 8 tricks")
    for completed in state.tricks:
        if not 0 <= completed.leader <= 3 or not 0 <= completed.winner <= 3:
            problems.append("a completed trick has a seat out of range")
        cards = completed.cards
        if len(cards) != 4 or min(cards) < 0 or max(cards) >= 32:
            problems.append("a completed trick needs four cards 0-31")
    if not 0 <= state.played <= FULL_DECK:
        problems.append("the played cards are not a card mask")
    abnat = state.abnat
    if len(abnat) != 2 or min(abnat) < 0 or sum(abnat) > 162:
        problems.append("abnat must be two numbers within the deck's 162")
    if len(state.declarations) != 4:
        problems.append("declarations must have one entry per seat")
    if state.project_team not in (-1, 0, 1):
        problems.append(f"project_team must be -1, 0 or 1, got {state.project_team}")
    if not -1 <= state.baloot_seat <= 3:
        problems += _seat_problems("baloot_seat", state.baloot_seat, True)
    if not -1 <= state.sawa_seat <= 3:
        problems += _seat_problems("sawa_seat", state.sawa_seat, True)
    if state.winner not in (-1, 0, 1):
        problems.append(f"winner must be -1, 0 or 1, got {state.winner}")
    return problems


def _phase_problems(state: State) -> list[str]:
    """What each phase requires, and the fields it leaves at their empty values."""
    problems: list[str] = []
    phase = state.phase
    live = phase in LIVE_PHASES
    if phase is not Phase.AWAITING_DEAL and state.hand_number < 1:
        problems.append(f"phase {phase.value} needs a dealt hand")
    if phase is not Phase.BIDDING:
        # The buyer's last cards wait while doubling (R16 variant): the buy card with them.
        if state.revealed != -1 and (phase is not Phase.DOUBLING or state.buyer_completed):
            problems.append(f"no card lies face up in phase {phase.value}")
        if state.bid_stage is not BidStage.NONE:
            problems.append(f"no bidding stage in phase {phase.value}")
        if state.pending_seat != -1 or state.pending_suit != -1 or state.pending_ashkal:
            problems.append(f"no pending bid in phase {phase.value}")
    elif state.revealed != state.buy_card or state.revealed < 0:
        problems.append("the face-up card is the hand's buy card while bidding")
    elif state.bid_stage is BidStage.NONE:
        problems.append("bidding needs a stage")
    if phase is not Phase.DOUBLING and state.doubling_step is not DoublingStep.NONE:
        problems.append(f"no doubling step in phase {phase.value}")
    if phase is Phase.DOUBLING:
        if state.doubling_step is DoublingStep.NONE:
            problems.append("doubling needs a step")
        if not state.to_ask or state.turn != state.to_ask[0]:
            problems.append("the seat on turn must be the first seat to ask")
    elif phase is not Phase.BIDDING and state.to_ask:
        problems.append(f"no seat is asked in phase {phase.value}")
    review = phase is Phase.ROUND_REVIEW
    if phase is not Phase.PLAYING and not review:
        if state.leader != -1 or state.trick or state.akka:
            problems.append(f"no trick is in progress in phase {phase.value}")
        if state.declarations != EMPTY_DECLARATIONS or state.project_team != -1:
            problems.append(f"no projects are declared in phase {phase.value}")
        if state.baloot_announced or state.baloot_seat != -1:
            problems.append(f"no Baloot is held in phase {phase.value}")
        if state.full_hands != (0, 0, 0, 0):
            problems.append(f"no hands are in play in phase {phase.value}")
    elif phase is Phase.PLAYING and state.sawa_seat != -1:
        problems.append("a Sawa claim ends the hand")
    if review:
        # The hand's bids and cards stay for the review; _review_problems checks the rest.
        if state.bidding_round not in (1, 2) or state.buy_card < 0 or not state.buyer_completed:
            problems.append("a round under review keeps its bidding round and buy card")
    elif live:
        if state.bidding_round not in (1, 2):
            problems.append(f"bidding_round must be 1 or 2 in phase {phase.value}")
        if state.buy_card < 0:
            problems.append(f"phase {phase.value} needs the hand's buy card")
        if state.turn == -1:
            problems.append(f"a seat is on turn in phase {phase.value}")
        if not state.buyer_completed and phase is not Phase.DOUBLING:
            problems.append("the buyer waits for his last cards only while doubling")
    else:
        if state.bidding_round != 0 or state.bids or state.doubling_calls:
            problems.append(f"no bids or doubling calls are kept in phase {phase.value}")
        if not state.buyer_completed:
            problems.append(f"no buyer waits for cards in phase {phase.value}")
        expected_turn = -1 if phase is Phase.MATCH_OVER else state.dealer
        if state.turn != expected_turn:
            problems.append(f"the seat on turn must be {expected_turn} in phase {phase.value}")
    if (phase is Phase.AWAITING_DEAL or phase is Phase.BIDDING or phase is Phase.DOUBLING) and (
        state.tricks or state.played or state.abnat != (0, 0)
    ):
        problems.append(f"no trick has been played in phase {phase.value}")
    if phase is Phase.AWAITING_DEAL:
        if state.contract is not None or state.buy_card != -1 or state.sawa_seat != -1:
            problems.append("nothing of a hand is kept while awaiting the deal")
    elif phase is Phase.ROUND_OVER or phase is Phase.MATCH_OVER:
        if state.contract is None or state.last_score is None:
            problems.append(f"phase {phase.value} keeps the contract and score of the hand")
        played = 0
        for record in state.tricks:
            for card in record.cards:
                played |= 1 << card
        if played != state.played:
            problems.append("the played cards are not the cards of the tricks")
    elif phase is Phase.BIDDING and state.contract is not None:
        problems.append("no contract is fixed while bidding")
    if phase is Phase.MATCH_OVER:
        if state.winner not in (0, 1):
            problems.append("a finished match needs a winning team")
    elif state.winner != -1:
        problems.append("only a finished match has a winner")
    return problems


def _score_problems(state: State) -> list[str]:
    """The match score against the target: a match goes on only while nobody has won."""
    if state.phase is Phase.MATCH_OVER:
        return []
    target = state.rules.match_target
    first, second = state.match_scores
    over = (first >= target, second >= target)
    if over[0] != over[1]:
        return ["a team at or over the target has won the match"]
    if over[0] and (first != second or state.rules.both_cross_rule is BothCrossRule.BUYER_TEAM):
        return ["both teams at or over the target: the match is decided"]
    return []


def _cards_and_contract_problems(state: State) -> list[str]:
    problems: list[str] = []
    phase = state.phase
    hands = state.hands
    contract = state.contract
    review = phase is Phase.ROUND_REVIEW
    if phase is Phase.PLAYING or phase is Phase.BIDDING or phase is Phase.DOUBLING or review:
        problems += _card_problems(state)
    elif hands != (0, 0, 0, 0) or state.stock or state.trick:
        problems.append(f"no cards may be out in phase {phase.value}")
    if contract is None:
        if phase is Phase.PLAYING or phase is Phase.DOUBLING or review:
            problems.append(f"phase {phase.value} needs a contract")
    else:
        problems += _contract_problems(contract)
        if phase is Phase.PLAYING or phase is Phase.DOUBLING:
            problems += _contract_in_hand_problems(state, contract)
    if phase is Phase.PLAYING:
        problems += _play_problems(state)
    elif review:
        problems += _review_problems(state)
    elif phase is Phase.BIDDING:
        if any(h.bit_count() != 5 for h in hands):
            problems.append("every hand holds 5 cards while bidding")
        if not state.to_ask:
            problems.append("bidding needs a seat to ask")
        elif state.turn != state.to_ask[0]:
            problems.append("the seat on turn must be the first seat to ask")
    elif phase is Phase.DOUBLING:
        sizes = sorted(h.bit_count() for h in hands)
        if sizes != ([5, 8, 8, 8] if not state.buyer_completed else [8, 8, 8, 8]):
            problems.append("every hand holds 8 cards while doubling (the buyer 5 if waiting)")
    if state.violations and not state.rules.illegal_moves_allowed:
        problems.append("only table play records violations")
    return problems


def _review_problems(state: State) -> list[str]:
    """A round under review (§A.14): eight tricks played, or a Sawa claimed, and nobody on turn."""
    problems: list[str] = []
    if not state.rules.illegal_moves_allowed:
        problems.append("only table play reviews a round")
    if state.trick or state.turn != -1:
        problems.append("a round under review has no trick in progress and nobody on turn")
    if state.sawa_seat < 0 and (len(state.tricks) != 8 or any(state.hands)):
        problems.append("a round under review has eight tricks or a Sawa claim")
    return problems


CHECKS: Final[tuple[Callable[[State], list[str]], ...]] = (
    _phase_problems,
    _score_problems,
    _cards_and_contract_problems,
)
"""The checks of :func:`validate` after the field ranges, in order."""


def _card_problems(state: State) -> list[str]:
    problems: list[str] = []
    seen = 0
    overlap = 0
    pieces = [*state.hands, state.played]
    for card in (*state.stock, *state.trick):
        if not 0 <= card < 32:
            problems.append(f"card index out of range: {card}")
            return problems
        pieces.append(1 << card)
    revealed = state.revealed
    if revealed != -1:
        if not 0 <= revealed < 32:
            return [*problems, f"revealed card out of range: {revealed}"]
        pieces.append(1 << revealed)
    for piece in pieces:
        if piece < 0 or piece > FULL_DECK:
            problems.append("a card mask is out of range")
            return problems
        overlap |= seen & piece
        seen |= piece
    if overlap:
        cards = " ".join(format_card(c) for c in range(32) if overlap >> c & 1)
        problems.append(f"cards in two places: {cards}")
    if seen != FULL_DECK:
        missing = " ".join(format_card(c) for c in range(32) if not seen >> c & 1)
        problems.append(f"cards missing: {missing}")
    return problems


def _contract_problems(contract: Contract) -> list[str]:
    problems = _seat_problems("buyer", contract.buyer, False)
    if contract.type is _SUN:
        if contract.trump != -1:
            problems.append("a Sun contract has no trump")
        if contract.multiplier not in (1, 2) or contract.gahwa:
            problems.append("a Sun contract can only be doubled once")
    else:
        if not 0 <= contract.trump <= 3:
            problems.append("a Hokm contract needs a trump suit 0-3")
        if contract.multiplier not in (1, 2, 3, 4):
            problems.append("multiplier must be 1-4")
        if contract.gahwa and contract.multiplier != 4:
            problems.append("Gahwa follows Four")
    return problems


def _contract_in_hand_problems(state: State, contract: Contract) -> list[str]:
    """What the bidding and doubling of this hand could not have produced."""
    problems: list[str] = []
    rules = state.rules
    if contract.ashkal and contract.buyer not in (state.dealer, (state.dealer + 3) & 3):
        problems.append("only the dealer or the dealer's left can call Ashkal")
    kind = contract.type
    if kind is _HOKM and state.buy_card >= 0:
        revealed_suit = state.buy_card >> 3
        if contract.bidding_round == 1 and contract.trump != revealed_suit:
            problems.append("a first-round Hokm is in the revealed card's suit")
        if contract.bidding_round == 2 and contract.trump == revealed_suit:
            problems.append("a second-round Hokm is not in the revealed card's suit")
    closed = contract.closed
    if closed and (kind is _SUN or contract.multiplier < 2):
        problems.append("only a doubled Hokm can be closed")
    if contract.gahwa and closed and rules.gahwa_forces_open:
        problems.append("a Gahwa is played open")
    if (
        kind is _SUN
        and contract.multiplier == 2
        and not rules.sun_double_allowed(state.match_scores, contract.buyer_team)
    ):
        problems.append("this Sun could not be doubled at these match scores")
    return problems


def _play_problems(state: State) -> list[str]:
    problems: list[str] = []
    tricks = state.tricks
    n_tricks = len(tricks)
    in_trick = len(state.trick)
    leader = state.leader
    if n_tricks > 7:
        problems.append("a round has at most 8 tricks")
    if not 0 <= leader <= 3:
        problems.append("play needs a leader")
        return problems
    if state.turn != (leader + in_trick) & 3:
        problems.append("the seat on turn does not follow the trick order")
    if state.stock:
        problems.append("no card is left in the stock during play")
    if state.buyer_completed:
        for seat, hand in enumerate(state.hands):
            size = hand.bit_count()
            expected = 8 - n_tricks - ((seat - leader) & 3 < in_trick)
            if size != expected:
                problems.append(f"seat {seat} holds {size} cards, expected {expected}")
    contract = state.contract
    trump = -1 if contract is None else contract.trump
    table = POINTS[trump + 1]
    abnat = [0, 0]
    played = 0
    follows = tricks[0].leader if tricks else leader
    for record in tricks:
        # Four cards 0-31 (checked by _field_problems): distinct when their mask has 4 bits.
        cards = record.cards
        first, second, third, fourth = cards
        mask = 1 << first | 1 << second | 1 << third | 1 << fourth
        if mask.bit_count() != 4:
            problems.append("a completed trick needs four distinct cards")
            continue
        if record.leader != follows:
            problems.append("each trick is led by the winner of the one before")
        winner = (record.leader + trick_winner_index(cards, trump)) & 3
        if record.winner != winner:
            problems.append("a completed trick names the wrong winner")
        follows = winner
        played |= mask
        abnat[winner & 1] += table[first] + table[second] + table[third] + table[fourth]
    if tricks and leader != follows:
        problems.append("the winner of the last trick leads the next")
    if played != state.played:
        problems.append("the played cards are not the cards of the tricks")
    if (abnat[0], abnat[1]) != state.abnat:
        problems.append("the abnat won are not the points of the tricks won")
    if state.akka and not state.trick:
        problems.append("an Akka is called on a led card")
    if state.project_team >= 0:
        if not tricks:
            problems.append("projects are compared at the end of the first trick")
        elif all(
            declaration is None
            for seat, declaration in enumerate(state.declarations)
            if seat & 1 == state.project_team
        ):
            problems.append("the team whose projects score declared none")
    holder = -1
    if trump >= 0 and state.full_hands[0]:
        for seat in range(4):
            kq = KING_QUEEN[trump] & state.full_hands[seat]
            if kq.bit_count() == 2:
                holder = seat
        if holder != state.baloot_seat:
            problems.append("the Baloot holder does not match the hands")
    elif state.baloot_seat != -1:
        problems.append("a Baloot is held only in Hokm, by the seat with the trump K and Q")
    if holder >= 0:
        announced = not state.hands[holder] & KING_QUEEN[trump]
        if state.baloot_announced != announced:
            problems.append("Baloot is announced when its holder has played both its cards")
    elif state.baloot_announced:
        problems.append("Baloot is announced only by the holder of the trump K and Q")
    return problems
