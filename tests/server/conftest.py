"""Fixtures for the server tests: a real server in this process, or in a child process.

In-process servers run their own event loop in a thread, so the tests use ordinary blocking
gRPC clients over real loopback connections. Child-process servers are read through their
stderr, one JSON log line at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Coroutine, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import grpc
import pytest
import structlog
from tests.waiting import HANG_GUARD

from baloot_engine.server.app import EngineServer
from baloot_engine.server.settings import Settings

_T = TypeVar("_T")

HERE = Path(__file__).resolve().parent
SLOW_SERVER = HERE / "slow_server.py"


class InProcessServer:
    """An :class:`EngineServer` running on its own event loop in a background thread."""

    def __init__(
        self, settings: Settings, extra_handlers: Sequence[grpc.GenericRpcHandler] = ()
    ) -> None:
        self.settings = settings
        self.app = EngineServer(settings, extra_handlers=extra_handlers)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def run(self, coroutine: Coroutine[Any, Any, _T], timeout: float = HANG_GUARD) -> _T:
        """Run a coroutine on the server's loop and return its result (a hang guard only)."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    @property
    def target(self) -> str:
        """The address a client dials."""
        return f"127.0.0.1:{self.app.port}"

    def __enter__(self) -> InProcessServer:
        self._thread.start()
        try:
            self.run(self.app.start())
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop the server gracefully and end the loop thread."""
        if self._loop.is_closed():
            return
        self.run(self.app.stop())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()


TEST_ATTESTATION_KEY = "e5" * 32
"""The attestation key of the test servers (BALOOT_ATTESTATION_KEY's form: 64 hex digits)."""


def make_settings(**changes: Any) -> Settings:
    """Settings for a test server: loopback, free ports, a short grace period."""
    base = Settings(
        host="127.0.0.1",
        port=0,
        metrics_port=0,
        grace_seconds=2.0,
        attestation_key=TEST_ATTESTATION_KEY,  # no key file written in the working directory
    )
    return dataclasses.replace(base, **changes)


@pytest.fixture(autouse=True, scope="session")
def _logs_through_pytest() -> Iterator[None]:
    """Send in-process server logs to the standard logging module, which pytest captures."""
    structlog.configure(
        processors=[structlog.processors.add_log_level, structlog.processors.JSONRenderer()],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG),
        cache_logger_on_first_use=False,
    )
    yield
    structlog.reset_defaults()


@pytest.fixture(scope="module")
def server() -> Iterator[InProcessServer]:
    """A server shared by the tests of one module."""
    with InProcessServer(make_settings()) as running:
        yield running


@pytest.fixture
def channel(server: InProcessServer) -> Iterator[grpc.Channel]:
    """A client channel to the module's server."""
    with grpc.insecure_channel(server.target) as open_channel:
        yield open_channel


class ServerProcess:
    """A server started as a child process, with its stderr collected line by line."""

    def __init__(self, args: Sequence[str], env: dict[str, str] | None = None) -> None:
        environment = {k: v for k, v in os.environ.items() if not k.startswith("BALOOT_")}
        environment.update(env or {})
        self.process = subprocess.Popen(
            [sys.executable, *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=environment,
        )
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def output(self) -> str:
        """Everything the process wrote to stderr so far."""
        with self._changed:
            return "\n".join(self.lines)

    def records(self) -> list[dict[str, Any]]:
        """Every stderr line parsed as JSON (fails the test if one is not JSON)."""
        with self._changed:
            lines = list(self.lines)
        records = []
        for line in lines:
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                pytest.fail(f"stderr line is not JSON: {line!r}")
        return records

    def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = HANG_GUARD
    ) -> dict[str, Any]:
        """Wait for a log record matching ``predicate`` and return it (``timeout``: a hang
        guard, not a measure of speed)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for record in self.records():
                    if predicate(record):
                        return record
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not self._reader.is_alive():
                    pytest.fail(f"no matching log line; stderr so far:\n{self.output()}")
                self._changed.wait(remaining)

    def wait_started(self) -> int:
        """Wait for the start-up line and return the gRPC port."""
        record = self.wait_for(lambda r: r.get("event") == "server started")
        return int(record["port"])

    def terminate(self, timeout: float = HANG_GUARD) -> int:
        """Send SIGTERM and return the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout)

    def close(self) -> None:
        """Make sure the process is gone and its pipe closed."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        self._reader.join(timeout=10)
        if self.process.stderr is not None:
            self.process.stderr.close()


@pytest.fixture
def spawn() -> Iterator[Callable[..., ServerProcess]]:
    """Start server processes; every one is stopped at the end of the test."""
    started: list[ServerProcess] = []

    def start(args: Sequence[str], env: dict[str, str] | None = None) -> ServerProcess:
        process = ServerProcess(args, env)
        started.append(process)
        return process

    yield start
    for process in started:
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.terminate(timeout=10)
        process.close()


@pytest.fixture
def start_server() -> Iterator[Callable[..., InProcessServer]]:
    """Start in-process servers with changed settings; each is stopped after the test."""
    started: list[InProcessServer] = []

    def start(
        extra_handlers: Sequence[grpc.GenericRpcHandler] = (), **changes: Any
    ) -> InProcessServer:
        running = InProcessServer(make_settings(**changes), extra_handlers).__enter__()
        started.append(running)
        return running

    yield start
    for running in started:
        running.stop()
