"""Forged states: a token sealed with the server's own key that holds an impossible state.

Each case changes one field of the internal ``MatchState`` of a real token, seals it with a
key ring built from the test key and sends it over a real channel: the server refuses it with
STATE_INVALID exactly when decoding refuses it, never with INTERNAL or UNKNOWN, and the
untouched token still plays. (The cost of the worst of these is measured by
``bench/bench_worst_case.py``, not here.) The bases are tokens of every phase of a match under
a rule set far from the presets and of a table-play match (its rounds under review, and a
hand a Qayd verdict ended); the fields forged are every field of the state, those of its
last round and Qayd record too. ``FORGE_EXAMPLES`` sets the number of hypothesis examples
(150 by default; the campaign of ``make forge`` sends forged tokens at scale).
"""

from __future__ import annotations

import dataclasses
import os
import random
from collections.abc import Callable
from typing import Any, cast

import grpc
import pytest
from baloot_client import EngineClient
from baloot_client.client import Match
from google.protobuf.descriptor import FieldDescriptor
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baloot.internal.v1 import match_state_pb2
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot.v1 import rules_pb2, types_pb2
from baloot_engine.api.sealing import KeyRing
from baloot_engine.api.state_codec import StateInvalidError, decode, encode_contract
from baloot_engine.rules.cards import KING_QUEEN
from baloot_engine.rules.contract import Contract, ContractType, PlayMode

from .conftest import CUSTOM, SEEDS, Table, action_call, read_calls, refusal

INVALID_ARGUMENT = grpc.StatusCode.INVALID_ARGUMENT
MESSAGE = match_state_pb2.MatchState.DESCRIPTOR
FORGED_FIELDS = [f.name for f in MESSAGE.fields if f.name not in ("layout", "seed")]
NESTED_FIELDS = [
    f"{f.name}.{inner.name}"
    for f in MESSAGE.fields
    if f.message_type is not None
    for inner in f.message_type.fields
]
EXAMPLES = int(os.environ.get("FORGE_EXAMPLES", "150"))
TABLE_PLAY = rules_pb2.RuleSet(
    preset=SEEDS.preset,
    illegal_moves_allowed=True,
    sawa=True,
    qayd_false_call=rules_pb2.QAYD_FALSE_CALL_LOSES_HAND,
    match_target=152,
)

_Call = tuple[Callable[..., Any], Any]


class Base:
    """A real token of a match, with its calls (its next legal action, then the reads)."""

    def __init__(self, name: str, table: Table, keys: KeyRing, stub: Any) -> None:
        self.name = name
        self.match = table.match
        self.match_key = bytes.fromhex(table.match.match_id)
        self.plaintext = keys.open(table.match.state, self.match_key)
        seat = max(table.latest.turn, 0)
        legal = table.seat_view(seat).legal_actions
        deal = table.latest.phase in (types_pb2.PHASE_AWAITING_DEAL, types_pb2.PHASE_ROUND_OVER)
        first: list[_Call] = []
        if deal or legal:
            first = [action_call(stub, table.match, seat, None if deal else legal[0])]
        self.calls = [*first, *read_calls(stub, table.match, seat)]

    def message(self) -> match_state_pb2.MatchState:
        return match_state_pb2.MatchState.FromString(self.plaintext)


@pytest.fixture(scope="module")
def bases(client: EngineClient, keys: KeyRing, stub: pb_grpc.BalootEngineServiceStub) -> list[Base]:
    """Tokens of every phase of one match under a rule set far from the presets."""
    table = Table(client.create_match(CUSTOM), random.Random(7), seat_share=0)
    found: dict[int, Base] = {}

    def record(view: types_pb2.View) -> bool:
        key = view.phase * 10 + min(sum(view.tricks_won), 1)
        if key not in found:
            found[key] = Base(f"{view.phase}/{key}", table, keys, stub)
        return view.phase == types_pb2.PHASE_MATCH_OVER

    table.play(record)
    record(table.latest)
    return [*found.values(), *_table_play_bases(client, keys, stub)]


class _Latest:
    """What :class:`Base` reads of a :class:`Table`, from a match played step by step."""

    def __init__(self, match: Match) -> None:
        self.match = match
        self.latest = match.views[0]

    def seat_view(self, seat: int) -> types_pb2.View:
        return self.match.views[seat]


def _table_play_bases(client: EngineClient, keys: KeyRing, stub: Any) -> list[Base]:
    """Rounds under review of a table-play match, and a hand a (false) Qayd call ended."""
    match = client.create_match(TABLE_PLAY)
    rng = random.Random(11)
    bases: list[Base] = []
    played: list[tuple[int, int, int]] = []
    while match.views[0].phase != types_pb2.PHASE_MATCH_OVER and len(bases) < 6:
        view = match.views[0]
        if view.phase == types_pb2.PHASE_ROUND_REVIEW:
            bases.append(Base(f"review/{len(bases)}", cast(Table, _Latest(match)), keys, stub))
            if len(bases) % 2 and played:
                accused, trick, card = rng.choice(played)
                call = types_pb2.QaydCall(accused=accused, trick=trick, card=card)
                match.call_qayd((accused + 1) % 4, call)  # a false call: the caller's team loses
                bases.append(Base(f"verdict/{len(bases)}", cast(Table, _Latest(match)), keys, stub))
            else:
                match.close_review()
        elif view.phase in (types_pb2.PHASE_AWAITING_DEAL, types_pb2.PHASE_ROUND_OVER):
            played.clear()
            match.deal(view.dealer)
        else:
            seat = view.turn
            legal = [a for a in match.views[seat].legal_actions if not a.play.sawa]
            action = rng.choice(legal)
            for event in match.act(seat, action):
                if event.kind == types_pb2.EVENT_KIND_CARD_PLAYED:
                    played.append((event.seat, len(played) // 4 + 1, event.play.card))
    assert any(b.name.startswith("verdict") for b in bases)
    return bases


def _send(calls: list[_Call], token: bytes) -> list[tuple[grpc.StatusCode, str]]:
    """Send each call with ``token``: the status code and reason of each (OK, "" if accepted)."""
    outcomes = []
    for method, request in calls:
        copy = type(request)()
        copy.CopyFrom(request)
        copy.state = token
        try:
            method(copy, timeout=30)
        except grpc.RpcError:
            refused = refusal(method, copy)
            outcomes.append((refused.code, refused.reason))
        else:
            outcomes.append((grpc.StatusCode.OK, ""))
    return outcomes


def _decodes(plaintext: bytes) -> bool:
    try:
        decode(plaintext)
    except StateInvalidError:
        return False
    return True


def _check(base: Base, keys: KeyRing, plaintext: bytes) -> list[tuple[grpc.StatusCode, str]]:
    outcomes = _send(base.calls, keys.seal(plaintext, base.match_key))
    for code, reason in outcomes:
        assert code not in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN), (base.name, code)
        if code == INVALID_ARGUMENT and reason == "STATE_INVALID":
            assert not _decodes(plaintext)
    if not _decodes(plaintext):
        assert all(o == (INVALID_ARGUMENT, "STATE_INVALID") for o in outcomes), outcomes
    return outcomes


def _values(field: FieldDescriptor) -> st.SearchStrategy[Any]:
    """Values of a field's type, its extremes often."""
    kind = field.type
    if kind == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if kind == FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=48) | st.sampled_from([b"\xff" * 4096, b"\x00" * 100])
    if kind == FieldDescriptor.TYPE_MESSAGE:
        return st.just(None)
    if kind == FieldDescriptor.TYPE_STRING:
        return st.text(max_size=80) | st.just("x" * 5000)
    if kind in (FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_INT32):
        low, high = -(2**31), 2**31 - 1
    elif kind == FieldDescriptor.TYPE_UINT64:
        low, high = 0, 2**64 - 1
    else:
        low, high = 0, 2**32 - 1
    edges = st.sampled_from([low, high, -2, -1, 0, 1, 2, 3, 4, 7, 8, 31, 32, 33, 100, 162, 163])
    return (st.integers(low, high) | st.integers(-3, 40) | edges).filter(lambda v: low <= v <= high)


@st.composite
def forgeries(draw: st.DrawFn, count: int) -> tuple[int, str, Any]:
    index = draw(st.integers(0, count - 1))
    name = draw(st.sampled_from(FORGED_FIELDS) | st.sampled_from(NESTED_FIELDS))
    field = _descriptor(name)
    if field.is_repeated and field.message_type is not None:
        value: Any = draw(st.integers(0, 5) | st.just(1000))  # that many empty entries
    elif field.is_repeated:
        value = draw(st.lists(_values(field), max_size=5) | st.just([7] * 1000))
    else:
        value = draw(_values(field))
    return index, name, value


def _descriptor(name: str) -> FieldDescriptor:
    outer, _, inner = name.partition(".")
    field = MESSAGE.fields_by_name[outer]
    return field.message_type.fields_by_name[inner] if inner else field


def _forge(message: match_state_pb2.MatchState, name: str, value: Any) -> bytes:
    outer, _, inner = name.partition(".")
    if inner:
        _forge_field(getattr(message, outer), _descriptor(name), value)
    else:
        _forge_field(message, _descriptor(name), value)
    return message.SerializeToString()


def _forge_field(message: Any, field: FieldDescriptor, value: Any) -> None:
    name = field.name
    if field.is_repeated and field.message_type is not None:
        del getattr(message, name)[:]
        for _ in range(value):
            getattr(message, name).add()
    elif field.is_repeated:
        del getattr(message, name)[:]
        getattr(message, name).extend(value)
    elif field.type == FieldDescriptor.TYPE_MESSAGE:
        message.ClearField(name)
    else:
        setattr(message, name, value)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_a_forged_field_is_refused_as_state_invalid_never_internal(
    data: st.DataObject, bases: list[Base], keys: KeyRing
) -> None:
    index, name, value = data.draw(forgeries(len(bases)))
    base = bases[index]
    _check(base, keys, _forge(base.message(), name, value))


def test_every_phase_is_forged(bases: list[Base]) -> None:
    phases = {b.name.split("/")[0] for b in bases}
    assert len(phases) >= 5, phases


def _named_forgeries(base: Base) -> dict[str, bytes]:
    """The impossible states found by hand, each refused before this check existed."""
    message = base.message()
    forged: dict[str, bytes] = {}

    def changed(**fields: Any) -> None:
        copy = base.message()
        for name, value in fields.items():
            setattr(copy, name, value)
        forged[", ".join(f"{k}={v}" for k, v in fields.items())] = copy.SerializeToString()

    changed(version=2**64 - 1)
    changed(hand_number=2**32 - 1)
    changed(hand_number=message.version + 1)
    # The next hand or scored round adds one: found by `make forge` (CallQayd scored a round
    # of a token counting 2**32 - 1 rounds, and the new token's count did not fit: INTERNAL).
    for count in (2**31 + 1, 2**32 - 1):
        changed(rounds_scored=count)
        changed(scored_at_hand=count)
        changed(round_deck_hand=count)
        changed(version=2**62, hand_number=count)
    for card in (-2, 32, 100, 2**31 - 1, -(2**31)):
        changed(buy_card=card)
        changed(revealed=card)
    changed(baloot_announced=True)
    return forged


def test_the_impossible_states_found_by_hand_are_refused(bases: list[Base], keys: KeyRing) -> None:
    for base in bases:
        for name, plaintext in _named_forgeries(base).items():
            outcomes = _check(base, keys, plaintext)
            if name == "baloot_announced=True" and base.message().baloot_announced:
                continue  # already announced: nothing was changed
            assert all(o == (INVALID_ARGUMENT, "STATE_INVALID") for o in outcomes), (
                base.name,
                name,
            )


def test_baloot_announced_in_a_sun_or_without_its_holder_is_refused(
    bases: list[Base], keys: KeyRing
) -> None:
    playing = [b for b in bases if b.message().phase == 3 and b.message().tricks]
    assert playing
    for base in playing:
        truth = decode(base.plaintext).state
        contract = truth.contract
        assert contract is not None
        sun = Contract(ContractType.SUN, -1, contract.buyer, multiplier=1)
        split = [
            suit
            for suit in range(4)
            if all(KING_QUEEN[suit] & hand != KING_QUEEN[suit] for hand in truth.full_hands)
        ]
        cases = [encode_contract(sun)]
        hokm = dataclasses.replace(
            contract, type=ContractType.HOKM, multiplier=1, mode=PlayMode.OPEN
        )
        cases += [encode_contract(dataclasses.replace(hokm, trump=suit)) for suit in split]
        for bits in cases:
            message = base.message()
            message.contract = bits
            message.baloot_announced = True
            outcomes = _check(base, keys, message.SerializeToString())
            assert all(o == (INVALID_ARGUMENT, "STATE_INVALID") for o in outcomes)


def test_the_untouched_tokens_still_play(bases: list[Base], keys: KeyRing) -> None:
    for base in bases:
        outcomes = _check(base, keys, base.plaintext)
        assert all(code == grpc.StatusCode.OK for code, _ in outcomes), (base.name, outcomes)
