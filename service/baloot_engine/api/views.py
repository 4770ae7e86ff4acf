"""Views: what a seat (or anyone) may see of a state.

A view never holds another seat's hand, the stock or the deck order. The revealed buy
card is public (it lay face up); declared project types are public (they were said
aloud); the cards of projects are shown only once they score (R28-R29).
"""

from __future__ import annotations

from baloot.v1 import types_pb2
from baloot_engine.api import convert
from baloot_engine.rules.cards import KING, QUEEN
from baloot_engine.rules.contract import ContractType
from baloot_engine.rules.game import legal_actions
from baloot_engine.rules.projects import baloot_project
from baloot_engine.rules.state import Phase, State

_LIVE = (Phase.BIDDING, Phase.DOUBLING, Phase.PLAYING)


def build_view(
    state: State, seat: int | None, match_id: str, version: int, *, with_rules: bool = False
) -> types_pb2.View:
    """The view of ``seat`` (its hand and legal actions included), or the public view.

    ``with_rules`` adds the rule set, which never changes during a match (CreateMatch and
    GetView send it; action responses leave it out to stay small).
    """
    view = types_pb2.View(
        match_id=match_id,
        state_version=version,
        phase=convert.PHASE_NUMBERS[state.phase],
        round_number=state.hand_number,
        dealer=state.dealer,
        match_score=convert.match_score_out(state),
    )
    if with_rules:
        view.rules.CopyFrom(convert.rules_out(state.rules))
    if seat is not None:
        view.seat = seat
    if state.turn >= 0:
        view.turn = state.turn
    contract = state.contract
    if contract is not None:
        view.contract.CopyFrom(convert.contract_out(contract))
    if state.buy_card >= 0:
        view.revealed_card = state.buy_card
    for record in state.bids:
        view.bids.add(
            seat=record.seat, bid=convert.bid_out(record.bid), bidding_round=record.bidding_round
        )
    for call in state.doubling_calls:
        view.doubling_calls.add(seat=call.seat, doubling=convert.doubling_out(call.call))
    trump = state.trump
    if state.phase is Phase.PLAYING:
        convert.trick_out(
            len(state.tricks) + 1,
            state.leader,
            state.trick,
            trump,
            akka=state.akka,
            into=view.current_trick,
        )
    convert.last_trick_out(state, view.last_trick)
    won = [0, 0]
    for trick in state.tricks:
        won[trick.winner & 1] += 1
    view.tricks_won.extend(won)
    view.abnat_won.extend(state.abnat)
    for declarer, declaration in enumerate(state.declarations):
        if declaration is not None:
            view.declared_projects.add(
                seat=declarer, kinds=[convert.PROJECT_KIND_NUMBERS[k] for k in declaration.kinds]
            )
            if state.project_team == declarer & 1:
                view.revealed_projects.extend(
                    convert.project_out(declarer, p, trump) for p in declaration.projects
                )
    if state.baloot_announced and state.phase is Phase.PLAYING:
        holder = state.baloot_seat
        view.revealed_projects.append(convert.project_out(holder, baloot_project(trump), trump))
    score = state.last_score
    if score is not None and state.phase not in _LIVE:
        view.round_score.CopyFrom(last_round_out(state))
        sun = score.contract is ContractType.SUN
        view.revealed_projects.extend(convert.awarded_out(p, sun) for p in score.awarded)
        holder = _scored_baloot_holder(state)
        if holder >= 0:
            view.revealed_projects.append(convert.project_out(holder, baloot_project(trump), trump))
    if state.phase in _LIVE:
        view.hand_sizes.extend(hand.bit_count() for hand in state.hands)
    if seat is not None:
        hand = state.hands[seat]
        view.hand.extend(c for c in range(32) if hand >> c & 1)
        for action in legal_actions(state, seat):
            convert.add_action(view.legal_actions, action)
    return view


def _scored_baloot_holder(state: State) -> int:
    """The seat whose Baloot scored in the hand just finished (-1 if none or not shown)."""
    score = state.last_score
    trump = state.trump
    if score is None or trump < 0 or not score.facts.baloot_teams:
        return -1
    king, queen = trump * 8 + KING, trump * 8 + QUEEN
    played_by = {}
    for record in state.tricks:
        for position, card in enumerate(record.cards):
            if card in (king, queen):
                played_by[card] = (record.leader + position) & 3
    holder = played_by.get(king, -1)
    return holder if holder >= 0 and played_by.get(queen) == holder else -1


def last_round_out(state: State) -> types_pb2.RoundScore:
    """The breakdown of ``state.last_score`` (which must be set)."""
    score = state.last_score
    assert score is not None
    if state.phase in _LIVE:  # a new hand is under way: the score is of the one before
        return convert.round_score_out(score, max(state.hand_number - 1, 0), None)
    return convert.round_score_out(score, state.hand_number, state.contract)
