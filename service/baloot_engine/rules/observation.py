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

from typing import TYPE_CHECKING, NamedTuple

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
)
from baloot_engine.rules.state import tricks_won as won_per_team

if TYPE_CHECKING:
    from baloot_engine.rules.actions import Action
    from baloot_engine.rules.projects import Project, ProjectKind
    from baloot_engine.rules.ruleset import RuleSet
    from baloot_engine.rules.scoring import RoundScore

PUBLIC = -1
"""The ``seat`` of the public observation: nobody's hand, nobody's actions."""

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
    return _observation(state, seat)


def observe_public(state: State) -> Observation:
    """What everyone may know of ``state``: the observation of no seat."""
    return _observation(state, PUBLIC)


def shown_projects(state: State) -> tuple[tuple[int, Project], ...]:
    """The projects laid down: those of the team that won the comparison (R29), by declarer."""
    team = state.project_team
    if team < 0:
        return ()
    shown: list[tuple[int, Project]] = []
    for declarer, declaration in enumerate(state.declarations):
        if declaration is not None and declarer & 1 == team:
            shown.extend((declarer, project) for project in declaration.projects)
    return tuple(shown)


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


def _observation(state: State, seat: int) -> Observation:
    contract = state.contract
    buy_card = state.buy_card
    taker = -1
    if contract is not None and buy_card >= 0:
        taker = contract.taker
    holder = state.baloot_seat
    announced = state.baloot_announced
    hands = state.hands
    declarations = state.declarations
    if seat == PUBLIC:
        hand = full_hand = 0
        own_projects: tuple[Project, ...] = ()
        legal: tuple[Action, ...] = ()
        known_holder = holder if announced else -1
    else:
        hand = hands[seat]
        full_hand = state.full_hands[seat]
        own = declarations[seat]
        own_projects = () if own is None else own.projects
        legal = tuple(legal_actions(state, seat))
        known_holder = holder if announced or holder == seat else -1
    return Observation(
        rules=state.rules,
        phase=state.phase,
        dealer=state.dealer,
        hand_number=state.hand_number,
        match_scores=state.match_scores,
        winner=state.winner,
        last_score=state.last_score,
        turn=state.turn,
        buy_card=buy_card,
        taker=taker,
        hand_sizes=(
            hands[0].bit_count(),
            hands[1].bit_count(),
            hands[2].bit_count(),
            hands[3].bit_count(),
        ),
        bidding_round=state.bidding_round,
        bid_stage=state.bid_stage,
        bids=state.bids,
        contract=contract,
        doubling_step=state.doubling_step,
        doubling_calls=state.doubling_calls,
        leader=state.leader,
        trick=state.trick,
        akka=state.akka,
        tricks=state.tricks,
        played=state.played,
        abnat=state.abnat,
        declared=tuple(None if d is None else d.kinds for d in declarations),
        project_team=state.project_team,
        shown=shown_projects(state),
        baloot_announced=announced,
        baloot_seat=known_holder,
        scored_baloot_seat=scored_baloot_seat(state),
        seat=seat,
        hand=hand,
        full_hand=full_hand,
        own_projects=own_projects,
        legal_actions=legal,
    )
