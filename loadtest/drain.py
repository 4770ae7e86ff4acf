"""The drain under load: SIGTERM while calls are in flight; how every call ended.

    python -m loadtest.drain [--workers 1] [--threads 24] [--before 4] [--runs 1]

Starts ``baloot-server`` (``--workers`` processes on one port, its defaults otherwise: a 5 s
lame duck, a 10 s grace period), prepares a few matches at a first lead with Sawa on, then
runs ``--threads`` client threads, each on a channel of its own keeping ``--in-flight``
calls going (a call sent as soon as one ends): mostly CreateMatch, GetView and ApplyBotAction
at BASIC, now and then SuggestAction at EXPERT (the bots lane, up to half a second) and a Sawa
claim (the judge lane, answered a second after it began). After ``--before`` seconds the
server gets SIGTERM; the threads go on sending until the server has exited. Every call's
status is counted, apart for the calls sent before the signal and those sent after it, with
the reason of each refusal.

The bar: no call ends CANCELLED (which no client retries) and no call sent before the signal
ends UNAVAILABLE without a reason (a connection cut). A call sent after the signal may be
refused UNAVAILABLE (the server is going: DRAINING, or no server listening any more); those
are counted. Exit status 0 when the bar holds; traffic goes to 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import grpc
from baloot_client import EngineClient, EngineError

from baloot.v1 import engine_service_pb2, engine_service_pb2_grpc, rules_pb2, types_pb2
from loadtest.stack import new_state_key, start_service

pb: Any = engine_service_pb2
KINDS: Final = (*("create", "view", "bot") * 6, "suggest", "claim")
"""Mostly cheap calls (those grpc may hold in its queue), a heavy one now and then."""


@dataclass
class Tally:
    """How the calls ended: (sent before the signal?, status, reason) counted."""

    counts: Counter[tuple[bool, str, str]] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, before: bool, code: str, reason: str) -> None:
        with self.lock:
            self.counts[(before, code, reason)] += 1


def prepared(client: EngineClient, count: int) -> list[tuple[Any, int]]:
    """``count`` matches at their first lead with Sawa on, and each one's leader."""
    rules = rules_pb2.RuleSet(preset=rules_pb2.PRESET_SEEDS, sawa=True)
    tables: list[tuple[Any, int]] = []
    while len(tables) < count:
        match = client.create_match(rules, first_dealer=0)
        while match.views[0].phase != types_pb2.PHASE_PLAYING:
            match.bot_act(match.views[0].turn)
        tables.append((match, match.views[0].turn))
    return tables


def requests(tables: Sequence[tuple[Any, int]], index: int) -> Callable[[int], tuple[str, Any]]:
    """The ``n``-th call of thread ``index``: its method name and request."""

    def nth(n: int) -> tuple[str, Any]:
        kind = KINDS[(index + n) % len(KINDS)]
        match, leader = tables[(index + n) % len(tables)]
        common = {"state": match.state, "match_id": match.match_id}
        host = match.host_credential
        if kind == "create":
            return "CreateMatch", pb.CreateMatchRequest()
        if kind == "view":
            return "GetView", pb.GetViewRequest(credential=host, **common)
        if kind == "suggest":
            request = pb.SuggestActionRequest(
                seat=leader, level=pb.BOT_LEVEL_EXPERT, credential=host, **common
            )
            return "SuggestAction", request
        if kind == "claim":
            play = types_pb2.CardPlay(sawa=True)
            return "PlayCard", pb.PlayCardRequest(seat=leader, play=play, credential=host, **common)
        request = pb.ApplyBotActionRequest(
            seat=leader, level=pb.BOT_LEVEL_BASIC, credential=host, **common
        )
        return "ApplyBotAction", request

    return nth


def load(
    target: str,
    nth: Callable[[int], tuple[str, Any]],
    in_flight: int,
    signalled: threading.Event,
    done: threading.Event,
    tally: Tally,
) -> None:
    """Keep ``in_flight`` calls going on one channel until ``done``; count how each ended."""
    with grpc.insecure_channel(target) as channel:
        stub = engine_service_pb2_grpc.BalootEngineServiceStub(channel)
        lock = threading.Lock()
        sent = [0]
        running = threading.Semaphore(0)

        def send() -> None:
            with lock:
                n = sent[0]
                sent[0] += 1
            method, request = nth(n)
            before = not signalled.is_set()
            future = getattr(stub, method).future(request, timeout=30)
            future.add_done_callback(lambda f: ended(f, before))

        def ended(future: Any, before: bool) -> None:
            error = future.exception()
            if error is None:
                tally.add(before, "OK", "")
            else:
                refusal = EngineError.from_rpc_error(error)
                reason = refusal.reason or (error.details() or "")[:60]
                tally.add(before, refusal.code.name, reason)
                if refusal.code.name == "UNAVAILABLE" and not refusal.reason:
                    time.sleep(0.05)  # no server: do not spin
            if done.is_set():
                running.release()
                return
            threading.Thread(target=send, daemon=True).start()

        for _ in range(in_flight):
            send()
        done.wait()
        for _ in range(in_flight):
            running.acquire(timeout=35)


@dataclass(frozen=True)
class RunResult:
    """One run's counts and what the server's log said."""

    counts: Counter[tuple[bool, str, str]]
    exit_code: int | None
    seconds_to_exit: float

    def bad(self) -> int:
        """Calls that broke the bar: CANCELLED, or sent before the signal and ended without
        an answer or a refusal with a reason (a cut connection, an error of grpc's own)."""
        return sum(
            count
            for (before, code, reason), count in self.counts.items()
            if code == "CANCELLED" or (before and code != "OK" and not _has_reason(reason))
        )


def _has_reason(reason: str) -> bool:
    return reason.isupper() and " " not in reason  # an ErrorReason name, not grpc's text


def run(workers: int, threads: int, in_flight: int, before: float, log_dir: Path) -> RunResult:
    """One server, loaded, SIGTERM after ``before`` seconds; the counts."""
    service = start_service(
        log_dir, workers=workers, key=new_state_key(), log_level="info", grace_seconds=10
    )
    tally = Tally()
    signalled, done = threading.Event(), threading.Event()
    try:
        with grpc.insecure_channel(service.target) as channel:
            tables = prepared(EngineClient(channel, timeout=30), 6)
        pool = [
            threading.Thread(
                target=load,
                args=(service.target, requests(tables, i), in_flight, signalled, done, tally),
                daemon=True,
            )
            for i in range(threads)
        ]
        for thread in pool:
            thread.start()
        time.sleep(before)
        signalled.set()
        sent = time.monotonic()
        service.child.popen.send_signal(signal.SIGTERM)
        try:
            service.child.popen.wait(60)
        finally:
            exited = time.monotonic() - sent
            time.sleep(0.5)  # the calls sent while it exited end too
            done.set()
            for thread in pool:
                thread.join(35)
    finally:
        code = service.child.stop()
    return RunResult(tally.counts, code, exited)


def report(result: RunResult, workers: int) -> list[str]:
    """The counts as lines."""
    lines = [
        (
            f"workers {workers}: exit {result.exit_code}, {result.seconds_to_exit:.1f} s from "
            f"SIGTERM to exit; calls breaking the bar: {result.bad()}"
        )
    ]
    for when in (True, False):
        rows = sorted(
            ((code, reason), count)
            for (before, code, reason), count in result.counts.items()
            if before is when
        )
        shown = ", ".join(
            f"{code}{'/' + reason if reason else ''} {n:,}" for (code, reason), n in rows
        )
        lines.append(f"  sent {'before' if when else 'after'} SIGTERM: {shown or 'none'}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Run the drain under load; print the counts; 0 when the bar holds."""
    parser = argparse.ArgumentParser(prog="python -m loadtest.drain", description=__doc__)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--threads", type=int, default=16, help="channels, a thread each")
    parser.add_argument("--in-flight", type=int, default=16, help="calls in flight a channel")
    parser.add_argument("--before", type=float, default=4.0, help="seconds of load before SIGTERM")
    parser.add_argument("--runs", type=int, default=1, help="runs per worker count")
    parser.add_argument("--logs", type=Path, help="keep the servers' logs here")
    args = parser.parse_args(argv)
    print(f"load average at the start: {os.getloadavg()}", flush=True)
    bad = 0
    with tempfile.TemporaryDirectory(prefix="baloot-drain-") as scratch:
        for workers in args.workers:
            for index in range(args.runs):
                log_dir = (args.logs or Path(scratch)) / f"w{workers}-{index}"
                result = run(workers, args.threads, args.in_flight, args.before, log_dir)
                bad += result.bad()
                print("\n".join(report(result, workers)), flush=True)
    print(f"load average at the end: {os.getloadavg()}")
    print(f"drain: {'PASS' if not bad else 'FAIL'} ({bad} calls broke the bar)")
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
