"""Scaling measurements: direct and through Envoy, with 1 and 2 worker processes.

    python -m loadtest.scaling [--duration 30] [--concurrency 32] [--rounds 3]

For each configuration, a fresh service (and gateway) on free localhost ports, a short
warm-up, then a load run of ``--duration`` seconds (matches in flight are cut at the end, so
the whole window runs at full concurrency). The configurations are measured in turn, ``--rounds``
times, and the median round is reported, so that other work on the machine falls on all of
them alike. Besides RPC/s and latencies it reads the CPU time used by the service processes,
the gateway and this client from /proc: CPU milliseconds per call is what says how much one
core sustains, whatever else the machine runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from loadtest.driver import LoadConfig, run_load
from loadtest.stack import Gateway, Service, new_state_key, start_gateway, start_service

CONFIGS = ("direct-1", "direct-2", "envoy-1", "envoy-2")


@dataclass
class Measure:
    """One configuration's run."""

    config: str
    rpc_per_second: float
    calls: int
    errors: int
    p50_ms: float
    p95_ms: float
    p99_ms: float
    max_ms: float
    service_cores: float  # CPU seconds of the service per second of the run
    service_ms_per_call: float
    gateway_ms_per_call: float
    client_ms_per_call: float
    calls_per_worker: list[int]


def _client_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(name: str, duration: float, concurrency: int, log_dir: Path) -> Measure:
    """Start the configuration ``name`` (e.g. envoy-2), load it, stop it."""
    mode, workers = name.split("-")
    service: Service = start_service(log_dir, workers=int(workers), key=new_state_key(), name=name)
    gateway: Gateway | None = None
    try:
        target = service.target
        if mode == "envoy":
            gateway = start_gateway(log_dir, [service.target], name=f"{name}-gateway")
            target = gateway.target
        base = LoadConfig(
            target=target,
            matches=1_000_000,
            duration=3.0,
            drain=0.0,
            concurrency=concurrency,
            connections=8,
        )
        asyncio.run(run_load(base))  # warm-up: connections, caches, Envoy's pools
        before = (
            service.child.cpu_seconds(),
            gateway.child.cpu_seconds() if gateway else 0.0,
            _client_cpu(),
        )
        before_calls = service.calls_by_process()
        config = LoadConfig(**{**asdict(base), "duration": duration})
        result = asyncio.run(run_load(config))
        used = (
            service.child.cpu_seconds() - before[0],
            (gateway.child.cpu_seconds() - before[1]) if gateway else 0.0,
            _client_cpu() - before[2],
        )
        after_calls = service.calls_by_process()
    finally:
        if gateway is not None:
            gateway.child.stop()
        service.child.stop()
    calls = max(result.calls, 1)
    latency = result.latency_ms["ALL"]
    return Measure(
        config=name,
        rpc_per_second=round(result.rpc_per_second, 1),
        calls=result.calls,
        errors=sum(result.errors.values()),
        p50_ms=latency["p50"],
        p95_ms=latency["p95"],
        p99_ms=latency["p99"],
        max_ms=latency["max"],
        service_cores=round(used[0] / result.elapsed, 2),
        service_ms_per_call=round(used[0] * 1000 / calls, 3),
        gateway_ms_per_call=round(used[1] * 1000 / calls, 3),
        client_ms_per_call=round(used[2] * 1000 / calls, 3),
        calls_per_worker=[
            after_calls.get(pid, 0) - before_calls.get(pid, 0) for pid in sorted(after_calls)
        ],
    )


def table(rows: Sequence[Measure]) -> str:
    """The results as a Markdown table."""
    lines = [
        (
            "| configuration | RPC/s | p50 ms | p95 ms | p99 ms | max ms | errors | service CPU "
            "(cores) | service CPU ms/call | Envoy CPU ms/call | client CPU ms/call |"
        ),
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row.config} | {row.rpc_per_second:,.0f} | {row.p50_ms:.2f} | {row.p95_ms:.2f} "
            f"| {row.p99_ms:.2f} | {row.max_ms:.2f} | {row.errors} | {row.service_cores:.2f} "
            f"| {row.service_ms_per_call:.3f} | {row.gateway_ms_per_call:.3f} "
            f"| {row.client_ms_per_call:.3f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Measure every configuration ``--rounds`` times; print the median rounds."""
    parser = argparse.ArgumentParser(prog="python -m loadtest.scaling")
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--json", type=Path, help="also write every run here")
    args = parser.parse_args(argv)
    names = args.configs.split(",")
    runs: dict[str, list[Measure]] = {name: [] for name in names}
    print(
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; "
        f"{args.rounds} round(s) of {args.duration:.0f} s per configuration, "
        f"concurrency {args.concurrency}",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="baloot-scaling-") as scratch:
        for round_number in range(args.rounds):
            for name in names:
                row = measure(name, args.duration, args.concurrency, Path(scratch))
                runs[name].append(row)
                print(
                    f"round {round_number + 1} {name}: {row.rpc_per_second:,.0f} RPC/s, "
                    f"p50 {row.p50_ms:.2f} ms, p99 {row.p99_ms:.2f} ms, service "
                    f"{row.service_ms_per_call:.3f} ms CPU/call on {row.service_cores:.2f} cores, "
                    f"per worker {row.calls_per_worker}, load average "
                    f"{os.getloadavg()[0]:.2f}",
                    flush=True,
                )
                time.sleep(1)
    medians = []
    for name in names:
        ordered = sorted(runs[name], key=lambda m: m.rpc_per_second)
        medians.append(ordered[len(ordered) // 2])
    print()
    print(table(medians))
    by_name = {m.config: m for m in medians}
    for mode in ("direct", "envoy"):
        one, two = by_name.get(f"{mode}-1"), by_name.get(f"{mode}-2")
        if one and two:
            print(f"{mode}: 2 workers / 1 worker = {two.rpc_per_second / one.rpc_per_second:.2f}x")
    for workers in ("1", "2"):
        direct, envoy = by_name.get(f"direct-{workers}"), by_name.get(f"envoy-{workers}")
        if direct and envoy:
            ratio = envoy.rpc_per_second / direct.rpc_per_second
            print(
                f"{workers} worker(s): through Envoy {ratio:.2f}x "
                f"the direct RPC/s, p50 {envoy.p50_ms - direct.p50_ms:+.2f} ms, "
                f"Envoy CPU {envoy.gateway_ms_per_call:.3f} ms/call"
            )
    if args.json is not None:
        args.json.write_text(
            json.dumps({k: [asdict(m) for m in v] for k, v in runs.items()}, indent=2)
        )
    return 0 if all(m.errors == 0 for rows in runs.values() for m in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
