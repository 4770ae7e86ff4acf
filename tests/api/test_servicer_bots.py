"""SuggestAction's and ApplyBotAction's STRONG decisions run in the bots lane, off the event
loop; the other levels inline. A refusal from the lane's process comes back whole."""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot_engine.lanes import Lane, WorkerStoppedError
from baloot_engine.rules import errors
from baloot_engine.rules.errors import ErrorKind, RuleError
from tests.server.conftest import InProcessServer, make_settings

from .conftest import dealt, expect_refusal, refusal


def _across_processes(value: Any) -> Any:
    """``value`` as a pool's process receives it (pickled), from a trusted test value."""
    return pickle.loads(pickle.dumps(value))  # noqa: S301 - our own bytes


class RecordingPool:
    """The levels of the decisions the bots lane was given (the lane runs them as usual)."""

    def __init__(self) -> None:
        self.levels: list[Any] = []


@pytest.fixture
def pool(monkeypatch: pytest.MonkeyPatch) -> RecordingPool:
    recording = RecordingPool()
    original = Lane.call

    async def recorded(self: Lane, client: Any, job: Any, deadline: Any, share: Any = None) -> Any:
        if self.name == "bots":
            recording.levels.append(job.args[2])
        return await original(self, client, job, deadline, share)

    monkeypatch.setattr(Lane, "call", recorded)
    return recording


@pytest.fixture(scope="module")
def stub() -> Iterator[pb_grpc.BalootEngineServiceStub]:
    with (
        InProcessServer(make_settings()) as server,
        grpc.insecure_channel(server.target) as channel,
    ):
        yield pb_grpc.BalootEngineServiceStub(channel)


def _suggestion(
    created: pb.CreateMatchResponse, state: bytes, seat: int, level: int, seed: int | None = None
) -> pb.SuggestActionRequest:
    """A SuggestAction request of the host for ``seat``."""
    request = pb.SuggestActionRequest(
        state=state,
        match_id=created.match_id,
        credential=created.host_credential,
        seat=seat,
        level=level,  # type: ignore[arg-type]
    )
    if seed is not None:
        request.seed = seed
    return request


def test_only_strong_decisions_go_to_the_pool(
    stub: pb_grpc.BalootEngineServiceStub, pool: RecordingPool
) -> None:
    created, state, turn = dealt(stub)
    for level in (pb.BOT_LEVEL_RANDOM, pb.BOT_LEVEL_BASIC, pb.BOT_LEVEL_STRONG):
        response = stub.SuggestAction(_suggestion(created, state, turn, level, seed=7))
        assert response.level == level
        assert response.action.WhichOneof("action") == "bid"
    assert [level.name for level in pool.levels] == ["STRONG"]


def test_apply_bot_action_decides_strong_in_the_pool_and_applies_that_action(
    stub: pb_grpc.BalootEngineServiceStub, pool: RecordingPool
) -> None:
    created, state, turn = dealt(stub)
    suggested = stub.SuggestAction(_suggestion(created, state, turn, pb.BOT_LEVEL_STRONG, seed=11))
    applied = stub.ApplyBotAction(
        pb.ApplyBotActionRequest(
            state=state,
            match_id=created.match_id,
            credential=created.host_credential,
            seat=turn,
            level=pb.BOT_LEVEL_STRONG,
            seed=11,
        )
    )
    # The same seed gives the same decision, and the call applied it: one version on.
    assert applied.action == suggested.action
    assert applied.state_version == suggested.state_version + 1
    assert [level.name for level in pool.levels] == ["STRONG", "STRONG"]
    # BASIC stays inline.
    stub.ApplyBotAction(
        pb.ApplyBotActionRequest(
            state=state,
            match_id=created.match_id,
            credential=created.host_credential,
            seat=turn,
            level=pb.BOT_LEVEL_BASIC,
        )
    )
    assert len(pool.levels) == 2
    refused = refusal(
        stub.ApplyBotAction,
        pb.ApplyBotActionRequest(
            state=state,
            match_id=created.match_id,
            credential=created.host_credential,
            seat=(turn + 1) & 3,
            level=pb.BOT_LEVEL_STRONG,
        ),
    )
    assert refused.reason == "NOT_YOUR_TURN"
    assert len(pool.levels) == 2  # refused before any decision


def test_a_refusal_from_the_pool_keeps_its_reason_and_facts(
    stub: pb_grpc.BalootEngineServiceStub, pool: RecordingPool
) -> None:
    created, state, turn = dealt(stub)
    other = (turn + 1) & 3
    refused = refusal(stub.SuggestAction, _suggestion(created, state, other, pb.BOT_LEVEL_STRONG))
    assert (refused.code, refused.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN")
    assert refused.metadata == {"turn": str(turn), "seat": str(other)}
    assert len(pool.levels) == 1


def test_a_rule_error_survives_pickling_whole() -> None:
    error = RuleError(
        errors.MUST_FOLLOW_SUIT,
        "follow",
        kind=ErrorKind.FORBIDDEN,
        allowed=("7S",),
        details={"seat": "1", "card": "KH"},
    )
    copy = _across_processes(error)
    assert (copy.reason, copy.message, copy.kind) == (error.reason, error.message, error.kind)
    assert (copy.allowed, copy.details) == (error.allowed, error.details)


def test_a_lane_whose_process_stopped_refuses_with_worker_stopped(
    stub: pb_grpc.BalootEngineServiceStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A lane's process that died under the job (killed, out of memory) is replaced on the
    # next job; the caller gets a retryable refusal with its reason, not an internal error.
    async def stopped(self: Lane, *_: Any) -> Any:
        raise WorkerStoppedError("WORKER_STOPPED", f"the {self.name} lane's process stopped")

    monkeypatch.setattr(Lane, "call", stopped)
    created, state, turn = dealt(stub)
    request = _suggestion(created, state, turn, pb.BOT_LEVEL_STRONG, seed=3)
    expect_refusal(stub.SuggestAction, request, grpc.StatusCode.UNAVAILABLE, "WORKER_STOPPED")
