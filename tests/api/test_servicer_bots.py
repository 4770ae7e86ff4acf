"""SuggestAction's and ApplyBotAction's STRONG decisions run in the bot pool, off the event
loop; the other levels inline. A refusal from the pool comes back whole."""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import grpc
import pytest

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot_engine.bots import pool as bot_pool_module
from baloot_engine.rules import errors
from baloot_engine.rules.errors import ErrorKind, RuleError
from tests.server.conftest import InProcessServer, make_settings

from .conftest import expect_refusal, refusal


def _across_processes(value: Any) -> Any:
    """``value`` as a pool's process receives it (pickled), from a trusted test value."""
    return pickle.loads(pickle.dumps(value))  # noqa: S301 - our own bytes


class RecordingPool(Executor):
    """Runs each job at once, remembering which function ran for which level."""

    def __init__(self) -> None:
        self.levels: list[Any] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.levels.append(args[2])
        future: Future[Any] = Future()
        try:
            # The pool's processes receive their arguments pickled: so do these.
            future.set_result(fn(*_across_processes(args), **kwargs))
        except RuleError as error:
            future.set_exception(_across_processes(error))
        return future


@pytest.fixture
def pool(monkeypatch: pytest.MonkeyPatch) -> RecordingPool:
    recording = RecordingPool()
    monkeypatch.setattr(bot_pool_module, "bot_pool", lambda: recording)
    return recording


@pytest.fixture(scope="module")
def stub() -> Iterator[pb_grpc.BalootEngineServiceStub]:
    with (
        InProcessServer(make_settings()) as server,
        grpc.insecure_channel(server.target) as channel,
    ):
        yield pb_grpc.BalootEngineServiceStub(channel)


def _dealt(stub: pb_grpc.BalootEngineServiceStub) -> tuple[pb.CreateMatchResponse, bytes, int]:
    created = stub.CreateMatch(pb.CreateMatchRequest(first_dealer=0))
    dealt = stub.DealRound(
        pb.DealRoundRequest(
            state=created.state,
            match_id=created.match_id,
            credential=created.host_credential,
            seat=0,
        )
    )
    return created, dealt.state, dealt.views[0].turn


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
    created, state, turn = _dealt(stub)
    for level in (pb.BOT_LEVEL_RANDOM, pb.BOT_LEVEL_BASIC, pb.BOT_LEVEL_STRONG):
        response = stub.SuggestAction(_suggestion(created, state, turn, level, seed=7))
        assert response.level == level
        assert response.action.WhichOneof("action") == "bid"
    assert [level.name for level in pool.levels] == ["STRONG"]


def test_apply_bot_action_decides_strong_in_the_pool_and_applies_that_action(
    stub: pb_grpc.BalootEngineServiceStub, pool: RecordingPool
) -> None:
    created, state, turn = _dealt(stub)
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
    created, state, turn = _dealt(stub)
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


class BrokenPool:
    """A pool whose process dies under every job, as a decision that kills it each time."""

    def submit(self, _fn: Callable[..., Any], /, *_args: Any, **_kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        future.set_exception(BrokenProcessPool("a process in the pool died"))
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        pass


def test_a_pool_that_breaks_again_refuses_with_worker_stopped(
    stub: pb_grpc.BalootEngineServiceStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The pool is replaced and the job tried once more; when that process dies too, the caller
    # gets a retryable refusal with its reason, not an internal error.
    monkeypatch.setattr(bot_pool_module, "bot_pool", BrokenPool)
    created, state, turn = _dealt(stub)
    request = _suggestion(created, state, turn, pb.BOT_LEVEL_STRONG, seed=3)
    expect_refusal(stub.SuggestAction, request, grpc.StatusCode.UNAVAILABLE, "WORKER_STOPPED")
