"""The load generator: complete matches played concurrently, each call on the previous token.

Why an asyncio driver on ``grpc.aio`` rather than Locust: a Baloot match is a chain of calls in
which every request carries the token the previous response returned, and the next action is
chosen from the views that came back. Locust's gRPC user measures independent requests well,
but a chain with per-match state, a bounded number of matches and our own retry rule (send the
same request again on UNAVAILABLE) would be written by hand inside it anyway; with asyncio one
process keeps hundreds of matches in flight over a few HTTP/2 connections, with no threads or
greenlets, and the result is one plain report. See docs/performance.md.

A *player* plays one match at a time to the end, with the host credential (as a game backend
does): CreateMatch, then DealRound / PlaceBid / CallDouble / DeclareProjects / PlayCard as the
views say, with a random legal action for the seat to play, and, every few steps, the reads a
client makes (ListLegalActions, GetView) and GetScore after each round. Players stop starting
matches when the match budget or the duration is used up; matches in flight then finish, within
a bounded drain time. A call that fails with UNAVAILABLE or DEADLINE_EXCEEDED is sent again,
unchanged: the service is a pure function of (token, request), so this is always safe.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
import urllib.request
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Final

import grpc
import grpc.aio
from baloot_client.demo import choose
from prometheus_client.parser import text_string_to_metric_families

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot.v1 import rules_pb2, types_pb2

SERVICE: Final = "baloot.v1.BalootEngineService"
RETRYABLE: Final = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})
_BETWEEN: Final = (types_pb2.PHASE_AWAITING_DEAL, types_pb2.PHASE_ROUND_OVER)
QUANTILES: Final = (0.50, 0.95, 0.99)


@dataclass(frozen=True)
class LoadConfig:
    """What to run: where, how many matches, for how long, how concurrently."""

    target: str = "127.0.0.1:8080"
    matches: int = 200
    duration: float = 60.0
    drain: float = 60.0  # after `duration`, how long matches in flight may take to finish
    concurrency: int = 32
    connections: int = 8
    match_target: int = 152
    seed: int = 1
    retries: int = 8
    deadline: float = 10.0
    read_every: int = 8  # one ListLegalActions + GetView every N actions; 0: no reads
    metrics_urls: tuple[str, ...] = ()
    envoy_admin: str | None = None


@dataclass
class LoadResult:
    """What happened, as printed and as written with ``--json``."""

    config: dict[str, Any]
    elapsed: float = 0.0
    matches_started: int = 0
    matches_completed: int = 0
    matches_abandoned: int = 0
    matches_failed: int = 0
    calls: int = 0  # calls that succeeded (retries not counted)
    attempts: int = 0  # requests sent, retries included
    errors: dict[str, int] = field(default_factory=dict)  # final failures by status code
    retries: dict[str, int] = field(default_factory=dict)  # retried attempts by status code
    latency_ms: dict[str, dict[str, float]] = field(default_factory=dict)
    calls_by_method: dict[str, int] = field(default_factory=dict)
    attempts_by_method: dict[str, int] = field(default_factory=dict)
    server_handled: int | None = None
    server_handled_by_method: dict[str, int] = field(default_factory=dict)
    server_codes: dict[str, int] = field(default_factory=dict)
    gateway: dict[str, float] = field(default_factory=dict)

    @property
    def rpc_per_second(self) -> float:
        """Successful calls per second of the run."""
        return self.calls / self.elapsed if self.elapsed else 0.0

    @property
    def cross_check(self) -> str:
        """``ok``, ``skipped`` (no metrics endpoint given) or ``mismatch``."""
        if self.server_handled is None:
            return "skipped"
        sent = self.attempts + int(self.gateway.get("upstream_rq_retry", 0))
        if sent == self.calls:  # no retry: every request was handled exactly once
            return "ok" if self.server_handled == sent else "mismatch"
        # With retries, an attempt may have died with its process before being counted, or
        # been handled and retried anyway: each call was handled at least once, and no more
        # requests than were sent.
        return "ok" if self.calls <= self.server_handled <= sent else "mismatch"

    @property
    def passed(self) -> bool:
        """No error, every started match finished, and the server counted what was sent."""
        return (
            not self.errors
            and self.matches_failed == 0
            and self.matches_abandoned == 0
            and self.matches_completed > 0
            and self.cross_check != "mismatch"
        )

    def to_json(self) -> str:
        """The result with the derived fields, as JSON."""
        data = asdict(self)
        data.update(
            rpc_per_second=self.rpc_per_second, cross_check=self.cross_check, passed=self.passed
        )
        return json.dumps(data, indent=2, sort_keys=True)


class MatchFailedError(Exception):
    """A call of the match failed for good; the match cannot go on."""


def quantile(ordered: Sequence[float], q: float) -> float:
    """The q-quantile of sorted values (nearest rank)."""
    if not ordered:
        return 0.0
    rank = max(1, min(len(ordered), round(q * len(ordered) + 0.5)))
    return ordered[rank - 1]


class _Run:
    """The shared state of one load run."""

    def __init__(self, config: LoadConfig, stubs: Sequence[Any]):
        self.config = config
        self.stubs = stubs
        self.start = time.perf_counter()
        self.stop_starting = self.start + config.duration
        self.hard_stop = self.stop_starting + config.drain
        self.to_start = config.matches
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.attempts: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.retries: Counter[str] = Counter()
        self.started = self.completed = self.abandoned = self.failed = 0

    def take_match(self) -> bool:
        """Whether a player may start another match."""
        if self.to_start <= 0 or time.perf_counter() >= self.stop_starting:
            return False
        self.to_start -= 1
        self.started += 1
        return True

    async def call(self, name: str, method: Callable[..., Any], request: Any) -> Any:
        """Send ``request``; on UNAVAILABLE or DEADLINE_EXCEEDED send it again, unchanged."""
        start = time.perf_counter()
        for attempt in range(self.config.retries + 1):
            self.attempts[name] += 1
            try:
                response = await method(request, timeout=self.config.deadline)
            except grpc.aio.AioRpcError as error:
                code = error.code()
                if code in RETRYABLE and attempt < self.config.retries:
                    self.retries[code.name] += 1
                    await asyncio.sleep(min(0.05 * 2**attempt, 1.0))
                    continue
                self.errors[code.name] += 1
                raise MatchFailedError(f"{name}: {code.name} {error.details()}") from None
            self.latencies[name].append(time.perf_counter() - start)
            return response
        raise AssertionError("unreachable")  # pragma: no cover

    async def play_match(self, stub: Any, rng: random.Random) -> bool:
        """Play one match to its end; False when the run's time ran out first."""
        rules = rules_pb2.RuleSet(
            preset=rules_pb2.PRESET_SEEDS, match_target=self.config.match_target
        )
        created = await self.call(
            "CreateMatch", stub.CreateMatch, pb.CreateMatchRequest(rules=rules)
        )
        match_id, host = created.match_id, created.host_credential
        state, version, views = created.state, created.state_version, list(created.views)
        step = 0
        while views[0].phase != types_pb2.PHASE_MATCH_OVER:
            if time.perf_counter() > self.hard_stop:
                return False
            step += 1
            common = {
                "state": state,
                "match_id": match_id,
                "credential": host,
                "expected_version": version,
            }
            phase = views[0].phase
            if phase in _BETWEEN:
                if phase == types_pb2.PHASE_ROUND_OVER and self.config.read_every:
                    await self.call(
                        "GetScore",
                        stub.GetScore,
                        pb.GetScoreRequest(state=state, match_id=match_id, credential=host),
                    )
                request: Any = pb.DealRoundRequest(seat=views[0].dealer, **common)
                response = await self.call("DealRound", stub.DealRound, request)
            else:
                seat = views[0].turn
                view = views[seat]
                if self.config.read_every and step % self.config.read_every == 0:
                    await self.call(
                        "GetView",
                        stub.GetView,
                        pb.GetViewRequest(state=state, match_id=match_id, credential=host),
                    )
                    legal = await self.call(
                        "ListLegalActions",
                        stub.ListLegalActions,
                        pb.ListLegalActionsRequest(
                            state=state, match_id=match_id, credential=host, seat=seat
                        ),
                    )
                    del view.legal_actions[:]
                    view.legal_actions.extend(legal.actions)
                action = choose(view, rng)
                response = await self._act(stub, seat, action, common)
            state, version, views = response.state, response.state_version, list(response.views)
        return True

    async def _act(
        self,
        stub: Any,
        seat: int,
        action: types_pb2.Action,
        common: dict[str, Any],
    ) -> Any:
        which = action.WhichOneof("action")
        if which == "bid":
            request: Any = pb.PlaceBidRequest(seat=seat, bid=action.bid, **common)
            return await self.call("PlaceBid", stub.PlaceBid, request)
        if which == "doubling":
            request = pb.CallDoubleRequest(seat=seat, doubling=action.doubling, **common)
            return await self.call("CallDouble", stub.CallDouble, request)
        if which == "declaration":
            request = pb.DeclareProjectsRequest(seat=seat, declaration=action.declaration, **common)
            return await self.call("DeclareProjects", stub.DeclareProjects, request)
        request = pb.PlayCardRequest(seat=seat, play=action.play, **common)
        return await self.call("PlayCard", stub.PlayCard, request)

    async def player(self, index: int) -> None:
        """Play matches one after another while the budget and the time allow."""
        rng = random.Random(self.config.seed * 100_003 + index)
        stub = self.stubs[index % len(self.stubs)]
        while self.take_match():
            try:
                finished = await self.play_match(stub, rng)
            except MatchFailedError:
                self.failed += 1
                continue
            if finished:
                self.completed += 1
            else:
                self.abandoned += 1
                return


def _handled_by_method(urls: Sequence[str]) -> tuple[dict[str, int], dict[str, int]]:
    """Sum ``grpc_server_handled_total`` of the engine service over the endpoints."""
    by_method: Counter[str] = Counter()
    by_code: Counter[str] = Counter()
    for url in urls:
        with urllib.request.urlopen(url, timeout=10) as reply:  # noqa: S310 - a given URL
            text = reply.read().decode()
        for family in text_string_to_metric_families(text):
            if family.name != "grpc_server_handled":
                continue
            for sample in family.samples:
                if sample.name.endswith("_total") and sample.labels["grpc_service"] == SERVICE:
                    by_method[sample.labels["grpc_method"]] += int(sample.value)
                    by_code[sample.labels["grpc_code"]] += int(sample.value)
    return dict(by_method), dict(by_code)


GATEWAY_STATS: Final = (
    "upstream_rq_total",
    "upstream_rq_retry",
    "upstream_rq_retry_success",
    "upstream_cx_connect_fail",
    "health_check.failure",
    "outlier_detection.ejections_enforced_total",
)


def gateway_stats(admin: str) -> dict[str, float]:
    """The counters of the engine's cluster in Envoy's admin interface."""
    url = f"{admin.rstrip('/')}/stats?filter=^cluster\\.baloot_engine\\."
    with urllib.request.urlopen(url, timeout=10) as reply:  # noqa: S310 - loopback admin
        text = reply.read().decode()
    stats = {}
    for line in text.splitlines():
        name, _, value = line.partition(": ")
        short = name.removeprefix("cluster.baloot_engine.")
        if short in GATEWAY_STATS:
            stats[short] = float(value)
    return stats


async def run_load(config: LoadConfig) -> LoadResult:
    """Run the load described by ``config`` and return what happened."""
    before: tuple[dict[str, int], dict[str, int]] = ({}, {})
    if config.metrics_urls:
        before = _handled_by_method(config.metrics_urls)
    gateway_before = gateway_stats(config.envoy_admin) if config.envoy_admin else {}
    # A local subchannel pool per channel: each channel is its own TCP connection, as many
    # clients would be, so a server's workers (SO_REUSEPORT) all get connections.
    options = [("grpc.use_local_subchannel_pool", 1)]
    channels = [
        grpc.aio.insecure_channel(config.target, options=options)
        for _ in range(max(1, config.connections))
    ]
    try:
        for channel in channels:
            await asyncio.wait_for(channel.channel_ready(), timeout=30)
        stubs = [pb_grpc.BalootEngineServiceStub(channel) for channel in channels]
        run = _Run(config, stubs)
        await asyncio.gather(*(run.player(i) for i in range(config.concurrency)))
        elapsed = time.perf_counter() - run.start
    finally:
        for channel in channels:
            await channel.close()
    result = LoadResult(config=asdict(config), elapsed=elapsed)
    result.matches_started, result.matches_completed = run.started, run.completed
    result.matches_abandoned, result.matches_failed = run.abandoned, run.failed
    result.errors, result.retries = dict(run.errors), dict(run.retries)
    result.attempts = sum(run.attempts.values())
    result.attempts_by_method = dict(run.attempts)
    every: list[float] = []
    for name, samples in sorted(run.latencies.items()):
        ordered = sorted(samples)
        every.extend(ordered)
        result.calls_by_method[name] = len(ordered)
        result.latency_ms[name] = _summary(ordered)
    result.calls = len(every)
    result.latency_ms["ALL"] = _summary(sorted(every))
    if config.metrics_urls:
        after = _handled_by_method(config.metrics_urls)
        result.server_handled_by_method = {
            method: count - before[0].get(method, 0) for method, count in after[0].items()
        }
        result.server_codes = {
            code: count - before[1].get(code, 0)
            for code, count in after[1].items()
            if count - before[1].get(code, 0)
        }
        result.server_handled = sum(result.server_handled_by_method.values())
    if config.envoy_admin:
        after_gateway = gateway_stats(config.envoy_admin)
        result.gateway = {
            name: value - gateway_before.get(name, 0) for name, value in after_gateway.items()
        }
    return result


def _summary(ordered: Sequence[float]) -> dict[str, float]:
    summary = {f"p{round(q * 100)}": round(quantile(ordered, q) * 1000, 3) for q in QUANTILES}
    summary["max"] = round(ordered[-1] * 1000, 3) if ordered else 0.0
    return summary


def report(result: LoadResult) -> str:
    """The human-readable report."""
    config = result.config
    errors = ", ".join(f"{k} {v}" for k, v in sorted(result.errors.items())) or "none"
    retries = ", ".join(f"{k} {v}" for k, v in sorted(result.retries.items())) or "none"
    lines = [
        (
            f"target {config['target']}: concurrency {config['concurrency']} matches over "
            f"{config['connections']} connections, match target {config['match_target']} points"
        ),
        (
            f"matches: {result.matches_started} started, {result.matches_completed} completed, "
            f"{result.matches_failed} failed, {result.matches_abandoned} abandoned "
            f"in {result.elapsed:.1f} s"
        ),
        (
            f"calls: {result.calls:,} in {result.elapsed:.1f} s = "
            f"{result.rpc_per_second:,.0f} RPC/s ({result.attempts:,} requests sent)"
        ),
        f"errors by status code: {errors}",
        f"client retries by status code: {retries}",
        "",
        f"  {'method':<17}{'calls':>9}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'max ms':>9}",
    ]
    for name, summary in result.latency_ms.items():
        count = result.calls if name == "ALL" else result.calls_by_method.get(name, 0)
        lines.append(
            f"  {name:<17}{count:>9,}{summary['p50']:>9.2f}{summary['p95']:>9.2f}"
            f"{summary['p99']:>9.2f}{summary['max']:>9.2f}"
        )
    lines.append("")
    if result.gateway:
        shown = ", ".join(f"{k} {v:,.0f}" for k, v in sorted(result.gateway.items()))
        lines.append(f"gateway (Envoy cluster baloot_engine, during the run): {shown}")
    if result.server_handled is None:
        lines.append("server cross-check: skipped (no --metrics URL)")
    else:
        gateway_retries = int(result.gateway.get("upstream_rq_retry", 0))
        expected = result.attempts + gateway_retries
        verdict = "OK" if result.cross_check == "ok" else "MISMATCH"
        codes = ", ".join(f"{k} {v:,}" for k, v in sorted(result.server_codes.items()))
        bound = f" = {expected:,}"
        if expected != result.calls:
            bound += (
                f" requests for {result.calls:,} calls (a retried request may have died with "
                "its process, or been handled before its retry)"
            )
        lines.append(
            f'server cross-check: grpc_server_handled_total{{grpc_service="{SERVICE}"}} rose by '
            f"{result.server_handled:,} ({codes or 'none'}); the client sent {result.attempts:,}"
            + (f" + {gateway_retries:,} gateway retries" if gateway_retries else "")
            + bound
            + f": {verdict}"
        )
    lines.append("PASS" if result.passed else "FAIL")
    return "\n".join(lines)
