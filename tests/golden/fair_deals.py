"""Fair-deal vectors: dealing secrets, their chains and commitments, committed decks, and the
decks of small records checked against a commitment (docs/fair-deals.md).

``fair_deals.json`` is data another implementation checks itself against: the Python verifier
(``rules/fairdeal.py``) and the TypeScript client's (``clients/typescript/src/fairdeal.ts``)
both reproduce every value. Bytes are lower-case hex; a record is the part of a
``MatchRecord``'s proto3 JSON form the verifiers read (``dealCommitment``, ``dealKey``,
``rounds`` with their ``deckOrder`` and, for a scored round, a ``score``); ``expect`` is what
the check finds: the rounds proven, whether all are, and the first round whose deck (or the key)
is not the committed one (null for none), or ``null`` for a record without a commitment.

    python -m tests.golden.fair_deals     # rewrite fair_deals.json from rules/fairdeal.py
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

from baloot_engine.rules import fairdeal

PATH = Path(__file__).parent / "fair_deals.json"
_ROUNDS_SHOWN = (0, 1, 2, 3, 25, 255, 256)


def _secret(name: str) -> bytes:
    return hashlib.sha256(b"fair-deal vector/" + name.encode()).digest()


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _chains() -> list[dict[str, Any]]:
    chains = []
    for name in ("alpha", "beta"):
        secret = _secret(name)
        chains.append(
            {
                "name": name,
                "secret": secret.hex(),
                "commitment": fairdeal.commitment(secret).hex(),
                "keys": {str(r): fairdeal.round_key(secret, r).hex() for r in _ROUNDS_SHOWN},
            }
        )
    return chains


def _decks() -> list[dict[str, Any]]:
    secret = _secret("alpha")
    decks = []
    for round_number, redeals in ((1, 0), (1, 1), (2, 0), (3, 7), (256, 0)):
        key = fairdeal.round_key(secret, round_number)
        decks.append(
            {
                "key": key.hex(),
                "redeals": redeals,
                "deck": list(fairdeal.committed_deck(key, redeals)),
            }
        )
    decks.append(
        {"key": "00" * 32, "redeals": 0, "deck": list(fairdeal.committed_deck(bytes(32), 0))}
    )
    return decks


def _record(key_round: int, *, tamper: str = "") -> dict[str, Any]:
    """Hands (round, redeals): (1, 0) scored, (2, 0) redealt, (2, 1) scored, (3, 0) scored."""
    secret = _secret("alpha")
    scored = [True, False, True, True]
    rounds = []
    for (round_number, redeals), was_scored in zip(
        fairdeal.round_positions(scored), scored, strict=True
    ):
        deck = list(fairdeal.committed_deck(fairdeal.round_key(secret, round_number), redeals))
        entry: dict[str, Any] = {"deckOrder": deck}
        if was_scored:
            entry["score"] = {"roundNumber": len(rounds) + 1}
        rounds.append(entry)
    record: dict[str, Any] = {
        "dealCommitment": {
            "scheme": fairdeal.SCHEME,
            "commitment": _b64(fairdeal.commitment(secret)),
            "rounds": fairdeal.CHAIN_ROUNDS,
        },
        "rounds": rounds,
    }
    if key_round:
        key = fairdeal.round_key(secret, key_round)
        if tamper == "key":
            key = bytes([key[0] ^ 1]) + key[1:]
        record["dealKey"] = {"round": key_round + (tamper == "key_round"), "key": _b64(key)}
    if tamper == "deck":
        deck = rounds[2]["deckOrder"]
        deck[0], deck[1] = deck[1], deck[0]
    if tamper == "redeal":  # the redealt round dealt the first deck of its number again
        rounds[2]["deckOrder"] = list(rounds[1]["deckOrder"])
    if tamper == "no_commitment":
        del record["dealCommitment"]
    return record


def _records() -> list[dict[str, Any]]:
    cases = [
        ("whole match, key of the last round", 3, ""),
        ("each round: key of round 2", 2, ""),
        ("each round: key of round 1", 1, ""),
        ("no key disclosed", 0, ""),
        ("a deck changed after the commitment", 3, "deck"),
        ("a redeal dealt the round's first deck again", 3, "redeal"),
        ("a forged key", 3, "key"),
        ("a key given for another round", 3, "key_round"),
        ("a record without a commitment", 3, "no_commitment"),
    ]
    records = []
    for name, key_round, tamper in cases:
        record = _record(key_round, tamper=tamper)
        result = fairdeal.check_record_json(record)
        expect = None
        if result is not None:
            expect = {
                "proven": result.proven,
                "complete": result.complete,
                "badRound": result.bad_round,
            }
        records.append({"name": name, "record": record, "expect": expect})
    return records


def vectors() -> dict[str, Any]:
    return {
        "scheme": fairdeal.SCHEME,
        "chainRounds": fairdeal.CHAIN_ROUNDS,
        "chains": _chains(),
        "decks": _decks(),
        "records": _records(),
    }


if __name__ == "__main__":
    PATH.write_text(json.dumps(vectors(), indent=1) + "\n")
