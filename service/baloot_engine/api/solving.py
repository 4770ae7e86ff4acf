"""SolveDeal: the position a request names, the solver's answer, and its message.

A position comes from a match's token (the host's credential while the round is played; any
credential of the match once it is over, since the answer shows every hand) or from a match
record (whose holder knows its cards). :func:`job_of` checks everything inline and returns the
work to do as plain, picklable values; :func:`run` does it (in the solver's process) and
writes the answer's message there (:func:`message_of`), so what comes back over the lane's pipe
is the message's bytes rather than a pickled answer (a tenth of the cost of the hand-off's
pickling); :func:`response_of` reads them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Final

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import records_pb2
from baloot_engine.api import outbound, records, state_codec
from baloot_engine.api.matches import Caller, Matches
from baloot_engine.api.refusals import (
    ROUND_NOT_PLAYED_OUT,
    SOLVER_DEADLINE,
    ApiError,
    Code,
    credential_invalid,
    request_invalid,
)
from baloot_engine.lanes import Call, Lanes
from baloot_engine.rules import Contract, Phase, RoundFacts, RuleError, RuleSet, State, errors
from baloot_engine.solver import Answer, SolverBudgetError, answer_live, answer_played_out

DEFAULT_DEADLINE_MS: Final = 2_000
"""How long a search may take when the request does not say."""
MAX_DEADLINE_MS: Final = 10_000
"""The longest deadline a request may ask for."""
_OVER: Final = (Phase.ROUND_OVER, Phase.MATCH_OVER)


@dataclass(frozen=True, slots=True)
class LiveJob:
    """A round in play, at the state's card to play.

    It crosses to the solve lane's process as the state's ``MatchState`` bytes (the token's
    codec, read back and checked there) rather than as a pickled ``State``: a third of the
    cost on both sides."""

    state: State
    seconds: float

    def __reduce__(self) -> tuple[object, ...]:
        data = state_codec.encode(self.state, _NO_SEED, state_codec.MAX_VERSION)
        return (_live_job, (data, self.seconds))


_NO_SEED: Final = bytes(state_codec.SEED_SIZE)
"""The deck seed a job's state is encoded with (the solver never reads it)."""


def _live_job(data: bytes, seconds: float) -> LiveJob:
    """A :class:`LiveJob` from its ``MatchState`` bytes (unpickling)."""
    return LiveJob(state_codec.decode(data).state, seconds)


@dataclass(frozen=True, slots=True)
class PlayedOutJob:
    """A finished round rebuilt from its tricks, after ``card_index`` of its cards."""

    tricks: tuple[tuple[int, tuple[int, int, int, int]], ...]
    dealer: int
    facts: RoundFacts
    contract: Contract
    rules: RuleSet
    card_index: int
    seconds: float


Job = LiveJob | PlayedOutJob


def job_of(matches: Matches, request: pb.SolveDealRequest) -> Job:
    """The work a request asks for, every check done (refusals as :class:`ApiError`)."""
    if request.deadline_ms > MAX_DEADLINE_MS:
        raise request_invalid(f"deadline_ms is at most {MAX_DEADLINE_MS}")
    seconds = (request.deadline_ms or DEFAULT_DEADLINE_MS) / 1000
    which = request.WhichOneof("position")
    if which == "match":
        return _match_job(matches, request.match, seconds)
    if which == "record":
        return _record_job(request.record, seconds)
    raise request_invalid("a SolveDeal request names a position: `match` or `record`")


def _match_job(matches: Matches, position: pb.SolveMatchPosition, seconds: float) -> Job:
    opened = matches.open(position.state, position.match_id, position.credential)
    state = opened.state
    if state.phase in _OVER and state.contract is not None and state.last_score is not None:
        if len(state.tricks) != 8:
            raise ApiError(
                Code.FAILED_PRECONDITION,
                ROUND_NOT_PLAYED_OUT,
                "the last round ended before its eighth trick: its unplayed cards are not known",
            )
        if position.card_index > 31:
            raise request_invalid("card_index is 0-31")
        return PlayedOutJob(
            tuple((t.leader, t.cards) for t in state.tricks),
            (state.dealer - 1) & 3,
            state.last_score.facts,
            state.contract,
            state.rules,
            position.card_index,
            seconds,
        )
    if not opened.is_host:
        raise credential_invalid(
            "while a round is played only the host may solve it (the answer shows every hand)"
        )
    if state.phase is not Phase.PLAYING:
        raise RuleError(errors.WRONG_PHASE, f"no card is to be played in phase {state.phase.value}")
    return LiveJob(state, seconds)


def _record_job(position: pb.SolveRecordPosition, seconds: float) -> Job:
    record = position.record
    records.require_size(record)
    if position.round_index >= len(record.rounds):
        raise request_invalid(f"round_index {position.round_index} is not a round of the record")
    actions = record.rounds[position.round_index].actions
    if position.action_index >= len(actions) or not _is_card(actions[position.action_index]):
        raise request_invalid("the position must be a card to play: action_index names no card")
    step = sum(len(r.actions) for r in record.rounds[: position.round_index])
    step += position.action_index
    state = records.replay_checked(record, step, "the position").state
    if state.phase is not Phase.PLAYING:
        raise request_invalid("the position must be a card to play")
    return LiveJob(state, seconds)


def _is_card(action: records_pb2.RecordedAction) -> bool:
    return not action.close_review and action.action.WhichOneof("action") == "play"


def answer_of(job: Job) -> Answer | None:
    """Solve a job by its deadline (counted from now); None when the deadline ran out."""
    deadline = time.monotonic() + job.seconds
    try:
        if isinstance(job, LiveJob):
            return answer_live(job.state, deadline)
        return answer_played_out(
            job.tricks,
            job.dealer,
            job.facts,
            job.contract,
            job.rules,
            job.card_index,
            deadline,
        )
    except SolverBudgetError:
        return None


def run(job: Job) -> bytes | None:
    """Solve a job by its deadline (counted from now): the ``SolveDealResponse``'s bytes, or
    None when the deadline ran out. Runs in the solve lane's process."""
    answer = answer_of(job)
    return None if answer is None else message_of(answer, job).SerializeToString()


async def solve(lanes: Lanes, job: Job, caller: Caller) -> bytes | None:
    """The job solved in the solve lane, paid for by the caller's client (a long computation
    never runs on the event loop): the response's bytes, or None when its deadline ran out."""
    client = lanes.payer(caller.key, lanes.solve, caller.source)
    answer: bytes | None = await lanes.solve.call(client, Call(run, (job,)), caller.deadline)
    return answer


def response_of(data: bytes | None, job: Job) -> pb.SolveDealResponse:
    """The response from :func:`run`'s bytes, or the SOLVER_DEADLINE refusal when the search
    ran out of time."""
    if data is None:
        raise ApiError(
            Code.DEADLINE_EXCEEDED,
            SOLVER_DEADLINE,
            f"the solver did not finish within {round(job.seconds * 1000)} ms",
        )
    return pb.SolveDealResponse.FromString(data)


def message_of(answer: Answer, job: Job) -> pb.SolveDealResponse:
    """The response message of an answer."""
    solution = answer.solution
    response = pb.SolveDealResponse(
        seat=solution.seat, best_index=solution.best, nodes=solution.nodes + answer.par.nodes
    )
    for value in solution.values:
        card = response.cards.add()
        card.play.card = value.play.card
        card.play.akka = value.play.akka
        card.points.extend(value.points)
        card.tricks.extend(value.tricks)
        if value.kaboot_team >= 0:
            card.kaboot_team = value.kaboot_team
    par = answer.par
    contract = job.state.contract if isinstance(job, LiveJob) else job.contract
    response.par.score.CopyFrom(outbound.round_score_out(par.score, 0, contract))
    response.par.points.extend(par.points)
    response.par.tricks.extend(par.tricks)
    return response


__all__ = [
    "DEFAULT_DEADLINE_MS",
    "MAX_DEADLINE_MS",
    "Job",
    "answer_of",
    "job_of",
    "message_of",
    "response_of",
    "run",
    "solve",
]
