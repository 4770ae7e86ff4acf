"""FairPlayReport over a real in-process server: the stream is the core's report, its limits,
a record that does not verify."""

from __future__ import annotations

from functools import cache

import grpc
import pytest
from baloot_client import EngineClient, EngineError

from baloot.v1 import analysis_pb2, records_pb2
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot_engine.analysis.fairplay import (
    MAX_FAIR_LOSS,
    MIN_GAIN_DECISIONS,
    PARTNERSHIP_THRESHOLDS,
    THRESHOLDS,
    FairPlayReport,
    Hypothesis,
    fair_play,
)
from baloot_engine.analysis.selfplay import play_record
from baloot_engine.api import analysis as analysis_module
from baloot_engine.api.analysis import record_message
from baloot_engine.api.fairplay import prepare_all
from baloot_engine.bots import Level
from tests.api.conftest import read_refusal


@cache
def record() -> records_pb2.MatchRecord:
    start, rounds = play_record([Level.BASIC] * 4, 5, max_rounds=1)
    return record_message(start, rounds)


def request(**fields: object) -> analysis_pb2.FairPlayReportRequest:
    fields.setdefault("records", [record()])
    fields.setdefault("worlds", 2)
    return analysis_pb2.FairPlayReportRequest(**fields)  # type: ignore[arg-type]


def test_the_stream_is_the_core_s_report(stub: pb_grpc.BalootEngineServiceStub) -> None:
    responses = list(stub.FairPlayReport(request(seats=[0, 2], seed=3), timeout=120))
    first = responses[0]
    assert first.WhichOneof("report") == "progress"
    assert first.progress.done == 0
    assert first.progress.records == 1
    assert all(r.WhichOneof("report") == "progress" for r in responses[:-1])
    summary = responses[-1].summary
    assert summary.records == 1
    assert summary.min_decisions > 0
    assert summary.min_gain_decisions == MIN_GAIN_DECISIONS
    assert summary.max_fair_loss == MAX_FAIR_LOSS
    assert [list(row.seats) for row in summary.rows] == [[0], [2], [0, 2]]
    core = list(fair_play(prepare_all([record()]), seats=(0, 2), worlds=2, seed=3))[-1]
    assert isinstance(core, FairPlayReport)
    for row, expected in zip(summary.rows, core.rows, strict=True):
        assert row.decisions == expected.decisions
        assert [(s.telling, s.hits) for s in row.scores] == [
            (s.telling, s.hits) for s in expected.scores
        ]
        assert [s.hypothesis for s in row.scores] == [
            analysis_pb2.FAIR_PLAY_HYPOTHESIS_ALL_HANDS,
            analysis_pb2.FAIR_PLAY_HYPOTHESIS_PARTNER_HAND,
            analysis_pb2.FAIR_PLAY_HYPOTHESIS_OPPONENT_HAND,
        ]
        # A seat's thresholds, or the partnerships' for the row of two seats.
        shipped = THRESHOLDS if len(row.seats) == 1 else PARTNERSHIP_THRESHOLDS
        assert [s.threshold for s in row.scores] == [shipped[h] for h in Hypothesis]
        assert [s.threshold for s in row.scores] == [s.threshold for s in expected.scores]
        # The hindsight gain: every decision of the row counted, the core's mean and score.
        assert [(s.gain_decisions, s.gain_mean, s.gain_z) for s in row.scores] == [
            (s.gain_decisions, s.gain_mean, s.gain_z) for s in expected.scores
        ]
        assert all(s.gain_decisions == row.decisions > 0 for s in row.scores)
        assert [s.flagged for s in row.scores] == [s.flagged for s in expected.scores]
        # The score the verdict compares with the threshold.
        assert [s.score for s in row.scores] == [s.combined for s in expected.scores]
        assert all(s.flagged == (s.enough and s.score >= s.threshold) for s in row.scores)
        assert [s.enough for s in row.scores] == [s.enough for s in expected.scores]
    assert any(s.gain_mean != 0.0 and s.gain_z != 0.0 for row in summary.rows for s in row.scores)


def test_the_python_client_streams_it(client: EngineClient) -> None:
    responses = list(client.fair_play_report([record()], seats=[1], worlds=2, seed=1))
    assert responses[-1].summary.rows[0].seats == [1]
    with pytest.raises(EngineError) as refused:
        list(client.fair_play_report([], worlds=2))
    assert refused.value.reason == "ANALYSIS_BUDGET_INVALID"


def test_limits_and_records_that_do_not_verify(stub: pb_grpc.BalootEngineServiceStub) -> None:
    def refused(
        bad: analysis_pb2.FairPlayReportRequest, code: grpc.StatusCode, reason: str
    ) -> dict[str, str]:
        with pytest.raises(grpc.RpcError) as error:
            list(stub.FairPlayReport(bad, timeout=20))
        got = read_refusal(error.value)
        assert (got.code, got.reason) == (code, reason), got
        return dict(got.metadata)

    invalid = grpc.StatusCode.INVALID_ARGUMENT
    refused(request(records=[]), invalid, "ANALYSIS_BUDGET_INVALID")
    refused(request(records=[record()] * 101), invalid, "ANALYSIS_BUDGET_INVALID")
    refused(request(worlds=65), invalid, "ANALYSIS_BUDGET_INVALID")
    refused(request(seats=[4]), invalid, "ANALYSIS_BUDGET_INVALID")
    refused(request(deadline_ms=600_001), invalid, "ANALYSIS_BUDGET_INVALID")
    bad = records_pb2.MatchRecord()
    bad.CopyFrom(record())
    bad.rounds[0].score.teams[0].final_points += 1
    metadata = refused(
        request(records=[record(), bad]), grpc.StatusCode.FAILED_PRECONDITION, "RECORD_DIVERGES"
    )
    assert metadata["record_index"] == "1"
    assert metadata["round_index"] == "0"


def test_the_records_are_verified_in_the_worker_not_on_the_event_loop(
    stub: pb_grpc.BalootEngineServiceStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A report reads up to 100 records, each a replay of up to 1,024 actions: verified on the
    # server's event loop they held every other call of the process for seconds. Replaying a
    # record here, in the server's process, now fails; the worker's process replays them, and
    # its refusal of a record still reaches the caller with the record's place.
    def on_the_loop(_record: object) -> None:
        raise AssertionError("a record replayed on the server's event loop")

    monkeypatch.setattr(analysis_module, "prepare", on_the_loop)
    bad = records_pb2.MatchRecord()
    bad.CopyFrom(record())
    bad.rounds[0].score.teams[1].final_points += 1
    with pytest.raises(grpc.RpcError) as refused:
        list(stub.FairPlayReport(request(records=[record(), record(), bad]), timeout=120))
    got = read_refusal(refused.value)
    assert (got.code, got.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "RECORD_DIVERGES")
    assert dict(got.metadata)["record_index"] == "2"
    responses = list(stub.FairPlayReport(request(seats=[1]), timeout=120))
    assert responses[-1].WhichOneof("report") == "summary"
