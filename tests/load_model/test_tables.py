"""The card-game load model's pure parts (``loadtest/tables.py``): the think-time distribution,
the bot mixes, the rounds' Sawa and Qayd plans, the pass rule, the capacity and the sweep's
next step, and the chart."""

from __future__ import annotations

import random
import statistics
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from loadtest import tables  # noqa: E402 - needs the repository root on the path


def test_think_times_are_clipped_log_normal_around_the_median() -> None:
    think = tables.ThinkTime()
    rng = random.Random(7)
    draws = [think.draw(rng) for _ in range(20_000)]
    assert min(draws) == think.low
    assert max(draws) == think.high
    assert statistics.median(draws) == pytest.approx(think.median, rel=0.03)
    clipped = sum(d in (think.low, think.high) for d in draws) / len(draws)
    assert clipped == pytest.approx(think.clipped_share(), abs=0.01)
    assert 0.03 < think.clipped_share() < 0.12  # a few percent, not a uniform in disguise


@given(st.floats(0.01, 1.0), st.integers(0, 2**32))
def test_a_scaled_think_time_stays_within_the_scaled_bounds(scale: float, seed: int) -> None:
    think = tables.ThinkTime(scale=scale)
    value = think.draw(random.Random(seed))
    assert think.low * scale <= value <= think.high * scale


@pytest.mark.parametrize(
    ("text", "mix"),
    [
        ("none", tables.BotMix(None)),
        ("strong:1", tables.BotMix("strong", 1, 1)),
        ("Learned:0-3", tables.BotMix("learned", 0, 3)),
        ("expert:3", tables.BotMix("expert", 3, 3)),
    ],
)
def test_mixes_parse_and_print_back(text: str, mix: tables.BotMix) -> None:
    assert tables.parse_mix(text) == mix
    assert tables.parse_mix(mix.name) == mix


@pytest.mark.parametrize("text", ["strong:4", "basic:2-1", "random:1", "strong", "", "learned:x"])
def test_bad_mixes_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match=r"."):
        tables.parse_mix(text)


@pytest.mark.parametrize("level", sorted(tables.LEVELS))
def test_tables_draw_every_bot_count_of_the_range_and_keep_a_person(level: str) -> None:
    mix = tables.BotMix(level, 0, 3)
    rng = random.Random(3)
    counts = set()
    for _ in range(400):
        seats = mix.seats(rng)
        assert len(seats) == 4
        assert set(seats) <= {None, level}
        counts.add(sum(seat is not None for seat in seats))
    assert counts == {0, 1, 2, 3}
    assert tables.BotMix(None).seats(rng) == (None, None, None, None)


def test_round_plans_follow_their_rates() -> None:
    rng = random.Random(11)
    plans = [tables.plan_round(rng, 0.10, 0.05) for _ in range(20_000)]
    sawa = [p.sawa_from for p in plans if p.sawa_from is not None]
    qayd = [p.qayd_after for p in plans if p.qayd_after is not None]
    assert len(sawa) / len(plans) == pytest.approx(0.10, abs=0.01)
    assert len(qayd) / len(plans) == pytest.approx(0.90 * 0.05, abs=0.008)
    assert set(sawa) == {5, 6, 7, 8}
    assert set(qayd) == set(range(1, 8))
    assert not any(p.sawa_from is not None and p.qayd_after is not None for p in plans)
    assert tables.plan_round(rng, 0.0, 0.0) == tables.RoundPlan(None, None)


def _step(tables_: int, p99: dict[str, float], n: int = 200, **extra: object) -> tables.StepResult:
    result = tables.StepResult(mix="none", tables=tables_, window=30, think_scale=1.0, calls=n)
    result.latency_ms = {k: {"p50": v / 2, "p99": v, "max": v, "n": n} for k, v in p99.items()}
    for key, value in extra.items():
        setattr(result, key, value)
    return result


def test_a_step_passes_by_each_rpcs_p99_above_its_floor() -> None:
    assert _step(8, {"PlayCard": 99.0, "GetView": 100.0}).passed()
    assert not _step(8, {"PlayCard": 101.0}).passed()
    # A judged call leaves on a 100 ms step; an EXPERT decision searches for its budget.
    assert _step(8, {"CallQayd": 199.0, "ApplyBotAction EXPERT": 599.0}).passed()
    assert _step(8, {"PlayCard sawa": 201.0}).over() == {"PlayCard sawa": 201.0}
    assert not _step(8, {"ApplyBotAction STRONG": 120.0}).passed()  # no floor for STRONG


def test_errors_refusals_and_rare_rpcs() -> None:
    assert not _step(8, {"PlayCard": 5.0}, errors={"PlayCard INTERNAL": 1}).passed()
    assert not _step(8, {"PlayCard": 5.0}, refusals={"ApplyBotAction QUOTA_EXCEEDED": 2}).passed()
    assert not _step(8, {}, n=0).passed()
    # Under a hundred calls a p99 is only the slowest call: such an RPC is judged by its p50.
    rare = _step(8, {"CallQayd": 300.0}, n=tables.MIN_CALLS - 1)  # p50 150 ms, floor 100
    assert rare.passed()
    assert rare.by_median() == ["CallQayd"]
    assert not _step(8, {"CallQayd": 300.0}, n=tables.MIN_CALLS).passed()
    slow = _step(8, {"ApplyBotAction EXPERT": 2000.0}, n=10)  # p50 1000 ms, floor 500
    assert slow.over() == {"ApplyBotAction EXPERT": 1000.0}
    few = _step(8, {"PlayCard sawa": 900.0}, n=tables.MIN_MEDIAN_CALLS - 1)
    assert few.passed()
    assert few.unjudged() == ["PlayCard sawa"]


def test_capacity_is_the_last_pass_below_the_first_failure() -> None:
    steps = [
        _step(8, {"PlayCard": 10.0}),
        _step(32, {"PlayCard": 300.0}),
        _step(16, {"PlayCard": 40.0}),
        _step(64, {"PlayCard": 50.0}),  # a pass above a failure (noise) does not count
    ]
    assert tables.capacity(steps) == 16
    assert tables.capacity([_step(8, {"PlayCard": 300.0})]) == 0
    assert tables.capacity([]) == 0


@given(st.lists(st.tuples(st.integers(1, 1000), st.booleans()), max_size=12))
def test_capacity_is_a_passing_step_below_every_failure(runs: list[tuple[int, bool]]) -> None:
    steps = [_step(n, {"PlayCard": 10.0 if ok else 500.0}) for n, ok in runs]
    best = tables.capacity(steps)
    assert best == 0 or any(s.tables == best and s.passed() for s in steps)
    assert all(best < s.tables for s in steps if not s.passed())


def test_the_sweep_climbs_the_ladder_then_refines_once() -> None:
    ladder = [8, 16, 32, 64]
    assert tables.next_tables([], ladder, refine=True) == 8
    steps = [_step(8, {"PlayCard": 10.0}), _step(16, {"PlayCard": 10.0})]
    assert tables.next_tables(steps, ladder, refine=True) == 32
    steps.append(_step(32, {"PlayCard": 500.0}))
    assert tables.next_tables(steps, ladder, refine=False) is None
    assert tables.next_tables(steps, ladder, refine=True) == 24
    steps.append(_step(24, {"PlayCard": 10.0}))
    assert tables.next_tables(steps, ladder, refine=True) is None  # one refinement only
    close = [_step(16, {"PlayCard": 10.0}), _step(17, {"PlayCard": 500.0})]
    assert tables.next_tables(close, [16, 17], refine=True) is None  # close enough
    passing = [_step(n, {"PlayCard": 10.0}) for n in ladder]
    assert tables.next_tables(passing, ladder, refine=True) is None  # the ladder's top


def test_the_chart_is_svg_with_a_line_per_mix_and_the_limit() -> None:
    results = {
        "none": [_step(8, {"PlayCard": 10.0}), _step(16, {"PlayCard": 300.0})],
        "strong:3": [_step(8, {"ApplyBotAction STRONG": 60.0})],
    }
    svg = tables.chart(results, "title")
    root = ET.fromstring(svg)  # noqa: S314 - our own output
    ns = "{http://www.w3.org/2000/svg}"
    assert len(root.findall(f"{ns}polyline")) == 4  # p99 and p50 of each mix
    texts = [t.text for t in root.iter(f"{ns}text")]
    assert "100 ms" in texts
    assert "none: 8 tables" in texts
    assert "strong:3: 8 tables" in texts
    table = tables.markdown(results)
    assert "| none | 8 | 16 | PlayCard p99 300 ms |" in table


def test_the_cost_table_is_a_ratio_to_the_people_only_mix_of_the_run() -> None:
    people = _step(32, {"PlayCard": 10.0}, n=1500, service_cores=0.065, service_idle_cores=0.005)
    bots = _step(32, {"PlayCard": 10.0}, n=3000, service_cores=0.185, service_idle_cores=0.005)
    assert people.calls_cores == pytest.approx(0.06)
    assert people.tables_per_busy_core == pytest.approx(32 / 0.06)
    assert people.service_ms_per_call == pytest.approx(0.06 * 30 * 1000 / 1500)
    table = tables.cost_table({"none": [people], "strong:3": [bots]})
    assert "| none | 32 | 1.56 | 1.88 | 1.00x |" in table
    assert "| strong:3 | 32 | 3.12 | 5.62 | 3.00x |" in table
