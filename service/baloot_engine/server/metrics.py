"""Prometheus metrics of the server and their HTTP endpoint.

The gRPC families follow the names and labels that gRPC server middlewares conventionally use
(so existing dashboards and alerts work): ``grpc_server_started_total``,
``grpc_server_handled_total`` and the ``grpc_server_handling_seconds`` histogram, labelled by
``grpc_service``, ``grpc_method``, ``grpc_type`` and, once handled, ``grpc_code``. The process
collectors add CPU, memory, file descriptors, garbage collection and the Python version.

Each :class:`Metrics` owns its registry, so several servers in one test process do not share
counters; domain counters (rounds dealt, rejected actions…) are added to this class.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Final
from wsgiref.simple_server import WSGIServer

from prometheus_client import (
    CollectorRegistry,
    Counter,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    start_http_server,
)

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


class Metrics:
    """The metric families of one server, in their own registry."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        ProcessCollector(registry=self.registry)
        PlatformCollector(registry=self.registry)
        GCCollector(registry=self.registry)
        self.started = Counter(
            "grpc_server_started",
            "Total number of RPCs started on the server.",
            _CALL_LABELS,
            registry=self.registry,
        )
        self.handled = Counter(
            "grpc_server_handled",
            "Total number of RPCs completed on the server, regardless of success or failure.",
            (*_CALL_LABELS, "grpc_code"),
            registry=self.registry,
        )
        self.handling_seconds = Histogram(
            "grpc_server_handling_seconds",
            "Histogram of response latency (seconds) of gRPC that had been application-level "
            "handled by the server.",
            _CALL_LABELS,
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )


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
