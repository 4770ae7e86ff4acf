"""The screen: a small day of records screened end to end, the same bytes on every executor
and on every run, a resumed run, a refused record, and a planted cheater flagged."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import tomllib
from functools import cache
from pathlib import Path

import pytest
from google.protobuf import json_format
from hypothesis import given, settings
from hypothesis import strategies as st

from baloot_engine.analysis.fairplay import GAIN_LIMIT, PEEKS
from baloot_engine.analysis.selfplay import play_record
from baloot_engine.api.analysis import record_message
from baloot_engine.api.screen_cli import load_record, main
from baloot_engine.bots import Level, suggest
from baloot_engine.rules.actions import Action
from baloot_engine.rules.state import Phase, State
from baloot_engine.screening import SerialExecutor, screen, stage1_unit, units_of
from baloot_engine.screening.driver import Unit
from baloot_engine.screening.executors import RayExecutor, ray_available
from baloot_engine.screening.stage1 import (
    CALL_LIMIT,
    GROUPS,
    STAGE1_BUDGET,
    row_counts,
    stage1_rows,
)
from baloot_engine.screening.stats import THRESHOLDS, predicted_tail, set_score, summed

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from fairplay_bots import cheat
from screen_bots import bidding_cheat

ROOT = Path(__file__).resolve().parents[2]
HONEST_SEEDS = (1, 2)
PLANTED_SEEDS = (1, 2, 3)


@cache
def honest_text(seed: int) -> str:
    start, rounds = play_record([Level.BASIC] * 4, seed, max_rounds=3)
    return json_format.MessageToJson(record_message(start, rounds), indent=None) + "\n"


def planted(state: State, seat: int, seed: int) -> Action:
    """Seat 0 sees every hand: the solver's card on the real position at the cards, and its
    bids and doubling calls taken on the real deal; the other seats are honest BASIC."""
    if seat != 0:
        return suggest(state, seat, Level.BASIC, seed=seed)
    if state.phase is Phase.PLAYING:
        return cheat(state, seat, Level.EXPERT, "all", seed)
    return bidding_cheat(state, seat, seed)


@cache
def planted_text(seed: int) -> str:
    """A match of the planted cheater (:func:`planted`)."""
    start, rounds = play_record([Level.BASIC] * 4, seed, decide=planted)
    return json_format.MessageToJson(record_message(start, rounds), indent=None) + "\n"


@cache
def honest_rows(seed: int) -> tuple[dict[str, object], ...]:
    start, rounds = load_record(honest_text(seed).encode())
    return tuple(stage1_rows(start, rounds, record="x", digest="0"))


def write_day(folder: Path, *, planted: bool = False, garbage: bool = False) -> Path:
    day = folder / "day"
    (day / "honest").mkdir(parents=True)
    for seed in HONEST_SEEDS:
        (day / "honest" / f"{seed}.json").write_text(honest_text(seed), encoding="utf-8")
    if planted:
        (day / "planted").mkdir()
        for seed in PLANTED_SEEDS:
            (day / "planted" / f"{seed}.json").write_text(planted_text(seed), encoding="utf-8")
    if garbage:
        (day / "honest" / "broken.json").write_text('{"rounds": 3}', encoding="utf-8")
    return day


def outputs(out: Path) -> dict[str, bytes]:
    return {
        p.relative_to(out).as_posix(): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and p.name != "last_run.json"
    }


def test_a_unit_is_a_pure_function_of_its_record() -> None:
    unit = Unit("honest/1.json", "honest", honest_text(1).encode())
    first = stage1_unit(unit, load_record, STAGE1_BUDGET, 0)
    assert first == stage1_unit(unit, load_record, STAGE1_BUDGET, 0)
    rows = [json.loads(line) for line in first.splitlines()]
    assert [r["group"] for r in rows] == [",".join(map(str, g)) for g in GROUPS]
    for row in rows:
        assert row["sha256"] == unit.digest
        assert {"engine", "solver", "model", "worlds", "call_deals", "seed"} <= set(row)
        assert row["card_n"] > 0
        assert row["call_n"] > 0
    # another seed samples other worlds: other figures, the same decisions
    other = [json.loads(x) for x in stage1_unit(unit, load_record, STAGE1_BUDGET, 1).splitlines()]
    assert [r["card_n"] for r in other] == [r["card_n"] for r in rows]
    assert other != rows


def test_a_partnership_row_is_its_seats_added() -> None:
    rows = {str(r["group"]): r for r in honest_rows(2)}
    for pair in ("0,2", "1,3"):
        a, b = pair.split(",")
        added = summed([rows[a], rows[b]])
        found = row_counts(rows[pair])
        assert found.card.decisions == added.card.decisions
        assert found.call.n == added.call.n
        assert found.call.telling == added.call.telling
        assert found.call.gain_squares == pytest.approx(added.call.gain_squares, abs=1e-5)
        for knowledge in PEEKS:
            mine, theirs = found.card.counts[knowledge], added.card.counts[knowledge]
            assert mine.hits == theirs.hits
            assert mine.gain_sum == pytest.approx(theirs.gain_sum, abs=1e-5)


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(HONEST_SEEDS), st.sampled_from(range(len(GROUPS))))
def test_every_gain_is_bounded(seed: int, group: int) -> None:
    counts = row_counts(dict(honest_rows(seed)[group]))
    for knowledge in PEEKS:
        count = counts.card.counts[knowledge]
        assert count.gain_squares <= count.gain_decisions * GAIN_LIMIT**2 + 1e-6
        assert 0 <= count.hits <= count.telling <= counts.card.decisions
    assert counts.call.gain_squares <= counts.call.n * CALL_LIMIT**2 + 1e-6
    assert 0 <= counts.call.hits <= counts.call.telling <= counts.call.n


def test_a_day_screened_twice_gives_the_same_bytes_and_skips_what_is_done(
    tmp_path: Path,
) -> None:
    day = write_day(tmp_path, garbage=True)
    out = tmp_path / "out"
    first = screen([day], out, load_record, SerialExecutor())
    assert first.records == 3
    assert first.screened == 3
    assert first.refused == 1
    before = outputs(out)
    assert "stage1.jsonl" in before
    assert "sets.jsonl" in before
    assert "summary.svg" in before
    again = screen([day], out, load_record, SerialExecutor())
    assert again.screened == 0
    assert again.skipped == 3
    assert outputs(out) == before
    # an interrupted run: the rows of one record only; the next run screens the others
    lines = (out / "stage1.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (out / "stage1.jsonl").write_text("".join(lines[:6]), encoding="utf-8")
    resumed = screen([day], out, load_record, SerialExecutor())
    assert resumed.screened == 2
    assert resumed.skipped == 1
    assert outputs(out) == before


def test_another_budget_screens_again(tmp_path: Path) -> None:
    day = write_day(tmp_path)
    out = tmp_path / "out"
    screen([day], out, load_record, SerialExecutor())
    other = screen([day], out, load_record, SerialExecutor(), seed=5)
    assert other.screened == 2


# The screen extra is in `dev`: in CI (``CI`` set) a missing Ray or pyarrow fails these tests
# rather than skipping them.
_CI = bool(os.environ.get("CI"))


@pytest.mark.skipif(
    not ray_available() and not _CI, reason="the screen extra (ray) is not installed"
)
def test_ray_and_the_serial_executor_write_the_same_bytes(tmp_path: Path) -> None:
    day = write_day(tmp_path)
    serial = tmp_path / "serial"
    screen([day], serial, load_record, SerialExecutor())
    executor = RayExecutor(num_cpus=1)
    try:
        screen([day], tmp_path / "ray", load_record, executor)
    finally:
        executor.close()
    assert outputs(tmp_path / "ray") == outputs(serial)


def test_a_planted_cheater_is_flagged_with_its_evidence(tmp_path: Path) -> None:
    day = write_day(tmp_path, planted=True)
    out = tmp_path / "out"
    result = screen([day], out, load_record, SerialExecutor(), stage2_worlds=2)
    sets = [json.loads(x) for x in (out / "sets.jsonl").read_text(encoding="utf-8").splitlines()]
    by = {(s["set"], s["group"]): s for s in sets}
    cheater = by[("planted", "0")]
    assert cheater["reported"]
    assert cheater["score"] >= THRESHOLDS["seat"]
    assert not any(s["reported"] for s in sets if s["set"] == "honest")
    assert {(r["set"], r["group"]) for r in result.reported} >= {("planted", "0")}
    document = json.loads((out / "stage2" / "planted.json").read_text(encoding="utf-8"))
    assert document["set"] == "planted"
    assert "0" in document["groups"]
    seat0 = next(r for r in document["fair_play"] if r["seats"] == [0])
    assert any(score["flagged"] for score in seat0["scores"])
    cards = document["evidence"]["cards"]
    flagged_seats = {int(x) for group in document["groups"] for x in group.split(",")}
    assert cards
    assert all(c["seat"] in flagged_seats for c in cards)
    assert cards[0]["gain"] >= cards[-1]["gain"]
    assert len(cards[0]["deal"]) == 32
    assert document["minimum_sample"]["screen_card_decisions"] > 0
    # the command line says so by its exit code, and a second run does nothing new
    assert main([str(day), "--out", str(out), "--executor", "serial", "--stage2-worlds", "2"]) == 1
    run = json.loads((out / "last_run.json").read_text())
    assert run["screened_now"] == 0
    assert run["stage2_done"] == 0
    assert run["stage2_skipped"] == 1


def test_the_command_line_screens_an_honest_day(tmp_path: Path) -> None:
    day = write_day(tmp_path)
    out = tmp_path / "out"
    assert main([str(day), "--out", str(out), "--executor", "serial", "--no-stage2"]) == 0
    assert len((out / "stage1.jsonl").read_text().splitlines()) == 2 * len(GROUPS)
    with pytest.raises(SystemExit):
        main([str(tmp_path / "nothing"), "--out", str(out)])


def test_the_model_tail_is_the_larger_of_independent_normals() -> None:
    assert predicted_tail(0.0, 1) == pytest.approx(0.5)
    assert predicted_tail(0.0, 2) == pytest.approx(0.75)
    assert predicted_tail(4.0, 5) == pytest.approx(5 * 3.167e-5, rel=1e-2)


def test_too_few_decisions_give_no_verdict() -> None:
    row = honest_rows(1)[0]
    found = set_score(row_counts(dict(row)))
    assert found.card is None or row["card_n"] >= 60
    empty = set_score(summed([]))
    assert empty.score is None
    assert empty.parts == 0


def test_units_are_read_from_folders_and_streams(tmp_path: Path) -> None:
    day = write_day(tmp_path)
    stream = tmp_path / "stream.jsonl"
    stream.write_text(honest_text(1) + "\n" + honest_text(2), encoding="utf-8")
    units = units_of([day, stream])
    names = [u.record for u in units]
    assert names == sorted(names)
    assert {"honest/1.json", "honest/2.json", "stream.jsonl:1", "stream.jsonl:3"} == set(names)


@pytest.mark.skipif(
    importlib.util.find_spec("pyarrow") is None and not _CI,
    reason="the screen extra (pyarrow) is absent",
)
def test_the_rows_are_written_as_parquet_too(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    day = write_day(tmp_path)
    out = tmp_path / "out"
    screen([day], out, load_record, SerialExecutor(), parquet=True, stage2=False)
    table = pq.read_table(out / "stage1.parquet").to_pylist()
    lines = [json.loads(x) for x in (out / "stage1.jsonl").read_text().splitlines()]
    assert table == [{k: row.get(k) for k in sorted(table[0])} for row in lines]


def test_only_the_executors_import_ray_and_only_the_driver_pyarrow() -> None:
    """The `screen` extra is optional: Ray and pyarrow are imported inside the functions that
    need them, in one module each, and nothing of the service imports the screen."""
    from tests.test_layers import MODULES, imported_modules, module_name

    found: dict[str, set[str]] = {}
    for path in MODULES:
        module = module_name(path)
        source = path.read_text(encoding="utf-8")
        for name in imported_modules(module, source, is_package=path.name == "__init__.py"):
            top = name.split(".")[0]
            if top in ("ray", "pyarrow"):
                found.setdefault(top, set()).add(module)
            if name.startswith("baloot_engine.screening") and not module.startswith(
                ("baloot_engine.screening", "baloot_engine.api.screen_cli")
            ):
                found.setdefault("screening", set()).add(module)
    assert found == {
        "ray": {"baloot_engine.screening.executors"},
        "pyarrow": {"baloot_engine.screening.driver"},
    }
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    assert {r.split(">")[0] for r in extras["screen"]} == {"ray", "pyarrow"}
    assert "screen" in extras["dev"][0]  # CI runs the screen on a real Ray
    assert not any(d.startswith(("ray", "pyarrow")) for d in project["dependencies"])
    assert project["scripts"]["baloot-screen"] == "baloot_engine.api.screen_cli:main"
