"""Hypothesis strategies and random-play drivers shared by the rules tests."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from baloot_engine.rules.actions import Action, ClaimSawa, Deal
from baloot_engine.rules.game import apply, legal_actions, new_match
from baloot_engine.rules.ruleset import KAMMELNA, SEEDS, RuleSet
from baloot_engine.rules.state import Phase, State

decks = st.permutations(list(range(32))).map(tuple)
presets = st.sampled_from([SEEDS, KAMMELNA])
seats = st.integers(min_value=0, max_value=3)

PLAYING_PHASES = (Phase.BIDDING, Phase.DOUBLING, Phase.PLAYING)


def random_deck(rng: random.Random) -> tuple[int, ...]:
    """A deck shuffled by a seeded RNG (tests only; the service uses the CSPRNG)."""
    deck = list(range(32))
    rng.shuffle(deck)
    return tuple(deck)


def choose(rng: random.Random, state: State) -> tuple[int, Action]:
    """Pick a random legal action of the seat on turn (a Sawa claim is not random play)."""
    seat = state.turn
    options = [a for a in legal_actions(state, seat) if not isinstance(a, ClaimSawa)]
    assert options, f"no legal action for seat {seat} in {state.phase}"
    return seat, rng.choice(options)


def play_match(rng: random.Random, rules: RuleSet, max_hands: int = 200) -> list[State]:
    """Play a whole match with random legal actions; return every state passed through."""
    state = new_match(rules, dealer=rng.randrange(4))
    states = [state]
    hands = 0
    while state.phase is not Phase.MATCH_OVER:
        if state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
            hands += 1
            assert hands <= max_hands, "the match does not end"
            state, _ = apply(state, state.dealer, Deal(random_deck(rng)))
        else:
            seat, action = choose(rng, state)
            state, _ = apply(state, seat, action)
        states.append(state)
    return states
