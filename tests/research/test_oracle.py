"""The full-information oracle against a plain minimax over the rules core's own moves."""

from __future__ import annotations

import pytest

from baloot_engine.research.oracle import perfect_information_abnat, perfect_information_value
from baloot_engine.rules.actions import Play
from baloot_engine.rules.game import apply, legal_actions
from baloot_engine.rules.state import Phase, State
from tests.research.walks import RULE_SETS, random_states


def minimax_abnat_0(state: State) -> int:
    """Team 0's final abnat by trying every legal card (the slow, obvious reference)."""
    if state.phase is not Phase.PLAYING:
        return state.abnat[0]
    seat = state.turn
    values = [
        minimax_abnat_0(apply(state, seat, action)[0])
        for action in legal_actions(state, seat)
        if type(action) is Play
    ]
    return max(values) if seat & 1 == 0 else min(values)


def _endgames(rules_name: str, cards_left: int, count: int) -> list[State]:
    found = []
    for state in random_states(RULE_SETS[rules_name], 31, 20_000):
        held = sum(hand.bit_count() for hand in state.hands)
        contract = state.contract
        if (
            state.phase is Phase.PLAYING
            and held == cards_left
            and contract is not None
            and contract.is_sun  # no Akka calls on later leads, which the oracle leaves out
        ):
            found.append(state)
            if len(found) == count:
                break
    return found


@pytest.mark.parametrize("rules_name", ["seeds", "federation"])
def test_the_oracle_is_the_minimax_of_the_endgame(rules_name: str) -> None:
    states = _endgames(rules_name, 10, 12)
    assert len(states) == 12
    for state in states:
        abnat = perfect_information_abnat(state)
        assert abnat[0] == minimax_abnat_0(state)
        assert sum(abnat) == 130  # Sun: 120 abnat in the cards and 10 for the last trick
        assert perfect_information_value(state, 1) == abnat[1] - abnat[0]


def test_the_oracle_refuses_what_it_does_not_value() -> None:
    bidding = next(random_states(RULE_SETS["seeds"], 32, 1))
    with pytest.raises(ValueError, match="phase bidding"):
        perfect_information_abnat(bidding)
    playing = next(
        s for s in random_states(RULE_SETS["seeds"], 33, 200) if s.phase is Phase.PLAYING
    )
    with pytest.raises(ValueError, match="max_cards"):
        perfect_information_abnat(playing, max_cards=8)
