"""OpenSpiel's IS-MCTS against BASIC in the OpenSpiel game, mirrored deals.

Team 0 of a deal is OpenSpiel's Python ``ismcts.ISMCTSBot`` (random roll-outs, one search per
decision, each simulation from a state resampled with ``resample_from_infostate``) at both of
its seats, team 1 two BASIC bots; each deal (its 32 chance outcomes drawn from the deal's own
seed) is played again with the teams' seats swapped, so the cards' luck cancels out.

    python bench/bench_research_ismcts.py [--deals 40] [--simulations 100] [--preset kammelna]
                                          [--first 0]

Prints the mean game points per deal of the IS-MCTS team with its standard error over the
mirrored pairs, and the CPU time per searched decision.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Sequence

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from baloot_engine.research import GAME_NAME, openspiel_game


def deal(
    game: pyspiel.Game, seed: int, searching: tuple[int, int], simulations: int
) -> tuple[float, int, float]:
    """The return of the searching team in deal ``seed``, its searched decisions and their
    CPU time."""
    chance = np.random.RandomState(seed)
    rng = np.random.RandomState(10_000 + seed)
    search = ismcts.ISMCTSBot(
        game, mcts.RandomRolloutEvaluator(1, rng), 2.0, simulations, random_state=rng
    )
    bots = {
        seat: openspiel_game.bot(seat, "basic", seed * 4 + seat)
        for seat in range(4)
        if seat not in searching
    }
    state = game.new_initial_state()
    decisions, cpu = 0, 0.0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(chance.choice(outcomes, p=probabilities)))
        elif state.current_player() in bots:
            state.apply_action(bots[state.current_player()].step(state))
        else:
            started = time.process_time()
            searched = len(state.legal_actions()) > 1
            state.apply_action(int(search.step(state)))
            if searched:
                decisions += 1
                cpu += time.process_time() - started
    return state.returns()[searching[0]], decisions, cpu


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; print the result."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=40, help="mirrored pairs")
    parser.add_argument("--simulations", type=int, default=100)
    parser.add_argument("--preset", default="kammelna")
    parser.add_argument("--first", type=int, default=0, help="the first deal's seed")
    args = parser.parse_args(argv)
    game = pyspiel.load_game(GAME_NAME, {"preset": args.preset})
    pairs: list[float] = []
    decisions, cpu = 0, 0.0
    for seed in range(args.first, args.first + args.deals):
        first, n_first, cpu_first = deal(game, seed, (0, 2), args.simulations)
        second, n_second, cpu_second = deal(game, seed, (1, 3), args.simulations)
        pairs.append((first + second) / 2)
        decisions += n_first + n_second
        cpu += cpu_first + cpu_second
        print(f"deal {seed}: {first:+.0f} / {second:+.0f}", flush=True)
    se = statistics.stdev(pairs) / math.sqrt(len(pairs))
    print(
        f"IS-MCTS ({args.simulations} simulations, random roll-outs) vs basic, {args.preset}: "
        f"{statistics.fmean(pairs):+.2f} ± {se:.2f} game points per deal over {args.deals} "
        f"mirrored pairs; {decisions} searched decisions, {cpu / max(decisions, 1):.2f} s CPU each"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
