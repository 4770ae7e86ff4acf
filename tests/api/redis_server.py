"""A real ``redis-server`` for the ledger tests: on a free loopback port, in a temporary
directory, stopped when the test ends. By default it keeps an append-only file fsynced before
each reply (``appendfsync always``), as the ledger's default durability asks; ``persistence``
gives the other settings ``docs/security.md`` names.

The server is Debian's ``redis-server`` package (``.ci/run`` installs it when missing). Where
it is missing outside CI the ledger tests are skipped; in CI (``CI`` set) they fail instead,
so a machine without it cannot pass them silently.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

REDIS_SERVER = "redis-server"
PERSISTENCE: dict[str, tuple[str, ...]] = {
    # Every acknowledged write is on disk (what the ledger checks by default).
    "always": ("--save", "", "--appendonly", "yes", "--appendfsync", "always"),
    # An fsync a second in the background; the AOF buffer waits in memory while one is slow.
    "everysec": ("--save", "", "--appendonly", "yes", "--appendfsync", "everysec"),
    # A snapshot each second with a change, no AOF: a crash loses the writes since the last.
    "rdb": ("--save", "1 1", "--appendonly", "no"),
    # Nothing kept: a restart forgets every key.
    "none": ("--save", "", "--appendonly", "no"),
}


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def redis_binary() -> str:
    """The path of redis-server, or skip (fail in CI) when it is not installed."""
    path = shutil.which(REDIS_SERVER)
    if path is None:
        message = "redis-server is not installed (apt-get install redis-server)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path


class RedisServer:
    """One redis-server child process on 127.0.0.1."""

    def __init__(
        self, directory: Path, port: int | None = None, persistence: str = "always"
    ) -> None:
        self.directory = directory
        self.port = port or free_port()
        self.persistence = PERSISTENCE[persistence]
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The URL the engine's BALOOT_LEDGER takes."""
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        """Start it and wait until it answers PING."""
        self.directory.mkdir(parents=True, exist_ok=True)
        argv = [
            redis_binary(),
            "--bind",
            "127.0.0.1",
            "--port",
            str(self.port),
            *self.persistence,
            "--dir",
            str(self.directory),
            "--logfile",
            str(self.directory / "redis.log"),
        ]
        self.process = subprocess.Popen(argv, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                log = (self.directory / "redis.log").read_text(errors="replace")
                raise RuntimeError(f"redis-server exited at start-up:\n{log}")
            if self.command("PING") == "+PONG":
                return self
            time.sleep(0.05)
        self.stop()
        raise TimeoutError("redis-server did not answer PING")

    def command(self, *words: str) -> str | None:
        """Send one command (inline protocol) and return the first reply line, or None."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=2) as sock:
                sock.sendall((" ".join(words) + "\r\n").encode())
                reply = b""
                while not reply.endswith(b"\r\n"):
                    chunk = sock.recv(4096)
                    if not chunk:
                        break
                    reply += chunk
        except OSError:
            return None
        return reply.decode(errors="replace").split("\r\n")[0]

    def get(self, key: str) -> str | None:
        """The value of a key (None when it does not exist)."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=2) as sock:
                sock.sendall(f"GET {key}\r\n".encode())
                reply = b""
                while reply.count(b"\r\n") < (1 if reply.startswith(b"$-1") else 2):
                    chunk = sock.recv(4096)
                    if not chunk:
                        break
                    reply += chunk
        except OSError:
            return None
        if reply.startswith(b"$-1"):
            return None
        return reply.split(b"\r\n")[1].decode()

    def pause(self) -> None:
        """Stop the process (SIGSTOP): connections hang, as with a dead host."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        """Continue a paused process (SIGCONT)."""
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)

    def kill(self) -> None:
        """Kill it (SIGKILL): no shutdown, nothing saved that was not saved already."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.kill()
        self.process.wait(10)

    def stop(self) -> None:
        """Stop it (SIGTERM, then SIGKILL)."""
        if self.process is None or self.process.poll() is not None:
            return
        self.resume()
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
