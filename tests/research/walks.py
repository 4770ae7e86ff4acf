"""Helpers of the research tests: random states of the rules core under several rule sets."""

from __future__ import annotations

import random
from collections.abc import Iterator

from baloot_engine.research.core import shuffled_deck
from baloot_engine.rules import errors
from baloot_engine.rules.actions import ClaimSawa, Deal
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.game import apply, legal_actions, new_match
from baloot_engine.rules.ruleset import FEDERATION, KAMMELNA, SEEDS, RuleSet
from baloot_engine.rules.state import Phase, State
from tests.bots.games import CUSTOM

RULE_SETS: dict[str, RuleSet] = {
    "seeds": SEEDS,
    "kammelna": KAMMELNA,
    "federation": FEDERATION,
    "custom": CUSTOM,
}
LIVE = (Phase.BIDDING, Phase.DOUBLING, Phase.PLAYING)


def random_states(rules: RuleSet, seed: int, count: int) -> Iterator[State]:
    """``count`` states (each with a seat on turn) of random deals played with random actions."""
    rng = random.Random(seed)
    made = 0
    while True:
        state = new_match(rules, dealer=rng.randrange(4))
        state, _ = apply(state, state.dealer, Deal(shuffled_deck(rng)))
        while state.phase in LIVE:
            yield state
            made += 1
            if made == count:
                return
            actions = legal_actions(state, state.turn)
            action = rng.choice(actions)
            try:
                state, _ = apply(state, state.turn, action)
            except RuleError as error:  # a refused Sawa claim: play a card instead
                assert error.reason == errors.SAWA_INVALID
                plays = [a for a in actions if type(a) is not ClaimSawa]
                state, _ = apply(state, state.turn, rng.choice(plays))


def match_states(rules: RuleSet, seed: int, limit: int = 2000) -> Iterator[State]:
    """Every state of a random match (its deals, the states between rounds and its end), each
    action drawn from the legal ones of the seat on turn; at most ``limit`` states."""
    rng = random.Random(seed)
    state = new_match(rules, dealer=rng.randrange(4))
    for _ in range(limit):
        yield state
        if state.phase is Phase.MATCH_OVER:
            return
        if state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
            state, _ = apply(state, state.dealer, Deal(shuffled_deck(rng)))
            continue
        actions = legal_actions(state, state.turn)
        try:
            state, _ = apply(state, state.turn, rng.choice(actions))
        except RuleError as error:  # a refused Sawa claim: play a card instead
            assert error.reason == errors.SAWA_INVALID
            plays = [a for a in actions if type(a) is not ClaimSawa]
            state, _ = apply(state, state.turn, rng.choice(plays))
