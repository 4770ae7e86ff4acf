"""From the environments to the service: a seat's views read as the environments' observation,
action indexes as the contract's Action messages and back, rule sets both ways."""

from __future__ import annotations

import numpy as np
import pytest

from baloot.v1 import rules_pb2, types_pb2
from baloot_engine.api.inbound import action_in, rules_in
from baloot_engine.api.outbound import action_out, rules_out
from baloot_engine.api.views import build_view
from baloot_engine.research import (
    MissedTrickError,
    ViewReader,
    action_from_message,
    action_to_message,
    rules_from_message,
    rules_to_message,
)
from baloot_engine.research.bridge import legal_mask_of
from baloot_engine.research.encoding import ACTIONS, NUM_ACTIONS, SAWA_INDEX, encode, legal_mask
from baloot_engine.rules.observation import Observation, observe
from baloot_engine.rules.ruleset import FEDERATION, KAMMELNA, SEEDS, RuleSet
from baloot_engine.rules.state import LIVE_PHASES, Phase, State
from tests.research.walks import RULE_SETS, match_states

SEATS = (0, 1, 2, 3)


def test_every_action_index_is_the_service_s_action_message_and_back() -> None:
    for index in range(NUM_ACTIONS):
        message = action_to_message(index)
        assert message == action_out(ACTIONS[index])  # what the service lists for it
        assert action_in(message) == ACTIONS[index]  # what the service reads from it
        assert action_from_message(message) == index
    with pytest.raises(IndexError):
        action_to_message(NUM_ACTIONS)


def test_a_sawa_claim_is_one_index_whatever_card_it_names() -> None:
    claim = types_pb2.Action(play=types_pb2.CardPlay(card=17, sawa=True))
    assert action_from_message(claim) == SAWA_INDEX


@pytest.mark.parametrize(
    "message",
    [
        types_pb2.Action(deal=types_pb2.DealAction()),
        types_pb2.Action(qayd=types_pb2.QaydCall(accused=1, trick=2, card=3)),
        types_pb2.Action(),
        types_pb2.Action(bid=types_pb2.Bid()),
        types_pb2.Action(play=types_pb2.CardPlay(card=40)),
    ],
)
def test_actions_outside_the_table_are_refused(message: types_pb2.Action) -> None:
    with pytest.raises(ValueError, match=r"\S"):
        action_from_message(message)


@pytest.mark.parametrize("rules", [SEEDS, KAMMELNA, FEDERATION, RULE_SETS["custom"]])
def test_rule_sets_cross_to_the_contract_and_back_as_the_service_reads_them(
    rules: RuleSet,
) -> None:
    message = rules_to_message(rules)
    assert rules_from_message(message) == rules
    assert rules_in(message) == rules  # the service creates the match under these rules
    assert rules_from_message(rules_out(rules)) == rules  # a view's rules, read back
    assert rules_to_message("kammelna", {"sawa": True}) == rules_to_message(
        KAMMELNA.replace(sawa=True)
    )


def test_a_contract_rule_set_with_a_few_flags_reads_as_its_preset_with_them() -> None:
    message = rules_pb2.RuleSet(preset=rules_pb2.PRESET_KAMMELNA, sawa=True, match_target=101)
    assert rules_from_message(message) == KAMMELNA.replace(sawa=True, match_target=101)
    with pytest.raises(ValueError, match="kawesh"):
        rules_from_message(rules_pb2.RuleSet(kawesh=rules_pb2.KAWESH_UNSPECIFIED))


def _same(read: Observation, true: Observation) -> list[str]:
    """The fields in which the reader's observation differs (a view carries no last score)."""
    return [f for f in true._fields if f != "last_score" and getattr(read, f) != getattr(true, f)]


def _views(states: list[State], seat: int) -> list[types_pb2.View]:
    # The first view is CreateMatch's, with the rules; the others are action responses'.
    return [
        build_view(state, seat, "m", version, with_rules=version == 0)
        for version, state in enumerate(states)
    ]


@pytest.mark.parametrize("rules_name", sorted(RULE_SETS))
def test_the_reader_gives_the_observation_of_every_state_of_whole_matches(rules_name: str) -> None:
    """Every state of three random matches per rule set (12 in all), every seat: the reader fed
    the seat's views gives the rules core's observation, tensor and mask."""
    compared = 0
    for seed in range(3):
        states = list(match_states(RULE_SETS[rules_name], seed))
        assert states[-1].phase is Phase.MATCH_OVER
        for seat in SEATS:
            reader = ViewReader()
            for state, view in zip(states, _views(states, seat), strict=True):
                true = observe(state, seat)
                assert _same(reader.observation(view), true) == []
                observed = reader(view)
                assert np.array_equal(observed["observation"], encode(true))
                if state.phase in LIVE_PHASES:
                    assert np.array_equal(observed["action_mask"], legal_mask(true.legal_actions))
                compared += 1
    assert compared > 3 * 4 * 100


def test_a_reader_given_only_the_seat_s_turns_reads_them_the_same() -> None:
    states = list(match_states(KAMMELNA, 5))
    for seat in SEATS:
        reader = ViewReader(KAMMELNA)
        turns = 0
        for state, view in zip(states, _views(states, seat), strict=True):
            if state.turn == seat and state.phase in LIVE_PHASES:
                assert _same(reader.observation(view), observe(state, seat)) == []
                turns += 1
        assert turns > 50


def test_a_reader_that_missed_a_trick_says_so() -> None:
    states = [s for s in match_states(SEEDS, 2) if s.phase is Phase.PLAYING]
    later = next(s for s in states if len(s.tricks) == 3)
    reader = ViewReader(SEEDS)
    reader(build_view(states[0], 0, "m", 1))
    with pytest.raises(MissedTrickError, match=r"tricks \[1, 2\]"):
        reader(build_view(later, 0, "m", 2))


def test_the_reader_needs_the_rules_and_one_seat_s_views() -> None:
    state = next(s for s in match_states(KAMMELNA, 1) if s.phase is Phase.BIDDING)
    with pytest.raises(ValueError, match="needs the match's rules"):
        ViewReader()(build_view(state, 0, "m", 1))
    with pytest.raises(ValueError, match="public view"):
        ViewReader(KAMMELNA)(build_view(state, None, "m", 1))
    with pytest.raises(ValueError, match="not the rules"):
        ViewReader(SEEDS)(build_view(state, 0, "m", 1, with_rules=True))
    reader = ViewReader(KAMMELNA)
    reader(build_view(state, 0, "m", 1))
    for seat, match_id in ((1, "m"), (0, "n")):
        with pytest.raises(ValueError, match="one reader per seat and match"):
            reader(build_view(state, seat, match_id, 2))


def test_the_mask_of_a_dealer_s_view_between_rounds_leaves_the_deal_out() -> None:
    view = types_pb2.View(legal_actions=[types_pb2.Action(deal=types_pb2.DealAction())])
    assert not legal_mask_of(view.legal_actions).any()
