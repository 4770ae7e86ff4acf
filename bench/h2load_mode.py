"""``bench_service.py --mode h2load``: the server's own cost per call, side by side in one run.

Three parts, each measured in ``--rounds`` rounds that alternate their cases (the order
rotates from round to round), so that what else the machine runs falls on every case alike;
each figure is the median over the rounds, and each ratio the median of the rounds' ratios.

``cases``
    One server of each kind, started once and kept for the whole run: the bare grpc.aio
    no-op server of ``noop_server.py`` (the floor), ``baloot-server`` at its default settings
    (log level info, one JSON line per call to a file, metrics on), and ``baloot-server``
    quiet (log level warning, metrics off). h2load replays one real request of each kind (see
    :func:`h2load_replay.prepare_replays`) for a fixed time at fixed concurrency; the server's
    CPU time per call is read from /proc. Every replayed request is first sent once with grpc
    to every server and must end OK; after each run against a server with metrics, the codes
    its ``grpc_server_handled_total`` counted for the method must all be OK.
``mix``
    The load test's match mix (``loadtest/driver.py``: complete matches, host credential,
    the reads a client makes) against the same default and quiet servers, for a fixed time:
    the service's CPU time per call of a real mix.
``scaling``
    PlayCard (seat) against 1 and 2 worker processes on one port, straight and through Envoy
    (``scripts/gateway.py run``, one Envoy worker thread), default settings.

h2load always runs with one thread (``-t 1``): on a 2-core machine it shares the cores with
the server, and it reports its own CPU per call so that its share can be accounted for.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import resource
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import h2load_replay as h2
from loadtest.driver import LoadConfig, run_load
from loadtest.stack import Gateway, new_state_key, start_gateway

RPCS = ("health Check", "PlayCard seat", "PlayCard host", "DealRound", "PlaceBid", "GetView")
ASYNCIO_FLOOR = "bare grpc.aio no-op"
# The service runs on uvloop's event loop when it is installed: then the floor is the same
# no-op server on that loop (the fair comparison), and the one on asyncio's loop is shown too.
UVLOOP_FLOOR = "bare no-op on uvloop"
# The same, parsing the health request and serializing its reply (noop_server.py --parse).
PARSING_FLOOR = "no-op on uvloop, parsing"
HAS_UVLOOP = importlib.util.find_spec("uvloop") is not None
FLOOR = UVLOOP_FLOOR if HAS_UVLOOP else ASYNCIO_FLOOR
FLOORS = (ASYNCIO_FLOOR, UVLOOP_FLOOR, PARSING_FLOOR)
PARTS = ("cases", "mix", "scaling")
SCALING = ("1 worker, one port", "2 workers, one port", "1 worker, Envoy", "2 workers, Envoy")

# The targets of the work on the service's cost, reported beside the measured figures.
TARGET_PLAYCARD_OVER_HEALTH = 1.3
TARGET_HEALTH_OVER_FLOOR = 1.15
TARGET_TELEMETRY_SHARE = 0.10
TARGET_MIX_US = 400.0
TARGET_WORKERS_GAIN = 1.8


@dataclass(frozen=True)
class Options:
    """How long and how hard each run is."""

    seconds: float | None
    requests: int | None
    rounds: int
    connections: int
    streams: int
    mix_seconds: float
    parts: tuple[str, ...]
    scaling_connections: int = 16
    scaling_streams: int = 2


@dataclass
class Record:
    """Every sample of one case, in round order."""

    samples: list[h2.Sample] = field(default_factory=list)
    extra_us: list[float] = field(default_factory=list)  # the gateway's CPU per call
    machine_us: list[float] = field(default_factory=list)  # every process's CPU per call
    machine_cores: list[float] = field(default_factory=list)  # cores busy over the run

    def median(self, read: Callable[[h2.Sample], float]) -> float:
        """The median over the rounds of one figure."""
        return statistics.median(read(s) for s in self.samples)


def _rotated(items: Sequence[str], turn: int) -> list[str]:
    shift = turn % len(items)
    return [*items[shift:], *items[:shift]]


def _median_ratio(top: Record, bottom: Record) -> float:
    """The median over the rounds of top's CPU per call over bottom's, round by round."""
    return statistics.median(
        a.server_us_per_call / b.server_us_per_call
        for a, b in zip(top.samples, bottom.samples, strict=True)
    )


_TICKS = os.sysconf("SC_CLK_TCK")


def machine_busy_seconds() -> float:
    """CPU time the whole machine spent busy so far (every core, every process), /proc/stat."""
    first = Path("/proc/stat").read_text(encoding="ascii").splitlines()[0]
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, first.split()[1:9])
    return (user + nice + system + irq + softirq + steal) / _TICKS


def _verdict(value: float, target: float, *, at_most: bool) -> str:
    met = value <= target if at_most else value >= target
    return "met" if met else "not met"


class Bench:
    """One run of the h2load mode: the servers, the replays, the records."""

    def __init__(self, options: Options, scratch: Path, h2load: str) -> None:
        self.options = options
        self.scratch = scratch
        self.h2load = h2load
        self.key = new_state_key()
        self.servers: dict[str, h2.Server] = {}
        self.gateways: dict[str, Gateway] = {}
        self.replays: dict[str, h2.Replay] = {}
        self.bodies: dict[str, Path] = {}
        self.problems: list[str] = []
        self.results: dict[str, object] = {}

    # -- set-up and tear-down ------------------------------------------------------------------

    def start(self) -> None:
        """Start the floor, the default and the quiet servers; prepare and check the replays."""
        self.servers["floor"] = h2.start_floor(self.scratch)
        if HAS_UVLOOP:
            self.servers["floor-uvloop"] = h2.start_floor(self.scratch, "uvloop")
            self.servers["floor-parsing"] = h2.start_floor(
                self.scratch, "uvloop", extra=("--parse",)
            )
        self.servers["default"] = h2.start_engine(self.scratch, "default", self.key)
        self.servers["quiet"] = h2.start_engine(self.scratch, "quiet", self.key, quiet=True)
        self.replays = {
            "health Check": h2.health_replay(),
            **h2.prepare_replays(self.servers["default"].target),
        }
        for name, replay in self.replays.items():
            self.bodies[name] = replay.write_body(self.scratch)
            for server in ("default", "quiet"):
                h2.check_replay(self.servers[server].target, replay)
        for floor in ("floor", "floor-uvloop", "floor-parsing"):
            if floor in self.servers:
                h2.check_replay(self.servers[floor].target, self.replays["health Check"])
        sizes = ", ".join(f"{name} {len(r.message)}" for name, r in self.replays.items())
        print(f"replayed requests (bytes): {sizes}; each sent once to every server: OK")

    def stop(self) -> None:
        """Stop every process this run started."""
        for gateway in self.gateways.values():
            gateway.child.stop()
        for server in self.servers.values():
            server.stop()

    # -- one run ---------------------------------------------------------------------------------

    def run(
        self,
        server: str,
        rpc: str,
        *,
        url: str | None = None,
        gateway: str | None = None,
        machine: Record | None = None,
        load: tuple[int, int] | None = None,
    ) -> tuple[h2.Sample, float]:
        """Replay ``rpc`` against ``server`` once (through ``url`` when a gateway is used).

        ``load`` is h2load's (connections, streams) when not the options'; the machine's busy
        CPU (every process) per call and in cores is added to ``machine`` when given.
        """
        options = self.options
        connections, streams = load or (options.connections, options.streams)
        busy, wall = machine_busy_seconds(), time.monotonic()
        sample, extra = h2.measure(
            self.h2load,
            self.servers[server],
            self.replays[rpc],
            self.bodies[rpc],
            url=url,
            seconds=options.seconds,
            requests=options.requests,
            connections=connections,
            streams=streams,
            also_cpu=self.gateways[gateway].child if gateway else None,
        )
        if machine is not None:
            busy, wall = machine_busy_seconds() - busy, time.monotonic() - wall
            machine.machine_us.append(busy * 1e6 / max(sample.calls, 1))
            machine.machine_cores.append(busy / wall)
        if not sample.verified:
            self.problems.append(
                f"{rpc} on {server}: {sample.calls} calls, server counted OK "
                f"{sample.ok_counted}, other codes {sample.not_ok}"
            )
        return sample, extra

    def warm_up(
        self, server: str, rpc: str, url: str | None = None, load: tuple[int, int] | None = None
    ) -> None:
        """A short run first: connections, caches, the allocator's pools."""
        connections, streams = load or (self.options.connections, self.options.streams)
        h2.run_h2load(
            self.h2load,
            url or self.servers[server].url(self.replays[rpc].method),
            self.bodies[rpc],
            requests=300,
            connections=connections,
            streams=streams,
        )

    # -- the three parts -------------------------------------------------------------------------

    def cases(self) -> None:
        """Every RPC at default and quiet settings, and the floor, alternated in each round."""
        cases = {ASYNCIO_FLOOR: ("floor", "health Check")}
        if HAS_UVLOOP:
            cases[UVLOOP_FLOOR] = ("floor-uvloop", "health Check")
            cases[PARSING_FLOOR] = ("floor-parsing", "health Check")
        for settings in ("default", "quiet"):
            for rpc in RPCS:
                cases[f"{rpc} [{settings}]"] = (settings, rpc)
        for server, rpc in cases.values():
            self.warm_up(server, rpc)
        records = {name: Record() for name in cases}
        for turn in range(self.options.rounds):
            for name in _rotated(list(cases), turn):
                sample, _ = self.run(*cases[name])
                records[name].samples.append(sample)
            print(
                f"cases: round {turn + 1} of {self.options.rounds} done, "
                f"load average {os.getloadavg()[0]:.2f}",
                flush=True,
            )
        self._report_cases(records)

    def _report_cases(self, records: dict[str, Record]) -> None:
        floor = records[FLOOR]
        print()
        print(
            f"h2load -t 1 -c {self.options.connections} -m {self.options.streams}, "
            f"{self._length()} per run, median of {self.options.rounds} round(s):"
        )
        print(
            "  (x health: server CPU per call over the health check's at the same settings; "
            f"x floor: over the {FLOOR} server's, the service's event loop)"
        )
        header = (
            f"  {'case':<30}{'RPC/s':>9}{'server CPU':>12}{'x health':>10}{'x floor':>9}"
            f"{'h2load CPU':>12}  replies"
        )
        print(header)
        print(f"  {'':<30}{'':>9}{'µs/call':>12}{'':>10}{'':>9}{'µs/call':>12}")
        table: dict[str, dict[str, float]] = {}
        for name, record in records.items():
            settings = "quiet" if name.endswith("[quiet]") else "default"
            health = records.get(f"health Check [{settings}]")
            is_floor = name in FLOORS
            over_health = _median_ratio(record, health) if health and not is_floor else None
            over_floor = _median_ratio(record, floor)
            rate = record.median(lambda s: s.rate)
            cpu = record.median(lambda s: s.server_us_per_call)
            client = record.median(lambda s: s.client_us_per_call)
            checked = [s.ok_counted for s in record.samples]
            if all(c is None for c in checked):
                replies = "OK (checked before the run)"
            else:
                bad = sum(sum(s.not_ok.values()) for s in record.samples)
                replies = f"{sum(c or 0 for c in checked):,} OK, {bad} other (server metrics)"
            shown = "—" if over_health is None else f"{over_health:.2f}"
            print(
                f"  {name:<30}{rate:>9,.0f}{cpu:>12,.0f}{shown:>10}{over_floor:>9.2f}"
                f"{client:>12,.0f}  {replies}"
            )
            table[name] = {
                "rpc_per_second": round(rate, 1),
                "server_us_per_call": round(cpu, 1),
                "over_health": round(over_health, 3) if over_health is not None else -1,
                "over_floor": round(over_floor, 3),
                "h2load_us_per_call": round(client, 1),
            }
        print()
        print("logging + metrics, share of the call's server CPU = (default - quiet) / default:")
        shares: dict[str, float] = {}
        for rpc in RPCS:
            default, quiet = records[f"{rpc} [default]"], records[f"{rpc} [quiet]"]
            share = statistics.median(
                (d.server_us_per_call - q.server_us_per_call) / d.server_us_per_call
                for d, q in zip(default.samples, quiet.samples, strict=True)
            )
            saved = statistics.median(
                d.server_us_per_call - q.server_us_per_call
                for d, q in zip(default.samples, quiet.samples, strict=True)
            )
            shares[rpc] = share
            print(f"  {rpc:<16} {share:6.1%}  ({saved:,.0f} µs per call)")
        playcard = _median_ratio(
            records["PlayCard seat [default]"], records["health Check [default]"]
        )
        health = records["health Check [default]"]
        self.results["cases"] = table
        self.results["telemetry_share"] = shares
        targets = {
            "playcard_seat_over_health": playcard,
            "health_over_floor": _median_ratio(health, floor),
            "telemetry_share_of_playcard": shares["PlayCard seat"],
            "health_over_asyncio_floor": _median_ratio(health, records[ASYNCIO_FLOOR]),
        }
        if PARSING_FLOOR in records:
            targets["health_over_parsing_floor"] = _median_ratio(health, records[PARSING_FLOOR])
        self.results["targets"] = targets

    def mix(self) -> None:
        """The load test's match mix against the default and the quiet server."""
        records: dict[str, list[tuple[float, float, float, int]]] = {"default": [], "quiet": []}
        for turn in range(self.options.rounds):
            for settings in _rotated(list(records), turn):
                server = self.servers[settings]
                metrics = (server.metrics_url,) if server.metrics_url else ()
                config = LoadConfig(
                    target=server.target,
                    matches=1_000_000,
                    duration=self.options.mix_seconds,
                    drain=0.0,
                    concurrency=32,
                    connections=8,
                    metrics_urls=metrics,
                    seed=turn + 1,
                )
                before, client_before = server.cpu_seconds(), _own_cpu()
                result = asyncio.run(run_load(config))
                used, client = server.cpu_seconds() - before, _own_cpu() - client_before
                sent = max(result.attempts, 1)
                if result.errors or result.cross_check == "mismatch":
                    self.problems.append(
                        f"match mix on {settings}: errors {result.errors}, "
                        f"cross-check {result.cross_check}"
                    )
                records[settings].append(
                    (used * 1e6 / sent, client * 1e6 / sent, result.rpc_per_second, result.calls)
                )
        print()
        print(
            "the load test's match mix (32 players over 8 connections, "
            f"{self.options.mix_seconds:g} s per run, Python grpc.aio client on the same cores), "
            f"median of {self.options.rounds} round(s):"
        )
        figures = {}
        for settings, rows in records.items():
            service = statistics.median(r[0] for r in rows)
            client = statistics.median(r[1] for r in rows)
            rate = statistics.median(r[2] for r in rows)
            calls = sum(r[3] for r in rows)
            figures[settings] = service
            print(
                f"  {settings:<8} service CPU {service:6,.0f} µs/call, client CPU "
                f"{client:6,.0f} µs/call, {rate:6,.0f} RPC/s ({calls:,} calls in all)"
            )
        self.results["mix_us_per_call"] = figures

    def scaling(self) -> None:
        """PlayCard (seat) on 1 and 2 workers, straight to the port and through Envoy."""
        for workers in (1, 2):
            name = f"workers-{workers}"
            self.servers[name] = h2.start_engine(self.scratch, name, self.key, workers=workers)
            self.gateways[name] = start_gateway(
                self.scratch, [self.servers[name].target], name=f"envoy-{workers}"
            )
            h2.check_replay(self.servers[name].target, self.replays["PlayCard seat"])
            h2.check_replay(self.gateways[name].target, self.replays["PlayCard seat"])
        method = self.replays["PlayCard seat"].method
        load = (self.options.scaling_connections, self.options.scaling_streams)
        configs: dict[str, tuple[str, str | None, str | None]] = {}
        for workers in (1, 2):
            name = f"workers-{workers}"
            gateway_url = f"http://{self.gateways[name].target}{method}"
            label = "1 worker" if workers == 1 else "2 workers"
            configs[f"{label}, one port"] = (name, None, None)
            configs[f"{label}, Envoy"] = (name, gateway_url, name)
        for server, url, _ in configs.values():
            self.warm_up(server, "PlayCard seat", url, load)
        records = {name: Record() for name in configs}
        for turn in range(self.options.rounds):
            for name in _rotated(list(configs), turn):
                server, url, gateway = configs[name]
                record = records[name]
                sample, extra = self.run(
                    server,
                    "PlayCard seat",
                    url=url,
                    gateway=gateway,
                    machine=record,
                    load=load,
                )
                record.samples.append(sample)
                record.extra_us.append(extra)
            print(f"scaling: round {turn + 1} of {self.options.rounds} done", flush=True)
        self._report_scaling(records, load)

    def _report_scaling(self, records: dict[str, Record], load: tuple[int, int]) -> None:
        print()
        print(
            f"scaling, PlayCard (seat) at default settings, h2load -t 1 -c {load[0]} -m "
            f"{load[1]} (h2load shares the {os.cpu_count()} cores), median of "
            f"{self.options.rounds} round(s); CPU in µs per call:"
        )
        print(
            f"  {'configuration':<22}{'RPC/s':>8}{'service':>9}{'Envoy':>7}{'h2load':>8}"
            f"{'other':>7}{'cores busy':>12}  split over the workers (each round)"
        )
        table = {}
        for name, record in records.items():
            rate = record.median(lambda s: s.rate)
            cpu = record.median(lambda s: s.server_us_per_call)
            client = record.median(lambda s: s.client_us_per_call)
            envoy = statistics.median(record.extra_us)
            machine = statistics.median(record.machine_us)
            # What the machine spent beside the service, Envoy and h2load: its other jobs.
            other = max(0.0, machine - cpu - client - (envoy if "Envoy" in name else 0.0))
            busy = statistics.median(record.machine_cores)
            splits = [
                "/".join(f"{c / sum(s.worker_cpu):.0%}" for c in s.worker_cpu)
                for s in record.samples
                if len(s.worker_cpu) > 1 and sum(s.worker_cpu) > 0
            ]
            envoy_shown = f"{envoy:,.0f}" if "Envoy" in name else "—"
            print(
                f"  {name:<22}{rate:>8,.0f}{cpu:>9,.0f}{envoy_shown:>7}{client:>8,.0f}"
                f"{other:>7,.0f}{busy:>12.2f}  {', '.join(splits)}"
            )
            table[name] = {
                "rpc_per_second": rate,
                "service_us_per_call": cpu,
                "envoy_us": envoy,
                "h2load_us": client,
                "other_us": other,
                "cores_busy": busy,
                "worker_split": splits,
            }
        gains, normalized, ceilings = {}, {}, {}
        cores = os.cpu_count() or 1
        for via in ("one port", "Envoy"):
            one, two = records[f"1 worker, {via}"], records[f"2 workers, {via}"]
            gains[via] = statistics.median(
                b.rate / a.rate for a, b in zip(one.samples, two.samples, strict=True)
            )
            # Two workers on two cores of their own: twice what one core gives at the CPU per
            # call measured with two workers (a figure derived from CPU time, not a rate).
            normalized[via] = statistics.median(
                2 * a.server_us_per_call / b.server_us_per_call
                for a, b in zip(one.samples, two.samples, strict=True)
            )
            # The most two workers could reach here: every core busy with the service, Envoy
            # and h2load at their CPU per call, against one worker's measured rate.
            ceilings[via] = statistics.median(
                cores * 1e6 / (b.server_us_per_call + b.client_us_per_call + extra) / a.rate
                for a, b, extra in zip(one.samples, two.samples, two.extra_us, strict=True)
            )
            print(
                f"  2 workers / 1 worker, {via}: {gains[via]:.2f}x RPC/s (median of rounds); "
                f"per service CPU: {normalized[via]:.2f}x (2 cores of their own); "
                f"ceiling with h2load{' and Envoy' if via == 'Envoy' else ''} on these "
                f"{cores} cores: {ceilings[via]:.2f}x"
            )
        self.results["scaling"] = table
        self.results["workers_gain"] = gains
        self.results["workers_gain_per_service_cpu"] = normalized
        self.results["workers_gain_ceiling_here"] = ceilings

    # -- the summary -----------------------------------------------------------------------------

    def report_targets(self) -> None:
        """The targets side by side with what this run measured."""
        print()
        print("targets (measured in this run):")
        targets = self.results.get("targets")
        if isinstance(targets, dict):
            value = targets["playcard_seat_over_health"]
            print(
                f"  PlayCard (seat) server CPU / health check, default settings: {value:.2f}x "
                f"(target ≤ {TARGET_PLAYCARD_OVER_HEALTH}x: "
                f"{_verdict(value, TARGET_PLAYCARD_OVER_HEALTH, at_most=True)})"
            )
            value = targets["health_over_floor"]
            print(
                f"  health check / {FLOOR} (the service's event loop): {value:.2f}x "
                f"(target ≤ {TARGET_HEALTH_OVER_FLOOR}x: "
                f"{_verdict(value, TARGET_HEALTH_OVER_FLOOR, at_most=True)})"
            )
            if HAS_UVLOOP:
                print(
                    f"  health check / {ASYNCIO_FLOOR} (asyncio's loop): "
                    f"{targets['health_over_asyncio_floor']:.2f}x; / {PARSING_FLOOR}: "
                    f"{targets['health_over_parsing_floor']:.2f}x"
                )
            value = targets["telemetry_share_of_playcard"]
            print(
                f"  logging + metrics, share of a PlayCard's server CPU: {value:.1%} "
                f"(target ≤ {TARGET_TELEMETRY_SHARE:.0%}: "
                f"{_verdict(value, TARGET_TELEMETRY_SHARE, at_most=True)})"
            )
        mix = self.results.get("mix_us_per_call")
        if isinstance(mix, dict):
            value = mix["default"]
            print(
                f"  the match mix, service CPU per call, default settings: {value:,.0f} µs "
                f"(target ≤ {TARGET_MIX_US:.0f} µs: "
                f"{_verdict(value, TARGET_MIX_US, at_most=True)})"
            )
        gains = self.results.get("workers_gain")
        normalized = self.results.get("workers_gain_per_service_cpu")
        ceilings = self.results.get("workers_gain_ceiling_here")
        if isinstance(gains, dict) and isinstance(normalized, dict) and isinstance(ceilings, dict):
            for via, value in gains.items():
                print(
                    f"  2 workers / 1 worker under h2load, {via}: {value:.2f}x "
                    f"(target ≥ {TARGET_WORKERS_GAIN}x: "
                    f"{_verdict(value, TARGET_WORKERS_GAIN, at_most=False)}; per service CPU "
                    f"{normalized[via]:.2f}x, the most these cores allow beside h2load: "
                    f"{ceilings[via]:.2f}x)"
                )

    def _length(self) -> str:
        if self.options.requests is not None:
            return f"{self.options.requests} requests"
        return f"{self.options.seconds:g} s"


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the h2load mode."""
    group = parser.add_argument_group("h2load mode")
    group.add_argument("--rounds", type=int, default=3, help="rounds of every case (median)")
    group.add_argument("--requests", type=int, help="requests per run instead of --seconds")
    group.add_argument("--connections", type=int, default=8, help="h2load -c")
    group.add_argument("--streams", type=int, default=4, help="h2load -m (per connection)")
    group.add_argument("--mix-seconds", type=float, help="per match-mix run (default --seconds)")
    group.add_argument(
        "--scaling-connections",
        type=int,
        default=16,
        help="h2load -c for the scaling part (connections spread over the workers)",
    )
    group.add_argument("--scaling-streams", type=int, default=2, help="h2load -m for scaling")
    group.add_argument(
        "--parts", default=",".join(PARTS), help=f"which parts, comma-separated: {','.join(PARTS)}"
    )
    group.add_argument("--json", type=Path, help="also write the figures here")


def main(args: argparse.Namespace, seconds: float) -> int:
    """Run the h2load mode; return 1 if any replayed call did not end OK."""
    parts = tuple(p for p in args.parts.split(",") if p)
    unknown = set(parts) - set(PARTS)
    if unknown:
        raise SystemExit(f"--parts: unknown {sorted(unknown)}; choose from {','.join(PARTS)}")
    options = Options(
        seconds=None if args.requests else seconds,
        requests=args.requests,
        rounds=args.rounds,
        connections=args.connections,
        streams=args.streams,
        mix_seconds=args.mix_seconds or seconds,
        parts=parts,
        scaling_connections=args.scaling_connections,
        scaling_streams=args.scaling_streams,
    )
    h2load = h2.ensure_h2load()
    print(
        f"h2load mode: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}, "
        f"parts {','.join(parts)}",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="baloot-bench-h2load-") as scratch:
        bench = Bench(options, Path(scratch), h2load)
        try:
            bench.start()
            if "cases" in parts:
                bench.cases()
            if "mix" in parts:
                bench.mix()
            if "scaling" in parts:
                bench.scaling()
        finally:
            bench.stop()
    bench.report_targets()
    if args.json is not None:
        args.json.write_text(json.dumps(bench.results, indent=2, default=str), encoding="utf-8")
    if bench.problems:
        print()
        print("replies that were not OK:")
        for problem in bench.problems:
            print(f"  {problem}")
        return 1
    print("every replayed call ended OK")
    return 0
