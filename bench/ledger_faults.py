"""Redis killed under load, then older tokens against the latest: no match of the ledger may fork.

The fault series of ``docs/security.md``. For each configuration, a Redis persistence setting
(``always``: AOF with ``appendfsync always``; ``everysec``: AOF with ``appendfsync everysec``;
``rdb``: snapshots with ``save 1 1``, no AOF) and a ledger durability (``checked``, the default;
``trusted``; ``lossy``), one in-process engine with the ledger runs against one redis-server,
and each run:

1. plays ``--matches`` matches at once, one honest client each, with random legal actions; an
   honest client follows the protocol: after ``LEDGER_UNAVAILABLE`` it sends the *same*
   request again;
2. kills redis-server (SIGKILL) while they play, after a random time, and restarts it on its
   files; with ``+load`` a disk writer runs meanwhile (fsyncs slowed down) and the kill comes as
   soon as Redis holds acknowledged writes back in its AOF buffer (``aof_buffer_length`` above
   0 while a background fsync is pending, twice in a row), the window in which ``everysec``
   loses them (at most 4 s of waiting for it, then the kill anyway);
3. reads what the ledger kept of each match: the versions lost are the acknowledged version
   minus the kept one;
4. attacks: for half of the matches an attacker holding the match's older tokens first sends a
   different legal action on a token 1 to 6 versions behind the honest client's latest, then
   the honest client presents its latest (its pending request again, or a new action); for
   the other half the honest client comes first. The honest client then plays 3 actions more.

Every accepted state is noted by (match, version) with the digest of its plaintext: a fork is
a (match, version) with two. An honest token refused is an honest client refused with anything
but ``LEDGER_UNAVAILABLE``. Prints a table; asserts nothing. The latency column is the median
time of an accepted action while playing, as a ratio to that of ``everysec/lossy`` (no wait for
a disk) in the same invocation.

    python bench/ledger_faults.py [--runs 20] [--other-runs 6] [--matches 8] [--seed 1]
        [--configs always/checked,rdb/lossy,everysec+load/trusted,...]
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import grpc
import redis as redis_py

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from baloot_client import EngineClient, EngineError, Match
from baloot_client.demo import choose
from tests.api.conftest import KEY_A, SEEDS, InProcessServer, make_settings
from tests.api.redis_server import RedisServer

from baloot.v1 import types_pb2
from baloot_engine.api.ledger import Durability, Entry
from baloot_engine.api.sealing import KeyRing
from baloot_engine.telemetry.logs import LogLevel, configure_logging

RING = KeyRing.from_texts((KEY_A,))
BETWEEN = (types_pb2.PHASE_ROUND_OVER, types_pb2.PHASE_MATCH_OVER)
UNAVAILABLE = "LEDGER_UNAVAILABLE"
DEFAULT_CONFIGS = (
    "always/checked",
    "everysec/checked",
    "rdb/checked",
    "always+load/checked",
    "always/lossy",
    "everysec/lossy",
    "everysec+load/lossy",
    "rdb/lossy",
    "everysec+load/trusted",
    "rdb/trusted",
)
MIN_VERSION = 14  # each match reaches it before the kill: tokens of age 1-6 to attack with
# Then the kill comes after a random time in this range (seconds): longer than the first RDB
# snapshot takes to come (save 1 1: a change and 2 s since the last, or since the start).
PLAY_AFTER = (3.0, 5.0)
LOAD_WINDOW = 4.0  # with +load, the longest wait for writes held in the AOF buffer (seconds)
RESENDS = 60  # sends of one request while the ledger is unavailable (0.1 s apart)


def digest(match_id: str, state: bytes) -> bytes:
    return hashlib.sha256(RING.open(state, bytes.fromhex(match_id))).digest()[:16]


@dataclasses.dataclass
class Token:
    """A token the honest client held before its latest, and the action it took from it."""

    state: bytes
    version: int
    views: list[types_pb2.View]
    seat: int
    taken: types_pb2.Action

    def others(self) -> list[types_pb2.Action]:
        """The seat's other legal actions (no Sawa claim: it may be refused for itself)."""
        return [
            a
            for a in self.views[self.seat].legal_actions
            if a != self.taken and not (a.HasField("play") and a.play.sawa)
        ]


class Seen:
    """Every accepted state by (match, version), shared by all clients of a configuration."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.accepted: dict[tuple[str, int], set[bytes]] = defaultdict(set)

    def accept(self, match_id: str, version: int, state: bytes) -> None:
        with self.lock:
            self.accepted[match_id, version].add(digest(match_id, state))

    def forked(self, match_id: str) -> bool:
        with self.lock:
            return any(len(d) > 1 for (m, _), d in self.accepted.items() if m == match_id)


class Honest:
    """One match's honest client: plays, and sends a refused-as-unavailable request again."""

    def __init__(self, client: EngineClient, seen: Seen, rng: random.Random) -> None:
        self.client, self.seen, self.rng = client, seen, rng
        self.match: Match | None = None
        self.history: list[Token] = []
        self.pending: tuple[int, types_pb2.Action] | None = None
        self.latencies: list[float] = []
        self.refused: list[str] = []  # anything but LEDGER_UNAVAILABLE, after the restart

    def create(self) -> bool:
        for _ in range(RESENDS):
            try:
                self.match = self.client.create_match(SEEDS, first_dealer=0)
            except EngineError as error:
                if error.reason != UNAVAILABLE:
                    raise
                time.sleep(0.1)
                continue
            self.seen.accept(self.match.match_id, 0, self.match.state)
            return True
        return False

    def step(self) -> str:
        """One action: "ok", "over", or the refusal's reason."""
        match = self.match
        assert match is not None
        public = match.views[0]
        if public.phase == types_pb2.PHASE_MATCH_OVER:
            return "over"
        if self.pending is None:
            seat = public.dealer if public.phase in BETWEEN else public.turn
            self.pending = (seat, choose(match.views[seat], self.rng))
        seat, action = self.pending
        before = (match.state, match.version, list(match.views))
        started = time.perf_counter()
        try:
            match.act(seat, action)
        except EngineError as error:
            if error.reason != UNAVAILABLE:
                self.pending = None
            return str(error.reason)
        self.latencies.append(time.perf_counter() - started)
        self.pending = None
        self.history.append(Token(*before, seat, action))
        self.seen.accept(match.match_id, match.version, match.state)
        return "ok"

    def step_through(self) -> str:
        """One action (a read of the latest token once the match is over), sent again while
        the ledger is unavailable."""
        for _ in range(RESENDS):
            outcome = self.step()
            if outcome == "over":
                outcome = self.read()
            if outcome != UNAVAILABLE:
                if outcome not in ("ok", "over"):
                    self.refused.append(outcome)
                return outcome
            time.sleep(0.1)
        self.refused.append("unavailable for good")
        return UNAVAILABLE

    def read(self) -> str:
        """A read of the latest token: "over", or the refusal's reason."""
        assert self.match is not None
        try:
            self.match.view(0)
        except EngineError as error:
            return str(error.reason)
        return "over"

    def attack(self, age: int) -> tuple[int, str]:
        """A different action on the newest older token at least ``age`` versions behind the
        latest: (the token's age, "accepted" or the refusal's reason)."""
        match = self.match
        assert match is not None
        for token in reversed(self.history):
            if token.version <= match.version - age and token.others():
                break
        else:
            return 0, "no token"
        copy = Match(
            client=self.client,
            match_id=match.match_id,
            host_credential=match.host_credential,
            seat_credentials=match.seat_credentials,
            state=token.state,
            version=token.version,
            views=token.views,
        )
        other = self.rng.choice(token.others())
        for _ in range(RESENDS):
            try:
                copy.act(token.seat, other)
            except EngineError as error:
                if error.reason == UNAVAILABLE:
                    time.sleep(0.1)
                    continue
                return match.version - token.version, str(error.reason)
            self.seen.accept(match.match_id, copy.version, copy.state)
            return match.version - token.version, "accepted"
        return match.version - token.version, UNAVAILABLE


@dataclasses.dataclass
class Tally:
    """What one configuration's runs measured."""

    runs: int = 0
    refused_outright: bool = False
    matches: int = 0
    actions: int = 0
    latencies: list[float] = dataclasses.field(default_factory=list)
    lost: list[int] = dataclasses.field(default_factory=list)  # versions lost per match
    forgotten: int = 0  # matches whose record was gone
    kills_with_loss: int = 0
    buffered_kills: int = 0  # kills with acknowledged writes in the AOF buffer
    forks: Counter[str] = dataclasses.field(default_factory=Counter)  # by order
    attacks: Counter[str] = dataclasses.field(default_factory=Counter)  # outcome by order
    honest_refused: Counter[str] = dataclasses.field(default_factory=Counter)  # by order
    ages: Counter[int] = dataclasses.field(default_factory=Counter)


class DiskLoad:
    """A writer that keeps the disk busy (and Redis's background fsyncs slow)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._write, daemon=True)

    def _write(self) -> None:
        chunk = os.urandom(1 << 20)
        index = 0
        while not self.stop.is_set():
            path = self.directory / f"load{index % 2}"
            with path.open("wb") as file:
                for _ in range(32):
                    file.write(chunk)
                file.flush()
                os.fsync(file.fileno())
            index += 1

    def __enter__(self) -> DiskLoad:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(60)
        for path in self.directory.glob("load*"):
            path.unlink()


def persistence_info(redis: RedisServer) -> dict[str, Any]:
    client = redis_py.Redis(host="127.0.0.1", port=redis.port, socket_timeout=2)
    try:
        return dict(client.info("persistence"))
    finally:
        client.close()


def kept_version(redis: RedisServer, match_id: str) -> int | None:
    value = redis.get(f"baloot:match:{match_id}")
    return None if value is None else Entry.version_in(value.encode())


def one_run(
    target: str, redis: RedisServer, seen: Seen, tally: Tally, rng: random.Random, args: Any
) -> None:
    loaded = args.loaded
    with grpc.insecure_channel(target) as channel:
        client = EngineClient(channel)
        players = [Honest(client, seen, random.Random(rng.random())) for _ in range(args.matches)]
        if not all(p.create() for p in players):
            tally.refused_outright = True
            return
        tally.matches += len(players)
        stop = threading.Event()

        def play(player: Honest) -> None:
            while not stop.is_set():
                outcome = player.step()
                if outcome == "over":
                    return
                if outcome == UNAVAILABLE:
                    return  # Redis is down: the request is pending, sent again after
                assert outcome == "ok", outcome

        threads = [threading.Thread(target=play, args=(p,)) for p in players]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 120
        while min(p.match.version for p in players if p.match) < MIN_VERSION:
            if time.monotonic() > deadline or not any(t.is_alive() for t in threads):
                raise RuntimeError("the matches did not reach their version before the kill")
            time.sleep(0.02)
        time.sleep(rng.uniform(*PLAY_AFTER))
        buffered = False
        if loaded:
            # Writes held back: a background fsync pending and acknowledged writes in the AOF
            # buffer, seen twice in a row (once could be the writes of the same event-loop
            # turn, which Redis writes before it sleeps, unless an fsync is pending).
            waited, seen_once = time.monotonic() + LOAD_WINDOW, False
            while time.monotonic() < waited and not buffered:
                info = persistence_info(redis)
                held = info.get("aof_buffer_length", 0) and info.get("aof_pending_bio_fsync", 0)
                buffered, seen_once = bool(held and seen_once), bool(held)
        redis.kill()
        stop.set()
        for thread in threads:
            thread.join(60)
        tally.buffered_kills += buffered
        redis.start()
        tally.runs += 1
        lost_here = 0
        for player in players:
            assert player.match is not None
            kept = kept_version(redis, player.match.match_id)
            if kept is None:  # not in any snapshot yet: every version lost
                tally.forgotten += 1
                tally.lost.append(player.match.version)
                lost_here += player.match.version
                continue
            # The acknowledged version is the honest client's; a pending request may have
            # been recorded without an answer (kept one above: nothing lost).
            lost = max(0, player.match.version - kept)
            tally.lost.append(lost)
            lost_here += lost
        tally.kills_with_loss += lost_here > 0
        for index, player in enumerate(players):
            assert player.match is not None
            order = "older first" if index % 2 == 0 else "latest first"
            age = 1 + (tally.runs + index // 2) % 6
            if order == "older first":
                got_age, outcome = player.attack(age)
                player.step_through()
            else:
                player.step_through()
                got_age, outcome = player.attack(age + 1)  # the latest moved on by one
            tally.ages[got_age] += 1
            tally.attacks[f"{order}: {outcome}"] += 1
            for _ in range(3):
                if player.refused or player.step_through() == "over":
                    break
            if player.refused:
                tally.honest_refused[order] += 1
            if seen.forked(player.match.match_id):
                tally.forks[order] += 1
        for player in players:
            tally.actions += len(player.history)
            tally.latencies.extend(player.latencies)


def run_config(config: str, runs: int, args: Any, rng: random.Random) -> Tally:
    setting, durability = config.split("/")
    persistence, _, load = setting.partition("+")
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="baloot-faults-") as directory:
        redis = RedisServer(Path(directory) / "redis", persistence=persistence).start()
        try:
            settings = make_settings(
                state_keys=(KEY_A,),
                ledger=redis.url,
                ledger_timeout_seconds=0.5,
                ledger_durability=Durability(durability),
            )
            seen = Seen()
            args.loaded = bool(load)
            with InProcessServer(settings) as server:
                if load:
                    with DiskLoad(Path(directory)):
                        for _ in range(runs):
                            one_run(server.target, redis, seen, tally, rng, args)
                else:
                    for _ in range(runs):
                        one_run(server.target, redis, seen, tally, rng, args)
                        if tally.refused_outright:
                            break
        finally:
            redis.stop()
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="runs of always/checked")
    parser.add_argument("--other-runs", type=int, default=6, help="runs of the others")
    parser.add_argument("--matches", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--configs", default=",".join(DEFAULT_CONFIGS))
    args = parser.parse_args()
    configure_logging(make_settings(log_level=LogLevel.ERROR), stream=sys.stderr)
    rng = random.Random(args.seed)
    tallies: dict[str, Tally] = {}
    for config in args.configs.split(","):
        runs = args.runs if config == "always/checked" else args.other_runs
        started = time.monotonic()
        tallies[config] = tally = run_config(config, runs, args, rng)
        print(f"{config}: {tally.runs} runs in {time.monotonic() - started:.0f} s", flush=True)
    baseline = tallies.get("everysec/lossy")
    base = statistics.median(baseline.latencies) if baseline and baseline.latencies else None
    print()
    print(
        "| Redis / durability | runs | matches | actions | latency | versions lost (kills "
        "with loss; buffered kills) | forks older / latest first | honest refused older / "
        "latest first | attacks |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for config, t in tallies.items():
        if t.refused_outright:
            print(f"| {config} | refused: every call LEDGER_UNAVAILABLE | | | | | | | |")
            continue
        latency = f"x{statistics.median(t.latencies) / base:.2f}" if base and t.latencies else "-"
        lost = (
            f"{sum(t.lost)} (max {max(t.lost, default=0)} per match; {t.kills_with_loss} of "
            f"{t.runs}; {t.buffered_kills})"
        )
        if t.forgotten:
            lost += f", {t.forgotten} forgotten"
        forks = f"{t.forks['older first']} / {t.forks['latest first']}"
        refused = f"{t.honest_refused['older first']} / {t.honest_refused['latest first']}"
        attacks = "; ".join(f"{k} {v}" for k, v in sorted(t.attacks.items()))
        print(
            f"| {config} | {t.runs} | {t.matches} | {t.actions} | {latency} | {lost} | {forks} "
            f"| {refused} | {attacks} |"
        )
    if base:
        print(
            f"\nlatency: median accepted action, as a ratio to everysec/lossy ({base * 1e3:.1f} ms)"
        )


if __name__ == "__main__":
    main()
