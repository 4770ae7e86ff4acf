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
    TokenFields,
    _encode_violations,
    decode,
    decode_contract,
    decode_rules,
    encode,
    encode_contract,
    encode_rules,
)
from baloot_engine.rules.actions import Deal, Play
from baloot_engine.rules.contract import Contract, ContractType, PlayMode
from baloot_engine.rules.game import apply, close_review, new_match
from baloot_engine.rules.qayd import QaydCategory
from baloot_engine.rules.ruleset import FEDERATION, KAMMELNA, SEEDS, RuleSet
from baloot_engine.rules.state import Phase, State, Violation
from tests.rules.strategies import choose, play_match, random_deck

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


def _table_play_states(rng: random.Random, rules: RuleSet, matches: int) -> list[State]:
    """The states of random table-play matches whose seats now and then play any card they
    hold (a breach), a review closed at each round's end."""
    states = []
    for _ in range(matches):
        state = new_match(rules, rng.randrange(4))
        while state.phase is not Phase.MATCH_OVER:
            if state.phase is Phase.ROUND_REVIEW:
                state, _ = close_review(state)
            elif state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
                state, _ = apply(state, state.dealer, Deal(random_deck(rng)))
            elif state.phase is Phase.PLAYING and rng.random() < 0.1:
                seat = state.turn
                cards = [c for c in range(32) if state.hands[seat] >> c & 1]
                state, _ = apply(state, seat, Play(rng.choice(cards)))
            else:
                state, _ = apply(state, *choose(rng, state))
            states.append(state)
    return states


def test_breaches_round_trip_and_a_forged_one_is_refused() -> None:
    # Table play keeps each round's breaches in the token; a state that names a card the rules
    # allowed as a breach (or a boss lead as a false Akka) would make a Qayd on it right, so it
    # is refused, whether kept as breaches or in an earlier version's list of violations.
    rules = KAMMELNA.replace(illegal_moves_allowed=True, akka_requires_declaration=True)
    states = _table_play_states(random.Random(4), rules, 6)
    with_breaches = [s for s in states if s.violations and s.phase is Phase.PLAYING]
    assert with_breaches
    for version, state in enumerate(states, start=len(states)):
        assert decode(encode(state, SEED, version)).state == state
    state = with_breaches[-1]
    breached = {v.card for v in state.violations}
    first = state.tricks[0] if state.tricks else None
    assert first is not None
    legal = next(c for c in first.cards if c not in breached and c != first.cards[0])
    seat = (first.leader + first.cards.index(legal)) & 3
    forged = Violation(seat, 1, legal, QaydCategory.REVOKE, 0)
    for violations in ((*state.violations, forged),):
        forged_state = state._replace(violations=violations)
        message = MatchState.FromString(encode(forged_state, SEED, len(states)))
        with pytest.raises(StateInvalidError, match="allowed"):
            decode(message.SerializeToString())
        message.violations = _encode_violations(violations)  # an earlier version's list
        message.ClearField("breaches")
        with pytest.raises(StateInvalidError, match="allowed"):
            decode(message.SerializeToString())


def test_the_redealt_round_s_dealer_round_trips_and_a_forged_one_is_refused() -> None:
    state = new_match(SEEDS, 2)
    for dealer in range(4):
        fields = TokenFields(redealt_by=dealer + 1)
        assert decode(encode(state, SEED, 0, fields=fields)).fields.redealt_by == dealer + 1
    # Its value shows no hidden card and is one byte whichever seat dealt.
    sizes = {len(encode(state, SEED, 0, fields=TokenFields(redealt_by=d))) for d in (1, 2, 3, 4)}
    assert len(sizes) == 1
    forged = MatchState.FromString(encode(state, SEED, 0))
    forged.redealt_by = 5
    with pytest.raises(StateInvalidError):
        decode(forged.SerializeToString())
