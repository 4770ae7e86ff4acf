"""CallQayd over a real channel: table play from an illegal card to the verdict, the review
closed by the host, and every refusal with its status and reason.

The hands are layout L1 of the rules tests (Hokm hearts bought by seat 1, dealer 0): seat 1
leads AS and seat 2, holding five spades, plays AH.
"""

from __future__ import annotations

import grpc
import pytest
from baloot_client import EngineClient, Match

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot.v1 import rules_pb2, types_pb2
from baloot_engine.rules.cards import parse_card
from tests.rules.scenario import L1, deck_for_hands

from .conftest import expect_refusal

TABLE = rules_pb2.RuleSet(preset=rules_pb2.PRESET_SEEDS, illegal_moves_allowed=True)
FAILED_PRECONDITION = grpc.StatusCode.FAILED_PRECONDITION
INVALID_ARGUMENT = grpc.StatusCode.INVALID_ARGUMENT
PERMISSION_DENIED = grpc.StatusCode.PERMISSION_DENIED


def card(code: str) -> int:
    return parse_card(code)


def to_play(client: EngineClient, rules: rules_pb2.RuleSet = TABLE) -> Match:
    """Deal L1, let seat 1 buy Hokm hearts, nobody doubles: seat 1 is on lead."""
    match = client.create_match(rules, first_dealer=0)
    match.deal(0, deck_for_hands(L1, "8H", taker=1, dealer=0))
    while match.views[0].phase != types_pb2.PHASE_PLAYING:
        seat = match.views[0].turn
        actions = list(match.views[seat].legal_actions)
        buying = (types_pb2.BID_KIND_HOKM, types_pb2.BID_KIND_CONFIRM_HOKM)
        preferred = [
            a
            for a in actions
            if seat == 1
            and a.WhichOneof("action") == "bid"
            and a.bid.kind in buying
            and a.bid.suit in (types_pb2.SUIT_UNSPECIFIED, types_pb2.SUIT_HEARTS)
        ]
        passes = [
            a
            for a in actions
            if (a.WhichOneof("action") == "bid" and a.bid.kind == types_pb2.BID_KIND_PASS)
            or (
                a.WhichOneof("action") == "doubling"
                and a.doubling.call == types_pb2.DOUBLING_CALL_DECLINE
            )
        ]
        match.act(seat, (preferred or passes)[0])
    assert match.views[0].turn == 1
    return match


def revoked(client: EngineClient) -> Match:
    match = to_play(client)
    match.play(1, types_pb2.CardPlay(card=card("AS")))
    events = match.play(2, types_pb2.CardPlay(card=card("AH")))
    # The illegal card is accepted as any card is: nothing says it broke a rule.
    assert [e.kind for e in events] == [types_pb2.EVENT_KIND_CARD_PLAYED]
    return match


def qayd_request(
    match: Match, seat: int, call: types_pb2.QaydCall | None, **fields: object
) -> pb.CallQaydRequest:
    fields.setdefault("credential", match.host_credential)
    request = pb.CallQaydRequest(state=match.state, match_id=match.match_id, seat=seat, **fields)
    if call is not None:
        request.call.CopyFrom(call)
    return request


def test_a_correct_call_is_judged_in_public_and_ends_the_round(client: EngineClient) -> None:
    match = revoked(client)
    call = types_pb2.QaydCall(
        accused=2, trick=1, card=card("AH"), category=types_pb2.QAYD_CATEGORY_REVOKE
    )
    events = match.call_qayd(3, call, credential=match.seat_credentials[3])
    kinds = [e.kind for e in events]
    assert kinds[0] == types_pb2.EVENT_KIND_QAYD_JUDGED
    assert types_pb2.EVENT_KIND_ROUND_SCORED in kinds
    verdict = events[0].qayd
    assert verdict.caller == 3
    assert verdict.accused == 2
    assert verdict.trick == 1
    assert verdict.card == card("AH")
    assert verdict.category == types_pb2.QAYD_CATEGORY_REVOKE
    assert verdict.correct
    # The evidence: seat 2's spades, ascending card codes (8S 9S 10S JS QS = 1 2 3 4 5).
    assert list(verdict.evidence) == [1, 2, 3, 4, 5]
    assert verdict.winning_team == 1
    score = next(e.round_score for e in events if e.kind == types_pb2.EVENT_KIND_ROUND_SCORED)
    assert score.reason == types_pb2.OUTCOME_REASON_QAYD
    assert score.winning_team == 1
    # Team 1 takes the Hokm pot 16; seat 0's Baloot stays with team 0: 2.
    assert [t.final_points for t in score.teams] == [2, 16]
    # A seat credential sees its own view only.
    (view,) = match.views
    assert view.seat == 3
    assert list(view.match_score.points) == [2, 16]
    assert view.phase == types_pb2.PHASE_ROUND_OVER
    assert match.score().last_round.reason == types_pb2.OUTCOME_REASON_QAYD


def test_a_wrong_call_costs_the_callers_team_the_hand(client: EngineClient) -> None:
    match = to_play(client)
    match.play(1, types_pb2.CardPlay(card=card("AS")))
    match.play(2, types_pb2.CardPlay(card=card("QS")))
    events = match.call_qayd(1, types_pb2.QaydCall(accused=2, trick=1, card=card("QS")))
    verdict = events[0].qayd
    assert not verdict.correct
    assert verdict.category == types_pb2.QAYD_CATEGORY_UNSPECIFIED
    assert verdict.winning_team == 0
    # Team 0: 16 and its Baloot 2.
    assert list(match.views[0].match_score.points) == [18, 0]


def a_wrong_call(client: EngineClient) -> tuple[Match, types_pb2.QaydCall]:
    """Table play with ``qayd_false_call = no_penalty``: seat 2 followed suit legally (QS on
    AS), and the call that accuses it of a breach."""
    rules = rules_pb2.RuleSet()
    rules.CopyFrom(TABLE)
    rules.qayd_false_call = rules_pb2.QAYD_FALSE_CALL_NO_PENALTY
    match = to_play(client, rules)
    match.play(1, types_pb2.CardPlay(card=card("AS")))
    match.play(2, types_pb2.CardPlay(card=card("QS")))
    return match, types_pb2.QaydCall(accused=2, trick=1, card=card("QS"))


def test_with_no_penalty_a_wrong_call_is_refused_and_play_goes_on(client: EngineClient) -> None:
    match, call = a_wrong_call(client)
    before = match.views[0]
    refused = expect_refusal(
        client.stub.CallQayd, qayd_request(match, 1, call), FAILED_PRECONDITION, "QAYD_WRONG"
    )
    assert refused.metadata == {"seat": "2", "trick": "1", "card": "QS"}
    # Nothing was judged: the match goes on from the same token, seat 3 to play.
    after = match.view(0)
    assert (after.state_version, after.phase, after.turn) == (before.state_version, before.phase, 3)
    plays = [a for a in match.views[3].legal_actions if a.WhichOneof("action") == "play"]
    match.act(3, plays[0])


def test_the_host_closes_the_review_after_the_last_card(client: EngineClient) -> None:
    match = to_play(client)
    events: list[types_pb2.Event] = []
    while match.views[0].phase == types_pb2.PHASE_PLAYING:
        seat = match.views[0].turn
        plays = [a for a in match.views[seat].legal_actions if a.WhichOneof("action") == "play"]
        events = list(match.act(seat, plays[0]))
    assert events[-1].kind == types_pb2.EVENT_KIND_REVIEW_OPENED
    assert all(e.kind != types_pb2.EVENT_KIND_ROUND_SCORED for e in events)
    view = match.views[0]
    assert view.phase == types_pb2.PHASE_ROUND_REVIEW
    assert not view.HasField("turn")
    assert not view.HasField("round_score")
    # Only the host closes the review.
    expect_refusal(
        client.stub.CallQayd,
        qayd_request(match, 0, None, close_review=True, credential=match.seat_credentials[0]),
        PERMISSION_DENIED,
        "CREDENTIAL_INVALID",
    )
    events = list(match.close_review())
    assert events[0].kind == types_pb2.EVENT_KIND_ROUND_SCORED
    assert events[0].round_score.reason != types_pb2.OUTCOME_REASON_QAYD
    assert sum(t.card_abnat for t in events[0].round_score.teams) == 162
    assert match.views[0].phase == types_pb2.PHASE_ROUND_OVER
    # After the scoring: no call, no second close.
    call = types_pb2.QaydCall(accused=2, trick=8, card=0)
    expect_refusal(
        client.stub.CallQayd, qayd_request(match, 1, call), FAILED_PRECONDITION, "WRONG_PHASE"
    )
    expect_refusal(
        client.stub.CallQayd,
        qayd_request(match, 0, None, close_review=True),
        FAILED_PRECONDITION,
        "REVIEW_NOT_OPEN",
    )


@pytest.mark.parametrize(
    ("seat", "call", "code", "reason"),
    [
        (
            0,
            types_pb2.QaydCall(accused=2, trick=1, card=9),
            FAILED_PRECONDITION,
            "QAYD_NOT_ALLOWED",
        ),
        (3, types_pb2.QaydCall(accused=2, trick=1, card=5), FAILED_PRECONDITION, "QAYD_INVALID"),
        (3, types_pb2.QaydCall(accused=2, trick=2, card=9), FAILED_PRECONDITION, "QAYD_INVALID"),
        (3, types_pb2.QaydCall(accused=2, trick=9, card=9), INVALID_ARGUMENT, "INVALID_ACTION"),
        (3, types_pb2.QaydCall(accused=4, trick=1, card=9), INVALID_ARGUMENT, "INVALID_SEAT"),
        (3, types_pb2.QaydCall(accused=2, trick=1, card=32), INVALID_ARGUMENT, "INVALID_CARD"),
        (
            3,
            types_pb2.QaydCall(accused=2, trick=1, card=9, category=99),  # type: ignore[arg-type]
            INVALID_ARGUMENT,
            "INVALID_ACTION",
        ),
        (3, None, INVALID_ARGUMENT, "REQUEST_INVALID"),
    ],
    ids=[
        "own team",
        "a card not played",
        "a trick not played",
        "trick out of range",
        "accused out of range",
        "card out of range",
        "unknown category",
        "no call",
    ],
)
def test_bad_calls_are_refused_with_a_reason(
    client: EngineClient,
    seat: int,
    call: types_pb2.QaydCall | None,
    code: grpc.StatusCode,
    reason: str,
) -> None:
    match = revoked(client)  # seat 2 played AH (card 9) in trick 1
    expect_refusal(client.stub.CallQayd, qayd_request(match, seat, call), code, reason)


def test_a_seat_calls_only_for_itself_and_only_in_table_play(
    client: EngineClient, stub: pb_grpc.BalootEngineServiceStub
) -> None:
    match = revoked(client)
    call = types_pb2.QaydCall(accused=2, trick=1, card=card("AH"))
    expect_refusal(
        stub.CallQayd,
        qayd_request(match, 3, call, credential=match.seat_credentials[1]),
        PERMISSION_DENIED,
        "CREDENTIAL_INVALID",
    )
    expect_refusal(
        stub.CallQayd,
        qayd_request(match, 3, call, close_review=True),
        INVALID_ARGUMENT,
        "REQUEST_INVALID",
    )
    plain = to_play(client, rules_pb2.RuleSet(preset=rules_pb2.PRESET_SEEDS))
    plain.play(1, types_pb2.CardPlay(card=card("AS")))
    expect_refusal(
        stub.CallQayd,
        qayd_request(plain, 0, types_pb2.QaydCall(accused=1, trick=1, card=card("AS"))),
        FAILED_PRECONDITION,
        "QAYD_NOT_ALLOWED",
    )


def test_the_rule_set_of_a_table_match_shows_its_flags(client: EngineClient) -> None:
    rules = rules_pb2.RuleSet(
        preset=rules_pb2.PRESET_KAMMELNA,
        illegal_moves_allowed=True,
        qayd_penalty=rules_pb2.QAYD_PENALTY_BASE_ONLY,
        qayd_false_call=rules_pb2.QAYD_FALSE_CALL_NO_PENALTY,
        false_sawa=rules_pb2.FALSE_SAWA_LOSES_HAND,
    )
    match = client.create_match(rules, first_dealer=0)
    shown = match.view(0).rules
    assert shown.illegal_moves_allowed
    assert shown.qayd_penalty == rules_pb2.QAYD_PENALTY_BASE_ONLY
    assert shown.qayd_false_call == rules_pb2.QAYD_FALSE_CALL_NO_PENALTY
    assert shown.false_sawa == rules_pb2.FALSE_SAWA_LOSES_HAND


def test_a_bot_suggests_the_qayd_call_its_seat_can_prove(client: EngineClient) -> None:
    # Seat 0 is void in spades, holds trumps and throws AD on the opponents' AS (did not
    # trump); once the eight tricks are played every card of seat 0 is known to all.
    match = to_play(client)
    for seat, code in ((1, "AS"), (2, "QS"), (3, "QD"), (0, "AD")):
        match.play(seat, types_pb2.CardPlay(card=card(code)))
    while match.views[0].phase == types_pb2.PHASE_PLAYING:
        seat = match.views[0].turn
        plays = [a for a in match.views[seat].legal_actions if a.WhichOneof("action") == "play"]
        match.act(seat, plays[0])
    assert match.views[0].phase == types_pb2.PHASE_ROUND_REVIEW
    action = match.suggest(1, pb.BOT_LEVEL_BASIC, seed=1)
    assert action.WhichOneof("action") == "qayd"
    assert action.qayd == types_pb2.QaydCall(
        accused=0, trick=1, card=card("AD"), category=types_pb2.QAYD_CATEGORY_NO_TRUMP
    )
    events = match.act(1, action)
    assert events[0].qayd.correct
    assert list(match.views[0].match_score.points) == [2, 16]
