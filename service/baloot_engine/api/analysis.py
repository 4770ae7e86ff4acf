"""The round analysis ↔ the contract: a ``MatchRecord`` verified and turned into the core's
values, and the analysis' reports turned into ``AnalyzeRecordResponse`` messages.

The analysis itself is :mod:`baloot_engine.analysis` (pure); this module is the translation,
used by the ``AnalyzeRecord`` RPC and by ``baloot-analyze``.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any, Final, NamedTuple, TypeVar

import grpc
from google.protobuf.message import Message

from baloot.v1 import analysis_pb2, records_pb2
from baloot_engine.analysis import (
    AnalysisStoppedError,
    Budget,
    Decision,
    DecisionKind,
    Depth,
    MatchSummary,
    Progress,
    Report,
    RoundSummary,
    SeatFigures,
    Value,
    analyze,
    budget_of,
    explain,
)
from baloot_engine.api import outbound, records
from baloot_engine.api.matches import Caller
from baloot_engine.api.refusals import RECORD_DIVERGES, ApiError
from baloot_engine.lanes import Lanes
from baloot_engine.rules import Deal, EventKind, State
from baloot_engine.rules.record import (
    CloseReview,
    DivergenceError,
    RecordedRound,
    Step,
    replay,
)

RECORD_FORMAT: Final = records.RECORD_FORMAT
ANALYSIS_BUDGET_INVALID: Final = "ANALYSIS_BUDGET_INVALID"
ANALYSIS_DEADLINE: Final = "ANALYSIS_DEADLINE"


class RecordRefusedError(Exception):
    """A record the analysis does not take: too large, or not verified (its divergence)."""

    def __init__(self, reason: str, message: str, divergence: DivergenceError | None = None):
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.divergence = divergence


def prepare(
    record: records_pb2.MatchRecord, steps: list[Step] | None = None
) -> tuple[State, list[RecordedRound]]:
    """A record's start and rounds, once its size is checked and it is verified (every action
    replayed, every recorded score compared; the replay's steps appended to ``steps`` when
    given); raises :class:`RecordRefusedError`."""
    why = records.check_size(record)
    if why is not None:
        raise RecordRefusedError("RECORD_TOO_LARGE", why)
    verdict = records.verify(record, steps=steps)
    if not verdict.valid:
        found = verdict.divergence
        divergence = DivergenceError(
            found.round_index, found.action_index, found.reason, found.message
        )
        raise RecordRefusedError("RECORD_DIVERGES", str(divergence), divergence)
    return records.start_of(record), records.rounds_in(record)


def record_message(
    start: State, rounds: Sequence[RecordedRound], match_id: str = ""
) -> records_pb2.MatchRecord:
    """The ``MatchRecord`` of a record's start and rounds (their scores replayed in)."""
    message = records_pb2.MatchRecord(
        format=RECORD_FORMAT,
        match_id=match_id,
        rules=outbound.rules_out(start.rules),
        starting_scores=list(start.match_scores),
        first_dealer=start.dealer,
    )
    for recorded in rounds:
        into = message.rounds.add(deck_order=recorded.deck)
        for seat, entry in recorded.actions:
            if isinstance(entry, CloseReview):
                into.actions.add(seat=0, close_review=True)
            elif isinstance(entry, Deal):
                into.actions.add(seat=seat, action=outbound.action_out(Deal(())))
            elif not isinstance(entry, Exception):
                into.actions.add(seat=seat, action=outbound.action_out(entry))
    for step in replay(start, rounds):
        for event in step.events:
            if event.kind is EventKind.ROUND_SCORED and event.score is not None:
                state = step.state
                message.rounds[step.round_index].score.CopyFrom(
                    outbound.round_score_out(event.score, state.hand_number, state.contract)
                )
    return message


# ---------------------------------------------------------------------------------------
# The reports as messages

_KINDS: Final = {
    DecisionKind.CARD: analysis_pb2.DECISION_KIND_CARD,
    DecisionKind.BID: analysis_pb2.DECISION_KIND_BID,
    DecisionKind.CALL: analysis_pb2.DECISION_KIND_DOUBLING,
}
_DEPTHS: Final = {
    analysis_pb2.ANALYSIS_DEPTH_UNSPECIFIED: Depth.STANDARD,
    analysis_pb2.ANALYSIS_DEPTH_QUICK: Depth.QUICK,
    analysis_pb2.ANALYSIS_DEPTH_STANDARD: Depth.STANDARD,
    analysis_pb2.ANALYSIS_DEPTH_DEEP: Depth.DEEP,
}


def _value_out(value: Value, into: analysis_pb2.AnalysisValue) -> None:
    into.score = value.score
    if value.points is not None:
        into.points = value.points
    if value.match_chance is not None:
        into.match_chance = value.match_chance


def decision_out(decision: Decision, into: analysis_pb2.DecisionAnalysis) -> None:
    """Fill a ``DecisionAnalysis`` from a core decision."""
    into.round_index = decision.round_index
    into.action_index = decision.action_index
    into.seat = decision.seat
    into.kind = _KINDS[decision.kind]
    for alternative in decision.alternatives:
        entry = into.alternatives.add(action=outbound.action_out(alternative.action))
        _value_out(alternative.fair, entry.fair)
        if alternative.hindsight is not None:
            _value_out(alternative.hindsight, entry.hindsight)
    into.taken = decision.taken
    into.best_fair = decision.best_fair
    if decision.best_hindsight >= 0:
        into.best_hindsight = decision.best_hindsight
    into.fair_loss = decision.fair_loss
    if decision.fair_loss_points is not None:
        into.fair_loss_points = decision.fair_loss_points
    if decision.hindsight_loss is not None:
        into.hindsight_loss = decision.hindsight_loss
    if decision.hindsight_loss_points is not None:
        into.hindsight_loss_points = decision.hindsight_loss_points
    into.best_choice = decision.is_best
    into.worlds = decision.worlds
    into.worse_in = decision.worse_in
    into.explanation.en = explain(decision, "en")
    into.explanation.ar = explain(decision, "ar")


def _seats_out(seats: Sequence[SeatFigures], into: Any) -> None:
    for s in seats:
        into.add(
            seat=s.seat,
            decisions=s.decisions,
            best_choices=s.best_choices,
            accuracy=s.accuracy,
            mean_fair_loss=s.mean_fair_loss,
            mean_fair_loss_points=s.mean_fair_loss_points,
            mean_hindsight_loss=s.mean_hindsight_loss,
        )


def report_out(report: Report) -> analysis_pb2.AnalyzeRecordResponse:
    """The stream message of one report of the analysis."""
    message = analysis_pb2.AnalyzeRecordResponse()
    if isinstance(report, Progress):
        message.progress.done = report.done
        message.progress.total = report.total
    elif isinstance(report, Decision):
        decision_out(report, message.decision)
    elif isinstance(report, RoundSummary):
        out = message.round
        out.round_index = report.round_index
        if report.contract is not None:
            out.contract.CopyFrom(outbound.contract_out(report.contract))
        for decision in report.key_mistakes:
            decision_out(decision, out.key_mistakes.add())
        _seats_out(report.seats, out.seats)
        par = report.par
        if par is not None:
            out.par.score.extend(par.score)
            out.par.points.extend(par.points)
            out.par.tricks.extend(par.tricks)
            out.par.actual.extend(par.actual)
    else:
        assert isinstance(report, MatchSummary)
        match = message.match
        match.rounds = report.rounds
        for decision in report.key_mistakes:
            decision_out(decision, match.key_mistakes.add())
        _seats_out(report.seats, match.seats)
    return message


# ---------------------------------------------------------------------------------------
# Limits, checked before any work

MAX_DEADLINE_MS: Final = 600_000
"""The longest an analysis may run (and the deadline of one that names none)."""


class Job(NamedTuple):
    """One analysis to run, as the worker process takes it."""

    record: bytes
    seats: tuple[int, ...]
    rounds: tuple[int, ...] | None
    worlds: int
    call_deals: int
    seed: int
    seconds: float

    def run(self, cancelled: Callable[[], bool], emit: Callable[[bytes], None]) -> None:
        """Run the analysis, emitting its messages (:func:`run_job`)."""
        run_job(self, cancelled, emit)


def _budget_refusal(why: str) -> ApiError:
    return ApiError(grpc.StatusCode.INVALID_ARGUMENT, ANALYSIS_BUDGET_INVALID, why)


def job_of(request: analysis_pb2.AnalyzeRecordRequest, deadline: float | None) -> Job:
    """Check every limit of a request (record size, seats, rounds, worlds, deadline); the job
    to run, or an :class:`ApiError`. The worker verifies the record (:func:`verified`)."""
    record = request.record
    records.require_size(record)
    seats = tuple(sorted(set(request.seats))) or (0, 1, 2, 3)
    if any(seat > 3 for seat in seats):
        raise _budget_refusal(f"a seat is 0-3, got {max(seats)}")
    rounds = tuple(sorted(set(request.rounds))) or None
    if rounds is not None and rounds[-1] >= len(record.rounds):
        raise _budget_refusal(
            f"round {rounds[-1]} is not in the record, which holds {len(record.rounds)}"
        )
    if request.depth not in _DEPTHS:
        raise _budget_refusal(f"unknown depth {request.depth}")
    try:
        budget = budget_of(_DEPTHS[request.depth], request.worlds)
    except ValueError as error:
        raise _budget_refusal(str(error)) from None
    if request.deadline_ms > MAX_DEADLINE_MS:
        raise _budget_refusal(
            f"deadline_ms is at most {MAX_DEADLINE_MS}, got {request.deadline_ms}"
        )
    seconds = (request.deadline_ms or MAX_DEADLINE_MS) / 1000
    if deadline is not None:
        seconds = min(seconds, max(0.0, deadline - time.monotonic()))
    return Job(
        record.SerializeToString(),
        seats,
        rounds,
        budget.worlds,
        budget.call_deals,
        request.seed,
        seconds,
    )


# ---------------------------------------------------------------------------------------
# The analysis lane: analyses run there, and stop when told


def verified(
    record: records_pb2.MatchRecord, index: int | None = None, steps: list[Step] | None = None
) -> tuple[State, list[RecordedRound]]:
    """:func:`prepare`, a record that does not verify refused with RECORD_DIVERGES (in the
    analysis lane: a record is verified there, never on the server's event loop); ``index``,
    the record's place among a request's records, is named in the refusal."""
    try:
        return prepare(record, steps)
    except RecordRefusedError as refused:
        divergence = refused.divergence
        assert divergence is not None
        which = {} if index is None else {"record_index": str(index)}
        raise ApiError(
            grpc.StatusCode.FAILED_PRECONDITION,
            RECORD_DIVERGES,
            f"{'the record' if index is None else f'record {index}'} does not verify: {divergence}",
            {
                **which,
                "round_index": str(divergence.round_index),
                "action_index": str(divergence.action_index),
                "divergence": divergence.reason,
            },
        ) from None


def emit_all(messages: Iterator[Message], emit: Callable[[bytes], None]) -> None:
    """Emit each message a job of the analysis lane makes (serialized); an analysis stopped by
    its deadline or its caller becomes the ANALYSIS_DEADLINE refusal."""
    try:
        for message in messages:
            emit(message.SerializeToString())
    except AnalysisStoppedError as stopped:
        raise ApiError(grpc.StatusCode.DEADLINE_EXCEEDED, ANALYSIS_DEADLINE, str(stopped)) from None


def run_job(job: Job, cancelled: Callable[[], bool], emit: Callable[[bytes], None]) -> None:
    """Run one analysis (in the analysis lane), emitting each report's message."""
    deadline = time.monotonic() + job.seconds

    def reports() -> Iterator[Message]:
        # Parsed once here, in the lane's process, and replayed once: by its verification,
        # whose steps the analysis reads.
        steps: list[Step] = []
        start, rounds = verified(records_pb2.MatchRecord.FromString(job.record), steps=steps)
        for report in analyze(
            start,
            rounds,
            replay_steps=steps,
            seats=job.seats,
            round_indices=job.rounds,
            budget=Budget(job.worlds, job.call_deals),
            seed=job.seed,
            deadline=deadline,
            cancelled=cancelled,
        ):
            yield report_out(report)

    emit_all(reports(), emit)


_Response = TypeVar("_Response", bound=Message)


async def lane_stream(
    lanes: Lanes, job: Job | Any, caller: Caller, response: type[_Response]
) -> AsyncIterator[_Response]:
    """A job's messages from the analysis lane as they come, each a ``response``; the job is
    paid for by the caller's client (refused at once when the lane or the client has no room)."""
    lane = lanes.analysis
    client = lanes.payer(caller.key, lane, caller.source)
    async for payload in lane.stream(client, job, caller.deadline):
        yield response.FromString(payload)


def stream(
    lanes: Lanes, job: Job, caller: Caller
) -> AsyncIterator[analysis_pb2.AnalyzeRecordResponse]:
    """The AnalyzeRecord stream (see :func:`lane_stream`)."""
    return lane_stream(lanes, job, caller, analysis_pb2.AnalyzeRecordResponse)


__all__ = [
    "ANALYSIS_BUDGET_INVALID",
    "ANALYSIS_DEADLINE",
    "MAX_DEADLINE_MS",
    "Job",
    "RecordRefusedError",
    "decision_out",
    "emit_all",
    "job_of",
    "lane_stream",
    "prepare",
    "record_message",
    "report_out",
    "run_job",
    "stream",
    "verified",
]
