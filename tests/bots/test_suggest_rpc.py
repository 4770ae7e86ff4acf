"""SuggestAction over a real channel: the host asks, the backend applies with the normal RPCs."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot.v1 import types_pb2
from baloot_engine.lanes import Lane
from tests.bots.games import deck
from tests.server.conftest import InProcessServer, make_settings

LIVE = (types_pb2.PHASE_BIDDING, types_pb2.PHASE_DOUBLING, types_pb2.PHASE_PLAYING)


@pytest.fixture(scope="module")
def stub() -> Iterator[pb_grpc.BalootEngineServiceStub]:
    with (
        InProcessServer(make_settings(allow_preset_deck=True)) as server,
        grpc.insecure_channel(server.target) as channel,
    ):
        yield pb_grpc.BalootEngineServiceStub(channel)


def reason_of(error: grpc.RpcError) -> tuple[grpc.StatusCode, str]:
    """The status code and the ErrorInfo reason of a refusal."""
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    status.details[0].Unpack(info)
    return error.code(), info.reason  # type: ignore[attr-defined]


class Table:
    """A match driven by SuggestAction alone, through the public contract."""

    def __init__(self, stub: pb_grpc.BalootEngineServiceStub, seed: int) -> None:
        self.stub = stub
        self.seed = seed
        created = stub.CreateMatch(pb.CreateMatchRequest(first_dealer=0))
        self.match_id = created.match_id
        self.host = created.host_credential
        self.seats = list(created.seat_credentials)
        self.state = created.state
        self.view = created.views[0]

    def common(self) -> dict[str, Any]:
        return {"state": self.state, "match_id": self.match_id}

    def deal(self) -> None:
        response = self.stub.DealRound(
            pb.DealRoundRequest(
                credential=self.host,
                seat=self.view.dealer,
                deck_order=deck(self.seed, self.view.round_number + 1),
                **self.common(),
            )
        )
        self.state, self.view = response.state, response.views[0]

    def suggest(self, seat: int, level: int, seed: int | None = None) -> pb.SuggestActionResponse:
        request = pb.SuggestActionRequest(
            credential=self.host, seat=seat, level=level, **self.common()
        )
        if seed is not None:
            request.seed = seed
        response: pb.SuggestActionResponse = self.stub.SuggestAction(request)
        return response

    def apply(self, seat: int, action: types_pb2.Action) -> None:
        which = action.WhichOneof("action")
        common = {"credential": self.host, "seat": seat, **self.common()}
        if which == "bid":
            response: Any = self.stub.PlaceBid(pb.PlaceBidRequest(bid=action.bid, **common))
        elif which == "doubling":
            response = self.stub.CallDouble(
                pb.CallDoubleRequest(doubling=action.doubling, **common)
            )
        elif which == "declaration":
            response = self.stub.DeclareProjects(
                pb.DeclareProjectsRequest(declaration=action.declaration, **common)
            )
        else:
            response = self.stub.PlayCard(pb.PlayCardRequest(play=action.play, **common))
        self.state, self.view = response.state, response.views[0]

    def legal(self, seat: int) -> list[types_pb2.Action]:
        response = self.stub.ListLegalActions(
            pb.ListLegalActionsRequest(credential=self.host, seat=seat, **self.common())
        )
        return list(response.actions)


@pytest.mark.parametrize(
    "level",
    [
        pb.BOT_LEVEL_RANDOM,
        pb.BOT_LEVEL_BASIC,
        pb.BOT_LEVEL_STRONG,
        pb.BOT_LEVEL_EXPERT,
        pb.BOT_LEVEL_LEARNED,
    ],
    ids=str,
)
def test_a_round_played_by_suggestions_alone(
    stub: pb_grpc.BalootEngineServiceStub, level: int
) -> None:
    table = Table(stub, seed=level)
    kinds = set()
    for _ in range(3):  # a round, or a redeal or two first
        table.deal()
        while table.view.phase in LIVE:
            seat = table.view.turn
            response = table.suggest(seat, level, seed=len(kinds))
            assert response.level == level
            assert response.action in table.legal(seat)
            kinds.add(response.action.WhichOneof("action"))
            table.apply(seat, response.action)
        if table.view.phase != types_pb2.PHASE_AWAITING_DEAL:
            break
    assert table.view.phase in (types_pb2.PHASE_ROUND_OVER, types_pb2.PHASE_MATCH_OVER)
    assert {"bid", "play"} <= kinds


def test_expert_searches_in_the_bots_lane_with_the_configured_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    jobs: list[tuple[str, float | None]] = []
    original = Lane.call

    async def recorded(self: Lane, client: Any, job: Any, deadline: Any, share: Any = None) -> Any:
        function = job.function
        expert = (
            function.keywords.get("expert") if isinstance(function, functools.partial) else None
        )
        jobs.append((job.args[2].value, None if expert is None else expert.seconds))
        return await original(self, client, job, deadline, share)

    monkeypatch.setattr(Lane, "call", recorded)
    settings = make_settings(allow_preset_deck=True, bot_expert_budget_ms=40)
    with (
        InProcessServer(settings) as server,
        grpc.insecure_channel(server.target) as channel,
    ):
        table = Table(pb_grpc.BalootEngineServiceStub(channel), seed=8)
        table.deal()
        seat = table.view.turn
        for level in (pb.BOT_LEVEL_EXPERT, pb.BOT_LEVEL_BASIC, pb.BOT_LEVEL_EXPERT):
            response = table.suggest(seat, level, seed=None)
            assert response.action in table.legal(seat)
    # Both EXPERT searches went to the lane with the server's 40 ms budget; BASIC stayed inline.
    assert jobs == [("expert", 0.04), ("expert", 0.04)]


def test_a_seed_repeats_the_suggestion(stub: pb_grpc.BalootEngineServiceStub) -> None:
    table = Table(stub, seed=5)
    table.deal()
    seat = table.view.turn
    first = table.suggest(seat, pb.BOT_LEVEL_RANDOM, seed=123)
    assert all(
        table.suggest(seat, pb.BOT_LEVEL_RANDOM, seed=123).action == first.action for _ in range(5)
    )
    assert first.state_version == 1


def test_refusals(stub: pb_grpc.BalootEngineServiceStub) -> None:
    table = Table(stub, seed=6)
    with pytest.raises(grpc.RpcError) as before_deal:
        table.suggest(0, pb.BOT_LEVEL_BASIC)
    assert reason_of(before_deal.value) == (grpc.StatusCode.FAILED_PRECONDITION, "WRONG_PHASE")
    table.deal()
    turn = table.view.turn
    with pytest.raises(grpc.RpcError) as not_turn:
        table.suggest((turn + 1) % 4, pb.BOT_LEVEL_BASIC)
    assert reason_of(not_turn.value) == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN")
    with pytest.raises(grpc.RpcError) as seat_credential:
        stub.SuggestAction(
            pb.SuggestActionRequest(
                credential=table.seats[turn],
                seat=turn,
                level=pb.BOT_LEVEL_BASIC,
                **table.common(),
            )
        )
    assert reason_of(seat_credential.value) == (
        grpc.StatusCode.PERMISSION_DENIED,
        "CREDENTIAL_INVALID",
    )
    with pytest.raises(grpc.RpcError) as wrong:
        stub.SuggestAction(
            pb.SuggestActionRequest(
                credential="not-a-credential", seat=turn, level=pb.BOT_LEVEL_BASIC, **table.common()
            )
        )
    assert reason_of(wrong.value) == (grpc.StatusCode.PERMISSION_DENIED, "CREDENTIAL_INVALID")
    with pytest.raises(grpc.RpcError) as no_level:
        table.suggest(turn, pb.BOT_LEVEL_UNSPECIFIED)
    assert reason_of(no_level.value) == (grpc.StatusCode.INVALID_ARGUMENT, "REQUEST_INVALID")
    with pytest.raises(grpc.RpcError) as bad_seat:
        table.suggest(7, pb.BOT_LEVEL_BASIC)
    assert reason_of(bad_seat.value) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_SEAT")
