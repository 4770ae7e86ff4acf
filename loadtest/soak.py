"""The soak test: one server for a bounded time under a bounded, realistic mix; its memory.

    python -m loadtest.soak [--minutes 30] [--rate 40] [--sample 30] [--warmup 5]
    python -m loadtest.soak --minutes 5 --tracemalloc 1 --dump-every 1.5   # what grows, by line
    python -m loadtest.soak --minutes 25 --rate 120 --fill 4500   # the caches filled on purpose

Starts ``baloot-server`` on free 127.0.0.1 ports with its defaults (as ``make run`` does: one
process, log level info, metrics on), then plays matches with one client at most ``--rate``
calls a second until ``--minutes`` have passed: matches of several rule sets (table play and
its review too), the seat on turn played now by a bot (ApplyBotAction), now by the client
(a random legal action), the reads a client makes (GetView, ListLegalActions, GetScore,
SuggestAction), and after each match its record verified and replayed at a random step,
ScoreRound, and now and then AnalyzeRecord on one round. Every ``--sample`` seconds it reads
the server's resident memory (VmRSS of /proc/<pid>/status; its children's apart: the lanes'
processes and multiprocessing's resource tracker) and its caches' fill
(``baloot_cache_entries``), and prints a row; at the end a summary: RSS at the start, after
the warm-up, at the end, the slope over the last third in MB/min, the caches'
fill, and (from the SIGUSR2 dump the server logs) each cache's largest entry and the bytes
the caches can hold at most.

With ``--fill MATCHES`` the load starts by playing that many one-round matches on
``--fill-threads`` unpaced clients (every seat a BASIC bot, every view read at the round's
end): the caches that fill by the match and by the round (credentials, scores, bids,
declarations) are full in minutes instead of hours, so the rest of the run shows the
plateau. Each sample also gives the RSS of each of the server's children (the lanes'
processes, judge, bots, solve and analysis, and the resource tracker), and the end a table of
each process's RSS: start, after the warm-up, end, maximum and slope over the last third.

Exit status 0 when no call failed unexpectedly and the server served to the end; 1 otherwise.
The run ends by itself; traffic goes to 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

import grpc
from baloot_client import EngineClient, EngineError
from baloot_client.client import Match
from baloot_client.demo import choose
from prometheus_client.parser import text_string_to_metric_families

from baloot.v1 import analysis_pb2, engine_service_pb2, rules_pb2, types_pb2
from loadtest.stack import Service, new_state_key, process_tree, start_service

pb: Any = engine_service_pb2
MB: Final = 1024 * 1024
_BETWEEN: Final = (types_pb2.PHASE_AWAITING_DEAL, types_pb2.PHASE_ROUND_OVER)
RULE_SETS: Final = (
    rules_pb2.RuleSet(preset=rules_pb2.PRESET_SEEDS, match_target=152),
    rules_pb2.RuleSet(preset=rules_pb2.PRESET_KAMMELNA, match_target=152),
    rules_pb2.RuleSet(preset=rules_pb2.PRESET_FEDERATION, match_target=152),
    rules_pb2.RuleSet(
        preset=rules_pb2.PRESET_KAMMELNA, auto_declare_projects=True, match_target=80
    ),
    rules_pb2.RuleSet(
        preset=rules_pb2.PRESET_SEEDS, illegal_moves_allowed=True, sawa=True, match_target=80
    ),
)
SUITS: Final = (
    types_pb2.SUIT_SPADES,
    types_pb2.SUIT_HEARTS,
    types_pb2.SUIT_DIAMONDS,
    types_pb2.SUIT_CLUBS,
)
# Refusals a client can meet while playing as it should (a Sawa claim that does not hold, a bot
# asked where the rules allow nothing…) are counted; anything else fails the run.
EXPECTED_REFUSALS: Final = frozenset({"FAILED_PRECONDITION", "INVALID_ARGUMENT"})


# -- the samples and their summary ----------------------------------------------------------


@dataclass(frozen=True)
class Sample:
    """One reading of the server."""

    seconds: float  # since the load started
    rss: int  # bytes, the server process
    worker_rss: int  # bytes, its children (the lanes' processes, the resource tracker)
    cache_entries: int
    cache_capacity: int
    calls: int  # calls the client made so far
    children: dict[str, int] = field(default_factory=dict)  # bytes, each child by its name


@dataclass
class Summary:
    """What the samples say about the server's memory."""

    samples: int
    seconds: float
    rss_start_mb: float
    rss_warm_mb: float  # the first sample at or after the warm-up
    rss_end_mb: float
    rss_max_mb: float
    worker_start_mb: float  # the server's children (the lanes' processes, the tracker)
    worker_end_mb: float
    slope_after_warmup_mb_per_min: float
    slope_last_third_mb_per_min: float
    cache_entries: int
    cache_capacity: int

    @property
    def cache_fill(self) -> float:
        """The caches' entries over their bounds, 0 to 1."""
        return self.cache_entries / self.cache_capacity if self.cache_capacity else 0.0


def slope(points: Sequence[tuple[float, float]]) -> float:
    """The least-squares slope of (x, y) points; 0 with fewer than two distinct x."""
    if len(points) < 2:
        return 0.0
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    if spread == 0:
        return 0.0
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread


def summarize(samples: Sequence[Sample], warmup: float) -> Summary:
    """The summary of ``samples`` with a warm-up of ``warmup`` seconds."""
    if not samples:
        raise ValueError("no samples")
    end = samples[-1].seconds
    warm = next((s for s in samples if s.seconds >= warmup), samples[-1])
    after = [(s.seconds / 60, s.rss / MB) for s in samples if s.seconds >= warm.seconds]
    last_third = [(s.seconds / 60, s.rss / MB) for s in samples if s.seconds >= end * 2 / 3]
    return Summary(
        samples=len(samples),
        seconds=end,
        rss_start_mb=samples[0].rss / MB,
        rss_warm_mb=warm.rss / MB,
        rss_end_mb=samples[-1].rss / MB,
        rss_max_mb=max(s.rss for s in samples) / MB,
        worker_start_mb=samples[0].worker_rss / MB,
        worker_end_mb=samples[-1].worker_rss / MB,
        slope_after_warmup_mb_per_min=slope(after),
        slope_last_third_mb_per_min=slope(last_third),
        cache_entries=samples[-1].cache_entries,
        cache_capacity=samples[-1].cache_capacity,
    )


def row(sample: Sample) -> str:
    """One line of the table."""
    fill = sample.cache_entries / sample.cache_capacity if sample.cache_capacity else 0.0
    each = " ".join(f"{sample.children.get(name, 0) / MB:>8.1f}" for name in CHILDREN)
    return (
        f"{sample.seconds / 60:>7.1f} {sample.rss / MB:>9.1f} {sample.worker_rss / MB:>10.1f} "
        f"{sample.cache_entries:>9,} {fill:>6.1%} {sample.calls:>10,} {each}"
    )


CHILDREN: Final = ("judge", "bots", "solve", "analysis", "tracker")
"""The server's children, each by its name: the lanes' processes (started in this order, so
named by their pids' order) and multiprocessing's resource tracker."""
HEADER: Final = (
    f"{'minute':>7} {'RSS MB':>9} {'worker MB':>10} {'cached':>9} {'fill':>6} {'calls':>10} "
    + " ".join(f"{name:>8}" for name in CHILDREN)
)


def children_of(pid: int) -> dict[str, int]:
    """The RSS of each child of the server ``pid`` by its name (:data:`CHILDREN`): the
    resource tracker by its command line, the lanes' processes by the order of their pids (a
    replaced one is named ``lane<pid>``)."""
    named: dict[str, int] = {}
    lanes = []
    for child in sorted(p for p in process_tree(pid) if p != pid):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if b"resource_tracker" in command:
            named["tracker"] = rss_bytes(child)
        else:
            lanes.append(child)
    names = CHILDREN[:4] if len(lanes) == 4 else tuple(f"lane{p}" for p in lanes)
    for name, child in zip(names, lanes, strict=True):
        named[name] = rss_bytes(child)
    return named


def summary_lines(summary: Summary) -> list[str]:
    """The summary, printed."""
    rss = (
        f"RSS: start {summary.rss_start_mb:.1f} MB, after the warm-up "
        f"{summary.rss_warm_mb:.1f} MB, end {summary.rss_end_mb:.1f} MB, max "
        f"{summary.rss_max_mb:.1f} MB ({summary.samples} samples over "
        f"{summary.seconds / 60:.1f} min)"
    )
    slopes = (
        f"RSS slope: {summary.slope_after_warmup_mb_per_min:+.3f} MB/min after the warm-up, "
        f"{summary.slope_last_third_mb_per_min:+.3f} MB/min over the last third"
    )
    children = (
        f"the server's children (bots' pool, analysis worker): {summary.worker_start_mb:.1f} "
        f"MB at the start, {summary.worker_end_mb:.1f} MB at the end"
    )
    caches = (
        f"caches: {summary.cache_entries:,} of {summary.cache_capacity:,} entries "
        f"({summary.cache_fill:.1%} full)"
    )
    return [rss, slopes, children, caches]


def plateau_lines(samples: Sequence[Sample], warmup: float) -> list[str]:
    """Each process's RSS in MB: at the start, after the warm-up, at the end, its maximum, and
    its slope over the last third (the plateau, per process)."""
    if not samples:
        return []
    end = samples[-1].seconds
    warm = next((s for s in samples if s.seconds >= warmup), samples[-1])

    def of(sample: Sample, name: str) -> float:
        return (sample.rss if name == "server" else sample.children.get(name, 0)) / MB

    lines = [
        f"{'process':<10} {'start':>8} {'warm':>8} {'end':>8} {'max':>8} {'MB/min, last third':>19}"
    ]
    for name in ("server", *CHILDREN):
        if not any(of(s, name) for s in samples):
            continue
        last = [(s.seconds / 60, of(s, name)) for s in samples if s.seconds >= end * 2 / 3]
        lines.append(
            f"{name:<10} {of(samples[0], name):>8.1f} {of(warm, name):>8.1f} "
            f"{of(samples[-1], name):>8.1f} {max(of(s, name) for s in samples):>8.1f} "
            f"{slope(last):>+19.3f}"
        )
    return lines


def rss_bytes(pid: int) -> int:
    """VmRSS of ``pid`` in bytes (0 when the process is gone)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    except OSError:
        return 0
    return parse_vm_rss(text)


def parse_vm_rss(status: str) -> int:
    """The ``VmRSS`` line of a /proc/<pid>/status text, in bytes."""
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            value, unit = line.split()[1:3]
            if unit != "kB":
                raise ValueError(f"unexpected VmRSS unit {unit}")
            return int(value) * 1024
    return 0


def cache_fill(metrics_text: str) -> tuple[int, int, dict[str, tuple[int, int]]]:
    """Entries and bounds of the caches, in all and by cache, from a /metrics text."""
    by_cache: dict[str, list[int]] = {}
    for family in text_string_to_metric_families(metrics_text):
        if family.name in ("baloot_cache_entries", "baloot_cache_capacity_entries"):
            column = 0 if family.name == "baloot_cache_entries" else 1
            for sample in family.samples:
                by_cache.setdefault(sample.labels["cache"], [0, 0])[column] = int(sample.value)
    entries = sum(v[0] for v in by_cache.values())
    capacity = sum(v[1] for v in by_cache.values())
    return entries, capacity, {k: (v[0], v[1]) for k, v in by_cache.items()}


@dataclass(frozen=True)
class CacheBytes:
    """A cache's line of the server's memory dump."""

    cache: str
    entries: int
    capacity: int
    largest_entry_bytes: int
    bound_bytes: int
    where: str = ""  # the cache in the code: api.state_codec._decode_tricks


def last_dump(log_lines: Iterable[str]) -> tuple[list[CacheBytes], list[dict[str, Any]]]:
    """The caches and the allocation lines of the last complete memory dump in a JSON log."""
    caches: list[CacheBytes] = []
    allocations: list[dict[str, Any]] = []
    done: tuple[list[CacheBytes], list[dict[str, Any]]] = ([], [])
    for line in log_lines:
        if not line.startswith("{") or '"memory ' not in line:
            continue
        record = json.loads(line)
        event = record.get("event")
        if event == "memory dump" and record.get("dump") == "start":
            caches, allocations = [], []
        elif event == "memory dump" and record.get("dump") == "end":
            done = (caches, allocations)
        elif event == "memory cache":
            caches.append(
                CacheBytes(
                    record["cache"],
                    record["entries"],
                    record["capacity"],
                    record["largest_entry_bytes"],
                    record["bound_bytes"],
                    record.get("where", ""),
                )
            )
        elif event in ("memory top", "memory growth", "memory traced"):
            allocations.append(record)
    return done


def dump_lines(caches: Sequence[CacheBytes], allocations: Sequence[dict[str, Any]]) -> list[str]:
    """The memory dump, printed: each cache's bound, then the allocation lines."""
    lines = [
        f"  {'cache':<17}{'where':<40}{'entries':>9}{'bound':>8}{'largest B':>11}{'bound MB':>10}",
    ]
    for cache in sorted(caches, key=lambda c: -c.bound_bytes):
        lines.append(
            f"  {cache.cache:<17}{cache.where:<40}{cache.entries:>9,}{cache.capacity:>8,}"
            f"{cache.largest_entry_bytes:>11,}{cache.bound_bytes / MB:>10.2f}"
        )
    total = sum(c.bound_bytes for c in caches)
    held = sum(c.entries * c.largest_entry_bytes for c in caches)
    lines.append(
        f"  caches at most {total / MB:.1f} MB (bound x largest entry); now at most "
        f"{held / MB:.1f} MB (entries x largest entry)"
    )
    for record in allocations:
        if record["event"] == "memory traced":
            lines.append(
                f"  traced by tracemalloc: {record['traced_bytes'] / MB:.1f} MB "
                f"(peak {record['peak_bytes'] / MB:.1f} MB)"
            )
        elif record["event"] == "memory growth":
            lines.append(
                f"  {record['size_diff_bytes'] / 1024:>+9.1f} KiB {record['count_diff']:>+8,} "
                f"blocks  {record['where']}"
            )
        else:
            lines.append(
                f"  {record['size_bytes'] / 1024:>9.1f} KiB {record['count']:>9,} blocks  "
                f"{record['where']}"
            )
    return lines


# -- the load -------------------------------------------------------------------------------


class PacedClient(EngineClient):
    """An engine client that makes at most ``rate`` calls a second and counts them; the run is
    over at ``stop_at`` or after ``limit`` calls (0: no limit), whichever comes first."""

    def __init__(self, channel: grpc.Channel, rate: float, stop_at: float, limit: int = 0) -> None:
        super().__init__(channel, timeout=30.0)
        self.interval = 1.0 / rate
        self.next_at = time.monotonic()
        self.stop_at = stop_at
        self.limit = limit
        self.calls: Counter[str] = Counter()
        self.refusals: Counter[str] = Counter()

    def pace(self) -> None:
        """Wait for the next call's turn."""
        now = time.monotonic()
        if self.next_at > now:
            time.sleep(self.next_at - now)
        self.next_at = max(self.next_at, now - 1.0) + self.interval

    def call(self, method: Callable[..., Any], request: Any) -> Any:
        self.pace()
        name = type(request).__name__.removesuffix("Request")
        self.calls[name] += 1
        try:
            return super().call(method, request)
        except EngineError as error:
            self.refusals[f"{name} {error.code.name}"] += 1
            raise

    @property
    def over(self) -> bool:
        """Whether the run's time is up, or its calls are made."""
        if self.limit and sum(self.calls.values()) >= self.limit:
            return True
        return time.monotonic() >= self.stop_at


class Player:
    """Plays matches one after another with a realistic mix of calls."""

    def __init__(self, client: PacedClient, seed: int) -> None:
        self.client = client
        self.rng = random.Random(seed)
        self.matches = 0
        self.analyses = 0

    def run(self) -> None:
        """Play until the time is up."""
        while not self.client.over:
            match = self.client.create_match(rules=self.rng.choice(RULE_SETS))
            if self.play(match):
                self.matches += 1
                self.after_match(match)

    def play(self, match: Match) -> bool:
        """Play ``match`` to its end (False when the time ran out first)."""
        client, rng = self.client, self.rng
        step = 0
        while match.views[0].phase != types_pb2.PHASE_MATCH_OVER:
            if client.over:
                return False
            step += 1
            view = match.views[0]
            if view.phase == types_pb2.PHASE_ROUND_REVIEW:
                match.close_review()
                continue
            if view.phase in _BETWEEN:
                if view.phase == types_pb2.PHASE_ROUND_OVER:
                    self.score(match)
                match.deal(view.dealer)
                continue
            seat = view.turn
            if step % 8 == 0:
                self.reads(match, seat)
            try:
                if rng.random() < 0.5:
                    level = pb.BOT_LEVEL_STRONG if rng.random() < 0.1 else pb.BOT_LEVEL_BASIC
                    match.bot_act(seat, level)
                else:
                    match.act(seat, choose(match.views[seat], rng))
            except EngineError as error:
                if error.code.name not in EXPECTED_REFUSALS:
                    raise
        return True

    def score(self, match: Match) -> None:
        self.client.call(
            self.client.stub.GetScore,
            pb.GetScoreRequest(
                state=match.state, match_id=match.match_id, credential=match.host_credential
            ),
        )

    def reads(self, match: Match, seat: int) -> None:
        client, rng = self.client, self.rng
        common = {"state": match.state, "match_id": match.match_id}
        credential = rng.choice((match.host_credential, match.seat_credentials[seat]))
        host = match.host_credential
        client.call(
            client.stub.GetView, pb.GetViewRequest(seat=seat, credential=credential, **common)
        )
        client.call(
            client.stub.ListLegalActions,
            pb.ListLegalActionsRequest(seat=seat, credential=credential, **common),
        )
        if rng.random() < 0.25:
            client.call(
                client.stub.SuggestAction,
                pb.SuggestActionRequest(
                    seat=seat, level=pb.BOT_LEVEL_BASIC, credential=host, **common
                ),
            )

    def after_match(self, match: Match) -> None:
        """What a backend does with a finished match: its record checked, a step shown…"""
        client, rng = self.client, self.rng
        record = match.record
        verified = client.verify_record(record)
        steps = sum(len(r.actions) for r in record.rounds)
        client.replay_record(record, rng.randrange(steps + 1))
        client.score_round(
            pb.ScoreRoundRequest(
                contract_type=types_pb2.CONTRACT_TYPE_HOKM,
                trump=rng.choice(SUITS),
                buyer_team=rng.randrange(2),
                card_abnat=[86, 76],
                tricks_won=[5, 3],
            )
        )
        if verified.valid and self.matches % 10 == 1 and record.rounds:
            self.analyses += 1
            client.pace()
            client.calls["AnalyzeRecord"] += 1
            for _ in client.analyze_record(
                record,
                seats=[rng.randrange(4)],
                rounds=[0],
                depth=analysis_pb2.ANALYSIS_DEPTH_QUICK,
                deadline_ms=5000,
                timeout=60,
            ):
                pass


# -- filling the caches on purpose ------------------------------------------------------------


def fill(target: str, matches: int, threads: int, seed: int, stop_at: float) -> int:
    """Play ``matches`` one-round matches on ``threads`` unpaced clients, every seat by a BASIC
    bot and every view read at the end of the round, to fill the caches that fill by the match
    and by the round (credentials, scores, bids, declarations…) in minutes rather than hours;
    the number of rounds played."""
    played = [0]
    lock = threading.Lock()

    def one(index: int) -> None:
        rng = random.Random(seed * 1000 + index)
        with grpc.insecure_channel(target) as channel:
            client = EngineClient(channel, timeout=30.0)
            while time.monotonic() < stop_at:
                with lock:
                    if played[0] >= matches:
                        return
                    played[0] += 1
                match = client.create_match(rules=rng.choice(RULE_SETS))
                try:
                    match.deal(match.views[0].dealer)
                    while match.views[0].phase not in (*_BETWEEN, types_pb2.PHASE_MATCH_OVER):
                        view = match.views[0]
                        if view.phase == types_pb2.PHASE_ROUND_REVIEW:
                            match.close_review()
                        else:
                            match.bot_act(view.turn)
                    for seat in range(4):
                        match.view(seat)
                except EngineError as error:
                    if error.code.name == "RESOURCE_EXHAUSTED":  # the judge lane is full
                        time.sleep(1.0)
                    elif error.code.name not in EXPECTED_REFUSALS:
                        raise

    pool = [threading.Thread(target=one, args=(i,), daemon=True) for i in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    return played[0]


# -- the run --------------------------------------------------------------------------------


def read_sample(service: Service, start: float, calls: int) -> Sample:
    """One reading of the server's memory and caches."""
    pid = service.child.pid
    workers = [p for p in process_tree(pid) if p != pid]
    try:
        with urllib.request.urlopen(service.metrics_url, timeout=10) as reply:  # noqa: S310
            entries, capacity, _ = cache_fill(reply.read().decode())
    except OSError:
        entries = capacity = 0
    return Sample(
        seconds=time.monotonic() - start,
        rss=rss_bytes(pid),
        worker_rss=sum(rss_bytes(p) for p in workers),
        cache_entries=entries,
        cache_capacity=capacity,
        calls=calls,
        children=children_of(pid),
    )


@dataclass
class SoakResult:
    """Everything the run measured (``--json``)."""

    samples: list[Sample] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)
    refusals: dict[str, int] = field(default_factory=dict)
    matches: int = 0
    analyses: int = 0
    failure: str = ""
    caches: list[dict[str, Any]] = field(default_factory=list)


def dump(service: Service, wait: float = 60.0) -> tuple[list[CacheBytes], list[dict[str, Any]]]:
    """Ask the server for a memory dump (SIGUSR2) and read it from its log."""
    before = service.child.log_text().count('"dump": "end"')
    service.child.popen.send_signal(signal.SIGUSR2)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        text = service.child.log_text()
        if text.count('"dump": "end"') > before:
            return last_dump(text.splitlines())
        time.sleep(0.5)
    return [], []


def run(args: argparse.Namespace, log_dir: Path) -> SoakResult:
    """Start the server, load it, sample it; return what was measured."""
    env = {"PYTHONTRACEMALLOC": str(args.tracemalloc)} if args.tracemalloc else {}
    service = start_service(log_dir, key=new_state_key(), log_level="info", env_extra=env)
    result = SoakResult()
    print(
        f"soak: server pid {service.child.pid} on {service.target}, metrics {service.metrics_url}, "
        f"log {service.child.log_path}; {args.minutes:g} min at most {args.rate:g} calls/s",
        flush=True,
    )
    print(HEADER, flush=True)
    start = time.monotonic()
    stop_at = start + args.minutes * 60
    channel = grpc.insecure_channel(service.target)
    client = PacedClient(channel, args.rate, stop_at, args.calls)
    player = Player(client, args.seed)
    errors: list[BaseException] = []

    def load() -> None:
        try:
            if args.fill:
                rounds = fill(service.target, args.fill, args.fill_threads, args.seed, stop_at)
                print(f"fill: {rounds:,} one-round matches played", flush=True)
            player.run()
        except BaseException as error:  # noqa: BLE001 - reported as the run's failure
            errors.append(error)

    thread = threading.Thread(target=load, name="soak-load", daemon=True)
    try:
        thread.start()
        next_sample, next_dump = start, start + args.dump_every * 60 if args.dump_every else None
        while True:
            now = time.monotonic()
            if now >= next_sample:
                sample = read_sample(service, start, sum(client.calls.values()))
                result.samples.append(sample)
                print(row(sample), flush=True)
                next_sample += args.sample
            if next_dump is not None and now >= next_dump and now < stop_at:
                print("\n".join(dump_lines(*dump(service))), flush=True)
                next_dump += args.dump_every * 60
            if not thread.is_alive() or not service.child.alive():
                break
            time.sleep(max(0.0, min(next_sample, stop_at + 1) - time.monotonic()))
        thread.join(60)
        final = read_sample(service, start, sum(client.calls.values()))
        if final.seconds - result.samples[-1].seconds > 1:
            result.samples.append(final)
            print(row(final), flush=True)
        if service.child.alive():
            caches, allocations = dump(service)
            result.caches = [asdict(c) for c in caches]
            print("memory dump of the server at the end (SIGUSR2):")
            print("\n".join(dump_lines(caches, allocations)), flush=True)
    finally:
        channel.close()
        code = service.child.stop()
    result.calls, result.refusals = dict(client.calls), dict(client.refusals)
    result.matches, result.analyses = player.matches, player.analyses
    if errors:
        result.failure = f"the load stopped: {errors[0]!r}"
    elif code not in (0, None) and not result.failure:
        result.failure = f"the server exited with status {code}"
    if "Traceback" in service.child.log_text():
        result.failure = result.failure or "the server logged a traceback"
    return result


def main(argv: Sequence[str] | None = None) -> int:
    """Run the soak; print the table and the summary; return the exit status."""
    parser = argparse.ArgumentParser(prog="python -m loadtest.soak", description=__doc__)
    parser.add_argument("--minutes", type=float, default=30.0, help="how long to load")
    parser.add_argument("--rate", type=float, default=40.0, help="calls a second at most")
    parser.add_argument("--sample", type=float, default=30.0, help="seconds between samples")
    parser.add_argument("--warmup", type=float, default=5.0, help="minutes of warm-up")
    parser.add_argument(
        "--calls", type=int, default=0, help="stop after this many calls too (0: no limit)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--fill",
        type=int,
        default=0,
        metavar="MATCHES",
        help="first play this many one-round matches unpaced, to fill the caches on purpose",
    )
    parser.add_argument("--fill-threads", type=int, default=4, help="clients of the fill")
    parser.add_argument(
        "--tracemalloc",
        type=int,
        default=0,
        metavar="FRAMES",
        help="start the server with PYTHONTRACEMALLOC=FRAMES (its dumps list allocations)",
    )
    parser.add_argument(
        "--dump-every", type=float, default=0.0, help="minutes between memory dumps (SIGUSR2)"
    )
    parser.add_argument("--logs", type=Path, help="keep the server's log here")
    parser.add_argument("--json", type=Path, help="also write the samples and summary here")
    args = parser.parse_args(argv)
    if (
        not 0 < args.minutes <= 24 * 60
        or not 0 < args.rate <= 1000
        or args.sample <= 0
        or args.calls < 0
    ):
        parser.error(
            "a run is bounded: 0 < --minutes <= 1440, 0 < --rate <= 1000, --sample > 0, "
            "--calls >= 0"
        )
    with tempfile.TemporaryDirectory(prefix="baloot-soak-") as scratch:
        result = run(args, args.logs or Path(scratch))
    summary = summarize(result.samples, args.warmup * 60)
    result.summary = {**asdict(summary), "cache_fill": summary.cache_fill}
    print("\n".join(summary_lines(summary)))
    print("\n".join(plateau_lines(result.samples, args.warmup * 60)))
    calls = sum(result.calls.values())
    by_method = sorted(result.calls.items(), key=lambda item: -item[1])
    shown = ", ".join(f"{name} {count:,}" for name, count in by_method)
    print(f"calls: {calls:,} ({shown}); {result.matches} matches, {result.analyses} analyses")
    refusals = ", ".join(f"{k} {v:,}" for k, v in sorted(result.refusals.items()))
    print(f"refusals (expected in play: a Sawa claim that fails…): {refusals or 'none'}")
    if args.json is not None:
        data = asdict(result)
        args.json.write_text(json.dumps(data, indent=2), encoding="utf-8")
    if result.failure:
        print(f"soak: FAIL ({result.failure})")
        return 1
    print("soak: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
