"""The machinery of ``bench_service.py --mode h2load``: real requests replayed by h2load.

h2load (nghttp2's load generator, written in C) costs a few tens of microseconds of CPU per
call, far less than a Python gRPC client, so the server, not the client, sets the rate, and
the server's own CPU time per call can be read from ``/proc`` without the client's share
mixed in. What this module provides:

- :func:`ensure_h2load` finds h2load, or installs Debian's ``nghttp2-client`` (as root);
- :func:`prepare_replays` plays a real match with the Python client and keeps one serialized
  request of each measured kind (a request is a pure function of its token, so sending the
  same bytes again does the whole work every time);
- :func:`grpc_frame` wraps a message as a gRPC length-prefixed message, h2load's body;
- :func:`call_raw` sends such bytes once with grpc and returns the status (a replay must be
  OK: h2load counts HTTP 200 even when the gRPC status in the trailers is an error);
- :func:`start_engine` and :func:`start_floor` start the servers under test, and
  :meth:`Server.cpu_seconds` reads their CPU time (workers included);
- :func:`handled` reads ``grpc_server_handled_total`` by method and code, to count after a
  run the calls that did not end OK;
- :func:`run_h2load` runs h2load once and parses its summary; :func:`measure` wraps it with
  the CPU and status-code readings.
"""

from __future__ import annotations

import os
import random
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

import grpc

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from baloot_client.client import EngineClient, Match  # noqa: E402
from baloot_client.demo import choose  # noqa: E402
from grpc_health.v1 import health_pb2  # noqa: E402
from loadtest.stack import cpu_seconds, process_tree  # noqa: E402
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

from baloot.v1 import engine_service_pb2 as pb  # noqa: E402
from baloot.v1 import rules_pb2, types_pb2  # noqa: E402

ENGINE = "/baloot.v1.BalootEngineService/"
HEALTH_CHECK = "/grpc.health.v1.Health/Check"
NOOP_SERVER = Path(__file__).resolve().parent / "noop_server.py"
_BETWEEN = (types_pb2.PHASE_AWAITING_DEAL, types_pb2.PHASE_ROUND_OVER)


class HasCpu(Protocol):
    """A process whose CPU time can be read (a server, a gateway)."""

    def cpu_seconds(self) -> float:
        """User + system CPU seconds so far."""
        ...


class BenchError(RuntimeError):
    """The benchmark cannot go on (a tool missing, a server that does not start, a bad reply)."""


# ---------------------------------------------------------------------------------------------
# h2load itself


def ensure_h2load() -> str:
    """The path of h2load; installs Debian's nghttp2-client first when it is missing (as root)."""
    found = shutil.which("h2load")
    if found:
        return found
    apt = shutil.which("apt-get")
    if apt is None or os.geteuid() != 0:
        raise BenchError(
            "h2load is missing: install nghttp2-client "
            "(Debian/Ubuntu: apt-get install nghttp2-client)"
        )
    print("h2load is missing: installing nghttp2-client from Debian", flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    # Another apt-get may hold the lock for a while: wait for it rather than fail.
    lock = ["-o", "DPkg::Lock::Timeout=300"]
    subprocess.run([apt, "update", "-qq", *lock], check=True, env=env)  # noqa: S603
    subprocess.run(  # noqa: S603
        [apt, "install", "-y", "-qq", "--no-install-recommends", *lock, "nghttp2-client"],
        check=True,
        env=env,
    )
    found = shutil.which("h2load")
    if not found:
        raise BenchError("nghttp2-client was installed but h2load is still not on PATH")
    return found


def grpc_frame(message: bytes) -> bytes:
    """A gRPC length-prefixed message: flag 0 (not compressed), 4-byte big-endian length."""
    return b"\x00" + len(message).to_bytes(4, "big") + message


@dataclass(frozen=True)
class H2loadRun:
    """What one h2load run reported, and the CPU time it used itself."""

    elapsed: float
    done: int
    succeeded: int
    failed: int
    errored: int
    timeout: int
    status_2xx: int
    client_cpu: float

    @property
    def rate(self) -> float:
        """Successful calls per second."""
        return self.succeeded / self.elapsed if self.elapsed else 0.0


_FINISHED = re.compile(r"^finished in ([\d.]+)(ms|s|us)\b", re.MULTILINE)
_REQUESTS = re.compile(
    r"^requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, "
    r"(\d+) errored, (\d+) timeout",
    re.MULTILINE,
)
_CODES = re.compile(r"^status codes: (\d+) 2xx", re.MULTILINE)
_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6}


def parse_h2load(text: str, client_cpu: float = 0.0) -> H2loadRun:
    """Parse the summary h2load prints at the end of a run."""
    finished, requests, codes = _FINISHED.search(text), _REQUESTS.search(text), _CODES.search(text)
    if not (finished and requests and codes):
        raise BenchError(f"cannot read h2load's summary:\n{text[-2000:]}")
    counts = [int(g) for g in requests.groups()]
    return H2loadRun(
        elapsed=float(finished.group(1)) * _UNITS[finished.group(2)],
        done=counts[2],
        succeeded=counts[3],
        failed=counts[4],
        errored=counts[5],
        timeout=counts[6],
        status_2xx=int(codes.group(1)),
        client_cpu=client_cpu,
    )


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_h2load(
    h2load: str,
    url: str,
    body: Path,
    *,
    seconds: float | None = None,
    requests: int | None = None,
    connections: int = 8,
    streams: int = 4,
) -> H2loadRun:
    """One h2load run: POST ``body`` to ``url`` for ``seconds`` or ``requests`` calls.

    One thread (``-t 1``): h2load shares the machine with the server, and one thread is
    enough to keep it busy. ``connections`` × ``streams`` calls are in flight at any time.
    """
    argv = [h2load, "-t", "1", "-c", str(connections), "-m", str(streams), "-d", str(body)]
    argv += ["-H", "content-type: application/grpc", "-H", "te: trailers"]
    if seconds is not None:
        argv += ["-D", f"{max(1, round(seconds * 1000))}ms"]
    else:
        argv += ["-n", str(max(requests or 0, connections))]
    before = _children_cpu()
    done = subprocess.run(  # noqa: S603 - h2load, with our arguments
        [*argv, url], capture_output=True, text=True, check=False, timeout=600
    )
    used = _children_cpu() - before
    if done.returncode != 0:
        raise BenchError(f"h2load failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return parse_h2load(done.stdout, used)


# ---------------------------------------------------------------------------------------------
# The requests replayed


@dataclass(frozen=True)
class Replay:
    """One request to send again and again: the method path and the serialized message."""

    name: str
    method: str
    message: bytes

    def write_body(self, directory: Path) -> Path:
        """Write the framed message where h2load reads it; return the file."""
        path = directory / f"{self.name.replace(' ', '-').replace('/', '-')}.grpc"
        path.write_bytes(grpc_frame(self.message))
        return path


def health_replay() -> Replay:
    """The health check of the whole server (what probes send)."""
    return Replay("health Check", HEALTH_CHECK, health_pb2.HealthCheckRequest().SerializeToString())


def prepare_replays(target: str, seed: int = 7) -> dict[str, Replay]:
    """Play a real match against ``target`` and keep one request of each measured kind.

    - ``DealRound``: the dealer dealing the second round (host credential, as a backend does);
    - ``PlaceBid``: the first bid of that round (the bidder's own credential);
    - ``PlayCard seat`` / ``PlayCard host``: a card in the middle of a round (after trick 4),
      with the seat's credential (one view back) and the host's (four views back);
    - ``GetView``: the same position, the seat to play reading its own view.

    Every request carries the ``expected_version`` of its token, as a careful client sends.
    """
    rng = random.Random(seed)
    client = EngineClient.connect(target)
    found: dict[str, Replay] = {}
    for _ in range(20):
        match: Match = client.create_match(rules_pb2.RuleSet(preset=rules_pb2.PRESET_SEEDS))
        view = match.views[0]
        while view.phase != types_pb2.PHASE_MATCH_OVER and len(found) < 5:
            common: dict[str, Any] = {
                "state": match.state,
                "match_id": match.match_id,
                "expected_version": match.version,
            }
            if view.phase in _BETWEEN:
                if view.phase == types_pb2.PHASE_ROUND_OVER and "DealRound" not in found:
                    request = pb.DealRoundRequest(
                        credential=match.host_credential, seat=view.dealer, **common
                    )
                    found["DealRound"] = Replay(
                        "DealRound", ENGINE + "DealRound", request.SerializeToString()
                    )
                match.deal(view.dealer)
                view = match.views[0]
                continue
            seat = view.turn
            seat_view = match.views[seat]
            action = choose(seat_view, rng)
            own = match.seat_credentials[seat]
            if (
                action.HasField("bid")
                and "DealRound" in found
                and "PlaceBid" not in found
                and not seat_view.bids
            ):
                bid = pb.PlaceBidRequest(credential=own, seat=seat, bid=action.bid, **common)
                found["PlaceBid"] = Replay("PlaceBid", ENGINE + "PlaceBid", bid.SerializeToString())
            if (
                action.HasField("play")
                and not action.play.sawa
                and "PlayCard seat" not in found
                and sum(view.tricks_won) == 4
            ):
                for name, credential in (("seat", own), ("host", match.host_credential)):
                    play = pb.PlayCardRequest(
                        credential=credential, seat=seat, play=action.play, **common
                    )
                    found[f"PlayCard {name}"] = Replay(
                        f"PlayCard {name}", ENGINE + "PlayCard", play.SerializeToString()
                    )
                get_view = pb.GetViewRequest(
                    state=match.state, match_id=match.match_id, credential=own, seat=seat
                )
                found["GetView"] = Replay(
                    "GetView", ENGINE + "GetView", get_view.SerializeToString()
                )
            match.act(seat, action)
            view = match.views[0]
        if len(found) == 5:
            return found
    raise BenchError(f"no match reached every position to replay (found {sorted(found)})")


def call_raw(target: str, method: str, message: bytes) -> tuple[grpc.StatusCode, str]:
    """Send ``message`` once to ``method`` as it is; return the status code and details."""
    with grpc.insecure_channel(target) as channel:
        call: grpc.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(method)
        try:
            call(message, timeout=10)
        except grpc.RpcError as error:
            return error.code(), str(error.details())
    return grpc.StatusCode.OK, ""


def check_replay(target: str, replay: Replay) -> None:
    """Raise unless sending ``replay`` once to ``target`` ends with OK."""
    code, details = call_raw(target, replay.method, replay.message)
    if code != grpc.StatusCode.OK:
        raise BenchError(f"{replay.name} to {target}: {code.name} {details}")


# ---------------------------------------------------------------------------------------------
# The servers under test


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Server:
    """A server process under test (with its workers, if any) and its log file."""

    name: str
    popen: subprocess.Popen[bytes]
    port: int
    metrics_port: int | None
    log_path: Path
    _log: IO[bytes]

    @property
    def target(self) -> str:
        """host:port for a gRPC client."""
        return f"127.0.0.1:{self.port}"

    def url(self, method: str) -> str:
        """The URL h2load posts to."""
        return f"http://127.0.0.1:{self.port}{method}"

    @property
    def metrics_url(self) -> str | None:
        """The Prometheus endpoint, when metrics are on."""
        return (
            None if self.metrics_port is None else f"http://127.0.0.1:{self.metrics_port}/metrics"
        )

    def pids(self) -> list[int]:
        """The process and its descendants (the workers)."""
        return process_tree(self.popen.pid)

    def worker_pids(self) -> list[int]:
        """The worker processes (empty for one process)."""
        return [pid for pid in self.pids() if pid != self.popen.pid]

    def cpu_seconds(self) -> float:
        """User + system CPU time of the process and its workers, from /proc."""
        return cpu_seconds(self.pids())

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 20 s."""
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(20)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(10)
        self._log.close()


def _spawn(
    name: str,
    argv: list[str],
    env: dict[str, str],
    scratch: Path,
    port: int,
    metrics: int | None,
    timeout: float = 60,
) -> Server:
    log_path = scratch / f"{name}.log"
    log = log_path.open("wb")
    popen = subprocess.Popen(  # noqa: S603 - our own interpreter and scripts
        argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env
    )
    server = Server(name, popen, port, metrics, log_path, log)
    check = health_replay()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if popen.poll() is not None:
            break
        if call_raw(server.target, check.method, check.message)[0] == grpc.StatusCode.OK:
            return server
        time.sleep(0.2)
    server.stop()
    raise BenchError(f"{name} did not start:\n{log_path.read_text(errors='replace')[-3000:]}")


def start_floor(
    scratch: Path,
    loop: str = "asyncio",
    *,
    prefix: Sequence[str] = (),
    extra: Sequence[str] = (),
    timeout: float = 60,
) -> Server:
    """The bare grpc.aio server of ``noop_server.py``, on asyncio's loop or on uvloop's.

    ``extra`` adds options of ``noop_server.py`` (``--parse``); ``prefix`` runs the server
    under another command (valgrind), which may need a longer start ``timeout``.
    """
    port = free_port()
    argv = [*prefix, sys.executable, str(NOOP_SERVER), "--port", str(port), "--loop", loop]
    argv += extra
    name = "floor" if loop == "asyncio" else f"floor-{loop}"
    if extra:
        name += "-" + "-".join(option.lstrip("-") for option in extra)
    return _spawn(name, argv, dict(os.environ), scratch, port, None, timeout)


def start_engine(
    scratch: Path,
    name: str,
    key: str,
    *,
    quiet: bool = False,
    workers: int = 1,
    prefix: Sequence[str] = (),
    timeout: float = 60,
) -> Server:
    """``baloot-server`` on free loopback ports.

    Default settings (log level ``info``, JSON lines to a file, metrics on), or ``quiet``: log
    level ``warning`` and metrics off. Every server of one run shares ``key``, so one
    prepared request is valid on all of them.
    """
    port = free_port()
    metrics_port = None if quiet else free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("BALOOT_")}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    if workers > 1 and not quiet:
        metrics_dir = scratch / f"{name}-metrics"
        metrics_dir.mkdir()
        env["PROMETHEUS_MULTIPROC_DIR"] = str(metrics_dir)
    env.update(
        BALOOT_HOST="127.0.0.1",
        BALOOT_PORT=str(port),
        BALOOT_WORKERS=str(workers),
        BALOOT_STATE_KEYS=key,
        BALOOT_LOG_FORMAT="json",
        BALOOT_LOG_LEVEL="warning" if quiet else "info",
        BALOOT_METRICS_ENABLED="false" if quiet else "true",
        BALOOT_GRACE_SECONDS="2",
    )
    if metrics_port is not None:
        env["BALOOT_METRICS_PORT"] = str(metrics_port)
    argv = [*prefix, sys.executable, "-m", "baloot_engine"]
    server = _spawn(name, argv, env, scratch, port, metrics_port, timeout)
    if workers > 1:
        deadline = time.monotonic() + 60
        while len(server.worker_pids()) < workers and time.monotonic() < deadline:
            time.sleep(0.2)
    return server


def handled(metrics_url: str) -> Counter[tuple[str, str]]:
    """``grpc_server_handled_total`` by (method path, code), every service included."""
    with urllib.request.urlopen(metrics_url, timeout=10) as reply:  # noqa: S310 - loopback
        text = reply.read().decode()
    counts: Counter[tuple[str, str]] = Counter()
    for family in text_string_to_metric_families(text):
        if family.name != "grpc_server_handled":
            continue
        for sample in family.samples:
            if sample.name.endswith("_total"):
                labels = sample.labels
                method = f"/{labels['grpc_service']}/{labels['grpc_method']}"
                counts[method, labels["grpc_code"]] += int(sample.value)
    return counts


# ---------------------------------------------------------------------------------------------
# One measured run


@dataclass(frozen=True)
class Sample:
    """One h2load run against one server: rate, CPU per call, what the server counted."""

    rate: float
    calls: int
    server_us_per_call: float
    client_us_per_call: float
    ok_counted: int | None  # OK replies counted by the server's metrics (None: metrics off)
    not_ok: dict[str, int]  # other codes counted for the method
    worker_cpu: tuple[float, ...] = ()  # CPU seconds of each worker (workers mode)

    @property
    def verified(self) -> bool:
        """No error reply, and the server counted at least the calls h2load saw succeed."""
        if self.not_ok:
            return False
        return self.ok_counted is None or self.ok_counted >= self.calls


def measure(
    h2load: str,
    server: Server,
    replay: Replay,
    body: Path,
    *,
    url: str | None = None,
    seconds: float | None = None,
    requests: int | None = None,
    connections: int = 8,
    streams: int = 4,
    also_cpu: HasCpu | None = None,
) -> tuple[Sample, float]:
    """Replay ``body`` with h2load; read the server's CPU and its status codes around the run.

    ``url`` sends the load elsewhere (a gateway in front of ``server``); ``also_cpu`` is a
    further process whose CPU time per call is returned second (the gateway), else 0.
    """
    metrics = server.metrics_url
    before = handled(metrics) if metrics else Counter[tuple[str, str]]()
    workers = server.worker_pids()
    worker_before = [cpu_seconds([pid]) for pid in workers]
    cpu_before = server.cpu_seconds()
    extra_before = also_cpu.cpu_seconds() if also_cpu else 0.0
    run = run_h2load(
        h2load,
        url or server.url(replay.method),
        body,
        seconds=seconds,
        requests=requests,
        connections=connections,
        streams=streams,
    )
    cpu = server.cpu_seconds() - cpu_before
    extra = (also_cpu.cpu_seconds() - extra_before) if also_cpu else 0.0
    worker_cpu = tuple(
        cpu_seconds([pid]) - b for pid, b in zip(workers, worker_before, strict=True)
    )
    ok_counted: int | None = None
    not_ok: dict[str, int] = {}
    if metrics:
        # A call is counted once its status is sent, so the last few may still be on their
        # way when h2load returns: read until every call h2load saw is counted (bounded).
        deadline = time.monotonic() + 5
        while True:
            after = handled(metrics)
            delta = {key: after[key] - before.get(key, 0) for key in after}
            counted = sum(n for (method, _), n in delta.items() if method == replay.method)
            if counted >= run.done or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        ok_counted = delta.get((replay.method, "OK"), 0)
        not_ok = {
            code: n
            for (method, code), n in delta.items()
            if method == replay.method and code != "OK" and n
        }
    if run.failed or run.errored or run.timeout or run.status_2xx != run.done:
        not_ok["h2load failed/errored/timeout/non-2xx"] = (
            run.failed + run.errored + run.timeout + run.done - run.status_2xx
        )
    calls = max(run.succeeded, 1)
    sample = Sample(
        rate=run.rate,
        calls=run.succeeded,
        server_us_per_call=cpu * 1e6 / calls,
        client_us_per_call=run.client_cpu * 1e6 / calls,
        ok_counted=ok_counted,
        not_ok=not_ok,
        worker_cpu=worker_cpu,
    )
    return sample, extra * 1e6 / calls
