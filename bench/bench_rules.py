"""Benchmark of the rules core: complete random rounds per second, and per-call costs.

A round is: deal a shuffled deck, random legal bidding, optional doubling, 32 card plays
with ``legal_actions`` listed before every action, and scoring. Hands cancelled by an
all-pass redeal cost time but are not counted as rounds. Prints numbers; it asserts
nothing about speed.

    python bench/bench_rules.py [--seconds 5] [--slices 10] [--preset seeds|kammelna]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from baloot_engine.rules.actions import ClaimSawa, Deal, Play
from baloot_engine.rules.game import apply, legal_actions, new_match
from baloot_engine.rules.ruleset import PRESETS, Preset, RuleSet
from baloot_engine.rules.state import Phase, State


def play_round(state: State, rng: random.Random) -> State:
    """Deal and play one hand to its end (or to a redeal) with random legal actions."""
    deck = list(range(32))
    rng.shuffle(deck)
    state, _ = apply(state, state.dealer, Deal(tuple(deck)))
    uniform = rng.random
    while state.phase in _LIVE:
        seat = state.turn
        actions = legal_actions(state, seat)
        count = len(actions)
        if type(actions[-1]) is ClaimSawa:  # listed last; a random player does not claim
            count -= 1
        state, _ = apply(state, seat, actions[int(uniform() * count)])
    return state


_LIVE = (Phase.BIDDING, Phase.DOUBLING, Phase.PLAYING)


def rounds_per_second(
    rules: RuleSet, seconds: float, seed: int, slices: int
) -> tuple[int, int, float, float, list[tuple[float, float]]]:
    """Play random hands for ``seconds`` in ``slices``, each next to a calibration slice.

    Returns (scored rounds, redeals, elapsed time of the rounds, the CPU time this process
    spent on them, per slice: rounds per second and calibration loops per second measured
    just before). Interleaving keeps the ratio meaningful when the machine's speed changes
    during the run; the CPU time leaves out the moments other processes held the core.
    """
    rng = random.Random(seed)
    state = new_match(rules)
    rounds = redeals = 0
    elapsed = cpu = 0.0
    per_slice: list[tuple[float, float]] = []
    slice_seconds = seconds / slices
    for _ in range(slices):
        calibration = calibration_loops(slice_seconds / 4)
        slice_rounds = 0
        cpu_start = time.process_time()
        start = time.perf_counter()
        deadline = start + slice_seconds
        while time.perf_counter() < deadline:
            for _ in range(20):
                if state.phase is Phase.MATCH_OVER:
                    state = new_match(rules)
                state = play_round(state, rng)
                if state.phase is Phase.AWAITING_DEAL:
                    redeals += 1
                else:
                    slice_rounds += 1
        spent = time.perf_counter() - start
        cpu += time.process_time() - cpu_start
        elapsed += spent
        rounds += slice_rounds
        per_slice.append((slice_rounds / spent, calibration))
    return rounds, redeals, elapsed, cpu, per_slice


def bidding_cost(rules: RuleSet, samples: int, seed: int) -> list[float]:
    """Microseconds for a deal plus a complete random bidding phase."""
    rng = random.Random(seed)
    times = []
    base = new_match(rules)
    for _ in range(samples):
        deck = list(range(32))
        rng.shuffle(deck)
        choices = [rng.random() for _ in range(40)]
        t0 = time.perf_counter()
        state, _ = apply(base, base.dealer, Deal(tuple(deck)))
        i = 0
        while state.phase is Phase.BIDDING:
            actions = legal_actions(state, state.turn)
            state, _ = apply(state, state.turn, actions[int(choices[i] * len(actions))])
            i += 1
        times.append((time.perf_counter() - t0) * 1e6)
    return times


def play_costs(rules: RuleSet, samples: int, seed: int) -> tuple[list[float], list[float]]:
    """Microseconds for one ``legal_actions`` call and one card ``apply`` during play."""
    rng = random.Random(seed)
    legal_times: list[float] = []
    apply_times: list[float] = []
    state = new_match(rules)
    while len(apply_times) < samples:
        if state.phase is Phase.MATCH_OVER:
            state = new_match(rules)
        if state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
            deck = list(range(32))
            rng.shuffle(deck)
            state, _ = apply(state, state.dealer, Deal(tuple(deck)))
            continue
        seat = state.turn
        t0 = time.perf_counter()
        actions = legal_actions(state, seat)
        t1 = time.perf_counter()
        action = rng.choice([a for a in actions if not isinstance(a, ClaimSawa)])
        t2 = time.perf_counter()
        state, _ = apply(state, seat, action)
        t3 = time.perf_counter()
        if isinstance(action, Play):
            legal_times.append((t1 - t0) * 1e6)
            apply_times.append((t3 - t2) * 1e6)
    return legal_times, apply_times


def calibration_loops(seconds: float, clock: Callable[[], float] = time.perf_counter) -> float:
    """A fixed pure-Python workload (dict, list and integer work), in loops per second.

    It is run next to the engine in the same process so that results taken on a busy or
    different machine can be compared as ratios (rounds per calibration loop). ``clock``
    must be the clock the compared figure is read on: the wall clock for rounds per second,
    ``time.process_time`` for CPU seconds. A CPU figure divided by wall-clock loops would
    look better the busier the machine, since the loop loses the moments other processes
    hold the core and the CPU figure does not.
    """
    count = 0
    deadline = clock() + seconds
    start = clock()
    while clock() < deadline:
        for _ in range(100):
            table = {i: i * 7 % 32 for i in range(32)}
            order = sorted(table, key=table.__getitem__)
            count += len(order) & 1 or 1
    return count / (clock() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--preset", choices=tuple(p.value for p in Preset), default="seeds")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--slices", type=int, default=10)
    args = parser.parse_args()
    rules = PRESETS[Preset(args.preset)]
    rounds, redeals, elapsed, cpu, per_slice = rounds_per_second(
        rules, args.seconds, args.seed, args.slices
    )
    rates = [rate for rate, _ in per_slice]
    ratios = [1000 * rate / calibration for rate, calibration in per_slice]
    calibrations = [calibration for _, calibration in per_slice]
    print(f"preset: {args.preset}")
    print(
        f"complete random rounds: {rounds} in {elapsed:.2f} s = {rounds / elapsed:,.0f} rounds/s"
        f" (plus {redeals} all-pass redeals)"
    )
    print(f"per CPU second of this process: {rounds / cpu:,.0f} rounds ({cpu:.2f} s of CPU)")
    print(
        f"per slice ({len(rates)} slices): median {statistics.median(rates):,.0f} rounds/s,"
        f" best {max(rates):,.0f}, worst {min(rates):,.0f}"
    )
    print(
        f"calibration workload beside them: median {statistics.median(calibrations):,.0f} loops/s"
        f" (from {min(calibrations):,.0f} to {max(calibrations):,.0f})"
    )
    print(f"rounds per 1,000 calibration loops: median {statistics.median(ratios):.1f}")
    bids = bidding_cost(rules, 3000, args.seed)
    print(f"deal + complete bidding: median {statistics.median(bids):.1f} us")
    legal, applied = play_costs(rules, 20000, args.seed)
    print(f"legal_actions during play: median {statistics.median(legal):.2f} us")
    print(f"apply of a card play: median {statistics.median(applied):.2f} us")


if __name__ == "__main__":
    main()
