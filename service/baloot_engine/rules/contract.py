"""Seats, teams and the contract a bidding phase produces (R2, R10, R13-R14)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

SEATS: Final = (0, 1, 2, 3)
"""Seats 0-3 in counter-clockwise order: the next player is always ``(seat + 1) % 4``."""

NO_TRUMP: Final = -1
"""The trump value of a Sun contract."""


def team_of(seat: int) -> int:
    """Return the team (0 or 1) of a seat; partners sit opposite (0 & 2, 1 & 3)."""
    return seat & 1


def partner_of(seat: int) -> int:
    """Return the seat opposite ``seat``."""
    return (seat + 2) & 3


def next_seat(seat: int) -> int:
    """Return the seat to the right of ``seat`` (the next to act, counter-clockwise)."""
    return (seat + 1) & 3


class ContractType(Enum):
    """Sun (no trump) or Hokm (the buyer's trump suit)."""

    SUN = "sun"
    HOKM = "hokm"


class PlayMode(Enum):
    """Whether a doubled Hokm is open (مفتوح) or closed (مقفل), R14/R22."""

    OPEN = "open"
    CLOSED = "closed"


@dataclass(frozen=True, slots=True)
class Contract:
    """The result of bidding plus the doubling level reached.

    ``multiplier`` is 1 (plain), 2 (Double), 3 (Triple) or 4 (Four); ``gahwa`` marks a
    Gahwa round (which decides the match). ``mode`` is CLOSED only in a doubled Hokm
    that was locked.
    """

    type: ContractType
    trump: int
    buyer: int
    ashkal: bool = False
    bidding_round: int = 1
    multiplier: int = 1
    gahwa: bool = False
    mode: PlayMode = PlayMode.OPEN

    @property
    def buyer_team(self) -> int:
        """The buying team."""
        return self.buyer & 1

    @property
    def taker(self) -> int:
        """The seat that takes the revealed card: the buyer, or under Ashkal its partner."""
        return partner_of(self.buyer) if self.ashkal else self.buyer

    @property
    def is_sun(self) -> bool:
        """True for a Sun (or Ashkal) contract."""
        return self.type is ContractType.SUN

    @property
    def closed(self) -> bool:
        """True when trumps may not be led while holding another suit (R22)."""
        return self.mode is PlayMode.CLOSED
