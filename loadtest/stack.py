"""Start a service and a gateway on free localhost ports, watch them, stop them.

Used by the load smoke test, the fault tests and the scaling measurements. Every process is a
child of the caller, listens on 127.0.0.1 only, writes its logs under a given directory, and is
stopped by :meth:`Child.stop` (SIGTERM, then SIGKILL after a bound).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client.multiprocess import MultiProcessCollector

ROOT = Path(__file__).resolve().parent.parent
GATEWAY_SCRIPT = ROOT / "scripts" / "gateway.py"
_TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def new_state_key() -> str:
    """A fresh state key, shared by every replica of one stack (as a Secret would be)."""
    return secrets.token_urlsafe(32)


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()


def _parents() -> dict[int, int]:
    """Every live process with its parent (read from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat(int(entry.name))
            if fields is not None:
                parents[int(entry.name)] = int(fields[1])
    return parents


def _command(pid: int) -> str:
    """The command line of ``pid`` ("" once it is gone)."""
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (read from /proc)."""
    parents = _parents()
    tree, frontier = [pid], [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, ppid in parents.items() if ppid == parent]
        tree.extend(children)
        frontier.extend(children)
    return tree


def cpu_seconds(pids: Sequence[int]) -> float:
    """User + system CPU time of the live processes ``pids``."""
    total = 0.0
    for pid in pids:
        fields = _stat(pid)
        if fields is not None:
            total += (int(fields[11]) + int(fields[12])) / _TICKS
    return total


@dataclass
class Child:
    """A child process with its log file."""

    name: str
    popen: subprocess.Popen[bytes]
    log_path: Path
    _log: IO[bytes]

    @property
    def pid(self) -> int:
        """The process id."""
        return self.popen.pid

    def alive(self) -> bool:
        """Whether the process still runs."""
        return self.popen.poll() is None

    def log_text(self) -> str:
        """Everything the process wrote so far."""
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def cpu_seconds(self) -> float:
        """CPU time of the process and its descendants (its workers)."""
        return cpu_seconds(process_tree(self.pid))

    def stop(self, timeout: float = 20) -> int | None:
        """SIGTERM, wait up to ``timeout``, then SIGKILL; return the exit status."""
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(10)
        self._log.close()
        return self.popen.returncode


def _start(name: str, argv: Sequence[str], env: dict[str, str], log_dir: Path) -> Child:
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / f"{name}.log"
    log = log_path.open("wb")
    popen = subprocess.Popen(  # noqa: S603 - our own interpreter and scripts
        list(argv), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env
    )
    return Child(name=name, popen=popen, log_path=log_path, _log=log)


def wait_until(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll ``predicate`` until it holds; raise TimeoutError naming ``what``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise TimeoutError(f"timed out waiting for {what}")


@dataclass
class Service:
    """A running engine server (one process, or a supervisor and its workers)."""

    child: Child
    port: int
    metrics_port: int
    metrics_dir: Path | None

    @property
    def target(self) -> str:
        """The address a client dials."""
        return f"127.0.0.1:{self.port}"

    @property
    def metrics_url(self) -> str:
        """The Prometheus endpoint."""
        return f"http://127.0.0.1:{self.metrics_port}/metrics"

    def serving(self) -> bool:
        """Whether the health service answers SERVING and the metrics endpoint answers."""
        try:
            with grpc.insecure_channel(self.target) as channel:
                stub: Any = health_pb2_grpc.HealthStub(channel)
                reply = stub.Check(health_pb2.HealthCheckRequest(), timeout=1)
            with urllib.request.urlopen(self.metrics_url, timeout=1):  # noqa: S310 - loopback
                pass
        except (grpc.RpcError, OSError):
            return False
        return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)

    def worker_pids(self) -> list[int]:
        """The worker processes (empty for a single-process server): the server's own children
        that are servers, not the lanes' processes or the resource tracker each server process
        starts."""
        root = self.child.pid
        return [
            pid
            for pid, parent in _parents().items()
            if parent == root and "multiprocessing" not in _command(pid)
        ]

    def calls_by_process(self) -> dict[int, int]:
        """Engine calls handled per worker process, from the multiprocess metric files."""
        counts: dict[int, int] = {}
        if self.metrics_dir is None:
            return counts
        for path in sorted(self.metrics_dir.glob("counter_*.db")):
            pid = int(path.stem.rpartition("_")[2])
            total = 0.0
            for metric in MultiProcessCollector.merge([str(path)], accumulate=True):  # type: ignore[no-untyped-call]
                for sample in metric.samples:
                    if sample.name == "grpc_server_handled_total" and sample.labels.get(
                        "grpc_service"
                    ) == ("baloot.v1.BalootEngineService"):
                        total += sample.value
            counts[pid] = int(total)
        return counts


def start_service(
    log_dir: Path,
    *,
    workers: int = 1,
    key: str,
    name: str = "service",
    log_level: str = "warning",
    grace_seconds: float = 5,
    timeout: float = 60,
    port: int | None = None,
    env_extra: Mapping[str, str] | None = None,
) -> Service:
    """Start ``baloot-server`` on free ports (or on ``port``, as a restart does) and wait until
    it serves. ``env_extra`` adds settings (e.g. ``BALOOT_LEDGER``) to its environment."""
    port, metrics_port = port or free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("BALOOT_")}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    metrics_dir = None
    if workers > 1:
        metrics_dir = log_dir / f"{name}-metrics"
        env["PROMETHEUS_MULTIPROC_DIR"] = str(metrics_dir)
    env.update(
        BALOOT_HOST="127.0.0.1",
        BALOOT_PORT=str(port),
        BALOOT_METRICS_PORT=str(metrics_port),
        BALOOT_WORKERS=str(workers),
        BALOOT_STATE_KEYS=key,
        BALOOT_LOG_FORMAT="json",
        BALOOT_LOG_LEVEL=log_level,
        BALOOT_GRACE_SECONDS=str(grace_seconds),
    )
    env.update(env_extra or {})
    child = _start(name, [sys.executable, "-m", "baloot_engine"], env, log_dir)
    service = Service(child=child, port=port, metrics_port=metrics_port, metrics_dir=metrics_dir)
    try:
        wait_until(lambda: service.serving() or not child.alive(), timeout, f"{name} to serve")
    except TimeoutError:
        child.stop()
        raise
    if not child.alive():
        child.stop()
        raise RuntimeError(f"{name} exited at start-up:\n{child.log_text()}")
    return service


@dataclass
class Gateway:
    """A running Envoy in front of one or more services."""

    child: Child
    port: int
    admin_port: int

    @property
    def target(self) -> str:
        """The address a client dials."""
        return f"127.0.0.1:{self.port}"

    @property
    def admin_url(self) -> str:
        """Envoy's admin interface (loopback)."""
        return f"http://127.0.0.1:{self.admin_port}"

    def admin(self, path: str) -> str:
        """GET a page of the admin interface."""
        url = self.admin_url + path
        with urllib.request.urlopen(url, timeout=5) as reply:  # noqa: S310 - loopback admin
            return str(reply.read().decode())

    def hosts(self) -> dict[str, str]:
        """Each upstream host of the engine's cluster and its health flags."""
        flags = {}
        for line in self.admin("/clusters").splitlines():
            parts = line.split("::")
            if len(parts) == 4 and parts[0] == "baloot_engine" and parts[2] == "health_flags":
                flags[parts[1]] = parts[3]
        return flags

    def stats(self) -> dict[str, float]:
        """The engine cluster's counters and gauges."""
        stats = {}
        text = self.admin("/stats?filter=^cluster\\.baloot_engine\\.")
        for line in text.splitlines():
            name, _, value = line.partition(": ")
            with contextlib.suppress(ValueError):
                stats[name.removeprefix("cluster.baloot_engine.")] = float(value)
        return stats

    def access_log(self) -> Iterator[dict[str, Any]]:
        """The JSON access-log records written so far."""
        for line in self.child.log_text().splitlines():
            if line.startswith("{"):
                with contextlib.suppress(json.JSONDecodeError):
                    yield json.loads(line)

    def healthy(self, count: int) -> bool:
        """Whether ``count`` upstream hosts are healthy."""
        try:
            return sum(flags == "healthy" for flags in self.hosts().values()) >= count
        except (OSError, urllib.error.URLError):
            return False


def start_gateway(
    log_dir: Path,
    upstreams: Sequence[str],
    *,
    name: str = "gateway",
    concurrency: int = 1,
    timeout: float = 60,
) -> Gateway:
    """Start Envoy (scripts/gateway.py run) on free ports; wait until every upstream is healthy."""
    port, admin_port = free_port(), free_port()
    argv = [
        sys.executable,
        str(GATEWAY_SCRIPT),
        "run",
        "--listen",
        f"127.0.0.1:{port}",
        "--admin",
        f"127.0.0.1:{admin_port}",
        "--concurrency",
        str(concurrency),
    ]
    for upstream in upstreams:
        argv += ["--upstream", upstream]
    child = _start(name, argv, dict(os.environ), log_dir)
    gateway = Gateway(child=child, port=port, admin_port=admin_port)
    try:
        wait_until(
            lambda: gateway.healthy(len(upstreams)) or not child.alive(),
            timeout,
            f"{name} to see {len(upstreams)} healthy upstream(s)",
        )
    except TimeoutError:
        child.stop()
        raise
    if not child.alive():
        child.stop()
        raise RuntimeError(f"{name} exited at start-up:\n{child.log_text()}")
    return gateway
