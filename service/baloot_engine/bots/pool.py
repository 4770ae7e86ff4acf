"""The process pools of a server: the one the searching bots (STRONG, EXPERT) decide in, and
any other a layer above names (:func:`spawned_pool`; the judge's of ``api/judging.py``).

A STRONG or EXPERT decision is a long computation: in the pool's processes it never holds a
server's event loop (nor its process's GIL) while other calls wait. :class:`BotPool` is the
small interface a server uses: :meth:`BotPool.decide` awaits one decision, at most
``BOT_QUEUE`` of one pool's at once; the other levels decide inline in well under a
millisecond. A pool one of whose processes died is replaced on its next use
(:func:`run_in_pool`).
"""

from __future__ import annotations

import asyncio
import functools
import multiprocessing
import os
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Final, TypeVar

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

_pools: dict[str, ProcessPoolExecutor] = {}
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


def spawned_pool(name: str, processes: int) -> ProcessPoolExecutor:
    """The process pool ``name``, started on first use (spawned, not forked: a fork of a
    process running grpc is unsafe). Its processes end with this one."""
    with _pool_lock:
        pool = _pools.get(name)
        if pool is None:
            pool = _pools[name] = ProcessPoolExecutor(
                processes,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=die_with_parent,
                initargs=(os.getpid(),),
            )
        return pool


def bot_pool() -> ProcessPoolExecutor:
    """The process pool of the STRONG and EXPERT bots (and the exact solver's calls)."""
    return spawned_pool("bots", BOT_PROCESSES)


def _discard(pool: ProcessPoolExecutor) -> None:
    """Forget ``pool`` (broken: one of its processes died), so that the next use starts a new
    one in its place."""
    with _pool_lock:
        for name, found in list(_pools.items()):
            if found is pool:
                del _pools[name]
    pool.shutdown(wait=False, cancel_futures=True)


async def run_in_pool(
    pool_of: Callable[[], ProcessPoolExecutor], function: Callable[..., _Result], *args: object
) -> _Result:
    """``function(*args)`` in the pool ``pool_of`` gives. A pool one of whose processes died
    (killed, out of memory) refuses every later job; it is replaced and the job tried once
    more in the new one (the jobs are pure computations, so a second try is safe)."""
    loop = asyncio.get_running_loop()
    pool = pool_of()
    try:
        return await loop.run_in_executor(pool, function, *args)
    except BrokenProcessPool:
        if pool in _ended:  # shutdown() ended it: no new process for a server that stops
            raise
        _discard(pool)
        return await loop.run_in_executor(pool_of(), function, *args)


def _ready() -> bool:
    """A no-op job: it runs once the pool's process has started and imported the engine."""
    return True


_STOP_SECONDS: Final = 2.0
_ended: weakref.WeakSet[ProcessPoolExecutor] = weakref.WeakSet()
"""The pools :func:`shutdown` ended: a job their end broke is not tried again elsewhere."""


def shutdown() -> None:
    """Stop the pools' processes and free what the pools hold (a server's last step, once its
    grace period is over). The calls the jobs were for have ended, so no job is waited for: a
    job running or already handed to a process (several EXPERT decisions of 5 s each, say)
    would hold the process past the orchestrator's termination period. The processes are
    terminated, and killed if they have not ended within ``_STOP_SECONDS``."""
    with _pool_lock:
        pools = list(_pools.values())
        _pools.clear()
        _ended.update(pools)
    processes: list[Any] = []
    for pool in pools:
        # ProcessPoolExecutor has no public way to end a running job; it keeps its processes here.
        running = list((getattr(pool, "_processes", None) or {}).values())
        for process in running:
            process.terminate()
        processes += running
    deadline = time.monotonic() + _STOP_SECONDS
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            process.kill()
            process.join(1.0)
    for pool in pools:
        # Its processes are gone: its own thread fails what was left and ends at once, and
        # waiting for it frees its queues (a worker process that ends without this leaves
        # multiprocessing's resource tracker warning of leaked semaphores).
        pool.shutdown(wait=True, cancel_futures=True)


def prestart(pool_of: Callable[[], ProcessPoolExecutor] | None = None) -> None:
    """Start a pool's processes now (the bots' by default; they import the engine in about a
    second), so the first call that needs one does not wait for them."""
    (pool_of or bot_pool)().submit(_ready)


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
            action: Action = await run_in_pool(
                bot_pool, self.decide_inline, state, seat, level, seed
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
            return await run_in_pool(bot_pool, function, job)


__all__ = [
    "BOT_PROCESSES",
    "BOT_QUEUE",
    "POOLED",
    "BotPool",
    "bot_pool",
    "die_with_parent",
    "prestart",
    "run_in_pool",
    "shutdown",
    "spawned_pool",
]
