"""The README documents every setting the server reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from baloot_engine.server.settings import SETTINGS, SettingSpec

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.mark.parametrize("spec", SETTINGS, ids=lambda spec: spec.name)
def test_the_configuration_table_lists_every_setting(spec: SettingSpec) -> None:
    rows = [line for line in README.read_text().splitlines() if line.startswith(f"| `{spec.env}`")]
    assert len(rows) == 1, f"README.md needs one configuration row for {spec.env}"
    flag_cell = rows[0].split("|")[2].strip()
    assert flag_cell == (f"`{spec.option}`" if spec.flag else "—")
