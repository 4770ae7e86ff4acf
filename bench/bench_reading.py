"""Benchmark of the readings of the hidden hands: how close each brings a bot's worlds to the
real deal.

EXPERT chooses its card over worlds sampled from what its seat has seen. Seeing its partner's
real hand in every world is worth some fifteen points of win rate against ``expert_baseline``
(docs/bots.md, *What seeing every hand is worth*), so a better reading of the hidden hands is
the obvious road to a stronger EXPERT. This benchmark measures the readings themselves, without
playing matches on them: in seeded matches of one level, at every card decision with a choice
(from the second trick on, when there is play to read), ``--worlds`` worlds are sampled alike
among those the play allows, and each reading weighs them. A reading's figures are the weighted
means over its worlds of

* **placed**: the share of the unseen cards a world deals to the hand that really holds them
  (every other seat);
* **partner**: the share of the partner's real unseen cards a world deals to the partner (1 when
  the partner's hand is seen);

and its **spread** (the effective share of the worlds its weights keep, (Σw)² / (N Σw²): 1 for
alike, small when a few worlds carry the mean). The readings:

* ``alike``: every world the play allows counts alike (EXPERT's default);
* ``calls``: the worlds in which the buyer's and the doublers' hands fit their calls
  (:func:`~baloot_engine.bots.inference.plausible`; EXPERT's ``weighted_sampling``);
* ``heuristic 0.4`` and ``heuristic 0.6``: each world weighed by how likely the other seats'
  plays are in it when each plays the heuristic card with that chance
  (:func:`~baloot_engine.bots.inference.play_weight`; EXPERT's ``agree``);
* ``solved β``: each world weighed by how likely the other seats' plays are in it when each
  chooses by the exact values of its cards in that world, softmax(β · card points) over its
  legal cards (each earlier position of the hand solved in each world: a model of players who
  play well, far too costly for a decision's budget, measured here as a bound on what reading
  the play as good players' play could give);
* ``calls + solved β``: both;
* ``throws``: each world weighed by the partner's throws read as the discard signal of
  :mod:`~baloot_engine.bots.signals` (EXPERT's ``signal``): less where the partner threw from a
  suit whose best card left it held.

    python bench/bench_reading.py [--level expert] [--seeds 1-12] [--rounds 3] [--worlds 48]
                                  [--no-solved]

``--no-solved`` leaves out the solved readings (most of the CPU).

Prints each reading's means with their standard errors over decisions, and each one's
difference from ``alike`` paired on the same decisions and worlds.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections.abc import Sequence

from baloot_engine.analysis.selfplay import play_record
from baloot_engine.bots import Level, suggest
from baloot_engine.bots.inference import PlayHistory, plausible, play_history, play_weight
from baloot_engine.bots.signals import signal_marks, signal_weight
from baloot_engine.bots.tracking import sample_hands, track
from baloot_engine.rules.actions import Action, Play
from baloot_engine.rules.contract import Contract
from baloot_engine.rules.observation import Observation, observe
from baloot_engine.rules.ruleset import RuleSet
from baloot_engine.rules.state import Phase, State
from baloot_engine.solver import Position, SolverBudgetError, solve

World = tuple[int, int, int, int]
BETAS = (0.1, 0.3)
"""The temperatures of the solved model, per card point."""
MAX_NODES = 400_000
"""A bound on one solve of an earlier position; a position past it is not counted."""


def solved_log_weights(
    history: PlayHistory, world: World, contract: Contract, rules: RuleSet, betas: Sequence[float]
) -> list[float]:
    """The log-likelihood of the other seats' plays of this hand in ``world`` when each chooses
    by softmax(β · the exact value of its cards for its team), for each β."""
    spent = history.spent
    hands = [world[seat] | spent[seat] for seat in range(4)]
    found = [0.0] * len(betas)
    for seat, card, prefix, leader, played, akka, _ in history.events:
        gone = played
        for other in prefix:
            gone |= 1 << other
        position = Position(
            (hands[0] & ~gone, hands[1] & ~gone, hands[2] & ~gone, hands[3] & ~gone),
            prefix,
            leader,
            played,
            akka and bool(prefix),
            contract,
            rules,
        )
        hands[seat] ^= 1 << card
        try:
            solution = solve(position, max_nodes=MAX_NODES)
        except SolverBudgetError:
            continue
        if len(solution.values) < 2:
            continue
        team = seat & 1
        values = {v.play.card: v.points[team] + v.tricks[team] / 9.0 for v in solution.values}
        if card not in values:
            continue
        top = max(values.values())
        for i, beta in enumerate(betas):
            total = sum(math.exp(beta * (v - top)) for v in values.values())
            found[i] += beta * (values[card] - top) - math.log(total)
    return found


def _weights_of(logs: Sequence[float]) -> list[float]:
    top = max(logs)
    return [math.exp(v - top) for v in logs]


class Readings:
    """Each reading's figures per decision: (placed, partner, spread)."""

    def __init__(self, worlds: int, solved: bool = True) -> None:
        self.worlds = worlds
        self.solved = solved
        self.figures: dict[str, list[tuple[float, float, float]]] = {}
        self.solve_seconds = 0.0

    def names(self) -> list[str]:
        return list(self.figures)

    def measure(self, state: State, seat: int, rng: random.Random) -> None:
        """Sample worlds at this decision and score every reading on them."""
        obs: Observation = observe(state, seat)
        contract = obs.contract
        if contract is None or not obs.tricks:
            return
        if len({a.card for a in obs.legal_actions if isinstance(a, Play)}) < 2:
            return
        tracker = track(obs)
        unseen = tracker.unseen
        count = unseen.bit_count()
        if not count:
            return
        partner = seat ^ 2
        real = state.hands
        partner_cards = (real[partner] & unseen).bit_count()
        worlds = [sample_hands(obs, tracker, rng) for _ in range(self.worlds)]
        placed = [
            sum((w[s] & real[s] & unseen).bit_count() for s in range(4) if s != seat) / count
            for w in worlds
        ]
        mates = [
            (w[partner] & real[partner] & unseen).bit_count() / partner_cards
            if partner_cards
            else 1.0
            for w in worlds
        ]
        history = play_history(obs)
        fits = [1.0 if plausible(obs, w) else 0.0 for w in worlds]
        started = time.process_time()
        solved = [
            solved_log_weights(history, w, contract, obs.rules, BETAS) if self.solved else []
            for w in worlds
        ]
        self.solve_seconds += time.process_time() - started
        weights: dict[str, list[float]] = {"alike": [1.0] * len(worlds)}
        weights["calls"] = fits if any(fits) else [1.0] * len(worlds)
        for agree in (0.4, 0.6):
            weights[f"heuristic {agree}"] = [
                play_weight(history, w, contract, obs.rules, agree) for w in worlds
            ]
        marks = signal_marks(obs)
        weights["throws"] = [signal_weight(obs, marks, w) for w in worlds]
        for i, beta in enumerate(BETAS if self.solved else ()):
            alone = _weights_of([logs[i] for logs in solved])
            weights[f"solved {beta}"] = alone
            both = [a * f for a, f in zip(alone, weights["calls"], strict=True)]
            weights[f"calls + solved {beta}"] = both if any(both) else alone
        for name, found in weights.items():
            total = sum(found)
            squares = sum(w * w for w in found)
            self.figures.setdefault(name, []).append(
                (
                    sum(w * p for w, p in zip(found, placed, strict=True)) / total,
                    sum(w * m for w, m in zip(found, mates, strict=True)) / total,
                    total * total / (len(found) * squares),
                )
            )


def _mean_error(values: Sequence[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    error = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return mean, error


def report(readings: Readings) -> None:
    """Each reading's means and its paired differences from ``alike``."""
    base = readings.figures.get("alike", [])
    print(
        f"\n{len(base)} decisions with a choice, {readings.worlds} worlds each; means ± s.e. "
        "over decisions; in brackets the difference from alike on the same worlds:"
    )
    print(f"  {'reading':22} {'placed':>24} {'partner':>24} {'spread':>8}")
    for name, found in readings.figures.items():
        cells = []
        for index in (0, 1):
            mean, error = _mean_error([f[index] for f in found])
            paired, paired_error = _mean_error(
                [f[index] - b[index] for f, b in zip(found, base, strict=True)]
            )
            cells.append(f"{mean:.4f}±{error:.4f} ({paired:+.4f}±{paired_error:.4f})")
        spread = statistics.fmean(f[2] for f in found)
        print(f"  {name:22} {cells[0]:>24} {cells[1]:>24} {spread:8.2f}")


def _seeds(text: str) -> list[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def main() -> None:
    """Play the seeded matches, measure every reading at each decision, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", default="expert", choices=[v.name.lower() for v in Level])
    parser.add_argument("--seeds", default="1-12", help="match seeds, a range such as 1-12")
    parser.add_argument("--rounds", type=int, default=3, help="hands played per match")
    parser.add_argument("--worlds", type=int, default=48, help="worlds sampled per decision")
    parser.add_argument(
        "--no-solved", action="store_true", help="leave out the solved readings (most of the CPU)"
    )
    args = parser.parse_args()
    level = Level[args.level.upper()]
    readings = Readings(args.worlds, solved=not args.no_solved)
    rng = random.Random(2026)

    def decide(state: State, seat: int, seed: int) -> Action:
        if state.phase is Phase.PLAYING:
            readings.measure(state, seat, rng)
        return suggest(state, seat, level, seed=seed)

    started = time.process_time()
    for seed in _seeds(args.seeds):
        play_record([level] * 4, seed, max_rounds=args.rounds, decide=decide)
        done = len(readings.figures.get("alike", []))
        print(f"seed {seed}: {done} decisions so far, {time.process_time() - started:.0f} s CPU")
    report(readings)
    print(
        f"CPU: {time.process_time() - started:.0f} s, of it {readings.solve_seconds:.0f} s solving"
    )


if __name__ == "__main__":
    main()
