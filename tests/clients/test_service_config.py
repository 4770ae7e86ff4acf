"""The clients' default service config: its copies agree, and it retries UNAVAILABLE only."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest
from baloot_client import SERVICE_CONFIG, EngineClient, EngineError, IllegalActionError

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc

ROOT = Path(__file__).resolve().parents[2]


def test_every_copy_of_the_service_config_is_the_repository_one() -> None:
    reference = json.loads((ROOT / "clients" / "service_config.json").read_text())
    assert reference == SERVICE_CONFIG
    go_copy = ROOT / "clients" / "go" / "cmd" / "play" / "service_config.json"
    assert json.loads(go_copy.read_text()) == reference
    policy = reference["methodConfig"][0]["retryPolicy"]
    assert policy["retryableStatusCodes"] == ["UNAVAILABLE"]


class FlakyEngine(pb_grpc.BalootEngineServiceServicer):
    """ScoreRound fails with ``code`` for the first ``failures`` calls, then answers."""

    def __init__(self) -> None:
        self.calls = 0
        self.failures = 0
        self.code = grpc.StatusCode.UNAVAILABLE
        self.lock = threading.Lock()

    def ScoreRound(  # noqa: N802 (the gRPC method name)
        self, request: pb.ScoreRoundRequest, context: grpc.ServicerContext
    ) -> pb.ScoreRoundResponse:
        del request
        with self.lock:
            self.calls += 1
            failing = self.calls <= self.failures
        if failing:
            context.abort(self.code, "not now")
        return pb.ScoreRoundResponse()


@pytest.fixture
def flaky() -> Iterator[tuple[FlakyEngine, str]]:
    engine = FlakyEngine()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    pb_grpc.add_BalootEngineServiceServicer_to_server(engine, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield engine, f"127.0.0.1:{port}"
    finally:
        server.stop(None)


def _client(target: str, service_config: dict[str, Any] | None = None) -> EngineClient:
    return EngineClient.connect(target, service_config=service_config, timeout=20.0)


def test_unavailable_is_retried_with_backoff(flaky: tuple[FlakyEngine, str]) -> None:
    engine, target = flaky
    engine.failures = 3
    _client(target).score_round(pb.ScoreRoundRequest())
    assert engine.calls == 4


def test_retries_stop_after_the_policys_attempts(flaky: tuple[FlakyEngine, str]) -> None:
    engine, target = flaky
    engine.failures = 100
    attempts = SERVICE_CONFIG["methodConfig"][0]["retryPolicy"]["maxAttempts"]
    with pytest.raises(EngineError) as refused:
        _client(target).score_round(pb.ScoreRoundRequest())
    assert refused.value.code == grpc.StatusCode.UNAVAILABLE
    assert engine.calls == attempts


def test_a_refusal_is_not_retried(flaky: tuple[FlakyEngine, str]) -> None:
    engine, target = flaky
    engine.failures = 100
    engine.code = grpc.StatusCode.FAILED_PRECONDITION
    with pytest.raises(IllegalActionError):
        _client(target).score_round(pb.ScoreRoundRequest())
    assert engine.calls == 1


def test_without_the_service_config_nothing_is_retried(flaky: tuple[FlakyEngine, str]) -> None:
    engine, target = flaky
    engine.failures = 1
    with pytest.raises(EngineError) as refused:
        _client(target, service_config={}).score_round(pb.ScoreRoundRequest())
    assert refused.value.code == grpc.StatusCode.UNAVAILABLE
    assert engine.calls == 1
