"""Sampling weighted by what the bidding and the doubling revealed.

:func:`baloot_engine.bots.tracking.sample_hands` deals the unseen cards uniformly among the
worlds consistent with the play. The calls also say something: a seat that bought a Hokm holds
trumps, a Sun buyer aces and tens, a defender who doubled a strong hand. :func:`sample_weighted`
draws a few such worlds and keeps the first whose buyer and doublers hold hands worth their
calls (by the hand values of :mod:`baloot_engine.bots.handeval`, on the 8 cards each held:
the cards in the world plus those he played), so the sample leans towards the likely hands
without ever leaving the worlds the play allows.
"""

from __future__ import annotations

import random
from typing import Final, NamedTuple

from baloot_engine.bots.cardplay import choose_card
from baloot_engine.bots.handeval import BASIC_STYLE, hokm_value, sun_value
from baloot_engine.bots.tracking import Tracker, sample_hands, spent_by_seat
from baloot_engine.rules.actions import DoublingCall
from baloot_engine.rules.cards import ACE, HIGHER, POINTS, STRENGTHS, SUIT_MASKS
from baloot_engine.rules.contract import Contract
from baloot_engine.rules.observation import Observation
from baloot_engine.rules.play import allowed_cards
from baloot_engine.rules.ruleset import RuleSet

SLACK: Final = 1.5
"""How far below a call's threshold a hand may be valued and still count as plausible (the
8-card hand is not the 5 or 6 cards the call was made on)."""
TRIES: Final = 4


def _full_hands(obs: Observation, world: tuple[int, int, int, int]) -> list[int]:
    spent = spent_by_seat(obs)
    return [world[seat] | spent[seat] for seat in range(4)]


def _value(hand: int, trump: int) -> float:
    return sun_value(hand) if trump < 0 else hokm_value(hand, trump)


def plausible(obs: Observation, world: tuple[int, int, int, int]) -> bool:
    """Whether the other seats' calls fit their hands in ``world``."""
    contract = obs.contract
    if contract is None:
        return True
    trump = contract.trump
    full = _full_hands(obs, world)
    style = BASIC_STYLE
    buyer = contract.buyer
    if buyer != obs.seat and not contract.ashkal:
        need = style.sun if trump < 0 else style.hokm
        if _value(full[buyer], trump) < need - SLACK:
            return False
    for record in obs.doubling_calls:
        seat = record.seat
        if seat == obs.seat or record.call.call is not DoublingCall.DOUBLE:
            continue
        need = style.double_sun if trump < 0 else style.double_hokm
        if _value(full[seat], trump) < need - SLACK:
            return False
    return True


def sample_weighted(
    obs: Observation, tracker: Tracker, rng: random.Random
) -> tuple[int, int, int, int]:
    """A world consistent with the play, made to fit the calls when a few tries find one."""
    world = sample_hands(obs, tracker, rng)
    for _ in range(TRIES - 1):
        if plausible(obs, world):
            return world
        world = sample_hands(obs, tracker, rng)
    return world


AGREE: Final = 0.6
"""The chance the play model gives the card the heuristic would play (the rest is shared
evenly by the other legal cards)."""


class PlayHistory(NamedTuple):
    """The cards the other seats played this hand, each with the moment it was played.

    ``events`` holds (seat, card, the cards of the trick before it, its leader, the cards of
    the completed tricks before it, the leader's Akka, the suits the seat's partner led
    before it) in play order; ``spent`` the cards each seat played this hand.
    """

    events: tuple[tuple[int, int, tuple[int, ...], int, int, bool, int], ...]
    spent: tuple[int, int, int, int]


def play_history(obs: Observation) -> PlayHistory:
    """The other seats' plays of this hand, for :func:`play_weight`."""
    contract = obs.contract
    trump = contract.trump if contract is not None else -1
    higher = HIGHER[trump + 1]
    events: list[tuple[int, int, tuple[int, ...], int, int, bool, int]] = []
    played = 0
    led = [0, 0, 0, 0]  # the suits each seat has led so far (BASIC returns its partner's)
    sequences: list[tuple[int, tuple[int, ...]]] = [
        (record.leader, record.cards) for record in obs.tricks
    ]
    sequences.append((obs.leader, obs.trick))
    for leader, cards in sequences:
        # Past tricks do not record an Akka call: the leader is taken to call it when he may.
        lead = cards[0] if cards else -1
        akka = (
            lead >= 0
            and trump >= 0
            and lead >> 3 != trump
            and lead & 7 != ACE
            and higher[lead] & ~played == 0
        )
        for position, card in enumerate(cards):
            seat = (leader + position) & 3
            if seat != obs.seat:
                partner = led[(seat + 2) & 3]
                events.append((seat, card, tuple(cards[:position]), leader, played, akka, partner))
        if cards:
            led[leader] |= 1 << (cards[0] >> 3)
        if len(cards) == 4:
            for card in cards:
                played |= 1 << card
    spent = spent_by_seat(obs)
    return PlayHistory(tuple(events), (spent[0], spent[1], spent[2], spent[3]))


def play_weight(
    history: PlayHistory,
    world: tuple[int, int, int, int],
    contract: Contract,
    rules: RuleSet,
    agree: float = AGREE,
) -> float:
    """How likely the other seats' plays are in ``world``, by a model of their play.

    The model plays the heuristic card (:func:`~baloot_engine.bots.cardplay.choose_card`, or
    one that wins and loses the same tricks) with chance ``agree`` and any other legal card
    with an even share of the rest. A world in which the plays look like what the heuristic
    would have done weighs more: a seat that ducked when it could have won cheaply probably
    had no cheap winner. Only the ratio of two worlds' weights matters.
    """
    trump = contract.trump
    t = trump + 1
    strength = STRENGTHS[t]
    higher = HIGHER[t]
    points = POINTS[t]
    buyer = contract.buyer_team
    open_lead = trump < 0 or not contract.closed
    spent = history.spent
    hands = [world[s] | spent[s] for s in range(4)]
    miss = 1.0 - agree
    weight = 1.0
    for seat, card, prefix, leader, played, akka, partner_suits in history.events:
        hand = hands[seat]
        hands[seat] = hand ^ (1 << card)
        # allowed_cards, answered here in its two commonest cases (see search.play_out).
        if prefix:
            led = prefix[0] >> 3
            options = hand & SUIT_MASKS[led] if led != trump else 0
        else:
            options = hand if open_lead else 0
        if not options:
            options = allowed_cards(hand, prefix, leader, seat, played, akka, contract, rules)
        if not options & (options - 1):
            continue
        gone = played
        for other in prefix:
            gone |= 1 << other
        model = choose_card(options, hand, prefix, gone, trump, seat & 1 == buyer, partner_suits)
        if model != card and (
            model >> 3 != card >> 3
            or points[model] != points[card]
            or (
                higher[card] & ~higher[model] & ~(1 << model)
                if strength[card] < strength[model]
                else higher[model] & ~higher[card] & ~(1 << card)
            )
            & ~(hand | gone)
        ):
            weight *= miss / (options.bit_count() - 1)
        else:
            weight *= agree
    return weight


__all__ = ["AGREE", "PlayHistory", "plausible", "play_history", "play_weight", "sample_weighted"]
