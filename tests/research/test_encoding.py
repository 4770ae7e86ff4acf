"""The action table and the observation tensor: complete, equal to the rules core, fair."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest

from baloot_engine.research.encoding import (
    ACTIONS,
    AKKA_BASE,
    BID_BASE,
    CALL_BASE,
    DECLARE_BASE,
    MAX_BIDS,
    MAX_CALLS,
    NUM_ACTIONS,
    OBSERVATION_SIZE,
    SAWA_INDEX,
    SEGMENTS,
    Encoder,
    action_index,
    action_name,
    action_of,
    describe,
    encode,
    legal_indices,
    legal_mask,
)
from baloot_engine.rules.actions import ClaimSawa, Play
from baloot_engine.rules.game import legal_actions
from baloot_engine.rules.observation import observe, observe_public
from tests.bots.test_fairness import hidden_twin
from tests.research.walks import RULE_SETS, random_states

DOC = Path(__file__).resolve().parents[2] / "docs" / "research.md"


def test_the_action_table_is_one_index_per_action() -> None:
    assert len(set(ACTIONS)) == NUM_ACTIONS == SAWA_INDEX + 1
    assert all(ACTIONS[card] == Play(card) for card in range(32))
    assert all(ACTIONS[AKKA_BASE + card] == Play(card, akka=True) for card in range(32))
    assert ACTIONS[SAWA_INDEX] == ClaimSawa()
    assert AKKA_BASE < BID_BASE < CALL_BASE < DECLARE_BASE < SAWA_INDEX
    for index in range(NUM_ACTIONS):
        assert action_index(action_of(index)) == index
        assert action_name(index) == str(ACTIONS[index])
    with pytest.raises(IndexError):
        action_of(NUM_ACTIONS)


@pytest.mark.parametrize("rules_name", sorted(RULE_SETS))
def test_every_legal_action_has_an_index_and_the_mask_is_the_core(rules_name: str) -> None:
    """500 random states per rule set (2,000 in all): every seat's legal actions encode."""
    for state in random_states(RULE_SETS[rules_name], 11, 500):
        for seat in range(4):
            actions = legal_actions(state, seat)
            mask = legal_mask(actions)
            assert list(np.flatnonzero(mask)) == legal_indices(actions)
            assert [ACTIONS[i] for i in legal_indices(actions)] == sorted(actions, key=action_index)


@pytest.mark.parametrize("rules_name", sorted(RULE_SETS))
def test_the_cached_encoder_gives_the_plain_tensors(rules_name: str) -> None:
    encoder = Encoder()
    for state in random_states(RULE_SETS[rules_name], 12, 300):
        for seat in range(4):
            observation = observe(state, seat)
            tensor = encoder(observation)
            assert tensor.shape == (OBSERVATION_SIZE,)
            assert tensor.dtype == np.float32
            assert np.array_equal(tensor, encode(observation))
            assert tensor.min() >= 0.0
            assert tensor.max() <= 1.0
            assert len(state.bids) <= MAX_BIDS
            assert len(state.doubling_calls) <= MAX_CALLS


@pytest.mark.parametrize("rules_name", sorted(RULE_SETS))
def test_a_tensor_never_changes_with_cards_hidden_from_its_seat(rules_name: str) -> None:
    rng = random.Random(13)
    twins = 0
    for state in random_states(RULE_SETS[rules_name], 13, 800):
        seat = rng.randrange(4)
        twin = hidden_twin(state, seat, rng)
        if twin is None:
            continue
        twins += 1
        assert twin != state
        assert np.array_equal(encode(observe(twin, seat)), encode(observe(state, seat)))
        assert describe(observe(twin, seat)) == describe(observe(state, seat))
        for other in range(4):
            public = observe_public(state)
            assert np.array_equal(encode(observe_public(twin), other), encode(public, other))
    assert twins > 40


def test_a_tensor_shows_the_seat_its_own_hand() -> None:
    """The fairness test is not vacuous: the seat's own cards are in its tensor."""
    for state in random_states(RULE_SETS["seeds"], 14, 50):
        seat = state.turn
        hands = list(state.hands)
        mine, other = hands[seat], hands[(seat + 1) & 3]
        low_mine, low_other = mine & -mine, other & -other
        hands[seat] = mine ^ low_mine ^ low_other
        hands[(seat + 1) & 3] = other ^ low_other ^ low_mine
        swapped = state._replace(hands=(hands[0], hands[1], hands[2], hands[3]))
        assert not np.array_equal(encode(observe(swapped, seat)), encode(observe(state, seat)))


def test_a_public_tensor_needs_a_perspective() -> None:
    state = next(random_states(RULE_SETS["seeds"], 15, 1))
    with pytest.raises(ValueError, match="perspective"):
        encode(observe_public(state))


def test_the_segments_tile_the_tensor() -> None:
    offset = 0
    for segment in SEGMENTS:
        assert segment.offset == offset
        offset += segment.size
    assert offset == OBSERVATION_SIZE


def test_docs_list_every_action_index_and_every_segment() -> None:
    text = DOC.read_text(encoding="utf-8")
    for segment in SEGMENTS:
        row = rf"\|\s*`{segment.name}`\s*\|\s*{segment.offset}\s*\|\s*{segment.size}\s*\|"
        assert re.search(row, text), f"docs/research.md lacks the row of {segment.name}"
    for index in range(BID_BASE, NUM_ACTIONS):
        row = rf"\|\s*{index}\s*\|\s*`{re.escape(action_name(index))}`\s*\|"
        assert re.search(row, text), f"docs/research.md lacks action {index}"
    assert f"{OBSERVATION_SIZE} values" in text
    assert f"{NUM_ACTIONS} actions" in text


def test_a_declaration_is_encoded_whatever_the_order_of_its_types() -> None:
    # An automatic declaration lists its projects best first (a Fifty before a Sira), a seat's own
    # in the order of the legal actions: both name one declaration plane.
    from baloot_engine.research import encoding

    for declaration in encoding.DECLARATIONS:
        kinds = declaration.kinds
        assert encoding._DECLARATION_INDEX[kinds[::-1]] == encoding._DECLARATION_INDEX[kinds]
