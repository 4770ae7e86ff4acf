"""The bound on concurrent calls: the excess is refused with OVERLOADED, counted and logged.

A test-only service whose calls wait for an event held by the test keeps exactly as many calls
running as the test wants; the bound is set low so that the test stays small.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable

import grpc
import grpc.aio
import pytest
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status
from tests.waiting import wait_until

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc

from .conftest import InProcessServer

BOUND = 4
HELD = "/baloot.test.HeldService/Hold"


class Held:
    """Calls that run until the test releases them (on the server's own loop)."""

    def __init__(self) -> None:
        self.release: asyncio.Event | None = None

    async def hold(
        self, _request: bytes, _context: grpc.aio.ServicerContext[bytes, bytes]
    ) -> bytes:
        if self.release is None:
            self.release = asyncio.Event()
        await self.release.wait()
        return b"done"

    def handler(self) -> grpc.GenericRpcHandler:
        return grpc.method_handlers_generic_handler(
            "baloot.test.HeldService", {"Hold": grpc.unary_unary_rpc_method_handler(self.hold)}
        )


def _shed(server: InProcessServer, service: str, method: str) -> float:
    value = server.app.metrics.registry.get_sample_value(
        "baloot_rpcs_shed_total", {"grpc_service": service, "grpc_method": method}
    )
    return value or 0.0


def _handled(server: InProcessServer, service: str, method: str, code: str) -> float:
    value = server.app.metrics.registry.get_sample_value(
        "grpc_server_handled_total",
        {"grpc_service": service, "grpc_method": method, "grpc_type": "unary", "grpc_code": code},
    )
    return value or 0.0


def _reason(error: grpc.RpcError) -> str:
    status = rpc_status.from_call(error)
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    assert info.domain == "baloot.v1"
    return info.reason


def _shed_lines(caplog: pytest.LogCaptureFixture) -> list[dict[str, object]]:
    lines = []
    for record in caplog.records:
        if record.name == "baloot_engine.rpc" and '"calls shed"' in record.getMessage():
            lines.append(json.loads(record.getMessage()))
    return lines


def test_calls_beyond_the_bound_are_refused_with_overloaded_counted_and_logged(
    start_server: Callable[..., InProcessServer], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    held = Held()
    running = start_server(extra_handlers=[held.handler()], max_concurrent_rpcs=BOUND)
    with grpc.insecure_channel(running.target) as channel:
        hold = channel.unary_unary(HELD)
        admitted = [hold.future(b"", timeout=30) for _ in range(BOUND)]
        wait_until(lambda: running.app.gate.active == BOUND, "the held calls")

        # More held calls, and engine calls: all refused at once, whatever the method.
        for _ in range(3):
            with pytest.raises(grpc.RpcError) as raised:
                hold(b"", timeout=10)
            assert raised.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
            assert _reason(raised.value) == "OVERLOADED"
            assert "x-request-id" in dict(raised.value.trailing_metadata())
        engine = pb_grpc.BalootEngineServiceStub(channel)
        for _ in range(20):
            with pytest.raises(grpc.RpcError) as raised:
                engine.CreateMatch(pb.CreateMatchRequest(), timeout=10)
            assert raised.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
            assert _reason(raised.value) == "OVERLOADED"

        # Health checks are outside the bound: a balancer still sees the replica alive.
        health = health_pb2_grpc.HealthStub(channel)
        reply = health.Check(health_pb2.HealthCheckRequest(), timeout=10)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING

        # Counted per method, in the shed counter and among the handled calls.
        wait_until(
            lambda: _shed(running, "baloot.v1.BalootEngineService", "CreateMatch") == 20,
            "20 calls shed",
        )
        assert _shed(running, "baloot.test.HeldService", "Hold") == 3
        # A refusal is sent before the call is counted as handled: the client may see it first.
        wait_until(
            lambda: (
                _handled(running, "baloot.test.HeldService", "Hold", "RESOURCE_EXHAUSTED") == 3
                and _handled(
                    running, "baloot.v1.BalootEngineService", "CreateMatch", "RESOURCE_EXHAUSTED"
                )
                == 20
            ),
            "the refused calls counted as handled",
        )
        # Logged, but not one line per refused call: one line a second at most, with a count.
        wait_until(
            lambda: sum(int(str(line["calls"])) for line in _shed_lines(caplog)) == 23,
            "the shed calls' log lines",
        )
        lines = _shed_lines(caplog)
        assert 1 <= len(lines) <= 3
        assert {line["level"] for line in lines} == {"warning"}
        assert {line["max_concurrent_rpcs"] for line in lines} == {BOUND}

        # The admitted calls were not disturbed; once they end, calls are admitted again.
        assert all(not call.done() for call in admitted)
        release = held.release
        assert release is not None
        running.run(_set(release))
        assert [call.result(timeout=10) for call in admitted] == [b"done"] * BOUND
        wait_until(lambda: running.app.gate.active == 0, "the released calls")
        assert engine.CreateMatch(pb.CreateMatchRequest(), timeout=10).match_id


def test_a_call_whose_client_leaves_frees_its_place(
    start_server: Callable[..., InProcessServer],
) -> None:
    held = Held()
    running = start_server(extra_handlers=[held.handler()], max_concurrent_rpcs=BOUND)
    with grpc.insecure_channel(running.target) as channel:
        hold = channel.unary_unary(HELD)
        leaving = [hold.future(b"", timeout=30) for _ in range(BOUND)]
        wait_until(lambda: running.app.gate.active == BOUND, "the held calls")
        for call in leaving:
            call.cancel()
        wait_until(lambda: running.app.gate.active == 0, "the released calls")
        staying = [hold.future(b"", timeout=30) for _ in range(BOUND)]
        wait_until(lambda: running.app.gate.active == BOUND, "the held calls")
        release = held.release
        assert release is not None
        running.run(_set(release))
        assert [call.result(timeout=10) for call in staying] == [b"done"] * BOUND


async def _set(event: asyncio.Event) -> None:
    event.set()


def test_a_burst_while_the_loop_is_busy_is_refused_with_overloaded_not_cancelled(
    start_server: Callable[..., InProcessServer],
) -> None:
    """Issue 27, finding 7: with a low bound, calls that waited in grpc's own queue (the event
    loop busy) were cancelled by grpc, with no reason and no metric. They reach the gate now."""
    running = start_server(max_concurrent_rpcs=1)
    calls = 2500
    channels = [grpc.insecure_channel(running.target) for _ in range(4)]
    try:
        stubs = [pb_grpc.BalootEngineServiceStub(channel) for channel in channels]
        for stub in stubs:
            stub.CreateMatch(pb.CreateMatchRequest(), timeout=10)
        running._loop.call_soon_threadsafe(time.sleep, 2)  # the loop busy as the burst comes
        burst = [
            stubs[i % len(stubs)].CreateMatch.future(pb.CreateMatchRequest(), timeout=60)
            for i in range(calls)
        ]
        codes: dict[str, int] = {}
        for future in burst:
            try:
                future.result()
                code = "OK"
            except grpc.RpcError as error:
                code = error.code().name
                assert code == "RESOURCE_EXHAUSTED", error
                assert _reason(error) == "OVERLOADED"
            codes[code] = codes.get(code, 0) + 1
        assert "CANCELLED" not in codes
        refused = codes.get("RESOURCE_EXHAUSTED", 0)
        assert refused > 0
        wait_until(
            lambda: _shed(running, "baloot.v1.BalootEngineService", "CreateMatch") == refused,
            "every refusal counted",
        )
    finally:
        for channel in channels:
            channel.close()
