"""VerifyRecord tells a whole match from a prefix, and refuses a record of an unknown format or
whose preset contradicts its flags."""

from __future__ import annotations

import random

import grpc
import pytest
from baloot_client import EngineClient

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot.v1 import records_pb2, rules_pb2
from tests.api.conftest import Table, expect_refusal

SHORT = rules_pb2.RuleSet(preset=rules_pb2.PRESET_SEEDS, match_target=40)


@pytest.fixture(scope="module")
def whole_match(client: EngineClient) -> records_pb2.MatchRecord:
    """A whole short match of more than one round (a kaboot or a Gahwa can end one in its first)."""
    rng = random.Random(21)
    for _ in range(20):
        table = Table(client.create_match(SHORT), rng, seat_share=0)
        table.play()
        if len(table.match.record.rounds) >= 2:
            return table.match.record
    pytest.fail("20 short matches all ended in their first round")


def _copy(record: records_pb2.MatchRecord) -> records_pb2.MatchRecord:
    copied = records_pb2.MatchRecord()
    copied.CopyFrom(record)
    return copied


def test_a_whole_match_is_complete_and_a_prefix_is_not(
    client: EngineClient, whole_match: records_pb2.MatchRecord
) -> None:
    full = client.verify_record(whole_match)
    assert (full.valid, full.complete, full.last_round_over) == (True, True, True)

    at_a_round_end = _copy(whole_match)
    del at_a_round_end.rounds[-1]
    cut = client.verify_record(at_a_round_end)
    assert (cut.valid, cut.complete, cut.last_round_over) == (True, False, True)

    no_round = _copy(whole_match)
    del no_round.rounds[:]
    empty = client.verify_record(no_round)
    assert (empty.valid, empty.complete, empty.last_round_over) == (True, False, False)

    inside = _copy(whole_match)
    last = inside.rounds[-1]
    del last.actions[len(last.actions) // 2 :]
    last.ClearField("score")
    stopped = client.verify_record(inside)
    assert (stopped.valid, stopped.complete, stopped.last_round_over) == (True, False, False)


def test_an_unknown_format_is_refused(
    stub: pb_grpc.BalootEngineServiceStub, whole_match: records_pb2.MatchRecord
) -> None:
    for format_number in (0, 1):
        record = _copy(whole_match)
        record.format = format_number
        assert stub.VerifyRecord(pb.VerifyRecordRequest(record=record)).valid
    record = _copy(whole_match)
    record.format = 2
    for method, request in (
        (stub.VerifyRecord, pb.VerifyRecordRequest(record=record)),
        (stub.ReplayRecord, pb.ReplayRecordRequest(record=record, step=1)),
    ):
        expect_refusal(method, request, grpc.StatusCode.INVALID_ARGUMENT, "RECORD_FORMAT_UNKNOWN")


def test_a_preset_label_that_contradicts_the_flags_is_refused(
    stub: pb_grpc.BalootEngineServiceStub, whole_match: records_pb2.MatchRecord
) -> None:
    assert whole_match.rules.preset == rules_pb2.PRESET_SEEDS
    record = _copy(whole_match)
    record.rules.preset = rules_pb2.PRESET_KAMMELNA  # the flags are still SEEDS's
    expect_refusal(
        stub.VerifyRecord,
        pb.VerifyRecordRequest(record=record),
        grpc.StatusCode.INVALID_ARGUMENT,
        "RECORD_RULES_INCONSISTENT",
    )
    # With a flag left unset the label supplies it: no contradiction to find.
    partial = _copy(record)
    partial.rules.ClearField("sawa")
    assert stub.VerifyRecord(pb.VerifyRecordRequest(record=partial)).divergence.reason != (
        "RECORD_RULES_INCONSISTENT"
    )
