"""A token whose state announces a Baloot in a Sun contract is refused as STATE_INVALID.

A Sun has no trump, so no Baloot: a forged state that says one was announced (in any phase of
a round, with the contract turned into a Sun) must be refused when the token is opened, never
reach the views (where it once raised INTERNAL in GetView). The path the forged-state campaign
(``loadtest/forge.py``) found: a table-play round under review, whose Baloot was not checked
(only play was); and a hand a Qayd verdict ended, whose last round named a buying team 3, 16
or 31 (scored as given, it reached the response as a negative team).
"""

from __future__ import annotations

import asyncio
import random

import pytest

from baloot.internal.v1 import match_state_pb2
from baloot.v1 import engine_service_pb2 as pb
from baloot_engine.api.matches import Matches
from baloot_engine.api.refusals import STATE_INVALID, ApiError
from baloot_engine.api.sealing import HOST_ROLE, KeyRing
from baloot_engine.api.servicer import BalootEngineServicer
from baloot_engine.api.state_codec import SEED_SIZE, encode, encode_contract
from baloot_engine.rules.contract import Contract, ContractType
from baloot_engine.rules.ruleset import FEDERATION, KAMMELNA, SEEDS
from baloot_engine.rules.state import Phase, State
from baloot_engine.rules.validation import validate
from baloot_engine.telemetry.metrics import Metrics
from tests.rules.strategies import TABLE_PRESETS, play_match, play_table_match, table_rules

KEYS = KeyRing([bytes(range(32))])
MATCH = bytes(range(16))


def _states_with_a_contract() -> list[State]:
    rng = random.Random(2026)
    states = []
    for rules in (SEEDS, KAMMELNA, FEDERATION):
        states += [s for s in play_match(rng, rules)[:400] if s.contract is not None]
    return states


def _forged(state: State) -> bytes:
    """The state's token with its contract a Sun and a Baloot announced."""
    assert state.contract is not None
    sun = Contract(ContractType.SUN, -1, state.contract.buyer)
    message = match_state_pb2.MatchState.FromString(encode(state, bytes(SEED_SIZE), 1))
    message.contract = encode_contract(sun)
    message.baloot_announced = True
    return KEYS.seal(message.SerializeToString(), MATCH)


def _reviews() -> list[State]:
    """Rounds under review (table play) of a few matches, and the states a verdict ended."""
    rng = random.Random(27)
    states = []
    for rules in TABLE_PRESETS:
        for _ in range(3):
            steps = play_table_match(rng, table_rules(rules.replace(match_target=152)))
            states += [s for s, _ in steps if s.phase is Phase.ROUND_REVIEW]
    return states


def test_a_round_under_review_with_a_baloot_in_a_sun_is_refused() -> None:
    reviews = _reviews()
    assert len(reviews) >= 5
    for state in reviews:
        assert not validate(state)
        assert state.contract is not None
        sun = Contract(ContractType.SUN, -1, state.contract.buyer)
        assert validate(state._replace(contract=sun, baloot_announced=True))
        if state.trump >= 0 and state.baloot_seat < 0:
            assert validate(state._replace(baloot_announced=True))  # no holder: no Baloot


def test_getview_refuses_a_forged_review_token() -> None:
    servicer = BalootEngineServicer(KEYS, Metrics(), allow_preset_deck=False)
    host = KEYS.credential(MATCH, HOST_ROLE)
    for state in _reviews()[::3]:
        token = _forged(state)
        request = pb.GetViewRequest(state=token, match_id=MATCH.hex(), credential=host)
        with pytest.raises(_AbortedError) as aborted:
            asyncio.run(servicer.GetView(request, _Context()))  # type: ignore[arg-type]
        assert aborted.value.args[0] == "INVALID_ARGUMENT", aborted.value.args


def test_a_hand_a_verdict_ended_names_its_buying_team() -> None:
    """The last round of a hand ended by a Qayd verdict is scored from its facts as given
    (no eight tricks to check): a team out of range is refused when the token opens."""
    servicer = BalootEngineServicer(KEYS, Metrics(), allow_preset_deck=False)
    host = KEYS.credential(MATCH, HOST_ROLE)
    rng = random.Random(5)
    ended = []
    for rules in TABLE_PRESETS:
        for _ in range(6):
            steps = play_table_match(rng, table_rules(rules.replace(match_target=152)), call=0.2)
            ended += [
                s
                for s, _ in steps
                if s.phase is Phase.ROUND_OVER and s.last_qayd is not None and s.last_qayd.correct
            ]
    assert ended
    for state in ended[:8]:
        message = match_state_pb2.MatchState.FromString(encode(state, bytes(SEED_SIZE), 1))
        for team in (2, 3, 16, 31):
            message.last_round.buyer_team = team
            token = KEYS.seal(message.SerializeToString(), MATCH)
            for request in (
                pb.GetViewRequest(state=token, match_id=MATCH.hex(), credential=host),
                pb.GetScoreRequest(state=token, match_id=MATCH.hex(), credential=host),
            ):
                method = getattr(servicer, type(request).__name__.removesuffix("Request"))
                with pytest.raises(_AbortedError) as aborted:
                    asyncio.run(method(request, _Context()))
                assert aborted.value.args[0] == "INVALID_ARGUMENT", aborted.value.args


def test_validate_refuses_a_baloot_announced_in_a_sun() -> None:
    for state in _states_with_a_contract()[::7]:
        assert state.contract is not None
        sun = Contract(ContractType.SUN, -1, state.contract.buyer)
        forged = state._replace(contract=sun, baloot_announced=True)
        assert validate(forged), state.phase


def test_opening_and_getview_refuse_the_forged_token() -> None:
    matches = Matches(KEYS, Metrics(), allow_preset_deck=False)
    servicer = BalootEngineServicer(KEYS, Metrics(), allow_preset_deck=False)
    host = KEYS.credential(MATCH, HOST_ROLE)
    context = _Context()
    for state in _states_with_a_contract()[::11]:
        token = _forged(state)
        with pytest.raises(ApiError) as refused:
            matches.open(token, MATCH.hex(), host)
        assert refused.value.reason == STATE_INVALID
        request = pb.GetViewRequest(state=token, match_id=MATCH.hex(), credential=host)
        with pytest.raises(_AbortedError) as aborted:
            asyncio.run(servicer.GetView(request, context))  # type: ignore[arg-type]
        assert aborted.value.args[0] == "INVALID_ARGUMENT", aborted.value.args


class _AbortedError(Exception):
    pass


class _Context:
    """The part of a servicer context a refusal uses."""

    def trailing_metadata(self) -> tuple[()]:
        return ()

    async def abort(self, code: object, details: str, **_: object) -> None:
        raise _AbortedError(getattr(code, "name", code), details)
