"""The private state message: every state of random matches survives encode/decode, and
damaged content is refused with a StateInvalidError, never a crash."""

from __future__ import annotations

import itertools
import random
import secrets

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baloot.internal.v1.match_state_pb2 import MatchState
from baloot_engine.api.state_codec import (
    StateInvalidError,
    decode,
    decode_contract,
    decode_rules,
    encode,
    encode_contract,
    encode_rules,
)
from baloot_engine.rules.contract import Contract, ContractType, PlayMode
from baloot_engine.rules.ruleset import FEDERATION, KAMMELNA, SEEDS, RuleSet
from baloot_engine.rules.state import Phase
from tests.rules.strategies import play_match

SEED = bytes(range(16))
VARIANTS = [
    SEEDS,
    KAMMELNA,
    SEEDS.replace(sawa=True, auto_declare_projects=True, match_target=101),
    FEDERATION,
]


@pytest.mark.parametrize("rules", VARIANTS, ids=["seeds", "kammelna", "custom", "federation"])
def test_every_state_of_random_matches_round_trips(rules: RuleSet) -> None:
    rng = random.Random(5)
    sizes = []
    for _ in range(12):
        for version, state in enumerate(play_match(rng, rules)):
            data = encode(state, SEED, version)
            decoded = decode(data)
            assert decoded.state == state
            assert decoded.seed == SEED
            assert decoded.version == version
            if state.phase is Phase.PLAYING and len(state.tricks) == 4:
                sizes.append(len(data))
    assert sizes
    # Sealing adds 30 bytes; the plaintext must leave room for the 256-byte budget.
    assert max(sizes) <= 256 - 30


@pytest.mark.parametrize("rules", VARIANTS, ids=["seeds", "kammelna", "custom", "federation"])
def test_encoding_from_the_previous_message_equals_encoding_afresh(rules: RuleSet) -> None:
    rng = random.Random(6)
    for _ in range(6):
        states = play_match(rng, rules)
        for version, (before, after) in enumerate(itertools.pairwise(states)):
            previous = decode(encode(before, SEED, version))
            data = encode(after, SEED, version + 1, previous=previous)
            assert decode(data).state == after
            fresh = MatchState.FromString(encode(after, SEED, version + 1))
            assert MatchState.FromString(data) == fresh
    # Any earlier state, not only the one an action before, gives the same message.
    first = decode(encode(states[0], SEED, 0))
    for version, state in enumerate(states[1:40], start=1):
        assert MatchState.FromString(encode(state, SEED, version, previous=first)) == (
            MatchState.FromString(encode(state, SEED, version))
        )


def test_every_rule_set_round_trips() -> None:
    for rules in VARIANTS:
        assert decode_rules(*encode_rules(rules)) == rules


@given(
    type_=st.sampled_from(ContractType),
    trump=st.integers(-1, 3),
    buyer=st.integers(0, 3),
    ashkal=st.booleans(),
    bidding_round=st.integers(1, 2),
    multiplier=st.integers(1, 4),
    gahwa=st.booleans(),
    mode=st.sampled_from(PlayMode),
)
def test_contracts_round_trip(
    type_: ContractType,
    trump: int,
    buyer: int,
    ashkal: bool,
    bidding_round: int,
    multiplier: int,
    gahwa: bool,
    mode: PlayMode,
) -> None:
    if type_ is ContractType.SUN:
        trump = -1
    elif trump == -1:
        trump = 0
    contract = Contract(type_, trump, buyer, ashkal, bidding_round, multiplier, gahwa, mode)
    assert decode_contract(encode_contract(contract)) == contract
    assert decode_contract(encode_contract(None)) is None


@settings(max_examples=300)
@given(st.binary(max_size=300))
def test_random_bytes_never_crash(data: bytes) -> None:
    try:
        decode(data)
    except StateInvalidError as error:
        assert error.problems


def test_a_changed_field_that_breaks_the_rules_is_refused() -> None:
    rng = random.Random(9)
    states = play_match(rng, SEEDS)
    playing = next(s for s in states if s.phase is Phase.PLAYING and s.trick)
    # Move a card from seat 1's hand to seat 0's: the hand sizes no longer fit the trick.
    moved = playing.hands[1] & -playing.hands[1]
    hands = playing.hands
    forged = playing._replace(hands=(hands[0] | moved, hands[1] ^ moved, hands[2], hands[3]))
    with pytest.raises(StateInvalidError) as refused:
        decode(encode(forged, SEED, 3))
    assert any("holds" in p for p in refused.value.problems)
    with pytest.raises(StateInvalidError):
        decode(encode(playing, secrets.token_bytes(15), 3))
