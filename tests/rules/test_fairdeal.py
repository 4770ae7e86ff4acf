"""The fair-deal chain and decks (rules/fairdeal.py), against an independent reading of the
procedure of docs/fair-deals.md, and the command-line verifier."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from pathlib import Path

import pytest

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
