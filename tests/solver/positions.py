"""Random positions for the solver tests: ends of rounds, and real rounds at their first lead."""

from __future__ import annotations

import random

from baloot_engine.bots import Level, suggest
from baloot_engine.rules.actions import Deal, Play
from baloot_engine.rules.contract import Contract, ContractType, PlayMode
from baloot_engine.rules.game import apply, new_match
from baloot_engine.rules.play import allowed_cards
from baloot_engine.rules.ruleset import PRESETS, PartnerWinningRule, Preset, RuleSet
from baloot_engine.rules.state import Phase, State
from baloot_engine.solver import Position
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
