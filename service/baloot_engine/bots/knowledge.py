"""What one seat may know: the only bridge between a match state and the bots.

:func:`knowledge_of` copies out of a :class:`~baloot_engine.rules.state.State` exactly what the
seat sees at the table: its own hand, the public course of the hand (bids, doubling calls,
the revealed card and who took it, the tricks, the declared project types, projects once they
are shown, a Baloot once it is announced), the hand sizes and its own legal actions. Nothing
else leaves the state: not the other hands, not the stock, not the deck order, not the cards
behind another seat's declaration. Every bot decides from a :class:`SeatKnowledge` alone, so
two states that differ only in hidden cards give the same knowledge and the same decision.
"""

from __future__ import annotations

from typing import NamedTuple

from baloot_engine.rules.actions import Action
from baloot_engine.rules.contract import Contract, partner_of
from baloot_engine.rules.game import legal_actions
from baloot_engine.rules.projects import Project, ProjectKind
from baloot_engine.rules.ruleset import RuleSet
from baloot_engine.rules.state import (
    BidRecord,
    BidStage,
    DoublingRecord,
    DoublingStep,
    Phase,
    State,
    TrickRecord,
)


class SeatKnowledge(NamedTuple):
    """Everything one seat may know at one moment of a match; nothing more.

    Cards are masks (bit ``card`` set), as in the rules core. ``declared`` holds each seat's
    declared project types (said aloud), ``shown`` the projects whose cards were laid down
    (the team that won the comparison, R29), ``own_projects`` the cards behind the seat's own
    declaration. ``taker`` is the seat that takes the revealed card once the contract is fixed
    (-1 before); ``baloot_seat`` is known once the Baloot is announced, or when it is the
    seat's own.
    """

    rules: RuleSet
    seat: int
    phase: Phase
    dealer: int
    hand_number: int
    match_scores: tuple[int, int]
    turn: int
    hand: int
    full_hand: int
    hand_sizes: tuple[int, int, int, int]
    buy_card: int
    taker: int
    bidding_round: int
    bid_stage: BidStage
    to_ask: tuple[int, ...]
    bids: tuple[BidRecord, ...]
    pending_seat: int
    pending_suit: int
    contract: Contract | None
    doubling_step: DoublingStep
    doubling_calls: tuple[DoublingRecord, ...]
    leader: int
    trick: tuple[int, ...]
    akka: bool
    tricks: tuple[TrickRecord, ...]
    played: int
    abnat: tuple[int, int]
    declared: tuple[tuple[ProjectKind, ...] | None, ...]
    own_projects: tuple[Project, ...]
    shown: tuple[tuple[int, Project], ...]
    project_team: int
    baloot_seat: int
    legal: tuple[Action, ...]

    @property
    def trump(self) -> int:
        """The trump suit of the contract, -1 for Sun or before a contract."""
        contract = self.contract
        return -1 if contract is None else contract.trump

    @property
    def team(self) -> int:
        """The seat's team."""
        return self.seat & 1


def knowledge_of(state: State, seat: int) -> SeatKnowledge:
    """Copy out of ``state`` what ``seat`` may know, and nothing else."""
    contract = state.contract
    taker = -1
    if contract is not None and state.buy_card >= 0:
        taker = partner_of(contract.buyer) if contract.ashkal else contract.buyer
    own = state.declarations[seat]
    shown: list[tuple[int, Project]] = []
    if state.project_team >= 0:
        for declarer, declaration in enumerate(state.declarations):
            if declaration is not None and declarer & 1 == state.project_team:
                shown.extend((declarer, project) for project in declaration.projects)
    baloot_seat = -1
    if state.baloot_seat >= 0 and (state.baloot_announced or state.baloot_seat == seat):
        baloot_seat = state.baloot_seat
    live = state.phase in (Phase.BIDDING, Phase.DOUBLING, Phase.PLAYING)
    hands = state.hands
    sizes = (
        (hands[0].bit_count(), hands[1].bit_count(), hands[2].bit_count(), hands[3].bit_count())
        if live
        else (0, 0, 0, 0)
    )
    return SeatKnowledge(
        rules=state.rules,
        seat=seat,
        phase=state.phase,
        dealer=state.dealer,
        hand_number=state.hand_number,
        match_scores=state.match_scores,
        turn=state.turn,
        hand=hands[seat] if live else 0,
        full_hand=state.full_hands[seat] if state.phase is Phase.PLAYING else 0,
        hand_sizes=sizes,
        buy_card=state.buy_card if live else -1,
        taker=taker if live else -1,
        bidding_round=state.bidding_round,
        bid_stage=state.bid_stage,
        to_ask=state.to_ask,
        bids=state.bids if live else (),
        pending_seat=state.pending_seat,
        pending_suit=state.pending_suit,
        contract=contract if live else None,
        doubling_step=state.doubling_step,
        doubling_calls=state.doubling_calls if live else (),
        leader=state.leader,
        trick=state.trick,
        akka=state.akka,
        tricks=state.tricks if state.phase is Phase.PLAYING else (),
        played=state.played if state.phase is Phase.PLAYING else 0,
        abnat=state.abnat if state.phase is Phase.PLAYING else (0, 0),
        declared=tuple(None if d is None else d.kinds for d in state.declarations),
        own_projects=() if own is None else own.projects,
        shown=tuple(shown),
        project_team=state.project_team,
        baloot_seat=baloot_seat,
        legal=tuple(legal_actions(state, seat)),
    )
