"""A call's place in the play lane, given up when its work moves to another lane.

The server bounds the calls one process runs at once (``BALOOT_MAX_CONCURRENT_RPCS``): that
bound is the play lane's. A call whose job a lane has taken is bounded by that lane (its queue,
its client's quota) from then on, so it gives its place in the play lane back: a flood of heavy
calls, however slow their jobs, never fills the places that a table's actions need. The server
notes each call's way to give its place back in :data:`play_slot`; :func:`leave_play` uses it.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from contextvars import ContextVar
from typing import Final

from baloot_engine.lanes.errors import (
    API_KEY_INVALID,
    API_KEY_REQUIRED,
    LANE_FULL,
    QUOTA_EXCEEDED,
    LaneError,
)
from baloot_engine.lanes.sources import UNKNOWN_SOURCE, Pacer

HELD_REASONS: Final = (LANE_FULL, QUOTA_EXCEEDED, API_KEY_REQUIRED, API_KEY_INVALID)
"""The refusals held before they leave (:func:`hold`)."""
HOLD_SECONDS: Final = 1.0
"""How long a refusal of heavy work is held before it leaves, on average, while its source is
refused seldom (the server's :class:`~baloot_engine.lanes.sources.Pacer` holds a source refused
again and again longer): each is held between half and one and a half times its hold, so that
refusals sent together do not come back together (a wave of them would hold the event loop
while a table's card waits)."""

MAX_HELD: Final = 4096
"""Refusals held at once, at most, per server process; past that they leave at once."""

play_slot: ContextVar[Callable[[], None] | None] = ContextVar("baloot_play_slot", default=None)
"""How the running call gives back its place among the process's concurrent calls (None: it
holds none, or gave it back)."""


def leave_play() -> None:
    """Give the running call's place in the play lane back (once; no-op without one)."""
    release = play_slot.get()
    if release is not None:
        play_slot.set(None)
        release()


class _Held:
    count = 0


ANSWER_MARGIN: Final = 0.25
"""Seconds before its call's deadline a lane's answer is due at the latest: a held refusal
leaves then, and a job's deadline is this much before its call's (or half the call's time,
when that is shorter), so that the caller reads the refusal's reason (``LANE_DEADLINE`` for a
job that ran out of time) rather than a bare DEADLINE_EXCEEDED, even from a loaded server."""


def answer_by(remaining: float) -> float:
    """Seconds from now by which a lane must answer a call with ``remaining`` seconds left."""
    return max(remaining / 2, remaining - ANSWER_MARGIN)


async def hold(
    refusal: LaneError,
    source: str = "",
    remaining: float | None = None,
    pacer: Pacer | None = None,
) -> None:
    """Hold a refusal of heavy work for about a second (:data:`HOLD_SECONDS`; longer for a
    source refused again and again, as the server's ``pacer`` says), out of the play lane, before it
    leaves, and take what was held off the retry delay it announces. A client that honours the
    delay loses about that second; one that sends the same call again at once, in a loop, is
    paced to a few of its calls a second instead of costing the event loop a refusal every
    half millisecond. Nothing else waits: a held refusal is a sleeping task, bounded at
    :data:`MAX_HELD` a process (past that, refusals leave at once). ``remaining`` is the
    call's time left (None: no deadline): the refusal leaves before it ends."""
    if refusal.reason not in HELD_REASONS or _Held.count >= MAX_HELD:
        return
    given = refusal.retry_after
    base = HOLD_SECONDS if pacer is None else pacer.refused(source or UNKNOWN_SOURCE)
    delay = base * random.uniform(0.5, 1.5)
    if remaining is not None:
        delay = max(0.0, min(delay, answer_by(remaining)))
    leave_play()
    _Held.count += 1
    try:
        await asyncio.sleep(delay)
    finally:
        _Held.count -= 1
    if given is not None:
        refusal.retry_after = max(0.001, given - delay)


__all__ = [
    "ANSWER_MARGIN",
    "HELD_REASONS",
    "HOLD_SECONDS",
    "MAX_HELD",
    "answer_by",
    "hold",
    "leave_play",
    "play_slot",
]
