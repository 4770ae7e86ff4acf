"""The processes of a lane: spawned once, fed one job at a time over a pipe.

A job is any picklable object with ``run(cancelled, emit)``: it may ``emit`` items on the way
(a stream's messages) and returns its result. The process measures the CPU time each job takes
and sends it back with the result, so the lane can charge the client who asked. A job is told to
stop by an event it reads through ``cancelled()`` (the analyses check it between units of work);
a job that does not stop is ended with its process by the lane's deadline handling.

Processes are spawned, not forked (a fork of a process running grpc is unsafe), end with the
server process however it ends (a thread watches the parent), and run at the lane's ``nice``
level, so the scheduler gives the play path and the bots the CPU first.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import pickle
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event as EventType
from typing import Any, Final, Protocol

ITEM: Final = "item"
DONE: Final = "done"
RAISED: Final = "raised"
FAILED: Final = "failed"
LOST: Final = "lost"
_READY: Final = "ready"
_STOP_SECONDS: Final = 2.0
START_SECONDS: Final = 60.0
"""How long a process may take to start (spawn and import the engine) before a stop kills it:
one killed while it starts leaves the semaphores it was handed to the resource tracker, which
then warns on the server's standard error."""
_WATCH_SECONDS: Final = 1.0


class Job(Protocol):
    """Work for a lane's process."""

    def run(self, cancelled: Callable[[], bool], emit: Callable[[Any], None]) -> Any: ...


@dataclass(frozen=True, slots=True)
class Call:
    """A job that is one function call: ``function(*args)``'s value is its result."""

    function: Callable[..., Any]
    args: tuple[Any, ...]

    def run(self, cancelled: Callable[[], bool], emit: Callable[[Any], None]) -> Any:
        """Call the function (it neither streams nor stops early)."""
        del cancelled, emit
        return self.function(*self.args)


def die_with_parent(parent: int) -> None:
    """Make this process end when ``parent`` does, however that ends (SIGKILL, the
    out-of-memory killer): a thread checks every second whether the process was handed to
    another parent. An orphan would keep running and hold the server's standard error open."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_WATCH_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


def run_job(
    job: Job, cancelled: Callable[[], bool], send: Callable[[tuple[str, Any]], None]
) -> None:
    """Run one job, sending its items, then its result or its exception, each with the CPU
    seconds the job took (this process's, measured around the job)."""
    began = time.process_time()

    def emit(item: Any) -> None:
        send((ITEM, item))

    try:
        value = job.run(cancelled, emit)
    except Exception as error:  # noqa: BLE001 - every failure goes back to the caller
        spent = time.process_time() - began
        try:
            pickle.dumps(error)
        except Exception:  # noqa: BLE001 - an exception that cannot cross: its text does
            send((FAILED, (f"{type(error).__name__}: {error}", spent)))
        else:
            send((RAISED, (error, spent)))
        return
    send((DONE, (value, time.process_time() - began)))


def _serve(
    connection: Connection, cancel: EventType, parent: int, nice: int
) -> None:  # pragma: no cover - runs in the lane's process
    """A lane process's loop: one job at a time, until told to stop or the pipe closes."""
    die_with_parent(parent)
    if nice:
        with contextlib.suppress(OSError):
            os.nice(nice)
    connection.send((-1, _READY, None))
    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        job_id, job = message

        def send(message: tuple[str, Any], job_id: int = job_id) -> None:
            connection.send((job_id, *message))

        run_job(job, cancel.is_set, send)


@contextlib.contextmanager
def _without_main() -> Iterator[None]:
    """While a process is spawned, hide the parent's main module from it. A spawned process
    otherwise imports it again first (``baloot-server``'s script imports the whole server, and
    pytest's the test runner): 55 MB of it where a lane needs 24. A lane's jobs name every
    function by its own module, so none needs the main one."""
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    saved = {name: vars(main)[name] for name in ("__file__", "__spec__") if name in vars(main)}
    try:
        main.__spec__ = None
        if "__file__" in saved:
            del main.__file__
        yield
    finally:
        for name, value in saved.items():
            setattr(main, name, value)


class LaneProcess:
    """One process of a lane, as the server process sees it; runs one job at a time."""

    def __init__(self, lane: str, nice: int, loop: asyncio.AbstractEventLoop) -> None:
        context = multiprocessing.get_context("spawn")
        self._cancel = context.Event()
        self._connection, child = context.Pipe()
        self._process = context.Process(
            target=_serve,
            args=(child, self._cancel, os.getpid(), nice),
            daemon=True,
            name=f"baloot-{lane}",
        )
        with _without_main():
            self._process.start()
        child.close()
        self._loop = loop
        self.alive = True
        self.ready = False  # set once the process has started and waits for jobs
        self._next = 0
        self._current: tuple[int, asyncio.Queue[tuple[str, Any]]] | None = None
        self._reader = threading.Thread(target=self._read, daemon=True, name=f"{lane}-reader")
        self._reader.start()

    @property
    def pid(self) -> int | None:
        """The process's id."""
        return self._process.pid

    @property
    def exitcode(self) -> int | None:
        """How the process ended (None while it runs; negative: the signal that ended it)."""
        return self._process.exitcode

    def _read(self) -> None:
        while True:
            try:
                job_id, kind, payload = self._connection.recv()
            except (EOFError, OSError):
                with contextlib.suppress(RuntimeError):  # the event loop is closed
                    self._loop.call_soon_threadsafe(self._lost)
                return
            except Exception:  # noqa: BLE001, S112 - a message that does not unpickle: dropped
                continue
            if kind == _READY:
                self.ready = True
                continue
            try:
                self._loop.call_soon_threadsafe(self._route, job_id, kind, payload)
            except RuntimeError:  # the event loop is closed: nobody is listening any more
                return

    def _lost(self) -> None:
        self.alive = False
        if self._current is not None:
            self._current[1].put_nowait((LOST, "the process stopped"))

    def _route(self, job_id: int, kind: str, payload: Any) -> None:
        current = self._current
        if current is not None and current[0] == job_id:
            current[1].put_nowait((kind, payload))

    def start(self, job: Job) -> asyncio.Queue[tuple[str, Any]]:
        """Send ``job``; its messages arrive in the queue returned (the last is DONE, RAISED,
        FAILED or LOST)."""
        assert self._current is None, "a lane process runs one job at a time"
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        job_id = self._next
        self._next += 1
        self._cancel.clear()
        self._current = (job_id, queue)
        if not self.alive:
            queue.put_nowait((LOST, "the process stopped"))
            return queue
        try:
            self._connection.send((job_id, job))
        except (OSError, ValueError) as error:
            self.alive = False
            queue.put_nowait((LOST, f"the process cannot be reached: {error}"))
        return queue

    def finished(self) -> None:
        """The current job ended (its last message was read)."""
        self._current = None

    def cancel(self) -> None:
        """Ask the running job to stop (a job that reads ``cancelled()`` stops at its next
        unit of work)."""
        self._cancel.set()

    def kill(self) -> None:
        """End the process now (a job past its deadline that does not stop)."""
        self.alive = False
        with contextlib.suppress(OSError, ValueError):
            self._process.kill()

    def stop(self) -> None:
        """Tell the process to end (a running job's call has ended: it is terminated)."""
        self.alive = False
        with contextlib.suppress(OSError, ValueError):
            self._connection.send(None)
        if self._current is not None:
            with contextlib.suppress(OSError, ValueError):
                self._process.terminate()

    def join(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for the process to end, then kill it; a process
        still starting is given until it has started (at most :data:`START_SECONDS`)."""
        if not self.ready:
            timeout = max(timeout, START_SECONDS)
        self._process.join(timeout=max(0.0, timeout))
        if self._process.is_alive():
            self._process.kill()
            self._process.join(timeout=1.0)
        with contextlib.suppress(OSError):
            self._connection.close()

    def close(self) -> None:
        """End the process: told to stop, then killed if it has not ended in 2 s."""
        self.stop()
        self.join(_STOP_SECONDS)


__all__ = [
    "DONE",
    "FAILED",
    "ITEM",
    "LOST",
    "RAISED",
    "Call",
    "Job",
    "LaneProcess",
    "die_with_parent",
    "run_job",
]
