"""Benchmark of the bots: win rates between levels over seeded deals, decision times, legality.

Every deal sequence (seed ``i``) is played twice, once with level A as team 0 and once with the
teams swapped, so the luck of the cards cancels out. The decks of a match are derived from its
seed and the hand number, so both matches of a pair see the same cards hand by hand for as long
as they run side by side. Every decision of every bot is checked against the rules core's own
list of legal actions (and then applied, which checks it again); the count of illegal
decisions is printed and must be 0. Decision times are measured around the whole bot call
(knowledge extraction included), both in wall-clock time and in the CPU time of the thread
(the machine may be shared: the CPU time is what the decision costs, the wall time what it
took there and then).

    python bench/bench_bots.py [--pairs basic:random,strong:basic] [--deals 500] [--workers 2]
                               [--rules seeds|kammelna] [--timing-matches 20] [--json out.json]
                               [--expert-worlds 96] [--expert-solve-at 8] [--expert-exact-at 3]
                               [--expert-exact-worlds 2000] [--expert-ms 500]
                               [--[no-]expert-full-solve] [--expert-node-work 0.048]
                               [--expert-calls-solve-at 0] [--expert-weighted-sampling]
                               [--expert-mix 0] [--expert-call-samples 0]
                               [--expert-resample 0] [--expert-postpone]
                               [--expert-signal]

``--deals N`` plays 2N matches per pair. ``--timing-matches M`` then plays M matches per pair
with unseeded decisions in this one process, as a production call makes them (a STRONG search
then also stops at its wall-clock budget), and prints their decision times. A seeded EXPERT
decision samples at most ``--expert-worlds`` worlds and, once ``--expert-solve-at`` cards or
fewer are left in its hand, solves each from the decision to the end (8: always); an unseeded
one (the timing pass) searches for ``--expert-ms``. The player ``expert_baseline`` of
``--pairs`` is EXPERT as it played before whole-world solves (``BASELINE_EXPERT_BUDGET``: the
last three cards of heuristic play-outs solved), kept as the fixed reference of the new EXPERT.
The player ``expert_peek`` is EXPERT whose card play sees every hand: the solver's card on the
real position, as the fair-play benchmark's ``expert-all`` cheater plays (``fairplay_bots.py``,
bench only); ``expert_peek_partner`` is EXPERT's own card search with its partner's real hand
in every world. Their bids, calls, declarations and claims are EXPERT's. Neither is a bot a
client can ask for: they measure what knowing the hidden hands is worth in card play, the bound
on what any better reading of them could bring EXPERT.
Prints numbers; exits 1 if a bot made an illegal move.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field

from baloot_engine.bots import BASELINE_EXPERT_BUDGET, ExpertBudget, Level, suggest
from baloot_engine.bots.policies import decide
from baloot_engine.bots.qayd import proven_call
from baloot_engine.rules.actions import Deal
from baloot_engine.rules.contract import partner_of
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.game import apply, legal_actions, new_match
from baloot_engine.rules.observation import observe
from baloot_engine.rules.ruleset import KAMMELNA, SEEDS, RuleSet
from baloot_engine.rules.state import Phase, State

RULES = {"seeds": SEEDS, "kammelna": KAMMELNA}
MAX_ROUNDS = 200  # a match that has not ended by then is stopped and counted as a draw
BASELINE = "expert_baseline"
"""EXPERT as it played before whole-world solves (``BASELINE_EXPERT_BUDGET``), a fixed
reference level of the benchmark."""
PEEK = "expert_peek"
"""EXPERT whose card play sees every hand (bench only: the bound of better inference)."""
PEEK_PARTNER = "expert_peek_partner"
"""EXPERT whose card play's worlds hold its partner's real hand (bench only)."""


def player(name: str, expert: ExpertBudget) -> tuple[Level, ExpertBudget]:
    """The bot level and EXPERT budget a player name of ``--pairs`` stands for."""
    if name == BASELINE:
        return Level.EXPERT, BASELINE_EXPERT_BUDGET._replace(seconds=expert.seconds)
    if name in (PEEK, PEEK_PARTNER):
        return Level.EXPERT, expert
    return Level(name), expert


def decide_as(
    name: str, state: State, seat: int, level: Level, seed: int | None, expert: ExpertBudget
) -> object:
    """The action of player ``name``: ``expert_peek`` plays its cards with every hand seen
    (``fairplay_bots.cheat``), every other player is the bot of its level."""
    if name == PEEK and state.phase is Phase.PLAYING:
        from fairplay_bots import cheat  # bench only, beside this file

        return cheat(state, seat, Level.EXPERT, "all", seed if seed is not None else 0)
    if name == PEEK_PARTNER and state.phase is Phase.PLAYING:
        from fairplay_bots import peeking_sampler

        obs = observe(state, seat)
        call = proven_call(obs)
        if call is not None:
            return call
        rng = random.Random(seed)
        deadline = None if seed is not None else time.perf_counter() + expert.seconds
        sampler = peeking_sampler(state.hands, (partner_of(seat),))
        return decide(obs, level, rng, deadline=deadline, expert=expert, sampler=sampler)
    return suggest(state, seat, level, seed=seed, expert=expert)


def deck_for(seed: int, round_number: int) -> tuple[int, ...]:
    """The deck of round ``round_number`` of the deal sequence ``seed``."""
    deck = list(range(32))
    random.Random(f"baloot-bench-{seed}-{round_number}").shuffle(deck)
    return tuple(deck)


@dataclass
class MatchResult:
    """One match: the winning team (-1 when stopped), and what every decision cost."""

    winner: int
    scores: tuple[int, int]
    hands: int
    illegal: list[str] = field(default_factory=list)
    wall: dict[str, list[float]] = field(default_factory=dict)
    cpu: dict[str, list[float]] = field(default_factory=dict)
    choice_cpu: dict[str, list[float]] = field(default_factory=dict)
    round_points: list[int] = field(default_factory=list)  # team 0 minus team 1, per round


def play_match(
    levels: tuple[str, str],
    seed: int,
    rules: RuleSet,
    *,
    seeded: bool = True,
    expert: ExpertBudget | None = None,
) -> MatchResult:
    """Play one match: the player named ``levels[t]`` (a level, or ``expert_baseline``) plays
    for team ``t``.

    Decisions are seeded (repeatable, no wall-clock cut-off), or with ``seeded=False`` drawn
    from the OS generator as an unseeded SuggestAction is, with STRONG's deadline in force.
    """
    expert = expert or ExpertBudget()
    state: State = new_match(rules, dealer=0)
    result = MatchResult(winner=-1, scores=(0, 0), hands=0)
    players = [player(name, expert) for name in levels]
    for name in levels:
        result.wall.setdefault(name, [])
        result.cpu.setdefault(name, [])
        result.choice_cpu.setdefault(name, [])
    decision = 0
    while state.phase is not Phase.MATCH_OVER and state.hand_number <= MAX_ROUNDS:
        if state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
            deal = Deal(deck_for(seed, state.hand_number + 1))
            state, _ = apply(state, state.dealer, deal)
            continue
        seat = state.turn
        name = levels[seat & 1]
        level, budget = players[seat & 1]
        legal = legal_actions(state, seat)
        wall0 = time.perf_counter()
        cpu0 = time.thread_time()
        bot_seed = seed * 1_000_003 + decision if seeded else None
        action = decide_as(name, state, seat, level, bot_seed, budget)
        cpu = time.thread_time() - cpu0
        wall = time.perf_counter() - wall0
        decision += 1
        result.wall[name].append(wall)
        result.cpu[name].append(cpu)
        if len(legal) > 1:
            result.choice_cpu[name].append(cpu)
        if action not in legal:
            result.illegal.append(f"{name} seat {seat}: {action} not in {legal}")
            action = legal[0]
        scored = state.last_score
        try:
            state, _ = apply(state, seat, action)
        except RuleError as error:
            result.illegal.append(f"{name} seat {seat}: {action} refused: {error}")
            state, _ = apply(state, seat, legal[0])
        if state.last_score is not None and state.last_score is not scored:
            result.round_points.append(state.last_score.points[0] - state.last_score.points[1])
    result.winner = state.winner
    result.scores = state.match_scores
    result.hands = state.hand_number
    return result


_Task = tuple[str, str, int, bool, str, ExpertBudget]


def _task(args: _Task) -> tuple[str, int, bool, MatchResult]:
    a, b, seed, swapped, rules_name, expert = args
    levels = (b, a) if swapped else (a, b)
    result = play_match(levels, seed, RULES[rules_name], expert=expert)
    return f"{a}:{b}", seed, swapped, result


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0-1) of ``values`` (nearest rank)."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    index = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[index]


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95 % by default)."""
    if n == 0:
        return (math.nan, math.nan)
    p = wins / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return centre - half, centre + half


def _times_line(name: str, values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return (
        f"    {name:<24} n={len(ms):>7}  p50 {percentile(ms, 0.5):7.3f} ms  "
        f"p90 {percentile(ms, 0.9):7.3f} ms  p99 {percentile(ms, 0.99):7.3f} ms  "
        f"max {max(ms):8.3f} ms  mean {statistics.fmean(ms):7.3f} ms"
    )


def clustered(groups: Sequence[Sequence[float]]) -> tuple[float, float]:
    """The mean of every value of ``groups`` and its standard error, counting each group (the
    matches or rounds of one deal sequence, which share their cards) as one sample."""
    values = [v for group in groups for v in group]
    if not values:
        return (math.nan, math.nan)
    mean = statistics.fmean(values)
    sizes = [len(g) for g in groups if g]
    if len(sizes) < 2:
        return (mean, math.nan)
    # The ratio estimator's standard error: residual totals per group.
    residuals = [sum(v - mean for v in g) for g in groups if g]
    k = len(residuals)
    average = statistics.fmean(sizes)
    se = math.sqrt(k / (k - 1) * sum(r * r for r in residuals)) / (average * k)
    return (mean, se)


def summarise(pair: str, results: Iterable[tuple[int, bool, MatchResult]]) -> dict[str, object]:
    """Print and return the figures of one pair of levels."""
    a, b = pair.split(":")
    by_seed: dict[int, list[bool | None]] = {}
    points_by_seed: dict[int, list[float]] = {}
    wall: dict[str, list[float]] = {a: [], b: []}
    cpu: dict[str, list[float]] = {a: [], b: []}
    choice: dict[str, list[float]] = {a: [], b: []}
    illegal: list[str] = []
    hands = 0
    matches = 0
    wins = 0
    draws = 0
    for seed, swapped, result in results:
        matches += 1
        hands += result.hands
        a_team = 1 if swapped else 0
        won: bool | None = None if result.winner < 0 else result.winner == a_team
        if won is None:
            draws += 1
        elif won:
            wins += 1
        by_seed.setdefault(seed, []).append(won)
        sign = -1 if swapped else 1
        points_by_seed.setdefault(seed, []).extend(sign * p for p in result.round_points)
        illegal.extend(result.illegal)
        for level in (a, b):
            wall[level] += result.wall.get(level, [])
            cpu[level] += result.cpu.get(level, [])
            choice[level] += result.choice_cpu.get(level, [])
    low, high = wilson(wins, matches)
    both = sum(1 for v in by_seed.values() if v == [True, True])
    none = sum(1 for v in by_seed.values() if v == [False, False])
    scores = [[0.5 if w is None else float(w) for w in v] for v in by_seed.values()]
    rate, rate_se = clustered(scores)
    plain_se = math.sqrt(rate * (1 - rate) / matches) if matches else math.nan
    per_round, per_round_se = clustered(list(points_by_seed.values()))
    rounds = sum(len(v) for v in points_by_seed.values())
    print(f"{a.upper()} vs {b.upper()}: {matches} matches ({len(by_seed)} deal sequences x 2)")
    print(
        f"  {a.upper()} won {wins}/{matches} = {100 * wins / matches:.1f} % "
        f"(95 % Wilson interval {100 * low:.1f}-{100 * high:.1f} %), stopped {draws}"
    )
    print(
        f"  per deal sequence: {a.upper()} won both {both}, split {len(by_seed) - both - none}, "
        f"lost both {none}; {hands / matches:.1f} rounds per match"
    )
    print(
        f"  win rate {100 * rate:.1f} % +- {100 * rate_se:.1f} (standard error over deal "
        f"sequences; {100 * plain_se:.1f} over independent matches), 95 % interval "
        f"{100 * (rate - 1.96 * rate_se):.1f}-{100 * (rate + 1.96 * rate_se):.1f} %"
    )
    print(
        f"  game points per round, {a.upper()} minus {b.upper()}: {per_round:+.2f} "
        f"+- {per_round_se:.2f} (standard error over deal sequences; {rounds} rounds)"
    )
    print(f"  illegal decisions: {len(illegal)}")
    for line in illegal[:10]:
        print("    " + line)
    decisions = {}
    for level in (a, b):
        if not cpu[level]:
            continue
        print(f"  {level.upper()} decision time")
        print(_times_line("wall, every decision", wall[level]))
        print(_times_line("cpu, every decision", cpu[level]))
        print(_times_line("cpu, with a choice", choice[level]))
        decisions[level] = {
            "decisions": len(cpu[level]),
            "wall_p50_ms": percentile(wall[level], 0.5) * 1000,
            "wall_p99_ms": percentile(wall[level], 0.99) * 1000,
            "cpu_p50_ms": percentile(cpu[level], 0.5) * 1000,
            "cpu_p99_ms": percentile(cpu[level], 0.99) * 1000,
            "choice_cpu_p50_ms": percentile(choice[level], 0.5) * 1000,
            "choice_cpu_p99_ms": percentile(choice[level], 0.99) * 1000,
        }
    return {
        "pair": pair,
        "matches": matches,
        "wins": wins,
        "stopped": draws,
        "win_rate": wins / matches,
        "wilson95": [low, high],
        "win_rate_se": rate_se,
        "points_per_round": per_round,
        "points_per_round_se": per_round_se,
        "rounds": rounds,
        "illegal": len(illegal),
        "decision_times": decisions,
    }


def timing_pass(
    pairs: Sequence[str], matches: int, rules: RuleSet, expert: ExpertBudget
) -> dict[str, object]:
    """Unseeded decisions, as a production SuggestAction makes them, timed in one process."""
    wall: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    illegal = 0
    start = time.perf_counter()
    tallies = []
    for pair in pairs:
        a, b = pair.split(":")
        won = 0
        for n in range(matches):
            # Mirrored too: matches 2k and 2k + 1 play the same deal sequence, teams swapped.
            levels = (a, b) if n % 2 == 0 else (b, a)
            result = play_match(levels, 900_000 + n // 2, rules, seeded=False, expert=expert)
            won += result.winner == n % 2
            illegal += len(result.illegal)
            for level, values in result.wall.items():
                wall.setdefault(level, []).extend(values)
            for level, values in result.cpu.items():
                cpu.setdefault(level, []).extend(values)
        tallies.append(f"  {a.upper()} won {won} of {matches} against {b.upper()}")
    elapsed = time.perf_counter() - start
    print(f"[timing: {matches} unseeded matches per pair in one process, {elapsed:.0f} s]")
    print("\n".join(tallies))
    print(f"  illegal decisions: {illegal}")
    figures: dict[str, object] = {"illegal": illegal}
    for level, walls in wall.items():
        print(f"  {level.upper()} decision time, unseeded")
        print(_times_line("wall, every decision", walls))
        print(_times_line("cpu, every decision", cpu[level]))
        figures[level] = {
            "decisions": len(walls),
            "wall_p50_ms": percentile(walls, 0.5) * 1000,
            "wall_p99_ms": percentile(walls, 0.99) * 1000,
            "cpu_p50_ms": percentile(cpu[level], 0.5) * 1000,
            "cpu_p99_ms": percentile(cpu[level], 0.99) * 1000,
        }
    return figures


def _raw_line(pair: str, seed: int, swapped: bool, result: MatchResult) -> str:
    return json.dumps({"pair": pair, "seed": seed, "swapped": swapped, **asdict(result)})


def merge(paths: Sequence[str]) -> int:
    """Summarise the matches of ``--raw`` files, pair by pair (a match counted once)."""
    by_pair: dict[str, dict[tuple[int, bool], MatchResult]] = {}
    for path in paths:
        with open(path, encoding="utf-8") as lines:  # noqa: PTH123
            for line in lines:
                record = json.loads(line)
                pair, seed, swapped = record.pop("pair"), record.pop("seed"), record.pop("swapped")
                record["scores"] = tuple(record["scores"])
                by_pair.setdefault(pair, {})[(seed, swapped)] = MatchResult(**record)
    illegal = 0
    for pair, matches in by_pair.items():
        # Only deal sequences whose two matches are both there.
        complete = [
            (seed, swapped, result)
            for (seed, swapped), result in sorted(matches.items())
            if (seed, not swapped) in matches
        ]
        figures = summarise(pair, complete)
        illegal += int(figures["illegal"])  # type: ignore[call-overload]
        print()
    return 1 if illegal else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", default="basic:random,strong:basic")
    parser.add_argument("--deals", type=int, default=500, help="deal sequences per pair")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rules", choices=sorted(RULES), default="seeds")
    parser.add_argument(
        "--timing-matches",
        type=int,
        default=0,
        help="then play this many unseeded matches per pair in one process, timing each decision",
    )
    parser.add_argument(
        "--expert-worlds",
        type=int,
        default=ExpertBudget().worlds,
        help="worlds of a seeded EXPERT decision",
    )
    parser.add_argument(
        "--expert-solve-at",
        type=int,
        default=ExpertBudget().solve_at,
        help="EXPERT play-outs are solved exactly once this many cards are left in each hand",
    )
    parser.add_argument(
        "--expert-exact-at",
        type=int,
        default=ExpertBudget().exact_at,
        help="EXPERT solves every candidate exactly once this many cards are left in its hand",
    )
    parser.add_argument(
        "--expert-exact-worlds",
        type=int,
        default=ExpertBudget().exact_worlds,
        help="the most worlds an EXPERT decision samples when it solves every candidate",
    )
    parser.add_argument(
        "--expert-agree",
        type=float,
        default=ExpertBudget().agree,
        help="EXPERT weighs its worlds by the others' plays, by a model that plays the heuristic "
        "card with this chance (0: every world alike)",
    )
    parser.add_argument(
        "--expert-match-aware",
        action=argparse.BooleanOptionalAction,
        default=ExpertBudget().match_aware,
        help="EXPERT plays its cards for the chance to win the match, not the round's points",
    )
    parser.add_argument(
        "--expert-match-aware-calls",
        action=argparse.BooleanOptionalAction,
        default=ExpertBudget().match_aware_calls,
        help="EXPERT bids and doubles for the chance to win the match, not the round's points",
    )
    parser.add_argument(
        "--expert-full-solve",
        action=argparse.BooleanOptionalAction,
        default=ExpertBudget().full_solve,
        help="EXPERT solves each sampled world to the end (else play-outs solved at the end)",
    )
    parser.add_argument(
        "--expert-node-work",
        type=float,
        default=ExpertBudget().node_work,
        help="work units of a solver node in the seeded EXPERT work bound",
    )
    parser.add_argument(
        "--expert-calls-solve-at",
        type=int,
        default=ExpertBudget().calls_solve_at,
        help="EXPERT's bidding and doubling simulations solve the last this many cards of each "
        "deal (8: the whole deal; 0: heuristic play-outs)",
    )
    parser.add_argument(
        "--expert-weighted-sampling",
        action=argparse.BooleanOptionalAction,
        default=ExpertBudget().weighted_sampling,
        help="EXPERT samples its card play's worlds to fit the calls (bots/inference.py)",
    )
    parser.add_argument(
        "--expert-mix",
        type=float,
        default=ExpertBudget().mix,
        help="EXPERT values a solved world at this share of a heuristic play-out (0: the solve)",
    )
    parser.add_argument(
        "--expert-call-samples",
        type=int,
        default=ExpertBudget().call_samples,
        help="deals EXPERT samples for each bid and doubling call (0: the defaults, 64 each)",
    )
    parser.add_argument(
        "--expert-resample",
        type=int,
        default=ExpertBudget().resample,
        help="with --expert-agree, EXPERT draws this many worlds for each it uses and keeps one "
        "in proportion to the play model's weight (0: worlds drawn alike and weighed)",
    )
    parser.add_argument(
        "--expert-postpone",
        action="store_true",
        help="EXPERT values each card with its own next card chosen once for all the worlds it "
        "cannot tell apart then (the others' cards up to it solved in each world)",
    )
    parser.add_argument(
        "--expert-signal",
        action="store_true",
        help="EXPERT partners keep the discard signal of bots/signals.py and read each other's",
    )
    parser.add_argument(
        "--expert-ms", type=float, default=500, help="time budget of an unseeded EXPERT decision"
    )
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument(
        "--raw", help="append every match to this file as it ends (one JSON object a line)"
    )
    parser.add_argument(
        "--merge",
        nargs="+",
        metavar="RAW",
        help="print the figures of the matches in these --raw files (of runs in parts) and exit",
    )
    args = parser.parse_args(argv)
    expert = ExpertBudget(
        worlds=args.expert_worlds,
        solve_at=args.expert_solve_at,
        exact_at=args.expert_exact_at,
        exact_worlds=args.expert_exact_worlds,
        agree=args.expert_agree,
        match_aware=args.expert_match_aware,
        match_aware_calls=args.expert_match_aware_calls,
        full_solve=args.expert_full_solve,
        node_work=args.expert_node_work,
        calls_solve_at=args.expert_calls_solve_at,
        weighted_sampling=args.expert_weighted_sampling,
        mix=args.expert_mix,
        call_samples=args.expert_call_samples,
        resample=args.expert_resample,
        postpone=args.expert_postpone,
        signal=args.expert_signal,
        seconds=args.expert_ms / 1000,
    )
    if any("expert" in p for p in args.pairs.split(",")):
        print(f"[EXPERT: {expert}]")
    if args.merge:
        return merge(args.merge)
    pairs = [p.strip() for p in args.pairs.split(",") if p.strip()]
    report = []
    illegal = 0
    for pair in pairs if args.deals > 0 else ():
        a, b = pair.split(":")
        tasks = [
            (a, b, seed, swapped, args.rules, expert)
            for seed in range(args.first_seed, args.first_seed + args.deals)
            for swapped in (False, True)
        ]
        start = time.perf_counter()
        done = []
        with contextlib.ExitStack() as stack:
            if args.workers > 1:
                pool = stack.enter_context(multiprocessing.get_context("spawn").Pool(args.workers))
                finished: Iterable[tuple[str, int, bool, MatchResult]] = pool.imap_unordered(
                    _task, tasks, chunksize=1
                )
            else:
                finished = map(_task, tasks)
            raw = None
            if args.raw:
                raw = stack.enter_context(open(args.raw, "a", encoding="utf-8"))  # noqa: PTH123
            for item in finished:
                done.append(item)
                if raw is not None:
                    raw.write(_raw_line(*item) + "\n")
                    raw.flush()
        elapsed = time.perf_counter() - start
        print(f"[{pair}: {len(tasks)} matches in {elapsed:.0f} s, {args.workers} workers]")
        figures = summarise(pair, [(seed, swapped, r) for _, seed, swapped, r in done])
        figures["seconds"] = elapsed
        illegal += int(figures["illegal"])  # type: ignore[call-overload]
        report.append(figures)
        print()
    if args.timing_matches:
        timing = timing_pass(pairs, args.timing_matches, RULES[args.rules], expert)
        report.append({"timing": timing})
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:  # noqa: PTH123
            json.dump({"rules": args.rules, "pairs": report}, out, indent=2)
    timing_illegal = report[-1].get("timing", {}) if report else {}
    if isinstance(timing_illegal, dict) and timing_illegal.get("illegal"):
        illegal += 1
    return 1 if illegal else 0


if __name__ == "__main__":
    sys.exit(main())
