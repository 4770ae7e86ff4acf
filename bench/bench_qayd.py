"""Benchmark of table play (R45): what recording breaches and judging Qayd calls cost.

Prints, for random rounds of the same seeds: rounds per CPU second outside table play and in
table play (where seats break a rule with a fifth of their cards and the host closes each
review); the CPU cost of one CallQayd (a right call that ends the hand, a wrong one under
``no_penalty``); and the size of the token's plaintext with the breaches it records. Prints
numbers; it asserts nothing about speed.

    python bench/bench_qayd.py [--rounds 300] [--preset seeds|kammelna]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from baloot_engine.api.state_codec import encode
from baloot_engine.rules.actions import Action, CallQayd, ClaimSawa, Deal, Play
from baloot_engine.rules.game import apply, close_review, legal_actions, new_match
from baloot_engine.rules.ruleset import KAMMELNA, SEEDS, QaydFalseCall, RuleSet
from baloot_engine.rules.state import Phase, State

_LIVE = (Phase.BIDDING, Phase.DOUBLING, Phase.PLAYING)
SEED = bytes(16)


def play_round(state: State, rng: random.Random, cheat: float) -> tuple[State, list[State]]:
    """Deal and play one hand; with ``cheat`` > 0 a seat plays any held card that often."""
    deck = list(range(32))
    rng.shuffle(deck)
    state, _ = apply(state, state.dealer, Deal(tuple(deck)))
    seen = []
    while state.phase in _LIVE:
        seat = state.turn
        if state.phase is Phase.PLAYING and rng.random() < cheat:
            held = [c for c in range(32) if state.hands[seat] >> c & 1]
            action: Action = Play(rng.choice(held))
        else:
            actions = [a for a in legal_actions(state, seat) if type(a) is not ClaimSawa]
            action = rng.choice(actions)
        state, _ = apply(state, seat, action)
        seen.append(state)
    if state.phase is Phase.ROUND_REVIEW:
        state, _ = close_review(state)
    return state, seen


def rounds_per_second(modes: list[tuple[RuleSet, float]], rounds: int) -> list[float]:
    """Scored rounds per CPU second of each (rules, cheat) mode: the median of five runs.

    Each run plays the same ``rounds`` hands (same seed) in every mode, the modes taking
    turns, and is timed in this process's CPU time: on a shared machine the wall clock
    mostly measures the other processes. Hands cancelled by a redeal are not counted.
    """
    rates: list[list[float]] = [[] for _ in modes]
    for _ in range(5):
        for index, (rules, cheat) in enumerate(modes):
            rng = random.Random(1)
            state = new_match(rules)
            scored = 0
            start = time.process_time()
            for _ in range(rounds):
                if state.phase is Phase.MATCH_OVER:
                    state = new_match(rules)
                state, _ = play_round(state, rng, cheat)
                scored += state.phase in (Phase.ROUND_OVER, Phase.MATCH_OVER)
            rates[index].append(scored / (time.process_time() - start))
    return [statistics.median(r) for r in rates]


def reviewed_states(rules: RuleSet, count: int) -> list[State]:
    """States under review with at least one breach recorded."""
    rng = random.Random(2)
    found: list[State] = []
    state = new_match(rules)
    while len(found) < count:
        if state.phase is Phase.MATCH_OVER:
            state = new_match(rules)
        deck = list(range(32))
        rng.shuffle(deck)
        state, _ = apply(state, state.dealer, Deal(tuple(deck)))
        while state.phase in _LIVE:
            seat = state.turn
            if state.phase is Phase.PLAYING and rng.random() < 0.2:
                held = [c for c in range(32) if state.hands[seat] >> c & 1]
                state, _ = apply(state, seat, Play(rng.choice(held)))
            else:
                state, _ = apply(state, seat, rng.choice(legal_actions(state, seat)))
        if state.phase is Phase.ROUND_REVIEW:
            if state.violations:
                found.append(state)
            state, _ = close_review(state)
    return found


def per_call_microseconds(states: list[State], right: bool, repeat: int = 200) -> float:
    times = []
    for state in states:
        v = state.violations[0]
        if right:
            call = CallQayd(v.seat, v.trick, v.card)
        else:
            record = state.tricks[0]
            seat = record.leader
            call = CallQayd(seat, 1, record.cards[0])
        caller = (call.accused + 1) & 3
        start = time.process_time()
        for _ in range(repeat):
            try:
                apply(state, caller, call)
            except Exception:  # noqa: BLE001 - a clean card called right: skip it
                break
        times.append((time.process_time() - start) / repeat * 1e6)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--preset", choices=("seeds", "kammelna"), default="seeds")
    args = parser.parse_args()
    base = SEEDS if args.preset == "seeds" else KAMMELNA
    table = base.replace(illegal_moves_allowed=True)
    print(f"preset {args.preset}")
    plain, legal, cheating = rounds_per_second(
        [(base, 0.0), (table, 0.0), (table, 0.2)], args.rounds
    )
    print(f"rounds per CPU second, legal play, table off:  {plain:8.0f}")
    print(f"rounds per CPU second, legal play, table on:   {legal:8.0f}")
    print(f"rounds per CPU second, a fifth illegal:        {cheating:8.0f}")
    states = reviewed_states(table, 200)
    right = per_call_microseconds(states, True)
    print(f"CallQayd, right call ending the hand:          {right:8.1f} us")
    lenient_rules = table.replace(qayd_false_call=QaydFalseCall.NO_PENALTY)
    lenient = [s._replace(rules=lenient_rules) for s in states]
    wrong = per_call_microseconds(lenient, False)
    print(f"CallQayd, wrong call under no_penalty:         {wrong:8.1f} us")
    sizes = [(len(s.violations), len(encode(s, SEED, 40))) for s in states]
    most = max(sizes)
    mean = statistics.mean(size for _, size in sizes)
    print(f"token plaintext under review: mean {mean:.0f} B; {most[0]} breaches: {most[1]} B")
    clean = [len(encode(s._replace(violations=()), SEED, 40)) for s in states]
    print(f"the same states without their breaches: mean {statistics.mean(clean):.0f} bytes")


if __name__ == "__main__":
    main()
