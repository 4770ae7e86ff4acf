"""The match ledger (BALOOT_LEDGER): only the latest token of a match is accepted, so nobody
holding old tokens can fork a match; retries are answered again; an unreachable ledger
refuses with UNAVAILABLE and never lets a token through unchecked.

Each attack of ``docs/security.md`` is shown twice: it works on a server without the ledger
(same key, so the same tokens and credentials) and is refused on the server with it.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import random
import shlex
import socket
import subprocess
import threading
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from baloot_client import EngineClient, Match
from prometheus_client.parser import text_string_to_metric_families

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import types_pb2
from baloot_engine.api.ledger import (
    LEDGER_DEADLINE_FACTOR,
    Durability,
    Entry,
    LedgerUnavailableError,
    MatchLedger,
    check_url,
    redact_url,
)
from baloot_engine.api.sealing import KeyRing
from baloot_engine.server.settings import SettingsError, load_settings

from .conftest import (
    CUSTOM,
    KEY_A,
    PASS,
    SEEDS,
    InProcessServer,
    Refusal,
    Table,
    action_call,
    bid,
    expect_refusal,
    make_settings,
    read_calls,
    read_refusal,
    refusal,
)
from .redis_server import RedisServer, redis_binary

FAILED_PRECONDITION = grpc.StatusCode.FAILED_PRECONDITION
UNAVAILABLE = grpc.StatusCode.UNAVAILABLE
ROUND_OVER = (types_pb2.PHASE_ROUND_OVER, types_pb2.PHASE_MATCH_OVER)
RING = KeyRing.from_texts((KEY_A,))


@pytest.fixture(scope="module")
def redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """A redis-server for the module, on a free loopback port (an append-only file in a
    temporary directory, fsynced before each reply)."""
    server = RedisServer(tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def ledgered(redis: RedisServer) -> Iterator[InProcessServer]:
    """A server with the ledger (key A)."""
    settings = make_settings(state_keys=(KEY_A,), ledger=redis.url, allow_preset_deck=True)
    with InProcessServer(settings) as running:
        yield running


@pytest.fixture(scope="module")
def plain() -> Iterator[InProcessServer]:
    """The same server without the ledger (key A): the same tokens and credentials open."""
    with InProcessServer(make_settings(state_keys=(KEY_A,), allow_preset_deck=True)) as running:
        yield running


@pytest.fixture(scope="module")
def guarded(ledgered: InProcessServer) -> Iterator[EngineClient]:
    with grpc.insecure_channel(ledgered.target) as channel:
        yield EngineClient(channel)


@pytest.fixture(scope="module")
def unguarded(plain: InProcessServer) -> Iterator[EngineClient]:
    with grpc.insecure_channel(plain.target) as channel:
        yield EngineClient(channel)


def entry_of(match: Match) -> str:
    """What the ledger must hold for a match whose latest token is ``match.state``."""
    plaintext = RING.open(match.state, bytes.fromhex(match.match_id))
    return f"{match.version}:{hashlib.sha256(plaintext).digest()[:16].hex()}"


def on(client: EngineClient, match: Match, state: bytes, version: int) -> Match:
    """A copy of a match at an older token, sent to ``client``'s server."""
    return Match(
        client=client,
        match_id=match.match_id,
        host_credential=match.host_credential,
        seat_credentials=match.seat_credentials,
        state=state,
        version=version,
        views=[],
    )


def to_a_choice(table: Table, at_least: int) -> int:
    """Play on until the seat on turn in the playing phase has two cards to choose from."""
    table.play(lambda v: v.phase == types_pb2.PHASE_PLAYING and v.state_version >= at_least)
    while len(table.seat_view(table.latest.turn).legal_actions) < 2:
        table.step()
        assert table.latest.phase == types_pb2.PHASE_PLAYING, "no choice left in the round"
    return table.latest.turn


def stale(method: Callable[..., Any], request: Any) -> None:
    refused = expect_refusal(method, request, FAILED_PRECONDITION, "STALE_STATE")
    assert int(refused.metadata["latest_version"]) > int(refused.metadata["state_version"])


# ---------------------------------------------------------------------------------------
# The ledger follows a match


def test_a_whole_match_plays_and_the_ledger_holds_its_latest_state(
    guarded: EngineClient, redis: RedisServer
) -> None:
    match = guarded.create_match(CUSTOM, first_dealer=1)
    key = f"baloot:match:{match.match_id}"
    assert redis.get(key) == entry_of(match)
    table = Table(match, random.Random(61), seat_share=0.3)

    def follows(_table: Table, _step: object) -> None:
        assert redis.get(key) == entry_of(match)

    table.on_step = follows
    table.play()
    assert table.latest.phase == types_pb2.PHASE_MATCH_OVER
    # The record expires a week after the last accepted action.
    ttl = int((redis.command("TTL", key) or ":0")[1:])
    assert 7 * 24 * 3600 - 60 < ttl <= 7 * 24 * 3600
    # The latest token still reads.
    assert match.score().match.HasField("winner_team")


def test_an_action_from_an_old_token_is_refused_and_a_retry_is_answered_again(
    guarded: EngineClient, redis: RedisServer
) -> None:
    table = Table(guarded.create_match(SEEDS, first_dealer=0), random.Random(62), seat_share=0)
    turn = to_a_choice(table, 5)
    match = table.match
    old, version = match.state, match.version
    options = list(table.seat_view(turn).legal_actions)
    first = match.act(turn, options[0])
    after = (match.state, match.version, entry_of(match))
    # Another card from the same token: refused, and the ledger is unchanged.
    method, request = action_call(guarded.stub, match, turn, options[1], state=old)
    stale(method, request)
    # The same card again from the same token is the action already recorded (a lost answer
    # retried): the same events and state, and still one history.
    retry = on(guarded, match, old, version)
    again = retry.act(turn, options[0])
    assert list(again) == list(first)
    assert retry.version == version + 1
    assert entry_of(retry) == after[2] == redis.get(f"baloot:match:{match.match_id}")
    # Once the match has moved on, that retry is stale too.
    Table(match, random.Random(63), seat_share=0).step()
    method, request = action_call(guarded.stub, match, turn, options[0], state=old)
    stale(method, request)
    method, request = action_call(guarded.stub, match, turn, options[0], state=after[0])
    stale(method, request)


def test_every_read_of_an_old_token_is_refused(guarded: EngineClient) -> None:
    table = Table(guarded.create_match(SEEDS, first_dealer=0), random.Random(64), seat_share=0)
    table.play(lambda v: v.state_version >= 3)
    match = table.match
    old = on(guarded, match, match.state, match.version)
    table.step()
    calls = read_calls(guarded.stub, old, 0)
    calls.append(
        (
            guarded.stub.SuggestAction,
            pb.SuggestActionRequest(
                state=old.state,
                match_id=old.match_id,
                credential=old.host_credential,
                seat=table.latest.turn,
            ),
        )
    )
    for method, request in calls:
        stale(method, request)
    # The latest token reads.
    for method, request in read_calls(guarded.stub, match, 0):
        method(request, timeout=10)


def test_expected_version_still_guards_the_latest_token(guarded: EngineClient) -> None:
    table = Table(guarded.create_match(SEEDS, first_dealer=0), random.Random(65), seat_share=0)
    table.play(lambda v: v.state_version >= 2)
    match = table.match
    turn = table.latest.turn
    action = table.seat_view(turn).legal_actions[0]
    method, request = action_call(
        guarded.stub, match, turn, action, expected_version=match.version + 1
    )
    refused = expect_refusal(method, request, FAILED_PRECONDITION, "STALE_STATE")
    assert refused.metadata == {"state_version": str(match.version)}


# ---------------------------------------------------------------------------------------
# The four attacks of docs/security.md, with and without the ledger


def test_taking_back_a_card(guarded: EngineClient, unguarded: EngineClient) -> None:
    table = Table(guarded.create_match(SEEDS, first_dealer=0), random.Random(66), seat_share=0)
    turn = to_a_choice(table, 6)
    options = list(table.seat_view(turn).legal_actions)
    old, version = table.match.state, table.match.version
    table.match.act(turn, options[0], credential=table.match.seat_credentials[turn])
    # The player plays another card from the token before his: without the ledger it works.
    seat_credential = table.match.seat_credentials[turn]
    on(unguarded, table.match, old, version).act(turn, options[1], credential=seat_credential)
    method, request = action_call(
        guarded.stub, table.match, turn, options[1], state=old, credential=seat_credential
    )
    stale(method, request)


def test_rewinding_a_finished_match(guarded: EngineClient, unguarded: EngineClient) -> None:
    match = guarded.create_match(CUSTOM, first_dealer=2)
    before: list[tuple[bytes, int]] = [(match.state, match.version)]
    table = Table(match, random.Random(67), seat_share=0)
    table.on_step = lambda t, _s: before.append((t.match.state, t.match.version))
    table.play()
    assert table.latest.phase == types_pb2.PHASE_MATCH_OVER
    # The last action whose player had another choice, read without the ledger.
    for (state, version), step in reversed(list(zip(before, table.steps, strict=False))):
        if step.action is None:
            continue
        old = on(unguarded, match, state, version)
        others = [
            a
            for a in old.view(step.seat).legal_actions
            if a != step.action and not (a.HasField("play") and a.play.sawa)  # claims may fail
        ]
        if others:
            break
    else:
        pytest.fail("no choice in the whole match")
    # Without the ledger the finished match gets a second ending; with it, refused.
    old.act(step.seat, others[0])
    method, request = action_call(guarded.stub, match, step.seat, others[0], state=state)
    stale(method, request)
    assert match.score().match.HasField("winner_team")


def test_a_sawa_claim_is_no_free_test_of_the_other_hands(
    guarded: EngineClient, unguarded: EngineClient
) -> None:
    rng = random.Random(68)
    for _attempt in range(20):
        match = guarded.create_match(CUSTOM, first_dealer=0)
        table = Table(match, rng, seat_share=0)
        while table.latest.phase not in ROUND_OVER:
            turn = table.latest.turn if table.latest.HasField("turn") else None
            claims = []
            if turn is not None and table.latest.phase == types_pb2.PHASE_PLAYING:
                options = table.seat_view(turn).legal_actions
                claims = [a for a in options if a.HasField("play") and a.play.sawa]
                plain_cards = [a for a in options if a.HasField("play") and not a.play.sawa]
            if claims and plain_cards:
                break
            table.step()
        else:
            continue
        old, version = match.state, match.version
        match.act(turn, plain_cards[0])
        # Without the ledger the old token answers the claim: SAWA_INVALID or a scored round.
        method, request = action_call(unguarded.stub, match, turn, claims[0], state=old)
        try:
            method(request, timeout=10)
        except grpc.RpcError as error:
            assert read_refusal(error).reason == "SAWA_INVALID"
        # With it, the claim is refused for the token alone, whatever the hands are.
        method, request = action_call(guarded.stub, match, turn, claims[0], state=old)
        stale(method, request)
        assert version == match.version - 1
        return
    pytest.fail("no Sawa claim offered in 20 rounds")


def test_bidding_sun_on_a_throw_away_copy_shows_no_undealt_card(
    guarded: EngineClient, unguarded: EngineClient
) -> None:
    match = guarded.create_match(SEEDS, first_dealer=0)
    match.deal(0)
    seat = match.views[0].turn
    credential = match.seat_credentials[seat]
    old, version = match.state, match.version
    match.act(seat, bid(PASS), credential=credential)
    sun = bid(types_pb2.BID_KIND_SUN)
    # Without the ledger: Sun on the old token completes the hand, 3 undealt cards seen.
    copy = on(unguarded, match, old, version)
    copy.act(seat, sun, credential=credential)
    (view,) = copy.views
    assert view.seat == seat
    assert len(view.hand) == 8
    # With it: refused, no view at all.
    method, request = action_call(guarded.stub, match, seat, sun, state=old, credential=credential)
    stale(method, request)


# ---------------------------------------------------------------------------------------
# Concurrency


def at_once(barrier: threading.Barrier, call: tuple[Callable[..., Any], Any]) -> Any:
    """Send a call as soon as the other thread is ready too; return its answer or refusal."""
    barrier.wait()
    try:
        return call[0](call[1], timeout=10)
    except grpc.RpcError as error:
        return read_refusal(error)


def test_of_two_concurrent_actions_from_one_token_exactly_one_wins(
    ledgered: InProcessServer,
) -> None:
    with (
        grpc.insecure_channel(ledgered.target) as one,
        grpc.insecure_channel(ledgered.target) as two,
    ):
        client = EngineClient(one)
        stubs = (client.stub, EngineClient(two).stub)
        rng = random.Random(69)
        rounds = 0
        with ThreadPoolExecutor(2) as pool:
            while rounds < 15:
                table = Table(client.create_match(SEEDS, first_dealer=0), rng, seat_share=0)
                table.play(lambda v: v.phase == types_pb2.PHASE_PLAYING and v.state_version >= 8)
                while table.latest.phase == types_pb2.PHASE_PLAYING and rounds < 15:
                    turn = table.latest.turn
                    options = list(table.seat_view(turn).legal_actions)
                    if len(options) < 2:
                        table.step()
                        continue
                    calls = [
                        action_call(stub, table.match, turn, action)
                        for stub, action in zip(stubs, options[:2], strict=True)
                    ]
                    send = functools.partial(at_once, threading.Barrier(2))
                    answers = list(pool.map(send, calls))
                    won = [a for a in answers if not isinstance(a, Refusal)]
                    lost = [a for a in answers if isinstance(a, Refusal)]
                    assert len(won) == 1, answers
                    assert [(r.code, r.reason) for r in lost] == [
                        (FAILED_PRECONDITION, "STALE_STATE")
                    ]
                    table.match.state = won[0].state
                    table.match.version = won[0].state_version
                    table.views = {view.seat: view for view in won[0].views}
                    rounds += 1


# ---------------------------------------------------------------------------------------
# The ledger out of reach, or without the match


FRAGILE_TIMEOUT = 0.5


@pytest.fixture
def fragile(tmp_path: Path) -> Iterator[tuple[RedisServer, InProcessServer]]:
    """A redis-server of its own and a server using it with a short timeout."""
    redis = RedisServer(tmp_path / "redis").start()
    settings = make_settings(
        state_keys=(KEY_A,), ledger=redis.url, ledger_timeout_seconds=FRAGILE_TIMEOUT
    )
    server = InProcessServer(settings).__enter__()
    yield redis, server
    server.stop()
    redis.stop()


def test_an_unreachable_ledger_refuses_with_unavailable_and_the_same_request_can_be_retried(
    fragile: tuple[RedisServer, InProcessServer],
) -> None:
    redis, server = fragile
    with grpc.insecure_channel(server.target) as channel:
        client = EngineClient(channel)
        table = Table(client.create_match(SEEDS, first_dealer=0), random.Random(70), seat_share=0)
        table.play(lambda v: v.state_version >= 3)
        match = table.match
        key = f"baloot:match:{match.match_id}"
        # A host that does not answer (paused), then a port that refuses connections.
        for cut, heal in ((redis.pause, redis.resume), (redis.stop, redis.start)):
            turn = table.latest.turn
            action = table.seat_view(turn).legal_actions[0]
            cut()
            calls = [
                action_call(client.stub, match, turn, action),
                *read_calls(client.stub, match, 0),
                (client.stub.CreateMatch, pb.CreateMatchRequest(rules=SEEDS, first_dealer=0)),
            ]
            for method, request in calls:
                # The server's own refusal (the server bounds each ledger call, see
                # test_a_hung_ledger_is_given_up_on_after_at_most_three_connections), not a
                # deadline of the client's.
                refused = expect_refusal(method, request, UNAVAILABLE, "LEDGER_UNAVAILABLE")
                assert "ledger" in refused.message
            heal()
            method, request = action_call(client.stub, match, turn, action)
            # The record survives: a paused server keeps it in memory, a stopped one in its
            # append-only file. A paused server also runs the commands it had queued once it
            # resumes, so the action may have been recorded although the caller was told
            # UNAVAILABLE: the same request again is then answered as that action. Either way
            # it now goes through.
            assert redis.get(key) is not None
            response = method(request, timeout=10)
            assert response.state_version == match.version + 1
            match.state, match.version = response.state, response.state_version
            table.views = {view.seat: view for view in response.views}
            assert redis.get(key) == entry_of(match)


def test_a_match_the_ledger_does_not_know_is_refused(
    guarded: EngineClient, unguarded: EngineClient, redis: RedisServer
) -> None:
    # Begun on a server without the ledger, then brought to one with it.
    match = unguarded.create_match(SEEDS, first_dealer=0)
    match.deal(0)
    moved = on(guarded, match, match.state, match.version)
    for method, request in read_calls(guarded.stub, moved, 0):
        refused = expect_refusal(method, request, FAILED_PRECONDITION, "MATCH_UNKNOWN")
        assert refused.metadata == {"state_version": "1"}
    # A record that expired (deleted here) leaves the match unknown too.
    known = guarded.create_match(SEEDS, first_dealer=0)
    known.deal(0)
    assert redis.command("DEL", f"baloot:match:{known.match_id}") == ":1"
    seat = known.views[0].turn
    method, request = action_call(guarded.stub, known, seat, bid(PASS))
    expect_refusal(method, request, FAILED_PRECONDITION, "MATCH_UNKNOWN")


def test_requests_without_a_token_need_no_ledger(
    fragile: tuple[RedisServer, InProcessServer],
) -> None:
    redis, server = fragile
    redis.stop()
    with grpc.insecure_channel(server.target) as channel:
        client = EngineClient(channel)
        score = client.score_round(
            pb.ScoreRoundRequest(
                contract_type=types_pb2.CONTRACT_TYPE_HOKM,
                trump=types_pb2.SUIT_HEARTS,
                buyer_team=0,
                card_abnat=[86, 76],
                tricks_won=[5, 3],
            )
        )
        assert len(score.score.teams) == 2
        # A malformed request is refused for what it is, before any token is opened.
        refused = refusal(client.stub.GetView, pb.GetViewRequest(match_id="zz"))
        assert refused.reason == "REQUEST_INVALID"


# ---------------------------------------------------------------------------------------
# Settings and helpers


def test_the_ledger_settings_are_read_and_checked() -> None:
    settings = load_settings(
        ["--ledger", "redis://:secret@127.0.0.1:6379/2", "--ledger-ttl-seconds", "3600"], {}
    )
    assert settings.ledger == "redis://:secret@127.0.0.1:6379/2"
    assert settings.ledger_ttl_seconds == 3600
    assert "secret" not in str(settings.redacted())
    assert load_settings([], {"BALOOT_LEDGER": "unix:///run/redis.sock"}).ledger
    assert load_settings([], {}).ledger == ""
    for bad in ("http://host", "redis://", "redis://host:99999", "unix://"):
        with pytest.raises(SettingsError, match="BALOOT_LEDGER") as raised:
            load_settings([], {"BALOOT_LEDGER": bad.replace("host", "u:pw@host")})
        assert "pw" not in str(raised.value)
    for bad in ("0", "59", "x"):
        with pytest.raises(SettingsError, match="BALOOT_LEDGER_TTL_SECONDS"):
            load_settings([], {"BALOOT_LEDGER_TTL_SECONDS": bad})
    with pytest.raises(SettingsError, match="BALOOT_LEDGER_TIMEOUT_SECONDS"):
        load_settings([], {"BALOOT_LEDGER_TIMEOUT_SECONDS": "0"})
    assert load_settings([], {}).ledger_durability is Durability.CHECKED
    lossy = load_settings(["--ledger-durability", "lossy"], {"BALOOT_LEDGER_DURABILITY": "trusted"})
    assert lossy.ledger_durability is Durability.LOSSY
    with pytest.raises(SettingsError, match="BALOOT_LEDGER_DURABILITY"):
        load_settings([], {"BALOOT_LEDGER_DURABILITY": "always"})


def test_urls_are_shown_without_their_password() -> None:
    assert redact_url("redis://:pw@h:1/0") == "redis://:<redacted>@h:1/0"
    assert redact_url("rediss://user:pw@h/0") == "rediss://user:<redacted>@h/0"
    assert redact_url("redis://h:1/0") == "redis://h:1/0"
    assert check_url(" redis://h:1/0 ") == "redis://h:1/0"


def test_an_entry_names_the_state_not_the_token_bytes() -> None:
    plaintext = b"\x08\x01state"
    entry = Entry.of(7, plaintext)
    assert entry.encode() == b"7:" + hashlib.sha256(plaintext).digest()[:16].hex().encode()
    assert Entry.version_in(entry.encode()) == 7
    assert Entry.version_in(b"garbage") is None
    assert Entry.of(7, plaintext + b"x") != entry
    assert Entry.of(8, plaintext) != entry


def test_the_metrics_count_the_ledger_answers_and_no_refused_fork(
    redis: RedisServer,
    servers: Callable[..., InProcessServer],
    dial: Callable[[InProcessServer], EngineClient],
) -> None:
    server = servers(state_keys=(KEY_A,), ledger=redis.url)
    client = dial(server)
    match = client.create_match(SEEDS, first_dealer=0)
    match.deal(0)
    seat = match.views[0].turn
    old = match.state
    match.act(seat, bid(PASS))
    method, request = action_call(client.stub, match, seat, bid(types_pb2.BID_KIND_SUN), state=old)
    stale(method, request)
    match.view(0)
    url = f"http://127.0.0.1:{server.app.metrics_port}/metrics"
    with urllib.request.urlopen(url, timeout=5) as response:
        text = response.read().decode()
    samples = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }
    answers = {
        labels[0][1]: value
        for (name, labels), value in samples.items()
        if name == "baloot_ledger_answers_total"
    }
    # The deal and the pass recorded, the view on the latest token, the fork stale (creating
    # a match records it, with no answer to count).
    assert answers == {"latest": 3, "stale": 1}
    # The Sun bid of the refused fork fixed a contract that never happened: not counted.
    assert not [key for key in samples if key[0] == "baloot_contracts_total"]
    assert samples[("baloot_rounds_dealt_total", ())] == 1


# ---------------------------------------------------------------------------------------
# A ledger that lost writes (issue 27, finding 4)


def _metric_answers(server: InProcessServer) -> dict[str, float]:
    url = f"http://127.0.0.1:{server.app.metrics_port}/metrics"
    with urllib.request.urlopen(url, timeout=5) as response:
        text = response.read().decode()
    return {
        sample.labels["answer"]: sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "baloot_ledger_answers_total"
    }


@dataclass(frozen=True)
class Past:
    """An older token of a match, and a legal action from it other than the one taken."""

    state: bytes
    version: int
    seat: int
    other: types_pb2.Action


def play_keeping_tokens(table: Table, actions: int) -> list[Past]:
    """Play ``actions`` more actions; keep each token on which the seat on turn had another
    legal choice (not a Sawa claim, which may be refused for itself), oldest first."""
    kept: list[Past] = []
    for _ in range(actions):
        state, version = table.match.state, table.match.version
        latest = table.latest
        seat = latest.dealer if latest.phase in ROUND_OVER else latest.turn
        options = list(table.seat_view(seat).legal_actions)
        step = table.step()
        others = [
            a for a in options if a != step.action and not (a.HasField("play") and a.play.sawa)
        ]
        if step.action is not None and others:
            kept.append(Past(state, version, step.seat, others[0]))
    return kept


def fork_attempt(client: EngineClient, match: Match, past: Past) -> Any:
    """The other action from an older token: the new state's version and its digest if
    accepted, else the refusal."""
    method, request = action_call(client.stub, match, past.seat, past.other, state=past.state)
    try:
        response = method(request, timeout=10)
    except grpc.RpcError as error:
        return read_refusal(error)
    plaintext = RING.open(response.state, bytes.fromhex(match.match_id))
    return response.state_version, hashlib.sha256(plaintext).digest()


def test_a_default_ledger_refuses_a_redis_that_may_lose_acknowledged_writes(
    tmp_path: Path,
    servers: Callable[..., InProcessServer],
    dial: Callable[[InProcessServer], EngineClient],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Issue 56: with ``appendfsync everysec`` or RDB, Redis acknowledges writes it can still
    lose, after which an older token could fork a match. The default ledger (checked) uses no
    such Redis; ``trusted`` skips the check, on the operator's word."""
    for persistence, shown in (
        ("everysec", "appendfsync is everysec"),
        ("rdb", "appendonly is no"),
        ("none", "appendonly is no"),
    ):
        redis = RedisServer(tmp_path / persistence, persistence=persistence).start()
        try:
            checked = dial(servers(state_keys=(KEY_A,), ledger=redis.url))
            for method, request in (
                (checked.stub.CreateMatch, pb.CreateMatchRequest(rules=SEEDS, first_dealer=0)),
            ):
                expect_refusal(method, request, UNAVAILABLE, "LEDGER_UNAVAILABLE")
            assert shown in caplog.text
            trusted = servers(
                state_keys=(KEY_A,), ledger=redis.url, ledger_durability=Durability.TRUSTED
            )
            match = dial(trusted).create_match(SEEDS, first_dealer=0)
            assert redis.get(f"baloot:match:{match.match_id}") == entry_of(match)
        finally:
            redis.stop()
        caplog.clear()


def test_redis_killed_with_appendfsync_always_loses_nothing_and_no_older_token_forks(
    tmp_path: Path,
    servers: Callable[..., InProcessServer],
    dial: Callable[[InProcessServer], EngineClient],
) -> None:
    """The default: SIGKILL and restart; every token older than the latest is refused, the
    latest goes on."""
    redis = RedisServer(tmp_path / "redis").start()
    try:
        client = dial(servers(state_keys=(KEY_A,), ledger=redis.url))
        table = Table(client.create_match(SEEDS, first_dealer=0), random.Random(91), seat_share=0)
        olders = play_keeping_tokens(table, 24)[-6:]
        redis.kill()
        redis.start()
        match = table.match
        assert redis.get(f"baloot:match:{match.match_id}") == entry_of(match)
        for past in olders:  # the older tokens first
            refused = fork_attempt(client, match, past)
            assert isinstance(refused, Refusal)
            assert (refused.reason, refused.metadata["latest_version"]) == (
                "STALE_STATE",
                str(match.version),
            )
        play_keeping_tokens(table, 3)  # the latest goes on
        assert redis.get(f"baloot:match:{match.match_id}") == entry_of(match)
    finally:
        redis.stop()


@pytest.mark.parametrize("older_first", [True, False], ids=["older-first", "latest-first"])
def test_after_redis_lost_acknowledged_writes_no_token_forks_the_match(
    older_first: bool,
    tmp_path: Path,
    servers: Callable[..., InProcessServer],
    dial: Callable[[InProcessServer], EngineClient],
) -> None:
    """Issue 56, item 1: Redis told it keeps its writes, and lost some (an RDB snapshot, then
    more actions, then SIGKILL). Before, the ledger took any token above its record as the
    latest: an older token presented first forked the match. Now such a token shows the loss
    and the match is refused from then on, whichever token comes first."""
    redis = RedisServer(tmp_path / "redis", persistence="rdb").start()
    try:
        server = servers(
            state_keys=(KEY_A,), ledger=redis.url, ledger_durability=Durability.TRUSTED
        )
        client = dial(server)
        table = Table(client.create_match(SEEDS, first_dealer=0), random.Random(92), seat_share=0)
        table.play(lambda v: v.phase == types_pb2.PHASE_PLAYING)
        saved = table.match.version
        assert redis.command("SAVE") == "+OK"
        olders = [p for p in play_keeping_tokens(table, 12) if p.version > saved]
        match = table.match
        redis.kill()
        redis.start()
        key = f"baloot:match:{match.match_id}"
        assert Entry.version_in((redis.get(key) or "").encode()) == saved  # writes lost
        forks: list[tuple[int, int]] = []  # (token version, new version) of accepted forks
        refusals: list[tuple[grpc.StatusCode, str, bool]] = []
        attempts = [*reversed(olders), None] if older_first else [None, *olders]
        for past in attempts:
            if past is None:  # the honest client's latest token, and its next action
                seat = table.latest.turn
                action = table.seat_view(seat).legal_actions[0]
                latest = Past(match.state, match.version, seat, action)
                answer = fork_attempt(client, match, latest)
            else:
                answer = fork_attempt(client, match, past)
                if not isinstance(answer, Refusal):
                    forks.append((past.version, answer[0]))
            if isinstance(answer, Refusal):
                refusals.append((answer.code, answer.reason, "lost" in answer.message))
        assert forks == []
        # Each token above the record is refused, the latest included: the match's record is
        # lost, and it cannot go on without risking a second history.
        assert refusals == [(FAILED_PRECONDITION, "MATCH_UNKNOWN", True)] * len(attempts)
        assert (redis.get(key) or "").startswith(f"lost:{saved}:")
        answers = _metric_answers(server)
        assert answers["lost"] >= 1
    finally:
        redis.stop()


def test_a_lossy_ledger_catches_up_to_a_token_newer_than_its_record(
    redis: RedisServer,
    servers: Callable[..., InProcessServer],
    dial: Callable[[InProcessServer], EngineClient],
) -> None:
    """``BALOOT_LEDGER_DURABILITY=lossy``: a token newer than the record shows that Redis lost
    writes, and is taken as the latest; every older token is refused from then on (a fork is
    possible only if an older one came first: docs/security.md)."""
    server = servers(state_keys=(KEY_A,), ledger=redis.url, ledger_durability=Durability.LOSSY)
    client = dial(server)
    table = Table(client.create_match(SEEDS, first_dealer=0), random.Random(81), seat_share=0)
    for lost, ask in ((1, "read"), (2, "act")):
        table.play(lambda v: v.phase == types_pb2.PHASE_PLAYING)
        match = table.match
        older = on(client, match, match.state, match.version)
        ledger_had = entry_of(older)
        table.play(lambda v, at=older.version + lost: v.state_version >= at)
        key = f"baloot:match:{match.match_id}"
        # Redis came back without its last writes: the ledger holds an older state.
        assert redis.command("SET", key, ledger_had) == "+OK"
        if ask == "read":
            for method, request in read_calls(client.stub, match, 0):
                method(request, timeout=10)
        else:
            table.step()
        assert redis.get(key) == entry_of(table.match)
        # Every older token is refused from now on, the one the ledger had kept included.
        seat = older.views[0].turn if older.views else table.latest.turn
        for method, request in read_calls(client.stub, older, 0):
            stale(method, request)
        actions = table.seat_view(seat).legal_actions
        method, request = action_call(client.stub, older, seat, actions[0], state=older.state)
        stale(method, request)
    answers = _metric_answers(server)
    assert answers["recovered"] == 2


def test_a_lost_match_refuses_its_sawa_claims_too(
    guarded: EngineClient, redis: RedisServer, ledgered: InProcessServer
) -> None:
    """A claim on a match whose record the ledger lost is refused before it is judged."""
    rng = random.Random(93)
    for _attempt in range(40):
        table = Table(guarded.create_match(CUSTOM, first_dealer=0), rng, seat_share=0)
        while table.latest.phase not in ROUND_OVER:
            offered = _offered_claim(table)
            if offered is not None:
                seat, claim = offered
                key = f"baloot:match:{table.match.match_id}"
                assert redis.command("SET", key, "lost:0:00") == "+OK"
                before = _metric_answers(ledgered).get("lost", 0)
                method, request = action_call(guarded.stub, table.match, seat, claim)
                refused = expect_refusal(method, request, FAILED_PRECONDITION, "MATCH_UNKNOWN")
                assert "lost" in refused.message
                assert _metric_answers(ledgered)["lost"] == before + 1
                assert redis.command("KEYS", f"{key}:sawa:*") == "*0"  # not judged
                return
            table.step()
    pytest.fail("no Sawa claim offered in 40 matches")


def test_the_redis_of_the_example_in_the_docs_is_one_the_default_ledger_takes(
    tmp_path: Path,
) -> None:
    """docs/security.md's redis-server line, run on a free port and directory of its own."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "security.md").read_text()
    block = text.split("```sh\n", 1)[1].split("```", 1)[0].replace("\\\n", " ")
    (line,) = [line for line in block.splitlines() if line.startswith("redis-server ")]
    argv = shlex.split(line.split("#", 1)[0].strip().removesuffix("&"))
    redis = RedisServer(tmp_path)
    argv[argv.index("--port") + 1] = str(redis.port)
    argv[argv.index("--dir") + 1] = str(tmp_path)
    process = subprocess.Popen([redis_binary(), *argv[1:]], stdout=subprocess.DEVNULL)
    try:
        ledger = MatchLedger(redis.url, ttl_seconds=60, timeout_seconds=1)

        async def reachable() -> bool:
            for _ in range(100):
                if await ledger.ping():
                    await ledger.close()
                    return True
                await asyncio.sleep(0.05)
            return False

        assert ledger.durability is Durability.CHECKED
        assert asyncio.run(reachable())
    finally:
        process.kill()
        process.wait(10)


def test_a_hung_ledger_is_given_up_on_after_at_most_three_connections() -> None:
    """A ledger that accepts connections and never answers: each call is bounded by the
    ledger's deadline (twice its timeout), so a gateway's try outlives it. Counted in
    connections, not seconds: each attempt waits at least the timeout for a reply that never
    comes, so within the deadline at most a third one begins; without the deadline redis-py's
    retry and the ledger's own would make four. (The kernel completes each connection; nothing
    accepts it until the count, so nothing is ever answered.)"""
    with socket.create_server(("127.0.0.1", 0), backlog=16) as listener:
        listener.setblocking(False)
        port = listener.getsockname()[1]
        for durability in Durability:
            ledger = MatchLedger(
                f"redis://127.0.0.1:{port}/0",
                ttl_seconds=60,
                timeout_seconds=0.2,
                durability=durability,
            )
            assert ledger.deadline_seconds == LEDGER_DEADLINE_FACTOR * 0.2

            async def call(ledger: MatchLedger = ledger) -> None:
                with pytest.raises(LedgerUnavailableError, match="Timeout"):
                    await ledger.check("00" * 16, Entry.of(1, b"state"))
                await ledger.close()

            asyncio.run(call())
            connections = 0
            while True:
                try:
                    connection, _ = listener.accept()
                except BlockingIOError:
                    break
                connection.close()
                connections += 1
            assert 1 <= connections <= 3, durability


def test_the_first_call_after_redis_restarted_is_retried_inside_the_server(
    fragile: tuple[RedisServer, InProcessServer],
) -> None:
    redis, server = fragile
    with grpc.insecure_channel(server.target) as channel:
        client = EngineClient(channel)
        client.create_match(SEEDS, first_dealer=0)  # the server's connection is open
        for _ in range(3):
            redis.stop()
            redis.start()
            # The pooled connection is dead; the call meets it, reconnects and succeeds.
            match = client.create_match(SEEDS, first_dealer=0)
            match.deal(0)
            assert redis.get(f"baloot:match:{match.match_id}") == entry_of(match)


def _offered_claim(table: Table) -> tuple[int, Any] | None:
    """The seat on turn and its Sawa claim, when one is offered now."""
    latest = table.latest
    if latest.phase != types_pb2.PHASE_PLAYING or not latest.HasField("turn"):
        return None
    options = table.seat_view(latest.turn).legal_actions
    claims = [a for a in options if a.HasField("play") and a.play.sawa]
    return (latest.turn, claims[0]) if claims else None


def test_a_seat_has_one_judged_sawa_claim_per_hand(guarded: EngineClient) -> None:
    """Issue 27, finding 7: even on the latest token, a refused claim is no free oracle."""
    rng = random.Random(90)
    for _attempt in range(40):
        table = Table(guarded.create_match(CUSTOM, first_dealer=0), rng, seat_share=0)
        match = table.match
        refused_seat = None
        while table.latest.phase not in ROUND_OVER:
            offered = _offered_claim(table)
            if offered is not None:
                seat, claim = offered
                method, request = action_call(guarded.stub, match, seat, claim)
                if refused_seat is None:
                    try:
                        method(request, timeout=10)
                    except grpc.RpcError as error:
                        assert read_refusal(error).reason == "SAWA_INVALID"
                        # The same claim on the same token again: the same answer.
                        expect_refusal(method, request, FAILED_PRECONDITION, "SAWA_INVALID")
                        refused_seat = seat
                    else:
                        break  # the claim held: the hand is over
                elif seat == refused_seat:
                    # A second claim of the seat in the hand: refused before it is judged.
                    refused = expect_refusal(
                        method, request, FAILED_PRECONDITION, "SAWA_NOT_ALLOWED"
                    )
                    assert "once per hand" in refused.message
                    return
            table.step()
    pytest.fail("no second Sawa claim of one seat in one hand in 40 matches")
