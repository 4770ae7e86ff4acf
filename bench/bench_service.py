"""Benchmark of one server process: PlayCard against the health check, side by side.

Two modes, both by default (``make bench``):

``--mode python`` (latency). Starts ``baloot-server`` as a child process on a free localhost
port, prepares a pool of valid PlayCard requests (real mid-round tokens; re-sending one is
harmless, so every call does the full work: open, decode, apply, seal, views), then drives
each RPC for a fixed time at concurrency 1 and 32 with grpc.aio and prints RPC/s and p50/p99
latency, the ratio of PlayCard to the health check, and token sizes over whole matches. The
Python client costs about as much CPU per call as the server, so its RPC/s say little about
the server's own cost.

``--mode h2load`` (the server's CPU per call; ``make bench-h2load``). h2load replays real
requests against a bare grpc.aio no-op server, the service at default settings and the
service quiet, and the server's CPU time per call is read from /proc; then the load test's
match mix, and 1 against 2 workers. See ``h2load_mode.py``.

Prints numbers; asserts nothing about speed (the h2load mode exits 1 only when a replayed
call did not end OK).

    python bench/bench_service.py [--mode both] [--seconds N] [--concurrency 1 32] [--slices 5]
    python bench/bench_service.py --mode h2load --seconds 5 --rounds 3 [--parts cases,mix,scaling]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import grpc
import grpc.aio
import h2load_mode
from baloot_client.client import EngineClient, Match
from baloot_client.demo import choose
from grpc_health.v1 import health_pb2, health_pb2_grpc

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot.v1 import rules_pb2, types_pb2


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(port: int, key_dir: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "BALOOT_PORT": str(port),
        "BALOOT_HOST": "127.0.0.1",
        "BALOOT_METRICS_ENABLED": "false",
        "BALOOT_LOG_LEVEL": "warning",
        "BALOOT_STATE_KEY_FILE": str(key_dir / "state.key"),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "baloot_engine"], env=env, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 30
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            try:
                reply = stub.Check(health_pb2.HealthCheckRequest(), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return process
            except grpc.RpcError:
                time.sleep(0.1)
    process.kill()
    raise SystemExit("the server did not start")


Prepared = tuple[list[pb.PlayCardRequest], list[pb.PlayCardRequest], list[int]]


def prepare(target: str, matches: int, seed: int) -> Prepared:
    """Play random matches; keep each PlayCard request (seat and host credential variants)."""
    rng = random.Random(seed)
    client = EngineClient.connect(target)
    requests: list[pb.PlayCardRequest] = []
    host_requests: list[pb.PlayCardRequest] = []
    sizes_mid_round: list[int] = []
    for _ in range(matches):
        match: Match = client.create_match(rules_pb2.RuleSet(preset=rules_pb2.PRESET_SEEDS))
        view = match.views[0]
        while view.phase != types_pb2.PHASE_MATCH_OVER:
            if view.phase in (types_pb2.PHASE_AWAITING_DEAL, types_pb2.PHASE_ROUND_OVER):
                match.deal(view.dealer)
            else:
                seat = view.turn
                action = choose(match.views[seat], rng)
                if action.HasField("play") and not action.play.sawa:
                    request = pb.PlayCardRequest(
                        state=match.state,
                        match_id=match.match_id,
                        credential=match.seat_credentials[seat],
                        seat=seat,
                        play=action.play,
                    )
                    requests.append(request)
                    host_requests.append(pb.PlayCardRequest())
                    host_requests[-1].CopyFrom(request)
                    host_requests[-1].credential = match.host_credential
                    if len(view.last_trick.cards) and view.tricks_won[0] + view.tricks_won[1] == 4:
                        sizes_mid_round.append(len(match.state))
                match.act(seat, action)
            view = match.views[0]
    return requests, host_requests, sizes_mid_round


async def drive(
    call: Callable[[int], Awaitable[object]], seconds: float, concurrency: int
) -> tuple[int, float, list[float]]:
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds
    count = 0

    async def worker(index: int) -> None:
        nonlocal count
        i = index
        while time.perf_counter() < deadline:
            start = time.perf_counter()
            await call(i)
            latencies.append(time.perf_counter() - start)
            count += 1
            i += concurrency

    start = time.perf_counter()
    await asyncio.gather(*(worker(i) for i in range(concurrency)))
    return count, time.perf_counter() - start, latencies


def report(name: str, count: int, elapsed: float, latencies: list[float]) -> float:
    rate = count / elapsed
    ordered = sorted(latencies)
    p50 = statistics.median(ordered) * 1000
    p99 = ordered[int(len(ordered) * 0.99) - 1] * 1000
    print(f"  {name:<28} {rate:8,.0f} RPC/s   p50 {p50:6.2f} ms   p99 {p99:6.2f} ms")
    return rate


async def measure(
    target: str, prepared: Prepared, seconds: float, levels: list[int], rounds: int
) -> None:
    requests, host_requests, _ = prepared
    async with grpc.aio.insecure_channel(target) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        engine = pb_grpc.BalootEngineServiceStub(channel)
        check = health_pb2.HealthCheckRequest()

        async def trivial(_: int) -> object:
            return await health.Check(check)

        async def play(i: int) -> object:
            return await engine.PlayCard(requests[i % len(requests)])

        async def play_host(i: int) -> object:
            return await engine.PlayCard(host_requests[i % len(host_requests)])

        await drive(trivial, 1.0, 8)  # warm-up
        await drive(play, 1.0, 8)
        calls = {
            "health Check (trivial)": trivial,
            "PlayCard, seat credential": play,
            "PlayCard, host (4 views)": play_host,
        }
        for level in levels:
            # Interleave short slices of each RPC so that load from elsewhere on a shared
            # machine falls on all of them alike; report totals and the median slice ratio.
            totals = {name: [0, 0.0, []] for name in calls}
            ratios: dict[str, list[float]] = {name: [] for name in calls}
            for _ in range(rounds):
                rates = {}
                for name, call in calls.items():
                    count, elapsed, latencies = await drive(call, seconds / rounds, level)
                    total = totals[name]
                    total[0] += count  # type: ignore[operator]
                    total[1] += elapsed  # type: ignore[operator]
                    total[2].extend(latencies)  # type: ignore[attr-defined]
                    rates[name] = count / elapsed
                for name in calls:
                    ratios[name].append(rates[name] / rates["health Check (trivial)"])
            print(f"concurrency {level} ({rounds} interleaved slices of each):")
            for name in calls:
                count, elapsed, latencies = totals[name]
                report(name, count, elapsed, latencies)  # type: ignore[arg-type]
            seat = statistics.median(ratios["PlayCard, seat credential"])
            host = statistics.median(ratios["PlayCard, host (4 views)"])
            print(f"  PlayCard / trivial (median of slices): {seat:.0%} (seat), {host:.0%} (host)")


def python_mode(args: argparse.Namespace, seconds: float) -> None:
    """Latency with the Python grpc.aio client: PlayCard against the health check."""
    with tempfile.TemporaryDirectory() as key_dir:
        port = free_port()
        server = start_server(port, Path(key_dir))
        target = f"127.0.0.1:{port}"
        try:
            prepared = prepare(target, args.matches, args.seed)
            requests, _, mid_sizes = prepared
            sizes = [len(r.state) for r in requests]
            print(f"server pid {server.pid}, {len(requests)} distinct PlayCard requests")
            print(
                f"token bytes over {args.matches} matches: min {min(sizes)}, "
                f"median {statistics.median(sizes):.0f}, max {max(sizes)}; "
                f"after trick 4: median {statistics.median(mid_sizes):.0f}, max {max(mid_sizes)}"
            )
            asyncio.run(measure(target, prepared, seconds, args.concurrency, args.slices))
        finally:
            server.terminate()
            server.wait(timeout=30)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--mode",
        choices=("python", "h2load", "both"),
        default="both",
        help="python: latency with a Python client; h2load: server CPU per call; both (default)",
    )
    parser.add_argument(
        "--seconds",
        type=float,
        help="python mode: per RPC and concurrency (default 10); h2load mode: per run (default 5)",
    )
    group = parser.add_argument_group("python mode")
    group.add_argument("--concurrency", type=int, nargs="+", default=[1, 32])
    group.add_argument("--matches", type=int, default=6)
    group.add_argument("--seed", type=int, default=7)
    group.add_argument("--slices", type=int, default=5, help="interleaved slices per RPC")
    h2load_mode.add_arguments(parser)
    args = parser.parse_args(argv)
    status = 0
    if args.mode in ("python", "both"):
        print("== Python-client mode: latency ==", flush=True)
        python_mode(args, args.seconds or 10.0)
    if args.mode in ("h2load", "both"):
        print("== h2load mode: server CPU per call ==", flush=True)
        status = h2load_mode.main(args, args.seconds or 5.0)
    return status


if __name__ == "__main__":
    sys.exit(main())
