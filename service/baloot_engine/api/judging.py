"""Where a Sawa claim's check and a Qayd call's judgement run: the judge's process.

Both search the hidden hands, and how long they search depends on those hands. Run on the
server's event loop, the search would delay every other call the process is answering, whose
time a claimer could measure (docs/security.md, *Time*). :func:`judge` applies the call
(:func:`~baloot_engine.rules.game.apply`) in a pool of one spawned process per server process
that runs nothing else, so a claim never waits behind a bot's 500 ms either; the answer still
leaves on its whole step (``servicer.JUDGED_ANSWER_STEP``).
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from typing import Final

from baloot_engine.bots.pool import prestart, run_in_pool, spawned_pool
from baloot_engine.rules import Action, Event, State, game

JUDGE_PROCESSES: Final = 1
"""Processes of the judge's pool (a claim's check: 99 ms at most over 599 random positions, a
median of 0.14 ms), shared by the servers of a process."""


def judge_pool() -> ProcessPoolExecutor:
    """The judge's process pool, started on first use (replaced if its process died)."""
    return spawned_pool("judge", JUDGE_PROCESSES)


async def judge(state: State, seat: int, action: Action) -> tuple[State, tuple[Event, ...]]:
    """Apply a judged call in the judge's process: the new state and its events, or the
    :class:`~baloot_engine.rules.RuleError` refusing it."""
    return await run_in_pool(judge_pool, game.apply, state, seat, action)


def prestart_judge() -> None:
    """Start the judge's process now, so the first claim does not wait a second for it."""
    prestart(judge_pool)


__all__ = ["JUDGE_PROCESSES", "judge", "judge_pool", "prestart_judge"]
