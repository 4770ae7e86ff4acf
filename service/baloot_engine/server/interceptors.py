"""The telemetry handler: request id, metrics, one canonical log line per RPC, and the
guards every call passes: a body that does not parse, and the bound on concurrent calls.

:class:`TelemetryHandler` is the server's one generic handler: it finds each method among the
services' own generic handlers and hands grpc that method's handler wrapped, built once per
method. It does what a server interceptor would, at the same moment (when grpc has the call
but not yet its body, in the call's own task), without the interceptor's coroutines per call.

For every call it
* takes the request id from the ``x-request-id`` metadata (or makes one) and echoes it back in
  the trailing metadata, so a client can quote it when reporting a problem;
* notes the language of the ``accept-language`` metadata for the call's refusals
  (:func:`~baloot_engine.api.messages.set_call_language`);
* counts the call in ``grpc_server_started_total``, then, when it ends, in
  ``grpc_server_handled_total`` with its status code and in ``grpc_server_handling_seconds``;
* writes one log line with the method, status code, duration, peer and request id, plus the
  facts the servicer bound with :func:`~baloot_engine.telemetry.logs.bind_call_fields`;
* parses the request with a deserializer that never raises: a body protobuf refuses becomes a
  :class:`MalformedRequest`, answered ``INVALID_ARGUMENT`` with reason ``REQUEST_INVALID``
  (grpc would otherwise answer ``UNKNOWN``, skip this bookkeeping and log a traceback);
* admits the call under the process's bound (:class:`CallGate`): the excess is answered
  ``RESOURCE_EXHAUSTED`` with reason ``OVERLOADED`` without being parsed, counted in
  ``baloot_rpcs_shed_total`` and summed up in one warning per second at most.

Requests and responses are never logged: they carry tokens, credentials and hands. The wrapper
runs inside the handler's own task, so the per-call context variables reach the servicer.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import math
import random
import re
import time
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Sequence
from types import TracebackType
from typing import Any, Final, NoReturn, TypeAlias

import grpc
import grpc.aio
from google.protobuf.message import DecodeError

from baloot_engine.api.calls import refusal_of, source_of
from baloot_engine.api.messages import set_call_language
from baloot_engine.api.status import ApiError, overloaded, request_invalid
from baloot_engine.lanes import LaneError
from baloot_engine.lanes.admission import hold, play_slot
from baloot_engine.lanes.sources import Sources
from baloot_engine.telemetry.logs import (
    bind_call_fields,
    call_log_enabled,
    close_call_fields,
    get_logger,
    log_call,
    open_call_fields,
)
from baloot_engine.telemetry.metrics import CallMetrics, Metrics

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
# Calls outside the bound on concurrent calls, and not arrivals for the drain: health checks
# must keep answering under overload (else the balancer would pull an overloaded replica and
# push its load onto the others) and arrive every second from every prober.
_UNBOUNDED_SERVICES: Final = frozenset({"grpc.health.v1.Health"})
# At most one "calls shed" warning per this many seconds; it says how many calls it covers.
SHED_LOG_SECONDS: Final = 1.0
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
# uuid4's version (4) and RFC 4122 variant bits, as uuid.UUID(version=4) sets them.
_UUID4_CLEAR: Final = ~((0xC000 << 48) | (0xF000 << 64))
_UUID4_SET: Final = (0x8000 << 48) | (4 << 76)
# Methods whose wrapped handlers are kept, at most (a generic handler may answer any path).
_MAX_ROUTES: Final = 1024
# The log fields of a quiet call whose line will not be written: nothing reads them.
_NO_FIELDS: Final[dict[str, object]] = {}

_log = get_logger("baloot_engine.rpc")

Door = Callable[[str, Any], "LaneError | None"]
"""Asked with a call's method and metadata before its body is read: the refusal of a call
that must not go further (heavy work without the API key it needs, or for a full lane), or
None."""

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
    """A random request id in the form of ``uuid.uuid4().hex``.

    It names a call in the logs and is no secret, so it comes from the process's
    pseudo-random generator (reseeded in every forked worker) rather than from a system call.
    """
    return f"{random.getrandbits(128) & _UUID4_CLEAR | _UUID4_SET:032x}"


def split_method(full_method: str) -> tuple[str, str]:
    """Split ``/package.Service/Method`` into ``("package.Service", "Method")``."""
    service, _, method = full_method.lstrip("/").rpartition("/")
    return service or "unknown", method or "unknown"


def _call_type(handler: _Handler) -> str:
    if handler.request_streaming and handler.response_streaming:
        return "bidi_stream"
    if handler.request_streaming:
        return "client_stream"
    if handler.response_streaming:
        return "server_stream"
    return "unary"


class MalformedRequest:
    """What the tolerant deserializer returns for a body that does not parse."""

    __slots__ = ("why",)

    def __init__(self, why: str) -> None:
        self.why = why


def tolerant(deserializer: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    """Wrap a request deserializer so that it returns a :class:`MalformedRequest` instead of
    raising. ``None`` (raw bytes) cannot fail and stays as it is."""
    if deserializer is None:
        return None
    message_type = getattr(getattr(deserializer, "__self__", None), "DESCRIPTOR", None)
    name = getattr(message_type, "full_name", "the request message")

    def parse(raw: bytes) -> Any:
        try:
            return deserializer(raw)
        except DecodeError as error:
            # protobuf's text is "Error parsing message with type 'T': <what was wrong>".
            return MalformedRequest(
                f"the request body does not parse as {name}: {str(error).rpartition(': ')[2]}"
            )
        except Exception:  # noqa: BLE001 - whatever a parser raises, the body is refused
            return MalformedRequest(f"the request body does not parse as {name}")

    return parse


class CallGate:
    """The bound on concurrent calls of one process, and when the last call arrived.

    A call is admitted when grpc hands it to the server (before its body is read) and counts
    until its task ends, however it ends. Health calls are neither bounded nor counted. The
    drain (:meth:`wait_quiet`) uses the arrivals to tell when no call is on its way any more.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.active = 0
        self.last_arrival = -math.inf
        self._unlogged = 0
        self._last_log = -math.inf
        self._flush: asyncio.TimerHandle | None = None

    def admit(self) -> bool:
        """Count an arriving call; return False when it must be refused."""
        self.last_arrival = time.monotonic()
        if self.active >= self.limit:
            return False
        self.active += 1
        return True

    def release(self, _task: object = None) -> None:
        """The end of an admitted call."""
        self.active -= 1

    def shed(self) -> None:
        """Note a refused call for the rate-limited warning."""
        self._unlogged += 1
        now = time.monotonic()
        if now - self._last_log >= SHED_LOG_SECONDS:
            self._log_shed()
        elif self._flush is None:
            delay = self._last_log + SHED_LOG_SECONDS - now
            self._flush = asyncio.get_running_loop().call_later(delay, self._log_shed)

    def flush_log(self) -> None:
        """Write the warning for the calls shed since the last one now (at shutdown)."""
        if self._flush is not None:
            self._flush.cancel()
        self._log_shed()

    def _log_shed(self) -> None:
        self._flush = None
        if self._unlogged:
            _log.warning(
                "calls shed",
                calls=self._unlogged,
                max_concurrent_rpcs=self.limit,
                active=self.active,
            )
        self._unlogged = 0
        self._last_log = time.monotonic()

    async def wait_quiet(self, quiet: float, within: float) -> bool:
        """Wait until no call has arrived for ``quiet`` seconds; False if ``within`` ran out."""
        deadline = time.monotonic() + within
        while True:
            now = time.monotonic()
            if now - self.last_arrival >= quiet:
                return True
            if now >= deadline:
                return False
            await asyncio.sleep(min(0.05, deadline - now, self.last_arrival + quiet - now))


class _Slot:
    """One admitted call's place under the bound, given back once: when a lane takes its job,
    or when the call ends."""

    __slots__ = ("_gate",)

    def __init__(self, gate: CallGate) -> None:
        self._gate: CallGate | None = gate

    def release(self, _task: object = None) -> None:
        gate = self._gate
        if gate is not None:
            self._gate = None
            gate.release()


class _Route:
    """What every call of one method shares: its labels, counters and wrapped handlers."""

    __slots__ = (
        "bounded",
        "call_type",
        "counts",
        "handler",
        "labels",
        "method",
        "quiet",
        "shed",
        "wrapped",
    )

    def __init__(self, metrics: Metrics, method: str, handler: _Handler) -> None:
        service, name = split_method(method)
        self.method = method
        self.handler = handler
        self.labels = (service, name)
        self.call_type = _call_type(handler)
        self.counts: CallMetrics = metrics.for_call((service, name, self.call_type))
        self.quiet = service in _QUIET_SERVICES
        self.bounded = service not in _UNBOUNDED_SERVICES
        self.wrapped = _wrap(handler, self)
        self.shed: _Handler | None = None


class _Call:
    """The bookkeeping of one RPC, from its start to its status.

    ``_Call`` is its own context manager (a class's ``__enter__`` and ``__exit__`` cost less
    than a generator's): the call's log fields are open inside the block, and the call is
    counted and logged (unless ``log`` is False) when it leaves, with the exception that ended
    it, if any.
    """

    __slots__ = ("_context", "_log", "_route", "_scope", "_start", "fields", "request_id")

    def __init__(self, route: _Route, context: _Context, *, log: bool = True) -> None:
        self._route = route
        self._context = context
        self._log = log
        metadata = context.invocation_metadata()
        self.request_id = request_id_from(metadata)
        set_call_language(metadata)
        self._start = time.perf_counter()

    def __enter__(self) -> None:
        route = self._route
        route.counts.start()
        self._context.set_trailing_metadata(((REQUEST_ID_HEADER, self.request_id),))
        if route.quiet and not call_log_enabled(logging.DEBUG):
            # Nothing binds fields to these calls but a refusal's reason, which would only
            # reach a line at debug level; with that line off, nothing would read them.
            self.fields, self._scope = _NO_FIELDS, None
        else:
            self.fields, self._scope = open_call_fields()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            self._finish(error)
        finally:
            if self._scope is not None:
                close_call_fields(self._scope)

    def _finish(self, error: BaseException | None) -> None:
        elapsed = time.perf_counter() - self._start
        context, route = self._context, self._route
        code = _status_code(context, error)
        name: str = code._name_  # what code.name returns, without the descriptor's call
        route.counts.finish(name, elapsed)
        if not self._log:
            return
        fault = code in _SERVER_FAULTS
        if not fault and self._scope is None:
            return  # a quiet call, whose debug line was found off when it started
        level = logging.ERROR if fault else logging.DEBUG if route.quiet else logging.INFO
        if not call_log_enabled(level):
            return
        # grpc logs the traceback of a failing handler itself; this line names the error and
        # carries the request id that ties the two together.
        line: dict[str, object] = {
            "method": route.method,
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


class TelemetryHandler(grpc.GenericRpcHandler):
    """The server's generic handler: every method of ``handlers``, wrapped with the per-call
    telemetry and guards. A method no handler knows is left to grpc (UNIMPLEMENTED)."""

    def __init__(
        self,
        handlers: Sequence[grpc.GenericRpcHandler],
        metrics: Metrics,
        gate: CallGate | None = None,
        door: Door | None = None,
        sources: Sources | None = None,
    ) -> None:
        self._handlers = tuple(handlers)
        self._metrics = metrics
        self._gate = gate
        self._door = door
        self._sources = sources
        self._routes: dict[str, _Route] = {}

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> _Handler | None:
        """The wrapped handler of the call's method, the call admitted under the bound."""
        handler = None
        for generic in self._handlers:
            handler = generic.service(handler_call_details)
            if handler is not None:
                break
        else:
            return None
        method = handler_call_details.method
        route = self._routes.get(method)
        if route is None or route.handler is not handler:
            route = self._route(method, handler)
        door = self._door
        if door is not None:
            refusal = door(method, handler_call_details.invocation_metadata)
            if refusal is not None:
                return _refusing(route, refusal, self._sources)
        gate = self._gate
        if gate is not None and route.bounded:
            if not gate.admit():
                if route.shed is None:
                    route.shed = _shed(route, self._metrics, gate)
                return route.shed
            # This runs in the call's own task, which ends when the call ends, whether its
            # handler ran, failed, or never started (a client that left before its body came).
            # A call whose job a lane takes gives its place back then (lanes/admission.py).
            task = asyncio.current_task()
            if task is None:  # pragma: no cover - grpc.aio runs every call in a task
                gate.release()
            else:
                slot = _Slot(gate)
                task.add_done_callback(slot.release)
                play_slot.set(slot.release)
        return route.wrapped

    def _route(self, method: str, handler: _Handler) -> _Route:
        if len(self._routes) >= _MAX_ROUTES:
            self._routes.clear()
        route = self._routes[method] = _Route(self._metrics, method, handler)
        return route


async def refuse(context: _Context, refusal: ApiError) -> NoReturn:
    """End the call with ``refusal``'s status and ErrorInfo, keeping the trailers set so far."""
    bind_call_fields(reason=refusal.reason)
    status = refusal.to_status()
    trailers = (*tuple(context.trailing_metadata() or ()), *status.trailing_metadata)
    await context.abort(status.code, status.details, trailing_metadata=trailers)
    raise AssertionError("abort returned")  # pragma: no cover


async def _checked(requests: AsyncIterable[Any], context: _Context) -> AsyncIterator[Any]:
    """The messages of a request stream, ending the call at the first that does not parse."""
    async for request in requests:
        if isinstance(request, MalformedRequest):
            await refuse(context, request_invalid(request.why))
        yield request


def _refusing(route: _Route, refusal: LaneError, sources: Sources | None) -> _Handler:
    """A handler of the same shape that refuses the call with ``refusal`` without parsing its
    body (heavy work its caller may not have, decided from the metadata), held as every
    refusal of heavy work is, for its source (:func:`~baloot_engine.lanes.admission.hold`)."""

    async def refused(_request: Any, context: _Context) -> None:
        with _Call(route, context):
            if sources is None:
                await hold(refusal, "", context.time_remaining())
            else:
                source = source_of(context, sources)
                await hold(refusal, source, context.time_remaining(), sources.pacer)
            await refuse(context, refusal_of(refusal))

    return _handler_like(route, refused)


def _handler_like(route: _Route, behaviour: Callable[..., Any]) -> _Handler:
    make = {
        "unary": grpc.unary_unary_rpc_method_handler,
        "client_stream": grpc.stream_unary_rpc_method_handler,
        "server_stream": grpc.unary_stream_rpc_method_handler,
        "bidi_stream": grpc.stream_stream_rpc_method_handler,
    }[route.call_type]
    return make(behaviour, None, route.handler.response_serializer)


def _shed(route: _Route, metrics: Metrics, gate: CallGate) -> _Handler:
    """A handler of the same shape that refuses the call at once, without parsing its body."""

    async def refused(_request: Any, context: _Context) -> None:
        metrics.shed.labels(*route.labels).inc()
        gate.shed()
        with _Call(route, context, log=False):
            await refuse(
                context,
                overloaded(
                    f"the server is running {gate.limit} calls, as many as it accepts at once; "
                    "retry after a short back-off"
                ),
            )

    return _handler_like(route, refused)


def _wrap(handler: _Handler, route: _Route) -> _Handler:
    """Return a handler that runs ``handler``'s behaviour inside a :class:`_Call`."""
    deserializer, serializer = tolerant(handler.request_deserializer), handler.response_serializer
    streaming_in, streaming_out = handler.request_streaming, handler.response_streaming

    if not streaming_out:
        unary_behavior: Any = handler.stream_unary if streaming_in else handler.unary_unary

        async def unary(request: Any, context: _Context) -> Any:
            with _Call(route, context):
                if streaming_in:
                    return await unary_behavior(_checked(request, context), context)
                if isinstance(request, MalformedRequest):
                    await refuse(context, request_invalid(request.why))
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
        # The responses are written from here, in the call's own task, not yielded again from
        # a wrapping generator: such a generator, left suspended when the client cancels, is
        # closed later by the garbage collector, outside the call, and its bookkeeping then
        # reads a call grpc has already freed (the process dies of a segmentation fault).
        async def driven(request: Any, context: _Context) -> None:
            with _Call(route, context):
                if streaming_in:
                    request = _checked(request, context)
                elif isinstance(request, MalformedRequest):
                    await refuse(context, request_invalid(request.why))
                responses = stream_behavior(request, context)
                try:
                    async for item in responses:
                        await context.write(item)
                finally:
                    await responses.aclose()

        return make(driven, deserializer, serializer)

    # A streaming behaviour that writes with ``context.write`` and returns None.
    async def written(request: Any, context: _Context) -> None:
        with _Call(route, context):
            if streaming_in:
                request = _checked(request, context)
            elif isinstance(request, MalformedRequest):
                await refuse(context, request_invalid(request.why))
            await stream_behavior(request, context)

    return make(written, deserializer, serializer)
