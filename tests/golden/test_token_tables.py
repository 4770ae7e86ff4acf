"""The token's number tables are append-only: a token sealed today must open tomorrow.

``token_tables.json`` holds every table of ``api/state_codec.py`` as it stood when it was
written; each table now must start with those entries, in that order. A new entry is
appended to the table and may be added here; an entry removed, renamed or moved fails.
"""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path

from baloot_engine.api import state_codec
from baloot_engine.rules.ruleset import FEDERATION, KAMMELNA, SEEDS

GOLDEN = json.loads((Path(__file__).parent / "token_tables.json").read_text())


def _name(value: object) -> object:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, Enum):
        return value.name
    return getattr(value, "name", value)


def test_the_layout_is_the_golden_one() -> None:
    assert GOLDEN["layout"] == state_codec.LAYOUT


def test_every_table_keeps_its_numbers() -> None:
    tables = {
        "phases": state_codec.PHASES,
        "qayd_categories": state_codec.QAYD_CATEGORIES,
        "bid_stages": state_codec.BID_STAGES,
        "doubling_steps": state_codec.DOUBLING_STEPS,
        "bid_kinds": state_codec.BID_KINDS,
        "calls": state_codec.CALLS,
        "modes": state_codec.MODES,
        "project_kinds": state_codec.PROJECT_KINDS,
    }
    for table, values in tables.items():
        names = [_name(v) for v in values]
        golden = GOLDEN[table]
        assert names[: len(golden)] == golden, table


def test_the_presets_keep_their_numbers() -> None:
    presets = {"SEEDS": SEEDS, "KAMMELNA": KAMMELNA, "FEDERATION": FEDERATION}
    golden = [presets[name] for name in GOLDEN["presets"]]
    assert list(state_codec.PRESETS[: len(golden)]) == golden


def test_every_rule_flag_keeps_its_number_and_its_values_theirs() -> None:
    flags = state_codec.FLAGS
    for number, (flag, values) in enumerate(GOLDEN["flags"]):
        assert flags[number] == flag, number
        now = [_name(v) for v in state_codec._flag_values(flag)]
        assert now[: len(values)] == values, flag
