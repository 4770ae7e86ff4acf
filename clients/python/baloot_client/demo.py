"""Play complete matches against a running server and print the score sheet.

    baloot-demo [--target localhost:50051] [--matches 1]
                [--preset seeds|kammelna|federation] [--seed N]

Every seat takes a random action from the legal actions its view lists (declarations and
Sawa claims aside), so the rules, the tokens and the views are exercised end to end.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence

from baloot.v1 import rules_pb2, types_pb2
from baloot_client.client import EngineClient, EngineError, Match

SUITS = "SHDC"
RANKS = ("7", "8", "9", "10", "J", "Q", "K", "A")
_LIVE = (types_pb2.PHASE_BIDDING, types_pb2.PHASE_DOUBLING, types_pb2.PHASE_PLAYING)
_BETWEEN = (types_pb2.PHASE_AWAITING_DEAL, types_pb2.PHASE_ROUND_OVER)


def card_code(card: int) -> str:
    """The short code of a card index, e.g. 11 -> '10H'."""
    return RANKS[card & 7] + SUITS[card >> 3]


def choose(view: types_pb2.View, rng: random.Random) -> types_pb2.Action:
    """A random legal action, preferring to play on over declaring or claiming."""
    actions = [a for a in view.legal_actions if not (a.HasField("play") and a.play.sawa)]
    plain = [a for a in actions if not a.HasField("declaration")]
    return rng.choice(plain or actions)


def play_match(match: Match, rng: random.Random, out: list[str]) -> types_pb2.View:
    """Play ``match`` to its end with random legal actions; append score-sheet lines."""
    view = match.views[0]
    while view.phase != types_pb2.PHASE_MATCH_OVER:
        # Every step is one of the legal actions of the seat on turn, the dealer's deal too.
        seat = view.dealer if view.phase in _BETWEEN else view.turn
        events = match.act(seat, choose(match.views[seat], rng))
        for event in events:
            if event.kind == types_pb2.EVENT_KIND_ROUND_SCORED:
                out.append(score_line(event.round_score, match.views[0]))
            elif event.kind == types_pb2.EVENT_KIND_REDEAL:
                out.append(f"  round {match.views[0].round_number:>2}: all passed, redeal")
        view = match.views[0]
    return view


def score_line(score: types_pb2.RoundScore, view: types_pb2.View) -> str:
    """One line of the score sheet."""
    contract = score.contract
    name = (
        "Sun"
        if contract.type == types_pb2.CONTRACT_TYPE_SUN
        else ("Hokm " + SUITS[contract.trump - 1])
    )
    if contract.ashkal:
        name = "Ashkal"
    if contract.gahwa:
        name += " Gahwa"
    elif contract.multiplier > 1:
        name += f" x{contract.multiplier}"
    verdict = "made" if score.made else "failed"
    if score.HasField("kaboot_team"):
        verdict = f"kaboot by team {score.kaboot_team}"
    points = [t.final_points for t in score.teams]
    totals = list(view.match_score.points)
    return (
        f"  round {score.round_number:>2}: {name:<12} bought by seat {contract.buyer}"
        f" (team {contract.buyer_team}), {verdict:<16} +{points[0]:>3} / +{points[1]:>3}"
        f"   total {totals[0]:>3} - {totals[1]:>3}"
    )


PRESETS = {
    "seeds": rules_pb2.PRESET_SEEDS,
    "kammelna": rules_pb2.PRESET_KAMMELNA,
    "federation": rules_pb2.PRESET_FEDERATION,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the demo; returns the exit code."""
    parser = argparse.ArgumentParser(description="Play Baloot matches against a server.")
    parser.add_argument("--target", default="localhost:50051")
    parser.add_argument("--matches", type=int, default=1)
    parser.add_argument("--preset", choices=tuple(PRESETS), default="seeds")
    parser.add_argument("--seed", type=int, default=None, help="seed of the random players")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    preset = PRESETS[args.preset]
    client = EngineClient.connect(args.target)
    try:
        for number in range(1, args.matches + 1):
            match = client.create_match(rules_pb2.RuleSet(preset=preset))
            print(f"match {number} ({match.match_id}), {args.preset} rules")
            lines: list[str] = []
            final = play_match(match, rng, lines)
            print("\n".join(lines))
            totals = list(final.match_score.points)
            print(
                f"  winner: team {final.match_score.winner_team}"
                f" ({totals[0]} - {totals[1]}), {len(lines)} rounds,"
                f" {match.version} actions, last token {len(match.state)} bytes\n"
            )
    except EngineError as error:
        print(f"refused: {error}", file=sys.stderr)
        return 1
    except Exception as error:  # noqa: BLE001 - a demo reports, it does not trace
        print(f"cannot reach the server at {args.target}: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
