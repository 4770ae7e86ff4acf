"""Whole-round vectors: a deck, the actions of one round, the events each causes and the score.

``rounds.json`` is data another implementation replays (the TypeScript client's tests send
the same actions to a server and compare the events and the score). Each vector names its
preset and first dealer; the deck is dealt as a preset deck order; every action is the
``baloot.v1.Action`` of one seat in protobuf JSON. The events of an action are listed by kind
and seat (the ``ROUND_REVEALED`` event the service adds for the host is not a rule's event
and is not listed); ``final_points`` is each team's round score.

    python -m tests.golden.rounds     # rewrite rounds.json from the rules core
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from google.protobuf.json_format import MessageToDict, ParseDict

from baloot.v1 import types_pb2
from baloot_engine.api import inbound, outbound
from baloot_engine.rules import game
from baloot_engine.rules.actions import Action, Bid, BidKind, ClaimSawa, Deal, Event, EventKind
from baloot_engine.rules.ruleset import FEDERATION, KAMMELNA, SEEDS, RuleSet
from baloot_engine.rules.state import Phase, State

PATH = Path(__file__).parent / "rounds.json"
PRESETS: dict[str, RuleSet] = {"SEEDS": SEEDS, "KAMMELNA": KAMMELNA, "FEDERATION": FEDERATION}


def events_out(events: list[Event], state: State) -> list[dict[str, Any]]:
    """The listed form of an action's events: kind and seat (see the module docstring)."""
    listed = []
    for event in events:
        message = outbound.event_out(event, state)
        entry: dict[str, Any] = {"kind": types_pb2.EventKind.Name(message.kind)}
        if message.HasField("seat"):
            entry["seat"] = message.seat
        listed.append(entry)
    return listed


def final_points(events: list[Event], state: State) -> list[int] | None:
    """Each team's round score, from the round's ROUND_SCORED event (None without one)."""
    for event in events:
        if event.kind is EventKind.ROUND_SCORED:
            message = outbound.event_out(event, state)
            return [team.final_points for team in message.round_score.teams]
    return None


def _vector(name: str, preset: str, dealer: int, seed: int) -> dict[str, Any] | None:
    """A round played with seeded random legal actions (a Sun or Hokm bid preferred to a
    pass, so the round is played), or None when it ends otherwise than scored."""
    rng = random.Random(seed)
    deck = list(range(32))
    rng.shuffle(deck)
    state = game.new_match(PRESETS[preset], dealer, (0, 0))
    state, dealt = game.apply(state, dealer, Deal(tuple(deck)))
    actions: list[dict[str, Any]] = []
    score = None
    while state.phase is not Phase.ROUND_OVER and state.phase is not Phase.MATCH_OVER:
        if state.phase is Phase.AWAITING_DEAL:
            return None  # redealt
        seat = state.turn
        legal = [a for a in game.legal_actions(state, seat) if not isinstance(a, ClaimSawa)]
        bids = [a for a in legal if isinstance(a, Bid) and a.kind is not BidKind.PASS]
        action: Action = rng.choice(bids if bids and rng.random() < 0.4 else legal)
        state, events = game.apply(state, seat, action)
        actions.append(
            {
                "seat": seat,
                "action": MessageToDict(outbound.action_out(action)),
                "events": events_out(events, state),
            }
        )
        score = final_points(events, state) or score
    if score is None:
        return None
    return {
        "name": name,
        "preset": preset,
        "dealer": dealer,
        "deck": deck,
        "deal_events": events_out(dealt, state),
        "actions": actions,
        "final_points": score,
    }


def build() -> list[dict[str, Any]]:
    """The vectors of rounds.json: two rounds of each preset."""
    vectors = []
    for preset in PRESETS:
        seed = 0
        while sum(v["preset"] == preset for v in vectors) < 2:
            seed += 1
            name = f"{preset.lower()}-{seed}"
            vector = _vector(name, preset, seed % 4, seed * 7919 + len(preset))
            if vector is not None:
                vectors.append(vector)
    return vectors


def replay(vector: dict[str, Any]) -> tuple[list[list[dict[str, Any]]], list[int] | None]:
    """Replay a vector through the rules core: each action's listed events, and the score."""
    state = game.new_match(PRESETS[vector["preset"]], vector["dealer"], (0, 0))
    state, _ = game.apply(state, vector["dealer"], Deal(tuple(vector["deck"])))
    listed = []
    score = None
    for step in vector["actions"]:
        action = inbound.action_in(ParseDict(step["action"], types_pb2.Action()))
        state, events = game.apply(state, step["seat"], action)
        listed.append(events_out(events, state))
        score = final_points(events, state) or score
    return listed, score


def main() -> None:
    PATH.write_text(json.dumps({"rounds": build()}, indent=1) + "\n")


if __name__ == "__main__":
    main()
