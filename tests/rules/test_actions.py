"""Actions and events (``rules/actions.py``): values that repr back to themselves, the
documented order of ``legal_actions``, events with named fields."""

from __future__ import annotations

import random

from baloot_engine.rules.actions import (
    Bid,
    BidKind,
    ClaimSawa,
    Deal,
    Declare,
    Doubling,
    DoublingCall,
    Event,
    EventKind,
    Play,
)
from baloot_engine.rules.contract import PlayMode
from baloot_engine.rules.game import legal_actions
from baloot_engine.rules.projects import ProjectKind
from baloot_engine.rules.ruleset import KAMMELNA, SEEDS

from .strategies import play_match

SAMPLES = [
    Deal(tuple(range(32))),
    Bid(BidKind.PASS),
    Bid(BidKind.HOKM, 2),
    Doubling(DoublingCall.DOUBLE, PlayMode.CLOSED),
    Declare((ProjectKind.SIRA, ProjectKind.FIFTY)),
    Play(12, akka=True),
    ClaimSawa(),
]
NAMESPACE = {"Deal": Deal, "Play": Play, "ClaimSawa": ClaimSawa}


def test_actions_are_hashable_values_and_card_actions_repr_back() -> None:
    assert len(set(SAMPLES)) == len(SAMPLES)
    assert Bid(BidKind.HOKM, 2) == Bid(BidKind.HOKM, 2)
    assert hash(Bid(BidKind.HOKM, 2)) == hash(Bid(BidKind.HOKM, 2))
    # Actions whose fields are plain values evaluate back from their repr. (Those holding
    # an enum member do not: an Enum's repr is ``<BidKind.PASS: 'pass'>``.)
    for action in (Deal(tuple(range(32))), Play(12, akka=True), ClaimSawa()):
        again = eval(repr(action), NAMESPACE)  # noqa: S307 - our own repr
        assert again == action


def test_the_sort_key_orders_the_kinds_of_action_as_documented() -> None:
    shuffled = SAMPLES[:]
    random.Random(2).shuffle(shuffled)
    assert sorted(shuffled, key=lambda a: a.sort_key()) == SAMPLES


def test_legal_actions_come_in_sort_key_order() -> None:
    for rules in (SEEDS, KAMMELNA.replace(sawa=True)):
        for state in play_match(random.Random(11), rules):
            if state.turn < 0:
                continue
            listed = legal_actions(state, state.turn)
            assert listed == sorted(listed, key=lambda a: a.sort_key())


def test_events_are_named_and_keep_their_defaults() -> None:
    event = Event(EventKind.TRICK_WON, seat=2, team=0, cards=(1, 2, 3, 4), points=13)
    assert event._asdict() == {
        "kind": EventKind.TRICK_WON,
        "seat": 2,
        "team": 0,
        "card": -1,
        "cards": (1, 2, 3, 4),
        "points": 13,
        "bid": None,
        "doubling": None,
        "contract": None,
        "kinds": (),
        "projects": (),
        "score": None,
        "redeal": None,
        "qayd": None,
    }
