"""Benchmark of VerifyRecord: replaying the record of a complete match, in one process.

Records of complete random matches (random legal actions, a Gahwa only now and then so a
match lasts its usual dozen hands) are built first, as the clients build them: the resolved
rules, each hand's deck and its actions, and each scored hand's score as the engine sent it.
Then each record is verified with the function the VerifyRecord RPC calls
(``api.records.verify``: the messages read into core actions, every action applied through
the rules, every score compared), without the network. Prints numbers; asserts nothing
about speed.

    python bench/bench_records.py [--matches 200] [--seed 1] [--preset seeds|kammelna]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from baloot.v1 import records_pb2
from baloot_engine.api import outbound, records
from baloot_engine.rules.actions import ClaimSawa, Deal, Doubling, DoublingCall, EventKind
from baloot_engine.rules.game import apply, legal_actions, new_match
from baloot_engine.rules.ruleset import KAMMELNA, SEEDS, RuleSet
from baloot_engine.rules.state import Phase

_BETWEEN = (Phase.AWAITING_DEAL, Phase.ROUND_OVER)


def record_of_a_match(rules: RuleSet, rng: random.Random) -> records_pb2.MatchRecord:
    """Play a complete random match and return its record."""
    state = new_match(rules, dealer=rng.randrange(4))
    record = records_pb2.MatchRecord(format=1, first_dealer=state.dealer)
    record.rules.CopyFrom(outbound.rules_out(rules))
    record.starting_scores.extend(state.match_scores)
    current = None
    while state.phase is not Phase.MATCH_OVER:
        if state.phase in _BETWEEN:
            deck = list(range(32))
            rng.shuffle(deck)
            current = record.rounds.add(deck_order=deck)
            seat, action, applied = state.dealer, Deal(()), Deal(tuple(deck))
        else:
            seat = state.turn
            options = [
                a
                for a in legal_actions(state, seat)
                if not isinstance(a, ClaimSawa)
                and not (isinstance(a, Doubling) and a.call is DoublingCall.GAHWA)
            ]
            action = applied = rng.choice(options)
        state, events = apply(state, seat, applied)
        assert current is not None
        entry = current.actions.add(seat=seat)
        entry.action.CopyFrom(outbound.action_out(action))
        for event in events:
            if event.kind is EventKind.ROUND_SCORED and event.score is not None:
                current.score.CopyFrom(
                    outbound.round_score_out(event.score, state.hand_number, state.contract)
                )
    return record


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--preset", choices=("seeds", "kammelna"), default="seeds")
    args = parser.parse_args()
    rules = KAMMELNA if args.preset == "kammelna" else SEEDS
    rng = random.Random(args.seed)
    built = [record_of_a_match(rules, rng) for _ in range(args.matches)]
    actions = [records.total_steps(r) for r in built]
    sizes = [r.ByteSize() for r in built]
    for record in built[:5]:  # warm the caches the service keeps warm
        records.verify(record)
    wall: list[float] = []
    cpu: list[float] = []
    for record in built:
        start_wall, start_cpu = time.perf_counter(), time.process_time()
        answer = records.verify(record)
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start_wall)
        assert answer.valid, answer.divergence
    wall_ms = sorted(1000 * t for t in wall)
    cpu_ms = sorted(1000 * t for t in cpu)

    def pct(values: list[float], q: float) -> float:
        return values[min(len(values) - 1, int(q * len(values)))]

    print(f"VerifyRecord in process, {args.preset} rules, {args.matches} complete matches")
    print(
        f"  actions per match: mean {statistics.mean(actions):.0f}, "
        f"min {min(actions)}, max {max(actions)}; record size mean {statistics.mean(sizes):.0f} B"
    )
    print(
        f"  wall ms: p50 {pct(wall_ms, 0.5):.2f}  p90 {pct(wall_ms, 0.9):.2f}  "
        f"p99 {pct(wall_ms, 0.99):.2f}  max {wall_ms[-1]:.2f}"
    )
    print(
        f"  cpu ms:  p50 {pct(cpu_ms, 0.5):.2f}  p90 {pct(cpu_ms, 0.9):.2f}  "
        f"p99 {pct(cpu_ms, 0.99):.2f}  max {cpu_ms[-1]:.2f}"
    )
    per_action = 1e6 * sum(cpu) / sum(actions)
    print(f"  cpu per action: {per_action:.1f} us")


if __name__ == "__main__":
    main()
