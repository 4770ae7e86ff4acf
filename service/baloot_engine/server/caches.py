"""Every cache a server process keeps between calls: its fill as metrics, its bytes on demand.

The service is stateless, but a process remembers what it computed: the state codec's and the
views' encodings, the credentials of recent matches, the bots' score tables… Each cache is
bounded in entries (an LRU, or a dict cleared when full); :func:`inventory` lists them with
their bound, :class:`CacheCollector` exports the fill as two gauges,
``baloot_cache_entries{cache}`` and ``baloot_cache_capacity_entries{cache}``, and
:func:`measure` gives the largest entry's bytes of each (what docs/performance.md multiplies
by the bound to bound the memory the caches can hold).

:func:`install_memory_dump` makes SIGUSR2 log each cache's fill and largest entry (a second or
so of the event loop on full caches) and, when the process was started with tracemalloc on
(``PYTHONTRACEMALLOC=1``), the top allocations by file:line: the change since the previous
dump, or the largest at the first.
"""

from __future__ import annotations

import asyncio
import gc
import signal
import sys
import tracemalloc
import types
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Any, Final

from prometheus_client.metrics_core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from baloot_engine.api import messages, outbound, state_codec, views
from baloot_engine.api.sealing import RECENT_MATCHES, KeyRing
from baloot_engine.bots import network, search, tracking
from baloot_engine.rules import declaring, projects, sawa
from baloot_engine.telemetry.logs import get_logger

_log = get_logger(__name__)

# A dict slot (hash, key, value; a dict keeps up to 3 slots per entry once it has grown) and,
# for an LRU entry, its list link (56 bytes): counted on top of each entry's key and value.
ENTRY_OVERHEAD: Final = 160
_SAMPLED: Final = 24  # entries whose values are recomputed to size them (the largest keys)


@dataclass(frozen=True)
class Cache:
    """One bounded cache: its label, bound, fill, its (key, value) pairs for sizing, and where
    it is (``api.state_codec._decode_tricks``)."""

    name: str
    capacity: int
    entries: Callable[[], int]
    pairs: Callable[[], Iterator[tuple[object, object]]]
    where: str


def _lru(name: str, where: str, function: Any) -> Cache:
    """A ``functools.lru_cache`` (or ``cache``, with the bound its arguments' domain sets)."""

    def pairs() -> Iterator[tuple[object, object]]:
        # The C LRU's dict (key -> link) is among its referents; a link hides its result, so
        # the values of the largest keys are computed again (a pure function: the same value).
        table = next(
            (r for r in gc.get_referents(function) if type(r) is dict and r is not vars(function)),
            {},
        )
        keys = sorted(table, key=deep_size, reverse=True)[:_SAMPLED]
        for key in keys:
            args = key if type(key) is tuple else (key,)
            try:
                value = function.__wrapped__(*args)
            except Exception:  # noqa: BLE001, S112 - a key of keyword arguments: not sized
                continue
            yield key, value

    info = function.cache_info()
    capacity = info.maxsize if info.maxsize is not None else _UNBOUNDED_DOMAINS[where]
    return Cache(name, capacity, lambda: int(function.cache_info().currsize), pairs, where)


def _dict(name: str, where: str, table: dict[Any, Any], capacity: int) -> Cache:
    def pairs() -> Iterator[tuple[object, object]]:
        yield from list(table.items())

    return Cache(name, capacity, table.__len__, pairs, where)


# ``functools.cache`` without a bound whose arguments take few values.
_UNBOUNDED_DOMAINS: Final = {
    "rules.projects._run_project": 4 * 8 * 8,  # suit, low rank, length
    "bots.network.shipped": 1,  # the shipped model, loaded once
}

_OWNERS: Final = (
    ("api.state_codec", state_codec.CACHES),
    ("api.messages", messages.CACHES),
    ("api.outbound", outbound.CACHES),
    ("api.views", views.CACHES),
    ("rules.declaring", declaring.CACHES),
    ("rules.sawa", sawa.CACHES),
    ("rules.projects", projects.CACHES),
    ("bots.network", network.CACHES),
)
"""The modules that keep caches, each declaring them by their metric label (short, as every
label of the service's own families)."""


def inventory(keys: KeyRing | None = None) -> list[Cache]:
    """Every cache of the process (with the credentials of ``keys``' recent matches)."""
    caches = [
        _lru(name, f"{owner}.{function.__name__}", function)
        for owner, declared in _OWNERS
        for name, function in declared.items()
    ]
    caches += [
        _dict(name, f"api.views.PIECES[{name!r}]", piece.entries, piece.size)
        for name, piece in views.PIECES.items()
    ]
    caches.append(_dict("bot_score_tables", "bots.search.TABLES", *search.TABLES))
    caches.append(_dict("bot_deal_plans", "bots.tracking.PLANS", *tracking.PLANS))
    if keys is not None:
        caches.append(
            _dict("credentials", "api.sealing.KeyRing.recent", keys.recent, RECENT_MATCHES)
        )
    return caches


class CacheCollector(Collector):
    """``baloot_cache_entries`` and ``baloot_cache_capacity_entries``, by cache, at scrape."""

    def __init__(self, caches: Iterable[Cache]) -> None:
        self._caches = tuple(caches)

    def describe(self) -> Iterable[Metric]:
        return self._families(fill=False)

    def collect(self) -> Iterable[Metric]:
        return self._families(fill=True)

    def _families(self, *, fill: bool) -> list[Metric]:
        entries = GaugeMetricFamily(
            "baloot_cache_entries",
            "Entries held by each cache of the process (bounded by baloot_cache_capacity_entries).",
            labels=("cache",),
        )
        capacity = GaugeMetricFamily(
            "baloot_cache_capacity_entries",
            "The most entries each cache of the process holds.",
            labels=("cache",),
        )
        if fill:
            for cache in self._caches:
                entries.add_metric((cache.name,), cache.entries())
                capacity.add_metric((cache.name,), cache.capacity)
        return [entries, capacity]


# -- sizes --------------------------------------------------------------------------------

_SHARED: Final = (
    bool,
    type(None),
    type,
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    Enum,
)


def deep_size(obj: object, seen: set[int] | None = None) -> int:
    """The bytes of ``obj`` and of every object it reaches (each counted once), leaving out
    what the process shares anyway: types, modules, functions, Enum members, None, booleans
    and the small integers. An upper bound of what the entry alone keeps alive."""
    seen = set() if seen is None else seen
    total = 0
    stack = [obj]
    while stack:
        item = stack.pop()
        if id(item) in seen or isinstance(item, _SHARED):
            continue
        if type(item) is int and -5 <= item <= 256:
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        stack.extend(gc.get_referents(item))
    return total


@dataclass(frozen=True)
class CacheSize:
    """A cache's fill and the bytes of its largest entry (as sampled)."""

    name: str
    where: str
    entries: int
    capacity: int
    largest_entry: int  # bytes, key + value + ENTRY_OVERHEAD; 0 when empty

    @property
    def bound(self) -> int:
        """Bytes the cache may hold when full of entries as large as its largest."""
        return self.capacity * self.largest_entry


def measure(caches: Iterable[Cache]) -> list[CacheSize]:
    """Each cache's fill and largest entry (keys sized whole, values of the largest keys)."""
    sizes = []
    for cache in caches:
        largest = 0
        for key, value in cache.pairs():
            largest = max(largest, deep_size(key) + deep_size(value) + ENTRY_OVERHEAD)
        sizes.append(CacheSize(cache.name, cache.where, cache.entries(), cache.capacity, largest))
    return sizes


# -- SIGUSR2 ------------------------------------------------------------------------------

TOP_LINES: Final = 25


class MemoryDump:
    """What SIGUSR2 logs: the top allocations by file:line, and the caches' sizes."""

    def __init__(self, caches: Iterable[Cache]) -> None:
        self._caches = tuple(caches)
        self._previous: tracemalloc.Snapshot | None = None

    def __call__(self) -> None:
        try:
            self._dump()
        except Exception as error:  # noqa: BLE001 - a diagnostic must not disturb serving
            _log.warning("memory dump failed", error=repr(error), dump="end")

    def _dump(self) -> None:
        _log.warning("memory dump", dump="start", tracing=tracemalloc.is_tracing())
        if tracemalloc.is_tracing():
            self._allocations()
        for size in measure(self._caches):
            _log.warning(
                "memory cache",
                cache=size.name,
                where=size.where,
                entries=size.entries,
                capacity=size.capacity,
                largest_entry_bytes=size.largest_entry,
                bound_bytes=size.bound,
            )
        _log.warning("memory dump", dump="end")

    def _allocations(self) -> None:
        snapshot = tracemalloc.take_snapshot().filter_traces(
            (tracemalloc.Filter(False, tracemalloc.__file__),)
        )
        traced, peak = tracemalloc.get_traced_memory()
        _log.warning("memory traced", traced_bytes=traced, peak_bytes=peak)
        if self._previous is None:
            stats = snapshot.statistics("lineno")
            for rank, stat in enumerate(stats[:TOP_LINES], 1):
                frame = stat.traceback[0]
                _log.warning(
                    "memory top",
                    rank=rank,
                    where=f"{frame.filename}:{frame.lineno}",
                    size_bytes=stat.size,
                    count=stat.count,
                )
        else:
            diffs = snapshot.compare_to(self._previous, "lineno")
            for rank, diff in enumerate(diffs[:TOP_LINES], 1):
                frame = diff.traceback[0]
                _log.warning(
                    "memory growth",
                    rank=rank,
                    where=f"{frame.filename}:{frame.lineno}",
                    size_bytes=diff.size,
                    size_diff_bytes=diff.size_diff,
                    count=diff.count,
                    count_diff=diff.count_diff,
                )
        self._previous = snapshot


def install_memory_dump(loop: asyncio.AbstractEventLoop, caches: Iterable[Cache]) -> None:
    """On SIGUSR2, log a :class:`MemoryDump`."""
    loop.add_signal_handler(signal.SIGUSR2, MemoryDump(caches))
