"""The round analysis ↔ the contract: a ``MatchRecord`` verified and turned into the core's
values, and the analysis' reports turned into ``AnalyzeRecordResponse`` messages.

The analysis itself is :mod:`baloot_engine.analysis` (pure); this module is the translation,
used by the ``AnalyzeRecord`` RPC and by ``baloot-analyze``.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event as EventType
from typing import Any, Final, NamedTuple, NoReturn, Protocol, TypeVar

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
from baloot_engine.api import inbound, outbound, records
from baloot_engine.api.refusals import worker_stopped
from baloot_engine.api.status import RECORD_DIVERGES, ApiError
from baloot_engine.bots.pool import die_with_parent
from baloot_engine.rules import Deal, EventKind, RuleError, State
from baloot_engine.rules.record import CloseReview, DivergenceError, RecordedRound, replay

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


def prepare(record: records_pb2.MatchRecord) -> tuple[State, list[RecordedRound]]:
    """A record's start and rounds, once its size is checked and it is verified (every action
    replayed, every recorded score compared); raises :class:`RecordRefusedError`."""
    why = records.check_size(record)
    if why is not None:
        raise RecordRefusedError("RECORD_TOO_LARGE", why)
    verdict = records.verify(record)
    if not verdict.valid:
        found = verdict.divergence
        divergence = DivergenceError(
            found.round_index, found.action_index, found.reason, found.message
        )
        raise RecordRefusedError("RECORD_DIVERGES", str(divergence), divergence)
    return records.start_of(record), records._rounds_in(record)


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


class Runnable(Protocol):
    """Another RPC's job for the worker process (``FairPlayReport``'s): it runs itself, sending
    its reports and how it ended as :func:`run_job` does."""

    def run(
        self, cancelled: Callable[[], bool], send: Callable[[tuple[str, Any]], None]
    ) -> None: ...


class Job(NamedTuple):
    """One analysis to run, as the worker process takes it."""

    record: bytes
    seats: tuple[int, ...]
    rounds: tuple[int, ...] | None
    worlds: int
    call_deals: int
    seed: int
    seconds: float


def _budget_refusal(why: str) -> ApiError:
    return ApiError(grpc.StatusCode.INVALID_ARGUMENT, ANALYSIS_BUDGET_INVALID, why)


def job_of(request: analysis_pb2.AnalyzeRecordRequest, time_left: float | None) -> Job:
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
    if time_left is not None:
        seconds = min(seconds, time_left)
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
# The worker process: analyses run there, one at a time, and stop when told

_REPORT: Final = "report"
_END: Final = "end"
_STOPPED: Final = "stopped"
_FAILED: Final = "failed"
_REFUSED: Final = "refused"
_LOST: Final = "lost"  # the worker process stopped (killed, out of memory) before the end


def verified(
    record: records_pb2.MatchRecord, index: int | None = None
) -> tuple[State, list[RecordedRound]]:
    """:func:`prepare`, a record that does not verify refused with RECORD_DIVERGES (in the
    worker: a record is verified there, never on the server's event loop); ``index``, the
    record's place among a request's records, is named in the refusal."""
    try:
        return prepare(record)
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


def run_job(
    job: Job, cancelled: Callable[[], bool], send: Callable[[tuple[str, Any]], None]
) -> None:
    """Run one analysis, sending each report's message (serialized), then how it ended."""
    deadline = time.monotonic() + job.seconds

    def reports() -> Iterator[Message]:
        start, rounds = verified(records_pb2.MatchRecord.FromString(job.record))
        for report in analyze(
            start,
            rounds,
            seats=job.seats,
            round_indices=job.rounds,
            budget=Budget(job.worlds, job.call_deals),
            seed=job.seed,
            deadline=deadline,
            cancelled=cancelled,
        ):
            yield report_out(report)

    send_all(reports(), send)


def send_all(messages: Iterator[Message], send: Callable[[tuple[str, Any]], None]) -> None:
    """Send each message a worker's job makes (serialized), then how the job ended: at its
    end, stopped (deadline, cancel), or failed."""
    try:
        for message in messages:
            send((_REPORT, message.SerializeToString()))
    except AnalysisStoppedError as stopped:
        send((_STOPPED, str(stopped)))
        return
    except (ApiError, RuleError) as error:  # the request's records refused: the caller's answer
        refused = error if isinstance(error, ApiError) else ApiError.from_rule_error(error)
        send((_REFUSED, (refused.code.name, refused.reason, refused.message, refused.metadata)))
        return
    except Exception as error:  # noqa: BLE001 - reported to the caller's process, logged there
        send((_FAILED, f"{type(error).__name__}: {error}"))
        return
    send((_END, ""))


def _serve(
    connection: Connection, cancel: EventType, parent: int
) -> None:  # pragma: no cover - a process
    """The worker's loop: one job at a time from the pipe, until it is told to stop, the pipe
    closes or the server process ends; every message it sends names its job."""
    die_with_parent(parent)
    while True:
        try:
            message = connection.recv()
        except EOFError:
            return
        if message is None:  # Worker.close: the server is stopping
            return
        job_id, job = message

        def send(message: tuple[str, Any], job_id: int = job_id) -> None:
            connection.send((job_id, *message))

        if isinstance(job, Job):
            run_job(job, cancel.is_set, send)
        else:
            job.run(cancel.is_set, send)  # another RPC's job (api/fairplay.py)


class Worker:
    """A spawned process that runs the analyses of this server process, one at a time.

    A call that ends early (cancelled, or past its deadline) sets the worker's cancel flag: the
    analysis stops at its next unit of work (one solved world, a few milliseconds to a tenth of
    a second) and says so; the next analysis starts once it has. One thread reads the worker's
    pipe and hands each message to the call whose job it belongs to (a call that left gets
    nothing more).
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        context = multiprocessing.get_context("spawn")
        self._cancel = context.Event()
        self._connection, child = context.Pipe()
        self._process = context.Process(
            target=_serve,
            args=(child, self._cancel, os.getpid()),
            daemon=True,
            name="baloot-analysis",
        )
        self._process.start()
        child.close()
        self._loop = loop
        self.alive = True
        self._lock = asyncio.Lock()
        self._idle = asyncio.Event()
        self._idle.set()
        self._queues: dict[int, asyncio.Queue[tuple[str, Any]]] = {}
        self._next = 0
        self._reader = threading.Thread(target=self._read, daemon=True, name="analysis-reader")
        self._reader.start()

    @property
    def pid(self) -> int | None:
        """The worker process's id."""
        return self._process.pid

    def _read(self) -> None:
        while True:
            try:
                job_id, kind, payload = self._connection.recv()
            except (EOFError, OSError):
                # The process ended (killed, or out of memory): every call waiting on it fails,
                # and the next call starts another worker.
                with contextlib.suppress(RuntimeError):
                    self._loop.call_soon_threadsafe(self._lost)
                return
            try:
                self._loop.call_soon_threadsafe(self._route, job_id, kind, payload)
            except RuntimeError:  # the event loop is closed: nobody is listening any more
                return

    def _lost(self) -> None:
        self.alive = False
        for queue in self._queues.values():
            queue.put_nowait((_LOST, "the analysis worker process stopped"))
        self._queues.clear()
        self._idle.set()

    def _route(self, job_id: int, kind: str, payload: Any) -> None:
        queue = self._queues.get(job_id)
        if queue is not None:
            queue.put_nowait((kind, payload))
        if kind != _REPORT:
            self._queues.pop(job_id, None)
            self._idle.set()

    async def run(self, job: Job | Runnable) -> AsyncIterator[tuple[str, Any]]:
        """Run ``job`` in the worker; yield its messages until it ends (the end included)."""
        async with self._lock:
            await self._idle.wait()
            if not self.alive:
                yield (_LOST, "the analysis worker process stopped")
                return
            self._idle.clear()
            self._cancel.clear()
            job_id = self._next
            self._next += 1
            queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
            self._queues[job_id] = queue
            self._connection.send((job_id, job))
        finished = False
        try:
            while not finished:
                message = await queue.get()
                finished = message[0] != _REPORT
                yield message
        finally:
            if not finished:
                # The caller left: the work stops now, and what is still on its way is dropped.
                self._queues.pop(job_id, None)
                self._cancel.set()

    def close(self) -> None:
        """End the worker process: told to stop (closing the pipe alone does not reach it
        while this process's reader is blocked on it), then killed if it has not ended in 2 s."""
        with contextlib.suppress(OSError, ValueError):
            self._connection.send(None)
        self._connection.close()
        self._process.join(timeout=2)
        if self._process.is_alive():
            self._process.kill()


_workers: dict[asyncio.AbstractEventLoop, Worker] = {}


def worker() -> Worker:
    """The worker of the running event loop (one per server process), started on first use."""
    loop = asyncio.get_running_loop()
    found = _workers.get(loop)
    if found is not None and not found.alive:
        found.close()
        found = None
    if found is None:
        for old in [other for other in _workers if other.is_closed()]:
            _workers.pop(old).close()
        found = _workers[loop] = Worker(loop)
    return found


def close_worker() -> None:
    """End the worker of the running event loop, if it has one (a server's last step)."""
    found = _workers.pop(asyncio.get_running_loop(), None)
    if found is not None:
        found.close()


Abort = Callable[[Any, ApiError], Awaitable[NoReturn]]
_Response = TypeVar("_Response", bound=Message)


async def worker_stream(
    request: Any,
    context: Any,
    abort: Abort,
    make_job: Callable[[Any, float | None], Any],
    response: type[_Response],
    what: str,
) -> AsyncIterator[_Response]:
    """A stream computed in the worker (an analysis, a fair-play report): the limits checked
    and the job made by ``make_job``, then the job's messages as the worker sends them, each a
    ``response`` (the records verified there first: a refusal of them ends the stream with its
    status); ``what`` names the work in a failure."""
    try:
        inbound.check_sizes(request)
        job = make_job(request, context.time_remaining())
    except RuleError as error:
        await abort(context, ApiError.from_rule_error(error))
    except ApiError as error:
        await abort(context, error)
    async for kind, payload in worker().run(job):
        if kind == _REPORT:
            yield response.FromString(payload)
        elif kind == _STOPPED:
            await abort(
                context,
                ApiError(grpc.StatusCode.DEADLINE_EXCEEDED, ANALYSIS_DEADLINE, str(payload)),
            )
        elif kind == _REFUSED:
            code, reason, message, metadata = payload
            await abort(context, ApiError(grpc.StatusCode[code], reason, message, metadata))
        elif kind == _LOST:
            await abort(context, worker_stopped(f"{what} was not finished: {payload}"))
        elif kind == _FAILED:
            raise RuntimeError(f"{what} failed: {payload}")


def stream(
    request: analysis_pb2.AnalyzeRecordRequest, context: Any, abort: Abort
) -> AsyncIterator[analysis_pb2.AnalyzeRecordResponse]:
    """The AnalyzeRecord stream (see :func:`worker_stream`)."""
    return worker_stream(
        request, context, abort, job_of, analysis_pb2.AnalyzeRecordResponse, "the analysis"
    )


__all__ = [
    "ANALYSIS_BUDGET_INVALID",
    "ANALYSIS_DEADLINE",
    "MAX_DEADLINE_MS",
    "Job",
    "RecordRefusedError",
    "Runnable",
    "Worker",
    "decision_out",
    "job_of",
    "prepare",
    "record_message",
    "report_out",
    "run_job",
    "stream",
    "verified",
    "worker",
]
