"""The whole state of a match as one immutable snapshot, and its validation.

A ``State`` is a NamedTuple: immutable, cheap to derive with ``_replace`` (the hot path
of play), and comparable. Hidden information (hands, stock, deck) lives here too; the
API layer seals it in the token and the views expose only what a seat may see.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import Any, Final, NamedTuple

from baloot_engine.rules.actions import Bid, Doubling, QaydCategory, QaydVerdict
from baloot_engine.rules.cards import (
    trick_points,
)
from baloot_engine.rules.contract import Contract
from baloot_engine.rules.facts import TRICKS_PER_ROUND
from baloot_engine.rules.projects import Project, ProjectKind, team_projects
from baloot_engine.rules.ruleset import SEEDS, RuleSet
from baloot_engine.rules.scoring import RoundScore


class Phase(Enum):
    """Where a match stands.

    A phase hashes by identity (``object.__hash__``, C code) rather than by ``Enum``'s Python
    ``__hash__``: the phase table of :mod:`baloot_engine.rules.game` is looked up with it on
    every call. Code on a hot path reads the members from :mod:`baloot_engine.rules.members`.
    """

    AWAITING_DEAL = "awaiting_deal"  # before the first round, or after a cancelled round
    BIDDING = "bidding"
    DOUBLING = "doubling"
    PLAYING = "playing"
    ROUND_OVER = "round_over"  # a round was scored; the next dealer deals
    MATCH_OVER = "match_over"
    ROUND_REVIEW = "round_review"  # table play: the 32nd card (or a Sawa) waits for Qayd calls

    __hash__ = object.__hash__


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


def declared_projects(state: State) -> list[tuple[Project, ...]]:
    """The projects each seat 0-3 declared this round (none: empty)."""
    return [d.projects if d is not None else () for d in state.declarations]


def shown_projects(state: State) -> tuple[tuple[int, Project], ...]:
    """The projects laid down, which score: those of the team that won the comparison (R29),
    by declarer (:func:`~baloot_engine.rules.projects.team_projects`); none before the
    comparison or when nobody declared."""
    team = state.project_team
    return () if team < 0 else team_projects(declared_projects(state), team)


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
    hand_number: int = 0  # rounds dealt so far, redeals included
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
    sawa_seat: int = -1  # seat whose Sawa claim ended the round
    # Results.
    last_score: RoundScore | None = None
    winner: int = -1  # team that won the match
    # Table play (§A.14).
    violations: tuple[Violation, ...] = ()  # unjudged, private: never in an observation
    last_qayd: QaydVerdict | None = None  # the verdict that ended the last scored round
    rounds_scored: int = 0  # rounds scored so far in the match (a redeal is not scored)

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
