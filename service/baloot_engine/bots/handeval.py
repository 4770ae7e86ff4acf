"""Hand evaluation for buying and doubling: how many sure tricks and points a hand promises.

Sun (no trump) lives on aces and tens: an ace is a trick, a ten is one when its ace is held
or once the ace falls, a long suit headed by the ace runs. Hokm lives on the jack and nine of
trump, then the trump ace and ten, the number of trumps and the side aces. The values are
rough counts calibrated by play (see ``bench/bench_bots.py``); a bot compares them with the
thresholds of its :class:`Style`.
"""

from __future__ import annotations

from dataclasses import dataclass

from baloot_engine.rules.cards import ACE, EIGHT, JACK, KING, NINE, QUEEN, SEVEN, TEN


def _has(byte: int, rank: int) -> bool:
    return bool(byte >> rank & 1)


def sun_value(hand: int) -> float:
    """Sure tricks and control a hand promises in Sun."""
    value = 0.0
    for suit in range(4):
        byte = (hand >> (8 * suit)) & 0xFF
        if not byte:
            continue
        length = byte.bit_count()
        ace = _has(byte, ACE)
        ten = _has(byte, TEN)
        king = _has(byte, KING)
        if ace:
            value += 3.0
            if length >= 4:
                value += 1.0
        if ten:
            value += 2.0 if ace else (1.0 if length >= 3 else 0.5)
        if king:
            value += 1.0 if (ace and ten) else (0.5 if ace or ten else 0.2)
        if _has(byte, QUEEN) and ace and ten and king:
            value += 0.5
    return value


def hokm_value(hand: int, trump: int) -> float:
    """Trump control and side tricks a hand promises with ``trump`` as the trump suit."""
    byte = (hand >> (8 * trump)) & 0xFF
    count = byte.bit_count()
    value = 0.0
    if _has(byte, JACK):
        value += 4.0
    if _has(byte, NINE):
        value += 3.0 if count >= 2 else 1.5
    if _has(byte, ACE):
        value += 2.0
    if _has(byte, TEN):
        value += 1.5
    for rank in (KING, QUEEN, EIGHT, SEVEN):
        if _has(byte, rank):
            value += 0.8
    if count <= 1:
        value -= 3.0
    elif count >= 4:
        value += 1.0
    for suit in range(4):
        if suit == trump:
            continue
        side = (hand >> (8 * suit)) & 0xFF
        if _has(side, ACE):
            value += 2.0
            if _has(side, TEN):
                value += 1.0
        elif side == 0 and count >= 3:
            value += 0.5  # a void to trump in
    return value


@dataclass(frozen=True, slots=True)
class Style:
    """The thresholds of a bidding and doubling style (values of :func:`sun_value` and
    :func:`hokm_value` on the hand the buyer would hold, revealed card included)."""

    sun: float = 8.0  # buy Sun
    hokm: float = 6.0  # buy Hokm in the revealed suit (round 1)
    hokm_second: float = 7.0  # buy Hokm in another suit (round 2)
    ashkal: float = 6.5  # Ashkal: own Sun value without the revealed card
    switch_margin: float = 1.0  # confirmed Hokm turns Sun when Sun is this much stronger
    double_hokm: float = 8.5  # a defender doubles a Hokm
    double_sun: float = 9.0  # a defender doubles a Sun
    triple: float = 13.0  # the buyers raise to Triple
    four: float = 11.0  # the defenders raise to Four
    gahwa: float = 17.0  # the buyers raise to Gahwa


BASIC_STYLE = Style()
