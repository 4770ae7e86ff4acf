"""Attested deal commitments (docs/fair-deals.md#attested-commitments).

A server with an attestation key signs what it commits to at CreateMatch (the match id, the
commitment, the rules, the time); VerifyRecord says whether a key of the deployment attested a
record's commitment, merely self-consistent, or absent; ``baloot-verify-deal`` checks the
commitment the player kept and the deployment's public keys. A record a forger made whole (his
own secret, commitment, keys and decks: every deal proven against his commitment) is not
attested; a real one is, across a key rotation too.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import random
import re
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from baloot_client import EngineClient, Match
from baloot_client.records import to_json
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import records_pb2, rules_pb2, types_pb2
from baloot_engine.api import verify_deal_cli
from baloot_engine.api.attestation import (
    AttestationKeyError,
    Attestor,
    attestor_from_environment,
    digest_of,
    load_attestor,
    parse_private_key,
    public_bytes,
    show_key,
    verify_signature,
)
from baloot_engine.api.inbound import rules_in
from baloot_engine.api.sealing import KeyRing
from baloot_engine.api.servicer import BalootEngineServicer
from baloot_engine.lanes import Lanes, LanesConfig
from baloot_engine.rules import fairdeal
from baloot_engine.rules.dealing import initial_hands
from baloot_engine.telemetry.metrics import Metrics
from tests.api.conftest import KEY_A, PASS, ServicerServer

ATTESTED = pb.COMMITMENT_STATUS_ATTESTED
SELF_CONSISTENT = pb.COMMITMENT_STATUS_SELF_CONSISTENT
ABSENT = pb.COMMITMENT_STATUS_ABSENT
SHORT = rules_pb2.RuleSet(preset=rules_pb2.PRESET_KAMMELNA, match_target=60)
JACKS = frozenset(suit * 8 + 4 for suit in range(4))  # rank 4 of each suit: the Jacks


def _play(match: Match, rng: random.Random, deck_of: Any = None) -> None:
    """Play a match to its end with random legal actions (host credential); ``deck_of``
    gives each deal a preset deck from the match's record so far."""
    while (view := match.views[0]).phase != types_pb2.PHASE_MATCH_OVER:
        if view.phase in (types_pb2.PHASE_AWAITING_DEAL, types_pb2.PHASE_ROUND_OVER):
            match.deal(view.dealer, () if deck_of is None else deck_of(match.record))
            continue
        options = list(match.views[view.turn].legal_actions)
        options = [a for a in options if not (a.HasField("play") and a.play.sawa)]
        passes = [a for a in options if a.HasField("bid") and a.bid.kind == PASS]
        choice = passes[0] if passes and rng.random() < 0.5 else rng.choice(options)
        match.act(view.turn, choice)


def _real_record(client: EngineClient, seed: int) -> records_pb2.MatchRecord:
    match = client.create_match(SHORT, first_dealer=seed % 4)
    _play(match, random.Random(seed))
    return match.record


def test_create_match_signs_what_it_commits_to(
    attested_client: EngineClient, attestor: Attestor
) -> None:
    match = attested_client.create_match(
        SHORT, first_dealer=2, deal_disclosure=types_pb2.DEAL_DISCLOSURE_EACH_ROUND
    )
    committed = match.record.deal_commitment
    attestation = committed.attestation
    statement = fairdeal.Statement.decode(attestation.statement)
    assert statement is not None
    assert len(attestation.statement) == fairdeal.STATEMENT_SIZE == 126
    assert statement.match_id.hex() == match.match_id
    assert statement.commitment == committed.commitment
    assert (statement.scheme, statement.rounds, statement.disclosure) == (
        1,
        256,
        types_pb2.DEAL_DISCLOSURE_EACH_ROUND,
    )
    assert statement.rules_digest == digest_of(rules_in(match.views[0].rules))
    assert statement.issued_at > 1_700_000_000  # seconds since 1970, not milliseconds
    # The deployment's key signed it; both verifiers agree.
    assert attestation.public_key == attestor.public_keys[0]
    for verify in (fairdeal.verify_ed25519, verify_signature):
        assert verify(attestation.public_key, attestation.statement, attestation.signature)
    forged = bytearray(attestation.statement)
    forged[-1] ^= 1  # another time
    assert not fairdeal.verify_ed25519(attestation.public_key, bytes(forged), attestation.signature)
    # GetAttestationKeys publishes it.
    keys = attested_client.call(
        attested_client.stub.GetAttestationKeys, pb.GetAttestationKeysRequest()
    )
    assert [(k.public_key, k.signing) for k in keys.keys] == [(attestor.public_keys[0], True)]


def _forged_record(client: EngineClient, forger: Ed25519PrivateKey) -> records_pb2.MatchRecord:
    """A record made whole by a forger: his own dealing secret (ground until the first deck
    gives seat 1 three Jacks in its first five cards), his decks dealt as preset decks, his
    commitment, his key disclosed, and an attestation he signed with his own key."""
    rng = random.Random(55)
    while True:
        secret = rng.randbytes(32)
        first = fairdeal.committed_deck(fairdeal.round_key(secret, 1), 0)
        if len(JACKS & _cards(initial_hands(first, 0)[1])) >= 3:
            break

    def deck_of(record: records_pb2.MatchRecord) -> tuple[int, ...]:
        scored = [r.HasField("score") for r in record.rounds]
        round_number, redeals = fairdeal.round_positions([*scored, False])[-1]
        return fairdeal.committed_deck(fairdeal.round_key(secret, round_number), redeals)

    match = client.create_match(SHORT, first_dealer=0)
    _play(match, random.Random(5), deck_of)
    record = records_pb2.MatchRecord()
    record.CopyFrom(match.record)
    commitment = fairdeal.commitment(secret)
    scored = sum(r.HasField("score") for r in record.rounds)
    record.deal_commitment.Clear()
    record.deal_commitment.scheme = 1
    record.deal_commitment.rounds = fairdeal.CHAIN_ROUNDS
    record.deal_commitment.disclosure = types_pb2.DEAL_DISCLOSURE_AT_MATCH_END
    record.deal_commitment.commitment = commitment
    record.deal_key.round = scored
    record.deal_key.key = fairdeal.round_key(secret, scored)
    # His own attestation of it: a right statement, signed with his key.
    statement = fairdeal.Statement(
        bytes.fromhex(record.match_id),
        1,
        fairdeal.CHAIN_ROUNDS,
        types_pb2.DEAL_DISCLOSURE_AT_MATCH_END,
        commitment,
        digest_of(rules_in(record.rules)),
        1_800_000_000,
    ).encode()
    record.deal_commitment.attestation.statement = statement
    record.deal_commitment.attestation.signature = forger.sign(statement)
    record.deal_commitment.attestation.public_key = public_bytes(forger)
    return record


def _cards(mask: int) -> set[int]:
    return {c for c in range(32) if mask >> c & 1}


def test_a_forged_self_committed_record_is_not_attested_and_a_real_one_is(
    attested_client: EngineClient,
) -> None:
    real = _real_record(attested_client, 1)
    verified = attested_client.verify_record(real)
    assert verified.valid, verified.divergence
    assert verified.complete
    assert verified.deals_proven
    assert verified.commitment_status == ATTESTED
    assert "attested by this deployment's key" in verified.commitment_note

    forged = _forged_record(attested_client, Ed25519PrivateKey.generate())
    answer = attested_client.verify_record(forged)
    # Every deal is proven against the forger's own commitment: self-consistent, not attested.
    assert answer.valid, answer.divergence
    assert answer.complete
    assert answer.deals_proven
    assert answer.commitment_status == SELF_CONSISTENT
    assert "a key this deployment does not use" in answer.commitment_note

    # Without his attestation, or with the real one of another match: not attested either.
    bare = records_pb2.MatchRecord()
    bare.CopyFrom(forged)
    bare.deal_commitment.ClearField("attestation")
    answer = attested_client.verify_record(bare)
    assert (answer.deals_proven, answer.commitment_status) == (True, SELF_CONSISTENT)
    assert "no attestation" in answer.commitment_note
    borrowed = records_pb2.MatchRecord()
    borrowed.CopyFrom(forged)
    borrowed.deal_commitment.attestation.CopyFrom(real.deal_commitment.attestation)
    answer = attested_client.verify_record(borrowed)
    assert answer.commitment_status == SELF_CONSISTENT
    assert "another match id" in answer.commitment_note

    # A real record whose match id, rules or disclosure were edited is no longer attested.
    for edit, why in (
        (lambda r: setattr(r, "match_id", "0" * 32), "another match id"),
        (lambda r: setattr(r.deal_commitment, "disclosure", 2), "another disclosure"),
    ):
        edited = records_pb2.MatchRecord()
        edited.CopyFrom(real)
        edit(edited)
        assert why in attested_client.verify_record(edited).commitment_note
    tampered = records_pb2.MatchRecord()
    tampered.CopyFrom(real)
    statement = bytearray(tampered.deal_commitment.attestation.statement)
    statement[30] ^= 1
    tampered.deal_commitment.attestation.statement = bytes(statement)
    answer = attested_client.verify_record(tampered)
    assert answer.commitment_status == SELF_CONSISTENT
    assert "signature does not verify" in answer.commitment_note

    # No commitment at all.
    absent = records_pb2.MatchRecord()
    absent.CopyFrom(real)
    absent.ClearField("deal_commitment")
    absent.ClearField("deal_key")
    answer = attested_client.verify_record(absent)
    assert (answer.valid, answer.commitment_status) == (True, ABSENT)


def test_attested_rules_are_those_of_the_record(attested_client: EngineClient) -> None:
    real = _real_record(attested_client, 2)
    other = records_pb2.MatchRecord()
    other.CopyFrom(real)
    other.rules.match_target = 61  # the same match under other rules would still verify
    answer = attested_client.verify_record(other)
    assert answer.commitment_status == SELF_CONSISTENT
    assert "other rules" in answer.commitment_note
    # A flag at its default, written out or not, is the same rules.
    assert digest_of(rules_in(rules_pb2.RuleSet(preset=rules_pb2.PRESET_SEEDS))) == digest_of(
        rules_in(rules_pb2.RuleSet(preset=rules_pb2.PRESET_SEEDS, sawa=False))
    )


def _verify_with(servicer: BalootEngineServicer, record: records_pb2.MatchRecord) -> Any:
    request = pb.VerifyRecordRequest(record=record)
    return asyncio.run(servicer.VerifyRecord(request, None))  # type: ignore[arg-type]


def _servicer(attestor: Attestor | None) -> BalootEngineServicer:
    keys = KeyRing.from_texts((KEY_A,))
    return BalootEngineServicer(
        keys,
        Metrics(),
        allow_preset_deck=False,
        lanes=Lanes(LanesConfig().inline()),
        attestor=attestor,
    )


def test_a_rotated_key_still_attests_the_records_it_signed(
    attested_client: EngineClient, attestor: Attestor
) -> None:
    record = _real_record(attested_client, 3)
    old = show_key(attestor.public_keys[0])
    rotated, _ = load_attestor("d4" * 32, public_keys=[old])
    assert rotated.public_keys[1:] == attestor.public_keys
    answer = _verify_with(_servicer(rotated), record)
    assert answer.commitment_status == ATTESTED
    assert old in answer.commitment_note
    keys = asyncio.run(
        _servicer(rotated).GetAttestationKeys(pb.GetAttestationKeysRequest(), None)  # type: ignore[arg-type]
    )
    assert [k.signing for k in keys.keys] == [True, False]
    # A deployment that dropped the old key no longer vouches for it; one without keys neither.
    dropped, _ = load_attestor("d4" * 32)
    assert _verify_with(_servicer(dropped), record).commitment_status == SELF_CONSISTENT
    answer = _verify_with(_servicer(None), record)
    assert answer.commitment_status == SELF_CONSISTENT
    assert "no attestation key" in answer.commitment_note


def test_the_command_line_checks_the_kept_commitment_and_the_public_key(
    attested_client: EngineClient,
    attestor: Attestor,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    real = _real_record(attested_client, 4)
    path = tmp_path / "match.json"
    path.write_text(to_json(real))
    kept = base64.b64encode(real.deal_commitment.commitment).decode()
    key = show_key(attestor.public_keys[0])
    assert verify_deal_cli.main([str(path), "--commitment", kept, "--public-key", key]) == 0
    out = capsys.readouterr().out
    assert "proven: all" in out
    assert "commitment: the record's is the one you kept" in out
    assert "attested: by one of the given keys, signed at" in out
    # Hex works as well as base64; another kept commitment, or another key, fails.
    hex_key = attestor.public_keys[0].hex()
    assert verify_deal_cli.main([str(path), "--public-key", hex_key]) == 0
    other = base64.b64encode(bytes(32)).decode()
    assert verify_deal_cli.main([str(path), "--commitment", other]) == 1
    assert "COMMITMENT DIFFERS" in capsys.readouterr().out
    stranger = show_key(public_bytes(Ed25519PrivateKey.generate()))
    assert verify_deal_cli.main([str(path), "--public-key", stranger]) == 1
    assert "NOT ATTESTED: it is signed by a key that is not one of the trusted keys" in (
        capsys.readouterr().out
    )
    # The forged record: its decks are proven against its own commitment, but the deployment's
    # key did not attest it.
    forger = Ed25519PrivateKey.generate()
    forged = _forged_record(attested_client, forger)
    path.write_text(to_json(forged))
    assert verify_deal_cli.main([str(path)]) == 0
    assert verify_deal_cli.main([str(path), "--public-key", key]) == 1
    assert "NOT ATTESTED" in capsys.readouterr().out
    # Its own key "attests" it: which key to trust is the whole question.
    assert verify_deal_cli.main([str(path), "--public-key", show_key(public_bytes(forger))]) == 0
    # The rules: the installed command compares them, a copy of fairdeal.py alone says it does not.
    edited = json.loads(to_json(real))
    edited["rules"]["matchTarget"] = 61
    path.write_text(json.dumps(edited))
    assert verify_deal_cli.main([str(path), "--public-key", key]) == 1
    assert "NOT ATTESTED: it attests other rules than the record's" in capsys.readouterr().out
    assert fairdeal.main([str(path), "--public-key", key]) == 0
    assert "not compared by this copy" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        fairdeal.main([str(path), "--public-key", "not-a-key"])


def test_the_keys_load_from_the_environment_and_the_key_file(tmp_path: Path) -> None:
    private = Ed25519PrivateKey.generate()
    seed = private.private_bytes_raw()
    own = public_bytes(private)
    pem = private.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()).decode()
    for text in (seed.hex(), base64.b64encode(seed).decode(), pem):
        attestor, created = attestor_from_environment({"BALOOT_ATTESTATION_KEY": text})
        assert (attestor.public_keys, created) == ((own,), False)
    # No key given: the file is created (mode 0600) and read back by the next start.
    path = tmp_path / "var" / "attestation.key"
    environ = {"BALOOT_ATTESTATION_KEY_FILE": str(path)}
    first, created = attestor_from_environment(environ)
    assert created
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again, created = attestor_from_environment(environ)
    assert (again.public_keys, created) == (first.public_keys, False)
    # Older public keys, raw or PEM, are accepted after the signing one.
    older = Ed25519PrivateKey.generate().public_key()
    older_pem = older.public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo).decode()
    environ["BALOOT_ATTESTATION_PUBLIC_KEYS"] = f"{show_key(own)}, {older_pem}"
    rotated, _ = attestor_from_environment(environ)
    assert rotated.public_keys[0] == first.public_keys[0]
    assert rotated.public_keys[1:] == (own, older.public_bytes(Encoding.Raw, PublicFormat.Raw))
    for bad in ("short", "zz" * 32, "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----"):
        with pytest.raises(AttestationKeyError):
            parse_private_key(bad)
    with pytest.raises(AttestationKeyError):
        attestor_from_environment({"BALOOT_ATTESTATION_PUBLIC_KEYS": "short"})


DOC = Path(__file__).resolve().parents[2] / "docs" / "fair-deals.md"


def _doc_blocks(language: str) -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    pattern = rf"^```{language}\n(.*?)^```$"
    return [m[1] for m in re.finditer(pattern, text, re.DOTALL | re.MULTILINE)]


def test_the_documented_attestation_example_runs(
    attested_engine: ServicerServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # docs/fair-deals.md's Python example, against a server that attests its commitments (the
    # page's address, make run's server, is this one's)…
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {"__name__": "fair_deals_doc"}
    [example] = _doc_blocks("python")
    example = example.replace('"localhost:50051"', repr(attested_engine.target))
    exec(compile(example, "docs/fair-deals.md python example", "exec"), namespace)  # noqa: S102
    assert (tmp_path / "match.json").exists()
    assert (tmp_path / "kept.txt").read_text() == namespace["kept"]
    assert (tmp_path / "published.txt").read_text() == namespace["published"][0]
    # …then its commands, with the commitment kept and the key published.
    [commands] = _doc_blocks("sh")
    verifier = f"{sys.executable} -m baloot_engine.api.verify_deal_cli"
    done = subprocess.run(
        [
            "bash",
            "-euo",
            "pipefail",
            "-c",
            commands.replace(".venv/bin/baloot-verify-deal", verifier),
        ],
        cwd=tmp_path,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join(sys.path),  # this package, wherever the test runs
        },
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "proven: all " in done.stdout
    assert "commitment: the record's is the one you kept" in done.stdout
    assert "attested: by one of the given keys" in done.stdout
