"""Requests to core values: what a request may carry is converted exactly, everything else is
refused with a MALFORMED rule error and its reason, and converting a core value out and back
in gives it back."""

from __future__ import annotations

import dataclasses
import enum
import itertools
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, reject
from hypothesis import strategies as st

from baloot.v1 import engine_service_pb2 as service_pb
from baloot.v1 import rules_pb2, types_pb2
from baloot_engine.api import inbound, outbound
from baloot_engine.bots import Level
from baloot_engine.rules import errors
from baloot_engine.rules.actions import (
    Bid,
    BidKind,
    ClaimSawa,
    Deal,
    Declare,
    Doubling,
    DoublingCall,
    Play,
)
from baloot_engine.rules.contract import ContractType, PlayMode
from baloot_engine.rules.errors import ErrorKind, RuleError
from baloot_engine.rules.projects import ProjectKind
from baloot_engine.rules.ruleset import FEDERATION, KAMMELNA, SEEDS, RuleSet, RuleSetError


def _refusal(convert: Callable[..., object], *args: Any, **kwargs: Any) -> RuleError:
    """The rule error ``convert(*args, **kwargs)`` raises (the test fails if it returns)."""
    with pytest.raises(RuleError) as refused:
        convert(*args, **kwargs)
    return refused.value


@given(st.integers(-(2**31), 2**31 - 1))
def test_seats_and_cards_are_kept_in_range_and_refused_outside(value: int) -> None:
    if 0 <= value <= 3:
        assert inbound.seat_in(value) == value
    else:
        error = _refusal(inbound.seat_in, value)
        assert (error.reason, error.kind) == (errors.INVALID_SEAT, ErrorKind.MALFORMED)
    if 0 <= value < 32:
        assert inbound.card_in(value) == value
    else:
        error = _refusal(inbound.card_in, value)
        assert (error.reason, error.kind) == (errors.INVALID_CARD, ErrorKind.MALFORMED)


def test_suits_are_shifted_to_the_core_numbering() -> None:
    assert [inbound.suit_in(v, required=True) for v in range(1, 5)] == [0, 1, 2, 3]
    assert inbound.suit_in(types_pb2.SUIT_UNSPECIFIED, required=False) == -1
    assert (
        _refusal(inbound.suit_in, types_pb2.SUIT_UNSPECIFIED, required=True).reason
        == errors.INVALID_ACTION
    )
    assert _refusal(inbound.suit_in, 5, required=False).reason == errors.INVALID_ACTION


@pytest.mark.parametrize(("kind", "suit"), list(itertools.product(BidKind, range(-1, 4))))
def test_every_bid_comes_back_from_its_message(kind: BidKind, suit: int) -> None:
    bid = Bid(kind, suit)
    assert inbound.bid_in(outbound.bid_out(bid)) == bid


@pytest.mark.parametrize(("call", "mode"), list(itertools.product(DoublingCall, [None, *PlayMode])))
def test_every_doubling_call_comes_back_from_its_message(
    call: DoublingCall, mode: PlayMode | None
) -> None:
    doubling = Doubling(call, mode)
    assert inbound.doubling_in(outbound.doubling_out(doubling)) == doubling


@pytest.mark.parametrize(
    "kinds", [(k,) for k in ProjectKind] + list(itertools.combinations(ProjectKind, 2))
)
def test_every_declaration_comes_back_from_its_action(kinds: tuple[ProjectKind, ...]) -> None:
    declaration = Declare(kinds)
    assert inbound.declaration_in(outbound.action_out(declaration).declaration) == declaration


@pytest.mark.parametrize(
    "action", [Play(c, akka) for c in range(32) for akka in (False, True)] + [ClaimSawa()]
)
def test_every_card_play_comes_back_from_its_action(action: Play | ClaimSawa) -> None:
    assert inbound.play_in(outbound.action_out(action).play) == action


@pytest.mark.parametrize(
    "message",
    [
        types_pb2.Bid(),
        types_pb2.Bid(kind=99),
        types_pb2.Bid(kind=types_pb2.BID_KIND_HOKM, suit=7),
        types_pb2.Doubling(),
        types_pb2.Doubling(call=types_pb2.DOUBLING_CALL_DOUBLE, mode=9),
        types_pb2.Declaration(),
        types_pb2.Declaration(kinds=[types_pb2.PROJECT_KIND_SIRA] * 3),
        types_pb2.Declaration(kinds=[42]),
        types_pb2.CardPlay(card=32),
    ],
    ids=repr,
)
def test_incomplete_or_unknown_actions_are_malformed(message: object) -> None:
    convert: Callable[[Any], object] = {
        types_pb2.Bid: inbound.bid_in,
        types_pb2.Doubling: inbound.doubling_in,
        types_pb2.Declaration: inbound.declaration_in,
        types_pb2.CardPlay: inbound.play_in,
    }[type(message)]
    error = _refusal(convert, message)
    assert error.kind is ErrorKind.MALFORMED
    assert error.reason in {errors.INVALID_ACTION, errors.INVALID_CARD}


def _flag_values(field: dataclasses.Field[object]) -> st.SearchStrategy[object]:
    default = field.default
    if isinstance(default, bool):
        return st.booleans()
    if isinstance(default, enum.Enum):
        return st.sampled_from(type(default))
    return st.integers(1, 1000)


# baloot_absorbed_by_hundred is left out: it follows baloot_absorption (RuleSet.replace).
RULE_FIELDS = [f for f in dataclasses.fields(RuleSet) if f.name != "baloot_absorbed_by_hundred"]


@given(st.fixed_dictionaries({f.name: _flag_values(f) for f in RULE_FIELDS}))
def test_every_rule_set_comes_back_from_its_message(flags: dict[str, object]) -> None:
    try:
        rules = SEEDS.replace(**flags)
    except RuleSetError:
        reject()
    assert inbound.rules_in(outbound.rules_out(rules)) == rules


def test_the_presets_and_a_missing_rule_set() -> None:
    assert inbound.rules_in(None) == SEEDS
    assert inbound.rules_in(rules_pb2.RuleSet()) == SEEDS
    assert inbound.rules_in(rules_pb2.RuleSet(preset=rules_pb2.PRESET_KAMMELNA)) == KAMMELNA
    changed = inbound.rules_in(rules_pb2.RuleSet(preset=rules_pb2.PRESET_KAMMELNA, sawa=False))
    assert changed == KAMMELNA.replace(sawa=False)
    assert inbound.rules_in(rules_pb2.RuleSet(preset=rules_pb2.PRESET_FEDERATION)) == FEDERATION
    assert outbound.rules_out(FEDERATION).preset == rules_pb2.PRESET_FEDERATION


@pytest.mark.parametrize(
    "message",
    [
        rules_pb2.RuleSet(preset=77),
        rules_pb2.RuleSet(kawesh=0),
        rules_pb2.RuleSet(kawesh=999),
        rules_pb2.RuleSet(match_target=0),
    ],
    ids=repr,
)
def test_unknown_or_impossible_rule_sets_are_refused(message: rules_pb2.RuleSet) -> None:
    error = _refusal(inbound.rules_in, message)
    assert (error.reason, error.kind) == (errors.INVALID_RULES, ErrorKind.MALFORMED)


def test_the_facts_of_a_round_are_read_from_their_totals() -> None:
    request = service_pb.ScoreRoundRequest(
        contract_type=types_pb2.CONTRACT_TYPE_HOKM,
        trump=types_pb2.SUIT_HEARTS,
        buyer_team=1,
        card_abnat=[86, 76],
        tricks_won=[5, 3],
        multiplier=2,
    )
    facts, rules = inbound.facts_in(request)
    assert rules == SEEDS
    assert facts.contract is ContractType.HOKM
    assert (facts.buyer_team, facts.card_abnat, facts.tricks_won) == (1, (86, 76), (5, 3))
    assert facts.multiplier == 2


@pytest.mark.parametrize(
    "request_",
    [
        service_pb.ScoreRoundRequest(),
        service_pb.ScoreRoundRequest(
            contract_type=types_pb2.CONTRACT_TYPE_SUN, trump=types_pb2.SUIT_HEARTS, buyer_team=0
        ),
        service_pb.ScoreRoundRequest(contract_type=types_pb2.CONTRACT_TYPE_HOKM, buyer_team=0),
        service_pb.ScoreRoundRequest(contract_type=types_pb2.CONTRACT_TYPE_SUN),
        service_pb.ScoreRoundRequest(contract_type=types_pb2.CONTRACT_TYPE_SUN, buyer_team=2),
        service_pb.ScoreRoundRequest(
            contract_type=types_pb2.CONTRACT_TYPE_SUN, buyer_team=0, card_abnat=[130]
        ),
    ],
    ids=repr,
)
def test_missing_or_contradictory_facts_are_refused(
    request_: service_pb.ScoreRoundRequest,
) -> None:
    error = _refusal(inbound.facts_in, request_)
    assert (error.reason, error.kind) == (errors.INVALID_ROUND_FACTS, ErrorKind.MALFORMED)


@pytest.mark.parametrize("level", Level)
def test_every_bot_level_comes_back_from_its_number(level: Level) -> None:
    assert inbound.bot_level_in(outbound.BOT_LEVEL_NUMBERS[level]) is level


@pytest.mark.parametrize("value", [service_pb.BOT_LEVEL_UNSPECIFIED, 99])
def test_a_missing_or_unknown_bot_level_is_refused(value: int) -> None:
    assert _refusal(inbound.bot_level_in, value).reason == "REQUEST_INVALID"


def test_any_action_of_a_record_or_a_legal_action_list_reads_back() -> None:
    for action in (
        Deal(()),
        Deal(tuple(range(32))),
        Bid(BidKind.SUN),
        Doubling(DoublingCall.DOUBLE, PlayMode.CLOSED),
        Declare((ProjectKind.SIRA,)),
        Play(7, akka=True),
        ClaimSawa(),
    ):
        assert inbound.action_in(outbound.action_out(action)) == action
    with pytest.raises(RuleError) as refused:
        inbound.action_in(types_pb2.Action())
    assert refused.value.reason == errors.INVALID_ACTION
