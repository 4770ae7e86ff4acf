"""AnalyzeRecord over a real in-process server: the stream, its limits, deadline, cancellation."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from functools import cache
from typing import Any

import grpc
import pytest
from baloot_client import EngineClient, EngineError

from baloot.v1 import analysis_pb2, records_pb2
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot_engine.analysis import Decision, Depth, analyze, budget_of
from baloot_engine.analysis.selfplay import play_record
from baloot_engine.api.analysis import prepare, record_message
from baloot_engine.bots import Level
from baloot_engine.lanes.process import LaneProcess
from tests.api.conftest import expect_refusal, read_refusal
from tests.server.conftest import InProcessServer


@cache
def record() -> records_pb2.MatchRecord:
    start, rounds = play_record([Level.BASIC] * 4, 3, max_rounds=2)
    return record_message(start, rounds)


def request(**fields: object) -> analysis_pb2.AnalyzeRecordRequest:
    fields.setdefault("depth", analysis_pb2.ANALYSIS_DEPTH_QUICK)
    return analysis_pb2.AnalyzeRecordRequest(record=record(), **fields)


def test_the_stream_is_the_core_s_analysis(stub: pb_grpc.BalootEngineServiceStub) -> None:
    stream = stub.AnalyzeRecord(request(seats=[1, 3], rounds=[1], seed=7), timeout=60)
    first = next(stream)
    assert first.WhichOneof("report") == "progress"
    assert first.progress.done == 0
    responses = [first, *stream]
    assert responses[-1].WhichOneof("report") == "match"
    assert responses[-2].WhichOneof("report") == "round"
    decisions = [r.decision for r in responses if r.WhichOneof("report") == "decision"]
    assert decisions
    assert {d.seat for d in decisions} <= {1, 3}
    assert {d.round_index for d in decisions} == {1}
    start, rounds = prepare(record())
    core = [
        r
        for r in analyze(
            start, rounds, seats=[1, 3], round_indices=[1], budget=budget_of(Depth.QUICK), seed=7
        )
        if isinstance(r, Decision)
    ]
    assert [(d.action_index, d.fair_loss, d.taken) for d in decisions] == [
        (d.action_index, d.fair_loss, d.taken) for d in core
    ]
    one = decisions[0]
    assert one.explanation.en
    assert one.explanation.ar
    assert len(one.alternatives) >= 2
    assert one.alternatives[one.taken].fair.HasField("match_chance")
    round_ = responses[-2].round
    assert round_.par.score
    assert round_.contract.multiplier >= 1


def test_limits_are_checked_before_any_work(stub: pb_grpc.BalootEngineServiceStub) -> None:
    def refused(bad: analysis_pb2.AnalyzeRecordRequest, code: grpc.StatusCode, reason: str) -> None:
        with pytest.raises(grpc.RpcError) as error:
            list(stub.AnalyzeRecord(bad, timeout=20))
        got = read_refusal(error.value)
        assert (got.code, got.reason) == (code, reason), got

    invalid = grpc.StatusCode.INVALID_ARGUMENT
    refused(request(worlds=201), invalid, "ANALYSIS_BUDGET_INVALID")
    refused(request(deadline_ms=600_001), invalid, "ANALYSIS_BUDGET_INVALID")
    refused(request(seats=[4]), invalid, "ANALYSIS_BUDGET_INVALID")
    refused(request(rounds=[7]), invalid, "ANALYSIS_BUDGET_INVALID")
    refused(request(seats=list(range(9))), invalid, "ANALYSIS_BUDGET_INVALID")
    big = analysis_pb2.AnalyzeRecordRequest()
    big.record.CopyFrom(record())
    for _ in range(201):
        big.record.rounds.add()
    refused(big, invalid, "RECORD_TOO_LARGE")
    broken = request()
    broken.record.rounds[0].score.teams[0].final_points += 1
    with pytest.raises(grpc.RpcError) as error:
        list(stub.AnalyzeRecord(broken, timeout=20))
    divergence = read_refusal(error.value)
    assert divergence.code == grpc.StatusCode.FAILED_PRECONDITION
    assert divergence.reason == "RECORD_DIVERGES"
    assert divergence.metadata["round_index"] == "0"
    assert divergence.metadata["divergence"] == "RECORD_MISMATCH"
    assert expect_refusal  # the shared helper reads unary calls; streams are read above


def test_the_deadline_ends_the_stream_with_its_reason(
    stub: pb_grpc.BalootEngineServiceStub,
) -> None:
    list(stub.AnalyzeRecord(request(rounds=[0], seats=[0]), timeout=60))  # a warm worker
    responses: list[analysis_pb2.AnalyzeRecordResponse] = []
    stream = stub.AnalyzeRecord(request(deadline_ms=300, worlds=40), timeout=60)
    with pytest.raises(grpc.RpcError) as error:
        responses.extend(stream)
    refused = read_refusal(error.value)
    assert refused.code == grpc.StatusCode.DEADLINE_EXCEEDED
    assert refused.reason == "ANALYSIS_DEADLINE"
    assert responses[0].WhichOneof("report") == "progress"


def test_a_cancelled_call_stops_its_job(
    engine: InProcessServer, stub: pb_grpc.BalootEngineServiceStub
) -> None:
    # A DEEP analysis of the whole record takes tens of seconds; its call is cancelled.
    lane = engine.app.lanes.analysis
    stream = stub.AnalyzeRecord(request(depth=analysis_pb2.ANALYSIS_DEPTH_DEEP), timeout=120)
    assert next(stream).WhichOneof("report") == "progress"
    stream.cancel()
    # The job stops at its next unit of work (its process is not killed: the same one is free
    # again), and the next analysis runs in it.
    pids = lane.pids()
    again = stub.AnalyzeRecord(request(rounds=[0], seats=[2]), timeout=60)
    assert list(again)[-1].WhichOneof("report") == "match"
    assert lane.pids() == pids
    assert lane.running == 0


def test_the_python_client_streams_an_analysis(client: EngineClient) -> None:
    reports = list(
        client.analyze_record(
            record(), seats=[0], rounds=[0], depth=analysis_pb2.ANALYSIS_DEPTH_QUICK, seed=1
        )
    )
    assert reports[0].WhichOneof("report") == "progress"
    assert reports[-1].match.seats[0].seat == 0
    with pytest.raises(EngineError) as refused:
        list(client.analyze_record(record(), worlds=500))
    assert refused.value.reason == "ANALYSIS_BUDGET_INVALID"


def test_a_process_that_dies_fails_its_call_and_is_replaced(
    engine: InProcessServer, stub: pb_grpc.BalootEngineServiceStub
) -> None:
    lane = engine.app.lanes.analysis
    stream = stub.AnalyzeRecord(request(depth=analysis_pb2.ANALYSIS_DEPTH_DEEP), timeout=120)
    assert next(stream).WhichOneof("report") == "progress"
    (pid,) = lane.pids()
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(grpc.RpcError) as error:
        list(stream)
    # Nothing was done and the next call works: a retryable refusal with its reason, not an
    # internal error.
    refused = read_refusal(error.value)
    assert (refused.code, refused.reason) == (grpc.StatusCode.UNAVAILABLE, "WORKER_STOPPED")
    again = list(stub.AnalyzeRecord(request(rounds=[0], seats=[1]), timeout=60))
    assert again[-1].WhichOneof("report") == "match"
    assert pid not in lane.pids()


def test_the_same_request_streams_the_same_bytes(stub: pb_grpc.BalootEngineServiceStub) -> None:
    def run(seed: int) -> list[bytes]:
        call = request(rounds=[1], seats=[0, 2], seed=seed)
        return [r.SerializeToString() for r in stub.AnalyzeRecord(call, timeout=60)]

    once = run(11)
    assert run(11) == once
    assert run(12) != once


def test_an_idle_lane_process_stops_when_told_not_killed() -> None:
    # Closing the pipe alone does not reach the process while this process's reader thread is
    # blocked on it: it is told to stop, and ends by itself.
    loop = asyncio.new_event_loop()
    try:
        process = LaneProcess("analysis", 0, loop)
        time.sleep(1.0)  # started and waiting for a job
        process.close()
        assert process.exitcode == 0  # ended by itself, not killed (-9)
    finally:
        loop.close()


def test_an_analysis_replays_its_record_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # The record is verified (replayed) first; the analysis reads that replay's steps instead
    # of replaying the record again.
    from baloot_engine.analysis import core
    from baloot_engine.api import analysis as api_analysis
    from baloot_engine.api import records as api_records

    replays: list[str] = []
    verify_replay, core_replay = api_records.replay, core.replay

    def counted(where: str, replay: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            replays.append(where)
            return replay(*args, **kwargs)

        return run

    monkeypatch.setattr(api_records, "replay", counted("verify", verify_replay))
    monkeypatch.setattr(core, "replay", counted("analysis", core_replay))
    job = api_analysis.job_of(request(rounds=[0], seats=[1], seed=3), None)
    emitted: list[bytes] = []
    api_analysis.run_job(job, lambda: False, emitted.append)
    assert emitted
    assert replays == ["verify"]
