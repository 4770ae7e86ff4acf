"""Attested deal commitments: the deployment signs what it commits to (docs/fair-deals.md).

A commitment alone binds the decks of a match to the record that carries it, but anyone can
make a commitment, keys and decks that agree. An :class:`Attestor` holds the deployment's
Ed25519 attestation key: at CreateMatch it signs a statement of the match id, the commitment
(its scheme, rounds and disclosure), the digest of the rules and the time
(:class:`~baloot_engine.rules.fairdeal.Statement`), which travels in
``DealCommitment.attestation``; VerifyRecord then says whether a key of the deployment attested
a record's commitment (``commitment_status``), and GetAttestationKeys publishes the public keys.

The keys: ``BALOOT_ATTESTATION_KEY`` (the private key: 32 bytes as base64 or 64 hex digits, or
a PKCS #8 PEM block), else the file ``BALOOT_ATTESTATION_KEY_FILE`` (``var/attestation.key`` by
default, created on first use, mode 0600, as the state key file is), and
``BALOOT_ATTESTATION_PUBLIC_KEYS``, the older public keys still accepted after a rotation
(comma-separated, 32 bytes each as base64 or hex). :func:`attestor_from_environment` reads them
when the server starts.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    PublicFormat,
    load_pem_private_key,
    load_pem_public_key,
)

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import records_pb2, types_pb2
from baloot_engine.rules import RuleSet
from baloot_engine.rules.fairdeal import (
    SCHEME,
    Statement,
    check_attestation,
    rules_digest,
)
from baloot_engine.rules.ruleset import SEEDS

KEY_VARIABLE: Final = "BALOOT_ATTESTATION_KEY"
KEY_FILE_VARIABLE: Final = "BALOOT_ATTESTATION_KEY_FILE"
PUBLIC_KEYS_VARIABLE: Final = "BALOOT_ATTESTATION_PUBLIC_KEYS"
VARIABLES: Final = (KEY_VARIABLE, KEY_FILE_VARIABLE, PUBLIC_KEYS_VARIABLE)
"""The environment variables :func:`attestor_from_environment` reads."""
DEFAULT_KEY_FILE: Final = Path("var/attestation.key")
KEY_SIZE: Final = 32
_PEM: Final = "-----BEGIN"
_SEEDS_FLAGS: Final = SEEDS.to_dict()


class AttestationKeyError(ValueError):
    """An attestation key that cannot be read; the message names what was expected."""


def _raw_key(text: str, what: str) -> bytes:
    """32 bytes written as 64 hex digits or base64 (standard or URL-safe, padding optional)."""
    text = text.strip()
    try:
        if len(text) == 2 * KEY_SIZE:
            raw = bytes.fromhex(text)
        else:
            padded = text + "=" * (-len(text) % 4)
            raw = base64.urlsafe_b64decode(padded.replace("+", "-").replace("/", "_"))
    except (ValueError, binascii.Error):
        raw = b""
    if len(raw) != KEY_SIZE:
        raise AttestationKeyError(f"{what} must be 32 bytes as base64 or 64 hex digits, or PEM")
    return raw


def parse_private_key(text: str) -> Ed25519PrivateKey:
    """An Ed25519 private key: its 32-byte seed (base64 or hex), or a PKCS #8 PEM block
    (``openssl genpkey -algorithm ed25519``)."""
    if text.lstrip().startswith(_PEM):
        try:
            key = load_pem_private_key(text.encode("ascii"), password=None)
        except (ValueError, TypeError, UnicodeEncodeError):
            raise AttestationKeyError("the attestation key's PEM block cannot be read") from None
        if not isinstance(key, Ed25519PrivateKey):
            raise AttestationKeyError("the attestation key must be an Ed25519 key")
        return key
    return Ed25519PrivateKey.from_private_bytes(_raw_key(text, "the attestation key"))


def parse_public_key(text: str) -> bytes:
    """A raw Ed25519 public key (32 bytes, base64 or hex), or one from a PEM block."""
    if text.lstrip().startswith(_PEM):
        try:
            key = load_pem_public_key(text.encode("ascii"))
        except (ValueError, TypeError, UnicodeEncodeError):
            raise AttestationKeyError("a public key's PEM block cannot be read") from None
        if not isinstance(key, Ed25519PublicKey):
            raise AttestationKeyError("an attestation public key must be an Ed25519 key")
        return key.public_bytes(Encoding.Raw, PublicFormat.Raw)
    raw = _raw_key(text, "an attestation public key")
    try:
        Ed25519PublicKey.from_public_bytes(raw)
    except ValueError:
        raise AttestationKeyError("an attestation public key is not a point of Ed25519") from None
    return raw


def public_bytes(key: Ed25519PrivateKey) -> bytes:
    """The raw public half of a private key (32 bytes)."""
    return key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def show_key(public_key: bytes) -> str:
    """A public key as the docs, the logs and ``baloot-verify-deal --public-key`` write it:
    standard base64."""
    return base64.b64encode(public_key).decode("ascii")


def attested_flags(rules: RuleSet) -> dict[str, object]:
    """The flags of ``rules`` that differ from the SEEDS preset: what the rules' digest covers
    (:func:`~baloot_engine.rules.fairdeal.rules_digest`)."""
    return {name: value for name, value in rules.to_dict().items() if value != _SEEDS_FLAGS[name]}


def digest_of(rules: RuleSet) -> bytes:
    """The digest of a rule set a statement carries."""
    return rules_digest(attested_flags(rules))


def verify_signature(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """Ed25519 verification by the ``cryptography`` package (the server's; a verifier with no
    package uses :func:`~baloot_engine.rules.fairdeal.verify_ed25519`, which agrees)."""
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


class Attestor:
    """A deployment's attestation keys: one signs, every one listed is accepted."""

    __slots__ = ("_signing", "public_keys")

    def __init__(self, signing: Ed25519PrivateKey, accepted: Sequence[bytes] = ()) -> None:
        self._signing = signing
        own = public_bytes(signing)
        self.public_keys: tuple[bytes, ...] = (own, *(k for k in accepted if k != own))

    def statement(
        self, match_id: str, commitment: types_pb2.DealCommitment, rules: RuleSet, now: float
    ) -> Statement:
        """What the deployment signs for a new match."""
        return Statement(
            bytes.fromhex(match_id),
            commitment.scheme,
            commitment.rounds,
            commitment.disclosure,
            bytes(commitment.commitment),
            digest_of(rules),
            int(now),
        )

    def attest(
        self,
        commitment: types_pb2.DealCommitment,
        match_id: str,
        rules: RuleSet,
        now: float | None = None,
    ) -> None:
        """Sign a new match's commitment, in place (``commitment.attestation``)."""
        statement = self.statement(match_id, commitment, rules, time.time() if now is None else now)
        data = statement.encode()
        commitment.attestation.CopyFrom(
            types_pb2.DealAttestation(
                statement=data, signature=self._signing.sign(data), public_key=self.public_keys[0]
            )
        )


def attest_commitment(
    attestor: Attestor | None,
    commitment: types_pb2.DealCommitment,
    match_id: str,
    rules: RuleSet,
) -> None:
    """CreateMatch: sign the new match's commitment when the server has an attestation key."""
    if attestor is not None:
        attestor.attest(commitment, match_id, rules)


def judge_commitment(
    attestor: Attestor | None,
    record: records_pb2.MatchRecord,
    rules: RuleSet,
    response: pb.VerifyRecordResponse,
) -> None:
    """VerifyRecord: whether a key of this deployment attested the record's commitment for its
    match id, ``rules`` (the record's, resolved) and disclosure; in place."""
    response.commitment_status, response.commitment_note = commitment_status(
        attestor, record, rules
    )


def commitment_status(
    attestor: Attestor | None, record: records_pb2.MatchRecord, rules: RuleSet
) -> tuple[pb.CommitmentStatus.ValueType, str]:
    """The ``commitment_status`` of a record and its note."""
    if not record.HasField("deal_commitment"):
        return pb.COMMITMENT_STATUS_ABSENT, "the record carries no deal commitment"
    committed = record.deal_commitment
    unproven = pb.COMMITMENT_STATUS_SELF_CONSISTENT
    if not committed.HasField("attestation"):
        return unproven, "the commitment carries no attestation: nothing shows which server made it"
    if attestor is None:
        return unproven, "this server has no attestation key to check the attestation with"
    match_id = record.match_id
    try:
        match_bytes = bytes.fromhex(match_id) if len(match_id) == 32 else b""
    except ValueError:
        match_bytes = b""
    expected = Statement(
        match_bytes,
        committed.scheme or SCHEME,
        committed.rounds,
        committed.disclosure,
        bytes(committed.commitment),
        digest_of(rules),
        0,
    )
    attestation = committed.attestation
    check = check_attestation(
        bytes(attestation.statement),
        bytes(attestation.signature),
        bytes(attestation.public_key),
        attestor.public_keys,
        expected,
        verify=verify_signature,
    )
    if not check.attested:
        if bytes(attestation.public_key) not in attestor.public_keys:
            why = "it is signed by a key this deployment does not use"
        else:
            why = check.why
        return unproven, f"the commitment's attestation is not this deployment's: {why}"
    key = show_key(bytes(attestation.public_key))
    return pb.COMMITMENT_STATUS_ATTESTED, f"attested by this deployment's key {key}, {check.why}"


def keys_out(attestor: Attestor | None) -> pb.GetAttestationKeysResponse:
    """GetAttestationKeys: the public keys, the signing one first."""
    response = pb.GetAttestationKeysResponse()
    if attestor is not None:
        for index, key in enumerate(attestor.public_keys):
            response.keys.add(public_key=key, signing=index == 0)
    return response


# ---------------------------------------------------------------------------------------
# Loading the keys


def load_or_create_key_file(path: Path) -> tuple[Ed25519PrivateKey, bool]:
    """The private key in ``path``, or a new one written there (mode 0600, created whole: a
    second process starting at the same time reads the same key). Returns (key, created)."""
    if path.exists():
        return parse_private_key(path.read_text(encoding="ascii")), False
    path.parent.mkdir(parents=True, exist_ok=True)
    key = Ed25519PrivateKey.generate()
    seed = key.private_bytes_raw()
    draft = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(base64.urlsafe_b64encode(seed).decode("ascii") + "\n")
    try:
        os.link(draft, path)  # fails if another process created it first: read theirs
    except FileExistsError:
        return parse_private_key(path.read_text(encoding="ascii")), False
    finally:
        with contextlib.suppress(FileNotFoundError):
            draft.unlink()
    return key, True


def load_attestor(
    key: str = "", key_file: Path = DEFAULT_KEY_FILE, public_keys: Sequence[str] = ()
) -> tuple[Attestor, bool]:
    """The attestor of a deployment: the private key ``key`` (its text), else the one in
    ``key_file`` (created when missing), accepting also the older ``public_keys``. Returns
    (attestor, whether the key file was created)."""
    created = False
    if key.strip():
        signing = parse_private_key(key)
    else:
        try:
            signing, created = load_or_create_key_file(key_file)
        except OSError as error:
            raise AttestationKeyError(f"cannot read the attestation key file: {error}") from None
    accepted = [parse_public_key(text) for text in public_keys if text.strip()]
    return Attestor(signing, accepted), created


def attestor_from_environment(environ: Mapping[str, str] | None = None) -> tuple[Attestor, bool]:
    """:func:`load_attestor` from ``BALOOT_ATTESTATION_KEY``, ``BALOOT_ATTESTATION_KEY_FILE``
    and ``BALOOT_ATTESTATION_PUBLIC_KEYS`` (default: the process's environment)."""
    env = os.environ if environ is None else environ
    path = env.get(KEY_FILE_VARIABLE, "").strip()
    return load_attestor(
        env.get(KEY_VARIABLE, ""),
        Path(path) if path else DEFAULT_KEY_FILE,
        env.get(PUBLIC_KEYS_VARIABLE, "").split(","),
    )


__all__ = [
    "DEFAULT_KEY_FILE",
    "VARIABLES",
    "AttestationKeyError",
    "Attestor",
    "attest_commitment",
    "attested_flags",
    "attestor_from_environment",
    "commitment_status",
    "digest_of",
    "judge_commitment",
    "keys_out",
    "load_attestor",
    "parse_private_key",
    "parse_public_key",
    "show_key",
]
