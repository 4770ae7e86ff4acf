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
from typing import Final

from baloot_engine.bots.handeval import BASIC_STYLE, hokm_value, sun_value
from baloot_engine.bots.tracking import Tracker, sample_hands
from baloot_engine.rules.actions import DoublingCall
from baloot_engine.rules.observation import Observation

SLACK: Final = 1.5
"""How far below a call's threshold a hand may be valued and still count as plausible (the
8-card hand is not the 5 or 6 cards the call was made on)."""
TRIES: Final = 4


def _full_hands(obs: Observation, world: tuple[int, int, int, int]) -> list[int]:
    full = list(world)
    for record in obs.tricks:
        for position, card in enumerate(record.cards):
            full[(record.leader + position) & 3] |= 1 << card
    for position, card in enumerate(obs.trick):
        full[(obs.leader + position) & 3] |= 1 << card
    return full


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


__all__ = ["plausible", "sample_weighted"]
