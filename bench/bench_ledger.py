"""What the match ledger costs per call: one server without it and one with it, side by side.

Starts a ``redis-server`` (Debian's package) on a free loopback port with the persistence the
ledger asks by default (an append-only file, ``appendfsync always``), and two
``baloot-server`` processes with the same key, one with ``BALOOT_LEDGER``. Each server gets
its own pool of matches paused in the middle of a round; a PlayCard request is prepared for
each (with the seat's credential) and sent over and over: without the ledger every call does
the full work (open, apply, seal, views); with it every call also runs the compare-and-set
script, one round trip to Redis (the card was played once while preparing, so each call is
that action again, recognised and its record refreshed: the same script, and the same write
to disk, as a first play). GetView is the read path
(one GET). The two servers are measured in alternating slices at concurrency 1, so a
noisy machine weighs on both alike, and the medians are printed: wall time per call as the
client sees it, CPU time per call of the server process and of redis-server. Prints
numbers; asserts nothing about speed.

    python bench/bench_ledger.py [--seconds 3] [--slices 5] [--matches 60]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
from baloot_client.client import EngineClient
from baloot_client.demo import choose
from grpc_health.v1 import health_pb2, health_pb2_grpc

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import rules_pb2, types_pb2

TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    text = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def start_redis(directory: Path) -> tuple[subprocess.Popen[bytes], int]:
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("redis-server is not installed (apt-get install redis-server)")
    port = free_port()
    argv = [binary, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly"]
    argv += ["yes", "--appendfsync", "always"]
    argv += ["--dir", str(directory), "--logfile", str(directory / "redis.log")]
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL)  # noqa: S603 - fixed arguments
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):
                    return process, port
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise SystemExit("redis-server did not start")


def start_server(key: str, extra: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("BALOOT_")}
    env.update(
        BALOOT_PORT=str(port),
        BALOOT_HOST="127.0.0.1",
        BALOOT_METRICS_ENABLED="false",
        BALOOT_LOG_LEVEL="warning",
        BALOOT_STATE_KEYS=key,
        **extra,
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "baloot_engine"], env=env, stderr=subprocess.DEVNULL
    )
    target = f"127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    with grpc.insecure_channel(target) as channel:
        stub: Any = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            try:
                reply = stub.Check(health_pb2.HealthCheckRequest(), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return process, target
            except grpc.RpcError:
                time.sleep(0.1)
    process.kill()
    raise SystemExit("the server did not start")


Prepared = tuple[list[pb.PlayCardRequest], list[pb.GetViewRequest]]


def prepare(client: EngineClient, matches: int, seed: int) -> Prepared:
    """Matches paused mid-round; for each, the next card play and a view of the latest state."""
    rng = random.Random(seed)
    plays: list[pb.PlayCardRequest] = []
    views: list[pb.GetViewRequest] = []
    while len(plays) < matches:
        match = client.create_match(rules_pb2.RuleSet(preset=rules_pb2.PRESET_SEEDS))
        view = match.views[0]
        target_tricks = rng.randrange(1, 7)
        while view.phase != types_pb2.PHASE_MATCH_OVER:
            if view.phase in (types_pb2.PHASE_AWAITING_DEAL, types_pb2.PHASE_ROUND_OVER):
                match.deal(view.dealer)
            else:
                seat = view.turn
                action = choose(match.views[seat], rng)
                playing = view.phase == types_pb2.PHASE_PLAYING
                if (
                    playing
                    and sum(view.tricks_won) >= target_tricks
                    and action.HasField("play")
                    and not action.play.sawa
                ):
                    common = {
                        "match_id": match.match_id,
                        "credential": match.seat_credentials[seat],
                    }
                    plays.append(
                        pb.PlayCardRequest(seat=seat, play=action.play, state=match.state, **common)
                    )
                    # The card is played once here; the benchmark sends it again (a retry).
                    match.act(seat, action)
                    views.append(pb.GetViewRequest(seat=seat, state=match.state, **common))
                    break
                match.act(seat, action)
            view = match.views[0]
    return plays, views


def run(call: Callable[[int], object], count: int, seconds: float) -> tuple[int, float]:
    """Call ``call(i)`` back to back for ``seconds``; return the calls made and the time."""
    start = time.perf_counter()
    deadline = start + seconds
    made = 0
    while time.perf_counter() < deadline:
        call(made % count)
        made += 1
    return made, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per RPC, slice and server")
    parser.add_argument("--slices", type=int, default=5)
    parser.add_argument("--matches", type=int, default=60)
    args = parser.parse_args()

    key = "c3" * 32
    with tempfile.TemporaryDirectory(prefix="baloot-bench-ledger-") as tmp:
        redis, redis_port = start_redis(Path(tmp))
        servers = {
            "without": start_server(key, {}),
            "with": start_server(key, {"BALOOT_LEDGER": f"redis://127.0.0.1:{redis_port}/0"}),
        }
        channels = {name: grpc.insecure_channel(target) for name, (_, target) in servers.items()}
        try:
            clients = {name: EngineClient(channel) for name, channel in channels.items()}
            pools = {
                name: prepare(client, args.matches, seed)
                for seed, (name, client) in enumerate(clients.items())
            }
            # name -> rpc -> (wall µs, server CPU µs, redis CPU µs) per slice
            results: dict[str, dict[str, list[tuple[float, float, float]]]] = {
                name: {"PlayCard": [], "GetView": []} for name in servers
            }
            for _ in range(args.slices):
                for name, (process, _) in servers.items():
                    stub = clients[name].stub
                    plays, views = pools[name]
                    for rpc, call in (
                        ("PlayCard", lambda i, s=stub, r=plays: s.PlayCard(r[i], timeout=10)),
                        ("GetView", lambda i, s=stub, r=views: s.GetView(r[i], timeout=10)),
                    ):
                        server_cpu, redis_cpu = cpu_seconds(process.pid), cpu_seconds(redis.pid)
                        made, elapsed = run(call, len(plays), args.seconds)
                        server_cpu = cpu_seconds(process.pid) - server_cpu
                        redis_cpu = cpu_seconds(redis.pid) - redis_cpu
                        results[name][rpc].append(
                            (elapsed / made * 1e6, server_cpu / made * 1e6, redis_cpu / made * 1e6)
                        )
            print(
                f"Match ledger cost per call, concurrency 1, medians of {args.slices} slices "
                f"of {args.seconds:g} s ({os.cpu_count()} CPUs; client, server and redis-server "
                "share them)"
            )
            print(
                f"  {'RPC':<9} {'':<16} {'without':>9} {'with':>9} {'difference':>11}"
                "   (µs per call)"
            )
            for rpc in ("PlayCard", "GetView"):
                for index, what in enumerate(("wall (client)", "server CPU", "redis-server CPU")):
                    without = statistics.median(r[index] for r in results["without"][rpc])
                    with_ledger = statistics.median(r[index] for r in results["with"][rpc])
                    print(
                        f"  {rpc if index == 0 else '':<9} {what:<16} {without:9.0f} "
                        f"{with_ledger:9.0f} {with_ledger - without:+11.0f}"
                    )
        finally:
            for channel in channels.values():
                channel.close()
            for process, _ in servers.values():
                process.terminate()
                process.wait(10)
            redis.terminate()
            redis.wait(10)


if __name__ == "__main__":
    main()
