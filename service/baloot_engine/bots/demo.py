"""Bots playing each other: matches between two levels, printed as the score sheet (النشرة).

    python -m baloot_engine.bots.demo [--levels strong:basic] [--matches 2] [--seed 1]
                                      [--rules seeds|kammelna]

Team 0 (seats 0 and 2) plays the first level, team 1 (seats 1 and 3) the second. Every hand
is listed with its contract, buyer, doubling, result and points, then the running totals.
Decks and bot decisions are seeded, so a command line always prints the same sheet.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence

from baloot_engine.bots import Level, suggest
from baloot_engine.rules.actions import Deal, EventKind
from baloot_engine.rules.cards import SUIT_SYMBOLS
from baloot_engine.rules.game import apply, new_match
from baloot_engine.rules.ruleset import KAMMELNA, SEEDS
from baloot_engine.rules.scoring import RoundScore
from baloot_engine.rules.state import Phase

RULES = {"seeds": SEEDS, "kammelna": KAMMELNA}


def _contract_text(score: RoundScore, trump: int, buyer: int) -> str:
    name = "Sun" if trump < 0 else f"Hokm {SUIT_SYMBOLS[trump]}"
    times = f" x{score.multiplier}" if score.multiplier > 1 else ""
    gahwa = " Gahwa" if score.gahwa else ""
    return f"{name}{times}{gahwa} by seat {buyer}"


def play_match(levels: tuple[Level, Level], seed: int, rules_name: str) -> int:
    """Play and print one match; return the winning team."""
    rules = RULES[rules_name]
    state = new_match(rules, dealer=seed % 4)
    print(f"Match {seed}: team 0 = {levels[0].name} (seats 0, 2), team 1 = {levels[1].name}")
    print(f"  {'hand':>4}  {'contract':<24} {'result':<16} {'team 0':>6} {'team 1':>6}   totals")
    decision = 0
    redeals = 0
    while state.phase is not Phase.MATCH_OVER:
        if state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
            deck = list(range(32))
            random.Random(f"demo-{seed}-{state.hand_number + 1}").shuffle(deck)
            state, _ = apply(state, state.dealer, Deal(tuple(deck)))
            continue
        seat = state.turn
        action = suggest(state, seat, levels[seat & 1], seed=seed * 100_003 + decision)
        decision += 1
        trump, buyer = state.trump, -1 if state.contract is None else state.contract.buyer
        state, events = apply(state, seat, action)
        for event in events:
            if event.kind is EventKind.REDEAL:
                redeals += 1
            if event.kind is EventKind.ROUND_SCORED and event.score is not None:
                score = event.score
                result = score.outcome.value.replace("_", " ")
                totals = f"{state.match_scores[0]:>4} - {state.match_scores[1]}"
                print(
                    f"  {state.hand_number:>4}  {_contract_text(score, trump, buyer):<24} "
                    f"{result:<16} {score.points[0]:>6} {score.points[1]:>6}   {totals}"
                )
    print(
        f"  team {state.winner} ({levels[state.winner].name}) wins "
        f"{state.match_scores[0]} - {state.match_scores[1]}"
        + (f"; {redeals} hands redealt after all passed" if redeals else "")
    )
    print()
    return state.winner


def main(argv: Sequence[str] | None = None) -> int:
    """Play the matches the command line asks for."""
    parser = argparse.ArgumentParser(description="Bots play Baloot matches against each other.")
    parser.add_argument("--levels", default="strong:basic", help="team 0 level : team 1 level")
    parser.add_argument("--matches", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rules", choices=sorted(RULES), default="seeds")
    args = parser.parse_args(argv)
    first, second = (Level(name.strip().lower()) for name in args.levels.split(":"))
    wins = [0, 0]
    for n in range(args.matches):
        wins[play_match((first, second), args.seed + n, args.rules)] += 1
    print(f"{first.name} {wins[0]} - {wins[1]} {second.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
