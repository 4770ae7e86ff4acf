"""The server in this process, over real loopback connections: health, reflection, RPCs, metrics."""

from __future__ import annotations

import threading
import urllib.request
from collections.abc import Callable

import grpc
import pytest
from google.protobuf import descriptor_pb2
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_status import rpc_status
from prometheus_client.parser import text_string_to_metric_families
from tests.waiting import HANG_GUARD, wait_until

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot_engine.server.app import NOT_SERVING, SERVING, create_server

from .conftest import InProcessServer

SERVICE = "baloot.v1.BalootEngineService"


def health_status(channel: grpc.Channel, service: str = "") -> int:
    stub = health_pb2_grpc.HealthStub(channel)
    return stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=5).status


def reflect(channel: grpc.Channel, request: reflection_pb2.ServerReflectionRequest):
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    return next(iter(stub.ServerReflectionInfo(iter([request]), timeout=5)))


def scrape(server: InProcessServer) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Return every sample of the metrics endpoint, keyed by name and sorted labels."""
    url = f"http://127.0.0.1:{server.app.metrics_port}/metrics"
    with urllib.request.urlopen(url, timeout=5) as response:
        text = response.read().decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_health_is_serving_after_start(channel: grpc.Channel) -> None:
    assert health_status(channel) == SERVING
    assert health_status(channel, SERVICE) == SERVING


def test_health_of_an_unknown_service_is_not_found(channel: grpc.Channel) -> None:
    with pytest.raises(grpc.RpcError) as raised:
        health_status(channel, "no.such.Service")
    assert raised.value.code() is grpc.StatusCode.NOT_FOUND


def test_reflection_lists_the_engine_service(channel: grpc.Channel) -> None:
    response = reflect(channel, reflection_pb2.ServerReflectionRequest(list_services=""))
    names = {service.name for service in response.list_services_response.service}
    assert SERVICE in names
    assert "grpc.health.v1.Health" in names


def test_reflection_serves_the_contract_with_its_dependencies(channel: grpc.Channel) -> None:
    response = reflect(
        channel, reflection_pb2.ServerReflectionRequest(file_containing_symbol=SERVICE)
    )
    files = [
        descriptor_pb2.FileDescriptorProto.FromString(raw)
        for raw in response.file_descriptor_response.file_descriptor_proto
    ]
    by_name = {file.name: file for file in files}
    assert "baloot/v1/engine_service.proto" in by_name
    assert {"baloot/v1/types.proto", "baloot/v1/rules.proto"} <= set(by_name)
    methods = {m.name for m in by_name["baloot/v1/engine_service.proto"].service[0].method}
    assert {"CreateMatch", "PlayCard", "ScoreRound", "ListLegalActions"} <= methods


@pytest.mark.parametrize(
    ("method", "request_message", "reason"),
    [
        ("DealRound", pb.DealRoundRequest(), "REQUEST_INVALID"),
        ("PlaceBid", pb.PlaceBidRequest(), "REQUEST_INVALID"),
        ("CallDouble", pb.CallDoubleRequest(), "REQUEST_INVALID"),
        ("DeclareProjects", pb.DeclareProjectsRequest(), "REQUEST_INVALID"),
        ("PlayCard", pb.PlayCardRequest(), "REQUEST_INVALID"),
        ("GetScore", pb.GetScoreRequest(), "REQUEST_INVALID"),
        ("GetView", pb.GetViewRequest(), "REQUEST_INVALID"),
        ("ListLegalActions", pb.ListLegalActionsRequest(), "REQUEST_INVALID"),
        ("ScoreRound", pb.ScoreRoundRequest(), "INVALID_ROUND_FACTS"),
    ],
)
def test_an_empty_request_is_refused_with_a_reason(
    channel: grpc.Channel, method: str, request_message: object, reason: str
) -> None:
    stub = pb_grpc.BalootEngineServiceStub(channel)
    with pytest.raises(grpc.RpcError) as raised:
        getattr(stub, method)(request_message, timeout=5)
    assert raised.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    status = rpc_status.from_call(raised.value)
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    assert info.domain == "baloot.v1"
    assert info.reason == reason


def test_an_empty_create_match_starts_a_seeds_match(channel: grpc.Channel) -> None:
    stub = pb_grpc.BalootEngineServiceStub(channel)
    response = stub.CreateMatch(pb.CreateMatchRequest(), timeout=5)
    assert response.state_version == 0
    assert len(response.match_id) == 32
    assert len(response.seat_credentials) == 4
    assert [view.seat for view in response.views] == [0, 1, 2, 3]


def test_request_id_is_echoed_in_trailing_metadata(channel: grpc.Channel) -> None:
    stub = pb_grpc.BalootEngineServiceStub(channel)
    with pytest.raises(grpc.RpcError) as raised:
        stub.GetView(pb.GetViewRequest(), metadata=[("x-request-id", "req-42")], timeout=5)
    assert ("x-request-id", "req-42") in tuple(raised.value.trailing_metadata())


def test_a_request_id_is_generated_when_none_or_a_malformed_one_is_sent(
    channel: grpc.Channel,
) -> None:
    stub = pb_grpc.BalootEngineServiceStub(channel)
    seen = []
    for metadata in ([], [("x-request-id", "has spaces")], [("x-request-id", "x" * 200)]):
        with pytest.raises(grpc.RpcError) as raised:
            stub.GetScore(pb.GetScoreRequest(), metadata=metadata, timeout=5)
        trailing = dict(raised.value.trailing_metadata())
        assert len(trailing["x-request-id"]) == 32
        seen.append(trailing["x-request-id"])
    assert len(set(seen)) == 3


def test_metrics_count_the_call_by_method_and_code(
    server: InProcessServer, channel: grpc.Channel
) -> None:
    stub = pb_grpc.BalootEngineServiceStub(channel)
    labels = {"grpc_service": SERVICE, "grpc_method": "ListLegalActions", "grpc_type": "unary"}
    handled_key = (
        "grpc_server_handled_total",
        tuple(sorted({**labels, "grpc_code": "INVALID_ARGUMENT"}.items())),
    )
    before = scrape(server).get(handled_key, 0.0)
    for _ in range(3):
        with pytest.raises(grpc.RpcError):
            stub.ListLegalActions(pb.ListLegalActionsRequest(), timeout=5)
    # A refusal's status is sent before the call is counted: the client may see it first.
    wait_until(
        lambda: scrape(server).get(handled_key, 0.0) == before + 3, "the three calls counted"
    )
    samples = scrape(server)
    assert samples[handled_key] == before + 3
    started_key = ("grpc_server_started_total", tuple(sorted(labels.items())))
    assert samples[started_key] >= 3
    count_key = ("grpc_server_handling_seconds_count", tuple(sorted(labels.items())))
    assert samples[count_key] >= 3
    assert ("process_cpu_seconds_total", ()) in samples


def test_health_checks_are_counted_as_ok(server: InProcessServer, channel: grpc.Channel) -> None:
    health_status(channel)
    key = (
        "grpc_server_handled_total",
        tuple(
            sorted(
                {
                    "grpc_service": "grpc.health.v1.Health",
                    "grpc_method": "Check",
                    "grpc_type": "unary",
                    "grpc_code": "OK",
                }.items()
            )
        ),
    )
    wait_until(lambda: scrape(server).get(key, 0.0) >= 1, "the check counted")


def test_a_server_without_metrics_opens_no_endpoint(
    start_server: Callable[..., InProcessServer],
) -> None:
    running = start_server(metrics_enabled=False, reflection=False)
    assert running.app.metrics_port is None
    with grpc.insecure_channel(running.target) as channel:
        assert health_status(channel) == SERVING
        with pytest.raises(grpc.RpcError) as raised:
            reflect(channel, reflection_pb2.ServerReflectionRequest(list_services=""))
        assert raised.value.code() is grpc.StatusCode.UNIMPLEMENTED


def test_create_server_reports_not_serving_until_started(
    start_server: Callable[..., InProcessServer],
) -> None:
    # Borrow a running loop: build a second, bare server from create_server on it.
    host = start_server()

    async def build_and_probe() -> tuple[int, object]:
        bare, port = await create_server(host.settings)
        await bare.start()
        return port, bare

    port, bare = host.run(build_and_probe())
    try:
        assert port > 0
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            assert health_status(channel) == NOT_SERVING
            assert health_status(channel, SERVICE) == NOT_SERVING
    finally:
        host.run(bare.stop(None))  # type: ignore[attr-defined]


def test_stop_turns_health_not_serving_for_watchers(
    start_server: Callable[..., InProcessServer],
) -> None:
    running = start_server(grace_seconds=5.0)
    with grpc.insecure_channel(running.target) as channel:
        watch = health_pb2_grpc.HealthStub(channel).Watch(
            health_pb2.HealthCheckRequest(service=SERVICE), timeout=HANG_GUARD
        )
        statuses = iter(watch)
        assert next(statuses).status == SERVING
        stopper = threading.Thread(target=running.stop)
        stopper.start()
        assert next(statuses).status == NOT_SERVING
        watch.cancel()
        stopper.join(timeout=HANG_GUARD)  # the stop ends: how fast is not checked
        assert not stopper.is_alive()


def test_a_busy_port_stops_start_up_with_a_clear_error(
    server: InProcessServer, start_server: Callable[..., InProcessServer]
) -> None:
    with pytest.raises(RuntimeError, match=f"cannot listen on 127.0.0.1:{server.app.port}"):
        start_server(port=server.app.port)


async def _broken(request: bytes, context: object) -> bytes:
    raise ZeroDivisionError("a bug in a handler")


def test_a_failing_handler_is_counted_and_logged_as_unknown(
    start_server: Callable[..., InProcessServer], caplog: pytest.LogCaptureFixture
) -> None:
    broken = grpc.method_handlers_generic_handler(
        "baloot.test.BrokenService", {"Fail": grpc.unary_unary_rpc_method_handler(_broken)}
    )
    running = start_server(extra_handlers=[broken])
    with grpc.insecure_channel(running.target) as channel:
        with pytest.raises(grpc.RpcError) as raised:
            channel.unary_unary("/baloot.test.BrokenService/Fail")(b"", timeout=5)
        assert raised.value.code() is grpc.StatusCode.UNKNOWN
    key = (
        "grpc_server_handled_total",
        tuple(
            sorted(
                {
                    "grpc_service": "baloot.test.BrokenService",
                    "grpc_method": "Fail",
                    "grpc_type": "unary",
                    "grpc_code": "UNKNOWN",
                }.items()
            )
        ),
    )
    assert scrape(running)[key] == 1
    lines = [r for r in caplog.records if r.name == "baloot_engine.rpc" and "Broken" in r.msg]
    assert [r.levelname for r in lines] == ["ERROR"]
    assert "ZeroDivisionError: a bug in a handler" in lines[0].getMessage()
