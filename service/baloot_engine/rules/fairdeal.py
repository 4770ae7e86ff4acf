"""Provably fair deals: the commitment to a match's decks, and its verifier (docs/fair-deals.md).

Standard library only, so this file can be copied and run alone (``baloot-verify-deal``).

Every deck of a committed match derives from a 32-byte dealing secret ``x`` through a reversed
hash chain of :data:`CHAIN_ROUNDS` links::

    key[N] = x
    key[r - 1] = SHA-256("baloot-fair-deal/v1/chain" || u32be(r) || key[r])   for r = N … 1
    commitment = key[0]

Round ``r`` (rounds scored before it, plus one) after ``d`` redeals of that round is dealt the
deck :func:`committed_deck` ``(key[r], d)``. CreateMatch returns the commitment before any card
is dealt; a disclosed ``key[R]`` is checked by hashing it ``R`` times down to the commitment,
and it gives the key of every earlier round (hash it on), never a later one (that would need a
preimage of SHA-256). So the key of a round that is over shows nothing of the rounds to come.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Final, NamedTuple

SCHEME: Final = 1
"""The scheme of this module (``DealCommitment.scheme``); 0 is read as 1."""
CHAIN_ROUNDS: Final = 256
"""N: the rounds one commitment covers (a record holds at most 200 hands)."""
KEY_SIZE: Final = 32
DECK_SIZE: Final = 32

_SECRET_LABEL: Final = b"baloot-fair-deal/v1/secret"
_CHAIN_LABEL: Final = b"baloot-fair-deal/v1/chain"
_DECK_LABEL: Final = b"baloot-fair-deal/v1/deck"
_SHUFFLE_LABEL: Final = b"baloot-fair-deal/v1/shuffle"


# ---------------------------------------------------------------------------------------
# The chain (the server's side: the secret; anyone's side: the checks)


def dealing_secret(seed: bytes) -> bytes:
    """The dealing secret ``x`` of a match from its secret seed (or of a board set from the
    set's seed): HMAC-SHA256(seed, "baloot-fair-deal/v1/secret")."""
    return hmac.new(seed, _SECRET_LABEL, hashlib.sha256).digest()


def _link(round_number: int, key: bytes) -> bytes:
    """key[round_number - 1] from key[round_number]."""
    return hashlib.sha256(_CHAIN_LABEL + round_number.to_bytes(4, "big") + key).digest()


def earlier_key(key: bytes, key_round: int, round_number: int) -> bytes:
    """key[round_number] from key[key_round] (``round_number`` ≤ ``key_round``)."""
    if not 0 <= round_number <= key_round:
        raise ValueError(f"round {round_number} is not at or before round {key_round}")
    for link in range(key_round, round_number, -1):
        key = _link(link, key)
    return key


def round_key(secret: bytes, round_number: int) -> bytes:
    """key[round_number] of the chain of ``secret`` (1 ≤ round_number ≤ N)."""
    return earlier_key(secret, CHAIN_ROUNDS, round_number)


def commitment(secret: bytes) -> bytes:
    """key[0]: what CreateMatch publishes before the first deal."""
    return round_key(secret, 0)


def key_matches(key: bytes, key_round: int, committed: bytes) -> bool:
    """Whether ``key`` is key[key_round] of the chain ending in ``committed``."""
    if len(key) != KEY_SIZE or len(committed) != KEY_SIZE:
        return False
    if not 1 <= key_round <= CHAIN_ROUNDS:
        return False
    return hmac.compare_digest(earlier_key(key, key_round, 0), committed)


# ---------------------------------------------------------------------------------------
# Decks


def _stream(deck_seed: bytes) -> Iterator[int]:
    # The first two blocks are computed whatever the deck: 31 draws almost always end in them
    # (a third block needs 33 rejected bytes), so a deal's time shows nothing of its cards.
    yield from b"".join(
        hmac.new(deck_seed, _SHUFFLE_LABEL + n.to_bytes(4, "big"), hashlib.sha256).digest()
        for n in (0, 1)
    )
    counter = 2
    while True:
        label = _SHUFFLE_LABEL + counter.to_bytes(4, "big")
        yield from hmac.new(deck_seed, label, hashlib.sha256).digest()
        counter += 1


def shuffle(deck_seed: bytes) -> tuple[int, ...]:
    """The permutation of cards 0-31 a 32-byte deck seed gives: a Fisher-Yates shuffle from
    the last position down, each position's index drawn from the seed's byte stream by
    rejection (a byte at or above the largest multiple of the bound below 256 is skipped)."""
    deck = list(range(DECK_SIZE))
    stream = _stream(deck_seed)
    for i in range(DECK_SIZE - 1, 0, -1):
        bound = i + 1
        limit = 256 - 256 % bound
        value = next(stream)
        while value >= limit:
            value = next(stream)
        j = value % bound
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def committed_deck(key: bytes, redeals: int) -> tuple[int, ...]:
    """The deck of a round whose key is ``key``, after ``redeals`` redeals of that round."""
    deck_seed = hmac.new(key, _DECK_LABEL + redeals.to_bytes(4, "big"), hashlib.sha256).digest()
    return shuffle(deck_seed)


def round_positions(scored: Sequence[bool]) -> list[tuple[int, int]]:
    """The chain's (round, redeals) of each round of a record, from whether each was scored.

    The chain counts a round as one plus the rounds scored before it, and its redeals as the
    redealt rounds since the last scored one (a round redealt, all passed or Kawesh, has no
    score), so that the redeals of one deal share its key."""
    positions = []
    round_number, redeals = 1, 0
    for was_scored in scored:
        positions.append((round_number, redeals))
        if was_scored:
            round_number, redeals = round_number + 1, 0
        else:
            redeals += 1
    return positions


# ---------------------------------------------------------------------------------------
# A record's decks


class DealCheck(NamedTuple):
    """What the disclosed key proves of a record's decks.

    ``proven``: the hands whose deck is checked to be the committed one (from the first);
    ``bad_round``: the index of the first hand whose deck is not the committed one (or 0
    when the key itself does not open the commitment), None when none; ``why`` says which.
    ``complete``: every hand of the record is proven.
    """

    proven: int
    complete: bool
    bad_round: int | None
    why: str


def check_decks(
    committed: bytes,
    key_round: int,
    key: bytes,
    decks: Sequence[Sequence[int]],
    scored: Sequence[bool],
) -> DealCheck:
    """Check the decks of a record's hands against a commitment and a disclosed key.

    ``decks`` and ``scored`` give each hand in order (its deck order, whether it was scored).
    No key (``key_round`` 0) proves nothing and refutes nothing.
    """
    if key_round == 0 and not key:
        return DealCheck(0, not decks, None, "no key is disclosed")
    if not key_matches(key, key_round, committed):
        return DealCheck(0, False, 0, f"the key of round {key_round} does not open the commitment")
    keys = [key]  # key[key_round], key[key_round - 1], … key[1]: the chain walked once
    for link in range(key_round, 1, -1):
        keys.append(_link(link, keys[-1]))
    proven = 0
    for index, ((round_number, redeals), deck) in enumerate(
        zip(round_positions(scored), decks, strict=True)
    ):
        if round_number > key_round:
            break  # not disclosed yet
        expected = committed_deck(keys[key_round - round_number], redeals)
        if tuple(deck) != expected:
            why = (
                f"hand {index + 1} (round {round_number}, redeal {redeals}) was not dealt the "
                "committed deck"
            )
            return DealCheck(proven, False, index, why)
        proven += 1
    return DealCheck(proven, proven == len(decks), None, "")


def check_record_json(record: dict[str, Any]) -> DealCheck | None:
    """:func:`check_decks` on a record in its proto3 JSON form (docs/records.md); None when
    the record carries no commitment of this scheme (a record of an older match)."""
    commitment_part = record.get("dealCommitment") or {}
    if not commitment_part or int(commitment_part.get("scheme", 0)) not in (0, SCHEME):
        return None
    committed = _bytes(commitment_part.get("commitment", ""))
    key_part = record.get("dealKey") or {}
    rounds = record.get("rounds") or []
    decks = [[int(card) for card in r.get("deckOrder", [])] for r in rounds]
    scored = ["score" in r for r in rounds]
    return check_decks(
        committed, int(key_part.get("round", 0)), _bytes(key_part.get("key", "")), decks, scored
    )


def _bytes(text: str) -> bytes:
    """A proto3 JSON bytes value (standard or URL-safe base64, padding optional)."""
    text = text.replace("-", "+").replace("_", "/")
    return base64.b64decode(text + "=" * (-len(text) % 4))


def main(argv: Sequence[str] | None = None) -> int:
    """``baloot-verify-deal RECORD.json``: check that every deck of a record is the committed one.

    Exit status 0 when every round is proven, 1 when a deck or the key is not the committed one,
    2 when the record proves nothing (no commitment, or no key disclosed) or only some rounds.
    """
    parser = argparse.ArgumentParser(
        prog="baloot-verify-deal",
        description="Check a match record's decks against the commitment CreateMatch returned.",
    )
    parser.add_argument("record", help="a match record in its proto3 JSON form (.json)")
    args = parser.parse_args(argv)
    record = json.loads(Path(args.record).read_text(encoding="utf-8"))
    result = check_record_json(record)
    if result is None:
        print("not provable: the record carries no deal commitment")
        return 2
    if result.bad_round is not None:
        print(f"NOT COMMITTED: {result.why}")
        return 1
    rounds = len(record.get("rounds") or [])
    if result.complete:
        print(f"proven: all {rounds} rounds were dealt the committed decks")
        return 0
    why = result.why or "key not disclosed"
    print(f"partly proven: {result.proven} of {rounds} rounds ({why})")
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())


__all__ = [
    "CHAIN_ROUNDS",
    "SCHEME",
    "DealCheck",
    "check_decks",
    "check_record_json",
    "commitment",
    "committed_deck",
    "dealing_secret",
    "earlier_key",
    "key_matches",
    "round_key",
    "round_positions",
    "shuffle",
]
