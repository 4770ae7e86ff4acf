"""Benchmark of bidding by simulation: the true worth of every bid, against what each rule chose.

A match result says little about the bidding alone: one bid in a hundred decisions changes
nothing a few hundred matches can show. This benchmark measures the bids themselves. It plays
seeded STRONG matches; at every bidding decision with a choice it tries every bid the seat may
say (Kawesh aside) on the real deal, plays the round on with STRONG for all four seats (twice,
with other seeds) and takes the seat's team's round score minus the other team's as that bid's
worth. The same decision is also given to the bidding rules compared:

* the hand-evaluation thresholds (BASIC's bidding, and STRONG's before bidding by simulation);
* the simulation (:mod:`baloot_engine.bots.bidding_eval`) over the thresholds' bid by a margin
  of M points (``--margins``), as STRONG and EXPERT bid, with ``--samples`` sampled deals;
* the simulation alone (the best-scoring bid, a pass included);
* the best bid in hindsight (the bid worth most on the real deal: a bound, not a rule).

For each it prints the mean worth of its bids minus the thresholds', ± the standard error over
decisions. Every rule meets the same decisions and the same real deals.

    python bench/bench_bidding.py [--matches 60] [--first-seed 5000] [--samples 48]
                                  [--margins 0,2,4,8] [--raw out.jsonl] [--merge f ...]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from collections.abc import Callable, Sequence

from baloot_engine.bots import Level, suggest
from baloot_engine.bots.bidding_eval import evaluate_bids, over_default
from baloot_engine.bots.handeval import BASIC_STYLE
from baloot_engine.bots.policies import choose_bid
from baloot_engine.rules.actions import Bid, BidKind, Deal
from baloot_engine.rules.game import apply, new_match
from baloot_engine.rules.observation import observe
from baloot_engine.rules.ruleset import SEEDS
from baloot_engine.rules.state import Phase, State

MAX_ROUNDS = 12
REPEATS = 2

Row = dict[str, object]


def _deck(seed: int, hand_number: int) -> Deal:
    deck = list(range(32))
    random.Random(f"baloot-bidding-{seed}-{hand_number}").shuffle(deck)
    return Deal(tuple(deck))


def _round_on(state: State, seed: int) -> int:
    """Play the round on with STRONG; team 0's round score minus team 1's (0 for a redeal)."""
    hand = state.hand_number
    scored = state.last_score
    step = 0
    while state.hand_number == hand and state.phase not in (
        Phase.AWAITING_DEAL,
        Phase.ROUND_OVER,
        Phase.MATCH_OVER,
    ):
        seat = state.turn
        action = suggest(state, seat, Level.STRONG, seed=seed * 7919 + step)
        step += 1
        state, _ = apply(state, seat, action)
    last = state.last_score
    if last is None or last is scored:
        return 0
    return last.points[0] - last.points[1]


def decisions(seed: int, samples: int) -> list[Row]:
    """Every bidding decision with a choice of one seeded STRONG match, each bid's worth."""
    rows: list[Row] = []
    state = new_match(SEEDS, dealer=0)
    step = 0
    while state.phase is not Phase.MATCH_OVER and state.hand_number <= MAX_ROUNDS:
        if state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
            state, _ = apply(state, state.dealer, _deck(seed, state.hand_number + 1))
            continue
        seat = state.turn
        if state.phase is Phase.BIDDING:
            obs = observe(state, seat)
            bids = [
                a for a in obs.legal_actions if isinstance(a, Bid) and a.kind is not BidKind.KAWESH
            ]
            if len(bids) > 1:
                rng = random.Random(seed * 31 + step)
                estimates = evaluate_bids(obs, bids, rng, samples, BASIC_STYLE)
                sign = 1 if seat % 2 == 0 else -1
                worth = {
                    str(bid): [
                        sign * _round_on(apply(state, seat, bid)[0], seed * 1000 + step * 10 + k)
                        for k in range(REPEATS)
                    ]
                    for bid in bids
                }
                rows.append(
                    {
                        "seed": seed,
                        "round": obs.bidding_round,
                        "stage": obs.bid_stage.value,
                        "base": str(choose_bid(obs, bids, BASIC_STYLE)),
                        "ev": {str(b): v for b, v in estimates.items()},
                        "truth": worth,
                    }
                )
        action = suggest(state, seat, Level.STRONG, seed=seed * 1_000_003 + step)
        step += 1
        state, _ = apply(state, seat, action)
    return rows


def _worth(row: Row, bid: str) -> float:
    values = row["truth"][bid]  # type: ignore[index]
    return float(statistics.fmean(values))


def over_thresholds(margin: float) -> Callable[[Row], str]:
    """The rule STRONG and EXPERT bid by (policies.choose_bid_evaluated)."""

    def rule(row: Row) -> str:
        ev: dict[str, float] = row["ev"]  # type: ignore[assignment]
        return over_default(str(row["base"]), ev, margin, may_pass="pass" in ev)

    return rule


def simulation_alone(row: Row) -> str:
    ev: dict[str, float] = row["ev"]  # type: ignore[assignment]
    return max(ev, key=lambda b: ev[b])


def hindsight(row: Row) -> str:
    truth: dict[str, list[int]] = row["truth"]  # type: ignore[assignment]
    return max(truth, key=lambda b: _worth(row, b))


def report(rows: Sequence[Row], margins: Sequence[float]) -> None:
    n = len(rows)
    print(f"{n} bidding decisions with a choice, {REPEATS} play-ons of the real deal per bid")
    if n < 2:
        return
    base = [_worth(r, str(r["base"])) for r in rows]
    print(f"  thresholds: mean worth {statistics.fmean(base):+.2f} game points a round")
    rules: list[tuple[str, Callable[[Row], str]]] = [
        (f"simulation over the thresholds by {m:g}", over_thresholds(m)) for m in margins
    ]
    rules += [("simulation alone", simulation_alone), ("best bid in hindsight", hindsight)]
    for name, rule in rules:
        chosen = [rule(r) for r in rows]
        diffs = [_worth(r, c) - b for r, c, b in zip(rows, chosen, base, strict=True)]
        changed = sum(1 for r, c in zip(rows, chosen, strict=True) if c != r["base"])
        se = statistics.stdev(diffs) / math.sqrt(n)
        print(
            f"  {name}: {statistics.fmean(diffs):+.2f} +- {se:.2f} against the thresholds "
            f"({changed} of {n} bids differ)"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=60)
    parser.add_argument("--first-seed", type=int, default=5000)
    parser.add_argument("--samples", type=int, default=48, help="sampled deals per decision")
    parser.add_argument("--margins", default="0,2,4,8")
    parser.add_argument("--raw", help="append every decision to this file (one JSON a line)")
    parser.add_argument("--merge", nargs="+", metavar="RAW", help="report these --raw files")
    args = parser.parse_args(argv)
    margins = [float(m) for m in args.margins.split(",") if m]
    rows: list[Row] = []
    if args.merge:
        for path in args.merge:
            with open(path, encoding="utf-8") as lines:  # noqa: PTH123
                rows += [json.loads(line) for line in lines]
        report(rows, margins)
        return 0
    raw = open(args.raw, "a", encoding="utf-8") if args.raw else None  # noqa: PTH123, SIM115
    try:
        for seed in range(args.first_seed, args.first_seed + args.matches):
            found = decisions(seed, args.samples)
            rows += found
            if raw is not None:
                raw.writelines(json.dumps(row) + "\n" for row in found)
                raw.flush()
    finally:
        if raw is not None:
            raw.close()
    report(rows, margins)
    return 0


if __name__ == "__main__":
    sys.exit(main())
