"""Request bodies that do not parse: INVALID_ARGUMENT with reason REQUEST_INVALID, on every RPC.

The bodies are sent as raw bytes (no serializer), the way a broken or hostile client sends
them. Each refusal must carry the ErrorInfo, be counted in ``grpc_server_handled_total`` and get
its one log line like any other call, and grpc must not log a traceback for it.
"""

from __future__ import annotations

import json
import logging
import uuid
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2
from grpc_reflection.v1alpha import reflection_pb2
from grpc_status import rpc_status
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.waiting import wait_until

from baloot.v1 import engine_service_pb2 as pb

from .conftest import InProcessServer

ENGINE = pb.DESCRIPTOR.services_by_name["BalootEngineService"]
HEALTH = health_pb2.DESCRIPTOR.services_by_name["Health"]
REFLECTION = reflection_pb2.DESCRIPTOR.services_by_name["ServerReflection"]
SERVER_FAULTS = {grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL, grpc.StatusCode.DATA_LOSS}


@dataclass(frozen=True)
class Rpc:
    """One method of the server, as a raw client calls it."""

    service: str
    name: str
    request: Descriptor
    streaming_in: bool
    streaming_out: bool

    @property
    def path(self) -> str:
        return f"/{self.service}/{self.name}"

    def call(self, channel: grpc.Channel, body: bytes, request_id: str) -> Any:
        """Send ``body`` unparsed and return the first response message; raises RpcError."""
        metadata = [("x-request-id", request_id)]
        if self.streaming_in:
            stream = channel.stream_stream(self.path)(iter([body]), timeout=5, metadata=metadata)
            return next(iter(stream))
        if self.streaming_out:
            return next(iter(channel.unary_stream(self.path)(body, timeout=5, metadata=metadata)))
        return channel.unary_unary(self.path)(body, timeout=5, metadata=metadata)


def _rpcs() -> list[Rpc]:
    found = []
    for service in (ENGINE, HEALTH, REFLECTION):
        for method in service.methods:
            found.append(
                Rpc(
                    service.full_name,
                    method.name,
                    method.input_type,
                    method.client_streaming,
                    method.server_streaming,
                )
            )
    return found


RPCS = _rpcs()
UNARY_ENGINE_RPCS = [rpc for rpc in RPCS if rpc.service == ENGINE.full_name]


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _length_delimited(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def invalid_utf8_body(message: Descriptor, depth: int = 3) -> bytes | None:
    """A body whose only field is a string (maybe nested) holding bytes that are not UTF-8."""
    for field in message.fields:
        if field.type == FieldDescriptor.TYPE_STRING:
            return _length_delimited(field.number, b"ok \xff\xfe")
    if depth:
        for field in message.fields:
            if field.type == FieldDescriptor.TYPE_MESSAGE:
                inner = invalid_utf8_body(field.message_type, depth - 1)
                if inner is not None:
                    return _length_delimited(field.number, inner)
    return None


WITH_STRINGS = [rpc for rpc in RPCS if invalid_utf8_body(rpc.request) is not None]


def _error_info(error: grpc.RpcError) -> error_details_pb2.ErrorInfo | None:
    status = rpc_status.from_call(error)
    if status is None:
        return None
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return info
    return None


def _handled(server: InProcessServer, rpc: Rpc, code: str) -> float:
    labels = {
        "grpc_service": rpc.service,
        "grpc_method": rpc.name,
        "grpc_type": _call_type(rpc),
        "grpc_code": code,
    }
    value = server.app.metrics.registry.get_sample_value("grpc_server_handled_total", labels)
    return value or 0.0


def _call_type(rpc: Rpc) -> str:
    if rpc.streaming_in and rpc.streaming_out:
        return "bidi_stream"
    if rpc.streaming_in:
        return "client_stream"
    return "server_stream" if rpc.streaming_out else "unary"


def _rpc_lines(caplog: pytest.LogCaptureFixture, request_id: str) -> list[dict[str, Any]]:
    lines = []
    for record in caplog.records:
        if record.name == "baloot_engine.rpc":
            line = json.loads(record.getMessage())
            if line.get("request_id") == request_id:
                lines.append(line)
    return lines


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """Every record, health and reflection calls (logged at debug) included."""
    caplog.set_level(logging.DEBUG)
    return caplog


def _assert_refused_as_request_invalid(
    server: InProcessServer,
    channel: grpc.Channel,
    logs: pytest.LogCaptureFixture,
    rpc: Rpc,
    body: bytes,
) -> None:
    before = _handled(server, rpc, "INVALID_ARGUMENT")
    request_id = uuid.uuid4().hex
    with pytest.raises(grpc.RpcError) as raised:
        rpc.call(channel, body, request_id)
    error = raised.value
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT, error.details()
    assert error.details().startswith(f"the request body does not parse as {rpc.request.full_name}")
    info = _error_info(error)
    assert info is not None
    assert (info.reason, info.domain) == ("REQUEST_INVALID", "baloot.v1")
    assert dict(error.trailing_metadata())["x-request-id"] == request_id
    # The server finishes its bookkeeping just after the status has left.
    wait_until(
        lambda: _handled(server, rpc, "INVALID_ARGUMENT") == before + 1, "the refusal counted"
    )
    wait_until(lambda: bool(_rpc_lines(logs, request_id)), "the call's log line")
    (line,) = _rpc_lines(logs, request_id)
    assert line["method"] == rpc.path
    assert line["grpc_code"] == "INVALID_ARGUMENT"
    assert line["reason"] == "REQUEST_INVALID"
    complaints = [
        r
        for r in logs.records
        if r.name.startswith("grpc") and (r.levelno >= logging.WARNING or r.exc_info)
    ]
    assert complaints == []


@pytest.mark.parametrize("rpc", RPCS, ids=lambda rpc: rpc.path)
def test_a_truncated_body_is_request_invalid_on_every_rpc(
    server: InProcessServer, channel: grpc.Channel, logs: pytest.LogCaptureFixture, rpc: Rpc
) -> None:
    # 0x0a: the tag of field 1 as length-delimited, and then nothing.
    _assert_refused_as_request_invalid(server, channel, logs, rpc, b"\x0a")


@pytest.mark.parametrize("rpc", WITH_STRINGS, ids=lambda rpc: rpc.path)
def test_a_string_field_that_is_not_utf8_is_request_invalid(
    server: InProcessServer, channel: grpc.Channel, logs: pytest.LogCaptureFixture, rpc: Rpc
) -> None:
    body = invalid_utf8_body(rpc.request)
    assert body is not None
    _assert_refused_as_request_invalid(server, channel, logs, rpc, body)


def test_the_invalid_utf8_cases_cover_every_rpc_with_a_string_field() -> None:
    names = {rpc.name for rpc in WITH_STRINGS}
    assert {"PlayCard", "GetView", "SuggestAction", "Check", "Watch"} <= names
    assert "ServerReflectionInfo" in names


@pytest.mark.slow
@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    rpc=st.sampled_from([*UNARY_ENGINE_RPCS, *(r for r in RPCS if r.name == "Check")]),
    body=st.one_of(
        st.binary(max_size=96),
        st.lists(st.integers(0, 255), min_size=1, max_size=8).map(lambda b: b"\x0a" + bytes(b)),
    ),
)
def test_random_bodies_get_a_clear_status_and_the_server_keeps_serving(
    server: InProcessServer, channel: grpc.Channel, rpc: Rpc, body: bytes
) -> None:
    try:
        rpc.call(channel, body, uuid.uuid4().hex)
    except grpc.RpcError as error:
        code = error.code()
        assert code not in SERVER_FAULTS, (rpc.path, body, error.details())
        if rpc.service == ENGINE.full_name:
            info = _error_info(error)
            assert info is not None, (rpc.path, body, code)
            assert info.domain == "baloot.v1"
        if code is grpc.StatusCode.INVALID_ARGUMENT and "does not parse" in error.details():
            info = _error_info(error)
            assert info is not None
            assert info.reason == "REQUEST_INVALID"
    health = channel.unary_unary(
        "/grpc.health.v1.Health/Check",
        request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
        response_deserializer=health_pb2.HealthCheckResponse.FromString,
    )
    assert health(health_pb2.HealthCheckRequest(), timeout=5).status == (
        health_pb2.HealthCheckResponse.SERVING
    )
