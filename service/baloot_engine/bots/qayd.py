"""Calling Qayd (R45, table play) on what a seat can prove from the public play alone.

The observation never holds the violations the engine recorded: like a player at the table, a
bot sees only the cards as they were played and its own hand. A call is made only when that
proves the rule was broken, so a bot's call is never wrong:

* a revoke: the accused did not follow the suit led, and later played a card of it (he held
  it then, R18);
* a trump lead in a closed game: the accused led trump, and later played another suit (R22);
* a false Akka in the trick in progress: a higher card of the suit led was still out, since
  the bot holds it or it was played to the trick (R20);
* once the eight tricks are over, every card of the accused is known: each card he played is
  checked against exactly the hand he held then (when the Akka calls of past tricks do not
  matter, that is without ``akka_requires_declaration``);
* otherwise, any card that the least the accused can have held then makes illegal: the card,
  the cards he played after it, and the cards the seat knows he held from the deal and had not
  yet played (the buy card with its taker, the cards of projects shown). A card illegal from a
  hand is illegal from any hand holding it too (more cards only add duties), so the breach is
  certain; it is checked with and without an Akka on the trick's lead (a completed trick does
  not keep the call), and the call names no rule, since which duty the card broke can depend
  on cards still hidden (a call that names none is right for any breach, R45).

A false Sawa is not called: the claimer's unplayed cards stay hidden.
"""

from __future__ import annotations

from baloot_engine.rules.actions import CallQayd, QaydCategory
from baloot_engine.rules.cards import HIGHER, SUIT_MASKS
from baloot_engine.rules.observation import Observation
from baloot_engine.rules.play import allowed_cards, broken_rule
from baloot_engine.rules.state import Phase

_HIGHER_SUN = HIGHER[0]


def proven_call(obs: Observation) -> CallQayd | None:
    """The first Qayd call the seat of ``obs`` can prove, or None (see the module's text)."""
    contract = obs.contract
    if (
        not obs.rules.illegal_moves_allowed
        or obs.seat < 0
        or contract is None
        or obs.phase not in (Phase.PLAYING, Phase.ROUND_REVIEW)
    ):
        return None
    trump = contract.trump
    # Every card of the round: (trick number, leader, cards before it, card, seat, played).
    plays: list[tuple[int, int, tuple[int, ...], int, int, int]] = []
    played = 0
    tricks: list[tuple[int, tuple[int, ...]]] = [(r.leader, r.cards) for r in obs.tricks]
    if obs.trick:
        tricks.append((obs.leader, obs.trick))
    for number, (leader, cards) in enumerate(tricks, start=1):
        for position, card in enumerate(cards):
            plays.append((number, leader, cards[:position], card, (leader + position) & 3, played))
        if len(cards) == 4:
            for card in cards:
                played |= 1 << card
    complete = len(obs.tricks) == 8 and not obs.rules.akka_requires_declaration
    dealt = _known_from_the_deal(obs)
    for index, (number, leader, before, card, seat, played_then) in enumerate(plays):
        if seat & 1 == obs.team:
            continue
        later = 0
        for other in plays[index + 1 :]:
            if other[4] == seat:
                later |= 1 << other[3]
        earlier = 0
        for other in plays[:index]:
            if other[4] == seat:
                earlier |= 1 << other[3]
        if before:
            led = SUIT_MASKS[before[0] >> 3]
            if card >> 3 != before[0] >> 3 and later & led:
                return CallQayd(seat, number, card, QaydCategory.REVOKE)
        elif contract.closed and card >> 3 == trump and later & ~SUIT_MASKS[trump]:
            return CallQayd(seat, number, card, QaydCategory.CLOSED_TRUMP_LEAD)
        hand = later | 1 << card
        rules = obs.rules
        if complete:
            legal = allowed_cards(hand, before, leader, seat, played_then, False, contract, rules)
            if not legal >> card & 1:
                rule, _ = broken_rule(hand, before, trump, card)
                return CallQayd(seat, number, card, rule)
        least = hand | dealt[seat] & ~earlier
        if not any(
            allowed_cards(least, before, leader, seat, played_then, akka, contract, rules) >> card
            & 1
            for akka in (False, True)
        ):
            return CallQayd(seat, number, card)
    return _false_akka(obs)


def _known_from_the_deal(obs: Observation) -> tuple[int, int, int, int]:
    """The cards each seat is known to have been dealt: the buy card the taker took, the
    cards of the projects shown."""
    known = [0, 0, 0, 0]
    if obs.taker >= 0 and obs.buy_card >= 0:
        known[obs.taker] |= 1 << obs.buy_card
    for declarer, project in obs.shown:
        known[declarer] |= project.cards
    return known[0], known[1], known[2], known[3]


def _false_akka(obs: Observation) -> CallQayd | None:
    """An Akka on the lead of the trick in progress with a higher card of its suit still out."""
    if not obs.akka or not obs.trick or obs.leader & 1 == obs.team:
        return None
    lead = obs.trick[0]
    seen = obs.hand
    for card in obs.trick[1:]:
        seen |= 1 << card
    if _HIGHER_SUN[lead] & ~obs.played & seen:
        return CallQayd(obs.leader, len(obs.tricks) + 1, lead, QaydCategory.FALSE_AKKA)
    return None
