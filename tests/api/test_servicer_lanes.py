"""Heavy work through a real server: it needs an API key where the deployment issues them,
a full lane or a client over quota is refused at once with a retry delay, the play needs no
key, and the lanes report themselves on /metrics."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from baloot.v1 import analysis_pb2
from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot_engine.lanes.clients import parse_api_keys
from tests.server.conftest import InProcessServer, make_settings

from .conftest import dealt, expect_refusal, read_refusal

SECRET = "s3cret-key-of-the-app-0001"


@pytest.fixture(scope="module")
def keyed() -> Iterator[InProcessServer]:
    """A production-like server: one API key issued, so heavy work needs it."""
    settings = make_settings(api_keys=parse_api_keys(f"app:{SECRET}"), lane_solve_queue=1)
    with InProcessServer(settings) as running:
        yield running


@pytest.fixture(scope="module")
def stub(keyed: InProcessServer) -> Iterator[pb_grpc.BalootEngineServiceStub]:
    with grpc.insecure_channel(keyed.target) as channel:
        yield pb_grpc.BalootEngineServiceStub(channel)


def _suggest(created: pb.CreateMatchResponse, state: bytes, seat: int, level: int) -> Any:
    return pb.SuggestActionRequest(
        state=state,
        match_id=created.match_id,
        credential=created.host_credential,
        seat=seat,
        level=level,  # type: ignore[arg-type]
        seed=1,
    )


def test_a_searching_bot_needs_the_key_and_the_play_does_not(
    stub: pb_grpc.BalootEngineServiceStub,
) -> None:
    created, state, turn = dealt(stub)  # the play: no key
    strong = _suggest(created, state, turn, pb.BOT_LEVEL_STRONG)
    refused = expect_refusal(
        stub.SuggestAction, strong, grpc.StatusCode.UNAUTHENTICATED, "API_KEY_REQUIRED"
    )
    assert refused.metadata["lane"] == "bots"
    answered = stub.SuggestAction(strong, metadata=(("x-api-key", SECRET),))
    assert answered.action.WhichOneof("action") == "bid"
    bearer = stub.SuggestAction(strong, metadata=(("authorization", f"Bearer {SECRET}"),))
    assert bearer.action == answered.action
    basic = stub.SuggestAction(_suggest(created, state, turn, pb.BOT_LEVEL_BASIC))
    assert basic.action.WhichOneof("action") == "bid"  # inline: no key needed


def test_a_key_the_deployment_did_not_issue_is_refused(
    stub: pb_grpc.BalootEngineServiceStub,
) -> None:
    created, state, turn = dealt(stub)
    request = _suggest(created, state, turn, pb.BOT_LEVEL_EXPERT)
    try:
        stub.SuggestAction(request, metadata=(("x-api-key", "guessed-guessed-guessed"),))
    except grpc.RpcError as error:
        assert error.code() is grpc.StatusCode.UNAUTHENTICATED
        assert "API key" in (error.details() or "")
    else:
        pytest.fail("a key never issued was accepted")


def test_analysis_and_solves_need_the_key(
    keyed: InProcessServer, stub: pb_grpc.BalootEngineServiceStub
) -> None:
    solve = _a_record_solve()
    expect_refusal(stub.SolveDeal, solve, grpc.StatusCode.UNAUTHENTICATED, "API_KEY_REQUIRED")
    # Refused from the metadata alone, before the body is read: even one that does not parse.
    with grpc.insecure_channel(keyed.target) as channel:
        raw = channel.unary_stream(
            "/baloot.v1.BalootEngineService/AnalyzeRecord",
            request_serializer=lambda body: body,
            response_deserializer=lambda body: body,
        )
        for method, request in (
            (stub.AnalyzeRecord, analysis_pb2.AnalyzeRecordRequest()),
            (raw, b"\xff\xff not a message"),
        ):
            with pytest.raises(grpc.RpcError) as refused:
                list(method(request, timeout=10))
            assert refused.value.code() is grpc.StatusCode.UNAUTHENTICATED
            assert read_refusal(refused.value).reason == "API_KEY_REQUIRED"
    with pytest.raises(grpc.RpcError) as fair:
        list(stub.FairPlayReport(analysis_pb2.FairPlayReportRequest(), timeout=10))
    assert read_refusal(fair.value).reason == "API_KEY_REQUIRED"


def test_a_full_lane_answers_resource_exhausted_with_retry_info(
    stub: pb_grpc.BalootEngineServiceStub,
) -> None:
    # The solve lane holds one waiting job here: twelve solves at once overflow it.
    metadata = (("x-api-key", SECRET),)
    record_request = _a_record_solve()
    futures = [stub.SolveDeal.future(record_request, metadata=metadata) for _ in range(12)]
    codes = []
    for future in futures:
        try:
            future.result(timeout=60)
            codes.append("OK")
        except grpc.RpcError as error:
            status = rpc_status.from_call(error)  # type: ignore[arg-type]
            assert status is not None
            infos = [d for d in status.details if d.Is(error_details_pb2.ErrorInfo.DESCRIPTOR)]
            info = error_details_pb2.ErrorInfo()
            infos[0].Unpack(info)
            codes.append(info.reason)
            if info.reason in ("LANE_FULL", "QUOTA_EXCEEDED"):
                assert error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
                retry = [d for d in status.details if d.Is(error_details_pb2.RetryInfo.DESCRIPTOR)]
                assert len(retry) == 1
                delay = error_details_pb2.RetryInfo()
                retry[0].Unpack(delay)
                assert delay.retry_delay.ToMilliseconds() >= 1
                assert int(info.metadata["retry_after_ms"]) == delay.retry_delay.ToMilliseconds()
    assert "OK" in codes
    assert {"LANE_FULL", "QUOTA_EXCEEDED"} & set(codes), codes


def _a_record_solve() -> pb.SolveDealRequest:
    from baloot_engine.analysis.selfplay import play_record
    from baloot_engine.api.analysis import record_message
    from baloot_engine.bots import Level

    start, rounds = play_record([Level.BASIC] * 4, 5, max_rounds=1)
    record = record_message(start, rounds)
    request = pb.SolveDealRequest()
    request.record.record.CopyFrom(record)
    actions = record.rounds[0].actions
    request.record.round_index = 0
    request.record.action_index = next(
        i for i, a in enumerate(actions) if a.action.WhichOneof("action") == "play"
    )
    return request


def test_the_lanes_report_on_metrics(keyed: InProcessServer) -> None:
    port = keyed.app.metrics_port
    assert port is not None
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    for family in (
        "baloot_lane_queue_depth",
        "baloot_lane_running",
        "baloot_lane_wait_seconds_bucket",
        "baloot_lane_run_seconds_bucket",
        "baloot_lane_cpu_seconds_total",
        "baloot_lane_refusals_total",
    ):
        assert family in text, family
    assert 'baloot_lane_refusals_total{lane="bots",reason="API_KEY_REQUIRED"}' in text
