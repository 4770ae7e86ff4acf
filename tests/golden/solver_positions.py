"""Solver positions: the builders of the solver tests' positions (ends of rounds, real rounds
at their first lead), and the golden positions of ``solver_positions.json`` built from them.

Each golden position holds everything a solver needs (the rule set as a preset and the flags
that differ from it, the contract, the four hands, the cards of the completed tricks, the
trick in progress from its leader, an Akka called on its lead) and the exact value of every
legal action of the seat to move, in the order :func:`baloot_engine.solver.solve` lists them:
each team's card points and tricks from the position to the end of the round (the 10 of the
last trick included). ``tests/golden/README.md`` gives the format.

    python -m tests.golden.solver_positions     # rewrite solver_positions.json
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from baloot_engine.bots import Level, suggest
from baloot_engine.rules.actions import Deal, Play
from baloot_engine.rules.cards import format_card, parse_cards
from baloot_engine.rules.contract import Contract, ContractType, PlayMode
from baloot_engine.rules.game import apply, new_match
from baloot_engine.rules.play import allowed_cards
from baloot_engine.rules.ruleset import PRESETS, PartnerWinningRule, Preset, RuleSet
from baloot_engine.rules.state import Phase, State
from baloot_engine.solver import Position, position_of, solve
from baloot_engine.solver.reference import akka_call
from tests.bots.games import CUSTOM, end_of_hand

RULE_SETS: dict[str, RuleSet] = {
    **{preset.value: PRESETS[preset] for preset in Preset},
    # The flags the three presets leave at one value: the Akka call, the positional partner
    # rule, no over-trumping of a partner, no duty to under-trump.
    "custom": CUSTOM.replace(overtrump_partner=False, undertrump_required=False),
    # No void player is ever free of the duty to trump (R20), so a partner must trump his own
    # partner's winner: the quick tricks must not count on keeping the lead there.
    "never": PRESETS[Preset.SEEDS].replace(partner_winning_rule=PartnerWinningRule.NEVER),
}


def end_position(seed: int, per_hand: int, in_trick: int, rules: RuleSet) -> Position:
    """A random end of a round: ``per_hand`` cards a seat, ``in_trick`` of them already played
    to the trick in progress (legally, an Akka called where the leader may call one)."""
    rng = random.Random(seed)
    hands, played = end_of_hand(rng, per_hand)
    trump = rng.choice((-1, 0, 1, 2, 3))
    contract = Contract(
        ContractType.SUN if trump < 0 else ContractType.HOKM,
        trump,
        rng.randrange(4),
        mode=PlayMode.CLOSED if trump >= 0 and rng.random() < 0.3 else PlayMode.OPEN,
    )
    leader = rng.randrange(4)
    trick: list[int] = []
    akka = False
    for step in range(min(in_trick, 3)):
        seat = (leader + step) & 3
        options = allowed_cards(
            hands[seat], tuple(trick), leader, seat, played, akka, contract, rules
        )
        card = rng.choice([c for c in range(32) if options >> c & 1])
        if step == 0:
            akka = akka_call(contract, rules, card, played) and rng.random() < 0.7
        hands[seat] ^= 1 << card
        trick.append(card)
    return Position(
        (hands[0], hands[1], hands[2], hands[3]),
        tuple(trick),
        leader,
        played,
        akka,
        contract,
        rules,
    )


def deck(seed: int, number: int) -> tuple[int, ...]:
    cards = list(range(32))
    random.Random(f"solver-{seed}-{number}").shuffle(cards)
    return tuple(cards)


def first_lead(seed: int, rules: RuleSet) -> State:
    """A real round at its first lead: dealt from a seeded deck, bid and doubled by BASIC bots
    (dealt again after a redeal)."""
    state = new_match(rules, dealer=seed % 4)
    number = 0
    while state.phase is not Phase.PLAYING:
        if state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
            number += 1
            state, _ = apply(state, state.dealer, Deal(deck(seed, number)))
            continue
        seat = state.turn
        state, _ = apply(state, seat, suggest(state, seat, Level.BASIC, seed))
    return state


def play_on(state: State, tricks: int, seed: int) -> State:
    """``state`` after BASIC bots have played ``tricks`` more tricks (declarations included)."""
    goal = len(state.tricks) + tricks
    while state.phase is Phase.PLAYING and (len(state.tricks) < goal or state.trick):
        seat = state.turn
        action = suggest(state, seat, Level.BASIC, seed)
        state, _ = apply(state, seat, action)
        if isinstance(action, Play) and not state.trick and len(state.tricks) >= goal:
            break
    return state


PATH = Path(__file__).parent / "solver_positions.json"
SMALL = 4
"""Positions with at most this many cards a hand are also checked against the reference
engine and plain minimax (larger ones are too deep for them)."""


def _cards(mask: int) -> str:
    return " ".join(format_card(card) for card in range(32) if mask >> card & 1)


def _mask(text: str) -> int:
    mask = 0
    for card in parse_cards(text):
        mask |= 1 << card
    return mask


def _rules_out(name: str) -> dict[str, Any]:
    """A rule set of :data:`RULE_SETS` as its preset (the one of its name, else SEEDS) and the
    flags that differ from it."""
    presets = {preset.value: preset for preset in Preset}
    preset = presets.get(name, Preset.SEEDS)
    base = PRESETS[preset].to_dict()
    flags = {k: v for k, v in RULE_SETS[name].to_dict().items() if base[k] != v}
    return {"preset": preset.name, "flags": flags}


def _rules_in(entry: dict[str, Any]) -> RuleSet:
    return RuleSet.from_dict(entry["flags"], base=PRESETS[Preset[entry["preset"]]])


def vector(name: str, rules_name: str, position: Position) -> dict[str, Any]:
    """A golden position: the position, and its solution's values (see the docstring)."""
    contract = position.contract
    solution = solve(position)
    return {
        "name": name,
        "rules": _rules_out(rules_name),
        "contract": {
            "type": contract.type.value,
            "trump": contract.trump,
            "buyer": contract.buyer,
            "mode": contract.mode.value,
        },
        "hands": [_cards(hand) for hand in position.hands],
        "played": _cards(position.played),
        "leader": position.leader,
        "trick": " ".join(format_card(card) for card in position.trick),
        "akka": position.akka,
        "values": [
            {
                "card": format_card(value.play.card),
                "akka": value.play.akka,
                "points": list(value.points),
                "tricks": list(value.tricks),
            }
            for value in solution.values
        ],
        "best": solution.best,
    }


def position_in(entry: dict[str, Any]) -> Position:
    """The :class:`Position` of a golden position (no points or tricks won before it)."""
    contract = entry["contract"]
    hands = [_mask(text) for text in entry["hands"]]
    return Position(
        (hands[0], hands[1], hands[2], hands[3]),
        tuple(parse_cards(entry["trick"])),
        entry["leader"],
        _mask(entry["played"]),
        entry["akka"],
        Contract(
            ContractType(contract["type"]),
            contract["trump"],
            contract["buyer"],
            mode=PlayMode(contract["mode"]),
        ),
        _rules_in(entry["rules"]),
    )


def values_in(entry: dict[str, Any]) -> list[tuple[Play, tuple[int, int], tuple[int, int]]]:
    """The golden values of a position's legal actions: the action, points and tricks."""
    return [
        (
            Play(parse_cards(value["card"])[0], value["akka"]),
            (value["points"][0], value["points"][1]),
            (value["tricks"][0], value["tricks"][1]),
        )
        for value in entry["values"]
    ]


def load() -> list[dict[str, Any]]:
    """The golden positions of ``solver_positions.json``."""
    positions: list[dict[str, Any]] = json.loads(PATH.read_text())["positions"]
    return positions


def _features(position: Position) -> set[str]:
    """What an end of a round exercises beyond its cards, for :func:`build` to cover."""
    found = {"sun" if position.contract.trump < 0 else "hokm"}
    if position.contract.mode is PlayMode.CLOSED:
        found.add("closed")
    if position.akka:
        found.add("akka led")
    elif not position.trick and any(v.play.akka for v in solve(position).values):
        found.add("akka call")
    return found


def build() -> list[dict[str, Any]]:
    """The golden positions: for each rule set, ends of rounds of 2 to 5 cards a hand with 0
    to 3 cards in the trick (Sun and Hokm, closed Hokm, an Akka call to make and one made,
    where the rules have them), and a real round at its first lead (8 cards a hand)."""
    vectors = []
    for rules_name, rules in sorted(RULE_SETS.items()):
        covered: set[str] = set()
        for seed in range(400):
            position = end_position(90_000 + seed, 2 + seed % 4, seed % 4, rules)
            new = _features(position) - covered
            if seed < 6 or new:
                covered |= new
                vectors.append(vector(f"{rules_name}-end-{seed}", rules_name, position))
        for seed in range(20):
            state = first_lead(seed, rules)
            if state.phase is Phase.PLAYING:
                vectors.append(vector(f"{rules_name}-lead-{seed}", rules_name, position_of(state)))
                break
    return vectors


def main() -> None:
    PATH.write_text(json.dumps({"positions": build()}, indent=1) + "\n")


if __name__ == "__main__":
    main()
