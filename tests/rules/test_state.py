"""``state.validate`` lists every way a state is impossible, all at once (A.13 item 12)."""

from __future__ import annotations

import copy
import pickle
import random
from dataclasses import replace

import pytest

from baloot_engine.rules.contract import ContractType, PlayMode
from baloot_engine.rules.ruleset import SEEDS
from baloot_engine.rules.state import Phase, State, validate

from .strategies import play_match


def _playing(contract_type: ContractType) -> State:
    rng = random.Random(11)
    while True:
        for state in play_match(rng, SEEDS):
            contract = state.contract
            if (
                state.phase is Phase.PLAYING
                and not state.tricks
                and contract is not None
                and contract.type is contract_type
                and contract.multiplier == 1
                and not contract.ashkal
            ):
                return state


def test_a_played_state_is_valid() -> None:
    assert validate(_playing(ContractType.HOKM)) == []
    assert validate(_playing(ContractType.SUN)) == []


def test_contracts_the_bidding_cannot_produce_are_listed() -> None:
    hokm = _playing(ContractType.HOKM)
    contract = hokm.contract
    assert contract is not None
    other_suit = (contract.trump + 1) % 4
    cases = {
        "revealed card's suit": replace(contract, trump=other_suit, bidding_round=1),
        "only a doubled Hokm can be closed": replace(contract, mode=PlayMode.CLOSED),
        "a Gahwa is played open": replace(contract, multiplier=4, gahwa=True, mode=PlayMode.CLOSED),
        "dealer's left can call Ashkal": replace(
            contract, type=ContractType.SUN, trump=-1, ashkal=True, buyer=(hokm.dealer + 1) % 4
        ),
        "could not be doubled": replace(contract, type=ContractType.SUN, trump=-1, multiplier=2),
    }
    for expected, forged in cases.items():
        problems = validate(hokm._replace(contract=forged))
        assert any(expected in p for p in problems), (expected, problems)


def test_every_problem_is_reported_at_once() -> None:
    hokm = _playing(ContractType.HOKM)
    broken = hokm._replace(dealer=7, turn=9, match_scores=(-1, 0))
    problems = validate(broken)
    assert any("dealer" in p for p in problems)
    assert any("turn" in p for p in problems)
    assert any("negative" in p for p in problems)


def test_replace_changes_only_the_named_fields() -> None:
    state = _playing(ContractType.HOKM)
    changed = state._replace(turn=(state.turn + 1) & 3, trick=(1, 2), akka=True)
    assert type(changed) is State
    for name in State._fields:
        expected = {"turn": (state.turn + 1) & 3, "trick": (1, 2), "akka": True}.get(
            name, getattr(state, name)
        )
        assert getattr(changed, name) == expected, name
    assert state._replace() == state


def test_replace_refuses_an_unknown_field() -> None:
    with pytest.raises(ValueError, match="no_such_field"):
        State()._replace(no_such_field=1)  # type: ignore[call-arg]


def test_phases_behave_like_enum_members() -> None:
    names = [phase.name for phase in Phase]
    assert names == [
        "AWAITING_DEAL",
        "BIDDING",
        "DOUBLING",
        "PLAYING",
        "ROUND_OVER",
        "MATCH_OVER",
        "ROUND_REVIEW",
    ]
    assert len(Phase) == 7
    for phase in Phase:
        assert getattr(Phase, phase.name) is phase
        assert phase.value == phase.name.lower()
        assert copy.copy(phase) is phase
        assert copy.deepcopy(phase) is phase
        assert pickle.loads(pickle.dumps(phase)) is phase  # noqa: S301 - our own bytes
        assert repr(phase) == f"Phase.{phase.name}"
    state = State()
    assert copy.deepcopy(state).phase is Phase.AWAITING_DEAL
