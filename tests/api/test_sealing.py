"""Sealing: a token opens only for its match under a key of the ring, every damage is refused
with its kind, keys parse from base64 or hex, and credentials prove exactly one role."""

from __future__ import annotations

import base64
import secrets
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baloot_engine.api.sealing import (
    HEADER_SIZE,
    KEY_SIZE,
    ROLES,
    SPECTATOR_ROLE,
    TAG_SIZE,
    KeyRing,
    StateKeyError,
    TokenRefusedError,
    key_id,
    load_or_create_key_file,
    parse_key,
    seat_role,
)

KEY = bytes(range(32))
OTHER_KEY = bytes(range(1, 33))
MATCH = b"m" * 16


def _refusal_kind(ring: KeyRing, token: bytes, match_id: bytes = MATCH) -> str:
    with pytest.raises(TokenRefusedError) as refused:
        ring.open(token, match_id)
    return refused.value.kind


@given(st.binary(max_size=400))
def test_a_sealed_state_opens_to_itself_and_hides_it(plaintext: bytes) -> None:
    ring = KeyRing([KEY])
    token = ring.seal(plaintext, MATCH)
    assert len(token) == HEADER_SIZE + len(plaintext) + TAG_SIZE
    assert ring.open(token, MATCH) == plaintext
    if len(plaintext) >= 8:
        assert plaintext not in token


def test_every_damage_is_refused_with_its_kind() -> None:
    ring = KeyRing([KEY])
    token = ring.seal(b"state", MATCH)
    assert _refusal_kind(ring, token[: HEADER_SIZE + TAG_SIZE - 1]) == "truncated"
    assert _refusal_kind(ring, bytes([token[0] + 1]) + token[1:]) == "format"
    assert _refusal_kind(KeyRing([OTHER_KEY]), token) in {"unknown_key", "not_authentic"}
    assert _refusal_kind(ring, token, b"n" * 16) == "not_authentic"
    for position in range(len(token)):
        damaged = bytearray(token)
        damaged[position] ^= 0x01
        assert _refusal_kind(ring, bytes(damaged)) in {"format", "unknown_key", "not_authentic"}


def test_the_ring_seals_with_its_first_key_and_opens_with_any() -> None:
    old, new = KeyRing([OTHER_KEY]), KeyRing([KEY, OTHER_KEY])
    assert new.open(old.seal(b"before", MATCH), MATCH) == b"before"
    assert new.seal(b"after", MATCH)[1] == key_id(KEY)
    assert _refusal_kind(old, new.seal(b"after", MATCH)) in {"unknown_key", "not_authentic"}


def test_each_credential_proves_its_role_only() -> None:
    ring = KeyRing([KEY])
    credentials = {role: ring.credential(MATCH, role) for role in ROLES}
    assert len(set(credentials.values())) == len(ROLES)
    for role, credential in credentials.items():
        assert ring.role_of(MATCH, credential) == role
        assert ring.role_of(b"n" * 16, credential) is None
    assert ring.role_of(MATCH, "") is None
    assert ring.role_of(MATCH, "é" + credentials["host"][1:]) is None
    assert [seat_role(s) for s in range(4)] == list(ROLES[1:])


def test_credentials_survive_a_rotation() -> None:
    before = KeyRing([KEY]).credential(MATCH, "seat2")
    assert KeyRing([OTHER_KEY, KEY]).role_of(MATCH, before) == "seat2"


def test_keys_parse_from_base64_or_hex_and_nothing_else() -> None:
    key = secrets.token_bytes(KEY_SIZE)
    assert parse_key(base64.urlsafe_b64encode(key).decode().rstrip("=")) == key
    assert parse_key(base64.b64encode(key).decode()) == key
    assert parse_key(key.hex()) == key
    assert parse_key(f"  {key.hex()}\n") == key
    for text in ("", "not a key", base64.b64encode(key[:31]).decode(), "zz" * KEY_SIZE):
        with pytest.raises(StateKeyError):
            parse_key(text)
    with pytest.raises(StateKeyError):
        KeyRing([])
    with pytest.raises(StateKeyError):
        KeyRing([key[:16]])


def test_a_key_file_is_created_private_once_then_read(tmp_path: Path) -> None:
    path = tmp_path / "var" / "state.key"
    key, created = load_or_create_key_file(path)
    assert created
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_or_create_key_file(path) == (key, False)


def test_the_board_key_is_its_own_purpose_and_follows_the_first_key() -> None:
    ring = KeyRing([KEY])
    assert ring.board_key() == KeyRing([KEY, OTHER_KEY]).board_key()
    assert ring.board_key() != KeyRing([OTHER_KEY, KEY]).board_key()
    assert ring.board_key() not in (KEY, OTHER_KEY)
    assert len(ring.board_key()) == 32


def test_the_spectator_credential_proves_its_own_role() -> None:
    ring = KeyRing([KEY])
    spectator = ring.credential(MATCH, SPECTATOR_ROLE)
    assert ring.role_of(MATCH, spectator) == SPECTATOR_ROLE
    assert spectator not in {ring.credential(MATCH, role) for role in ROLES}
    assert ring.role_of(b"n" * 16, spectator) is None
