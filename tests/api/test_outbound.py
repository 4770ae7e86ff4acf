"""Core values to messages: card lists, tricks, scores, actions and card events as the
responses carry them, each checked against a construction that states the contract directly."""

from __future__ import annotations

import random

import pytest

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import types_pb2
from baloot_engine.api import outbound
from baloot_engine.rules.actions import (
    Bid,
    BidKind,
    ClaimSawa,
    Deal,
    Event,
    EventKind,
    Play,
    RedealReason,
)
from baloot_engine.rules.cards import PLAIN_POINTS, TRUMP_POINTS
from baloot_engine.rules.state import State


def test_cards_of_lists_a_mask_in_ascending_order() -> None:
    rng = random.Random(2)
    for mask in [0, 0xFFFFFFFF, 1, 1 << 31, *(rng.getrandbits(32) for _ in range(200))]:
        assert outbound.cards_of(mask) == tuple(c for c in range(32) if mask >> c & 1)


def test_suits_are_shifted_to_the_proto_numbering() -> None:
    assert [outbound.suit_out(s) for s in range(-1, 4)] == [
        types_pb2.SUIT_UNSPECIFIED,
        types_pb2.SUIT_SPADES,
        types_pb2.SUIT_HEARTS,
        types_pb2.SUIT_DIAMONDS,
        types_pb2.SUIT_CLUBS,
    ]


def _abnat(card: int, trump: int) -> int:
    return TRUMP_POINTS[card & 7] if card >> 3 == trump else PLAIN_POINTS[card & 7]


@pytest.mark.parametrize("trump", range(-1, 4))
def test_a_trick_names_each_seat_in_turn_and_counts_its_abnat(trump: int) -> None:
    rng = random.Random(trump)
    for _ in range(50):
        leader = rng.randrange(4)
        cards = rng.sample(range(32), rng.randint(1, 4))
        winner = rng.randrange(4) if len(cards) == 4 else None
        akka = rng.random() < 0.3
        trick = outbound.trick_out(7, leader, cards, trump, winner, akka=akka)
        assert trick.number == 7
        assert trick.leader == leader
        assert [(p.seat, p.card) for p in trick.cards] == [
            ((leader + i) % 4, c) for i, c in enumerate(cards)
        ]
        assert [p.akka for p in trick.cards] == [akka and i == 0 for i in range(len(cards))]
        assert trick.abnat == sum(_abnat(c, trump) for c in cards)
        assert trick.HasField("winner") == (winner is not None)
        if winner is not None:
            assert trick.winner == winner


def test_the_match_score_names_the_winner_and_why() -> None:
    running = outbound.match_score_message((40, 72), 152, 3, -1, False)
    assert (list(running.points), running.target, running.rounds_played) == ([40, 72], 152, 3)
    assert not running.HasField("winner_team")
    assert running.end_reason == types_pb2.MATCH_END_REASON_UNSPECIFIED
    won = outbound.match_score_message((160, 72), 152, 9, 0, False)
    assert (won.winner_team, won.end_reason) == (0, types_pb2.MATCH_END_REASON_TARGET_REACHED)
    gahwa = outbound.match_score_message((0, 0), 152, 1, 1, True)
    assert (gahwa.winner_team, gahwa.end_reason) == (1, types_pb2.MATCH_END_REASON_GAHWA)


@pytest.mark.parametrize(
    "action",
    [
        *(Play(c, akka) for c in range(0, 32, 5) for akka in (False, True)),
        ClaimSawa(),
        Bid(BidKind.SUN, -1),
        Bid(BidKind.HOKM, 2),
    ],
    ids=repr,
)
def test_an_action_built_in_place_equals_its_message(action: object) -> None:
    response = pb.ListLegalActionsResponse()
    outbound.add_action(response.actions, action)  # type: ignore[arg-type]
    assert list(response.actions) == [outbound.action_out(action)]  # type: ignore[arg-type]


def test_a_deal_is_the_deal_action_with_its_deck() -> None:
    response = pb.ListLegalActionsResponse()
    outbound.add_action(response.actions, Deal(()))
    outbound.add_action(response.actions, Deal(tuple(range(32))))
    assert response.actions[0].WhichOneof("action") == "deal"
    assert not response.actions[0].deal.deck_order
    assert list(response.actions[1].deal.deck_order) == list(range(32))
    assert list(response.actions) == [
        outbound.action_out(Deal(())),
        outbound.action_out(Deal(tuple(range(32)))),
    ]


@pytest.mark.parametrize("kind", [EventKind.CARD_PLAYED, EventKind.AKKA_CALLED])
def test_every_encoded_card_event_equals_its_message(kind: EventKind) -> None:
    for seat in range(4):
        for card in range(32):
            event = Event(kind, seat=seat, card=card)
            expected = types_pb2.Event(
                kind=outbound.EVENT_KIND_NUMBERS[kind],
                seat=seat,
                play=types_pb2.PlayedCard(seat=seat, card=card, akka=kind is EventKind.AKKA_CALLED),
            )
            assert outbound.event_out(event, State()) == expected


@pytest.mark.parametrize(
    ("reason", "number"),
    [
        (RedealReason.ALL_PASSED, types_pb2.REDEAL_REASON_ALL_PASSED),
        (RedealReason.KAWESH, types_pb2.REDEAL_REASON_KAWESH),
    ],
)
def test_a_redeal_names_the_next_dealer_and_its_reason(reason: RedealReason, number: int) -> None:
    message = outbound.event_out(Event(EventKind.REDEAL, seat=2, redeal=reason), State())
    assert message.redeal.next_dealer == 2
    assert message.redeal.reason == number
    assert not message.HasField("seat")


def test_the_eighth_trick_carries_the_ten_for_the_last_trick() -> None:
    # R33. Sun, cards AS 10S KS QS: 11 + 10 + 4 + 3 = 28; as the 8th trick 28 + 10 = 38.
    cards = (7, 3, 6, 5)
    assert outbound.trick_out(7, 1, cards, -1, 1).abnat == 28
    assert outbound.trick_out(8, 1, cards, -1, 1).abnat == 38
    # Hokm spades: AS 11 + 10S 10 + KS 4 + QS 3 = 28 in trump order too; JS 9S 8S 7S: 20 + 14.
    assert outbound.trick_out(8, 2, (4, 2, 1, 0), 0, 2).abnat == 34 + 10
    # A trick still being played is not complete: no bonus, whatever its number.
    assert outbound.trick_out(8, 1, (7, 3), -1).abnat == 21
