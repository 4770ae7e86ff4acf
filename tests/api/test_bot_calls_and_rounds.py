"""Smaller fixes of issue 55: the bot calls' refusals, and the rounds a match score counts.

* ``ApplyBotAction`` during a table-play review, where no seat is to act, is refused as a move
  that does not belong to that part of the round (WRONG_PHASE, as ``SuggestAction`` is), never
  with "seat -1 is to act", in English or in Arabic.
* A credential other than the host's gets one refusal for every bot call, whatever the RPC, the
  seat and the bot's level (one of them used to say the credential may not act for the seat).
* ``MatchScore.rounds_scored`` counts the scored rounds, ``rounds_played`` the rounds dealt
  (redeals included), in the views, GetScore, VerifyRecord and ReplayRecord alike.
"""

from __future__ import annotations

import random
from typing import Any

import grpc
import pytest
from baloot_client import EngineClient, EngineError, Match

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot.v1 import rules_pb2, types_pb2
from baloot_engine.api.messages import CATALOGUE
from tests.api.conftest import BETWEEN, PASS, read_refusal

REVIEW = types_pb2.PHASE_ROUND_REVIEW
ARABIC = (("accept-language", "ar"),)
LEVELS = (pb.BOT_LEVEL_BASIC, pb.BOT_LEVEL_STRONG)


def _to_review(client: EngineClient) -> Match:
    """A table-play match whose first round is under review (its last card played)."""
    rules = rules_pb2.RuleSet(preset=rules_pb2.PRESET_KAMMELNA, illegal_moves_allowed=True)
    match = client.create_match(rules, first_dealer=0)
    rng = random.Random(4)
    while (view := match.views[0]).phase != REVIEW:
        seat = view.dealer if view.phase in BETWEEN else view.turn
        match.act(seat, rng.choice(list(match.views[seat].legal_actions)))
    return match


def _bot_calls(match: Match, seat: int, credential: str) -> list[tuple[Any, Any]]:
    common = {"state": match.state, "match_id": match.match_id, "credential": credential}
    calls: list[tuple[Any, Any]] = []
    for level in LEVELS:
        calls.append(("SuggestAction", pb.SuggestActionRequest(seat=seat, level=level, **common)))
        calls.append(("ApplyBotAction", pb.ApplyBotActionRequest(seat=seat, level=level, **common)))
    return calls


def _refused(
    stub: pb_grpc.BalootEngineServiceStub, method: str, request: Any, metadata: Any = ()
) -> tuple[Any, EngineError]:
    try:
        getattr(stub, method)(request, timeout=10, metadata=metadata)
    except grpc.RpcError as error:
        return read_refusal(error), EngineError.from_rpc_error(error)
    pytest.fail(f"{method} accepted")


def test_a_bot_call_during_the_review_says_nobody_is_to_act(
    client: EngineClient, stub: pb_grpc.BalootEngineServiceStub
) -> None:
    match = _to_review(client)
    english, arabic = CATALOGUE["WRONG_PHASE"]
    for seat in range(4):
        for method, request in _bot_calls(match, seat, match.host_credential):
            for metadata, sentence in (((), english), (ARABIC, arabic)):
                refusal, error = _refused(stub, method, request, metadata)
                assert refusal.code == grpc.StatusCode.FAILED_PRECONDITION
                assert refusal.reason == "WRONG_PHASE", (method, refusal)
                assert "under review" in refusal.message
                assert "turn" not in refusal.metadata
                assert error.localized is not None
                assert error.localized[1] == sentence
                assert "-1" not in refusal.message + error.localized[1]
    # The review goes on as before: the host closes it.
    events = match.close_review()
    assert types_pb2.EVENT_KIND_ROUND_SCORED in [e.kind for e in events]


def test_every_bot_call_refuses_other_credentials_the_same_way(
    client: EngineClient, stub: pb_grpc.BalootEngineServiceStub
) -> None:
    match = client.create_match(rules_pb2.RuleSet(preset=rules_pb2.PRESET_KAMMELNA))
    match.deal(match.views[0].dealer)
    turn = match.views[0].turn
    answers = set()
    credentials = [match.spectator_credential, *match.seat_credentials]
    for credential in credentials:
        for seat in (turn, (turn + 1) % 4):
            for method, request in _bot_calls(match, seat, credential):
                refusal, error = _refused(stub, method, request)
                answers.add((refusal.code, refusal.reason, refusal.message, error.localized))
    assert len(answers) == 1, answers
    [(code, reason, message, _)] = answers
    assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "CREDENTIAL_INVALID")
    assert message == "only the host credential may call a bot (SuggestAction, ApplyBotAction)"


def test_the_match_score_counts_scored_rounds_apart_from_redeals(client: EngineClient) -> None:
    rules = rules_pb2.RuleSet(preset=rules_pb2.PRESET_SEEDS, match_target=60)
    rng = random.Random(8)
    for attempt in range(10):
        match = client.create_match(rules, first_dealer=attempt % 4)
        dealt = scored = 0
        while (view := match.views[0]).phase != types_pb2.PHASE_MATCH_OVER:
            seat = view.dealer if view.phase in BETWEEN else view.turn
            options = list(match.views[seat].legal_actions)
            passes = [a for a in options if a.HasField("bid") and a.bid.kind == PASS]
            action = passes[0] if passes and rng.random() < 0.85 else rng.choice(options)
            events = match.act(seat, action)
            kinds = [e.kind for e in events]
            dealt += action.HasField("deal")
            scored += kinds.count(types_pb2.EVENT_KIND_ROUND_SCORED)
            score = match.views[0].match_score
            assert (score.rounds_played, score.rounds_scored) == (dealt, scored)
        if dealt > scored:  # a redeal happened: the two counts differ
            break
    else:
        pytest.fail("no match had a redeal")
    record = match.record
    assert len(record.rounds) == dealt
    assert sum(r.HasField("score") for r in record.rounds) == scored
    for shown in (
        match.score().match,
        client.verify_record(record).match,
        client.replay_record(
            record, sum(len(r.actions) for r in record.rounds)
        ).public_view.match_score,
    ):
        assert (shown.rounds_played, shown.rounds_scored) == (dealt, scored)
