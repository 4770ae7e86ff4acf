"""Redis killed under load: no match of the ledger may fork.

A redis-server with AOF (``appendfsync everysec``, so a kill loses up to a second of writes)
backs one in-process engine with the ledger. Player threads play random matches with the host
credential; a refused call is handled as a client would (``LEDGER_UNAVAILABLE``: send again;
``MATCH_UNKNOWN``: a new match), and a latest token refused as ``STALE_STATE`` is followed by
the attack of issue 27: a different action on an older token, newest first, until one is
accepted. Meanwhile redis-server is
killed (SIGKILL) and restarted on its AOF, ``--kills`` times. A killed process loses nothing the
kernel already has, so ``--persistence rdb`` (a snapshot a second, no AOF) makes the loss
certain: the ledger comes back behind the tokens. Every accepted state is noted
by (match, version) with the digest of its plaintext; a fork is a (match, version) with two.

    python bench/ledger_faults.py [--kills 14] [--interval 1.5] [--players 4] [--seed 1]
"""

from __future__ import annotations

import argparse
import hashlib
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from baloot_client import EngineClient, EngineError, Match
from tests.api.conftest import KEY_A, SEEDS, InProcessServer, make_settings
from tests.api.redis_server import free_port

from baloot_engine.api.sealing import KeyRing

RING = KeyRing.from_texts((KEY_A,))
HISTORY = 400  # the older tokens a player keeps, to attack with
OVER = 6  # PHASE_MATCH_OVER


class Redis:
    """A redis-server with an append-only file, killed and restarted on it."""

    def __init__(self, directory: Path, persistence: str) -> None:
        self.directory = directory
        self.persistence = persistence
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        binary = shutil.which("redis-server")
        assert binary, "redis-server is not installed"
        argv = [
            binary,
            *("--bind", "127.0.0.1", "--port", str(self.port)),
            *(
                ("--save", "", "--appendonly", "yes", "--appendfsync", "everysec")
                if self.persistence == "aof"
                else ("--save", "1 1", "--appendonly", "no")
            ),
            *("--dir", str(self.directory), "--logfile", str(self.directory / "redis.log")),
        ]
        self.process = subprocess.Popen(argv, stdin=subprocess.DEVNULL)  # noqa: S603
        time.sleep(0.3)

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)


class Ledgered:
    """What the players saw: accepted states by (match, version), and the refusals."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.accepted: dict[tuple[str, int], set[bytes]] = defaultdict(set)
        self.refusals: Counter[str] = Counter()
        self.attacks = 0
        self.actions = 0

    def accept(self, match_id: str, version: int, state: bytes) -> None:
        digest = hashlib.sha256(RING.open(state, bytes.fromhex(match_id))).digest()[:16]
        with self.lock:
            self.accepted[match_id, version].add(digest)
            self.actions += 1

    def forks(self) -> int:
        return sum(len(digests) > 1 for digests in self.accepted.values())


def player(target: str, seed: int, stop: threading.Event, seen: Ledgered) -> None:
    rng = random.Random(seed)
    with grpc.insecure_channel(target) as channel:
        client = EngineClient(channel)
        while not stop.is_set():
            try:
                match = client.create_match(SEEDS, first_dealer=0)
            except EngineError as error:
                seen.refusals[error.reason] += 1
                time.sleep(0.05)
                continue
            seen.accept(match.match_id, 0, match.state)
            history: list[tuple[bytes, int, list[Any]]] = []  # the tokens before the latest
            while not stop.is_set() and match.views[0].phase != OVER:
                turn = match.views[0].turn
                legal = list(match.views[turn].legal_actions)
                if not legal:
                    break
                before = (match.state, match.version, list(match.views))
                try:
                    match.act(turn, rng.choice(legal))
                except EngineError as error:
                    seen.refusals[error.reason] += 1
                    if error.reason == "LEDGER_UNAVAILABLE":
                        time.sleep(0.05)
                        continue
                    if error.reason == "STALE_STATE":
                        attack(match, history, rng, seen)
                    break  # MATCH_UNKNOWN, STALE_STATE, anything else: a new match
                seen.accept(match.match_id, match.version, match.state)
                history = [*history[-(HISTORY - 1) :], before]


def attack(
    match: Match, history: list[tuple[bytes, int, list[Any]]], rng: Any, seen: Ledgered
) -> None:
    """The latest token refused: try a different action on each older token, newest first,
    until one is accepted (a fork) or every one is refused."""
    seen.attacks += 1
    for state, version, views in reversed(history):
        match.state, match.version, match.views = state, version, views
        turn = views[0].turn
        try:
            match.act(turn, rng.choice(list(views[turn].legal_actions)))
        except EngineError as again:
            seen.refusals["attack " + again.reason] += 1
            continue
        seen.accept(match.match_id, match.version, match.state)
        return


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kills", type=int, default=14)
    parser.add_argument("--interval", type=float, default=1.5)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--persistence",
        choices=("aof", "rdb"),
        default="aof",
        help="aof: appendfsync everysec; rdb: a snapshot a second (a kill loses the writes since)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        redis = Redis(Path(directory), args.persistence)
        redis.start()
        url = f"redis://127.0.0.1:{redis.port}/0"
        settings = make_settings(state_keys=(KEY_A,), ledger=url, ledger_timeout_seconds=0.3)
        seen = Ledgered()
        stop = threading.Event()
        with InProcessServer(settings) as server:
            threads = [
                threading.Thread(target=player, args=(server.target, args.seed + i, stop, seen))
                for i in range(args.players)
            ]
            for thread in threads:
                thread.start()
            for _ in range(args.kills):
                time.sleep(args.interval)
                redis.kill()
                time.sleep(0.2)
                redis.start()
            time.sleep(args.interval)
            stop.set()
            for thread in threads:
                thread.join(30)
            metrics = server.app.metrics
            recovered = metrics.ledger_answers.labels(answer="recovered")._value.get()
        redis.kill()
    print(f"{args.kills} kills of redis-server ({args.persistence}), {args.players} players")
    print(f"  accepted states: {seen.actions} in {len({m for m, _ in seen.accepted})} matches")
    print(f"  refusals: {dict(seen.refusals)}")
    print(f"  ledger behind a token (recovered): {recovered:.0f}; fork attempts: {seen.attacks}")
    print(f"  forks: {seen.forks()}")


if __name__ == "__main__":
    main()
