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

A deployment with an attestation key also signs what it commits to: a :class:`Statement` of the
match id, the commitment, its scheme, rounds and disclosure, the digest of the rules
(:func:`rules_digest`) and the time, signed with Ed25519. :func:`check_attestation` checks such a
signature against the deployment's public keys (:func:`verify_ed25519`: RFC 8032 verification in
plain Python, so this file stays free of any package; the server signs with ``cryptography``).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import json
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
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
# Attested commitments

ATTESTATION_LABEL: Final = b"baloot-deal-attestation/v1"
_RULES_LABEL: Final = b"baloot-rules/v1\n"
MATCH_ID_BYTES: Final = 16
STATEMENT_SIZE: Final = len(ATTESTATION_LABEL) + MATCH_ID_BYTES + 12 + 2 * KEY_SIZE + 8
"""126 bytes: the label, the match id, scheme, rounds and disclosure (u32be each), the
commitment, the rules' digest and the time (u64be seconds since 1970-01-01 UTC)."""
PUBLIC_KEY_SIZE: Final = 32
SIGNATURE_SIZE: Final = 64
DISCLOSURES: Final = {
    "DEAL_DISCLOSURE_UNSPECIFIED": 0,
    "DEAL_DISCLOSURE_AT_MATCH_END": 1,
    "DEAL_DISCLOSURE_EACH_ROUND": 2,
}
"""``DealDisclosure`` by name, as a record's JSON form writes it."""


class Statement(NamedTuple):
    """What a deployment signs when it commits to a match's decks."""

    match_id: bytes  # the 16 bytes of the match id's 32 hex digits
    scheme: int
    rounds: int
    disclosure: int  # a DealDisclosure number
    commitment: bytes
    rules_digest: bytes
    issued_at: int  # seconds since 1970-01-01 UTC

    def encode(self) -> bytes:
        """The statement's bytes: the message the signature is of."""
        return b"".join(
            (
                ATTESTATION_LABEL,
                self.match_id,
                self.scheme.to_bytes(4, "big"),
                self.rounds.to_bytes(4, "big"),
                self.disclosure.to_bytes(4, "big"),
                self.commitment,
                self.rules_digest,
                self.issued_at.to_bytes(8, "big"),
            )
        )

    @classmethod
    def decode(cls, data: bytes) -> Statement | None:
        """The statement of ``data``, or None when it is not one (size or label)."""
        if len(data) != STATEMENT_SIZE or not data.startswith(ATTESTATION_LABEL):
            return None
        at = len(ATTESTATION_LABEL)

        def take(size: int) -> bytes:
            nonlocal at
            at += size
            return data[at - size : at]

        return cls(
            take(MATCH_ID_BYTES),
            int.from_bytes(take(4), "big"),
            int.from_bytes(take(4), "big"),
            int.from_bytes(take(4), "big"),
            take(KEY_SIZE),
            take(KEY_SIZE),
            int.from_bytes(take(8), "big"),
        )


def rules_digest(flags: Mapping[str, object]) -> bytes:
    """The digest of a rule set: SHA-256 of "baloot-rules/v1\\n" and the JSON object of the
    flags that differ from the SEEDS preset (the rules core's names and values), keys sorted,
    no spaces. A flag added later, at its default, leaves the digest of older rule sets as
    it was."""
    text = json.dumps(dict(flags), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(_RULES_LABEL + text.encode("ascii")).digest()


# Ed25519 verification (RFC 8032, section 5.1.7), on the twisted Edwards curve over 2^255 - 19
# in extended coordinates. Only public values go in (a key, a message, a signature), so plain
# integer arithmetic, whose time varies with them, shows nothing secret.
_P: Final = 2**255 - 19
_L: Final = 2**252 + 27742317777372353535851937790883648493
_D: Final = -121665 * pow(121666, _P - 2, _P) % _P
_SQRT_M1: Final = pow(2, (_P - 1) // 4, _P)
_Point = tuple[int, int, int, int]


def _add(p: _Point, q: _Point) -> _Point:
    a = (p[1] - p[0]) * (q[1] - q[0]) % _P
    b = (p[1] + p[0]) * (q[1] + q[0]) % _P
    c = 2 * p[3] * q[3] * _D % _P
    d = 2 * p[2] * q[2] % _P
    e, f, g, h = b - a, d - c, d + c, b + a
    return e * f % _P, g * h % _P, f * g % _P, e * h % _P


def _times(scalar: int, point: _Point) -> _Point:
    result: _Point = (0, 1, 1, 0)
    while scalar:
        if scalar & 1:
            result = _add(result, point)
        point = _add(point, point)
        scalar >>= 1
    return result


def _same(p: _Point, q: _Point) -> bool:
    return (p[0] * q[2] - q[0] * p[2]) % _P == 0 and (p[1] * q[2] - q[1] * p[2]) % _P == 0


def _x_of(y: int, sign: int) -> int | None:
    if y >= _P:
        return None
    x2 = (y * y - 1) * pow(_D * y * y + 1, _P - 2, _P) % _P
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P:
        x = x * _SQRT_M1 % _P
    if (x * x - x2) % _P:
        return None
    return _P - x if x & 1 != sign else x


def _point(data: bytes) -> _Point | None:
    """The point of a 32-byte encoding, or None when it is none."""
    y = int.from_bytes(data, "little")
    sign, y = y >> 255, y & ((1 << 255) - 1)
    x = _x_of(y, sign)
    return None if x is None else (x, y, 1, x * y % _P)


_BASE_Y: Final = 4 * pow(5, _P - 2, _P) % _P
_BASE_X: Final = _x_of(_BASE_Y, 0) or 0
_BASE: Final = (_BASE_X, _BASE_Y, 1, _BASE_X * _BASE_Y % _P)


def verify_ed25519(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """Whether ``signature`` is a valid Ed25519 signature of ``message`` by ``public_key``
    (raw, 32 bytes): [S]B = R + [SHA-512(R || A || M)]A, with S below the group's order."""
    if len(public_key) != PUBLIC_KEY_SIZE or len(signature) != SIGNATURE_SIZE:
        return False
    a, r = _point(public_key), _point(signature[:32])
    s = int.from_bytes(signature[32:], "little")
    if a is None or r is None or s >= _L:
        return False
    digest = hashlib.sha512(signature[:32] + public_key + message).digest()
    k = int.from_bytes(digest, "little") % _L
    return _same(_times(s, _BASE), _add(r, _times(k, a)))


Verifier = Callable[[bytes, bytes, bytes], bool]
"""(public key, message, signature) -> valid: :func:`verify_ed25519`, or a library's."""


class AttestationCheck(NamedTuple):
    """What a commitment's attestation shows: ``attested`` when a trusted key signed a statement
    of this very match and commitment; ``why`` says what failed, or what was checked."""

    attested: bool
    why: str
    statement: Statement | None = None


def check_attestation(
    statement: bytes,
    signature: bytes,
    public_key: bytes,
    trusted: Sequence[bytes],
    expected: Statement,
    *,
    verify: Verifier = verify_ed25519,
    rules_checked: bool = True,
) -> AttestationCheck:
    """Check an attestation (its statement, signature and signing key) against the public keys a
    deployment publishes (``trusted``) and what the record says (``expected``; its ``issued_at``
    is not compared). ``rules_checked`` False: the record's rules digest is not known here, and
    the statement's is not compared either (the caller says so)."""
    if public_key not in trusted:
        return AttestationCheck(False, "it is signed by a key that is not one of the trusted keys")
    if not verify(public_key, statement, signature):
        return AttestationCheck(False, "its signature does not verify")
    said = Statement.decode(statement)
    if said is None:
        return AttestationCheck(False, "its statement is not one of this scheme")
    for name, label in (
        ("match_id", "match id"),
        ("commitment", "commitment"),
        ("scheme", "scheme"),
        ("rounds", "number of rounds"),
        ("disclosure", "disclosure"),
    ):
        if getattr(said, name) != getattr(expected, name):
            return AttestationCheck(False, f"it attests another {label} than the record's", said)
    if rules_checked and said.rules_digest != expected.rules_digest:
        return AttestationCheck(False, "it attests other rules than the record's", said)
    when = datetime.fromtimestamp(said.issued_at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return AttestationCheck(True, f"signed at {when}", said)


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


def check_record_attestation(
    record: dict[str, Any],
    trusted: Sequence[bytes],
    rules_digest_of: Callable[[dict[str, Any]], bytes] | None = None,
) -> AttestationCheck:
    """:func:`check_attestation` on a record in its proto3 JSON form: is its commitment one a
    trusted key attested, for its match id, rules and disclosure? ``rules_digest_of`` gives the
    digest of the record's rules (the installed command resolves them; a copy of this file alone
    cannot, and does not compare them)."""
    committed = record.get("dealCommitment") or {}
    if not committed:
        return AttestationCheck(False, "the record carries no deal commitment")
    attestation = committed.get("attestation") or {}
    if not attestation:
        return AttestationCheck(False, "its commitment carries no attestation")
    match_id = str(record.get("matchId", ""))
    disclosure = committed.get("disclosure", 0)
    expected = Statement(
        bytes.fromhex(match_id)
        if len(match_id) == 2 * MATCH_ID_BYTES and _is_hex(match_id)
        else b"",
        int(committed.get("scheme", 0)) or SCHEME,
        int(committed.get("rounds", 0)),
        DISCLOSURES.get(disclosure, 0) if isinstance(disclosure, str) else int(disclosure),
        _bytes(committed.get("commitment", "")),
        b"" if rules_digest_of is None else rules_digest_of(record),
        0,
    )
    return check_attestation(
        _bytes(attestation.get("statement", "")),
        _bytes(attestation.get("signature", "")),
        _bytes(attestation.get("publicKey", "")),
        trusted,
        expected,
        rules_checked=rules_digest_of is not None,
    )


def _is_hex(text: str) -> bool:
    return all(c in "0123456789abcdefABCDEF" for c in text)


def key_bytes(text: str) -> bytes:
    """A 32-byte value given on the command line: 64 hex digits, or base64 (standard or
    URL-safe, padding optional). Raises ValueError otherwise."""
    text = text.strip()
    if len(text) == 2 * KEY_SIZE and _is_hex(text):
        return bytes.fromhex(text)
    try:
        value = _bytes(text)
    except ValueError:
        value = b""
    if len(value) != KEY_SIZE:
        raise ValueError(f"expected 32 bytes as 64 hex digits or base64, got {text!r}")
    return value


def main(
    argv: Sequence[str] | None = None,
    *,
    rules_digest_of: Callable[[dict[str, Any]], bytes] | None = None,
) -> int:
    """``baloot-verify-deal RECORD.json [--commitment C] [--public-key K ...]``: check that every
    deck of a record is the committed one, that the commitment is the one the player kept, and
    that the deployment's key attested it.

    Exit status 0 when every check passes (every round proven, and the commitment and the
    attestation when asked), 1 when one fails (a deck or the key is not the committed one, the
    commitment is not the one kept, the commitment is not attested by one of the keys), 2 when
    nothing fails but the record proves nothing (no commitment, or no key disclosed) or only some
    rounds.
    """
    parser = argparse.ArgumentParser(
        prog="baloot-verify-deal",
        description="Check a match record's decks against the commitment CreateMatch returned.",
    )
    parser.add_argument("record", help="a match record in its proto3 JSON form (.json)")
    parser.add_argument(
        "--commitment",
        help="the commitment CreateMatch returned, as you kept it (base64 or 64 hex digits): the "
        "record's must be that one",
    )
    parser.add_argument(
        "--public-key",
        action="append",
        default=[],
        help="a public attestation key of the deployment (base64 or 64 hex digits; repeat it for "
        "several, as after a rotation): the record's commitment must be attested by one of them",
    )
    args = parser.parse_args(argv)
    try:
        kept = None if args.commitment is None else key_bytes(args.commitment)
        trusted = [key_bytes(key) for key in args.public_key]
    except ValueError as error:
        parser.error(str(error))
    record = json.loads(Path(args.record).read_text(encoding="utf-8"))
    failed = unproven = False
    result = check_record_json(record)
    rounds = len(record.get("rounds") or [])
    if result is None:
        print("not provable: the record carries no deal commitment")
        unproven = True
    elif result.bad_round is not None:
        print(f"NOT COMMITTED: {result.why}")
        failed = True
    elif result.complete:
        print(f"proven: all {rounds} rounds were dealt the committed decks")
    else:
        why = result.why or "key not disclosed"
        print(f"partly proven: {result.proven} of {rounds} rounds ({why})")
        unproven = True
    if kept is not None:
        recorded = _bytes((record.get("dealCommitment") or {}).get("commitment", ""))
        if hmac.compare_digest(recorded, kept):
            print("commitment: the record's is the one you kept")
        else:
            print("COMMITMENT DIFFERS: the record's commitment is not the one you kept")
            failed = True
    if trusted:
        check = check_record_attestation(record, trusted, rules_digest_of)
        if check.attested:
            print(f"attested: by one of the given keys, {check.why}")
            if rules_digest_of is None:
                print(
                    "  (the attested rules are not compared by this copy of the file: "
                    "VerifyRecord, or baloot-verify-deal as installed, compares them)"
                )
        else:
            print(f"NOT ATTESTED: {check.why}")
            failed = True
    return 1 if failed else 2 if unproven else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())


__all__ = [
    "ATTESTATION_LABEL",
    "CHAIN_ROUNDS",
    "SCHEME",
    "STATEMENT_SIZE",
    "AttestationCheck",
    "DealCheck",
    "Statement",
    "check_attestation",
    "check_decks",
    "check_record_attestation",
    "check_record_json",
    "commitment",
    "committed_deck",
    "dealing_secret",
    "earlier_key",
    "key_bytes",
    "key_matches",
    "round_key",
    "round_positions",
    "rules_digest",
    "shuffle",
    "verify_ed25519",
]
