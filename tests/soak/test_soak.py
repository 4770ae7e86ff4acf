"""The soak tool's readings and summary, the caches' inventory, and short real runs of the
soak and of the forged-state campaign (``loadtest/soak.py``, ``loadtest/forge.py``)."""

from __future__ import annotations

import functools
import importlib
import json
import pkgutil
import random
import sys
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry, generate_latest

import baloot_engine
from baloot_engine.api.sealing import KeyRing
from baloot_engine.api.state_codec import SEED_SIZE, decode, encode
from baloot_engine.rules.ruleset import SEEDS
from baloot_engine.server import caches

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from loadtest import forge, soak  # noqa: E402 - needs the repository root on the path

from tests.rules.strategies import play_match  # noqa: E402

MB = 1024 * 1024


def test_vm_rss_is_read_in_bytes() -> None:
    status = "Name:\tpython\nVmPeak:\t  200000 kB\nVmRSS:\t   90424 kB\nThreads:\t4\n"
    assert soak.parse_vm_rss(status) == 90424 * 1024
    assert soak.parse_vm_rss("Name:\tzombie\n") == 0


def test_the_slope_is_least_squares() -> None:
    assert soak.slope([(0, 1.0), (1, 3.0), (2, 5.0)]) == pytest.approx(2.0)
    assert soak.slope([(0, 1.0)]) == 0.0
    assert soak.slope([(1, 1.0), (1, 2.0)]) == 0.0


def _samples(rss_mb: list[float], every: float = 60.0) -> list[soak.Sample]:
    return [
        soak.Sample(i * every, int(mb * MB), 0, 100 * i, 1000, 40 * i)
        for i, mb in enumerate(rss_mb)
    ]


def test_the_summary_reads_warm_up_end_and_the_last_thirds_slope() -> None:
    # 60 MB, a warm-up to 80 MB in 3 minutes, then 0.5 MB a minute.
    rss = [60.0, 70.0, 78.0, 80.0] + [80.0 + 0.5 * i for i in range(1, 9)]
    summary = soak.summarize(_samples(rss), warmup=180)
    assert (summary.rss_start_mb, summary.rss_warm_mb) == (60.0, 80.0)
    assert summary.rss_end_mb == summary.rss_max_mb == 84.0
    assert summary.slope_last_third_mb_per_min == pytest.approx(0.5)
    assert summary.slope_after_warmup_mb_per_min == pytest.approx(0.5)
    assert summary.cache_fill == pytest.approx(1.1)  # 1,100 of 1,000: as the metrics said
    lines = soak.summary_lines(summary)
    assert "after the warm-up 80.0 MB" in lines[0]
    assert "+0.500 MB/min over the last third" in lines[1]


def test_a_flat_curve_has_no_slope() -> None:
    summary = soak.summarize(_samples([60.0, 75.0] + [80.0] * 10), warmup=120)
    assert summary.slope_last_third_mb_per_min == 0.0
    with pytest.raises(ValueError, match="no samples"):
        soak.summarize([], warmup=0)


def _filled() -> list[caches.Cache]:
    """The inventory after a match's states went through the codec."""
    states = play_match(random.Random(3), SEEDS)[:120]
    for state in states:
        decode(encode(state, bytes(SEED_SIZE), 10_000))
    return caches.inventory(KeyRing([bytes(range(32))]))


def test_the_cache_gauges_are_read_back_by_the_soak() -> None:
    inventory = _filled()
    registry = CollectorRegistry()
    registry.register(caches.CacheCollector(inventory))
    entries, capacity, by_cache = soak.cache_fill(generate_latest(registry).decode())
    assert capacity == sum(c.capacity for c in inventory)
    assert entries == sum(c.entries() for c in inventory) > 0
    assert by_cache["tricks_dec"][1] == 8192
    assert set(by_cache) == {c.name for c in inventory}


def test_every_cache_of_the_package_is_in_the_inventory_and_bounded() -> None:
    """A new ``lru_cache`` (or ``cache``) must be listed in server/caches.py, with a bound."""
    found = set()
    for module in pkgutil.walk_packages(baloot_engine.__path__, "baloot_engine."):
        if module.name.startswith(("baloot_engine.research", "baloot_engine.server.workers")):
            continue
        loaded = importlib.import_module(module.name)
        for name, value in vars(loaded).items():
            if hasattr(value, "cache_info") and getattr(value, "__module__", "") == module.name:
                found.add(f"{module.name.removeprefix('baloot_engine.')}.{name}")
    listed = {c.where for c in caches.inventory()}
    assert found <= listed, found - listed
    names = [c.name for c in caches.inventory(KeyRing([bytes(range(32))]))]
    assert len(set(names)) == len(names)
    for cache in caches.inventory():
        assert cache.capacity > 0, cache.name
        # The service's labels: short words (tests/api/test_servicer_matches.py).
        assert len(cache.name) <= 16, cache.name
        assert cache.name.replace("_", "").isalnum(), cache.name


def test_the_largest_entry_of_each_filled_cache_is_measured() -> None:
    sizes = caches.measure(_filled())
    filled = [s for s in sizes if s.entries]
    assert len(filled) >= 10
    for size in filled:
        assert size.largest_entry > caches.ENTRY_OVERHEAD, size
        assert size.bound == size.capacity * size.largest_entry
    tricks = next(s for s in sizes if s.where == "api.state_codec._decode_tricks")
    assert 500 < tricks.largest_entry < 20_000


def test_deep_size_counts_each_object_once_and_skips_what_is_shared() -> None:
    shared = "x" * 1000
    assert caches.deep_size((shared, shared)) < 2 * sys.getsizeof(shared)
    assert caches.deep_size(None) == caches.deep_size(True) == caches.deep_size(5) == 0
    assert caches.deep_size(functools.reduce) == 0


def test_the_last_memory_dump_is_read_from_the_log() -> None:
    def line(**fields: object) -> str:
        return json.dumps({"timestamp": "t", "level": "warning", **fields})

    log = [
        line(event="memory dump", dump="start"),
        line(
            event="memory cache",
            cache="a",
            entries=1,
            capacity=2,
            largest_entry_bytes=3,
            bound_bytes=6,
        ),
        line(event="memory dump", dump="end"),
        '{"event":"rpc","method":"/x"}',
        line(event="memory dump", dump="start"),
        line(event="memory traced", traced_bytes=MB, peak_bytes=2 * MB),
        line(
            event="memory growth",
            rank=1,
            where="f.py:3",
            size_bytes=10,
            size_diff_bytes=4,
            count=2,
            count_diff=1,
        ),
        line(
            event="memory cache",
            cache="b",
            entries=4,
            capacity=8,
            largest_entry_bytes=100,
            bound_bytes=800,
            where="api.b",
        ),
        line(event="memory dump", dump="end"),
        line(event="memory dump", dump="start"),  # cut short: not complete
    ]
    cached, allocations = soak.last_dump(log)
    assert cached == [soak.CacheBytes("b", 4, 8, 100, 800, "api.b")]
    assert [a["event"] for a in allocations] == ["memory traced", "memory growth"]
    printed = "\n".join(soak.dump_lines(cached, allocations))
    assert "f.py:3" in printed
    assert "caches at most 0.0 MB" in printed


@pytest.mark.slow
def test_a_short_soak_samples_the_server_and_reads_its_dump(tmp_path: Path) -> None:
    # Bounded by a count of calls, not by a time in which a loaded machine might make fewer:
    # at 30 calls a second, 150 calls take at least 5 s, so the samples at 0 s and 3 s are
    # taken while the load runs (the minutes are only a hang guard).
    out = tmp_path / "soak.json"
    code = soak.main(
        [
            "--minutes",
            "10",
            "--calls",
            "150",
            "--sample",
            "3",
            "--warmup",
            "0.05",
            "--rate",
            "30",
            "--json",
            str(out),
        ]
    )
    result = json.loads(out.read_text())
    assert code == 0, result["failure"]
    assert len(result["samples"]) >= 2
    assert all(s["rss"] > 20 * MB for s in result["samples"])
    assert result["samples"][-1]["cache_entries"] > result["samples"][0]["cache_entries"]
    assert result["caches"], "no memory dump was read"
    assert sum(result["calls"].values()) >= 150  # a read may make its two or three calls


@pytest.mark.slow
def test_a_short_forged_state_campaign_finds_no_server_fault(tmp_path: Path) -> None:
    faults = tmp_path / "faults.jsonl"
    code = forge.main(
        ["--requests", "400", "--matches", "6", "--rate", "400", "--faults", str(faults)]
    )
    assert code == 0
    assert not faults.exists()
