"""The JSON example of docs/records.md is a record that verifies."""

from __future__ import annotations

import re
from pathlib import Path

from baloot_client import EngineClient
from baloot_client.records import from_json

DOC = Path(__file__).resolve().parents[2] / "docs" / "records.md"


def test_the_documented_one_round_record_verifies(client: EngineClient) -> None:
    (block,) = re.findall(r"```json\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    record = from_json(block)
    assert len(record.rounds) == 1
    answer = client.verify_record(record)
    assert answer.valid, answer.divergence
    assert list(answer.sheet) == [record.rounds[0].score]
    assert answer.actions_replayed == len(record.rounds[0].actions)
