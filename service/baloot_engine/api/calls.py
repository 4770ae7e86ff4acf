"""How every RPC runs: the caller read from the call, one mapping of refusals to statuses,
and the fixed time of a judged answer.

:func:`rpc` turns a unary body (``async def Method(self, request, context)``) into the
servicer's handler and :func:`streamed` a streaming one: the request's sizes are checked, the
body runs inside the match layer's ledger settlement (:meth:`Matches.settled`), and every
refusal, of the rules, of this layer or of a lane, leaves through :func:`refuse`.
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any, Final, NoReturn, Protocol, TypeVar

import grpc
import grpc.aio

from baloot_engine.api import inbound
from baloot_engine.api.matches import NO_CALLER, Caller, Matches, judged_call
from baloot_engine.api.refusals import WORKER_STOPPED, ApiError, Code
from baloot_engine.lanes import LaneError, Lanes, presented_key
from baloot_engine.lanes import errors as lane_errors
from baloot_engine.lanes.admission import answer_by, hold
from baloot_engine.lanes.sources import Sources, forwarded_of
from baloot_engine.rules import RuleError
from baloot_engine.telemetry.logs import bind_call_fields, get_logger

Context = grpc.aio.ServicerContext[Any, Any]

_LANE_CODES: Final = {
    lane_errors.LANE_FULL: Code.RESOURCE_EXHAUSTED,
    lane_errors.QUOTA_EXCEEDED: Code.RESOURCE_EXHAUSTED,
    lane_errors.API_KEY_REQUIRED: Code.UNAUTHENTICATED,
    lane_errors.API_KEY_INVALID: Code.UNAUTHENTICATED,
    lane_errors.LANE_DEADLINE: Code.DEADLINE_EXCEEDED,
    lane_errors.LANE_CLOSED: Code.UNAVAILABLE,
    lane_errors.DRAINING: Code.UNAVAILABLE,
    WORKER_STOPPED: Code.UNAVAILABLE,
}
_log = get_logger("baloot_engine.api")
_Response = TypeVar("_Response")
_Request = TypeVar("_Request")


class Serving(Protocol):
    """What the handlers need of the servicer: its match layer."""

    @property
    def matches(self) -> Matches: ...


_S = TypeVar("_S", bound=Serving)


def caller_of(context: Context | None, sources: Sources | None = None) -> Caller:
    """The API key a call presents, the deadline its lane work must meet (a margin before the
    call's own, :func:`~baloot_engine.lanes.admission.answer_by`, so that a refusal for time
    reaches the caller with its reason) and, given the deployment's ``sources``, the address
    it came from (a test may call a body without a call)."""
    if context is None:
        return NO_CALLER
    metadata = context.invocation_metadata()
    key = presented_key(metadata)
    remaining = context.time_remaining()
    deadline = None if remaining is None else time.monotonic() + answer_by(remaining)
    source = "" if sources is None else source_of(context, sources)
    return Caller(key, deadline, source)


def source_of(context: Context, sources: Sources) -> str:
    """The address a call came from (through a trusted gateway: the one it forwarded)."""
    return sources.source_of(context.peer(), forwarded_of(context.invocation_metadata()))


def door_of(lanes: Lanes, service: str) -> Callable[[str, Any], LaneError | None]:
    """The refusal, from a call's method and metadata alone, of the RPCs that are always heavy
    work (``SolveDeal``, ``AnalyzeRecord``, ``FairPlayReport``) when their caller may not have
    it or their lane has no room: given before the body (up to a megabyte of records) is read,
    so that a flood of them costs the server as little as it can."""
    heavy = {
        f"/{service}/SolveDeal": lanes.solve,
        f"/{service}/AnalyzeRecord": lanes.analysis,
        f"/{service}/FairPlayReport": lanes.analysis,
    }

    def door(method: str, metadata: Any) -> LaneError | None:
        lane = heavy.get(method)
        if lane is None:
            return None
        try:
            lanes.payer(presented_key(metadata), lane)
        except LaneError as error:
            return error
        return None

    return door


def refusal_of(error: ApiError | RuleError | LaneError) -> ApiError:
    """The refusal a caller reads for a rule's, this layer's or a lane's answer."""
    if isinstance(error, ApiError):
        return error
    if isinstance(error, RuleError):
        return ApiError.from_rule_error(error)
    return ApiError(
        _LANE_CODES.get(error.reason, Code.UNAVAILABLE),
        error.reason,
        error.message,
        error.metadata,
        retry_after=error.retry_after,
    )


def rpc(
    body: Callable[[_S, _Request, Context], Awaitable[_Response]],
) -> Callable[[_S, _Request, Context], Coroutine[Any, Any, _Response]]:
    """The handler of a unary RPC body."""

    @functools.wraps(body)
    async def handler(self: _S, request: _Request, context: Context) -> _Response:
        began = time.monotonic()
        try:
            try:
                inbound.check_sizes(request)
                return await self.matches.settled(lambda: body(self, request, context))
            finally:
                if judged_call.get():  # the answer, or the refusal, waits for its time
                    await self.matches.judge_clock.hold(began)
        except Exception as error:  # noqa: BLE001 - every way a call ends but its answer
            await _failed(context, error, body.__name__, self.matches.lanes.sources)
        raise AssertionError("abort returned")  # pragma: no cover

    return handler


def streamed(
    body: Callable[[_S, _Request, Context], AsyncIterator[_Response]],
) -> Callable[[_S, _Request, Context], AsyncIterator[_Response]]:
    """The handler of a server-streaming RPC body."""

    @functools.wraps(body)
    async def handler(self: _S, request: _Request, context: Context) -> AsyncIterator[_Response]:
        try:
            inbound.check_sizes(request)
            responses = body(self, request, context)
            async with contextlib.aclosing(responses):  # type: ignore[type-var]
                async for response in responses:
                    yield response
        except Exception as error:  # noqa: BLE001 - every way a call ends but its answers
            await _failed(context, error, body.__name__, self.matches.lanes.sources)

    return handler


async def _failed(context: Context, error: Exception, method: str, sources: Sources) -> NoReturn:
    """End a call that raised (called inside its ``except``): a refusal of a lane (held as
    :func:`~baloot_engine.lanes.admission.hold` says for its source), of this layer or of the
    rules leaves with its status; anything else is a defect, never the caller's input: logged
    whole, and answered INTERNAL without internals."""
    if isinstance(error, LaneError):
        source = source_of(context, sources)
        await hold(error, source, context.time_remaining(), sources.pacer)
        await refuse(context, refusal_of(error))
    if isinstance(error, ApiError | RuleError):
        await refuse(context, refusal_of(error))
    _log.exception("unexpected error", method=method)
    await context.abort(grpc.StatusCode.INTERNAL, "internal error; see the server log")
    raise AssertionError("abort returned")  # pragma: no cover


async def refuse(context: Context, refusal: ApiError) -> NoReturn:
    """End the call with ``refusal``'s status, keeping what the interceptors already put in
    the trailers (the request id)."""
    bind_call_fields(reason=refusal.reason)
    status = refusal.to_status()
    trailers = (*tuple(context.trailing_metadata() or ()), *status.trailing_metadata)
    await context.abort(status.code, status.details, trailing_metadata=trailers)
    raise AssertionError("abort_with_status returned")  # pragma: no cover


__all__ = [
    "Context",
    "Serving",
    "caller_of",
    "door_of",
    "refusal_of",
    "refuse",
    "rpc",
    "source_of",
    "streamed",
]
