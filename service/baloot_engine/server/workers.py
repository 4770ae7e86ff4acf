"""Several server processes on one port (``BALOOT_WORKERS`` > 1).

One Python process is bound by the GIL, and every call's work is pure Python, so a machine's
cores are used by processes. The parent process (the supervisor):

1. checks that the port is free (a second server on a busy port fails, as with one process)
   and picks one when port 0 was asked for;
2. switches prometheus-client to multiprocess mode in a clean directory (the
   ``PROMETHEUS_MULTIPROC_DIR`` given, emptied of its ``*.db`` files, or a new temporary one
   that is removed at exit), so each worker writes its counters to its own files;
3. forks the workers *before any gRPC object exists* (gRPC's core threads do not survive a
   fork); each worker builds its own server bound to the same port with ``grpc.so_reuseport``,
   and the kernel hands every new connection to one of them;
4. serves the one metrics endpoint, which sums the workers' files;
5. restarts a worker that dies (a crash, an out-of-memory kill), unless workers keep dying
   right after start, which means they cannot start at all: then everything stops;
6. on SIGTERM or SIGINT, passes SIGTERM to every worker, each of which drains as a single
   server does (NOT_SERVING, calls taken until they stop arriving, then in-flight calls
   finish within the grace period), waits for them, and exits.

The parent never touches gRPC. Workers ask the kernel to send them SIGTERM if the parent dies,
so no worker is left holding the port.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import dataclasses
import os
import select
import shutil
import signal
import socket
import tempfile
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import structlog
from prometheus_client import CollectorRegistry, start_http_server, values
from prometheus_client.multiprocess import MultiProcessCollector

from baloot_engine.server.settings import Settings
from baloot_engine.telemetry.logs import get_logger
from baloot_engine.telemetry.metrics import MetricsEndpoint

MULTIPROC_ENV: Final = "PROMETHEUS_MULTIPROC_DIR"
READY: Final = b"R"
# A worker that exits sooner than this after its start counts as failing to start.
QUICK_EXIT_SECONDS: Final = 5.0
# That many quick exits in a row stop the whole server.
MAX_QUICK_EXITS: Final = 3
START_TIMEOUT_SECONDS: Final = 60.0
_SUPERVISED: Final = {signal.SIGTERM, signal.SIGINT, signal.SIGCHLD}
_PR_SET_PDEATHSIG: Final = 1

_log = get_logger("baloot_engine.server.workers")


class WorkersStartError(RuntimeError):
    """The workers could not start (a busy port, a worker that failed at start-up)."""


@dataclass(slots=True)
class Worker:
    """One forked worker process, as the parent sees it."""

    index: int
    pid: int
    started_at: float
    ready_fd: int | None


WorkerMain = Callable[[Settings, int, Callable[[], None]], int]


def reserve_port(host: str, port: int) -> int:
    """Check that ``host:port`` is free and return it; for port 0, return a free port.

    The probe socket does not set SO_REUSEPORT, so a port held by any listener (another
    server, with one process or several) is reported busy.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        raise WorkersStartError(f"cannot listen on {host}:{port}: {error}") from None
    chosen = port
    for family, kind, proto, _, address in infos:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                probe.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                probe.bind((address[0], chosen, *address[2:]))
            except OSError as error:
                raise WorkersStartError(
                    f"cannot listen on {host}:{chosen}: {error.strerror}"
                ) from None
            chosen = int(probe.getsockname()[1])
    return chosen


def prepare_metrics_dir(environ: dict[str, str] | os._Environ[str]) -> tuple[Path, bool]:
    """Return the multiprocess metrics directory, emptied, and whether it was created here."""
    given = environ.get(MULTIPROC_ENV, "").strip()
    if given:
        path = Path(given)
        path.mkdir(parents=True, exist_ok=True)
        for stale in path.glob("*.db"):
            stale.unlink()
        return path, False
    return Path(tempfile.mkdtemp(prefix="baloot-metrics-")), True


def enable_multiprocess_metrics(path: Path) -> None:
    """Make every metric created from now on (in this process and its forks) write to files.

    prometheus-client picks its value class from ``PROMETHEUS_MULTIPROC_DIR`` when it is first
    imported; the server imported it before knowing how many workers it runs, so the choice
    is made again here, before any worker creates a metric.
    """
    os.environ[MULTIPROC_ENV] = str(path)
    values.ValueClass = values.MultiProcessValue()  # type: ignore[no-untyped-call]


def _die_with_parent() -> None:
    """Ask Linux to send this process SIGTERM when its parent dies (no-op elsewhere)."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)


class Supervisor:
    """The parent process: forks the workers, serves the metrics, restarts and stops them."""

    def __init__(self, settings: Settings, worker_main: WorkerMain) -> None:
        self.settings = settings
        self._worker_main = worker_main
        self.workers: dict[int, Worker] = {}
        self._endpoint: MetricsEndpoint | None = None
        self._quick_exits = 0

    def run(self) -> int:
        """Run until SIGTERM or SIGINT; return the exit status."""
        settings = self.settings
        try:
            port = reserve_port(settings.host, settings.port)
        except WorkersStartError as error:
            _log.error("start-up failed", error=str(error))
            return 1
        self.settings = dataclasses.replace(settings, port=port)
        metrics_dir, created = prepare_metrics_dir(os.environ)
        enable_multiprocess_metrics(metrics_dir)
        signal.pthread_sigmask(signal.SIG_BLOCK, _SUPERVISED)
        try:
            return self._run(metrics_dir)
        finally:
            # A signal that came during the shutdown is consumed here: unblocked, it would kill
            # the process with that signal instead of the exit status it has.
            while signal.sigtimedwait(_SUPERVISED, 0) is not None:
                pass
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _SUPERVISED)
            if created:
                shutil.rmtree(metrics_dir, ignore_errors=True)

    def _run(self, metrics_dir: Path) -> int:
        settings = self.settings
        try:
            for index in range(settings.workers):
                self._spawn(index)
            self._await_ready(list(self.workers.values()))
            if settings.metrics_enabled:
                self._serve_metrics(metrics_dir)
        except WorkersStartError as error:
            _log.error("start-up failed", error=str(error))
            self._stop_all()
            return 1
        _log.info(
            "workers started",
            workers=len(self.workers),
            pids=sorted(worker.pid for worker in self.workers.values()),
            host=settings.host,
            port=settings.port,
            metrics_host=settings.metrics_host if self._endpoint else None,
            metrics_port=self._endpoint.port if self._endpoint else None,
            metrics_dir=str(metrics_dir),
            pid=os.getpid(),
        )
        status = self._supervise()
        self._stop_all()
        if self._endpoint is not None:
            self._endpoint.close()
            self._endpoint = None
        _log.info("server stopped", workers=settings.workers)
        return status

    def _spawn(self, index: int) -> Worker:
        """Fork worker ``index``; it reports readiness through a pipe."""
        read_fd, write_fd = os.pipe()
        inherited = [self._endpoint.server.fileno()] if self._endpoint is not None else []
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # the worker
            os.close(read_fd)
            code = 1
            try:
                for fd in inherited:
                    with contextlib.suppress(OSError):
                        os.close(fd)
                _die_with_parent()
                if os.getppid() != parent:  # the parent died before the request was made
                    os._exit(1)
                signal.pthread_sigmask(signal.SIG_SETMASK, set())
                structlog.contextvars.bind_contextvars(worker=index)

                def ready() -> None:
                    os.write(write_fd, READY)

                code = self._worker_main(self.settings, index, ready)
            finally:
                os.close(write_fd)
                os._exit(code)
        os.close(write_fd)
        worker = Worker(index=index, pid=pid, started_at=time.monotonic(), ready_fd=read_fd)
        self.workers[pid] = worker
        return worker

    def _await_ready(self, pending: list[Worker]) -> None:
        """Wait until each of ``pending`` reports that it serves; raise if one cannot."""
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        waiting = {w.ready_fd: w for w in pending if w.ready_fd is not None}
        while waiting:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WorkersStartError("workers did not start in time")
            readable, _, _ = select.select(list(waiting), [], [], remaining)
            for fd in readable:
                worker = waiting.pop(fd)
                data = os.read(fd, 1)
                os.close(fd)
                worker.ready_fd = None
                if data != READY:
                    raise WorkersStartError(f"worker {worker.index} failed to start")

    def _serve_metrics(self, metrics_dir: Path) -> None:
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=str(metrics_dir))  # type: ignore[no-untyped-call]
        settings = self.settings
        try:
            server, thread = start_http_server(
                settings.metrics_port, addr=settings.metrics_host, registry=registry
            )
        except OSError as error:
            address = f"{settings.metrics_host}:{settings.metrics_port}"
            raise WorkersStartError(f"cannot serve metrics on {address}: {error}") from None
        self._endpoint = MetricsEndpoint(server=server, thread=thread)

    def _supervise(self) -> int:
        """Wait for a signal; restart dead workers; return on SIGTERM/SIGINT."""
        while True:
            info = signal.sigtimedwait(_SUPERVISED, 1.0)
            if info is not None and info.si_signo in (signal.SIGTERM, signal.SIGINT):
                _log.info("signal received", signal=signal.Signals(info.si_signo).name)
                return 0
            for worker, status in self._reap():
                code = os.waitstatus_to_exitcode(status)
                lived = time.monotonic() - worker.started_at
                _log.warning(
                    "worker exited",
                    worker=worker.index,
                    pid=worker.pid,
                    exit_code=code if code >= 0 else None,
                    signal=signal.Signals(-code).name if code < 0 else None,
                    seconds=round(lived, 1),
                )
                self._quick_exits = self._quick_exits + 1 if lived < QUICK_EXIT_SECONDS else 0
                if self._quick_exits >= MAX_QUICK_EXITS:
                    _log.error("workers keep exiting at start-up: stopping", exits=MAX_QUICK_EXITS)
                    return 1
                try:
                    replacement = self._spawn(worker.index)
                    self._await_ready([replacement])
                except WorkersStartError as error:
                    _log.error("worker restart failed", worker=worker.index, error=str(error))
                    continue
                _log.info("worker restarted", worker=worker.index, pid=replacement.pid)

    def _reap(self) -> list[tuple[Worker, int]]:
        """Collect the workers that exited, without blocking."""
        ended = []
        while self.workers:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            worker = self.workers.pop(pid, None)
            if worker is not None:
                if worker.ready_fd is not None:
                    os.close(worker.ready_fd)
                ended.append((worker, status))
        return ended

    def _stop_all(self) -> None:
        """SIGTERM every worker, wait for the drain, SIGKILL what is left after it."""
        for pid in list(self.workers):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        settings = self.settings
        deadline = time.monotonic() + settings.lame_duck_seconds + settings.grace_seconds + 10
        while self.workers and time.monotonic() < deadline:
            if not self._reap():
                signal.sigtimedwait({signal.SIGCHLD}, 0.2)
        for pid, worker in list(self.workers.items()):
            _log.warning("worker did not stop in time: killed", worker=worker.index, pid=pid)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
            self.workers.pop(pid, None)


def run_workers(
    settings: Settings,
    serve_worker: Callable[[Settings, Callable[[], None]], Coroutine[Any, Any, None]],
) -> int:
    """Run ``settings.workers`` processes; ``serve_worker`` is the coroutine function of one.

    ``serve_worker(settings, ready)`` runs one server until SIGTERM and calls ``ready()`` once it
    serves; it raises on a start-up failure.
    """

    def worker_main(worker_settings: Settings, index: int, ready: Callable[[], None]) -> int:
        del index  # bound into the log context by the supervisor
        try:
            asyncio.run(serve_worker(worker_settings, ready))
        except Exception as error:  # noqa: BLE001 - reported on the worker's log line
            _log.error("worker failed", error=f"{type(error).__name__}: {error}")
            return 1
        return 0

    return Supervisor(settings, worker_main).run()
