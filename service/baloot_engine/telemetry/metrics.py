"""Prometheus metrics of the server and their HTTP endpoint.

The gRPC families follow the names and labels that gRPC server middlewares conventionally use
(so existing dashboards and alerts work): ``grpc_server_started_total``,
``grpc_server_handled_total`` and the ``grpc_server_handling_seconds`` histogram, labelled by
``grpc_service``, ``grpc_method``, ``grpc_type`` and, once handled, ``grpc_code``. The process
collectors add CPU, memory, file descriptors, garbage collection and the Python version.

Each :class:`Metrics` owns its registry, so several servers in one test process do not share
counters; domain counters (rounds dealt, rejected actions…) are added to this class.

The three gRPC families are touched on every call. In one process their values are plain
numbers of :class:`CallCounts`, one per method, changed on the event loop's thread without a
lock, and a collector turns them into the same families, names, labels and values at scrape
time (prometheus-client's own children take a lock per increment and walk the buckets in
Python). With worker processes (prometheus-client's multiprocess mode) the values must reach
the files the supervisor sums, so each call goes through the families' children
(:class:`CallChildren`), as any prometheus-client metric does.
"""

from __future__ import annotations

import os
import threading
import time
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Protocol, TypeAlias
from wsgiref.simple_server import WSGIServer

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    start_http_server,
    values,
)
from prometheus_client.metrics_core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector

from baloot_engine.rules.actions import DoublingCall, Event, EventKind

# Handling times of a rules engine are sub-millisecond to tens of milliseconds; the buckets are
# finer at the low end than the client library's defaults.
LATENCY_BUCKETS: Final = (
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
)

_CALL_LABELS: Final = ("grpc_service", "grpc_method", "grpc_type")
_STARTED: Final = ("grpc_server_started", "Total number of RPCs started on the server.")
_HANDLED: Final = (
    "grpc_server_handled",
    "Total number of RPCs completed on the server, regardless of success or failure.",
)
_HANDLING: Final = (
    "grpc_server_handling_seconds",
    (
        "Histogram of response latency (seconds) of gRPC that had been application-level "
        "handled by the server."
    ),
)
# The bucket labels, as prometheus-client writes them ("0.0005", …, "10.0", "+Inf"): its
# floatToGoString is repr for these values (a test checks that).
BUCKET_LABELS: Final = (*(repr(float(bound)) for bound in LATENCY_BUCKETS), "+Inf")
_RAISES: Final = frozenset(
    (DoublingCall.DOUBLE, DoublingCall.TRIPLE, DoublingCall.FOUR, DoublingCall.GAHWA)
)
# The event kinds some counter looks at. Most events (a card played, a trick won) count for
# nothing and are skipped with one membership test rather than a chain of comparisons, each of
# which would read a member through its Enum class (a slow metaclass lookup on Python 3.11). A
# tuple, not a set: its test compares identities in C, while hashing a member calls Python code.
_COUNTED: Final = (
    EventKind.CARDS_DEALT,
    EventKind.CONTRACT_FIXED,
    EventKind.REDEAL,
    EventKind.DOUBLING_CALLED,
    EventKind.ROUND_SCORED,
    EventKind.MATCH_WON,
    EventKind.QAYD_JUDGED,
)


class CallMetrics(Protocol):
    """The gRPC families' values of one method: what the interceptor changes per call."""

    def start(self) -> None:
        """Count a call that started (``grpc_server_started_total``)."""

    def finish(self, code: str, seconds: float) -> None:
        """Count a call that ended with ``code`` after ``seconds`` (``grpc_server_handled_total``
        and ``grpc_server_handling_seconds``)."""


def _use_created() -> bool:
    """Whether ``_created`` samples are written, as prometheus-client decides it."""
    setting = os.environ.get("PROMETHEUS_DISABLE_CREATED_SERIES", "False")
    return setting.lower() not in ("true", "1", "t")


class CallCounts:
    """The gRPC families' values of one method as plain numbers, for :class:`_CallCollector`.

    Changed only on the event loop's thread; the scrape (another thread) reads them as they
    are, so a scrape during a call may see it counted in the buckets before the sum.
    """

    __slots__ = ("buckets", "created", "handled", "handled_created", "labels", "started", "sum")

    def __init__(self, labels: tuple[str, str, str]) -> None:
        self.labels = labels
        self.started = 0
        self.handled: dict[str, int] = {}
        self.handled_created: dict[str, float] = {}
        self.buckets = [0] * (len(LATENCY_BUCKETS) + 1)  # the last one is +Inf
        self.sum = 0.0
        self.created = time.time()

    def start(self) -> None:
        """Count a call that started."""
        self.started += 1

    def finish(self, code: str, seconds: float) -> None:
        """Count a call that ended with ``code`` after ``seconds``."""
        try:
            self.handled[code] += 1
        except KeyError:
            self.handled_created[code] = time.time()
            self.handled[code] = 1
        # A value equal to a bound belongs to that bucket (le), as bisect_left finds it.
        self.buckets[bisect_left(LATENCY_BUCKETS, seconds)] += 1
        self.sum += seconds


class _CallCollector(Collector):
    """Exports the :class:`CallCounts` of every method as prometheus-client's own
    ``Counter`` and ``Histogram`` would: the same families, samples, labels and values."""

    def __init__(self, calls: dict[tuple[str, str, str], CallMetrics]) -> None:
        self._calls = calls

    def describe(self) -> Iterable[Metric]:
        """The families, empty (the registry checks their names)."""
        return self._families(())

    def collect(self) -> Iterable[Metric]:
        """The families with every method's values, read now."""
        counts = [c for c in list(self._calls.values()) if isinstance(c, CallCounts)]
        return self._families(counts)

    @staticmethod
    def _families(counts: Iterable[CallCounts]) -> list[Metric]:
        created = _use_created()
        started = CounterMetricFamily(*_STARTED, labels=_CALL_LABELS)
        handled = CounterMetricFamily(*_HANDLED, labels=(*_CALL_LABELS, "grpc_code"))
        seconds = HistogramMetricFamily(*_HANDLING, labels=_CALL_LABELS)
        for count in counts:
            labels = count.labels
            started.add_metric(
                labels, float(count.started), created=count.created if created else None
            )
            codes = dict(count.handled)
            for code, value in codes.items():
                when = count.handled_created.get(code, count.created) if created else None
                handled.add_metric((*labels, code), float(value), created=when)
            total, cumulative = 0.0, []
            for label, value in zip(BUCKET_LABELS, list(count.buckets), strict=True):
                total += value
                cumulative.append((label, total))
            seconds.add_metric(labels, cumulative, count.sum)
            if created:
                named = dict(zip(_CALL_LABELS, labels, strict=True))
                seconds.add_sample(f"{_HANDLING[0]}_created", named, count.created)
        return [started, handled, seconds]


# grpc_server_started, grpc_server_handled, grpc_server_handling_seconds.
_Families: TypeAlias = tuple[Counter, Counter, Histogram]


class CallChildren:
    """The gRPC families' children of one method, looked up once per method: the path of
    prometheus-client's multiprocess mode, whose values live in the workers' files.

    ``labels()`` takes the family's lock, checks and converts every label value and looks the
    child up on each call, so it is called once per (service, method, type), and once per
    status code for ``grpc_server_handled_total``.
    """

    __slots__ = ("_family", "_handled", "_labels", "handling_seconds", "started")

    def __init__(self, families: _Families, labels: tuple[str, str, str]) -> None:
        started, self._family, handling_seconds = families
        self._labels = labels
        self.started = started.labels(*labels)
        self.handling_seconds = handling_seconds.labels(*labels)
        self._handled: dict[str, Counter] = {}

    def start(self) -> None:
        """Count a call that started."""
        self.started.inc()

    def finish(self, code: str, seconds: float) -> None:
        """Count a call that ended with ``code`` after ``seconds``."""
        child = self._handled.get(code)
        if child is None:
            child = self._handled[code] = self._family.labels(*self._labels, code)
        child.inc()
        self.handling_seconds.observe(seconds)


def multiprocess_values() -> bool:
    """Whether prometheus-client writes its values to the files of multiprocess mode."""
    return values.ValueClass is not values.MutexValue


class Metrics:
    """The metric families of one server, in their own registry."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        ProcessCollector(registry=self.registry)
        PlatformCollector(registry=self.registry)
        GCCollector(registry=self.registry)
        self._calls: dict[tuple[str, str, str], CallMetrics] = {}
        # The families themselves only in multiprocess mode; else the collector's values.
        self._families: _Families | None = None
        if multiprocess_values():
            self._families = (
                Counter(*_STARTED, _CALL_LABELS, registry=self.registry),
                Counter(*_HANDLED, (*_CALL_LABELS, "grpc_code"), registry=self.registry),
                Histogram(
                    *_HANDLING, _CALL_LABELS, buckets=LATENCY_BUCKETS, registry=self.registry
                ),
            )
        else:
            self.registry.register(_CallCollector(self._calls))
        self.shed = Counter(
            "baloot_rpcs_shed",
            "RPCs refused with RESOURCE_EXHAUSTED because the process ran as many calls as it "
            "accepts at once (BALOOT_MAX_CONCURRENT_RPCS).",
            ("grpc_service", "grpc_method"),
            registry=self.registry,
        )
        self._domain_counters()
        self.lanes = LaneMetrics(self.registry)

    def for_call(self, labels: tuple[str, str, str]) -> CallMetrics:
        """The gRPC families' children for ``(grpc_service, grpc_method, grpc_type)``."""
        bound = self._calls.get(labels)
        if bound is None:
            families = self._families
            bound = CallCounts(labels) if families is None else CallChildren(families, labels)
            self._calls[labels] = bound
        return bound

    def _domain_counters(self) -> None:
        """What the matches do. Every label takes a bounded set of values."""

        def counter(name: str, text: str, labels: tuple[str, ...] = ()) -> Counter:
            return Counter(name, text, labels, registry=self.registry)

        self.rounds_dealt = counter("baloot_rounds_dealt", "Rounds dealt, redeals included.")
        self.contracts = counter(
            "baloot_contracts", "Contracts fixed by bidding, by type.", ("contract",)
        )
        self.redeals = counter("baloot_redeals", "Hands cancelled and dealt again.", ("reason",))
        self.doubles = counter(
            "baloot_doubling_calls", "Raises of the doubling chain, by level.", ("level",)
        )
        self.kaboots = counter("baloot_kaboots", "Rounds in which one team took every trick.")
        self.gahwas = counter("baloot_gahwa_rounds", "Rounds played as a Gahwa.")
        self.rounds_scored = counter("baloot_rounds_scored", "Rounds played to the end and scored.")
        self.matches_finished = counter("baloot_matches_finished", "Matches won by a team.")
        self.qayd_verdicts = counter(
            "baloot_qayd_verdicts",
            "Judged Qayd calls of table play (and false Sawa claims judged at once), by verdict.",
            ("verdict",),
        )
        self.rejected = counter(
            "baloot_rejected_actions", "Actions refused by the rules, by reason.", ("reason",)
        )
        self.tokens_refused = counter(
            "baloot_tokens_refused", "State tokens that did not open, by reason.", ("reason",)
        )
        # Sealing keys rotate on this count (docs/deploy.md): the label is the key fingerprint.
        self.tokens_sealed = counter(
            "baloot_tokens_sealed", "State tokens sealed, by sealing key.", ("key_id",)
        )
        self.ledger_answers = counter(
            "baloot_ledger_answers",
            "Match ledger answers: latest, stale, unknown, unavailable, recovered (lossy: a token "
            "newer than the ledger's latest, which had lost writes, accepted and made the latest), "
            "or lost (a token newer than the ledger's latest, which should have kept it: the "
            "match refused from then on).",
            ("answer",),
        )

    def action_rejected(self, reason: str) -> None:
        """Count an action the rules refused (reasons are the core's fixed codes)."""
        self.rejected.labels(reason=reason).inc()

    def token_refused(self, reason: str) -> None:
        """Count a refused state token (a handful of fixed reasons)."""
        self.tokens_refused.labels(reason=reason).inc()

    def ledger_answer(self, answer: str) -> None:
        """Count an answer of the match ledger (six fixed words)."""
        self.ledger_answers.labels(answer=answer).inc()

    def observe_events(self, events: Iterable[Event]) -> None:
        """Count what the events of an accepted action say happened."""
        for event in events:
            kind = event.kind
            if kind not in _COUNTED:
                continue
            if kind is EventKind.CARDS_DEALT and event.cards == (5, 5, 5, 5):
                self.rounds_dealt.inc()
            elif kind is EventKind.CONTRACT_FIXED and event.contract is not None:
                contract = event.contract
                label = "ashkal" if contract.ashkal else contract.type.value
                self.contracts.labels(contract=label).inc()
            elif kind is EventKind.REDEAL and event.redeal is not None:
                self.redeals.labels(reason=event.redeal.value).inc()
            elif kind is EventKind.DOUBLING_CALLED and event.doubling is not None:
                if event.doubling.call in _RAISES:
                    self.doubles.labels(level=event.doubling.call.value).inc()
            elif kind is EventKind.ROUND_SCORED and event.score is not None:
                self.rounds_scored.inc()
                if event.score.kaboot_team is not None:
                    self.kaboots.inc()
                if event.score.gahwa:
                    self.gahwas.inc()
            elif kind is EventKind.MATCH_WON:
                self.matches_finished.inc()
            elif kind is EventKind.QAYD_JUDGED and event.qayd is not None:
                self.qayd_verdicts.labels(
                    verdict="correct" if event.qayd.correct else "wrong"
                ).inc()


# Waiting and running times of heavy work: milliseconds (a judged claim) to minutes (an analysis).
LANE_BUCKETS: Final = (0.001, 0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 120.0, 600.0)


class LaneMetrics:
    """The lanes' families (``baloot_lane_*``): queue depth and running jobs (gauges summed
    over live processes), wait and run times, CPU-seconds by client, refusals by reason,
    and processes replaced. Every label takes a bounded set of values: the lanes, the fixed
    reasons, and the client names the operator configured (plus ``anonymous``)."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self._waiting = Gauge(
            "baloot_lane_queue_depth",
            "Jobs waiting in a lane for one of its processes.",
            ("lane",),
            registry=registry,
            multiprocess_mode="livesum",
        )
        self._running = Gauge(
            "baloot_lane_running",
            "Jobs running in a lane's processes.",
            ("lane",),
            registry=registry,
            multiprocess_mode="livesum",
        )
        self._wait = Histogram(
            "baloot_lane_wait_seconds",
            "Time a lane's jobs waited for a process.",
            ("lane",),
            buckets=LANE_BUCKETS,
            registry=registry,
        )
        self._run = Histogram(
            "baloot_lane_run_seconds",
            "Time a lane's jobs ran, from their start in a process to their end.",
            ("lane",),
            buckets=LANE_BUCKETS,
            registry=registry,
        )
        self._cpu = Counter(
            "baloot_lane_cpu_seconds",
            "CPU-seconds the lanes' jobs took, by lane and client.",
            ("lane", "client"),
            registry=registry,
        )
        self._refused = Counter(
            "baloot_lane_refusals",
            "Jobs refused at a lane's door or stopped on the way, by lane and reason.",
            ("lane", "reason"),
            registry=registry,
        )
        self._replaced = Counter(
            "baloot_lane_processes_replaced",
            "Lane processes that stopped (killed, past a deadline, out of memory) and were "
            "replaced.",
            ("lane",),
            registry=registry,
        )

    def depth(self, lane: str, waiting: int, running: int) -> None:
        """A lane's jobs waiting and running now."""
        self._waiting.labels(lane).set(waiting)
        self._running.labels(lane).set(running)

    def waited(self, lane: str, seconds: float) -> None:
        """A job started after waiting ``seconds``."""
        self._wait.labels(lane).observe(seconds)

    def ran(self, lane: str, seconds: float, cpu_seconds: float, client: str) -> None:
        """A job ended after ``seconds``, having taken ``cpu_seconds`` of ``client``'s."""
        self._run.labels(lane).observe(seconds)
        self._cpu.labels(lane, client).inc(max(0.0, cpu_seconds))

    def refused(self, lane: str, reason: str) -> None:
        """A job refused or stopped, for ``reason``."""
        self._refused.labels(lane, reason).inc()

    def replaced(self, lane: str) -> None:
        """A lane process replaced."""
        self._replaced.labels(lane).inc()


@dataclass(slots=True)
class MetricsEndpoint:
    """A running HTTP endpoint that serves ``/metrics`` from a registry."""

    server: WSGIServer
    thread: threading.Thread

    @property
    def port(self) -> int:
        """The port the endpoint listens on (useful when 0 was asked for)."""
        return int(self.server.server_port)

    def close(self) -> None:
        """Stop serving and release the port."""
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def start_metrics_endpoint(metrics: Metrics, host: str, port: int) -> MetricsEndpoint:
    """Serve ``metrics`` over HTTP on ``host:port`` in a daemon thread."""
    server, thread = start_http_server(port, addr=host, registry=metrics.registry)
    return MetricsEndpoint(server=server, thread=thread)
