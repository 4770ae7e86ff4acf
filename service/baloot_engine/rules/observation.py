"""What a seat may know: the one definition of the privacy rule.

A :class:`~baloot_engine.rules.state.State` holds everything, hidden cards included: every
hand, the stock, the cards behind each declaration. :func:`observe` copies out of it what one
seat sees at the table, and :func:`observe_public` what everyone sees (the same with no hand).
Nothing else decides what a caller may see: the views encode an observation for the wire, the
bots decide from one, and the privacy tests check both against it.

An observation holds:

* the public course of the round: the phase, dealer, whose turn it is, the buy card while it
  is known (it lay face up; it stays listed until the next deal), who takes it, the bids and
  the doubling calls in order, the question the bidding or the doubling is asking, the
  contract, the tricks played (each was seen by all), the trick in progress with its Akka call,
  the abnat won, the hand sizes;
* the projects: the types each seat declared (said aloud), the cards of the winning team's
  projects once the comparison is made (R28-R29), a Baloot once its holder announced it by
  playing the second of its two cards, and after the round the awarded projects and the Baloot
  that scored (both in the score);
* the match: its scores, its winner and the breakdown of the last finished round;
* for a seat only: its own hand, its 8-card hand during the play, the cards behind its own
  declaration, its own Baloot, and the actions it may take now.

Never in it: another seat's hand or 8-card hand, the stock, the deck order, the cards behind a
declaration that did not win the comparison, a Baloot not yet announced (unless it is the
seat's own). Two states that differ only in those give equal observations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, NamedTuple

from baloot_engine.rules.cards import KING, QUEEN
from baloot_engine.rules.contract import Contract
from baloot_engine.rules.game import legal_actions
from baloot_engine.rules.state import (
    LIVE_PHASES,
    BidRecord,
    BidStage,
    DoublingRecord,
    DoublingStep,
    Phase,
    State,
    TrickRecord,
    shown_projects,
)
from baloot_engine.rules.state import tricks_won as won_per_team

if TYPE_CHECKING:
    from baloot_engine.rules.actions import Action
    from baloot_engine.rules.projects import Project, ProjectKind
    from baloot_engine.rules.ruleset import RuleSet
    from baloot_engine.rules.scoring import RoundScore

PUBLIC = -1
"""The ``seat`` of the public observation: nobody's hand, nobody's actions."""

SeatFields = tuple[int, int, int, int, int, "tuple[Project, ...]", "tuple[Action, ...]"]
"""An observation's last fields, ``baloot_seat`` to ``legal_actions`` (see :func:`seat_fields`)."""

# Cards are in the hands, or the round is under review (not scored yet).


class Observation(NamedTuple):
    """Everything one seat (or everyone) may know at one moment of a match; nothing more.

    Cards are masks (bit ``card`` set) or card codes, as in the rules core. The public fields
    come first; ``seat`` and the fields after it belong to the seat (empty in the public
    observation, whose ``seat`` is :data:`PUBLIC`).
    """

    rules: RuleSet
    phase: Phase
    dealer: int
    hand_number: int  # rounds dealt so far, redeals included
    rounds_scored: int  # rounds scored so far (a redeal is not scored)
    match_scores: tuple[int, int]
    winner: int  # the team that won the match, -1 while it goes on
    last_score: RoundScore | None  # the last finished round's score, announced to all
    turn: int  # the seat expected to act, -1 when nobody is
    buy_card: int  # the revealed card of this round, -1 before a deal
    taker: int  # the seat that takes the buy card once the contract is fixed, -1 before
    hand_sizes: tuple[int, int, int, int]
    bidding_round: int
    bid_stage: BidStage
    bids: tuple[BidRecord, ...]
    contract: Contract | None
    doubling_step: DoublingStep
    doubling_calls: tuple[DoublingRecord, ...]
    leader: int  # the leader of the trick in progress
    trick: tuple[int, ...]  # the cards of the trick in progress, in play order
    akka: bool  # the leader of the trick in progress called Akka
    tricks: tuple[TrickRecord, ...]  # the completed tricks of the round
    played: int  # mask of the cards of the completed tricks
    abnat: tuple[int, int]  # card abnat won per team so far
    declared: tuple[tuple[ProjectKind, ...] | None, ...]  # per seat, None if not declared
    project_team: int  # the team whose projects score, once compared (-1: none or not yet)
    shown: tuple[tuple[int, Project], ...]  # (declarer, project) of that team, in seat order
    baloot_announced: bool  # the Baloot holder played the second of its two cards
    baloot_seat: int  # the Baloot holder once announced (or the seat's own), else -1
    scored_baloot_seat: int  # after the round: the seat whose Baloot scored, else -1
    seat: int
    hand: int
    full_hand: int  # the seat's 8-card hand during the play, 0 before
    own_projects: tuple[Project, ...]  # the cards behind the seat's own declaration
    legal_actions: tuple[Action, ...]  # what the seat may do now

    @property
    def trump(self) -> int:
        """The trump suit of the contract, -1 for Sun or before a contract."""
        contract = self.contract
        return -1 if contract is None else contract.trump

    @property
    def team(self) -> int:
        """The seat's team (of a seat's observation)."""
        return self.seat & 1

    @property
    def tricks_won(self) -> tuple[int, int]:
        """The number of tricks each team has won so far in the round."""
        return won_per_team(self.tricks)


def observe(state: State, seat: int) -> Observation:
    """What ``seat`` (0-3) may know of ``state``, and nothing else."""
    if not 0 <= seat <= 3:
        raise ValueError(f"a seat is 0-3, got {seat}")
    last = _last
    public = last[1] if last is not None and last[0] is state else _public_fields(state)
    return _new(Observation, public[:_BALOOT_SEAT] + seat_fields(state, seat, public))


def seat_fields(state: State, seat: int, public: Observation) -> SeatFields:
    """The fields of ``observe(state, seat)`` from ``baloot_seat`` on, given the public
    observation of ``state``: those the seat knows beyond it (``scored_baloot_seat`` is the
    public one). The views encode a seat's part from these, without a whole observation.
    """
    # Read by position (see _STATE_FIELDS).
    holder = state[_S_BALOOT_SEAT]
    own = state[_S_DECLARATIONS][seat]
    return (
        holder if state[_S_BALOOT_ANNOUNCED] or holder == seat else -1,
        public[_SCORED_BALOOT_SEAT],
        seat,
        state[_S_HANDS][seat],
        state[_S_FULL_HANDS][seat],
        () if own is None else own.projects,
        tuple(legal_actions(state, seat)),
    )


def observe_public(state: State) -> Observation:
    """What everyone may know of ``state``: the observation of no seat."""
    last = _last
    return last[1] if last is not None and last[0] is state else _public_fields(state)


def scored_baloot_seat(state: State) -> int:
    """The seat whose Baloot scored in the round just finished, or -1.

    Shown with the score, between rounds only. The score names the team; the seat is the one
    that played both the king and the queen of trump, which every seat saw.
    """
    score = state.last_score
    trump = state.trump
    if score is None or trump < 0 or not score.facts.baloot_teams or state.phase in LIVE_PHASES:
        return -1
    king, queen = trump * 8 + KING, trump * 8 + QUEEN
    played_by = {}
    for record in state.tricks:
        for position, card in enumerate(record.cards):
            if card in (king, queen):
                played_by[card] = (record.leader + position) & 3
    holder = played_by.get(king, -1)
    return holder if holder >= 0 and played_by.get(queen) == holder else -1


_new: Final = tuple.__new__
_BALOOT_SEAT: Final = 28  # Observation's baloot_seat, the first of a seat's own fields
_SCORED_BALOOT_SEAT: Final = 29
if Observation._fields[_BALOOT_SEAT : _SCORED_BALOOT_SEAT + 1] != (
    "baloot_seat",
    "scored_baloot_seat",
):
    raise ImportError("rules/observation.py reads Observation's fields at the wrong positions")
_NONE_DECLARED: Final = (None, None, None, None)
# A state is read by unpacking it whole (or by position): reading a NamedTuple's fields by
# name costs a generic attribute lookup each, several times the unpacking of all of them.
_STATE_FIELDS: Final = (
    "rules",
    "phase",
    "dealer",
    "hand_number",
    "match_scores",
    "turn",
    "hands",
    "stock",
    "revealed",
    "buy_card",
    "bidding_round",
    "bid_stage",
    "to_ask",
    "bids",
    "pending_seat",
    "pending_suit",
    "pending_ashkal",
    "contract",
    "doubling_step",
    "doubling_calls",
    "buyer_completed",
    "full_hands",
    "leader",
    "trick",
    "akka",
    "tricks",
    "played",
    "abnat",
    "declarations",
    "project_team",
    "baloot_seat",
    "baloot_announced",
    "sawa_seat",
    "last_score",
    "winner",
    "violations",
    "last_qayd",
    "rounds_scored",
)
if State._fields != _STATE_FIELDS:  # the unpacking below follows this order
    raise ImportError("rules/observation.py reads State's fields in an older order")
# The positions of the fields a seat's own part reads (literals, so that the type checker
# knows each field's type), checked against the names.
_S_HANDS: Final = 6
_S_FULL_HANDS: Final = 21
_S_DECLARATIONS: Final = 28
_S_BALOOT_SEAT: Final = 30
_S_BALOOT_ANNOUNCED: Final = 31
if tuple(
    map(
        _STATE_FIELDS.index,
        ("hands", "full_hands", "declarations", "baloot_seat", "baloot_announced"),
    )
) != (_S_HANDS, _S_FULL_HANDS, _S_DECLARATIONS, _S_BALOOT_SEAT, _S_BALOOT_ANNOUNCED):
    raise ImportError("rules/observation.py reads State's fields at the wrong positions")
# The public observation of the last state observed: the views observe one state for the
# public view and again for each seat (four for the host), and so do the privacy tests.
# One entry, replaced whole, so a reader never sees a state with another state's fields.
_last: tuple[State, Observation] | None = None


def _public_fields(state: State) -> Observation:
    """The public observation of ``state``, whose fields begin every seat's observation."""
    global _last  # noqa: PLW0603 - one entry, replaced whole
    (
        rules,
        phase,
        dealer,
        hand_number,
        match_scores,
        turn,
        hands,
        _stock,
        _revealed,
        buy_card,
        bidding_round,
        bid_stage,
        _to_ask,
        bids,
        _pending_seat,
        _pending_suit,
        _pending_ashkal,
        contract,
        doubling_step,
        doubling_calls,
        _buyer_completed,
        _full_hands,
        leader,
        trick,
        akka,
        tricks,
        played,
        abnat,
        declarations,
        project_team,
        holder,
        announced,
        _sawa_seat,
        score,
        winner,
        _violations,
        _last_qayd,
        rounds_scored,
    ) = state
    if declarations.count(None) == 4:  # nobody declared (the common case)
        declared: tuple[tuple[ProjectKind, ...] | None, ...] = _NONE_DECLARED
    else:
        declared = tuple(None if d is None else d.kinds for d in declarations)
    public = _new(
        Observation,
        (
            rules,
            phase,
            dealer,
            hand_number,
            rounds_scored,
            match_scores,
            winner,
            score,
            turn,
            buy_card,
            contract.taker if contract is not None and buy_card >= 0 else -1,
            (
                hands[0].bit_count(),
                hands[1].bit_count(),
                hands[2].bit_count(),
                hands[3].bit_count(),
            ),
            bidding_round,
            bid_stage,
            bids,
            contract,
            doubling_step,
            doubling_calls,
            leader,
            trick,
            akka,
            tricks,
            played,
            abnat,
            declared,
            project_team,
            shown_projects(state) if project_team >= 0 else (),
            announced,
            holder if announced else -1,
            -1 if score is None or phase in LIVE_PHASES else scored_baloot_seat(state),
            PUBLIC,  # no seat: no hand, projects or actions
            0,
            0,
            (),
            (),
        ),
    )
    _last = (state, public)
    return public
