"""A bounded fuzz run: random and mutated request bodies on every RPC of one server process.

Starts ``baloot-server`` as a child process on free localhost ports, builds one valid request
per RPC from a real match (the engine's eleven RPCs, health ``Check`` and ``Watch``, server
reflection), then sends ``--requests`` bodies as raw bytes: random bytes, and valid bodies
with bits flipped, bytes replaced or inserted, cut short, or spliced with another. It prints
the statuses by code (per kind of mutation and per RPC), what the server logged for them, and
its own count of handled calls, and fails (exit status 1) when any call ended with UNKNOWN,
INTERNAL or DATA_LOSS, when the server logged a traceback, or when it stopped serving.

    python bench/fuzz_requests.py [--requests 20000] [--seed 1] [--concurrency 32]

Traffic goes to 127.0.0.1 only; the run ends by itself after ``--requests`` calls.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
from grpc_health.v1 import health_pb2
from grpc_reflection.v1alpha import reflection_pb2
from prometheus_client.parser import text_string_to_metric_families

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import rules_pb2, types_pb2

ENGINE = "/baloot.v1.BalootEngineService/"
SERVER_FAULTS = frozenset({"UNKNOWN", "INTERNAL", "DATA_LOSS"})


@dataclass(frozen=True)
class Rpc:
    """One method, its shape and a valid body for it."""

    path: str
    body: bytes
    shape: str = "unary"  # unary, server_stream, bidi_stream


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(
    port: int, metrics_port: int, scratch: Path
) -> tuple[subprocess.Popen[bytes], Path]:
    log = scratch / "server.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("BALOOT_")}
    env.update(
        BALOOT_HOST="127.0.0.1",
        BALOOT_PORT=str(port),
        BALOOT_METRICS_PORT=str(metrics_port),
        BALOOT_LOG_FORMAT="json",
        BALOOT_LOG_LEVEL="info",
        BALOOT_STATE_KEY_FILE=str(scratch / "state.key"),
    )
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "baloot_engine"], env=env, stderr=out, stdin=subprocess.DEVNULL
        )
    return process, log


async def wait_serving(channel: grpc.aio.Channel, within: float = 30) -> bool:
    check = channel.unary_unary(
        "/grpc.health.v1.Health/Check",
        request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
        response_deserializer=health_pb2.HealthCheckResponse.FromString,
    )
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            reply = await check(health_pb2.HealthCheckRequest(), timeout=2)
        except grpc.aio.AioRpcError:
            await asyncio.sleep(0.2)
            continue
        return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)
    return False


async def valid_requests(channel: grpc.aio.Channel) -> list[Rpc]:
    """One valid body per RPC, from a real match dealt and bid on."""

    def unary(name: str, response: Any) -> Any:
        return channel.unary_unary(
            ENGINE + name,
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=response.FromString,
        )

    create = pb.CreateMatchRequest(
        rules=rules_pb2.RuleSet(preset=rules_pb2.PRESET_SEEDS), first_dealer=0
    )
    created = await unary("CreateMatch", pb.CreateMatchResponse)(create, timeout=10)
    common = {"match_id": created.match_id, "credential": created.host_credential}
    deal = pb.DealRoundRequest(state=created.state, seat=0, expected_version=0, **common)
    dealt = await unary("DealRound", pb.DealRoundResponse)(deal, timeout=10)
    state, seat = dealt.state, dealt.views[0].turn
    view = dealt.views[seat]
    bid_action = next(a for a in view.legal_actions if a.WhichOneof("action") == "bid")
    act = {"state": state, "seat": seat, "expected_version": dealt.state_version, **common}
    card = view.hand[0]
    return [
        Rpc(ENGINE + "CreateMatch", create.SerializeToString()),
        Rpc(ENGINE + "DealRound", deal.SerializeToString()),
        Rpc(ENGINE + "PlaceBid", pb.PlaceBidRequest(bid=bid_action.bid, **act).SerializeToString()),
        Rpc(
            ENGINE + "CallDouble",
            pb.CallDoubleRequest(
                doubling=types_pb2.Doubling(call=types_pb2.DOUBLING_CALL_DOUBLE), **act
            ).SerializeToString(),
        ),
        Rpc(
            ENGINE + "DeclareProjects",
            pb.DeclareProjectsRequest(
                declaration=types_pb2.Declaration(kinds=[types_pb2.PROJECT_KIND_SIRA]), **act
            ).SerializeToString(),
        ),
        Rpc(
            ENGINE + "PlayCard",
            pb.PlayCardRequest(play=types_pb2.CardPlay(card=card), **act).SerializeToString(),
        ),
        Rpc(ENGINE + "GetScore", pb.GetScoreRequest(state=state, **common).SerializeToString()),
        Rpc(
            ENGINE + "GetView",
            pb.GetViewRequest(state=state, seat=seat, **common).SerializeToString(),
        ),
        Rpc(
            ENGINE + "ListLegalActions",
            pb.ListLegalActionsRequest(state=state, seat=seat, **common).SerializeToString(),
        ),
        Rpc(
            ENGINE + "SuggestAction",
            pb.SuggestActionRequest(
                state=state, seat=seat, level=pb.BOT_LEVEL_BASIC, seed=7, **common
            ).SerializeToString(),
        ),
        Rpc(
            ENGINE + "ScoreRound",
            pb.ScoreRoundRequest(
                contract_type=types_pb2.CONTRACT_TYPE_HOKM,
                trump=types_pb2.SUIT_HEARTS,
                buyer_team=0,
                card_abnat=[86, 76],
                tricks_won=[5, 3],
            ).SerializeToString(),
        ),
        Rpc(
            "/grpc.health.v1.Health/Check",
            health_pb2.HealthCheckRequest(service="").SerializeToString(),
        ),
        Rpc(
            "/grpc.health.v1.Health/Watch",
            health_pb2.HealthCheckRequest(service="").SerializeToString(),
            "server_stream",
        ),
        Rpc(
            "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
            reflection_pb2.ServerReflectionRequest(list_services="").SerializeToString(),
            "bidi_stream",
        ),
    ]


def mutate(rng: random.Random, rpcs: list[Rpc]) -> tuple[str, Rpc, bytes]:
    """A kind of mutation, the RPC it goes to, and the body."""
    rpc = rng.choice(rpcs)
    body = bytearray(rpc.body)
    kind = rng.choice(
        ("random", "bit_flips", "byte_set", "insert", "truncate", "splice", "tag_0x0a", "valid")
    )
    if kind == "random" or not body:
        return "random", rpc, rng.randbytes(rng.randrange(0, 200))
    if kind == "bit_flips":
        for _ in range(rng.randrange(1, 4)):
            i = rng.randrange(len(body))
            body[i] ^= 1 << rng.randrange(8)
    elif kind == "byte_set":
        for _ in range(rng.randrange(1, 4)):
            body[rng.randrange(len(body))] = rng.choice((0x00, 0x0A, 0x7F, 0x80, 0xFF))
    elif kind == "insert":
        i = rng.randrange(len(body) + 1)
        body[i:i] = rng.randbytes(rng.randrange(1, 16))
    elif kind == "truncate":
        del body[rng.randrange(len(body)) :]
    elif kind == "splice":
        other = rng.choice(rpcs).body
        body = body[: rng.randrange(len(body) + 1)] + other[rng.randrange(len(other) + 1) :]
    elif kind == "tag_0x0a":
        body = bytearray(b"\x0a")
    return kind, rpc, bytes(body)


async def send(channel: grpc.aio.Channel, rpc: Rpc, body: bytes) -> str:
    """Send ``body`` unparsed; return the status code name the call ended with."""
    try:
        if rpc.shape == "unary":
            await channel.unary_unary(rpc.path)(body, timeout=10)
        elif rpc.shape == "server_stream":
            call = channel.unary_stream(rpc.path)(body, timeout=10)
            await call.read()  # the first status of a Watch, then hang up
            call.cancel()
        else:
            call = channel.stream_stream(rpc.path)(timeout=10)
            await call.write(body)
            await call.done_writing()
            await call.read()
            call.cancel()
    except grpc.aio.AioRpcError as error:
        return str(error.code().name)
    return "OK"


def handled_by_code(metrics_url: str) -> Counter[str]:
    with urllib.request.urlopen(metrics_url, timeout=10) as reply:  # noqa: S310 - loopback
        text = reply.read().decode()
    codes: Counter[str] = Counter()
    for family in text_string_to_metric_families(text):
        if family.name == "grpc_server_handled":
            for sample in family.samples:
                if sample.name.endswith("_total"):
                    codes[sample.labels["grpc_code"]] += int(sample.value)
    return codes


async def fuzz(args: argparse.Namespace, target: str) -> tuple[Counter[tuple[str, str, str]], int]:
    rng = random.Random(args.seed)
    channel = grpc.aio.insecure_channel(target)
    try:
        if not await wait_serving(channel):
            raise SystemExit("fuzz: the server did not start")
        rpcs = await valid_requests(channel)
        if args.rpcs:
            rpcs = [rpc for rpc in rpcs if rpc.path.rpartition("/")[2] in args.rpcs.split(",")]
        plan = [mutate(rng, rpcs) for _ in range(args.requests)]
        results: Counter[tuple[str, str, str]] = Counter()
        queue = iter(plan)

        async def worker() -> None:
            for kind, rpc, body in queue:
                results[(kind, rpc.path.rpartition("/")[2], await send(channel, rpc, body))] += 1

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(args.concurrency)))
        elapsed = time.perf_counter() - start
        print(
            f"fuzz: {args.requests:,} requests over {len(rpcs)} RPCs in {elapsed:.1f} s "
            f"(seed {args.seed}, concurrency {args.concurrency})"
        )
        serving = await wait_serving(channel, within=5)
    finally:
        await channel.close()
    return results, int(serving)


def table(title: str, counts: dict[str, Counter[str]]) -> list[str]:
    codes = sorted({code for row in counts.values() for code in row})
    lines = [f"  {title:<22}" + "".join(f"{code:>20}" for code in codes)]
    for name, row in sorted(counts.items()):
        lines.append(f"  {name:<22}" + "".join(f"{row.get(code, 0):>20,}" for code in codes))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--rpcs", help="only these RPCs, comma-separated (e.g. PlayCard,Check)")
    args = parser.parse_args(argv)
    port, metrics_port = free_port(), free_port()
    with tempfile.TemporaryDirectory(prefix="baloot-fuzz-") as scratch:
        process, log = start_server(port, metrics_port, Path(scratch))
        try:
            results, serving = asyncio.run(fuzz(args, f"127.0.0.1:{port}"))
            try:
                handled = handled_by_code(f"http://127.0.0.1:{metrics_port}/metrics")
            except OSError as error:
                print(f"fuzz: no metrics: {error}")
                handled = Counter()
            exit_code = process.poll()
        finally:
            process.terminate()
            process.wait(60)
        text = log.read_text(encoding="utf-8", errors="replace")
    by_code: Counter[str] = Counter()
    by_kind: dict[str, Counter[str]] = {}
    by_rpc: dict[str, Counter[str]] = {}
    for (kind, rpc, code), n in results.items():
        by_code[code] += n
        by_kind.setdefault(kind, Counter())[code] += n
        by_rpc.setdefault(rpc, Counter())[code] += n
    print("statuses by code: " + ", ".join(f"{c} {n:,}" for c, n in by_code.most_common()))
    print("\n".join(table("by mutation", by_kind)))
    print("\n".join(table("by RPC", by_rpc)))
    lines = text.splitlines()
    tracebacks = text.count("Traceback")
    rpc_lines = sum('"event": "rpc"' in line for line in lines)
    print(
        f"server log: {len(lines):,} lines, {len(text.encode()):,} bytes, {rpc_lines:,} rpc lines, "
        f"{tracebacks} tracebacks"
    )
    print(
        "server's grpc_server_handled_total by code: "
        + ", ".join(f"{c} {n:,}" for c, n in handled.most_common())
    )
    faults = {code: n for code, n in by_code.items() if code in SERVER_FAULTS}
    if exit_code is not None:
        print(f"fuzz: the server exited during the run with status {exit_code}; its log ends:")
        print("\n".join(lines[-20:]))
    if faults or tracebacks or not serving or exit_code is not None:
        print(
            f"fuzz: FAIL (server faults {faults}, tracebacks {tracebacks}, serving {bool(serving)})"
        )
        return 1
    print("fuzz: PASS (no UNKNOWN, INTERNAL or DATA_LOSS; no traceback; still serving)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
