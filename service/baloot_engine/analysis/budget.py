"""How much work an analysis does: the named depths and their worlds per decision."""

from __future__ import annotations

from enum import Enum
from typing import Final, NamedTuple

MAX_WORLDS: Final = 200
"""The most worlds a card decision may be valued in."""


class Depth(Enum):
    """A named depth of analysis (the ``QUICK``/``STANDARD``/``DEEP`` of the RPC)."""

    QUICK = "quick"
    STANDARD = "standard"
    DEEP = "deep"


class Budget(NamedTuple):
    """The work of one analysis, per decision.

    ``worlds``: the deals sampled from the seat's observation for a card decision, each solved
    exactly to the end of the round. ``call_deals``: the deals sampled for a bid or a doubling
    call, each played out to the end by the bots' play-out policy for every contract the call
    may lead to (a call decides the contract, so its value is taken from the seat's hand before
    the play, as the bidding simulation of the bots does).
    """

    worlds: int
    call_deals: int


BUDGETS: Final = {
    Depth.QUICK: Budget(worlds=4, call_deals=16),
    Depth.STANDARD: Budget(worlds=10, call_deals=32),
    Depth.DEEP: Budget(worlds=32, call_deals=96),
}
DEFAULT_DEPTH: Final = Depth.STANDARD


def budget_of(depth: Depth | None = None, worlds: int = 0) -> Budget:
    """The budget of ``depth`` (default STANDARD), its worlds replaced by ``worlds`` when set.

    An explicit number of worlds also scales the deals of the calls alike (never fewer than 8).
    """
    budget = BUDGETS[depth or DEFAULT_DEPTH]
    if worlds:
        if not 1 <= worlds <= MAX_WORLDS:
            raise ValueError(f"worlds per decision are 1-{MAX_WORLDS}, got {worlds}")
        budget = Budget(worlds, max(8, worlds * 3))
    return budget


__all__ = ["BUDGETS", "DEFAULT_DEPTH", "MAX_WORLDS", "Budget", "Depth", "budget_of"]
