"""Benchmark of the exact solver: the value of every legal card of full deals, per deal.

Random deals, half Sun and half Hokm (a random trump, a closed game one time in four), solved
from the first lead, and from positions after 2, 4 and 6 tricks of random legal play: CPU time
per position on one core (p50, p99, max) and the cards tried (nodes). The machine's speed
varies, so a calibration loop (``bench_rules.calibration_loops``, timed on the same CPU clock)
runs beside the solver every few positions and each figure is also printed in calibration
loops, the unit the targets are set in. Built with ``CFLAGS=-DBALOOT_SOLVER_STATS``, the search
counts how often each cut site ended a search, and the counts are printed. ``--reference N``
also solves the first N positions with the pure-Python reference, and ``--old-endgame REV`` the
value of the first lead alone with the ``bots/endgame.py`` of a git revision (the solver the bots
had before), for a side-by-side on the same positions.

``--solve-deal N`` measures what ``SolveDeal`` costs beside the solve of the same position, on N
real rounds at their first lead (dealt at random, bid by BASIC bots): the in-process solve (every
legal card valued), the SolveDeal computation in-process (``api.solving.run``: the cards, the
par and the response's bytes), the par played out by a solve at every position of the line (how
the par was found before), the hand-off to a solve lane of one process (``lanes``: the same job
sent and the same bytes sent back, nothing computed) and the whole call through that lane (its
wall time, which on a busy machine includes the lane's process waiting for a core).

    python bench/bench_solver.py [--deals 1000] [--after 0,2,4,6] [--preset seeds]
    python bench/bench_solver.py --solve-deal 300
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from operator import itemgetter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_rules import calibration_loops

from baloot.v1 import engine_service_pb2 as pb
from baloot_engine.api.solving import LiveJob, run
from baloot_engine.bots import Level, suggest
from baloot_engine.lanes import SOLVE, Call, Lanes, LanesConfig
from baloot_engine.lanes.clients import ANONYMOUS_CLIENT
from baloot_engine.lanes.lane import LaneConfig, NoMetrics
from baloot_engine.rules.actions import Deal
from baloot_engine.rules.cards import LAST_TRICK_BONUS, POINTS, trick_winner_index
from baloot_engine.rules.contract import Contract, ContractType, PlayMode
from baloot_engine.rules.game import apply, new_match
from baloot_engine.rules.play import allowed_cards
from baloot_engine.rules.ruleset import PRESETS, Preset, RuleSet
from baloot_engine.rules.state import Phase, State
from baloot_engine.solver import (
    COMPILED,
    Position,
    cut_counts,
    new_search,
    pair_of_searches,
    position_of,
    solve,
)
from baloot_engine.solver.reference import akka_call


def random_deal(rng: random.Random, sun: bool, rules: RuleSet) -> Position:
    """A shuffled deal at its first lead (seat 0 leads)."""
    deck = list(range(32))
    rng.shuffle(deck)
    hands = [0, 0, 0, 0]
    for seat in range(4):
        for card in deck[seat * 8 : seat * 8 + 8]:
            hands[seat] |= 1 << card
    trump = -1 if sun else rng.randrange(4)
    closed = not sun and rng.random() < 0.25
    contract = Contract(
        ContractType.SUN if sun else ContractType.HOKM,
        trump,
        rng.randrange(4),
        multiplier=2 if closed else 1,
        mode=PlayMode.CLOSED if closed else PlayMode.OPEN,
    )
    return Position((hands[0], hands[1], hands[2], hands[3]), (), 0, 0, False, contract, rules)


def after_tricks(position: Position, tricks: int, rng: random.Random) -> Position:
    """The position after ``tricks`` tricks of random legal cards (an Akka called where it fits)."""
    hands = list(position.hands)
    contract, rules = position.contract, position.rules
    leader, played, akka = position.leader, position.played, False
    abnat, won = [0, 0], [0, 0]
    points = POINTS[contract.trump + 1]
    for _ in range(tricks):
        trick: list[int] = []
        for step in range(4):
            seat = (leader + step) & 3
            options = allowed_cards(
                hands[seat], tuple(trick), leader, seat, played, akka, contract, rules
            )
            card = rng.choice([c for c in range(32) if options >> c & 1])
            if step == 0:
                akka = akka_call(contract, rules, card, played)
            hands[seat] ^= 1 << card
            trick.append(card)
        winner = (leader + trick_winner_index(trick, contract.trump)) & 3
        gained = sum(points[c] for c in trick) + (0 if any(hands) else LAST_TRICK_BONUS)
        abnat[winner & 1] += gained
        won[winner & 1] += 1
        for card in trick:
            played |= 1 << card
        leader, akka = winner, False
    return Position(
        (hands[0], hands[1], hands[2], hands[3]),
        (),
        leader,
        played,
        False,
        contract,
        rules,
        (abnat[0], abnat[1]),
        (won[0], won[1]),
    )


@dataclass
class Figures:
    """CPU seconds and nodes of one kind of position, with the calibration beside them."""

    seconds: list[float] = field(default_factory=list)
    nodes: list[int] = field(default_factory=list)

    def line(self, name: str, calibration: float) -> str:
        ms = sorted(s * 1000 for s in self.seconds)
        nodes = sorted(self.nodes)
        loops = [m / 1000 * calibration for m in ms]

        def pick(values: list[float], q: float) -> float:
            return values[min(len(values) - 1, int(q * len(values)))]

        return (
            f"{name:<26} n={len(ms):>5}  CPU ms p50 {statistics.median(ms):8.2f}"
            f"  p99 {pick(ms, 0.99):8.1f}  max {ms[-1]:8.1f}   calibration loops p50"
            f" {statistics.median(loops):9,.0f}  p99 {pick(loops, 0.99):9,.0f}"
            f"  max {loops[-1]:10,.0f}   nodes p50 {statistics.median(nodes):10,.0f}"
            f"  p99 {pick([float(n) for n in nodes], 0.99):11,.0f}  max {nodes[-1]:11,}"
        )


def load() -> str:
    """The machine's load average over the last minute."""
    return Path("/proc/loadavg").read_text().split()[0]


def old_endgame(rev: str) -> type:
    """The ``Solver`` class of ``bots/endgame.py`` at a git revision (loaded, not kept)."""
    git = shutil.which("git")
    assert git is not None, "git is needed to read an earlier revision"
    path = f"{rev}:service/baloot_engine/bots/endgame.py"
    shown = subprocess.run([git, "show", path], check=True, capture_output=True, text=True)  # noqa: S603
    source = shown.stdout
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
        handle.write(source)
    spec = importlib.util.spec_from_file_location("old_endgame", handle.name)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    solver: type = module.Solver
    return solver


def first_lead(rng: random.Random, rules: RuleSet) -> State:
    """A real round at its first lead: a shuffled deck, bid by BASIC bots (dealt again after a
    redeal)."""
    state = new_match(rules, dealer=rng.randrange(4))
    while state.phase is not Phase.PLAYING:
        if state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
            deck = list(range(32))
            rng.shuffle(deck)
            state, _ = apply(state, state.dealer, Deal(tuple(deck)))
            continue
        seat = state.turn
        state, _ = apply(state, seat, suggest(state, seat, Level.BASIC, rng.randrange(1 << 30)))
    return state


def par_by_solves(state: State) -> int:
    """The par's line as it was found before: a solve (every card valued) at each position of
    the line, one search per team. Returns the cards tried."""
    assert state.contract is not None
    searches = pair_of_searches(state.contract, state.rules)
    position = position_of(state)
    nodes = 0
    while not position.over:
        solution = solve(position, search=searches[position.seat & 1])
        nodes += solution.nodes
        position = position.after(solution.values[solution.best].play)
    return nodes


class _Spent(NoMetrics):
    """The CPU seconds the lane's process reported for its last job."""

    cpu = 0.0

    def ran(self, lane: str, seconds: float, cpu_seconds: float, client: str) -> None:
        del lane, seconds, client
        self.cpu = cpu_seconds


def solve_deal(count: int, preset: str, seed: int) -> None:
    """The ``--solve-deal`` figures (see the module's docstring)."""
    rules = PRESETS[Preset(preset)]
    rng = random.Random(seed)
    states = [first_lead(rng, rules) for _ in range(count)]
    spent = _Spent()
    lane = LaneConfig(SOLVE, processes=1, queue=8, nice=0, max_seconds=30.0)
    lanes = Lanes(replace(LanesConfig(), solve=lane), spent)
    kinds = ("solve", "solve_deal", "old_par", "lane_wall", "hand_off")
    figures = {kind: Figures() for kind in kinds}
    cpu_loops: list[float] = []
    wall_loops: list[float] = []

    async def through_lane(job: LiveJob) -> tuple[float, float]:
        started = time.perf_counter()
        data = await lanes.solve.call(ANONYMOUS_CLIENT, Call(run, (job,)), None)
        assert data is not None
        return time.perf_counter() - started, spent.cpu

    async def measure() -> None:
        lanes.prestart()
        await through_lane(LiveJob(states[0], 10.0))  # the process started and warm
        for index, state in enumerate(states):
            if index % 25 == 0:
                cpu_loops.append(calibration_loops(0.1, time.process_time))
                wall_loops.append(calibration_loops(0.1, time.perf_counter))
            started = time.process_time()
            solution = solve(position_of(state))
            figures["solve"].seconds.append(time.process_time() - started)
            figures["solve"].nodes.append(solution.nodes)
            started = time.process_time()
            data = run(LiveJob(state, 10.0))
            figures["solve_deal"].seconds.append(time.process_time() - started)
            assert data is not None
            response = pb.SolveDealResponse.FromString(data)
            assert response.best_index == solution.best
            assert [tuple(c.points) for c in response.cards] == [v.points for v in solution.values]
            figures["solve_deal"].nodes.append(response.nodes)
            started = time.process_time()
            nodes = par_by_solves(state)
            figures["old_par"].seconds.append(
                time.process_time() - started + figures["solve"].seconds[-1]
            )
            figures["old_par"].nodes.append(nodes + solution.nodes)
            wall, _ = await through_lane(LiveJob(state, 10.0))
            figures["lane_wall"].seconds.append(wall)
            figures["lane_wall"].nodes.append(figures["solve_deal"].nodes[-1])
            # The hand-off alone: the same job to the lane's process and the same bytes back,
            # nothing computed there.
            started = time.perf_counter()
            echo = Call(itemgetter(1), ((LiveJob(state, 10.0), data),))
            assert await lanes.solve.call(ANONYMOUS_CLIENT, echo, None) == data
            figures["hand_off"].seconds.append(time.perf_counter() - started)
            figures["hand_off"].nodes.append(0)
        await lanes.close()

    print(f"SolveDeal: {count} real first leads ({preset}), load {load()}")
    asyncio.run(measure())
    cpu_rate = statistics.median([*cpu_loops, calibration_loops(0.1, time.process_time)])
    wall_rate = statistics.median([*wall_loops, calibration_loops(0.1, time.perf_counter)])
    print(
        f"calibration loop: median {cpu_rate:,.0f} loops per CPU second, {wall_rate:,.0f} per "
        f"wall second; load {load()}"
    )
    print(figures["solve"].line("solve, in-process (CPU)", cpu_rate))
    print(figures["solve_deal"].line("SolveDeal's work (CPU)", cpu_rate))
    print(figures["old_par"].line("par by solves, before (CPU)", cpu_rate))
    print(figures["hand_off"].line("lane hand-off alone (wall)", wall_rate))
    print(figures["lane_wall"].line("SolveDeal via lane (wall)", wall_rate))
    # Each deal's SolveDeal: its work (CPU) and the hand-off (wall), in calibration loops.
    whole = sorted(
        work * cpu_rate + hand_off * wall_rate
        for work, hand_off in zip(
            figures["solve_deal"].seconds, figures["hand_off"].seconds, strict=True
        )
    )
    for q, name in ((0.5, "p50"), (0.99, "p99")):
        base = quantile(figures["solve"].seconds, q) * cpu_rate
        work = quantile(figures["solve_deal"].seconds, q) * cpu_rate
        wall = quantile(figures["lane_wall"].seconds, q) * wall_rate
        print(
            f"  {name}: the solve {base:,.0f} loops; SolveDeal's work {work / base:.2f}x, with the"
            f" hand-off {quantile(whole, q) / base:.2f}x (target 1.5x); the lane's wall time"
            f" {wall / base:.2f}x"
        )


def quantile(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (the median for 0.5)."""
    ordered = sorted(values)
    if q == 0.5:
        return statistics.median(ordered)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--after", default="0,2,4,6", help="tricks played before the position")
    parser.add_argument("--preset", choices=tuple(p.value for p in Preset), default="seeds")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--engine", choices=("compiled", "reference"), default=None)
    parser.add_argument("--reference", type=int, default=0, metavar="N")
    parser.add_argument("--old-endgame", default=None, metavar="REV")
    parser.add_argument("--old-deals", type=int, default=6)
    parser.add_argument("--solve-deal", type=int, default=0, metavar="N")
    args = parser.parse_args()
    rules = PRESETS[Preset(args.preset)]
    if args.solve_deal:
        solve_deal(args.solve_deal, args.preset, args.seed)
        return
    afters = [int(a) for a in args.after.split(",")]
    rng = random.Random(args.seed)
    figures = {(after, sun): Figures() for after in afters for sun in (True, False)}
    calibrations: list[float] = []
    reference = Figures()
    compiled_same = Figures()
    agree = 0
    engine = args.engine or ("compiled" if COMPILED else "reference")
    print(f"exact solver: {args.deals} deals ({args.preset}), engine {engine}, load {load()}")
    deals = [random_deal(rng, i % 2 == 0, rules) for i in range(args.deals)]
    for index, deal in enumerate(deals):
        if index % 25 == 0:
            calibrations.append(calibration_loops(0.1, time.process_time))
        for after in afters:
            position = after_tricks(deal, after, random.Random(f"{args.seed}-{index}-{after}"))
            started = time.process_time()
            solution = solve(position, engine=args.engine)  # type: ignore[arg-type]
            spent = time.process_time() - started
            sun = deal.contract.trump < 0
            figures[(after, sun)].seconds.append(spent)
            figures[(after, sun)].nodes.append(solution.nodes)
            if after == 0 and index < args.reference:
                started = time.process_time()
                slow = solve(position, engine="reference")
                reference.seconds.append(time.process_time() - started)
                reference.nodes.append(slow.nodes)
                compiled_same.seconds.append(spent)
                compiled_same.nodes.append(solution.nodes)
                agree += slow.values == solution.values
    calibrations.append(calibration_loops(0.1, time.process_time))
    calibration = statistics.median(calibrations)
    cuts = cut_counts(reset=True)
    print(
        f"calibration loop beside the solver: median {calibration:,.0f} loops/s "
        f"(from {min(calibrations):,.0f} to {max(calibrations):,.0f}); "
        f"load {load()}"
    )
    for after in afters:
        both = Figures(
            figures[(after, True)].seconds + figures[(after, False)].seconds,
            figures[(after, True)].nodes + figures[(after, False)].nodes,
        )
        name = "full deal" if after == 0 else f"after {after} tricks"
        print(both.line(f"{name}, all", calibration))
        print(figures[(after, True)].line(f"{name}, Sun", calibration))
        print(figures[(after, False)].line(f"{name}, Hokm", calibration))
    if cuts is not None:  # a build with BALOOT_SOLVER_STATS
        print(
            "cut sites (every position above): " + ", ".join(f"{k} {v:,}" for k, v in cuts.items())
        )
    if reference.seconds:
        print(reference.line("reference (pure Python)", calibration))
        print(compiled_same.line("compiled, same deals", calibration))
        same = f"{agree} of {len(reference.seconds)}"
        print(f"  the two engines gave the same values on {same} deals")
    if args.old_endgame:
        solver_class = old_endgame(args.old_endgame)
        old, new = Figures(), Figures()
        for deal in deals[: args.old_deals]:
            started = time.process_time()
            solver = solver_class(deal.contract, rules, 0)
            value = solver.solve(deal.hands, (), deal.leader, 0, False)
            old.seconds.append(time.process_time() - started)
            old.nodes.append(solver.nodes)
            started = time.process_time()
            search = new_search(deal.contract, rules, 0)
            found = search.value(deal.hands, (), deal.leader, 0, False)
            new.seconds.append(time.process_time() - started)
            new.nodes.append(search.nodes)
            assert found is not None
            assert found // 9 == value, "the two solvers disagree"
        print(old.line(f"bots/endgame.py@{args.old_endgame[:7]}, value", calibration))
        print(new.line("this solver, value only", calibration))


if __name__ == "__main__":
    main()
