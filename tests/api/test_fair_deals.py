"""Provably fair deals over a real channel (docs/fair-deals.md): CreateMatch's commitment, the
key disclosed at the match's end or at every scored round (never a later round's), records
that prove their decks, and a server that changed a deck after the commitment caught by
VerifyRecord and by the standalone verifier."""

from __future__ import annotations

import json
import random
from typing import Any

import grpc
import pytest
from baloot_client import EngineClient, Match
from baloot_client.records import to_json

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import records_pb2, rules_pb2, types_pb2
from baloot_engine.api.matches import Matches, Opened
from baloot_engine.api.records import total_steps
from baloot_engine.api.sealing import KeyRing
from baloot_engine.api.state_codec import DEALING_VOID
from baloot_engine.rules import fairdeal
from tests.api.conftest import expect_refusal, open_token
from tests.api.test_servicer_records import play_out, verify

REVEALED = types_pb2.EVENT_KIND_ROUND_REVEALED
SCORED = types_pb2.EVENT_KIND_ROUND_SCORED
SHORT = rules_pb2.RuleSet(preset=rules_pb2.PRESET_SEEDS, match_target=60)
EACH_ROUND = types_pb2.DEAL_DISCLOSURE_EACH_ROUND


def _reveals(responses: list[Any]) -> list[types_pb2.RoundReveal]:
    return [e.reveal for events in responses for e in events if e.kind == REVEALED]


def _decks_are_committed(record: records_pb2.MatchRecord, secret: bytes) -> None:
    scored = [r.HasField("score") for r in record.rounds]
    for recorded, (round_number, redeals) in zip(
        record.rounds, fairdeal.round_positions(scored), strict=True
    ):
        key = fairdeal.round_key(secret, round_number)
        assert tuple(recorded.deck_order) == fairdeal.committed_deck(key, redeals)


def _long_match(client: EngineClient, seed: int, **options: Any) -> tuple[Match, list[Any]]:
    """A short match played to its end with random legal actions, over two rounds or more."""
    for attempt in range(20):
        match = client.create_match(SHORT, first_dealer=attempt % 4, **options)
        responses = play_out(match, random.Random(seed + attempt))
        if sum(r.HasField("score") for r in match.record.rounds) >= 2:
            return match, responses
    raise AssertionError("no match lasted two rounds")


def test_create_match_returns_the_commitment(client: EngineClient, keys: KeyRing) -> None:
    match = client.create_match(SHORT)
    committed = match.record.deal_commitment
    assert committed.scheme == fairdeal.SCHEME
    assert committed.rounds == fairdeal.CHAIN_ROUNDS
    assert committed.disclosure == types_pb2.DEAL_DISCLOSURE_AT_MATCH_END
    assert len(committed.commitment) == 32
    # The commitment is key[0] of the chain of the match's secret (sealed in its token).
    decoded = open_token(keys, match.match_id, match.state)
    secret = fairdeal.dealing_secret(decoded.seed)
    assert committed.commitment == fairdeal.commitment(secret)
    per_round = client.create_match(SHORT, deal_disclosure=EACH_ROUND).record.deal_commitment
    assert per_round.disclosure == EACH_ROUND
    assert per_round.commitment != committed.commitment


def test_a_played_match_discloses_its_key_at_the_end_and_its_record_proves_its_decks(
    client: EngineClient, keys: KeyRing
) -> None:
    match, responses = _long_match(client, 10)
    record = match.record
    reveals = _reveals(responses)
    # Only the reveal of the round that ended the match carries the key.
    assert [r.HasField("deal_key") for r in reveals] == [False] * (len(reveals) - 1) + [True]
    rounds = sum(r.HasField("score") for r in record.rounds)
    assert record.deal_key.round == rounds
    committed = bytes(record.deal_commitment.commitment)
    assert fairdeal.key_matches(bytes(record.deal_key.key), rounds, committed)
    _decks_are_committed(
        record, fairdeal.dealing_secret(open_token(keys, match.match_id, match.state).seed)
    )
    verified = verify(client, record)
    assert verified.valid, verified.divergence
    assert verified.deals_proven
    assert verified.rounds_proven == len(record.rounds)
    # The standalone verifier reads the record's JSON form the same way.
    check = fairdeal.check_record_json(json.loads(to_json(record)))
    assert check is not None
    assert (check.proven, check.complete, check.bad_round) == (len(record.rounds), True, None)


def test_each_round_discloses_that_round_s_key_never_a_later_one(client: EngineClient) -> None:
    match, responses = _long_match(client, 40, deal_disclosure=EACH_ROUND)
    committed = bytes(match.record.deal_commitment.commitment)
    scored_so_far = 0
    hands_dealt = 0
    for events in responses:
        kinds = [e.kind for e in events]
        hands_dealt += kinds.count(types_pb2.EVENT_KIND_CARDS_DEALT)
        for event in events:
            if event.kind == SCORED:
                scored_so_far += 1
            if event.kind != REVEALED:
                continue
            reveal = event.reveal
            if SCORED not in kinds:
                assert not reveal.HasField("deal_key")  # a redeal: its round is not over
                continue
            key = reveal.deal_key
            # The key of the round just scored, every hand of which is over: never a later one.
            assert key.round == scored_so_far
            assert fairdeal.key_matches(bytes(key.key), key.round, committed)
            assert not fairdeal.key_matches(bytes(key.key), key.round + 1, committed)
    record = match.record
    verified = verify(client, record)
    assert verified.valid, verified.divergence
    assert verified.deals_proven
    # A record cut after its first round proves that round's hands only.
    first_scored = next(i for i, r in enumerate(record.rounds) if r.HasField("score"))
    cut = records_pb2.MatchRecord()
    cut.CopyFrom(record)
    del cut.rounds[first_scored + 1 :]
    cut.deal_key.round = 1
    cut.deal_key.key = fairdeal.earlier_key(bytes(record.deal_key.key), record.deal_key.round, 1)
    again = verify(client, cut)
    assert again.valid
    assert again.deals_proven
    assert again.rounds_proven == first_scored + 1


def test_a_changed_deck_or_key_is_caught(client: EngineClient) -> None:
    match, _ = _long_match(client, 70)
    record = match.record
    second = next(i for i, r in enumerate(record.rounds) if i and r.HasField("score"))
    forged = records_pb2.MatchRecord()
    forged.CopyFrom(record)
    deck = forged.rounds[second].deck_order
    deck[30], deck[31] = deck[31], deck[30]  # a card of the completion moved
    verified = verify(client, forged)
    assert not verified.valid
    assert verified.divergence.reason == "DEAL_NOT_COMMITTED"
    assert (verified.divergence.round_index, verified.divergence.action_index) == (second, 0)
    assert verified.rounds_proven == second
    assert not verified.deals_proven
    # ReplayRecord diverges where VerifyRecord does: its replay stops before the forged deck.
    before = sum(len(r.actions) for r in forged.rounds[:second])
    assert client.replay_record(forged, before).round_index == second - 1
    refused = expect_refusal(
        client.stub.ReplayRecord,
        pb.ReplayRecordRequest(record=forged, step=before + 1),
        grpc.StatusCode.FAILED_PRECONDITION,
        "RECORD_DIVERGES",
    )
    assert refused.metadata["divergence"] == "DEAL_NOT_COMMITTED"
    forged.CopyFrom(record)
    forged.deal_key.key = bytes(32)
    verified = verify(client, forged)
    assert (verified.valid, verified.divergence.reason) == (False, "DEAL_NOT_COMMITTED")
    assert verified.divergence.round_index == 0
    assert verified.actions_replayed == 0
    expect_refusal(
        client.stub.ReplayRecord,
        pb.ReplayRecordRequest(record=forged, step=total_steps(forged)),
        grpc.StatusCode.FAILED_PRECONDITION,
        "RECORD_DIVERGES",
    )


def test_a_server_that_deals_another_deck_after_the_commitment_is_caught(
    client: EngineClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    honest = Matches.next_deck

    def cheating(self: Matches, opened: Opened) -> tuple[int, ...]:
        deck = honest(self, opened)
        if opened.decoded.fields.rounds_scored == 1:  # round 2: give the dealer the buy card
            return (*deck[:19], deck[20], deck[19], *deck[21:])
        return deck

    monkeypatch.setattr(Matches, "next_deck", cheating)
    match, _ = _long_match(client, 90)
    monkeypatch.undo()
    record = match.record
    assert record.HasField("deal_key")  # the cheat discloses its key as if nothing happened
    bad = next(
        i for i, r in enumerate(record.rounds) if i and record.rounds[i - 1].HasField("score")
    )
    verified = verify(client, record)
    assert not verified.valid
    assert (verified.divergence.reason, verified.divergence.round_index) == (
        "DEAL_NOT_COMMITTED",
        bad,
    )
    check = fairdeal.check_record_json(json.loads(to_json(record)))
    assert check is not None
    assert check.bad_round == bad


def test_a_record_without_a_commitment_still_verifies_unproven(client: EngineClient) -> None:
    match, _ = _long_match(client, 120)
    record = records_pb2.MatchRecord()
    record.CopyFrom(match.record)
    record.ClearField("deal_commitment")
    record.ClearField("deal_key")
    verified = verify(client, record)
    assert verified.valid
    assert not verified.deals_proven
    assert verified.rounds_proven == 0
    # With the commitment but no key yet: valid, nothing proven.
    record.deal_commitment.CopyFrom(match.record.deal_commitment)
    verified = verify(client, record)
    assert verified.valid
    assert not verified.deals_proven


def test_a_preset_deck_makes_the_match_unprovable(client: EngineClient, keys: KeyRing) -> None:
    match = client.create_match(SHORT, first_dealer=0)
    match.deal(0, deck=list(range(32)))
    assert open_token(keys, match.match_id, match.state).fields.dealing == DEALING_VOID
    play_out(match, random.Random(5))
    assert not match.record.HasField("deal_key")  # no key is disclosed after a preset deck
    verified = verify(client, match.record)
    assert verified.valid
    assert not verified.deals_proven


def test_board_set_matches_share_their_commitment_and_only_the_host_gets_the_key(
    client: EngineClient,
) -> None:
    secret = "organiser-key-0002"
    flagged = rules_pb2.RuleSet(
        preset=rules_pb2.PRESET_SEEDS, match_target=60, reveal_hands_after_round=True
    )
    first = client.create_match(flagged, board_set="cup/fair", board_set_secret=secret)
    second = client.create_match(flagged, board_set="cup/fair", board_set_secret=secret)
    other = client.create_match(flagged, board_set="cup/fair", board_set_secret=secret + "x")
    commitments = [m.record.deal_commitment.commitment for m in (first, second, other)]
    assert commitments[0] == commitments[1] != commitments[2]
    responses = play_out(first, random.Random(7))
    assert first.record.HasField("deal_key")
    assert verify(client, first.record).deals_proven
    # The views show the last reveal (the flag) but never the board set's key, even the views
    # the host gets: a backend forwards them to the seats.
    for view in first.views:
        assert view.HasField("last_round_reveal")
        assert not view.last_round_reveal.HasField("deal_key")
    assert _reveals(responses)[-1].HasField("deal_key")  # the host's


@pytest.mark.parametrize("disclosure", [types_pb2.DEAL_DISCLOSURE_AT_MATCH_END, EACH_ROUND])
def test_replay_record_shows_the_keys_the_match_disclosed(
    client: EngineClient, disclosure: int
) -> None:
    match, responses = _long_match(client, 150, deal_disclosure=disclosure)
    record = match.record
    shown = 0
    for index, events in enumerate(responses):
        live = [e for e in events if e.kind == REVEALED]
        if not live:
            continue
        replayed = client.replay_record(record, index + 1)
        assert [e for e in replayed.events if e.kind == REVEALED] == live
        shown += live[0].reveal.HasField("deal_key")
    assert shown == (1 if disclosure != EACH_ROUND else record.deal_key.round)


def test_an_unknown_disclosure_is_refused(stub: Any) -> None:
    request = pb.CreateMatchRequest(deal_disclosure=7)  # no DealDisclosure has the value 7
    expect_refusal(stub.CreateMatch, request, grpc.StatusCode.INVALID_ARGUMENT, "REQUEST_INVALID")
