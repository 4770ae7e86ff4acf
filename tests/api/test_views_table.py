"""Table play keeps every violation private until a verdict: no view, no legal-action list
and no event of any seat (or of the public) depends on the violations the token records."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from baloot.v1 import engine_service_pb2 as pb
from baloot_engine.api import outbound
from baloot_engine.api.state_codec import decode, encode
from baloot_engine.api.views import build_view
from baloot_engine.rules.actions import Deal, Event
from baloot_engine.rules.game import apply, legal_actions, new_match
from baloot_engine.rules.observation import observe, observe_public
from baloot_engine.rules.state import Phase, State
from tests.rules.strategies import (
    TABLE_PRESETS,
    play_table_match,
    random_deck,
    table_rules,
    table_step,
)

MATCH_ID = "0123456789abcdef" * 2
SEED = bytes(range(16))


def table_round(seed: int) -> list[tuple[State, tuple[Event, ...]]]:
    """One table-play round where seats often break a rule and nobody calls Qayd."""
    rng = random.Random(seed)
    rules = table_rules(TABLE_PRESETS[seed % len(TABLE_PRESETS)]).replace(
        akka_requires_declaration=seed % 3 == 0
    )
    state = new_match(rules, dealer=seed % 4)
    state, events = apply(state, state.dealer, Deal(random_deck(rng)))
    steps = [(state, events)]
    while state.phase in (Phase.BIDDING, Phase.DOUBLING, Phase.PLAYING):
        step = table_step(rng, state, cheat=0.4, call=0.0)
        assert step is not None
        state, events = apply(state, *step)
        steps.append((state, events))
    return steps


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_no_view_shows_an_unjudged_violation(seed: int) -> None:
    for version, (state, events) in enumerate(table_round(seed)):
        clean = state._replace(violations=())
        for seat in (None, 0, 1, 2, 3):
            assert build_view(state, seat, MATCH_ID, version) == build_view(
                clean, seat, MATCH_ID, version
            )
        assert observe_public(state) == observe_public(clean)
        for seat in range(4):
            assert observe(state, seat) == observe(clean, seat)
            assert legal_actions(state, seat) == legal_actions(clean, seat)
        response = pb.PlayCardResponse()
        outbound.add_events(response.events, events, state)
        assert all(e.qayd.ByteSize() == 0 for e in response.events)


def test_rounds_with_violations_are_generated() -> None:
    found = 0
    for seed in range(20):
        steps = table_round(seed)
        found += max(len(state.violations) for state, _ in steps) > 0
        assert steps[-1][0].phase in (Phase.ROUND_REVIEW, Phase.ROUND_OVER, Phase.AWAITING_DEAL)
    assert found >= 15


def test_table_states_round_trip_through_the_token() -> None:
    sizes = []
    for seed in range(12):
        previous = None
        for version, (state, _) in enumerate(table_round(seed), start=1):
            data = encode(state, SEED, version, previous=previous)
            decoded = decode(data)
            assert decoded.state == state
            assert decode(encode(state, SEED, version)).state == state
            previous = decoded
            if state.violations:
                sizes.append(len(data))
    # A violation costs eight bytes; the sealed token stays well under its 256-byte budget.
    assert sizes
    assert max(sizes) <= 256 - 30


def test_table_matches_round_trip_with_their_verdicts() -> None:
    verdicts = 0
    for seed in range(3):
        rules = table_rules(TABLE_PRESETS[seed % len(TABLE_PRESETS)])
        previous = None
        for version, (state, _) in enumerate(play_table_match(random.Random(seed), rules)):
            data = encode(state, SEED, version, previous=previous)
            decoded = decode(data)
            assert decoded.state == state  # the score of a Qayd hand is recomputed equal
            previous = decoded
            verdicts += state.last_qayd is not None
    assert verdicts
