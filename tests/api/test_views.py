"""Views and events assembled from cached encoded pieces equal the same messages built field by
field, for every state and event of random matches; the host's four views built around one
shared public part equal the views built one by one."""

from __future__ import annotations

import random

import pytest

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import types_pb2
from baloot_engine.api import outbound
from baloot_engine.api.views import _scored_baloot_holder, add_views, build_view, last_round_out
from baloot_engine.rules.actions import Deal, Event
from baloot_engine.rules.contract import ContractType
from baloot_engine.rules.game import apply, legal_actions, new_match
from baloot_engine.rules.projects import baloot_project
from baloot_engine.rules.ruleset import KAMMELNA, SEEDS, RuleSet
from baloot_engine.rules.state import Phase, State
from tests.rules.strategies import choose, random_deck

MATCH_ID = "0123456789abcdef" * 2
LIVE = (Phase.BIDDING, Phase.DOUBLING, Phase.PLAYING)
VARIANTS = [
    SEEDS,
    KAMMELNA,
    SEEDS.replace(sawa=True, auto_declare_projects=True, match_target=101),
]


def reference_view(
    state: State, seat: int | None, version: int, *, with_rules: bool
) -> types_pb2.View:
    """The view built the plain way, one field and one sub-message at a time."""
    view = types_pb2.View(
        match_id=MATCH_ID,
        state_version=version,
        phase=outbound.PHASE_NUMBERS[state.phase],
        round_number=state.hand_number,
        dealer=state.dealer,
        match_score=outbound.match_score_out(state),
    )
    if with_rules:
        view.rules.CopyFrom(outbound.rules_out(state.rules))
    if seat is not None:
        view.seat = seat
    if state.turn >= 0:
        view.turn = state.turn
    if state.contract is not None:
        view.contract.CopyFrom(outbound.contract_out(state.contract))
    if state.buy_card >= 0:
        view.revealed_card = state.buy_card
    for record in state.bids:
        view.bids.add(
            seat=record.seat, bid=outbound.bid_out(record.bid), bidding_round=record.bidding_round
        )
    for call in state.doubling_calls:
        view.doubling_calls.add(seat=call.seat, doubling=outbound.doubling_out(call.call))
    trump = state.trump
    if state.phase is Phase.PLAYING:
        outbound.trick_out(
            len(state.tricks) + 1,
            state.leader,
            state.trick,
            trump,
            akka=state.akka,
            into=view.current_trick,
        )
    outbound.last_trick_out(state, view.last_trick)
    won = [0, 0]
    for trick in state.tricks:
        won[trick.winner & 1] += 1
    view.tricks_won.extend(won)
    view.abnat_won.extend(state.abnat)
    for declarer, declaration in enumerate(state.declarations):
        if declaration is not None:
            view.declared_projects.add(
                seat=declarer, kinds=[outbound.PROJECT_KIND_NUMBERS[k] for k in declaration.kinds]
            )
            if state.project_team == declarer & 1:
                view.revealed_projects.extend(
                    outbound.project_out(declarer, p, trump) for p in declaration.projects
                )
    if state.baloot_announced and state.phase is Phase.PLAYING:
        view.revealed_projects.append(
            outbound.project_out(state.baloot_seat, baloot_project(trump), trump)
        )
    score = state.last_score
    if score is not None and state.phase not in LIVE:
        view.round_score.CopyFrom(last_round_out(state))
        sun = score.contract is ContractType.SUN
        view.revealed_projects.extend(outbound.awarded_out(p, sun) for p in score.awarded)
        holder = _scored_baloot_holder(state)
        if holder >= 0:
            view.revealed_projects.append(
                outbound.project_out(holder, baloot_project(trump), trump)
            )
    if state.phase in LIVE:
        view.hand_sizes.extend(hand.bit_count() for hand in state.hands)
    if seat is not None:
        hand = state.hands[seat]
        view.hand.extend(c for c in range(32) if hand >> c & 1)
        for action in legal_actions(state, seat):
            outbound.add_action(view.legal_actions, action)
    return view


def played_states(rules: RuleSet, seed: int) -> list[tuple[State, tuple[Event, ...]]]:
    """Every state of a random match with the events that led to it."""
    rng = random.Random(seed)
    state = new_match(rules, dealer=rng.randrange(4))
    steps: list[tuple[State, tuple[Event, ...]]] = [(state, ())]
    while state.phase is not Phase.MATCH_OVER:
        if state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
            state, events = apply(state, state.dealer, Deal(random_deck(rng)))
        else:
            seat, action = choose(rng, state)
            state, events = apply(state, seat, action)
        steps.append((state, events))
    return steps


@pytest.mark.parametrize("rules", VARIANTS, ids=["seeds", "kammelna", "custom"])
def test_views_and_events_equal_the_plain_construction(rules: RuleSet) -> None:
    for seed in range(4):
        for version, (state, events) in enumerate(played_states(rules, seed)):
            for seat in (None, 0, 1, 2, 3):
                for with_rules in (False, True):
                    expected = reference_view(state, seat, version, with_rules=with_rules)
                    built = build_view(state, seat, MATCH_ID, version, with_rules=with_rules)
                    assert built == expected
            response = pb.PlayCardResponse()
            outbound.add_events(response.events, events, state)
            plain = [outbound._build_event(e, state) for e in events]
            assert list(response.events) == plain
            assert [outbound.event_out(e, state) for e in events] == plain


def test_the_host_views_from_the_shared_public_part_equal_single_views() -> None:
    for rules in VARIANTS:
        for version, (state, _) in enumerate(played_states(rules, 11)):
            response = pb.PlayCardResponse()
            add_views(response.views, state, (0, 1, 2, 3), MATCH_ID, version)
            singles = [build_view(state, seat, MATCH_ID, version) for seat in range(4)]
            assert list(response.views) == singles
            assert [v.SerializeToString(deterministic=True) for v in response.views] == [
                v.SerializeToString(deterministic=True) for v in singles
            ]
