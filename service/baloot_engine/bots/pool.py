"""The process pool the searching bots (STRONG, EXPERT) decide in.

A STRONG or EXPERT decision is a long computation: in the pool's processes it never holds a
server's event loop (nor its process's GIL) while other calls wait. :class:`BotPool` is the
small interface a server uses: :meth:`BotPool.decide` awaits one decision, at most
``BOT_QUEUE`` of one pool's at once; the other levels decide inline in well under a
millisecond.
"""

from __future__ import annotations

import asyncio
import functools
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Final, TypeVar

from baloot_engine.bots import suggest
from baloot_engine.bots.expert import DEFAULT_EXPERT_BUDGET, with_seconds
from baloot_engine.bots.policies import Level
from baloot_engine.rules.actions import Action

BOT_PROCESSES: Final = 1
"""Processes of the pool the STRONG and EXPERT bots decide in, shared by the servers of a
process (one: each server process, or worker, adds one process, not one per core)."""
BOT_QUEUE: Final = 8
"""STRONG and EXPERT decisions one :class:`BotPool` lets into the pool at once; the next wait."""
POOLED: Final = (Level.STRONG, Level.EXPERT)
"""The levels whose decisions run in the pool (the searching ones)."""

_Job = TypeVar("_Job")
_Result = TypeVar("_Result")

_pool: ProcessPoolExecutor | None = None
_pool_lock = threading.Lock()
_WATCH_SECONDS: Final = 1.0


def die_with_parent(parent: int) -> None:
    """Make this process (a pool's or a worker's, spawned by ``parent``) end when its parent
    does, however that ends (SIGKILL, the out-of-memory killer): an orphan would keep running,
    and would hold the server's standard error open. A thread checks every second whether
    the process was handed to another parent."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_WATCH_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


def bot_pool() -> ProcessPoolExecutor:
    """The process pool of the STRONG and EXPERT bots, started on first use (spawned, not
    forked: a fork of a process running grpc is unsafe). Its processes end with this one."""
    global _pool  # noqa: PLW0603 - one pool per process, shared by its servers
    with _pool_lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(
                BOT_PROCESSES,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=die_with_parent,
                initargs=(os.getpid(),),
            )
        return _pool


def _ready() -> bool:
    """A no-op job: it runs once the pool's process has started and imported the bots."""
    return True


def shutdown() -> None:
    """Stop the pool's process and free what the pool holds (a server's last step)."""
    global _pool  # noqa: PLW0603 - one pool per process, shared by its servers
    with _pool_lock:
        if _pool is not None:
            _pool.shutdown(wait=True, cancel_futures=True)
            _pool = None


def prestart() -> None:
    """Start the pool's process now (it imports the bots and the solver in about a second),
    so the first searching decision of a server does not wait for it."""
    bot_pool().submit(_ready)


class BotPool:
    """Where a server's bots decide: inline, or (STRONG, EXPERT) in the process pool."""

    def __init__(self, *, in_processes: bool = True, expert_budget_ms: int = 500) -> None:
        self.in_processes = in_processes
        self._slots: asyncio.Semaphore | None = None
        # An unseeded EXPERT decision searches until this budget (BALOOT_BOT_EXPERT_BUDGET_MS).
        expert = with_seconds(DEFAULT_EXPERT_BUDGET, expert_budget_ms / 1000)
        self.decide_inline = functools.partial(suggest, expert=expert)

    def pooled(self, level: Level) -> bool:
        """Whether a decision of ``level`` is computed in the process pool."""
        return self.in_processes and level in POOLED

    async def decide(self, state: object, seat: int, level: Level, seed: int | None) -> Action:
        """A bot's decision computed in the process pool, at most ``BOT_QUEUE`` at once.

        ``state`` goes unread to :func:`~baloot_engine.bots.suggest`, the one entry point that
        reads a match state (and decides from the seat's observation of it)."""
        if self._slots is None:
            self._slots = asyncio.Semaphore(BOT_QUEUE)
        async with self._slots:
            loop = asyncio.get_running_loop()
            action: Action = await loop.run_in_executor(
                bot_pool(), self.decide_inline, state, seat, level, seed
            )
        return action

    async def run(self, function: Callable[[_Job], _Result], job: _Job) -> _Result:
        """Another long computation (the exact solver's), in the pool like a bot's decision and
        sharing its bound; inline when the pool is off."""
        if not self.in_processes:
            return function(job)
        if self._slots is None:
            self._slots = asyncio.Semaphore(BOT_QUEUE)
        async with self._slots:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(bot_pool(), function, job)


__all__ = [
    "BOT_PROCESSES",
    "BOT_QUEUE",
    "POOLED",
    "BotPool",
    "bot_pool",
    "die_with_parent",
    "prestart",
    "shutdown",
]
