"""The fair-play report ↔ the contract: ``FairPlayReportRequest`` checked, its records verified,
the report run in the analysis worker process and streamed as ``FairPlayReportResponse``.

The statistic itself is :mod:`baloot_engine.analysis.fairplay` (pure); this module is the
translation, used by the ``FairPlayReport`` RPC and by ``baloot-fairplay``.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Final, NamedTuple

import grpc

from baloot.v1 import analysis_pb2, records_pb2
from baloot_engine.analysis.fairplay import (
    DEFAULT_WORLDS,
    MAX_FAIR_LOSS,
    MAX_RECORDS,
    MAX_WORLDS,
    MIN_DECISIONS,
    MIN_GAIN_DECISIONS,
    FairPlayReport,
    Hypothesis,
    Progress,
    fair_play,
)
from baloot_engine.api import records
from baloot_engine.api.analysis import (
    ANALYSIS_BUDGET_INVALID,
    MAX_DEADLINE_MS,
    emit_all,
    lane_stream,
    verified,
)
from baloot_engine.api.matches import Caller
from baloot_engine.api.refusals import ApiError
from baloot_engine.lanes import Lanes
from baloot_engine.rules import State
from baloot_engine.rules.record import RecordedRound

_HYPOTHESES: Final = {
    Hypothesis.ALL: analysis_pb2.FAIR_PLAY_HYPOTHESIS_ALL_HANDS,
    Hypothesis.PARTNER: analysis_pb2.FAIR_PLAY_HYPOTHESIS_PARTNER_HAND,
    Hypothesis.OPPONENT: analysis_pb2.FAIR_PLAY_HYPOTHESIS_OPPONENT_HAND,
}


def report_out(report: Progress | FairPlayReport) -> analysis_pb2.FairPlayReportResponse:
    """The stream message of one report of the fair-play analysis."""
    message = analysis_pb2.FairPlayReportResponse()
    if isinstance(report, Progress):
        progress = message.progress
        progress.done = report.done
        progress.total = report.total
        progress.records_done = report.records_done
        progress.records = report.records
        return message
    summary = message.summary
    summary.records = report.records
    summary.min_decisions = MIN_DECISIONS
    summary.min_gain_decisions = MIN_GAIN_DECISIONS
    summary.max_fair_loss = MAX_FAIR_LOSS
    for row in report.rows:
        into = summary.rows.add(
            seats=row.seats, decisions=row.decisions, mean_fair_loss=row.mean_fair_loss
        )
        for found in row.scores:
            into.scores.add(
                hypothesis=_HYPOTHESES[found.hypothesis],
                telling=found.telling,
                hits=found.hits,
                expected_hits=found.expected,
                gain=found.gain,
                z_score=found.z,
                p_value=found.p_value,
                enough=found.enough,
                flagged=found.flagged,
                threshold=found.threshold,
                score=found.combined,
                gain_decisions=found.gain_decisions,
                gain_mean=found.gain_mean,
                gain_z=found.gain_z,
            )
    return message


def prepare_all(
    messages: Sequence[records_pb2.MatchRecord],
) -> list[tuple[State, list[RecordedRound]]]:
    """Every record's start and rounds, each size-checked and verified; raises
    :class:`ApiError` (RECORD_TOO_LARGE, RECORD_DIVERGES with the record's index)."""
    prepared = []
    for index, record in enumerate(messages):
        records.require_size(record)
        prepared.append(verified(record, index))
    return prepared


class FairPlayJob(NamedTuple):
    """One fair-play report to run in the analysis worker process."""

    records: tuple[bytes, ...]
    seats: tuple[int, ...]
    worlds: int
    seed: int
    seconds: float

    def run(self, cancelled: Callable[[], bool], emit: Callable[[bytes], None]) -> None:
        """Run the report (in the analysis lane), emitting each message."""
        deadline = time.monotonic() + self.seconds

        def reports() -> Iterator[analysis_pb2.FairPlayReportResponse]:
            prepared = prepare_all([records_pb2.MatchRecord.FromString(r) for r in self.records])
            for report in fair_play(
                prepared,
                seats=self.seats,
                worlds=self.worlds,
                seed=self.seed,
                deadline=deadline,
                cancelled=cancelled,
            ):
                yield report_out(report)

        emit_all(reports(), emit)


def _budget_refusal(why: str) -> ApiError:
    return ApiError(grpc.StatusCode.INVALID_ARGUMENT, ANALYSIS_BUDGET_INVALID, why)


def job_of(request: analysis_pb2.FairPlayReportRequest, deadline: float | None) -> FairPlayJob:
    """Check every limit of a request (records' sizes, seats, worlds, deadline); the job to
    run, or an :class:`ApiError`. The worker verifies the records before the report."""
    count = len(request.records)
    if not 1 <= count <= MAX_RECORDS:
        raise _budget_refusal(f"a report reads 1 to {MAX_RECORDS} records, got {count}")
    seats = tuple(sorted(set(request.seats))) or (0, 1, 2, 3)
    if any(seat > 3 for seat in seats):
        raise _budget_refusal(f"a seat is 0-3, got {max(seats)}")
    worlds = request.worlds or DEFAULT_WORLDS
    if worlds > MAX_WORLDS:
        raise _budget_refusal(f"worlds per decision are 1-{MAX_WORLDS}, got {worlds}")
    if request.deadline_ms > MAX_DEADLINE_MS:
        raise _budget_refusal(
            f"deadline_ms is at most {MAX_DEADLINE_MS}, got {request.deadline_ms}"
        )
    seconds = (request.deadline_ms or MAX_DEADLINE_MS) / 1000
    if deadline is not None:
        seconds = min(seconds, max(0.0, deadline - time.monotonic()))
    for record in request.records:  # verified in the worker (prepare_all), not on the loop
        records.require_size(record)
    return FairPlayJob(
        tuple(r.SerializeToString() for r in request.records),
        seats,
        worlds,
        request.seed,
        seconds,
    )


def stream(
    lanes: Lanes, job: FairPlayJob, caller: Caller
) -> AsyncIterator[analysis_pb2.FairPlayReportResponse]:
    """The FairPlayReport stream: the report's messages as the analysis lane sends them (its
    records verified there first; :func:`~baloot_engine.api.analysis.lane_stream`)."""
    return lane_stream(lanes, job, caller, analysis_pb2.FairPlayReportResponse)


__all__ = ["FairPlayJob", "job_of", "prepare_all", "report_out", "stream"]
