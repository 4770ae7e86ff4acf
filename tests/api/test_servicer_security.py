"""Cheating through the API: damaged, foreign and forged tokens, wrong credentials, peeking at
hidden cards, actions the rules forbid, stale versions and retried actions."""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from baloot_client import EngineClient, Match
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baloot.internal.v1 import match_state_pb2
from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot.v1 import rules_pb2, types_pb2
from baloot_engine.api.sealing import KeyRing, key_id, parse_key
from baloot_engine.api.state_codec import encode
from baloot_engine.api.views import encode_observation
from baloot_engine.rules.observation import observe, observe_public
from baloot_engine.rules.state import Phase, State

from .conftest import (
    CUSTOM,
    IN_ORDER_HOKM,
    KAMMELNA,
    KEY_A,
    KEY_B,
    LIVE,
    PASS,
    SEATS,
    SEEDS,
    InProcessServer,
    Step,
    Table,
    action_call,
    bid,
    doubling,
    expect_refusal,
    mask_cards,
    mid_round,
    open_token,
    play,
    read_calls,
    refusal,
)

INVALID_ARGUMENT = grpc.StatusCode.INVALID_ARGUMENT
FAILED_PRECONDITION = grpc.StatusCode.FAILED_PRECONDITION
PERMISSION_DENIED = grpc.StatusCode.PERMISSION_DENIED


@pytest.fixture(scope="module")
def paused(client: EngineClient) -> Table:
    """A match of the module's server paused after four tricks of a round."""
    return mid_round(client, random.Random(2024))


def token_calls(
    stub: pb_grpc.BalootEngineServiceStub, table: Table
) -> list[tuple[Callable[..., Any], Any]]:
    """Every kind of call on the paused match's token: its next legal action and the reads."""
    seat = table.latest.turn
    action = table.seat_view(seat).legal_actions[0]
    return [action_call(stub, table.match, seat, action), *read_calls(stub, table.match, seat)]


def expect_state_invalid(calls: list[tuple[Callable[..., Any], Any]], token: bytes) -> None:
    for method, request in calls:
        copy = type(request)()
        copy.CopyFrom(request)
        copy.state = token
        expect_refusal(method, copy, INVALID_ARGUMENT, "STATE_INVALID")


def expect_accepted(calls: list[tuple[Callable[..., Any], Any]]) -> None:
    for method, request in calls:
        method(request, timeout=10)


# ---------------------------------------------------------------------------------------
# Tokens


def test_a_token_in_the_middle_of_a_round_is_small(paused: Table) -> None:
    assert paused.latest.phase == types_pb2.PHASE_PLAYING
    assert sum(paused.latest.tricks_won) == 4
    assert len(paused.match.state) <= 256


def test_every_flipped_byte_of_a_token_is_refused(
    stub: pb_grpc.BalootEngineServiceStub, paused: Table
) -> None:
    calls = token_calls(stub, paused)
    token = paused.match.state
    for index in range(len(token)):
        for flip in (0xFF, 0x01):
            damaged = bytearray(token)
            damaged[index] ^= flip
            # One kind of call per damaged token, each kind in turn.
            call = calls[(2 * index + (flip == 1)) % len(calls)]
            expect_state_invalid([call], bytes(damaged))
    expect_accepted(calls)


def test_truncated_and_extended_tokens_are_refused(
    stub: pb_grpc.BalootEngineServiceStub, paused: Table
) -> None:
    calls = token_calls(stub, paused)
    token = paused.match.state
    for length in range(len(token)):
        expect_state_invalid([calls[length % len(calls)]], token[:length])
    for extra in (b"\x00", b"\x01" * 16, token):
        expect_state_invalid(calls, token + extra)
    expect_accepted(calls)


def test_random_and_empty_tokens_are_refused(
    stub: pb_grpc.BalootEngineServiceStub, paused: Table
) -> None:
    calls = token_calls(stub, paused)
    token = paused.match.state
    rng = random.Random(5)
    tokens = [b"", b"\x00", b"\x01", token[:2], token[:14]]
    tokens += [rng.randbytes(n) for n in (1, 13, 30, 31, 64, 200, 4000)]
    # A header that names the right format and key, then noise.
    tokens += [token[:2] + rng.randbytes(n) for n in (12, 28, 29, 180)]
    for damaged in tokens:
        expect_state_invalid(calls, damaged)


@settings(max_examples=40, deadline=None)
@given(data=st.binary(max_size=300))
def test_arbitrary_bytes_are_refused(
    stub: pb_grpc.BalootEngineServiceStub, paused: Table, data: bytes
) -> None:
    expect_state_invalid(token_calls(stub, paused)[1:2], data)


def test_a_token_sealed_with_another_key_is_refused(
    stub: pb_grpc.BalootEngineServiceStub,
    keys: KeyRing,
    paused: Table,
    servers: Callable[..., InProcessServer],
    dial: Callable[[InProcessServer], EngineClient],
) -> None:
    assert key_id(parse_key(KEY_A)) != key_id(parse_key(KEY_B))
    other = dial(servers(state_keys=(KEY_B,)))
    foreign = other.create_match(SEEDS, first_dealer=0)
    foreign.deal(0)
    # With the credential this server derives for that match, only the token is wrong.
    credential = keys.credential(bytes.fromhex(foreign.match_id), "host")
    for method, request in read_calls(stub, foreign, 1):
        request.credential = credential
        expect_refusal(method, request, INVALID_ARGUMENT, "STATE_INVALID")
    method, request = action_call(stub, foreign, 1, bid(types_pb2.BID_KIND_PASS))
    request.credential = credential
    expect_refusal(method, request, INVALID_ARGUMENT, "STATE_INVALID")
    # And the other way round: this server's token on the other server.
    theirs = KeyRing.from_texts((KEY_B,)).credential(bytes.fromhex(paused.match.match_id), "host")
    for method, request in read_calls(other.stub, paused.match, 0):
        request.credential = theirs
        expect_refusal(method, request, INVALID_ARGUMENT, "STATE_INVALID")


def test_a_token_sealed_with_a_key_of_the_same_id_is_refused(
    stub: pb_grpc.BalootEngineServiceStub, keys: KeyRing, paused: Table
) -> None:
    # Key ids are one byte: another key with the same id must still fail to open the token.
    wanted = key_id(parse_key(KEY_A))
    twin = next(
        key
        for key in (i.to_bytes(2, "big") * 16 for i in range(1 << 16))
        if key_id(key) == wanted and key != parse_key(KEY_A)
    )
    match_key = bytes.fromhex(paused.match.match_id)
    plaintext = keys.open(paused.match.state, match_key)
    forged = KeyRing([twin]).seal(plaintext, match_key)
    assert forged[:2] == paused.match.state[:2]
    expect_state_invalid(token_calls(stub, paused), forged)


def test_tokens_swapped_between_matches_are_refused(
    client: EngineClient, stub: pb_grpc.BalootEngineServiceStub, paused: Table
) -> None:
    other = client.create_match(SEEDS, first_dealer=0)
    other.deal(0)
    a, b = paused.match, other
    for mine, theirs in ((a, b), (b, a)):
        # The token of one match, with the id and credential of the other.
        for method, request in read_calls(stub, mine, 0):
            request.state = theirs.state
            expect_refusal(method, request, INVALID_ARGUMENT, "STATE_INVALID")


def sealed(keys: KeyRing, match: Match, plaintext: bytes) -> bytes:
    return keys.seal(plaintext, bytes.fromhex(match.match_id))


def impossible_states(keys: KeyRing, table: Table) -> dict[str, bytes]:
    """Tokens that open (sealed with the server's key) but hold no possible state."""
    match = table.match
    plaintext = keys.open(match.state, bytes.fromhex(match.match_id))
    message = match_state_pb2.MatchState.FromString(plaintext)

    def changed(**fields: Any) -> bytes:
        copy = match_state_pb2.MatchState()
        copy.CopyFrom(message)
        for name, value in fields.items():
            setattr(copy, name, value)
        return copy.SerializeToString()

    truth = open_token(keys, match.match_id, match.state)
    hands = truth.state.hands
    moved = hands[1] & -hands[1]  # one card of seat 1 slipped into seat 0's hand
    uneven = truth.state._replace(hands=(hands[0] | moved, hands[1] ^ moved, hands[2], hands[3]))
    return {
        "empty": b"",
        "not protobuf": b"\xff" * 40,
        "another layout": changed(layout=2),
        "phase out of range": changed(phase=17),
        "no contract while playing": changed(contract=0),
        "a seat out of range": changed(turn=7),
        "a short seed": changed(seed=b"\x01"),
        "no cards in play": changed(card_owners=b""),
        "rules out of range": changed(rule_overrides=b"\xff\x09"),
        "match target out of range": changed(match_target=99_999),
        "a dealer out of range": encode(truth.state._replace(dealer=9), truth.seed, 4),
        "hands of uneven sizes": encode(uneven, truth.seed, truth.version),
        "playing with no cards": encode(State(phase=Phase.PLAYING, turn=0), truth.seed, 1),
    }


def test_a_token_that_opens_to_an_impossible_state_is_refused(
    stub: pb_grpc.BalootEngineServiceStub, keys: KeyRing, paused: Table
) -> None:
    calls = token_calls(stub, paused)
    for name, plaintext in impossible_states(keys, paused).items():
        token = sealed(keys, paused.match, plaintext)
        for method, request in calls:
            copy = type(request)()
            copy.CopyFrom(request)
            copy.state = token
            refused = refusal(method, copy)
            assert (refused.code, refused.reason) == (INVALID_ARGUMENT, "STATE_INVALID"), name


def test_a_token_with_a_trump_out_of_range_is_refused(
    stub: pb_grpc.BalootEngineServiceStub, keys: KeyRing, paused: Table
) -> None:
    match = paused.match
    message = match_state_pb2.MatchState.FromString(
        keys.open(match.state, bytes.fromhex(match.match_id))
    )
    assert message.contract
    message.contract = message.contract | 0b10 | 7 << 2  # Hokm, trump bits 7: suit index 6
    token = sealed(keys, match, message.SerializeToString())
    method, request = read_calls(stub, match, 0)[0]
    request.state = token
    expect_refusal(method, request, INVALID_ARGUMENT, "STATE_INVALID")


# ---------------------------------------------------------------------------------------
# Credentials


def test_wrong_and_missing_credentials_are_refused(
    client: EngineClient, stub: pb_grpc.BalootEngineServiceStub, paused: Table
) -> None:
    match = paused.match
    other = client.create_match(SEEDS)
    host = match.host_credential
    wrong = [
        "",
        "x",
        secrets.token_urlsafe(16),
        host[:-1],
        host + "A",
        host.upper() if host.upper() != host else host.lower(),
        "é" * 22,
        "\x00" * 22,
        "A" * 10_000,
        other.host_credential,
        *other.seat_credentials,
    ]
    calls = token_calls(stub, paused)
    for credential in wrong:
        for method, request in calls:
            copy = type(request)()
            copy.CopyFrom(request)
            copy.credential = credential
            expect_refusal(method, copy, PERMISSION_DENIED, "CREDENTIAL_INVALID")
    expect_accepted(calls)


def test_a_seat_credential_acts_and_sees_only_for_its_seat(
    stub: pb_grpc.BalootEngineServiceStub, paused: Table
) -> None:
    match = paused.match
    turn = paused.latest.turn
    action = paused.seat_view(turn).legal_actions[0]
    common = {"state": match.state, "match_id": match.match_id}
    for holder in SEATS:
        credential = match.seat_credentials[holder]
        for seat in SEATS:
            if seat == holder:
                continue
            if seat == turn:
                method, request = action_call(stub, match, seat, action, credential=credential)
                expect_refusal(method, request, PERMISSION_DENIED, "CREDENTIAL_INVALID")
            request = pb.GetViewRequest(seat=seat, credential=credential, **common)
            expect_refusal(stub.GetView, request, PERMISSION_DENIED, "CREDENTIAL_INVALID")
            request = pb.ListLegalActionsRequest(seat=seat, credential=credential, **common)
            expect_refusal(stub.ListLegalActions, request, PERMISSION_DENIED, "CREDENTIAL_INVALID")
        # Its own view and actions; the public view and the score, which anyone may read.
        own = stub.GetView(pb.GetViewRequest(seat=holder, credential=credential, **common))
        assert own.view.seat == holder
        assert len(own.view.hand) == own.view.hand_sizes[holder]
        listed = stub.ListLegalActions(
            pb.ListLegalActionsRequest(seat=holder, credential=credential, **common)
        )
        assert list(listed.actions) == list(own.view.legal_actions)
        public = stub.GetView(pb.GetViewRequest(credential=credential, **common)).view
        assert not public.HasField("seat")
        assert not public.hand
        assert not public.legal_actions
        score = stub.GetScore(pb.GetScoreRequest(credential=credential, **common))
        assert score.state_version == match.version
    # The seat on turn acts with its own credential and sees only its own view back.
    method, request = action_call(
        stub, match, turn, action, credential=match.seat_credentials[turn]
    )
    response = method(request, timeout=10)
    assert [v.seat for v in response.views] == [turn]


# ---------------------------------------------------------------------------------------
# What a view may show


def hidden_from(truth: State, seat: int | None) -> set[int]:
    """The cards ``seat`` may not see: every other hand and the stock."""
    cards = set(truth.stock)
    for other in SEATS:
        if other != seat:
            cards |= set(mask_cards(truth.hands[other]))
    return cards


def check_view(
    view: types_pb2.View, truth: State, seat: int | None, match_id: str, version: int
) -> None:
    """The view is the encoded observation of its seat (or the public one), it shows its own
    hand exactly and none of the cards hidden from it."""
    observation = observe_public(truth) if seat is None else observe(truth, seat)
    with_rules = view.HasField("rules")
    assert view == encode_observation(observation, match_id, version, with_rules=with_rules)
    if seat is None:
        assert not view.HasField("seat")
        assert not view.hand
        assert not view.legal_actions
    else:
        assert view.seat == seat
        assert list(view.hand) == mask_cards(truth.hands[seat])
    shown = {c.card for trick in (view.current_trick, view.last_trick) for c in trick.cards}
    plays = {a.play.card for a in view.legal_actions if a.HasField("play") and not a.play.sawa}
    assert plays <= set(view.hand)
    shown |= plays
    if view.HasField("revealed_card"):
        assert view.revealed_card == truth.buy_card
        shown.discard(view.revealed_card)  # it lay face up for everyone
    assert not shown & hidden_from(truth, seat), "a hidden card is shown"
    if view.phase in LIVE:
        # Projects are shown once compared, and only the winning team's real ones; a Baloot
        # is shown once its holder announced it by playing the second of its two cards.
        for project in view.revealed_projects:
            if project.kind == types_pb2.PROJECT_KIND_BALOOT:
                assert truth.baloot_announced
                assert project.seat == truth.baloot_seat
                assert project.team == truth.baloot_seat & 1
            else:
                assert project.team == truth.project_team
            assert set(project.cards) <= set(mask_cards(truth.full_hands[project.seat]))


def check_events(events: list[types_pb2.Event], truth: State) -> None:
    """Events reach every caller: none may name a card still held or in the stock."""
    held = hidden_from(truth, None)
    for event in events:
        if event.HasField("play") and event.kind != types_pb2.EVENT_KIND_SAWA_CLAIMED:
            assert event.play.card not in held
        if event.HasField("trick"):
            assert not {c.card for c in event.trick.cards} & held
        if event.HasField("deal") and event.deal.HasField("revealed_card"):
            assert event.deal.revealed_card == truth.buy_card
        if event.kind == types_pb2.EVENT_KIND_PROJECTS_REVEALED:
            for project in event.projects.projects:
                assert project.team == truth.project_team
                assert set(project.cards) <= set(mask_cards(truth.full_hands[project.seat]))


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    seed=st.integers(0, 2**32 - 1),
    rules=st.sampled_from([SEEDS, KAMMELNA, CUSTOM]),
    dealer=st.sampled_from(SEATS),
)
def test_no_view_shows_another_seats_hand_or_the_stock(
    client: EngineClient, keys: KeyRing, seed: int, rules: rules_pb2.RuleSet, dealer: int
) -> None:
    rng = random.Random(seed)
    match = client.create_match(rules, first_dealer=dealer)

    def inspect(table: Table, step: Step) -> None:
        opened = open_token(keys, match.match_id, match.state)
        truth, version = opened.state, opened.version
        for view in match.views:
            check_view(view, truth, view.seat, match.match_id, version)
        check_events(step.events, truth)
        # A seat asking for its own view with its own credential, and the public view.
        seat = rng.choice(SEATS)
        own = match.view(seat, credential=match.seat_credentials[seat])
        check_view(own, truth, seat, match.match_id, version)
        public = match.view(credential=match.seat_credentials[seat])
        check_view(public, truth, None, match.match_id, version)

    table = Table(match, rng, on_step=inspect)
    table.play(lambda v: v.phase in (types_pb2.PHASE_ROUND_OVER, types_pb2.PHASE_MATCH_OVER))


# ---------------------------------------------------------------------------------------
# Actions the rules refuse, stale versions, retries

HOKM, CONFIRM = types_pb2.BID_KIND_HOKM, types_pb2.BID_KIND_CONFIRM_HOKM
DIAMONDS = types_pb2.SUIT_DIAMONDS
# (before script step, seat, action, code, reason, metadata expected)
REFUSALS = [
    (0, 1, None, FAILED_PRECONDITION, "NOT_YOUR_TURN", {"turn": "0"}),
    (0, 1, bid(PASS), FAILED_PRECONDITION, "WRONG_PHASE", {}),
    (0, 1, play(0), FAILED_PRECONDITION, "WRONG_PHASE", {}),
    (2, 3, bid(PASS), FAILED_PRECONDITION, "NOT_YOUR_TURN", {"turn": "2"}),
    (2, 2, play(3), FAILED_PRECONDITION, "WRONG_PHASE", {}),
    (2, 2, doubling(types_pb2.DOUBLING_CALL_DOUBLE, 1), FAILED_PRECONDITION, "WRONG_PHASE", {}),
    (2, 0, None, FAILED_PRECONDITION, "WRONG_PHASE", {}),
    (2, 2, bid(HOKM, types_pb2.SUIT_SPADES), FAILED_PRECONDITION, "BID_NOT_ALLOWED", {}),
    (6, 2, bid(PASS), FAILED_PRECONDITION, "WRONG_PHASE", {}),
    (6, 2, play(3), FAILED_PRECONDITION, "WRONG_PHASE", {}),
    (8, 2, play(3), FAILED_PRECONDITION, "NOT_YOUR_TURN", {}),
    (9, 2, play(14), FAILED_PRECONDITION, "MUST_FOLLOW_SUIT", {"allowed": "10S,JS,QS"}),
    (9, 2, play(0), FAILED_PRECONDITION, "CARD_NOT_IN_HAND", {}),
    (9, 3, play(6), FAILED_PRECONDITION, "NOT_YOUR_TURN", {}),
    (9, 2, play(40), INVALID_ARGUMENT, "INVALID_CARD", {}),
    (11, 0, play(29), FAILED_PRECONDITION, "MUST_TRUMP", {"allowed": "9D,10D"}),
    (11, 0, play(31), FAILED_PRECONDITION, "MUST_TRUMP", {"allowed": "9D,10D"}),
]


def run_script(
    client: EngineClient, refuse_at: int | None = None, refusal: tuple[Any, ...] = ()
) -> list[list[types_pb2.Event]]:
    """Play the script (refusing one action on the way) and return each step's events."""
    match = client.create_match(SEEDS, first_dealer=0)
    events = []
    for index, (seat, action) in enumerate(IN_ORDER_HOKM):
        if index == refuse_at:
            _, who, wrong, code, reason, metadata = refusal
            token, version = match.state, match.version
            method, request = action_call(client.stub, match, who, wrong)
            refused = expect_refusal(method, request, code, reason)
            for key, value in metadata.items():
                assert refused.metadata[key] == value
            assert (match.state, match.version) == (token, version)
        deck = range(32) if action is None else ()
        if action is None:
            events.append(list(match.deal(seat, deck)))
        else:
            events.append(list(match.act(seat, action)))
    return events


@pytest.fixture(scope="module")
def clean_run(client: EngineClient) -> list[list[types_pb2.Event]]:
    return run_script(client)


@pytest.mark.parametrize("refusal", REFUSALS, ids=[f"{r[0]}-{r[4]}-seat{r[1]}" for r in REFUSALS])
def test_a_refused_action_leaves_the_previous_token_usable(
    client: EngineClient, clean_run: list[list[types_pb2.Event]], refusal: tuple[Any, ...]
) -> None:
    assert run_script(client, refusal[0], refusal) == clean_run


def test_the_script_is_the_round_it_describes(clean_run: list[list[types_pb2.Event]]) -> None:
    contract = next(
        e.contract
        for step in clean_run
        for e in step
        if e.kind == types_pb2.EVENT_KIND_CONTRACT_FIXED
    )
    assert (contract.type, contract.trump, contract.buyer) == (
        types_pb2.CONTRACT_TYPE_HOKM,
        DIAMONDS,
        1,
    )
    trick = clean_run[-1][-1]
    assert trick.kind == types_pb2.EVENT_KIND_TRICK_WON
    assert [c.card for c in trick.trick.cards] == [0, 3, 7, 18]
    assert trick.trick.winner == 0  # the 9 of trumps


def test_a_round_one_hokm_is_confirmed_without_naming_the_suit(client: EngineClient) -> None:
    match = client.create_match(SEEDS, first_dealer=0)
    match.deal(0, range(32))
    for seat, action in IN_ORDER_HOKM[1:5]:
        match.act(seat, action)
    match.act(1, bid(CONFIRM))
    assert match.views[0].contract.trump == DIAMONDS


def test_a_stale_expected_version_is_refused(
    stub: pb_grpc.BalootEngineServiceStub, paused: Table
) -> None:
    match = paused.match
    turn = paused.latest.turn
    action = paused.seat_view(turn).legal_actions[0]
    for expected in (0, match.version - 1, match.version + 1, 2**64 - 1):
        method, request = action_call(stub, match, turn, action, expected_version=expected)
        refused = expect_refusal(method, request, FAILED_PRECONDITION, "STALE_STATE")
        assert refused.metadata["state_version"] == str(match.version)
    # The right version, or none at all, is accepted.
    for expected in (match.version, None):
        method, request = action_call(stub, match, turn, action, expected_version=expected)
        assert method(request, timeout=10).state_version == match.version + 1


def test_the_same_action_on_the_same_token_gives_the_same_result(
    client: EngineClient, keys: KeyRing
) -> None:
    match = client.create_match(KAMMELNA, first_dealer=2)
    rng = random.Random(8)
    table = Table(match, rng, seat_share=0)
    retried = 0
    while table.latest.phase not in (types_pb2.PHASE_ROUND_OVER, types_pb2.PHASE_MATCH_OVER):
        token, version = match.state, match.version
        step = table.step()
        first = (list(match.views), open_token(keys, match.match_id, match.state).state)
        first_token = match.state
        match.state, match.version = token, version
        if step.action is None:
            again = match.deal(step.seat)
        else:
            again = match.act(step.seat, step.action)
        assert list(again) == step.events
        assert match.version == step.version
        assert match.state != first_token  # a fresh nonce: the same state, sealed again
        assert (list(match.views), open_token(keys, match.match_id, match.state).state) == first
        retried += 1
    assert retried > 30
