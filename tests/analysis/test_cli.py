"""``baloot-analyze``: a record file's report, its refusals and its progress bar."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest
from google.protobuf import json_format

from baloot.v1 import records_pb2
from baloot_engine.analysis.selfplay import play_record
from baloot_engine.api.analysis import RecordRefusedError, prepare, record_message
from baloot_engine.api.analyze_cli import main
from baloot_engine.bots import Level


@cache
def record_json() -> str:
    start, rounds = play_record([Level.BASIC] * 4, 3, max_rounds=1)
    return json_format.MessageToJson(record_message(start, rounds), indent=2)


def test_the_report_lists_the_round_the_mistakes_and_the_seats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "record.json"
    path.write_text(record_json(), encoding="utf-8")
    assert main([str(path), "--depth", "quick", "--progress"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("Round 1: ")
    assert " par " in out
    assert "instead of" in out
    assert "seat  decisions  accuracy  mean fair loss" in out
    assert "decisions" in err  # the progress bar
    assert "Match: 1 rounds analysed" in out
    assert err.rstrip().endswith("s")


def test_json_lines_and_arabic(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "record.json"
    path.write_text(record_json(), encoding="utf-8")
    assert main([str(path), "--depth", "quick", "--json", "--seats", "1", "--lang", "ar"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["type"] for line in lines][-2:] == ["round", "match"]
    assert {line["seat"] for line in lines if line["type"] == "decision"} == {1}
    assert all(
        "بدل" in line["explanation"]["ar"] or ":" in line["explanation"]["ar"]
        for line in lines
        if line["type"] == "decision"
    )
    assert main([str(path), "--depth", "quick", "--rounds", "1", "--lang", "ar"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("الجولة 1: ")  # rounds are numbered from 1, as a score sheet does
    assert "صن" in out or "حكم" in out
    # Every word of the Arabic report is Arabic: no Latin letter is left.
    assert not re.search("[A-Za-z]", out), out
    assert "الصكة: الجولات المحللة 1" in out
    # --rounds numbers the rounds as the report does: there is no round 0.
    assert main([str(path), "--depth", "quick", "--rounds", "0"]) == 2
    assert "from 1" in capsys.readouterr().err


def test_a_record_that_does_not_verify_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = json_format.Parse(record_json(), records_pb2.MatchRecord())
    record.rounds[0].score.teams[0].final_points += 1
    path = tmp_path / "record.json"
    path.write_text(json_format.MessageToJson(record), encoding="utf-8")
    assert main([str(path)]) == 2
    assert "RECORD_DIVERGES" in capsys.readouterr().err
    with pytest.raises(RecordRefusedError) as refused:
        prepare(record)
    assert refused.value.divergence is not None
    assert refused.value.divergence.round_index == 0
    assert main([str(tmp_path / "missing.json")]) == 2
