"""The telemetry interceptor: request id, metrics and one canonical log line per RPC.

For every call it
* takes the request id from the ``x-request-id`` metadata (or makes one) and echoes it back in
  the trailing metadata, so a client can quote it when reporting a problem;
* counts the call in ``grpc_server_started_total``, then, when it ends, in
  ``grpc_server_handled_total`` with its status code and in ``grpc_server_handling_seconds``;
* writes one log line with the method, status code, duration, peer and request id, plus the
  facts the servicer bound with :func:`~baloot_engine.telemetry.logs.bind_call_fields`.

Requests and responses are never logged: they carry tokens, credentials and hands. The wrapper
runs inside the handler's own task, so the per-call context variables reach the servicer.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from functools import lru_cache
from types import TracebackType
from typing import Any, Final, TypeAlias

import grpc
import grpc.aio

from baloot_engine.telemetry.logs import (
    call_log_enabled,
    close_call_fields,
    log_call,
    open_call_fields,
)
from baloot_engine.telemetry.metrics import Metrics

REQUEST_ID_HEADER: Final = "x-request-id"
_REQUEST_ID_PATTERN: Final = re.compile(r"[A-Za-z0-9._:/+=-]{1,128}")

# Infrastructure calls are counted but logged at debug level: load balancers and probes call
# them every few seconds, which would drown the lines that matter.
_QUIET_SERVICES: Final = frozenset(
    {
        "grpc.health.v1.Health",
        "grpc.reflection.v1alpha.ServerReflection",
        "grpc.reflection.v1.ServerReflection",
    }
)
# Status codes that mean the server failed, not the caller. A tuple: its membership test
# compares identities in C, where a set would hash the members with Enum's Python __hash__.
_SERVER_FAULTS: Final = (
    grpc.StatusCode.UNKNOWN,
    grpc.StatusCode.INTERNAL,
    grpc.StatusCode.DATA_LOSS,
)
# Members read once: on Python 3.11 reading one through its Enum class costs a function call.
_OK: Final = grpc.StatusCode.OK
_CANCELLED: Final = grpc.StatusCode.CANCELLED
_UNKNOWN: Final = grpc.StatusCode.UNKNOWN

_Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"
_Context: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"


def request_id_from(metadata: Iterable[tuple[str, str | bytes]] | None) -> str:
    """Return the caller's request id when it is well formed, else a new random one."""
    for key, value in metadata or ():
        if key == REQUEST_ID_HEADER and isinstance(value, str):
            if _REQUEST_ID_PATTERN.fullmatch(value):
                return value
            break
    return new_request_id()


def new_request_id() -> str:
    """A random request id: what ``uuid.uuid4().hex`` gives, without building a UUID object."""
    raw = bytearray(os.urandom(16))
    raw[6] = raw[6] & 0x0F | 0x40  # version 4
    raw[8] = raw[8] & 0x3F | 0x80  # the RFC 4122 variant
    return raw.hex()


def split_method(full_method: str) -> tuple[str, str]:
    """Split ``/package.Service/Method`` into ``("package.Service", "Method")``."""
    service, _, method = full_method.lstrip("/").rpartition("/")
    return service or "unknown", method or "unknown"


@lru_cache(maxsize=1024)
def _method_labels(full_method: str) -> tuple[str, str, bool]:
    """The service and method of a method path, and whether its lines are quiet (debug)."""
    service, method = split_method(full_method)
    return service, method, service in _QUIET_SERVICES


def _call_type(handler: _Handler) -> str:
    if handler.request_streaming and handler.response_streaming:
        return "bidi_stream"
    if handler.request_streaming:
        return "client_stream"
    if handler.response_streaming:
        return "server_stream"
    return "unary"


class _Call:
    """The bookkeeping of one RPC, from its start to its status."""

    __slots__ = (
        "_context",
        "_scope",
        "_start",
        "counters",
        "fields",
        "method",
        "quiet",
        "request_id",
    )

    def __init__(self, metrics: Metrics, details: grpc.HandlerCallDetails, call_type: str) -> None:
        self.method = details.method
        service, method, self.quiet = _method_labels(details.method)
        self.counters = metrics.for_call((service, method, call_type))
        self.request_id = request_id_from(details.invocation_metadata)
        self.fields: dict[str, object] = {}
        self._start = time.perf_counter()

    def observe(self, context: _Context) -> _Call:
        """Count, time and log the call made inside the ``with`` block.

        ``_Call`` is its own context manager (a class's ``__enter__`` and ``__exit__`` cost
        less than a generator's): the call's log fields are open inside the block, and the
        call is counted and logged when it leaves, with the exception that ended it, if any.
        """
        self._context = context
        return self

    def __enter__(self) -> None:
        self.counters.started.inc()
        self._context.set_trailing_metadata(((REQUEST_ID_HEADER, self.request_id),))
        self.fields, self._scope = open_call_fields()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            self._finish(self._context, error)
        finally:
            close_call_fields(self._scope)

    def _finish(self, context: _Context, error: BaseException | None) -> None:
        elapsed = time.perf_counter() - self._start
        code = _status_code(context, error)
        name: str = code._name_  # what code.name returns, without the descriptor's call
        self.counters.handled(name).inc()
        self.counters.handling_seconds.observe(elapsed)
        fault = code in _SERVER_FAULTS
        level = logging.ERROR if fault else logging.DEBUG if self.quiet else logging.INFO
        if not call_log_enabled(level):
            return
        # grpc logs the traceback of a failing handler itself; this line names the error and
        # carries the request id that ties the two together.
        line: dict[str, object] = {
            "method": self.method,
            "grpc_code": name,
            "duration_ms": round(elapsed * 1000, 3),
            "peer": context.peer(),
            "request_id": self.request_id,
        }
        line.update(self.fields)
        if fault and error is not None:
            line["error"] = f"{type(error).__name__}: {error}"
        log_call(level, "rpc", line)


def _status_code(context: _Context, error: BaseException | None) -> grpc.StatusCode:
    """Return the status the call ended with, as the client sees it."""
    code: grpc.StatusCode | None = context.code()
    if code is not None:
        return code
    if error is None:
        return _OK
    if isinstance(error, asyncio.CancelledError | GeneratorExit):
        return _CANCELLED
    return _UNKNOWN


class TelemetryInterceptor(grpc.aio.ServerInterceptor):
    """Wraps every handler of the server with the per-call telemetry."""

    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[_Handler | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> _Handler | None:
        """Return the next handler, wrapped; unknown methods pass through untouched."""
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        return _wrap(handler, self._metrics, handler_call_details)


def _wrap(handler: _Handler, metrics: Metrics, details: grpc.HandlerCallDetails) -> _Handler:
    """Return a handler that runs ``handler``'s behaviour inside :meth:`_Call.observe`."""
    call_type = _call_type(handler)
    deserializer, serializer = handler.request_deserializer, handler.response_serializer
    streaming_in, streaming_out = handler.request_streaming, handler.response_streaming

    if not streaming_out:
        unary_behavior: Any = handler.stream_unary if streaming_in else handler.unary_unary

        async def unary(request: Any, context: _Context) -> Any:
            with _Call(metrics, details, call_type).observe(context):
                return await unary_behavior(request, context)

        make = (
            grpc.stream_unary_rpc_method_handler
            if streaming_in
            else grpc.unary_unary_rpc_method_handler
        )
        return make(unary, deserializer, serializer)

    stream_behavior: Any = handler.stream_stream if streaming_in else handler.unary_stream
    make = (
        grpc.stream_stream_rpc_method_handler
        if streaming_in
        else grpc.unary_stream_rpc_method_handler
    )
    if inspect.isasyncgenfunction(stream_behavior):

        async def generated(request: Any, context: _Context) -> AsyncIterator[Any]:
            with _Call(metrics, details, call_type).observe(context):
                async for item in stream_behavior(request, context):
                    yield item

        return make(generated, deserializer, serializer)

    # A streaming behaviour that writes with ``context.write`` and returns None.
    async def written(request: Any, context: _Context) -> None:
        with _Call(metrics, details, call_type).observe(context):
            await stream_behavior(request, context)

    return make(written, deserializer, serializer)
