"""The fair-deal chain and decks (rules/fairdeal.py), against an independent reading of the
procedure of docs/fair-deals.md, the command-line verifier, and the attestations' statement and
signature check (its Ed25519 verification against RFC 8032's vectors and the cryptography
package)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from pathlib import Path

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from hypothesis import given, settings
from hypothesis import strategies as st

from baloot_engine.rules import fairdeal

SECRET = bytes(range(32))


def _doc_deck(key: bytes, redeals: int) -> list[int]:
    """The deck of docs/fair-deals.md, written again from the text."""
    seed = hmac.new(key, b"baloot-fair-deal/v1/deck" + redeals.to_bytes(4, "big"), "sha256")
    stream = b"".join(
        hmac.new(
            seed.digest(), b"baloot-fair-deal/v1/shuffle" + n.to_bytes(4, "big"), "sha256"
        ).digest()
        for n in range(8)
    )
    deck, position = list(range(32)), 0
    for i in range(31, 0, -1):
        while stream[position] >= 256 - 256 % (i + 1):
            position += 1
        j = stream[position] % (i + 1)
        position += 1
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_the_chain_and_decks_follow_the_documented_procedure() -> None:
    key = SECRET
    keys = {256: key}
    for r in range(256, 0, -1):
        key = hashlib.sha256(b"baloot-fair-deal/v1/chain" + r.to_bytes(4, "big") + key).digest()
        keys[r - 1] = key
    assert fairdeal.commitment(SECRET) == keys[0]
    for r in (1, 2, 17, 256):
        assert fairdeal.round_key(SECRET, r) == keys[r]
        for redeals in (0, 1, 5):
            assert list(fairdeal.committed_deck(keys[r], redeals)) == _doc_deck(keys[r], redeals)


def test_a_key_opens_its_commitment_for_its_round_only() -> None:
    committed = fairdeal.commitment(SECRET)
    key = fairdeal.round_key(SECRET, 5)
    assert fairdeal.key_matches(key, 5, committed)
    assert not fairdeal.key_matches(key, 4, committed)
    assert not fairdeal.key_matches(key, 6, committed)
    assert not fairdeal.key_matches(key, 0, committed)
    assert not fairdeal.key_matches(key[:31], 5, committed)
    assert not fairdeal.key_matches(key, 5, fairdeal.commitment(bytes(32)))
    # A key gives every earlier key, by hashing on.
    assert fairdeal.earlier_key(key, 5, 2) == fairdeal.round_key(SECRET, 2)
    with pytest.raises(ValueError, match="not at or before"):
        fairdeal.earlier_key(key, 5, 6)


def test_decks_differ_by_round_and_redeal() -> None:
    decks = {
        fairdeal.committed_deck(fairdeal.round_key(SECRET, r), d) for r in (1, 2, 3) for d in (0, 1)
    }
    assert len(decks) == 6
    assert all(sorted(deck) == list(range(32)) for deck in decks)


def test_round_positions_count_scored_rounds_and_redeals() -> None:
    assert fairdeal.round_positions([False, False, True, True, False]) == [
        (1, 0),
        (1, 1),
        (1, 2),
        (2, 0),
        (3, 0),
    ]


def _record(key_round: int) -> dict[str, object]:
    scored = [True, True]
    rounds = [
        {"deckOrder": list(fairdeal.committed_deck(fairdeal.round_key(SECRET, r), d)), "score": {}}
        for (r, d), _ in zip(fairdeal.round_positions(scored), scored, strict=True)
    ]
    return {
        "dealCommitment": {
            "scheme": 1,
            "commitment": base64.b64encode(fairdeal.commitment(SECRET)).decode(),
        },
        "dealKey": {
            "round": key_round,
            "key": base64.urlsafe_b64encode(fairdeal.round_key(SECRET, key_round)).decode(),
        },
        "rounds": rounds,
    }


def test_the_command_line_verifier(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(_record(2)))
    assert fairdeal.main([str(path)]) == 0
    assert "proven: all 2 rounds" in capsys.readouterr().out
    path.write_text(json.dumps(_record(1)))
    assert fairdeal.main([str(path)]) == 2
    tampered = _record(2)
    rounds = tampered["rounds"]
    assert isinstance(rounds, list)
    rounds[1]["deckOrder"] = rounds[0]["deckOrder"]
    path.write_text(json.dumps(tampered))
    assert fairdeal.main([str(path)]) == 1
    assert "NOT COMMITTED: hand 2" in capsys.readouterr().out
    path.write_text(json.dumps({"rounds": []}))
    assert fairdeal.main([str(path)]) == 2


# RFC 8032, section 7.1, tests 1 to 3: (public key, message, signature).
RFC_8032 = [
    (
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        (
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39"
            "701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        ),
    ),
    (
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        (
            "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f36"
            "13d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
        ),
    ),
    (
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "af82",
        (
            "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f7"
            "60984dc6594a7c15e9716ed28dc027beceea1ec40a"
        ),
    ),
]


@pytest.mark.parametrize(("key", "message", "signature"), RFC_8032)
def test_the_verifier_accepts_the_rfc_8032_vectors(key: str, message: str, signature: str) -> None:
    public, text, signed = bytes.fromhex(key), bytes.fromhex(message), bytes.fromhex(signature)
    assert fairdeal.verify_ed25519(public, text, signed)
    assert not fairdeal.verify_ed25519(public, text + b"\0", signed)
    assert not fairdeal.verify_ed25519(public, text, signed[:-1] + bytes([signed[-1] ^ 1]))


@settings(max_examples=60)
@given(
    seed=st.binary(min_size=32, max_size=32),
    message=st.binary(max_size=200),
    flip=st.integers(0, 8 * 64 - 1),
)
def test_the_verifier_agrees_with_the_library(seed: bytes, message: bytes, flip: int) -> None:
    private = Ed25519PrivateKey.from_private_bytes(seed)
    public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    signature = private.sign(message)
    assert fairdeal.verify_ed25519(public, message, signature)
    bad = bytearray(signature)
    bad[flip // 8] ^= 1 << flip % 8
    library = private.public_key()
    try:
        library.verify(bytes(bad), message)
        accepted = True
    except InvalidSignature:
        accepted = False
    assert fairdeal.verify_ed25519(public, message, bytes(bad)) is accepted
    # Malformed sizes, and a key that is no point, are refused without an exception.
    assert not fairdeal.verify_ed25519(public[:31], message, signature)
    assert not fairdeal.verify_ed25519(public, message, signature[:63])
    assert not fairdeal.verify_ed25519(b"\xff" * 32, message, signature)


def test_a_statement_reads_back_and_anything_else_is_no_statement() -> None:
    statement = fairdeal.Statement(
        bytes(range(16)), 1, 256, 2, bytes(32), hashlib.sha256(b"rules").digest(), 1_800_000_000
    )
    data = statement.encode()
    assert len(data) == fairdeal.STATEMENT_SIZE
    assert data.startswith(b"baloot-deal-attestation/v1" + bytes(range(16)))
    assert fairdeal.Statement.decode(data) == statement
    assert fairdeal.Statement.decode(data[:-1]) is None
    assert fairdeal.Statement.decode(b"x" + data[1:]) is None


def test_the_rules_digest_covers_the_flags_apart_from_seeds() -> None:
    text = b'baloot-rules/v1\n{"match_target":101,"sawa":true}'
    assert (
        fairdeal.rules_digest({"sawa": True, "match_target": 101}) == hashlib.sha256(text).digest()
    )
    assert fairdeal.rules_digest({}) == hashlib.sha256(b"baloot-rules/v1\n{}").digest()
