"""The phase machine of ``rules/game.py``: one legal/apply pair per phase, the transitions
between phases, and the refusal of an action that belongs to another phase."""

from __future__ import annotations

import random

import pytest

from baloot_engine.rules import errors
from baloot_engine.rules.actions import (
    Bid,
    BidKind,
    ClaimSawa,
    Deal,
    Declare,
    Doubling,
    DoublingCall,
    EventKind,
    Play,
)
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.game import _LEGAL, _PHASES, _STEPS, apply, legal_actions, new_match
from baloot_engine.rules.projects import ProjectKind
from baloot_engine.rules.ruleset import KAMMELNA, SEEDS
from baloot_engine.rules.state import Phase

from .scenario import act_events, bid, buy_hokm, dealt, decline_all, pass_rest, refuse
from .strategies import play_match

OTHER_PHASE_ACTIONS = {
    "play": Play(0),
    "bid": Bid(BidKind.PASS),
    "double": Doubling(DoublingCall.DECLINE),
    "declare": Declare((ProjectKind.SIRA,)),
    "deal": Deal(tuple(range(32))),
}


def test_every_phase_has_its_legal_and_apply_pair() -> None:
    assert set(_PHASES) == set(Phase)
    assert set(_LEGAL) == set(_STEPS) == set(Phase)


@pytest.mark.parametrize("name", sorted(OTHER_PHASE_ACTIONS))
def test_an_action_of_another_phase_is_refused_with_wrong_phase(name: str) -> None:
    action = OTHER_PHASE_ACTIONS[name]
    bidding = dealt(tuple(range(32)))
    doubling = buy_hokm(bidding, bidding.turn)
    playing = decline_all(doubling)
    assert (bidding.phase, doubling.phase, playing.phase) == (
        Phase.BIDDING,
        Phase.DOUBLING,
        Phase.PLAYING,
    )
    for state in (bidding, doubling, playing):
        if type(action) in _STEPS[state.phase]:
            continue
        refuse(state, state.turn, action, errors.WRONG_PHASE)


def test_sawa_outside_play_and_a_finished_match_are_refused() -> None:
    bidding = dealt(tuple(range(32)), rules=SEEDS.replace(sawa=True))
    refuse(bidding, bidding.turn, ClaimSawa(), errors.SAWA_NOT_ALLOWED)
    over = play_match(random.Random(3), KAMMELNA)[-1]
    assert over.phase is Phase.MATCH_OVER
    assert legal_actions(over, over.dealer) == []
    with pytest.raises(RuleError) as caught:
        apply(over, over.dealer, Deal(tuple(range(32))))
    assert caught.value.reason == errors.MATCH_OVER


def test_what_is_not_an_action_or_a_seat_is_malformed() -> None:
    state = new_match()
    for seat, action, reason in (
        (0, "deal", errors.INVALID_ACTION),
        (4, Deal(tuple(range(32))), errors.INVALID_SEAT),
    ):
        with pytest.raises(RuleError) as caught:
            apply(state, seat, action)  # type: ignore[arg-type]
        assert caught.value.reason == reason


def test_fixing_the_contract_completes_the_deal_and_opens_the_doubling() -> None:
    state = dealt(tuple(range(32)))
    buyer = state.turn
    state = pass_rest(bid(state, buyer, BidKind.HOKM))
    assert state.turn == buyer
    state, events = act_events(state, buyer, Bid(BidKind.CONFIRM_HOKM, state.revealed >> 3))
    kinds = [e.kind for e in events]
    assert kinds == [EventKind.BID_PLACED, EventKind.CONTRACT_FIXED, EventKind.CARDS_DEALT]
    assert state.phase is Phase.DOUBLING
    assert all(hand.bit_count() == 8 for hand in state.hands)


def test_the_end_of_the_chain_starts_the_play_and_the_eighth_trick_scores() -> None:
    state = buy_hokm(dealt(tuple(range(32))), 1)
    while state.phase is Phase.DOUBLING:
        state, events = act_events(state, state.turn, Doubling(DoublingCall.DECLINE))
    assert state.phase is Phase.PLAYING
    assert events[-1].kind is EventKind.DOUBLING_ENDED
    rng = random.Random(1)
    while state.phase is Phase.PLAYING:
        plays = [a for a in legal_actions(state, state.turn) if isinstance(a, Play)]
        state, events = act_events(state, state.turn, rng.choice(plays))
    assert [e.kind for e in events][-2:] == [EventKind.TRICK_WON, EventKind.ROUND_SCORED]
    assert state.phase in (Phase.ROUND_OVER, Phase.MATCH_OVER)
    assert state.last_score is not None
