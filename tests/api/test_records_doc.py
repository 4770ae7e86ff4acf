"""The JSON examples of docs/records.md are records that verify."""

from __future__ import annotations

import re
from pathlib import Path

from baloot_client import EngineClient
from baloot_client.records import from_json

from baloot.v1 import records_pb2

DOC = Path(__file__).resolve().parents[2] / "docs" / "records.md"


def _blocks() -> list[str]:
    return re.findall(r"```json\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)


def test_the_documented_one_round_record_verifies(client: EngineClient) -> None:
    _, block = _blocks()
    record = from_json(block)
    assert len(record.rounds) == 1
    answer = client.verify_record(record)
    assert answer.valid, answer.divergence
    assert list(answer.sheet) == [record.rounds[0].score]
    assert answer.actions_replayed == len(record.rounds[0].actions)


def test_the_documented_table_play_record_verifies_with_its_close(client: EngineClient) -> None:
    table, block = _blocks()
    record, plain = from_json(table), from_json(block)
    assert record.rules.illegal_moves_allowed
    actions = record.rounds[0].actions
    assert actions[-1] == records_pb2.RecordedAction(close_review=True)
    assert list(actions[:-1]) == list(plain.rounds[0].actions)
    answer = client.verify_record(record)
    assert answer.valid, answer.divergence
    assert list(answer.sheet) == [record.rounds[0].score] == [plain.rounds[0].score]
    assert answer.actions_replayed == len(actions)
    # Without the close the round stops in its review: the recorded score is then wrong.
    del actions[-1]
    assert not client.verify_record(record).valid
