"""A discard signal between EXPERT partners, and its reading.

Baloot partners tell each other something by what they throw away. The convention here is the
plainest one, public like every convention of the table: a seat that cannot follow the suit
led and does not trump throws from a suit in which it does not hold the best card left (the
card that would win a trick of that suit led now). It costs nothing to follow: the card is
chosen so only among cards its search values exactly alike (:func:`follows`). Its partner reads
each such throw by counting the worlds in which the thrower still held the best card left of
the suit it threw from :data:`BROKEN_WEIGHT` times less (:func:`signal_marks`,
:func:`signal_weight`): the convention gives way whenever it would cost, so a broken signal is
less likely, not impossible.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from baloot_engine.bots.tracking import spent_by_seat
from baloot_engine.rules.cards import STRENGTHS, SUIT_MASKS
from baloot_engine.rules.contract import partner_of
from baloot_engine.rules.observation import Observation

BROKEN_WEIGHT: Final = 0.3
"""The weight of a world for each of the partner's throws it would make a broken signal."""


def _best_left(suit: int, gone: int, trump: int) -> int:
    """The card of ``suit`` not in ``gone`` that wins a trick of that suit led now (-1: none)."""
    strength = STRENGTHS[trump + 1]
    best = -1
    m = SUIT_MASKS[suit] & ~gone
    while m:
        low = m & -m
        card = low.bit_length() - 1
        m ^= low
        if best < 0 or strength[card] > strength[best]:
            best = card
    return best


def is_throw(trick: tuple[int, ...], hand: int, card: int, trump: int) -> bool:
    """Whether ``card``, played from ``hand`` (the hand before it) to ``trick``, is a throw: the
    seat cannot follow the suit led and the card is not a trump."""
    if not trick:
        return False
    led = trick[0] >> 3
    return hand & SUIT_MASKS[led] == 0 and card >> 3 != trump


def follows(gone: int, hand: int, card: int, trump: int) -> bool:
    """Whether throwing ``card`` from ``hand`` (cards ``gone`` before it) keeps the convention:
    the hand left holds no best card left of the card's suit."""
    best = _best_left(card >> 3, gone | 1 << card, trump)
    return best < 0 or not hand >> best & 1


def signalled(
    trick: tuple[int, ...],
    hand: int,
    played: int,
    trump: int,
    candidates: Sequence[int],
    totals: Sequence[float],
    best: int,
) -> int:
    """The index of the card to play among ``candidates`` (their search ``totals``, ``best``
    the best's index): the best, unless it is a throw that breaks the convention and another
    throw valued exactly alike keeps it (the first such)."""
    card = candidates[best]
    if not is_throw(trick, hand, card, trump):
        return best
    gone = played
    for seen in trick:
        gone |= 1 << seen
    if follows(gone, hand ^ 1 << card, card, trump):
        return best
    tie = totals[best] - 1e-9 * max(1.0, abs(totals[best]))
    for i, other in enumerate(candidates):
        if (
            totals[i] >= tie
            and is_throw(trick, hand, other, trump)
            and follows(gone, hand ^ 1 << other, other, trump)
        ):
            return i
    return best


def signal_marks(obs: Observation) -> int:
    """The cards whose presence in the partner's hand (held or since played) would make one of
    its throws this round a broken signal: the best card left of each suit it threw from."""
    contract = obs.contract
    if contract is None:
        return 0
    trump = contract.trump
    partner = partner_of(obs.seat)
    marks = 0
    gone = 0
    sequences: list[tuple[int, tuple[int, ...]]] = [(r.leader, r.cards) for r in obs.tricks]
    sequences.append((obs.leader, obs.trick))
    for leader, cards in sequences:
        for position, card in enumerate(cards):
            seat = (leader + position) & 3
            if seat == partner and position and card >> 3 != cards[0] >> 3 and card >> 3 != trump:
                best = _best_left(card >> 3, gone | 1 << card, trump)
                if best >= 0:
                    marks |= 1 << best
            gone |= 1 << card
    return marks


def signal_weight(obs: Observation, marks: int, world: tuple[int, int, int, int]) -> float:
    """How much ``world`` counts under the partner's throws: :data:`BROKEN_WEIGHT` for each of
    ``marks`` (:func:`signal_marks`) the partner held there."""
    if not marks:
        return 1.0
    partner = partner_of(obs.seat)
    held = (world[partner] | spent_by_seat(obs)[partner]) & marks
    return float(BROKEN_WEIGHT ** held.bit_count())


__all__ = [
    "BROKEN_WEIGHT",
    "follows",
    "is_throw",
    "signal_marks",
    "signal_weight",
    "signalled",
]
