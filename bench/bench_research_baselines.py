"""Baseline returns of the research environments: what a training run can be checked against.

A team of two seats plays one level (RANDOM, BASIC, STRONG or EXPERT; ``--partner`` puts
another level beside the first seat) against two BASIC seats, one deal per episode of the
PettingZoo environment (``env(preset)``, ``reset(seed=i)``): the quantity the training loop of
docs/research.md collects, the team's game points minus the other team's (0 for a cancelled
deal). Every deal is played twice, mirrored: episode ``i`` with the level at seats 0 and 2,
then the same episode (same seed: same dealer, same cards) with it at seats 1 and 3, so the
luck of the cards cancels out; the bots' decisions are seeded, so a run replays exactly.

    python bench/bench_research_baselines.py [--levels random,basic,strong,expert]
        [--deals 1000] [--expert-deals 200] [--preset kammelna] [--partner LEVEL]
        [--first 0] [--json out.json]

Prints, per level, the mean game points per deal of the level's team with its standard error
over the mirrored pairs, the standard deviation of one deal's result (the standard error of an
evaluation of ``n`` unmirrored episodes is about that divided by the square root of ``n``) and
the CPU time per deal.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections.abc import Sequence

from baloot_engine.research import env
from baloot_engine.research.agents import BotAgent

LEVELS = ("random", "basic", "strong", "expert")


def episode(preset: str, seed: int, levels: Sequence[str]) -> tuple[float, float, float, float]:
    """Each seat's return of episode ``seed``, seat ``s`` played by ``levels[s]``."""
    table = env(preset)
    table.reset(seed=seed)
    bots = [BotAgent(level, seed * 4 + seat) for seat, level in enumerate(levels)]
    returns = [0.0, 0.0, 0.0, 0.0]
    for agent in table.agent_iter():
        _, reward, done, truncated, _ = table.last()
        seat = table.agent_name_mapping[agent]
        returns[seat] += reward
        table.step(None if done or truncated else bots[seat](table, agent))
    return returns[0], returns[1], returns[2], returns[3]


def measure(
    level: str, partner: str, preset: str, first: int, deals: int
) -> dict[str, float | int | str]:
    """The mirrored baseline of one level."""
    pairs: list[float] = []
    singles: list[float] = []
    started = time.process_time()
    for seed in range(first, first + deals):
        as_team_0 = episode(preset, seed, (level, "basic", partner, "basic"))[0]
        as_team_1 = episode(preset, seed, ("basic", level, "basic", partner))[1]
        singles += [as_team_0, as_team_1]
        pairs.append((as_team_0 + as_team_1) / 2)
    cpu = time.process_time() - started
    return {
        "level": level,
        "partner": partner,
        "preset": preset,
        "deals": deals,
        "mean": statistics.fmean(pairs),
        "se": statistics.stdev(pairs) / math.sqrt(len(pairs)),
        "sd_one_deal": statistics.stdev(singles),
        "team_0_mean": statistics.fmean(singles[0::2]),
        "cpu_per_deal": cpu / (2 * deals),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run the baselines; print one line per level."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default=",".join(LEVELS))
    parser.add_argument("--deals", type=int, default=1000, help="mirrored pairs per level")
    parser.add_argument("--expert-deals", type=int, default=200, help="pairs for EXPERT")
    parser.add_argument("--preset", default="kammelna")
    parser.add_argument("--partner", default="", help="the second seat's level (default: same)")
    parser.add_argument("--first", type=int, default=0, help="the first episode seed")
    parser.add_argument("--json", default="", help="write the results to this file")
    args = parser.parse_args(argv)
    results = []
    print(f"preset {args.preset}, each deal mirrored; game points per deal of the level's team")
    for level in args.levels.split(","):
        deals = args.expert_deals if level == "expert" else args.deals
        result = measure(level, args.partner or level, args.preset, args.first, deals)
        results.append(result)
        print(
            f"{level:>7} (+{result['partner']}) vs basic: {result['mean']:+7.2f} "
            f"± {result['se']:.2f} per deal  (sd of one deal {result['sd_one_deal']:.1f}, "
            f"{deals} mirrored pairs, {result['cpu_per_deal']:.3f} s CPU per deal)",
            flush=True,
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:  # noqa: PTH123 - a plain report
            json.dump(results, out, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
