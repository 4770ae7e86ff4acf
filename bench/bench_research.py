"""Benchmark of the research environment against the bare rules core, in the same run.

Both sides play the same thing with uniformly random legal actions: an episode is one deal
(a new match, a shuffled deck, bidding, doubling, play, scoring; a hand cancelled by an
all-pass redeal ends its episode unscored). The core side calls ``legal_actions`` and
``apply``; the environment side is PettingZoo's loop over ``env()`` (``agent_iter``,
``last()`` with the observation tensor and the action mask, ``step``), and optionally the
OpenSpiel game (``legal_actions``, ``apply_action``, the chance nodes of the deal, and the
observation tensor before each decision). A fourth side, the core with the rules core's
``observe`` of the seat on turn at each step (the legal actions taken from it), shows what the
observation the environment encodes costs by itself. Slices of each side alternate, so a
change in the machine's load touches them alike; the ratio of the rates is the overhead.
Prints numbers; asserts nothing about speed.

    python bench/bench_research.py [--seconds 20] [--slices 10] [--preset seeds] [--openspiel]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable

from baloot_engine.research import env as make_env
from baloot_engine.research.core import shuffled_deck
from baloot_engine.rules.actions import Deal
from baloot_engine.rules.game import apply, legal_actions, new_match
from baloot_engine.rules.observation import observe
from baloot_engine.rules.ruleset import PRESETS, Preset, RuleSet
from baloot_engine.rules.state import Phase

_LIVE = (Phase.BIDDING, Phase.DOUBLING, Phase.PLAYING)
# (episodes scored, episodes, steps) of one slice.
Counts = tuple[int, int, int]


def core_slice(rules: RuleSet, rng: random.Random, seconds: float) -> Counts:
    """Random deals on the bare rules core for ``seconds``."""
    scored = episodes = steps = 0
    uniform = rng.random
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        state = new_match(rules, dealer=rng.randrange(4))
        state, _ = apply(state, state.dealer, Deal(shuffled_deck(rng)))
        while state.phase in _LIVE:
            seat = state.turn
            actions = legal_actions(state, seat)
            state, _ = apply(state, seat, actions[int(uniform() * len(actions))])
            steps += 1
        episodes += 1
        scored += state.phase is not Phase.AWAITING_DEAL
    return scored, episodes, steps


def observed_core_slice(rules: RuleSet, rng: random.Random, seconds: float) -> Counts:
    """The core's random deals plus the rules core's observation of the seat on turn at each
    step (what the environment encodes): the share of the environment's time it costs."""
    scored = episodes = steps = 0
    uniform = rng.random
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        state = new_match(rules, dealer=rng.randrange(4))
        state, _ = apply(state, state.dealer, Deal(shuffled_deck(rng)))
        while state.phase in _LIVE:
            seat = state.turn
            actions = observe(state, seat).legal_actions
            state, _ = apply(state, seat, actions[int(uniform() * len(actions))])
            steps += 1
        episodes += 1
        scored += state.phase is not Phase.AWAITING_DEAL
    return scored, episodes, steps


def env_slice(rules: RuleSet, rng: random.Random, seconds: float) -> Counts:
    """Random deals through the PettingZoo environment for ``seconds``."""
    env = make_env(rules)
    scored = episodes = steps = 0
    uniform = rng.random
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        env.reset(seed=rng.getrandbits(32))
        for _agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = observation["action_mask"].nonzero()[0]
            env.step(int(legal[int(uniform() * len(legal))]))
            steps += 1
        episodes += 1
        scored += env.unwrapped.game_state.phase is not Phase.AWAITING_DEAL
    return scored, episodes, steps


def openspiel_slice(rules: RuleSet, rng: random.Random, seconds: float) -> Counts:
    """Random deals through the OpenSpiel game for ``seconds`` (observation tensors included)."""
    import pyspiel

    import baloot_engine.research.openspiel_game  # noqa: F401 - registers the game

    preset = next(p.value for p, r in PRESETS.items() if r == rules)
    game = pyspiel.load_game("python_baloot", {"preset": preset})
    scored = episodes = steps = 0
    uniform = rng.random
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(uniform() * len(outcomes))][0])
                continue
            state.observation_tensor()
            legal = state.legal_actions()
            state.apply_action(legal[int(uniform() * len(legal))])
            steps += 1
        episodes += 1
        scored += any(state.returns())
    return scored, episodes, steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="per side, in all")
    parser.add_argument("--slices", type=int, default=10)
    parser.add_argument("--preset", choices=tuple(p.value for p in Preset), default="seeds")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--openspiel", action="store_true", help="the OpenSpiel game too")
    args = parser.parse_args()
    rules = PRESETS[Preset(args.preset)]
    sides: dict[str, Callable[[RuleSet, random.Random, float], Counts]] = {
        "rules core": core_slice,
        "core + observe": observed_core_slice,
        "PettingZoo env": env_slice,
    }
    if args.openspiel:
        sides["OpenSpiel game"] = openspiel_slice
    totals = {name: [0, 0, 0, 0.0] for name in sides}
    rates: dict[str, list[float]] = {name: [] for name in sides}
    per_slice = args.seconds / args.slices
    load_before = os.getloadavg()
    for number in range(args.slices):
        for name, run in sides.items():
            rng = random.Random(args.seed * 1000 + number)
            start = time.perf_counter()
            scored, episodes, steps = run(rules, rng, per_slice)
            spent = time.perf_counter() - start
            total = totals[name]
            total[0] += scored
            total[1] += episodes
            total[2] += steps
            total[3] += spent
            rates[name].append(scored / spent)
    load_after = os.getloadavg()
    print(f"preset: {args.preset}; {args.slices} alternating slices of {per_slice:.1f} s per side")
    print(
        f"load average (1, 5, 15 min) before: {load_before[0]:.2f} {load_before[1]:.2f} "
        f"{load_before[2]:.2f}; after: {load_after[0]:.2f} {load_after[1]:.2f} "
        f"{load_after[2]:.2f}; {os.cpu_count()} cores"
    )
    core_rounds = totals["rules core"][0] / totals["rules core"][3]
    core_steps = totals["rules core"][2] / totals["rules core"][3]
    for name, (scored, episodes, steps, spent) in totals.items():
        rounds_rate = scored / spent
        steps_rate = steps / spent
        print(
            f"{name:15} {steps_rate:9,.0f} steps/s  {rounds_rate:7,.1f} rounds/s "
            f"(median slice {statistics.median(rates[name]):7,.1f})  "
            f"{scored} rounds of {episodes} deals  "
            f"ratio to the core: rounds {rounds_rate / core_rounds:.2f}, "
            f"steps {steps_rate / core_steps:.2f}"
        )


if __name__ == "__main__":
    main()
