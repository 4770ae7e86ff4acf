"""Malformed requests: every one is refused with INVALID_ARGUMENT and a precise reason (or, for
an oversize message, RESOURCE_EXHAUSTED from gRPC), and the server keeps serving."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from baloot_client import EngineClient, Match
from grpc_health.v1 import health_pb2, health_pb2_grpc

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot.v1 import rules_pb2, types_pb2

from .conftest import (
    SEEDS,
    InProcessServer,
    action_call,
    bid,
    doubling,
    expect_refusal,
    play,
    read_calls,
    refusal,
)

INVALID_ARGUMENT = grpc.StatusCode.INVALID_ARGUMENT
Call = tuple[Callable[..., Any], Any]


@pytest.fixture(scope="module")
def dealt(client: EngineClient) -> Match:
    """A match of the module's server, dealt from the deck in order (seat 1 on turn)."""
    match = client.create_match(SEEDS, first_dealer=0)
    match.deal(0, range(32))
    return match


def every_call(stub: pb_grpc.BalootEngineServiceStub, match: Match, seat: int = 1) -> list[Call]:
    """One call of every RPC on a match: the four actions, the deal and the reads."""
    return [
        action_call(stub, match, seat, bid(types_pb2.BID_KIND_PASS)),
        action_call(stub, match, seat, doubling(types_pb2.DOUBLING_CALL_DECLINE)),
        action_call(
            stub,
            match,
            seat,
            types_pb2.Action(
                declaration=types_pb2.Declaration(kinds=[types_pb2.PROJECT_KIND_SIRA])
            ),
        ),
        action_call(stub, match, seat, play(0)),
        action_call(stub, match, seat, None),
        *read_calls(stub, match, seat),
    ]


def test_unknown_card_codes_are_refused(
    stub: pb_grpc.BalootEngineServiceStub, dealt: Match
) -> None:
    for card in (32, 40, 255, 2**32 - 1):
        method, request = action_call(stub, dealt, 1, play(card))
        refused = expect_refusal(method, request, INVALID_ARGUMENT, "INVALID_CARD")
        assert str(card) in refused.message


def test_preset_decks_that_are_not_32_distinct_cards_are_refused(
    client: EngineClient, stub: pb_grpc.BalootEngineServiceStub
) -> None:
    match = client.create_match(SEEDS, first_dealer=0)
    decks = {
        "INVALID_DECK": [
            list(range(31)),
            [*range(32), 0],
            [0] * 32,
            [*range(31), 30],
            list(range(32)) * 1000,
        ],
        "INVALID_CARD": [[*range(31), 40], [2**32 - 1] * 32],
    }
    for reason, orders in decks.items():
        for order in orders:
            method, request = action_call(stub, match, 0, None, deck=order)
            expect_refusal(method, request, INVALID_ARGUMENT, reason)
    match.deal(0, range(32))  # the token was never harmed


def test_incomplete_or_unknown_actions_are_refused(
    stub: pb_grpc.BalootEngineServiceStub, dealt: Match
) -> None:
    kinds = types_pb2
    actions = [
        bid(kinds.BID_KIND_UNSPECIFIED),
        bid(99),
        bid(kinds.BID_KIND_HOKM, 9),
        doubling(kinds.DOUBLING_CALL_UNSPECIFIED),
        doubling(99),
        doubling(kinds.DOUBLING_CALL_DOUBLE, 9),
        types_pb2.Action(declaration=types_pb2.Declaration(kinds=[99])),
        types_pb2.Action(declaration=types_pb2.Declaration(kinds=[kinds.PROJECT_KIND_UNSPECIFIED])),
        types_pb2.Action(declaration=types_pb2.Declaration(kinds=[kinds.PROJECT_KIND_SIRA] * 3)),
    ]
    for action in actions:
        method, request = action_call(stub, dealt, 1, action)
        expect_refusal(method, request, INVALID_ARGUMENT, "INVALID_ACTION")
    # Baloot is never declared (the engine announces it); checked once the play has begun.
    playing = dataclasses.replace(dealt)  # a copy, so the module's match stays in bidding
    playing.bid(1, types_pb2.Bid(kind=kinds.BID_KIND_SUN))
    baloot = types_pb2.Declaration(kinds=[kinds.PROJECT_KIND_BALOOT])
    method, request = action_call(stub, playing, 1, types_pb2.Action(declaration=baloot))
    expect_refusal(method, request, INVALID_ARGUMENT, "INVALID_ACTION")
    # A request that carries no action at all.
    for method, request in (
        (stub.PlaceBid, pb.PlaceBidRequest()),
        (stub.CallDouble, pb.CallDoubleRequest()),
    ):
        request.state, request.match_id = dealt.state, dealt.match_id
        request.credential, request.seat = dealt.host_credential, 1
        expect_refusal(method, request, INVALID_ARGUMENT, "INVALID_ACTION")


def test_seats_out_of_range_are_refused(
    client: EngineClient, stub: pb_grpc.BalootEngineServiceStub, dealt: Match
) -> None:
    for seat in (4, 7, 2**32 - 1):
        for method, request in every_call(stub, dealt, seat):
            if isinstance(request, pb.GetViewRequest) and not request.HasField("seat"):
                continue  # the public view names no seat
            if isinstance(request, pb.GetScoreRequest):
                continue
            expect_refusal(method, request, INVALID_ARGUMENT, "INVALID_SEAT")
        expect_refusal(
            client.stub.CreateMatch,
            pb.CreateMatchRequest(first_dealer=seat),
            INVALID_ARGUMENT,
            "INVALID_SEAT",
        )


def test_a_bad_match_id_is_refused(stub: pb_grpc.BalootEngineServiceStub, dealt: Match) -> None:
    bad_ids = [
        "",
        "0",
        dealt.match_id[:-1],
        dealt.match_id + "0",
        dealt.match_id[:-2],
        "zz" * 16,
        "é" * 32,
        " " + dealt.match_id[1:],
        dealt.match_id * 100,
    ]
    for match_id in bad_ids:
        for method, request in every_call(stub, dealt):
            request.match_id = match_id
            expect_refusal(method, request, INVALID_ARGUMENT, "REQUEST_INVALID")


INVALID_RULE_SETS = {
    "match target 0": rules_pb2.RuleSet(match_target=0),
    "match target 10001": rules_pb2.RuleSet(match_target=10_001),
    "unknown preset": rules_pb2.RuleSet(preset=9),
    "unknown flag value": rules_pb2.RuleSet(kawesh=99),
    "flag set to unspecified": rules_pb2.RuleSet(hokm_rounding=0),
    "unknown table-play flag value": rules_pb2.RuleSet(qayd_penalty=99),
}


@pytest.mark.parametrize("rules", INVALID_RULE_SETS.values(), ids=INVALID_RULE_SETS.keys())
def test_an_invalid_rule_set_is_refused(
    stub: pb_grpc.BalootEngineServiceStub, rules: rules_pb2.RuleSet
) -> None:
    expect_refusal(
        stub.CreateMatch, pb.CreateMatchRequest(rules=rules), INVALID_ARGUMENT, "INVALID_RULES"
    )
    facts = pb.ScoreRoundRequest(
        rules=rules,
        contract_type=types_pb2.CONTRACT_TYPE_SUN,
        buyer_team=0,
        card_abnat=[98, 32],
        tricks_won=[5, 3],
    )
    expect_refusal(stub.ScoreRound, facts, INVALID_ARGUMENT, "INVALID_RULES")


def test_starting_scores_must_be_a_pair_below_the_target(
    stub: pb_grpc.BalootEngineServiceStub,
) -> None:
    for scores in ([1], [1, 2, 3]):
        request = pb.CreateMatchRequest(starting_scores=scores)
        expect_refusal(stub.CreateMatch, request, INVALID_ARGUMENT, "REQUEST_INVALID")
    for scores in ([152, 0], [0, 2**32 - 1]):
        refused = refusal(stub.CreateMatch, pb.CreateMatchRequest(starting_scores=scores))
        assert refused.code == INVALID_ARGUMENT
    target = rules_pb2.RuleSet(match_target=60)
    created = stub.CreateMatch(pb.CreateMatchRequest(rules=target, starting_scores=[59, 0]))
    assert list(created.views[0].match_score.points) == [59, 0]


def test_an_illegal_card_names_the_allowed_ones(
    client: EngineClient, stub: pb_grpc.BalootEngineServiceStub
) -> None:
    match = client.create_match(SEEDS, first_dealer=0)
    match.deal(0, range(32))
    match.bid(1, types_pb2.Bid(kind=types_pb2.BID_KIND_SUN))
    match.play(1, types_pb2.CardPlay(card=0))  # 7S led; seat 2 holds 10S JS QS
    method, request = action_call(stub, match, 2, play(14))
    refused = expect_refusal(
        method, request, grpc.StatusCode.FAILED_PRECONDITION, "MUST_FOLLOW_SUIT"
    )
    assert refused.metadata == {"seat": "2", "card": "KH", "allowed": "10S,JS,QS"}
    assert refused.message


def health(channel: grpc.Channel) -> int:
    stub = health_pb2_grpc.HealthStub(channel)
    return stub.Check(health_pb2.HealthCheckRequest(), timeout=5).status


def test_an_oversize_request_is_refused_and_the_server_keeps_serving(
    engine: InProcessServer,
    channel: grpc.Channel,
    stub: pb_grpc.BalootEngineServiceStub,
    dealt: Match,
) -> None:
    limit = engine.settings.max_message_bytes
    for method, request in every_call(stub, dealt)[:1] + read_calls(stub, dealt, 1)[:1]:
        request.state = b"\x01" * (limit + 1)
        with pytest.raises(grpc.RpcError) as raised:
            method(request, timeout=10)
        call: Any = raised.value
        assert call.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    # Just under the limit, the request is read and the token refused.
    method, request = read_calls(stub, dealt, 1)[0]
    request.state = b"\x01" * (limit - 1000)
    expect_refusal(method, request, INVALID_ARGUMENT, "STATE_INVALID")
    assert health(channel) == health_pb2.HealthCheckResponse.SERVING
    for method, request in read_calls(stub, dealt, 1):
        method(request, timeout=10)
