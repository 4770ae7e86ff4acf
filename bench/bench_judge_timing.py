"""Benchmark: the answer times of easy, hard and queued Sawa claims against a real server.

    python bench/bench_judge_timing.py [--samples 24] [--hard-ms 15] [--seed 1]
    python bench/bench_judge_timing.py --worst 4000   # also the costliest of N random claims

Finds, with the rules core in this process, claim positions at a lead (random deals, bids and
plays under SEEDS, KAMMELNA and FEDERATION with Sawa on, with and without
``akka_requires_declaration``) and times each claim's check (CPU, its cache cleared): *easy*
ones (under 0.5 ms: the top cards prove them, or a fixed defence refutes them) and *hard* ones
(over ``--hard-ms``). Then starts ``baloot-server`` (its defaults, the judge lane in its own
process, preset decks allowed), plays every position there through the same actions, and
measures each claim's answer time as the client sees it, in three classes:

* easy: an easy claim alone in the judge lane;
* hard: a hard claim alone;
* behind easy: an easy claim sent 2 ms after another table's easy claim (the control: two
  claims at once);
* behind hard: an easy claim sent 2 ms after another table's hard claim, so that it waits
  behind that search in the lane's one process (the judge lane holds 2 claims a process).

Prints, per class, the count, median, 10th and 90th percentiles, minimum and maximum of the
answer times and of the searches' CPU times (the same run's baseline: what the answer time
would show without the fixed time); then, for each pair of classes, the difference of the
median answer times and the two-sample Kolmogorov-Smirnov statistic D with its 5 % critical
value (a D below it: the two samples are not told apart). Also the load average. Asserts
nothing (a loaded machine moves every answer).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import grpc
from baloot_client import EngineClient, EngineError

from baloot.v1 import engine_service_pb2, types_pb2
from baloot_engine.api.judging import JUDGED_ANSWER_SECONDS
from baloot_engine.api.outbound import action_out, rules_out
from baloot_engine.rules import Phase, sawa
from baloot_engine.rules.actions import Action, ClaimSawa, Deal, Play
from baloot_engine.rules.game import apply, legal_actions, new_match
from baloot_engine.rules.ruleset import FEDERATION, KAMMELNA, SEEDS, RuleSet
from baloot_engine.rules.state import State

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from loadtest.stack import new_state_key, start_service

pb: Any = engine_service_pb2
EASY_MS: Final = 0.5
MAX_HARD_MS: Final = 250.0  # harder claims are rarer than one in a thousand (see --worst)


@dataclass(frozen=True)
class Position:
    """A claim position: the rules, the actions that reach it from a new match, the claimer,
    and the CPU milliseconds its check took here."""

    rules: RuleSet
    actions: tuple[tuple[int, Action], ...]
    leader: int
    search_ms: float
    holds: bool


def positions(rng: random.Random) -> Iterator[Position]:
    """Claim positions at a lead (mostly the first, where searches are longest)."""
    index = 0
    while True:
        index += 1
        base = (SEEDS, KAMMELNA, FEDERATION)[index % 3]
        rules = base.replace(sawa=True, akka_requires_declaration=bool(index % 2))
        deck = list(range(32))
        rng.shuffle(deck)
        actions: list[tuple[int, Action]] = [(0, Deal(tuple(deck)))]
        state, _ = apply(new_match(rules, dealer=0), 0, actions[0][1])
        while state.phase in (Phase.BIDDING, Phase.DOUBLING):
            options = [a for a in legal_actions(state, state.turn) if not isinstance(a, ClaimSawa)]
            action = rng.choice(options)
            actions.append((state.turn, action))
            state, _ = apply(state, state.turn, action)
        stop = rng.choice((0, 0, 1, 2))
        while state.phase is Phase.PLAYING and (state.trick or len(state.tricks) < stop):
            plays = [a for a in legal_actions(state, state.turn) if isinstance(a, Play)]
            action = rng.choice(plays)
            actions.append((state.turn, action))
            state, _ = apply(state, state.turn, action)
        if state.phase is not Phase.PLAYING or state.contract is None:
            continue
        yield _timed(rules, tuple(actions), state)


def _timed(rules: RuleSet, actions: tuple[tuple[int, Action], ...], state: State) -> Position:
    assert state.contract is not None
    sawa._verdict.cache_clear()
    start = time.process_time()
    holds = sawa.claim_holds(state.hands, state.turn, state.contract, state.rules)
    spent = (time.process_time() - start) * 1000
    return Position(rules, actions, state.turn, spent, holds)


def pick(rng: random.Random, easy: int, hard: int, hard_ms: float) -> tuple[list[Position], ...]:
    """``easy`` easy positions and ``hard`` hard ones."""
    found_easy: list[Position] = []
    found_hard: list[Position] = []
    looked = 0
    for position in positions(rng):
        looked += 1
        if position.search_ms < EASY_MS and len(found_easy) < easy:
            found_easy.append(position)
        elif hard_ms <= position.search_ms <= MAX_HARD_MS and len(found_hard) < hard:
            found_hard.append(position)
        if len(found_easy) >= easy and len(found_hard) >= hard:
            break
    print(f"positions: {looked:,} looked at for {easy} easy and {hard} hard claims", flush=True)
    return found_easy, found_hard


# -- the server side ----------------------------------------------------------------------


class Table:
    """A position reached on the server, ready for its claim."""

    def __init__(self, client: EngineClient, position: Position) -> None:
        self.position = position
        self.match = client.create_match(rules_out(position.rules), first_dealer=0)
        for seat, action in position.actions:
            self.match.act(seat, action_out(action))

    def claim(self) -> tuple[float, str]:
        """Claim Sawa (the bare stub: nothing but the call is timed); the answer time in
        seconds and its outcome."""
        match = self.match
        request = pb.PlayCardRequest(
            seat=self.position.leader,
            play=types_pb2.CardPlay(sawa=True),
            state=match.state,
            match_id=match.match_id,
            credential=match.host_credential,
            expected_version=match.version,
        )
        began = time.monotonic()
        try:
            match.client.stub.PlayCard(request, timeout=30)
            outcome = "held"
        except grpc.RpcError as error:
            spent = time.monotonic() - began
            refusal = EngineError.from_rpc_error(error)
            return spent, refusal.reason or refusal.code.name
        return time.monotonic() - began, outcome


def queued(
    client: EngineClient, others: EngineClient, ahead: Position, mine: Position
) -> tuple[float, str]:
    """A claim sent 2 ms after another table's claim (a client on a channel of its own), so
    that it waits behind it in the lane's process: its answer time."""
    other, table = Table(others, ahead), Table(client, mine)
    thread = threading.Thread(target=other.claim)
    thread.start()
    time.sleep(0.002)
    answer = table.claim()
    thread.join()
    return answer


# -- statistics ---------------------------------------------------------------------------


def ks_statistic(a: Sequence[float], b: Sequence[float]) -> float:
    """The two-sample Kolmogorov-Smirnov statistic: the largest gap of the two empirical
    distribution functions."""
    xs, ys = sorted(a), sorted(b)
    i = j = 0
    gap = 0.0
    while i < len(xs) and j < len(ys):
        value = min(xs[i], ys[j])
        while i < len(xs) and xs[i] <= value:
            i += 1
        while j < len(ys) and ys[j] <= value:
            j += 1
        gap = max(gap, abs(i / len(xs) - j / len(ys)))
    return gap


def ks_critical(n: int, m: int, alpha: float = 0.05) -> float:
    """The two-sample KS statistic's critical value at ``alpha`` (the asymptotic formula)."""
    c = math.sqrt(-0.5 * math.log(alpha / 2))
    return c * math.sqrt((n + m) / (n * m))


def quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def line(name: str, values: Sequence[float], unit: float, digits: int = 1) -> str:
    shown = [v * unit for v in values]
    return (
        f"{name:<26} {len(shown):>4} {statistics.median(shown):>10.{digits}f} "
        f"{quantile(shown, 0.1):>10.{digits}f} {quantile(shown, 0.9):>10.{digits}f} "
        f"{min(shown):>10.{digits}f} {max(shown):>10.{digits}f}"
    )


def compare(times: dict[str, list[float]], searched: dict[str, list[float]] | None) -> None:
    """Print every pair of classes: the answer times' and the searches' differences."""
    kinds = [k for k, v in times.items() if v]
    for a_index, a in enumerate(kinds):
        for b in kinds[a_index + 1 :]:
            diff = (statistics.median(times[b]) - statistics.median(times[a])) * 1000
            d = ks_statistic(times[a], times[b])
            crit = ks_critical(len(times[a]), len(times[b]))
            shown = (
                f"{a:>11} vs {b:<11} answers: median diff {diff:+6.2f} ms, D {d:.3f} "
                f"(critical {crit:.3f}: {'told apart' if d > crit else 'not told apart'})"
            )
            if searched is not None:
                base = (statistics.median(searched[b]) - statistics.median(searched[a])) * 1000
                shown += f"; searches: median diff {base:+7.2f} ms, D "
                shown += f"{ks_statistic(searched[a], searched[b]):.3f}"
            print(shown)


def worst(rng: random.Random, count: int) -> None:
    """The costliest claim checks among ``count`` random positions (CPU ms)."""
    costs = sorted(p.search_ms for p, _ in zip(positions(rng), range(count), strict=False))
    print(
        f"claim checks, {len(costs):,} random positions (CPU ms): median "
        f"{statistics.median(costs):.2f}, p99 {quantile(costs, 0.99):.1f}, p99.9 "
        f"{quantile(costs, 0.999):.1f}, max {costs[-1]:.1f}; over 250 ms: "
        f"{sum(c > 250 for c in costs)}, over 800 ms: {sum(c > 800 for c in costs)}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=24, help="claims per class")
    parser.add_argument("--hard-ms", type=float, default=15.0, help="a hard claim's least CPU")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--worst", type=int, default=0, help="also N random claims' costs")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    print(f"load average at the start: {os.getloadavg()}", flush=True)
    if args.worst:
        worst(random.Random(args.seed + 1), args.worst)
    n = args.samples
    easy, hard = pick(rng, 4 * n, 2 * n, args.hard_ms)
    kinds = ("easy", "hard", "behind easy", "behind hard")
    times: dict[str, list[float]] = {k: [] for k in kinds}
    refused: dict[str, list[float]] = {k: [] for k in kinds}
    searched: dict[str, list[float]] = {k: [] for k in kinds}
    outcomes: dict[str, dict[str, int]] = {k: {} for k in times}

    def note(kind: str, answer: tuple[float, str], search_ms: float) -> None:
        times[kind].append(answer[0])
        if answer[1] == "SAWA_INVALID":
            refused[kind].append(answer[0])
        searched[kind].append(search_ms / 1000)
        outcomes[kind][answer[1]] = outcomes[kind].get(answer[1], 0) + 1

    with tempfile.TemporaryDirectory(prefix="baloot-judge-") as scratch:
        service = start_service(
            Path(scratch),
            key=new_state_key(),
            env_extra={"BALOOT_ALLOW_PRESET_DECK": "true"},
        )
        try:
            with (
                grpc.insecure_channel(service.target) as channel,
                grpc.insecure_channel(service.target) as second,
            ):
                client = EngineClient(channel, timeout=30)
                others = EngineClient(second, timeout=30)
                Table(client, easy[0]).claim()  # the lane's process is warm
                for i in range(n):  # interleaved, so a change of load hits every class
                    note("easy", Table(client, easy[i]).claim(), easy[i].search_ms)
                    note("hard", Table(client, hard[i]).claim(), hard[i].search_ms)
                    ahead, mine = easy[n + 2 * i], easy[n + 2 * i + 1]
                    total = ahead.search_ms + mine.search_ms
                    note("behind easy", queued(client, others, ahead, mine), total)
                    ahead, mine = hard[n + i], easy[3 * n + i]
                    total = ahead.search_ms + mine.search_ms
                    note("behind hard", queued(client, others, ahead, mine), total)
        finally:
            code = service.child.stop()
            late = service.child.log_text().count("judged answer late")
    print(f"load average at the end: {os.getloadavg()}")
    print(f"answer time fixed at {JUDGED_ANSWER_SECONDS:g} s; server exit {code}; late: {late}")
    header = f"{'':<26} {'n':>4} {'median':>10} {'p10':>10} {'p90':>10} {'min':>10} {'max':>10}"
    print("\nanswer time seen by the client, ms")
    print(header)
    for kind, values in times.items():
        print(line(kind, values, 1000))
    print("\nthe baseline: CPU of the searches the answer waited for, ms (behind: its own and the")
    print("one ahead of it; what an answer sent when its judgement ended would show)")
    print(header)
    for kind, values in searched.items():
        print(line(kind, values, 1000, 2))
    print("\noutcomes:", outcomes)
    print("\npairs of classes: difference of the median answer times, KS statistic D (critical")
    print("value at 5 %), and the same for the searches' CPU (the baseline)")
    compare(times, searched)
    print("\nthe same, refused claims only (SAWA_INVALID: the same kind of answer)")
    compare(refused, None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
