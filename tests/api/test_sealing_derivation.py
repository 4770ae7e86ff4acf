"""Key separation: each configured key derives one key per purpose; format 2 tokens; format 1
tokens and the credentials issued with them still work for matches begun before an upgrade;
the seal counter per key."""

from __future__ import annotations

import base64
import hashlib
import hmac
import random
import secrets
import urllib.request
from collections.abc import Callable

import grpc
import pytest
from baloot_client import EngineClient, IllegalActionError, Match, PermissionDeniedError
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, AESGCMSIV
from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client.parser import text_string_to_metric_families

from baloot.v1 import types_pb2
from baloot_engine.api.sealing import (
    HOST_ROLE,
    KeyRing,
    key_fingerprint,
    key_id,
    legacy_key_id,
    parse_key,
)

from .conftest import (
    KEY_A,
    KEY_B,
    SEEDS,
    InProcessServer,
    Table,
    expect_refusal,
    mid_round,
    read_calls,
)

RAW_A = parse_key(KEY_A)
ROUND_OVER = (types_pb2.PHASE_ROUND_OVER, types_pb2.PHASE_MATCH_OVER)


# The earlier release, written out again here from its documented layout (format 1): AES-GCM
# under the raw key, key id = SHA-256("baloot-key-id" + key)[0], credentials = HMAC-SHA256
# under HMAC-SHA256(key, "baloot-credentials"), truncated to 16 bytes, base64url.


def format1_seal(key: bytes, plaintext: bytes, match_id: bytes) -> bytes:
    header = bytes((1, hashlib.sha256(b"baloot-key-id" + key).digest()[0]))
    nonce = secrets.token_bytes(12)
    return header + nonce + AESGCM(key).encrypt(nonce, plaintext, header + match_id)


def format1_credential(key: bytes, match_id: bytes, role: str) -> str:
    mac_key = hmac.new(key, b"baloot-credentials", hashlib.sha256).digest()
    digest = hmac.new(mac_key, match_id + b"/" + role.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:16]).decode().rstrip("=")


def hkdf(key: bytes, info: bytes, size: int = 32) -> bytes:
    return HKDF(algorithm=SHA256(), length=size, salt=None, info=info).derive(key)


def credential_v2(key: bytes, match_id: bytes, role: str) -> str:
    mac_key = hkdf(key, b"baloot-engine/v2/credentials")
    digest = hmac.new(mac_key, match_id + b"/" + role.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:16]).decode().rstrip("=")


# ---------------------------------------------------------------------------------------
# The derivation, checked from outside


def test_a_token_is_sealed_with_the_derived_seal_key_not_the_raw_key(
    client: EngineClient,
) -> None:
    match = client.create_match(SEEDS, first_dealer=0)
    token, match_id = match.state, bytes.fromhex(match.match_id)
    header, nonce, body = token[:2], token[2:14], token[14:]
    assert header == bytes((2, hkdf(RAW_A, b"baloot-engine/v2/key-fingerprint", 4)[0]))
    seal_key = hkdf(RAW_A, b"baloot-engine/v2/token-seal")
    plaintext = AESGCMSIV(seal_key).decrypt(nonce, body, header + match_id)
    assert plaintext == KeyRing([RAW_A]).open(token, match_id)
    # Neither cipher opens it under the raw key: the raw key seals nothing.
    for aead in (AESGCMSIV(RAW_A), AESGCM(RAW_A), AESGCM(seal_key)):
        with pytest.raises(InvalidTag):
            aead.decrypt(nonce, body, header + match_id)


def test_credentials_come_from_the_derived_credential_key(client: EngineClient) -> None:
    match = client.create_match(SEEDS, first_dealer=0)
    match_id = bytes.fromhex(match.match_id)
    assert match.host_credential == credential_v2(RAW_A, match_id, HOST_ROLE)
    assert list(match.seat_credentials) == [
        credential_v2(RAW_A, match_id, f"seat{s}") for s in range(4)
    ]
    # New credentials only: none is the earlier derivation's.
    issued = {match.host_credential, *match.seat_credentials}
    earlier = {format1_credential(RAW_A, match_id, role) for role in ("host", "seat0", "seat1")}
    assert not issued & earlier


@settings(max_examples=50, deadline=None)
@given(key=st.binary(min_size=32, max_size=32))
def test_every_purpose_gets_its_own_key(key: bytes) -> None:
    derived = [
        key,
        hkdf(key, b"baloot-engine/v2/token-seal"),
        hkdf(key, b"baloot-engine/v2/credentials"),
        hkdf(key, b"baloot-engine/v2/key-fingerprint"),
        hmac.new(key, b"baloot-credentials", hashlib.sha256).digest(),
    ]
    assert len(set(derived)) == len(derived)
    assert key_fingerprint(key) == derived[3][:4].hex()
    assert key_id(key) == derived[3][0]
    assert legacy_key_id(key) == hashlib.sha256(b"baloot-key-id" + key).digest()[0]


def test_format_2_tokens_stay_small_mid_round(client: EngineClient) -> None:
    table = mid_round(client, random.Random(31))
    token = table.match.state
    assert token[0] == 2
    assert len(token) <= 256
    # The same layout as format 1: 2 header bytes, 12 of nonce, 16 of tag.
    match_id = bytes.fromhex(table.match.match_id)
    plaintext = KeyRing([RAW_A]).open(token, match_id)
    assert len(token) == len(format1_seal(RAW_A, plaintext, match_id))


# ---------------------------------------------------------------------------------------
# A match begun before the upgrade


def legacy_match(client: EngineClient, seed: int) -> Match:
    """A match as the earlier release left it: a format 1 token and the credentials of then.

    The match is begun on the server, then its token is sealed again in format 1 and its
    credentials derived the earlier way, which is what a backend that stored them holds.
    """
    table = Table(client.create_match(SEEDS, first_dealer=0), random.Random(seed), seat_share=0)
    table.play(lambda v: v.state_version >= 6)
    match = table.match
    match_id = bytes.fromhex(match.match_id)
    plaintext = KeyRing([RAW_A]).open(match.state, match_id)
    match.state = format1_seal(RAW_A, plaintext, match_id)
    match.host_credential = format1_credential(RAW_A, match_id, HOST_ROLE)
    match.seat_credentials = tuple(
        format1_credential(RAW_A, match_id, f"seat{s}") for s in range(4)
    )
    return match


def test_a_match_begun_before_the_upgrade_plays_on_with_its_token_and_credentials(
    client: EngineClient,
) -> None:
    match = legacy_match(client, 41)
    assert match.state[0] == 1
    # The read RPCs open the format 1 token and accept the credentials of then.
    view = match.view(0, credential=match.seat_credentials[0])
    assert view.seat == 0
    assert view.state_version == match.version
    # Playing on with them (host and seat credentials of then): the next tokens are format 2.
    table = Table(match, random.Random(42), seat_share=0.5)
    table.play(lambda v: v.phase in ROUND_OVER)
    assert match.state[0] == 2
    assert any(step.role == "seat" for step in table.steps)
    assert table.events(types_pb2.EVENT_KIND_ROUND_SCORED)


def test_credentials_of_either_derivation_prove_only_their_own_role(
    client: EngineClient,
) -> None:
    match = legacy_match(client, 43)
    match_id = bytes.fromhex(match.match_id)
    ring = KeyRing([RAW_A])
    for role in ("host", "seat0", "seat1", "seat2", "seat3"):
        assert ring.role_of(match_id, format1_credential(RAW_A, match_id, role)) == role
        assert ring.role_of(match_id, credential_v2(RAW_A, match_id, role)) == role
    # Another match's credentials, of either derivation, prove nothing here.
    other = secrets.token_bytes(16)
    assert ring.role_of(match_id, format1_credential(RAW_A, other, "host")) is None
    assert ring.role_of(match_id, credential_v2(RAW_A, other, "host")) is None
    # A seat credential of then may not act for another seat.
    turn = match.view(0).turn
    wrong = match.seat_credentials[(turn + 1) % 4]
    with pytest.raises(PermissionDeniedError) as refused:
        match.act(turn, match.view(turn).legal_actions[0], credential=wrong)
    assert refused.value.reason == "CREDENTIAL_INVALID"


def test_a_format_1_token_of_an_unknown_key_is_refused(
    client: EngineClient, servers: Callable[..., InProcessServer], dial: Callable[..., EngineClient]
) -> None:
    match = legacy_match(client, 44)
    other = dial(servers(state_keys=(KEY_B,)))
    credential = KeyRing.from_texts((KEY_B,)).credential(bytes.fromhex(match.match_id), "host")
    for method, request in read_calls(other.stub, match, 0):
        request.credential = credential
        expect_refusal(method, request, grpc.StatusCode.INVALID_ARGUMENT, "STATE_INVALID")


def test_a_rotated_server_opens_format_1_tokens_of_its_second_key(
    client: EngineClient, servers: Callable[..., InProcessServer], dial: Callable[..., EngineClient]
) -> None:
    match = legacy_match(client, 45)
    match.client = dial(servers(state_keys=(KEY_B, KEY_A)))
    Table(match, random.Random(46), seat_share=0.5).play(lambda v: v.phase in ROUND_OVER)
    assert match.state[:2] == bytes((2, key_id(parse_key(KEY_B))))


# ---------------------------------------------------------------------------------------
# The seal counter


def sealed_counts(server: InProcessServer) -> dict[str, float]:
    url = f"http://127.0.0.1:{server.app.metrics_port}/metrics"
    with urllib.request.urlopen(url, timeout=5) as response:
        text = response.read().decode()
    return {
        sample.labels["key_id"]: sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "baloot_tokens_sealed_total"
    }


def test_every_seal_is_counted_under_the_fingerprint_of_the_sealing_key(
    servers: Callable[..., InProcessServer], dial: Callable[..., EngineClient]
) -> None:
    server = servers(state_keys=(KEY_A, KEY_B))
    # The sealing key's series exists from the start, at 0.
    assert sealed_counts(server) == {key_fingerprint(RAW_A): 0}
    client = dial(server)
    table = Table(client.create_match(SEEDS, first_dealer=0), random.Random(47))
    table.play(lambda v: v.state_version >= 12)
    # Reads seal nothing; a refused action seals nothing.
    table.match.view(0)
    turn = table.latest.turn
    with pytest.raises(IllegalActionError):
        table.match.act((turn + 1) % 4, table.seat_view(turn).legal_actions[0])
    assert sealed_counts(server) == {key_fingerprint(RAW_A): 1 + 12}

    rotated = servers(state_keys=(KEY_B, KEY_A))
    table.match.client = dial(rotated)
    table.play(lambda v: v.state_version >= 15)
    assert sealed_counts(rotated) == {key_fingerprint(parse_key(KEY_B)): 3}
