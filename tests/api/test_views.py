"""Views and events assembled from cached encoded pieces equal the same messages built field by
field: every view (each seat's and the public one) is the plain encoding of the observation
that defines what it may show, for every state of random matches; every event is its plain
construction; the host's four views built around one shared public part equal the views built
one by one."""

from __future__ import annotations

import random

import pytest

from baloot.v1 import engine_service_pb2 as pb
from baloot_engine.api import outbound
from baloot_engine.api.views import add_views, build_view, encode_observation
from baloot_engine.bots import Level, suggest
from baloot_engine.rules.actions import Deal, Event
from baloot_engine.rules.game import apply, new_match
from baloot_engine.rules.observation import Observation, observe, observe_public
from baloot_engine.rules.ruleset import FEDERATION, KAMMELNA, SEEDS, RuleSet
from baloot_engine.rules.state import Phase, State
from tests.rules.strategies import choose, random_deck

MATCH_ID = "0123456789abcdef" * 2
LIVE = (Phase.BIDDING, Phase.DOUBLING, Phase.PLAYING)
EDGE_CASES = {
    "projects shown after the comparison",
    "projects declared, not shown",
    "Baloot announced",
    "Baloot scored",
    "a score of the round before",
    "the round just scored",
    "projects awarded",
    "own Baloot not announced",
}
VARIANTS = [
    SEEDS,
    KAMMELNA,
    SEEDS.replace(sawa=True, auto_declare_projects=True, match_target=101),
    FEDERATION,
]


def played_states(
    rules: RuleSet, seed: int, *, bots: bool = False
) -> list[tuple[State, tuple[Event, ...]]]:
    """Every state of a match with the events that led to it.

    Random legal actions, or BASIC bots (``bots``): random play rarely buys a Hokm with a
    Baloot in it, bots do, and they always declare their projects.
    """
    rng = random.Random(seed)
    state = new_match(rules, dealer=rng.randrange(4))
    steps: list[tuple[State, tuple[Event, ...]]] = [(state, ())]
    while state.phase is not Phase.MATCH_OVER:
        if state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
            state, events = apply(state, state.dealer, Deal(random_deck(rng)))
        elif bots:
            seat = state.turn
            action = suggest(state, seat, Level.BASIC, seed=len(steps))
            state, events = apply(state, seat, action)
        else:
            seat, action = choose(rng, state)
            state, events = apply(state, seat, action)
        steps.append((state, events))
    return steps


def edge_cases(observation: Observation) -> set[str]:
    """The parts of a view whose rules are easiest to get wrong that ``observation`` holds."""
    cases = set()
    if observation.shown:
        cases.add("projects shown after the comparison")
    elif any(kinds is not None for kinds in observation.declared):
        cases.add("projects declared, not shown")
    if observation.baloot_announced and observation.phase is Phase.PLAYING:
        cases.add("Baloot announced")
    if observation.scored_baloot_seat >= 0:
        cases.add("Baloot scored")
    score = observation.last_score
    if score is not None:
        if observation.phase in LIVE:
            cases.add("a score of the round before")
        else:
            cases.add("the round just scored")
            if score.awarded:
                cases.add("projects awarded")
    seat = observation.seat
    if seat >= 0 and observation.baloot_seat == seat and not observation.baloot_announced:
        cases.add("own Baloot not announced")
    return cases


@pytest.mark.parametrize("rules", VARIANTS, ids=["seeds", "kammelna", "custom", "federation"])
def test_views_are_the_encoded_observation_and_events_the_plain_construction(
    rules: RuleSet,
) -> None:
    phases = set()
    seen = set()
    matches = [played_states(rules, seed) for seed in range(4)]
    matches += [played_states(rules, seed, bots=True) for seed in range(2)]
    for steps in matches:
        for version, (state, events) in enumerate(steps):
            phases.add(state.phase)
            for seat in (None, 0, 1, 2, 3):
                observation = observe_public(state) if seat is None else observe(state, seat)
                seen |= edge_cases(observation)
                for with_rules in (False, True):
                    expected = encode_observation(
                        observation, MATCH_ID, version, with_rules=with_rules
                    )
                    built = build_view(state, seat, MATCH_ID, version, with_rules=with_rules)
                    assert built == expected, (seat, state)
            response = pb.PlayCardResponse()
            outbound.add_events(response.events, events, state)
            plain = [outbound._build_event(e, state) for e in events]
            assert list(response.events) == plain
            assert [outbound.event_out(e, state) for e in events] == plain
    assert phases == set(Phase)
    assert seen == EDGE_CASES


def test_the_host_views_from_the_shared_public_part_equal_single_views() -> None:
    for rules in VARIANTS:
        for version, (state, _) in enumerate(played_states(rules, 11)):
            response = pb.PlayCardResponse()
            add_views(response.views, state, (0, 1, 2, 3), MATCH_ID, version)
            singles = [build_view(state, seat, MATCH_ID, version) for seat in range(4)]
            assert list(response.views) == singles
            assert [v.SerializeToString(deterministic=True) for v in response.views] == [
                v.SerializeToString(deterministic=True) for v in singles
            ]
