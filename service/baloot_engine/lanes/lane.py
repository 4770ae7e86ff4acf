"""One lane: its processes, its bounded queue shared fairly between clients, its deadlines.

A job enters only if the lane and its client have room (else :class:`LaneRefusedError` at once,
with how long to wait before trying again), waits in its client's queue, and is started when
a process is free, taking the clients' queues in turn (round robin: a client with a hundred
jobs waiting gets one start in k when k clients wait, not a hundred). A job runs until it ends,
its call's deadline plus the lane's grace passes (its process is then killed and replaced), or
its caller leaves (it is told to stop; its process is free once it has). Every job's CPU time is
charged to its client.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from typing import Any, Final, Protocol

from baloot_engine.lanes.admission import leave_play
from baloot_engine.lanes.clients import Client
from baloot_engine.lanes.errors import (
    DRAINING,
    LANE_CLOSED,
    LANE_DEADLINE,
    LANE_FULL,
    QUOTA_EXCEEDED,
    LaneDeadlineError,
    LaneRefusedError,
    WorkerStoppedError,
)
from baloot_engine.lanes.process import (
    DONE,
    FAILED,
    ITEM,
    LOST,
    RAISED,
    Job,
    LaneProcess,
    run_job,
)
from baloot_engine.lanes.quota import Quotas

_EXPIRED: Final = "expired"
_MIN_RETRY: Final = 0.05
_MAX_RETRY: Final = 60.0


class LaneMetrics(Protocol):
    """What a lane reports (``telemetry/metrics.py`` writes it to Prometheus)."""

    def depth(self, lane: str, waiting: int, running: int) -> None: ...
    def waited(self, lane: str, seconds: float) -> None: ...
    def ran(self, lane: str, seconds: float, cpu_seconds: float, client: str) -> None: ...
    def refused(self, lane: str, reason: str) -> None: ...
    def replaced(self, lane: str) -> None: ...


class NoMetrics:
    """A lane's reports, dropped."""

    def depth(self, lane: str, waiting: int, running: int) -> None:
        """Ignored."""

    def waited(self, lane: str, seconds: float) -> None:
        """Ignored."""

    def ran(self, lane: str, seconds: float, cpu_seconds: float, client: str) -> None:
        """Ignored."""

    def refused(self, lane: str, reason: str) -> None:
        """Ignored."""

    def replaced(self, lane: str) -> None:
        """Ignored."""


@dataclass(frozen=True, slots=True)
class LaneConfig:
    """A lane's size. ``processes`` 0 runs its jobs inline, in the server process (tests and
    benchmarks only: nothing is isolated then)."""

    name: str
    processes: int
    queue: int
    nice: int = 0
    max_seconds: float = 30.0  # no job runs longer, whatever its call's deadline
    grace: float = 1.0  # a job past its deadline by this much is killed with its process
    streams: bool = False  # the per-client bound is the quota's streams, not its queued jobs
    metered: bool = True  # False: no client quota (the judge's: a table's own play needs it)
    per_source: int = 0  # judged calls one anonymous source may have at once (0: any)


class _Ticket:
    """One job of one client, from its admission to its end."""

    __slots__ = (
        "client",
        "counted",
        "deadline",
        "ended",
        "gone",
        "job",
        "messages",
        "process",
        "share",
        "submitted",
        "timer",
    )

    def __init__(self, client: Client, share: str, job: Job, deadline: float | None) -> None:
        self.client = client
        self.share = share
        self.job = job
        self.deadline = deadline
        self.submitted = time.monotonic()
        self.messages: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self.gone = False  # the caller left
        self.ended = False  # the last message was delivered
        self.process: LaneProcess | None = None  # the process running it, once started
        self.counted = True  # in its client's count of jobs in the lane
        self.timer: asyncio.TimerHandle | None = None  # its expiry while it waits


class Lane:
    """A lane of one server process."""

    def __init__(
        self, config: LaneConfig, quotas: Quotas, metrics: LaneMetrics | None = None
    ) -> None:
        self.config = config
        self._quotas = quotas
        self._metrics = metrics if metrics is not None else NoMetrics()
        self._processes: list[LaneProcess] = []
        self._idle: list[LaneProcess] = []
        self._queues: dict[str, deque[_Ticket]] = {}
        self._ring: deque[str] = deque()
        self._per_client: dict[str, int] = {}
        self._waiting = 0
        self._running = 0
        self._mean_run = 0.05
        self._closed = False
        self._watchers: set[asyncio.Task[None]] = set()
        self._live: set[_Ticket] = set()  # every job admitted and not yet ended

    @property
    def name(self) -> str:
        """The lane's name."""
        return self.config.name

    @property
    def waiting(self) -> int:
        """Jobs waiting for a process."""
        return self._waiting

    @property
    def running(self) -> int:
        """Jobs running."""
        return self._running

    def pids(self) -> list[int]:
        """The ids of the lane's live processes."""
        return [p.pid for p in self._processes if p.alive and p.pid is not None]

    # -- admission --------------------------------------------------------------------------

    def check(self, client: Client) -> None:
        """Refuse (:class:`LaneRefusedError`) a job of ``client`` the lane would not take now."""
        config = self.config
        if self._closed:
            raise self._refusal(LANE_CLOSED, "the server is stopping", 1.0)
        if config.metered:
            self._check_quota(client)
        if self._waiting >= config.queue and not self._free():
            raise self._refusal(
                LANE_FULL,
                f"the {config.name} lane has {self._waiting} jobs waiting, as many as it holds",
                self._retry_after(),
            )

    def _check_quota(self, client: Client) -> None:
        config = self.config
        quota = self._quotas.quota_of(client)
        bound, what = (
            (quota.streams, "streams") if config.streams else (quota.queued_jobs, "queued_jobs")
        )
        if self._per_client.get(client.owner, 0) >= bound:
            raise self._refusal(
                QUOTA_EXCEEDED,
                f"client {client} has {bound} jobs in the {config.name} lane, its quota "
                f"({what}); send more when one ends",
                self._retry_after(),
                quota=what,
                client=client.owner,
            )
        wait = self._quotas.cpu_wait(client)
        if wait > 0:
            raise self._refusal(
                QUOTA_EXCEEDED,
                f"client {client} has spent its CPU-seconds of the last minute "
                f"({quota.cpu_seconds_per_minute:g} a minute)",
                min(wait, _MAX_RETRY),
                quota="cpu_seconds_per_minute",
                client=client.owner,
            )

    def _refusal(
        self, reason: str, message: str, retry_after: float, **facts: str
    ) -> LaneRefusedError:
        self._metrics.refused(self.config.name, reason)
        metadata = {"lane": self.config.name, **facts}
        return LaneRefusedError(reason, message, retry_after=retry_after, metadata=metadata)

    def _retry_after(self) -> float:
        per_process = (self._waiting + 1) / max(1, self.config.processes)
        return min(_MAX_RETRY, max(_MIN_RETRY, self._mean_run * per_process))

    def _free(self) -> bool:
        return self._running < max(1, self.config.processes) and not self._waiting

    # -- running ------------------------------------------------------------------------------

    async def call(
        self, client: Client, job: Job, deadline: float | None, share: str | None = None
    ) -> Any:
        """Run ``job`` for ``client`` and return its result (or raise what it raised, or the
        lane's :class:`LaneError`). ``deadline`` is a ``time.monotonic()`` instant or None;
        ``share`` the key its fair share is counted by (the client's name by default)."""
        try:
            async with contextlib.aclosing(self._run(client, job, deadline, share)) as items:
                async for _ in items:
                    pass
        except _Result as result:
            return result.value
        raise AssertionError("a job ends with its result")  # pragma: no cover

    async def stream(
        self, client: Client, job: Job, deadline: float | None, share: str | None = None
    ) -> AsyncIterator[Any]:
        """Run ``job`` for ``client`` and yield each item it emits; it ends with the job."""
        try:
            async with contextlib.aclosing(self._run(client, job, deadline, share)) as items:
                async for item in items:
                    yield item
        except _Result:
            return

    async def _run(
        self, client: Client, job: Job, deadline: float | None, share: str | None
    ) -> AsyncGenerator[Any, None]:
        self.check(client)
        leave_play()
        if self.config.processes == 0:
            ended: list[tuple[str, Any]] = []
            run_job(job, lambda: False, ended.append)
            for _, item in ended[:-1]:
                yield item
            kind, (payload, cpu) = ended[-1]
            if self.config.metered:
                self._quotas.charge(client, cpu)
            self._metrics.ran(self.config.name, cpu, cpu, client.name)
            _raise_end(self.config.name, kind, payload)
        ticket = _Ticket(client, share or client.owner, job, deadline)
        self._enqueue(ticket)
        self._live.add(ticket)
        try:
            while True:
                kind, payload = await ticket.messages.get()
                if kind == ITEM:
                    yield payload
                    continue
                ticket.ended = True
                _raise_end(self.config.name, kind, payload)
        finally:
            self._live.discard(ticket)
            if not ticket.ended:
                self._leave(ticket)

    def _enqueue(self, ticket: _Ticket) -> None:
        name = ticket.client.owner
        self._per_client[name] = self._per_client.get(name, 0) + 1
        queue = self._queues.get(ticket.share)
        if queue is None:
            queue = self._queues[ticket.share] = deque()
            self._ring.append(ticket.share)
        queue.append(ticket)
        self._waiting += 1
        self._dispatch()
        if ticket.deadline is not None and ticket.process is None and not ticket.gone:
            # A job still waiting at its deadline is taken out of the queue then, and its
            # caller told why (LANE_DEADLINE), not left to time out with no reason.
            delay = max(0.0, ticket.deadline - time.monotonic())
            ticket.timer = asyncio.get_running_loop().call_later(delay, self._expire, ticket)

    def _expire(self, ticket: _Ticket) -> None:
        ticket.timer = None
        if ticket.process is not None or ticket.gone or ticket.ended:
            return
        queue = self._queues.get(ticket.share)
        if queue is None or ticket not in queue:
            return
        queue.remove(ticket)
        if not queue:
            del self._queues[ticket.share]
            self._ring.remove(ticket.share)
        self._waiting -= 1
        ticket.gone = True
        self._done_with(ticket)
        ticket.messages.put_nowait((_EXPIRED, "its deadline passed while it waited"))
        self._metrics.depth(self.config.name, self._waiting, self._running)

    def _leave(self, ticket: _Ticket) -> None:
        """The caller left (cancelled, deadline): a waiting job is dropped, a running one told
        to stop."""
        ticket.gone = True
        if ticket.timer is not None:
            ticket.timer.cancel()
            ticket.timer = None
        if ticket.process is not None:
            ticket.process.cancel()
            # No longer the client's: its process stops it at its next unit of work, and its
            # CPU time is still charged when it has.
            self._done_with(ticket)

    def _dispatch(self) -> None:
        while self._ring and self._running < self.config.processes and not self._closed:
            ticket = self._next()
            if ticket is None:
                break
            process = self._process()
            self._start(ticket, process)
        self._metrics.depth(self.config.name, self._waiting, self._running)

    def _next(self) -> _Ticket | None:
        now = time.monotonic()
        while self._ring:
            share = self._ring.popleft()
            queue = self._queues[share]
            ticket = queue.popleft()
            if queue:
                self._ring.append(share)
            else:
                del self._queues[share]
            self._waiting -= 1
            if ticket.gone:
                self._done_with(ticket)
                continue
            if ticket.deadline is not None and now >= ticket.deadline:
                self._done_with(ticket)
                ticket.messages.put_nowait((_EXPIRED, "its deadline passed while it waited"))
                continue
            return ticket
        return None

    def _done_with(self, ticket: _Ticket) -> None:
        if not ticket.counted:
            return
        ticket.counted = False
        name = ticket.client.owner
        left = self._per_client.get(name, 1) - 1
        if left:
            self._per_client[name] = left
        else:
            self._per_client.pop(name, None)

    def _process(self) -> LaneProcess:
        while self._idle:
            process = self._idle.pop()
            if process.alive:
                return process
            self._retire(process)
            self._metrics.replaced(self.config.name)
        process = LaneProcess(self.config.name, self.config.nice, asyncio.get_running_loop())
        self._processes.append(process)
        return process

    def _retire(self, process: LaneProcess) -> None:
        with contextlib.suppress(ValueError):
            self._processes.remove(process)
        process.stop()
        # Its end is reaped in a thread: joining it here would block the event loop.
        threading.Thread(target=process.join, args=(2.0,), daemon=True).start()

    def _start(self, ticket: _Ticket, process: LaneProcess) -> None:
        if ticket.timer is not None:
            ticket.timer.cancel()
            ticket.timer = None
        self._running += 1
        started = time.monotonic()
        self._metrics.waited(self.config.name, started - ticket.submitted)
        messages = process.start(ticket.job)
        ticket.process = process
        watcher = asyncio.get_running_loop().create_task(
            self._watch(ticket, process, messages, started)
        )
        self._watchers.add(watcher)
        watcher.add_done_callback(self._watchers.discard)

    async def _watch(
        self,
        ticket: _Ticket,
        process: LaneProcess,
        messages: asyncio.Queue[tuple[str, Any]],
        started: float,
    ) -> None:
        config = self.config
        hard = started + config.max_seconds
        if ticket.deadline is not None:
            hard = min(hard, ticket.deadline)
        hard += config.grace
        cpu = 0.0
        try:
            while True:
                try:
                    kind, payload = await asyncio.wait_for(
                        messages.get(), max(0.0, hard - time.monotonic())
                    )
                except TimeoutError:
                    process.kill()
                    cpu = time.monotonic() - started  # at most its run time, charged whole
                    ticket.messages.put_nowait((_EXPIRED, "it ran past its deadline: stopped"))
                    break
                if kind == ITEM:
                    if not ticket.gone:
                        ticket.messages.put_nowait((kind, payload))
                    continue
                if kind in (DONE, RAISED, FAILED):
                    payload, cpu = payload
                ticket.messages.put_nowait((kind, payload))
                break
        finally:
            process.finished()
            ran = time.monotonic() - started
            self._mean_run = 0.8 * self._mean_run + 0.2 * ran
            if config.metered:
                self._quotas.charge(ticket.client, cpu)
            self._metrics.ran(config.name, ran, cpu, ticket.client.name)
            self._running -= 1
            self._done_with(ticket)
            if process.alive and not self._closed:
                self._idle.append(process)
            elif not self._closed:
                self._retire(process)
                self._metrics.replaced(config.name)
            self._dispatch()

    # -- life -----------------------------------------------------------------------------

    def prestart(self) -> None:
        """Start the lane's processes now (each imports the engine in about a second), so the
        first job does not wait for them."""
        loop = asyncio.get_running_loop()
        while len(self._processes) < self.config.processes:
            process = LaneProcess(self.config.name, self.config.nice, loop)
            self._processes.append(process)
            self._idle.append(process)

    def drain(self) -> None:
        """The server stops and its grace period is ending: every job not yet ended is
        stopped, and its caller told to send the same request again elsewhere (DRAINING)."""
        self._closed = True
        for ticket in list(self._live):
            ticket.messages.put_nowait((DRAINING, "the server is stopping before it ended"))
            if ticket.process is not None:
                ticket.process.cancel()
        if self._live:
            self._metrics.refused(self.config.name, DRAINING)

    def close(self) -> list[LaneProcess]:
        """Take no more jobs; fail the waiting ones; tell every process to end (the caller
        joins them: :meth:`Lanes.close`)."""
        self._closed = True
        for queue in self._queues.values():
            for ticket in queue:
                ticket.messages.put_nowait((LANE_CLOSED, "the server is stopping"))
        self._queues.clear()
        self._ring.clear()
        self._waiting = 0
        processes, self._processes, self._idle = self._processes, [], []
        for process in processes:
            process.stop()
        return processes


class _Result(Exception):  # noqa: N818 - a job's result on its way out of the generator
    def __init__(self, value: Any) -> None:
        super().__init__()
        self.value = value


def _raise_end(lane: str, kind: str, payload: Any) -> None:
    if kind == DONE:
        raise _Result(payload)
    if kind == RAISED:
        raise payload
    if kind == FAILED:
        raise RuntimeError(f"a job of the {lane} lane failed: {payload}")
    if kind == LOST:
        raise WorkerStoppedError(
            "WORKER_STOPPED", f"the {lane} lane's process stopped before the job ended"
        )
    if kind == _EXPIRED:
        raise LaneDeadlineError(LANE_DEADLINE, f"the {lane} job was not finished: {payload}")
    if kind in (LANE_CLOSED, DRAINING):
        raise LaneRefusedError(kind, payload, retry_after=0.1, metadata={"lane": lane})
    raise AssertionError(f"unknown message {kind!r}")  # pragma: no cover


__all__ = ["Lane", "LaneConfig", "LaneMetrics", "NoMetrics"]
