"""The whole-round vectors of ``rounds.json`` replay through the rules core to the same events
and score (the TypeScript client's tests replay them through a server too)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.golden.rounds import PATH, PRESETS, replay

VECTORS: list[dict[str, Any]] = json.loads(PATH.read_text())["rounds"]


def test_every_preset_has_vectors() -> None:
    assert {v["preset"] for v in VECTORS} == set(PRESETS)


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_a_round_replays_to_its_events_and_score(vector: dict[str, Any]) -> None:
    events, score = replay(vector)
    assert events == [step["events"] for step in vector["actions"]]
    assert score == vector["final_points"]
