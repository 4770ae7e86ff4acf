"""Starvation attacks against a real server, and what the victim table feels of them.

A victim table plays through a real ``baloot-server``: a ``PlayCard`` every 20 ms and a STRONG
bot turn (``SuggestAction``) after each answer, for ``--seconds``. First alone (the baseline),
then while an attacker, in a process of its own, keeps one of three floods going:

* ``streams``: ``--streams`` (300) ``AnalyzeRecord`` streams at DEEP, each re-sent when it ends;
* ``solves``: ``--solves`` (16) ``SolveDeal`` calls, each re-sent when it ends;
* ``sawa``: ``--claims`` (300) Sawa claims in flight on freshly minted matches (a host
  credential is free), each re-sent when it is answered.

The attacker has no API key, or with ``--attacker-key`` the deployment's second key (a paying
client abusing its own quota). Two deployments: ``keyed`` (``BALOOT_API_KEYS`` set, the
production setting; the victim's backend has its own key) and ``local`` (no keys: heavy work
open to every caller, under the anonymous quota).

Printed per attack: the victim's ``PlayCard`` and STRONG-turn p50 and p99 during the attack as
a ratio to the same run's baseline (the bar is 1.5), the victim's refusals (bar 0), and the
attacker's answers by reason. Then the dearest call that needs no credential: the server's CPU
(its whole process tree, from /proc) per unauthenticated call of each heavy kind at its
limits, in ms and as a ratio to a health check's. Everything is loopback, bounded in time, and
stops by itself; the machine's load is printed with each figure.

    python bench/bench_lanes.py [--seconds 10] [--attacks streams,solves,sawa]
        [--deployments keyed,local] [--attacker-key]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from loadtest.stack import Service, cpu_seconds, new_state_key, process_tree, start_service

from baloot.v1 import analysis_pb2, rules_pb2, types_pb2
from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc

VICTIM_KEY = "victim-backend-key-0000000001"
ATTACKER_KEY = "attacker-paying-key-000000002"
KEYS = f"victim:{VICTIM_KEY},attacker:{ATTACKER_KEY}"


# ---------------------------------------------------------------------------------------
# Requests


def _record() -> Any:
    from baloot_engine.analysis.selfplay import play_record
    from baloot_engine.api.analysis import record_message
    from baloot_engine.bots import Level

    start, rounds = play_record([Level.BASIC] * 4, 11, max_rounds=6)
    return record_message(start, rounds)


async def _playing(stub: Any, rules: rules_pb2.RuleSet | None = None) -> tuple[Any, bytes, int]:
    """A new match played by BASIC bots (inline, free) to its first lead: created, token, seat."""
    created = await stub.CreateMatch(pb.CreateMatchRequest(first_dealer=0, rules=rules))
    state = created.state
    for _ in range(200):
        view = (
            await stub.GetView(
                pb.GetViewRequest(
                    state=state, match_id=created.match_id, credential=created.host_credential
                )
            )
        ).view
        if view.phase == types_pb2.PHASE_PLAYING:
            return created, state, view.turn
        seat = 0 if view.phase == types_pb2.PHASE_AWAITING_DEAL else view.turn
        if view.phase == types_pb2.PHASE_AWAITING_DEAL:
            seat = view.dealer
        applied = await stub.ApplyBotAction(
            pb.ApplyBotActionRequest(
                state=state,
                match_id=created.match_id,
                credential=created.host_credential,
                seat=seat,
                level=pb.BOT_LEVEL_BASIC,
            )
        )
        state = applied.state
    raise RuntimeError("no card to play after 200 actions")


def _reason(error: grpc.aio.AioRpcError) -> str:
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    if status is not None:
        for detail in status.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                return info.reason
    return error.code().name


# ---------------------------------------------------------------------------------------
# The attacker (a process of its own)


def attacker_main(
    target: str,
    kind: str,
    width: int,
    seconds: float,
    key: str,
    record: bytes,
    out: Any,
    nice: int = 0,
) -> None:
    """Keep ``width`` calls of ``kind`` in flight for ``seconds``; put the answers by reason.
    ``nice`` lowers the attacker's own priority: its client's CPU is this machine's too, where
    a real attacker's would be another machine's."""
    if nice:
        os.nice(nice)
    asyncio.run(_attack(target, kind, width, seconds, key, record, out))


async def _attack(
    target: str, kind: str, width: int, seconds: float, key: str, record: bytes, out: Any
) -> None:
    answers: Counter[str] = Counter()
    metadata = (("x-api-key", key),) if key else ()
    options = [("grpc.max_receive_message_length", 8 << 20)]
    async with grpc.aio.insecure_channel(target, options=options) as channel:
        stub = pb_grpc.BalootEngineServiceStub(channel)
        stop = time.monotonic() + seconds
        make = await _attack_kind(stub, kind, record, metadata)

        async def one() -> None:
            while time.monotonic() < stop:
                try:
                    await make(max(0.1, stop - time.monotonic()))
                    answers["OK"] += 1
                except grpc.aio.AioRpcError as error:
                    answers[_reason(error)] += 1

        await asyncio.gather(*(one() for _ in range(width)))
    out.put(dict(answers))


async def _attack_kind(
    stub: Any, kind: str, record: bytes, metadata: Any
) -> Callable[[float], Awaitable[None]]:
    if kind == "streams":
        request = analysis_pb2.AnalyzeRecordRequest(
            depth=analysis_pb2.ANALYSIS_DEPTH_DEEP,
        )
        request.record.ParseFromString(record)

        async def stream(timeout: float) -> None:  # noqa: ASYNC109 - the call's deadline
            async for _ in stub.AnalyzeRecord(request, metadata=metadata, timeout=timeout):
                pass

        return stream
    if kind == "solves":
        solve = pb.SolveDealRequest()
        solve.record.record.ParseFromString(record)
        actions = solve.record.record.rounds[0].actions
        solve.record.action_index = next(
            i for i, a in enumerate(actions) if a.action.WhichOneof("action") == "play"
        )

        async def solving(timeout: float) -> None:  # noqa: ASYNC109
            await stub.SolveDeal(solve, metadata=metadata, timeout=timeout)

        return solving
    assert kind == "sawa"
    rules = rules_pb2.RuleSet(preset=rules_pb2.PRESET_SEEDS, sawa=True)
    claims = []
    for _ in range(20):
        created, state, seat = await _playing(stub, rules)
        claims.append(
            pb.PlayCardRequest(
                state=state,
                match_id=created.match_id,
                credential=created.host_credential,
                seat=seat,
                play=types_pb2.CardPlay(sawa=True),
            )
        )
    turn = [0]

    async def claim(timeout: float) -> None:  # noqa: ASYNC109
        turn[0] += 1
        await stub.PlayCard(claims[turn[0] % len(claims)], metadata=metadata, timeout=timeout)

    return claim


# ---------------------------------------------------------------------------------------
# The victim


async def victim_table(target: str) -> tuple[pb.PlayCardRequest, pb.SuggestActionRequest]:
    """The victim's table at its first lead: the card it plays again and again, and the STRONG
    turn it asks for (seeded: the same decision, so the same work, alone and attacked)."""
    async with grpc.aio.insecure_channel(target) as channel:
        stub = pb_grpc.BalootEngineServiceStub(channel)
        created, state, seat = await _playing(stub)
        view = (
            await stub.GetView(
                pb.GetViewRequest(
                    state=state,
                    match_id=created.match_id,
                    credential=created.host_credential,
                    seat=seat,
                )
            )
        ).view
    card = next(a.play for a in view.legal_actions if a.WhichOneof("action") == "play")
    common = {"state": state, "match_id": created.match_id, "credential": created.host_credential}
    playing = pb.PlayCardRequest(seat=seat, play=card, **common)
    suggesting = pb.SuggestActionRequest(seat=seat, level=pb.BOT_LEVEL_STRONG, seed=7, **common)
    return playing, suggesting


async def victim(
    target: str,
    seconds: float,
    key: str,
    table: tuple[pb.PlayCardRequest, pb.SuggestActionRequest],
) -> tuple[list[float], list[float], Counter[str]]:
    """PlayCard latencies (ms), STRONG turn latencies (ms), refusals by reason."""
    refused: Counter[str] = Counter()
    metadata = (("x-api-key", key),) if key else ()
    playing, suggesting = table
    async with grpc.aio.insecure_channel(target) as channel:
        stub = pb_grpc.BalootEngineServiceStub(channel)
        await stub.SuggestAction(suggesting, metadata=metadata)  # warm
        plays: list[float] = []
        turns: list[float] = []
        stop = time.monotonic() + seconds

        async def play_loop() -> None:
            while time.monotonic() < stop:
                began = time.perf_counter()
                try:
                    await stub.PlayCard(playing, timeout=10)
                    plays.append((time.perf_counter() - began) * 1000)
                except grpc.aio.AioRpcError as error:
                    refused[f"PlayCard {_reason(error)}"] += 1
                await asyncio.sleep(0.02)

        async def bot_loop() -> None:
            while time.monotonic() < stop:
                began = time.perf_counter()
                try:
                    await stub.SuggestAction(suggesting, metadata=metadata, timeout=10)
                    turns.append((time.perf_counter() - began) * 1000)
                except grpc.aio.AioRpcError as error:
                    refused[f"SuggestAction {_reason(error)}"] += 1
                await asyncio.sleep(0.05)

        await asyncio.gather(play_loop(), bot_loop())
    return plays, turns, refused


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else float("nan")


def run_attack(
    service: Service, kind: str, args: argparse.Namespace, victim_key: str, attacker_key: str
) -> None:
    record = RECORD.SerializeToString()
    table = asyncio.run(victim_table(service.target))
    base_plays, base_turns, base_refused = asyncio.run(
        victim(service.target, args.seconds, victim_key, table)
    )
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    width = {"streams": args.streams, "solves": args.solves, "sawa": args.claims}[kind]
    attacker = context.Process(
        target=attacker_main,
        args=(
            service.target,
            kind,
            width,
            args.seconds + 4,
            attacker_key,
            record,
            out,
            args.attacker_nice,
        ),
    )
    attacker.start()
    time.sleep(3.0)  # the flood builds up (the Sawa attacker mints its matches first)
    plays, turns, refused = asyncio.run(victim(service.target, args.seconds, victim_key, table))
    answers = out.get(timeout=args.seconds + 120)
    attacker.join(30)
    load = os.getloadavg()[0]
    who = ("keyed" if attacker_key else "no key") + f", nice {args.attacker_nice}"
    print(f"  attack {kind:<8} ({width} in flight, attacker {who})")
    for name, before, during in (
        ("PlayCard", base_plays, plays),
        ("STRONG turn", base_turns, turns),
    ):
        print(
            f"    {name:<12} alone p50 {_p(before, 0.5):7.2f} p99 {_p(before, 0.99):7.2f} ms"
            f" | attacked p50 {_p(during, 0.5):7.2f} p99 {_p(during, 0.99):7.2f} ms"
            f" | ratio p50 {_p(during, 0.5) / _p(before, 0.5):5.2f}x"
            f" p99 {_p(during, 0.99) / _p(before, 0.99):5.2f}x  ({len(during)} calls)"
        )
    print(
        f"    victim refusals: alone {dict(base_refused) or 0}, attacked {dict(refused) or 0};"
        f" attacker's answers {answers}; load {load:.1f}"
    )


RECORD: Any = None


# ---------------------------------------------------------------------------------------
# The dearest call without a credential


async def _dearest(service: Service, count: int) -> None:
    tree = process_tree(service.child.pid)
    record = RECORD
    async with grpc.aio.insecure_channel(service.target) as channel:
        stub = pb_grpc.BalootEngineServiceStub(channel)
        health = health_pb2_grpc.HealthStub(channel)
        created, state, seat = await _playing(stub)
        analysis = analysis_pb2.AnalyzeRecordRequest(depth=analysis_pb2.ANALYSIS_DEPTH_DEEP)
        analysis.record.CopyFrom(record)
        fair = analysis_pb2.FairPlayReportRequest()
        for _ in range(10):
            fair.records.add().CopyFrom(record)
        solve = pb.SolveDealRequest()
        solve.record.record.CopyFrom(record)
        strong = pb.SuggestActionRequest(
            state=state,
            match_id=created.match_id,
            credential=created.host_credential,
            seat=seat,
            level=pb.BOT_LEVEL_EXPERT,
        )
        verify = pb.VerifyRecordRequest(record=record)

        async def check() -> None:
            await health.Check(health_pb2.HealthCheckRequest())

        async def refused(call: Callable[[], Awaitable[Any]]) -> None:
            with contextlib.suppress(grpc.aio.AioRpcError):
                await call()

        async def stream_once(request: Any, method: Any) -> None:
            async for _ in method(request, timeout=600):
                pass

        kinds: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
            ("health check (baseline)", check),
            ("SuggestAction EXPERT", lambda: refused(lambda: stub.SuggestAction(strong))),
            ("SolveDeal", lambda: refused(lambda: stub.SolveDeal(solve))),
            (
                "AnalyzeRecord DEEP",
                lambda: refused(lambda: stream_once(analysis, stub.AnalyzeRecord)),
            ),
            (
                "FairPlayReport of 10",
                lambda: refused(lambda: stream_once(fair, stub.FairPlayReport)),
            ),
            ("VerifyRecord (no key needed)", lambda: refused(lambda: stub.VerifyRecord(verify))),
        ]
        base = None
        for name, make in kinds:
            for _ in range(5):
                await make()
            tree = process_tree(service.child.pid)
            before = cpu_seconds(tree)
            # In waves of 50 at once: a refusal of heavy work is held up to a second.
            for start in range(0, count, 50):
                await asyncio.gather(*(make() for _ in range(min(50, count - start))))
            spent = (cpu_seconds(process_tree(service.child.pid)) - before) * 1000 / count
            base = spent if base is None else base
            ratio = f"{spent / base:6.2f}x" if base else "  n/a"
            print(
                f"    {name:<30} {spent:8.3f} ms of server CPU a call  ({ratio})",
                flush=True,
            )
    print(f"    (load {os.getloadavg()[0]:.1f}; {count} calls each)")


# ---------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--attacks", default="streams,solves,sawa")
    parser.add_argument("--deployments", default="keyed,local")
    parser.add_argument("--streams", type=int, default=300)
    parser.add_argument("--solves", type=int, default=16)
    parser.add_argument("--claims", type=int, default=300)
    parser.add_argument("--attacker-key", action="store_true")
    parser.add_argument(
        "--setting",
        action="append",
        default=[],
        help="BALOOT_X=value for the server (repeatable), e.g. BALOOT_LANE_JUDGE_QUEUE=8",
    )
    parser.add_argument(
        "--attacker-nice",
        type=int,
        default=0,
        help="the attacker process's nice level (its CPU is this machine's, not a remote one's)",
    )
    parser.add_argument("--calls", type=int, default=200, help="calls per kind for the CPU")
    args = parser.parse_args()
    global RECORD  # noqa: PLW0603 - made once, read by every attack
    RECORD = _record()
    with tempfile.TemporaryDirectory() as logs:
        for deployment in args.deployments.split(","):
            env = {"BALOOT_API_KEYS": KEYS} if deployment == "keyed" else {}
            env.update(setting.split("=", 1) for setting in args.setting)
            service = start_service(Path(logs), key=new_state_key(), name=deployment, env_extra=env)
            try:
                print(f"deployment {deployment}: {os.cpu_count()} cores")
                victim_key = VICTIM_KEY if deployment == "keyed" else ""
                attacker_key = ATTACKER_KEY if args.attacker_key and deployment == "keyed" else ""
                for kind in args.attacks.split(","):
                    run_attack(service, kind, args, victim_key, attacker_key)
                if deployment == "keyed":
                    print("  the dearest calls without a credential:")
                    asyncio.run(_dearest(service, args.calls))
            finally:
                service.child.stop()


if __name__ == "__main__":
    main()
