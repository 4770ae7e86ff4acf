"""A token whose state announces a Baloot in a Sun contract is refused as STATE_INVALID.

A Sun has no trump, so no Baloot: a forged state that says one was announced (in any phase of
a round, with the contract turned into a Sun) must be refused when the token is opened, never
reach the views (where it once raised INTERNAL in GetView).
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
from baloot_engine.rules.state import State
from baloot_engine.rules.validation import validate
from baloot_engine.telemetry.metrics import Metrics
from tests.rules.strategies import play_match

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
