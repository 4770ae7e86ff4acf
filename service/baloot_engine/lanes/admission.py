"""A call's place in the play lane, given up when its work moves to another lane.

The server bounds the calls one process runs at once (``BALOOT_MAX_CONCURRENT_RPCS``): that
bound is the play lane's. A call whose job a lane has taken is bounded by that lane (its queue,
its client's quota) from then on, so it gives its place in the play lane back: a flood of heavy
calls, however slow their jobs, never fills the places that a table's actions need. The server
notes each call's way to give its place back in :data:`play_slot`; :func:`leave_play` uses it.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

play_slot: ContextVar[Callable[[], None] | None] = ContextVar("baloot_play_slot", default=None)
"""How the running call gives back its place among the process's concurrent calls (None: it
holds none, or gave it back)."""


def leave_play() -> None:
    """Give the running call's place in the play lane back (once; no-op without one)."""
    release = play_slot.get()
    if release is not None:
        play_slot.set(None)
        release()


__all__ = ["leave_play", "play_slot"]
