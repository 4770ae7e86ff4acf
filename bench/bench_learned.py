"""CPU per decision of the LEARNED bot beside STRONG's and EXPERT's, in calibration loops.

The positions are every decision with a choice (bids, doubling calls, cards) of seeded matches
played by BASIC bots under SEEDS and KAMMELNA. Each level decides each position as a production
SuggestAction does (unseeded: STRONG and EXPERT stop at their time budgets), and the CPU time
of the deciding thread is measured around the whole bot call. The calibration loop of
``bench_rules.py`` runs on the same CPU clock between the positions, so each figure is also
given in calibration loops (CPU seconds × loops a CPU second), comparable across machines.

    python bench/bench_learned.py [--matches 4] [--levels learned,strong,expert] [--json out]
                                  [--agreement 200] [--worlds 48]

Prints p50, p90, p99 and the mean per level and phase, the model's version and size. With
``--agreement N`` it then compares, on N of the card positions, the card network's value of
each legal card with the sampled-world estimate EXPERT's search makes: the mean over
``--worlds`` worlds dealt consistently with the seat's observation, each solved exactly and
scored as the corpus's labels are (the unit is 26 game points). With ``--halves N`` it plays N
mirrored deal sequences (SEEDS, the decks of ``bench_bots.py``) against BASIC for each half of
LEARNED alone (its cards with BASIC's calls, BASIC's cards with its calls) and for BASIC's card
replaced by the network's when the network values it ``--margin`` units more.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence

from bench_bots import deck_for
from bench_rules import calibration_loops

from baloot_engine.bots import Level, suggest
from baloot_engine.bots.learned import card_values, lawful_cards
from baloot_engine.bots.network import WEIGHTS_FILE, shipped
from baloot_engine.bots.search import deal_facts
from baloot_engine.bots.tracking import sample_hands, track
from baloot_engine.learning.corpus import score_value
from baloot_engine.rules.actions import Action, Deal, Play
from baloot_engine.rules.game import apply, legal_actions, new_match
from baloot_engine.rules.observation import observe
from baloot_engine.rules.ruleset import KAMMELNA, SEEDS
from baloot_engine.rules.state import Phase, State
from baloot_engine.solver import Position, solve


def positions(matches: int) -> list[tuple[str, State, int]]:
    """(phase name, state, seat) of every decision with a choice in seeded BASIC matches."""
    found: list[tuple[str, State, int]] = []
    for index in range(matches):
        rules = (SEEDS, KAMMELNA)[index % 2]
        rng = random.Random(f"bench-learned-{index}")
        state = new_match(rules, dealer=index % 4)
        while state.phase is not Phase.MATCH_OVER:
            if state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
                deck = list(range(32))
                rng.shuffle(deck)
                state, _ = apply(state, state.dealer, Deal(tuple(deck)))
                continue
            seat = state.turn
            if len(legal_actions(state, seat)) > 1:
                phase = "card" if state.phase is Phase.PLAYING else "call"
                found.append((phase, state, seat))
            action = suggest(state, seat, Level.BASIC, seed=rng.randrange(1 << 30))
            state, _ = apply(state, seat, action)
    return found


def sampled_values(state: State, seat: int, worlds: int, rng: random.Random) -> dict[int, float]:
    """Each lawful card's mean value over ``worlds`` sampled worlds, each solved exactly."""
    obs = observe(state, seat)
    contract = obs.contract
    assert contract is not None
    tracker = track(obs)
    played_by = [0, 0, 0, 0]
    for record in obs.tricks:
        for step, card in enumerate(record.cards):
            played_by[(record.leader + step) & 3] |= 1 << card
    for step, card in enumerate(obs.trick):
        played_by[(obs.leader + step) & 3] |= 1 << card
    totals: dict[int, float] = {}
    for _ in range(worlds):
        hands = sample_hands(obs, tracker, rng)
        full = [hands[s] | played_by[s] for s in range(4)]
        facts = deal_facts(full, contract, obs.rules, (obs.dealer + 1) & 3)
        position = Position(
            (hands[0], hands[1], hands[2], hands[3]),
            obs.trick,
            obs.leader,
            obs.played,
            obs.akka,
            contract,
            obs.rules,
            obs.abnat,
            obs.tricks_won,
        )
        found: dict[int, float] = {}
        for value in solve(position).values:
            worth = score_value(contract, obs.rules, seat & 1, value.points, value.tricks, facts)
            card = value.play.card
            found[card] = max(found.get(card, worth), worth)
        for card, worth in found.items():
            totals[card] = totals.get(card, 0.0) + worth / worlds
    return totals


def agreement(found: list[tuple[str, State, int]], count: int, worlds: int) -> None:
    """The card network against the sampled-world estimate on ``count`` card positions."""
    cards = [(state, seat) for phase, state, seat in found if phase == "card"]
    rng = random.Random(7)
    cards = rng.sample(cards, min(count, len(cards)))
    gaps: list[float] = []
    same_best = 0
    regret: list[float] = []
    started = time.process_time()
    for state, seat in cards:
        obs = observe(state, seat)
        options = lawful_cards(obs)
        sampled = sampled_values(state, seat, worlds, rng)
        network = card_values(obs, options)
        shared = sorted(set(sampled) & set(network))
        sampled_mean = statistics.fmean(sampled[c] for c in shared)
        network_mean = statistics.fmean(network[c] for c in shared)
        for card in shared:  # the cards' differences, the part a choice rests on
            gaps.append(abs((network[card] - network_mean) - (sampled[card] - sampled_mean)))
        best_sampled = max(shared, key=lambda c: sampled[c])
        best_network = max(shared, key=lambda c: network[c])
        same_best += sampled[best_network] >= sampled[best_sampled] - 1e-9
        regret.append(sampled[best_sampled] - sampled[best_network])
    spent = time.process_time() - started
    gaps.sort()
    print(
        f"agreement on {len(cards)} card positions, {worlds} solved worlds each "
        f"({spent:.0f} CPU s): |network - sampled| of a card's difference from the mean, "
        f"median {26 * gaps[len(gaps) // 2]:.2f} game points, p90 "
        f"{26 * gaps[int(0.9 * len(gaps))]:.2f}; the network's card is the sampled best (or "
        f"worth as much) in {same_best / len(cards):.1%}; mean loss by the sampled estimate "
        f"{26 * statistics.fmean(regret):.2f} game points a decision"
    )


Player = Callable[[State, int, int], Action]


def _hybrid(cards: Level, calls: Level) -> Player:
    def act(state: State, seat: int, seed: int) -> Action:
        level = cards if state.phase is Phase.PLAYING else calls
        return suggest(state, seat, level, seed=seed)

    return act


def _blend(margin: float) -> Player:
    def act(state: State, seat: int, seed: int) -> Action:
        base = suggest(state, seat, Level.BASIC, seed=seed)
        if state.phase is not Phase.PLAYING or not isinstance(base, Play):
            return base
        obs = observe(state, seat)
        plays = [a for a in obs.legal_actions if isinstance(a, Play)]
        options = 0
        for play in plays:
            options |= 1 << play.card
        options &= lawful_cards(obs)
        if options & (options - 1) == 0 or not options >> base.card & 1:
            return base
        values = card_values(obs, options)
        best = max(values, key=lambda c: (values[c], -c))
        if values[best] > values[base.card] + margin:
            akka = Play(best, True)
            return akka if akka in plays else Play(best)
        return base

    return act


def _match(players: tuple[Player, Player], seed: int) -> tuple[int, list[int]]:
    state = new_match(SEEDS, dealer=0)
    step = 0
    points: list[int] = []
    while state.phase is not Phase.MATCH_OVER and state.hand_number <= 200:
        if state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
            state, _ = apply(state, state.dealer, Deal(deck_for(seed, state.hand_number + 1)))
            continue
        seat = state.turn
        action = players[seat & 1](state, seat, seed * 1_000_003 + step)
        step += 1
        scored = state.last_score
        state, _ = apply(state, seat, action)
        if state.last_score is not None and state.last_score is not scored:
            points.append(state.last_score.points[0] - state.last_score.points[1])
    return state.winner, points


def halves(deals: int, margin: float) -> None:
    """Each half of LEARNED, and the blend, against BASIC on mirrored deals."""
    basic = _hybrid(Level.BASIC, Level.BASIC)
    players = {
        "LEARNED's cards, BASIC's calls": _hybrid(Level.LEARNED, Level.BASIC),
        "BASIC's cards, LEARNED's calls": _hybrid(Level.BASIC, Level.LEARNED),
        f"BASIC's card unless the network's is {margin} better": _blend(margin),
    }
    for name, player in players.items():
        wins = 0
        rounds: list[int] = []
        for seed in range(deals):
            for swapped in (False, True):
                pair = (basic, player) if swapped else (player, basic)
                winner, points = _match(pair, seed)
                mine = 1 if swapped else 0
                wins += winner == mine
                rounds += [p if mine == 0 else -p for p in points]
        error = statistics.stdev(rounds) / len(rounds) ** 0.5
        print(
            f"{name} against BASIC: won {wins}/{2 * deals} = {wins / (2 * deals):.1%}; game "
            f"points a round {statistics.fmean(rounds):+.2f} +- {error:.2f} ({len(rounds)} rounds)"
        )


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=4)
    parser.add_argument("--levels", default="learned,strong,expert")
    parser.add_argument("--limit", type=int, default=0, help="at most this many positions")
    parser.add_argument("--json", default=None)
    parser.add_argument("--agreement", type=int, default=0)
    parser.add_argument("--worlds", type=int, default=48)
    parser.add_argument("--halves", type=int, default=0)
    parser.add_argument("--margin", type=float, default=0.1)
    args = parser.parse_args(argv)
    levels = [Level(name) for name in args.levels.split(",")]
    model = shipped()
    print(
        f"model {model.version}: {WEIGHTS_FILE.stat().st_size:,} bytes, "
        f"{model.play.parameters + model.bid.parameters:,} parameters"
    )
    found = positions(args.matches)
    if args.limit:
        found = random.Random(1).sample(found, min(args.limit, len(found)))
    print(f"{len(found)} positions with a choice from {args.matches} seeded matches")
    suggest(found[0][1], found[0][2], Level.LEARNED)  # the weights are read once
    cpu: dict[tuple[str, str], list[float]] = {}
    loops: list[float] = []
    for index, (phase, state, seat) in enumerate(found):
        if index % 25 == 0:
            loops.append(calibration_loops(0.2, time.process_time))
        for level in levels:
            started = time.thread_time()
            suggest(state, seat, level)
            spent = time.thread_time() - started
            cpu.setdefault((level.value, phase), []).append(spent)
            cpu.setdefault((level.value, "all"), []).append(spent)
    rate = statistics.median(loops)
    print(f"calibration loop: median {rate:,.0f} loops per CPU second ({len(loops)} slices)")
    report: dict[str, object] = {"version": model.version, "loops_per_second": rate}
    for (level, phase), values in sorted(cpu.items()):
        p50, p90, p99 = (percentile(values, q) for q in (0.5, 0.9, 0.99))
        mean = statistics.fmean(values)
        print(
            f"  {level:8} {phase:5} n={len(values):5}  p50 {p50 * 1e3:8.3f} ms ({p50 * rate:8.1f} "
            f"loops)  p90 {p90 * 1e3:8.3f} ms  p99 {p99 * 1e3:8.3f} ms ({p99 * rate:8.1f} loops)"
            f"  mean {mean * 1e3:8.3f} ms"
        )
        report[f"{level}/{phase}"] = {"n": len(values), "p50": p50, "p90": p90, "p99": p99}
    if args.agreement:
        agreement(found, args.agreement, args.worlds)
    if args.halves:
        halves(args.halves, args.margin)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:  # noqa: PTH123
            json.dump(report, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
