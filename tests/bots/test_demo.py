"""The demo plays matches between levels and prints the score sheet."""

from __future__ import annotations

import pytest

from baloot_engine.bots import demo


def test_the_demo_prints_a_score_sheet(capsys: pytest.CaptureFixture[str]) -> None:
    assert demo.main(["--levels", "basic:random", "--matches", "1", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "team 0 = BASIC" in out
    assert "totals" in out
    assert "wins" in out
    assert out.strip().splitlines()[-1] in ("BASIC 1 - 0 RANDOM", "BASIC 0 - 1 RANDOM")
