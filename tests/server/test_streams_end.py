"""Long streams end as documented: neither the connection-age limit nor the SIGTERM drain cuts
an analysis inside its deadline without a reason a client can act on."""

from __future__ import annotations

import threading
from functools import cache

import grpc
import pytest
from tests.api.conftest import read_refusal
from tests.server.conftest import InProcessServer, make_settings

from baloot.v1 import analysis_pb2, records_pb2
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot_engine.analysis.selfplay import play_record
from baloot_engine.api.analysis import record_message
from baloot_engine.bots import Level


@cache
def _record() -> records_pb2.MatchRecord:
    # Six rounds: a DEEP analysis of them all takes far longer than the deadlines below.
    start, rounds = play_record([Level.BASIC] * 4, 3, max_rounds=6)
    return record_message(start, rounds)


def _deep(deadline_ms: int = 0) -> analysis_pb2.AnalyzeRecordRequest:
    return analysis_pb2.AnalyzeRecordRequest(
        record=_record(), depth=analysis_pb2.ANALYSIS_DEPTH_DEEP, deadline_ms=deadline_ms
    )


def test_the_connection_age_limit_does_not_cut_a_stream_inside_its_deadline() -> None:
    # Connections are asked to close after 1 s; the stream's own deadline is 4 s: with the
    # default grace it ends by its deadline (ANALYSIS_DEADLINE), not by the connection's age.
    settings = make_settings(max_connection_age_seconds=1.0)
    assert settings.max_connection_age_grace_seconds > 600  # the longest analysis
    with (
        InProcessServer(settings) as server,
        grpc.insecure_channel(server.target) as channel,
    ):
        stub = pb_grpc.BalootEngineServiceStub(channel)
        stream = stub.AnalyzeRecord(_deep(deadline_ms=4000), timeout=60)
        with pytest.raises(grpc.RpcError) as ended:
            for _ in stream:
                pass
        refused = read_refusal(ended.value)
        assert (refused.code, refused.reason) == (
            grpc.StatusCode.DEADLINE_EXCEEDED,
            "ANALYSIS_DEADLINE",
        )


def test_a_stream_running_at_the_end_of_the_drain_ends_with_a_reason_to_retry() -> None:
    settings = make_settings(grace_seconds=2.0, lame_duck_seconds=0.0)
    server = InProcessServer(settings)
    with server, grpc.insecure_channel(server.target) as channel:
        stub = pb_grpc.BalootEngineServiceStub(channel)
        stream = stub.AnalyzeRecord(_deep(), timeout=120)
        assert next(stream).WhichOneof("report") == "progress"
        stopping = threading.Thread(target=server.stop)
        stopping.start()
        with pytest.raises(grpc.RpcError) as ended:
            for _ in stream:
                pass
        stopping.join(30)
    refused = read_refusal(ended.value)
    assert (refused.code, refused.reason) == (grpc.StatusCode.UNAVAILABLE, "DRAINING")
    assert int(refused.metadata["retry_after_ms"]) > 0


def test_a_grace_shorter_than_the_stream_would_cut_it() -> None:
    # What the default prevents: with a grace of half a second, grpc closes the connection
    # under the stream, which ends UNAVAILABLE with no reason a client can act on.
    settings = make_settings(max_connection_age_seconds=1.0, max_connection_age_grace_seconds=0.5)
    with (
        InProcessServer(settings) as server,
        grpc.insecure_channel(server.target) as channel,
    ):
        stub = pb_grpc.BalootEngineServiceStub(channel)
        with pytest.raises(grpc.RpcError) as ended:
            for _ in stub.AnalyzeRecord(_deep(deadline_ms=8000), timeout=60):
                pass
        assert ended.value.code() is grpc.StatusCode.UNAVAILABLE
