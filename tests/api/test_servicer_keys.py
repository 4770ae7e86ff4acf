"""State keys: rotation (seal with the first key, open with any), replicas sharing keys, and a
key file that lets a match survive a restart."""

from __future__ import annotations

import logging
import random
import stat
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from baloot_client import EngineClient, Match

from baloot.v1 import types_pb2
from baloot_engine.api.sealing import KeyRing, key_id, parse_key

from .conftest import (
    KEY_A,
    KEY_B,
    SEEDS,
    InProcessServer,
    Table,
    expect_refusal,
    read_calls,
)

ROUND_OVER = (types_pb2.PHASE_ROUND_OVER, types_pb2.PHASE_MATCH_OVER)


def started_match(client: EngineClient, seed: int) -> Table:
    """A match with its first round dealt and a few actions taken."""
    table = Table(client.create_match(SEEDS, first_dealer=0), random.Random(seed), seat_share=0)
    table.play(lambda v: v.state_version >= 6)
    return table


def moved_to(table: Table, client: EngineClient, keys: KeyRing) -> Table:
    """The same match, now played on another server, with the credentials it derives."""
    match = table.match
    match_key = bytes.fromhex(match.match_id)
    moved = Match(
        client=client,
        match_id=match.match_id,
        host_credential=keys.credential(match_key, "host"),
        seat_credentials=tuple(keys.credential(match_key, f"seat{s}") for s in range(4)),
        state=match.state,
        version=match.version,
        views=list(match.views),
    )
    return Table(moved, table.rng, seat_share=0.5)


def test_a_token_sealed_with_an_old_key_opens_when_that_key_is_second(
    servers: Callable[..., InProcessServer], dial: Callable[[InProcessServer], EngineClient]
) -> None:
    old = dial(servers(state_keys=(KEY_A,)))
    rotated_keys = KeyRing.from_texts((KEY_B, KEY_A))
    rotated = dial(servers(state_keys=(KEY_B, KEY_A)))
    table = started_match(old, 1)
    assert table.match.state[1] == key_id(parse_key(KEY_A))
    moved = moved_to(table, rotated, rotated_keys)
    assert moved.match.view(0).state_version == table.match.version
    moved.play(lambda v: v.phase in ROUND_OVER)
    # The next tokens are sealed with the new key, which the old server does not know.
    assert moved.match.state[1] == key_id(parse_key(KEY_B))
    for method, request in read_calls(old.stub, moved.match, 0):
        request.credential = table.match.host_credential
        expect_refusal(method, request, grpc.StatusCode.INVALID_ARGUMENT, "STATE_INVALID")


def test_credentials_handed_out_before_a_rotation_still_work(
    servers: Callable[..., InProcessServer], dial: Callable[[InProcessServer], EngineClient]
) -> None:
    old = dial(servers(state_keys=(KEY_A,)))
    rotated = dial(servers(state_keys=(KEY_B, KEY_A)))
    table = started_match(old, 2)
    table.match.client = rotated
    table.play(lambda v: v.phase in ROUND_OVER)


def test_a_server_without_the_old_key_refuses_its_tokens(
    servers: Callable[..., InProcessServer], dial: Callable[[InProcessServer], EngineClient]
) -> None:
    old = dial(servers(state_keys=(KEY_A,)))
    new = dial(servers(state_keys=(KEY_B,)))
    table = started_match(old, 3)
    match = table.match
    credential = KeyRing.from_texts((KEY_B,)).credential(bytes.fromhex(match.match_id), "host")
    for method, request in read_calls(new.stub, match, 0):
        request.credential = credential
        expect_refusal(method, request, grpc.StatusCode.INVALID_ARGUMENT, "STATE_INVALID")


def test_replicas_sharing_the_keys_serve_one_match_in_turn(
    servers: Callable[..., InProcessServer], dial: Callable[[InProcessServer], EngineClient]
) -> None:
    replicas = [dial(servers(state_keys=(KEY_B, KEY_A))) for _ in range(2)]
    table = Table(replicas[0].create_match(SEEDS, first_dealer=1), random.Random(4))
    while table.latest.phase not in ROUND_OVER:
        table.match.client = replicas[table.match.version % 2]
        table.step()
    assert table.events(types_pb2.EVENT_KIND_ROUND_SCORED)


def test_a_restart_with_the_same_key_file_continues_a_match(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    servers: Callable[..., InProcessServer],
    dial: Callable[[InProcessServer], EngineClient],
) -> None:
    caplog.set_level(logging.INFO)
    key_file = tmp_path / "keys" / "state.key"
    first = servers(state_keys=(), state_key_file=key_file)
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert any(
        "created a state key file" in r.getMessage() and str(key_file) in r.getMessage()
        for r in caplog.records
    )
    assert key_file.read_text().strip() not in caplog.text  # the path is logged, not the key
    content = key_file.read_bytes()
    table = started_match(dial(first), 5)
    first.stop()

    second = servers(state_keys=(), state_key_file=key_file)
    assert key_file.read_bytes() == content
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    # The same token and the same credentials, handed out before the restart.
    table.match.client = dial(second)
    table.play(lambda v: v.phase in ROUND_OVER)
    assert table.events(types_pb2.EVENT_KIND_ROUND_SCORED)
