"""Benchmark of the costliest requests a caller can send, and of PlayCard beside STRONG bots.

Part one sends each worst case in-process through the servicer's code path (the size checks,
then the RPC body: credential, token, decoding, rules, sealing, views) and prints the CPU
time per request (``time.process_time``, median and maximum of the repeats) and the outcome.
The protobuf parsing of the request, done by grpc before the servicer sees it, is printed on
its own line for the oversized requests. The cases: oversized repeated fields of every kind
of request, tokens sealed with the server's key that hold impossible states (revealed card
2^31-1, version 2^64-1, …), and the Sawa claim that costs the check most among many random
positions (the first claim, then the same claim again).

Part two serves one in-process gRPC server on a free port and measures PlayCard latency
over a real channel while STRONG SuggestAction calls run concurrently, with the bots inline
on the event loop (the old way) and in the bots lane. Prints numbers; asserts nothing.

    python bench/bench_worst_case.py [--repeats 20] [--sawa-positions 600] [--seconds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any

import grpc.aio

from baloot.internal.v1 import match_state_pb2
from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot.v1 import types_pb2
from baloot_engine.api import inbound
from baloot_engine.api.sealing import KeyRing
from baloot_engine.api.servicer import BalootEngineServicer
from baloot_engine.api.state_codec import encode
from baloot_engine.api.status import ApiError
from baloot_engine.lanes import Lanes, LanesConfig
from baloot_engine.rules import sawa
from baloot_engine.rules.actions import ClaimSawa, Deal, Play
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.game import apply, legal_actions, new_match
from baloot_engine.rules.ruleset import KAMMELNA, SEEDS
from baloot_engine.rules.state import Phase, State
from baloot_engine.telemetry.metrics import Metrics

KEY = "5e" * 32
SEED = bytes(16)


def engine(*, bots_in_processes: bool = True) -> BalootEngineServicer:
    keys = KeyRing.from_texts((KEY,))
    config = LanesConfig() if bots_in_processes else LanesConfig().inline()
    return BalootEngineServicer(keys, Metrics(), allow_preset_deck=True, lanes=Lanes(config))


def run_inline(coroutine: Any) -> Any:
    """Run an RPC body whose lanes run inline (it awaits nothing pending) to its end, without
    an event loop; its result."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise RuntimeError("the body awaited a lane's process: use an inline engine")


def call(servicer: BalootEngineServicer, method: str, request: Any) -> str:
    """One request through the servicer's path; the outcome: OK or the refusal's reason."""
    body = getattr(BalootEngineServicer, method).__wrapped__
    try:
        inbound.check_sizes(request)
        run_inline(body(servicer, request, None))
    except (ApiError, RuleError) as error:
        return error.reason
    return "OK"


def cpu_ms(action: Callable[[], object], repeats: int) -> tuple[float, float]:
    times = []
    for _ in range(repeats):
        start = time.process_time()
        action()
        times.append((time.process_time() - start) * 1000)
    return statistics.median(times), max(times)


# ---------------------------------------------------------------------------------------
# Requests


class Match:
    """A match created through the servicer, with helpers to seal states for it."""

    def __init__(self, servicer: BalootEngineServicer) -> None:
        created = run_inline(
            BalootEngineServicer.CreateMatch.__wrapped__(  # type: ignore[attr-defined]
                servicer, pb.CreateMatchRequest(first_dealer=0), None
            )
        )
        self.servicer = servicer
        self.match_id = created.match_id
        self.host = created.host_credential
        self.state = created.state
        self.keys = KeyRing.from_texts((KEY,))

    def seal(self, state: State, version: int) -> bytes:
        return self.keys.seal(encode(state, SEED, version), bytes.fromhex(self.match_id))

    def forged(self, token: bytes, **fields: Any) -> bytes:
        key = bytes.fromhex(self.match_id)
        message = match_state_pb2.MatchState.FromString(self.keys.open(token, key))
        for name, value in fields.items():
            setattr(message, name, value)
        return self.keys.seal(message.SerializeToString(), key)

    def common(self, token: bytes) -> dict[str, Any]:
        return {"state": token, "match_id": self.match_id, "credential": self.host}


def oversized(match: Match, size: int) -> Iterator[tuple[str, str, Any]]:
    projects = [pb.AwardedProject(team=0, kind=types_pb2.PROJECT_KIND_SIRA)] * size
    yield (
        "ScoreRound, awarded_projects",
        "ScoreRound",
        pb.ScoreRoundRequest(contract_type=types_pb2.CONTRACT_TYPE_SUN, awarded_projects=projects),
    )
    trick = types_pb2.Trick(cards=[types_pb2.PlayedCard(card=1)] * size)
    yield (
        "ScoreRound, one trick's cards",
        "ScoreRound",
        pb.ScoreRoundRequest(contract_type=types_pb2.CONTRACT_TYPE_SUN, tricks=[trick]),
    )
    yield (
        "ScoreRound, baloot_teams",
        "ScoreRound",
        pb.ScoreRoundRequest(
            contract_type=types_pb2.CONTRACT_TYPE_HOKM, trump=1, baloot_teams=[0] * size
        ),
    )
    kinds = [types_pb2.PROJECT_KIND_SIRA] * size
    yield (
        "DeclareProjects, kinds",
        "DeclareProjects",
        pb.DeclareProjectsRequest(
            declaration=types_pb2.Declaration(kinds=kinds), seat=0, **match.common(match.state)
        ),
    )
    yield (
        "DealRound, deck_order",
        "DealRound",
        pb.DealRoundRequest(
            deck_order=list(range(32)) * (size // 32), seat=0, **match.common(match.state)
        ),
    )
    yield (
        "CreateMatch, starting_scores",
        "CreateMatch",
        pb.CreateMatchRequest(starting_scores=[1] * size),
    )


def playing_state(rng: random.Random, cards: int = 9) -> State:
    """A state in play of a SEEDS match, ``cards`` cards played."""
    state = new_match(SEEDS, dealer=0)
    while True:
        deck = list(range(32))
        rng.shuffle(deck)
        state, _ = apply(new_match(SEEDS, dealer=0), 0, Deal(tuple(deck)))
        while state.phase in (Phase.BIDDING, Phase.DOUBLING):
            options = legal_actions(state, state.turn)
            state, _ = apply(state, state.turn, rng.choice(options))
        if state.phase is Phase.PLAYING:
            for _ in range(cards):
                plays = [a for a in legal_actions(state, state.turn) if isinstance(a, Play)]
                state, _ = apply(state, state.turn, rng.choice(plays))
            return state


def forgeries(match: Match, rng: random.Random) -> Iterator[tuple[str, str, Any]]:
    state = playing_state(rng)
    token = match.seal(state, 50)
    seat = state.turn
    cases: dict[str, dict[str, Any]] = {
        "untouched token (baseline)": {},
        "revealed = 2^31-1": {"revealed": 2**31 - 1},
        "version = 2^64-1": {"version": 2**64 - 1},
        "hand_number = 2^32-1": {"hand_number": 2**32 - 1},
        "buy_card = 100": {"buy_card": 100},
        "baloot announced, no holder": {"baloot_announced": True},
        "stock of 60 000 bytes": {"stock": bytes(60_000)},
        "tricks of 60 000 bytes": {"tricks": bytes(60_000)},
    }
    for name, fields in cases.items():
        forged = match.forged(token, **fields)
        yield f"GetView, {name}", "GetView", pb.GetViewRequest(seat=seat, **match.common(forged))
        yield (
            f"PlayCard, {name}",
            "PlayCard",
            pb.PlayCardRequest(
                seat=seat,
                play=types_pb2.CardPlay(card=_legal_card(state)),
                **match.common(forged),
            ),
        )


def _legal_card(state: State) -> int:
    return next(a.card for a in legal_actions(state, state.turn) if isinstance(a, Play))


def sawa_positions(rng: random.Random, count: int) -> Iterator[State]:
    """Positions on a lead, at every trick, of random hands under both presets with Sawa."""
    for index in range(count):
        rules = (SEEDS if index % 2 else KAMMELNA).replace(sawa=True)
        deck = list(range(32))
        rng.shuffle(deck)
        state, _ = apply(new_match(rules, dealer=0), 0, Deal(tuple(deck)))
        while state.phase in (Phase.BIDDING, Phase.DOUBLING):
            options = [a for a in legal_actions(state, state.turn) if not isinstance(a, ClaimSawa)]
            state, _ = apply(state, state.turn, rng.choice(options))
        stop = rng.randrange(6)
        while state.phase is Phase.PLAYING:
            if not state.trick and len(state.tricks) >= stop:
                yield state
                break
            plays = [a for a in legal_actions(state, state.turn) if isinstance(a, Play)]
            state, _ = apply(state, state.turn, rng.choice(plays))


def worst_sawa(rng: random.Random, count: int) -> tuple[State, float, list[float]]:
    """The position whose claim costs the check most, its cost, and every cost measured."""
    costs = []
    worst: tuple[float, State] | None = None
    for state in sawa_positions(rng, count):
        contract = state.contract
        assert contract is not None
        sawa._verdict.cache_clear()
        start = time.process_time()
        sawa.claim_holds(state.hands, state.turn, contract, state.rules)
        cost = (time.process_time() - start) * 1000
        costs.append(cost)
        if worst is None or cost > worst[0]:
            worst = (cost, state)
    assert worst is not None
    return worst[1], worst[0], costs


# ---------------------------------------------------------------------------------------
# Part one


def part_one(repeats: int, sawa_count: int) -> None:
    servicer = engine(bots_in_processes=False)  # every call's whole cost in this process
    match = Match(servicer)
    rng = random.Random(2024)
    print(f"{'request':<52} {'outcome':<20} {'median ms':>10} {'max ms':>8}")
    size = 166_666
    for name, method, request in oversized(match, size):
        outcome = call(servicer, method, request)
        median, worst = cpu_ms(lambda m=method, r=request: call(servicer, m, r), repeats)
        print(f"{name + f' x{size}':<52} {outcome:<20} {median:>10.3f} {worst:>8.3f}")
        data = request.SerializeToString()
        kind = type(request)
        parse, _ = cpu_ms(lambda d=data, k=kind: k.FromString(d), max(3, repeats // 4))
        print(
            f"{'  (protobuf parsing of its ' + str(len(data) // 1000) + ' KB)':<52} {'':<20} "
            f"{parse:>10.3f}"
        )
    for name, method, request in forgeries(match, rng):
        outcome = call(servicer, method, request)
        median, worst = cpu_ms(lambda m=method, r=request: call(servicer, m, r), repeats)
        print(f"{name:<52} {outcome:<20} {median:>10.3f} {worst:>8.3f}")
    state, cost, costs = worst_sawa(rng, sawa_count)
    costs.sort()
    print(
        f"Sawa check over {len(costs)} random positions: median {statistics.median(costs):.3f}"
        f" ms, p99 {costs[int(len(costs) * 0.99)]:.3f} ms, max {cost:.3f} ms"
    )
    token = match.seal(state, 60)
    claim = pb.PlayCardRequest(
        seat=state.turn, play=types_pb2.CardPlay(sawa=True), **match.common(token)
    )
    sawa._verdict.cache_clear()
    start = time.process_time()
    outcome = call(servicer, "PlayCard", claim)
    first = (time.process_time() - start) * 1000
    median, worst = cpu_ms(lambda: call(servicer, "PlayCard", claim), repeats)
    print(f"{'PlayCard, the costliest Sawa claim, first time':<52} {outcome:<20} {first:>10.3f}")
    print(f"{'PlayCard, the same claim again':<52} {outcome:<20} {median:>10.3f} {worst:>8.3f}")


# ---------------------------------------------------------------------------------------
# Part two


async def part_two_once(
    bots_in_processes: bool, seconds: float, bots: int
) -> tuple[list[float], int, float]:
    """PlayCard latencies (ms), STRONG decisions made, CPU ms of this process per decision."""
    servicer = engine(bots_in_processes=bots_in_processes)
    server = grpc.aio.server()
    pb_grpc.add_BalootEngineServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    rng = random.Random(5)
    match = Match(servicer)
    state = playing_state(rng)
    token = match.seal(state, 50)
    seat = state.turn
    card = _legal_card(state)
    playing = pb.PlayCardRequest(
        seat=seat, play=types_pb2.CardPlay(card=card), **match.common(token)
    )
    # The first lead of a hand: the STRONG bot's longest decisions (eight cards to choose from).
    first_lead = playing_state(rng, 0)
    suggesting = pb.SuggestActionRequest(
        seat=first_lead.turn, level=pb.BOT_LEVEL_STRONG, **match.common(match.seal(first_lead, 9))
    )
    latencies: list[float] = []
    decisions = 0
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = pb_grpc.BalootEngineServiceStub(channel)
        # Start the bots lane's process before measuring.
        await asyncio.gather(*(stub.SuggestAction(suggesting) for _ in range(bots)))
        stop = time.perf_counter() + seconds
        cpu = time.process_time()

        async def suggest_loop() -> None:
            nonlocal decisions
            while time.perf_counter() < stop:
                await stub.SuggestAction(suggesting)
                decisions += 1

        async def play_loop() -> None:
            while time.perf_counter() < stop:
                start = time.perf_counter()
                await stub.PlayCard(playing)
                latencies.append((time.perf_counter() - start) * 1000)
                await asyncio.sleep(0.002)

        await asyncio.gather(play_loop(), *(suggest_loop() for _ in range(bots)))
        cpu = time.process_time() - cpu
    await server.stop(None)
    return latencies, decisions, cpu * 1000 / max(decisions, 1)


def part_two(seconds: float, bots: int) -> None:
    print()
    print(f"PlayCard latency over a channel while {bots} STRONG SuggestAction loops run:")
    for inline in (True, False):
        latencies, decisions, cpu = asyncio.run(part_two_once(not inline, seconds, bots))
        latencies.sort()
        where = "bots inline on the event loop" if inline else "bots in the process pool"
        print(
            f"  {where:<32} {len(latencies):>5} calls  p50 {statistics.median(latencies):7.2f} ms"
            f"  p99 {latencies[int(len(latencies) * 0.99)]:7.2f} ms  max {latencies[-1]:7.2f} ms"
            f"   {decisions} STRONG decisions, {cpu:.2f} ms of this process's CPU each"
        )
    print(f"  (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--sawa-positions", type=int, default=600)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--bots", type=int, default=2)
    args = parser.parse_args()
    part_one(args.repeats, args.sawa_positions)
    part_two(args.seconds, args.bots)


if __name__ == "__main__":
    main()
