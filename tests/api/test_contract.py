"""The published contract agrees with the rules core and with its own conventions."""

from __future__ import annotations

import dataclasses
import enum

import pytest
from google.protobuf.descriptor import EnumDescriptor, FieldDescriptor

from baloot.v1 import engine_service_pb2, errors_pb2, rules_pb2, types_pb2
from baloot_engine.lanes import errors as lane_errors
from baloot_engine.rules import cards, errors, ruleset

RULESET = rules_pb2.RuleSet.DESCRIPTOR
API_REASONS = {
    "ANALYSIS_BUDGET_INVALID",
    "ANALYSIS_DEADLINE",
    "STATE_INVALID",
    "STALE_STATE",
    "CREDENTIAL_INVALID",
    "PRESET_DECK_DISABLED",
    "REQUEST_INVALID",
    "OVERLOADED",
    "LEDGER_UNAVAILABLE",
    "MATCH_UNKNOWN",
    "RECORD_TOO_LARGE",
    "RECORD_DIVERGES",
    "SOLVER_DEADLINE",
    "ROUND_NOT_PLAYED_OUT",
    "RECORD_FORMAT_UNKNOWN",
    "RECORD_RULES_INCONSISTENT",
    "DEAL_NOT_COMMITTED",
    "WORKER_STOPPED",
}


def enum_suffixes(descriptor: EnumDescriptor) -> list[str]:
    """The value names of a proto enum without its prefix and without UNSPECIFIED."""
    prefix = "".join(
        f"_{c}" if c.isupper() and i else c.upper() for i, c in enumerate(descriptor.name)
    ).upper()
    prefix = prefix.replace("__", "_") + "_"
    names = [value.name for value in descriptor.values]
    assert names[0] == prefix + "UNSPECIFIED"
    assert all(name.startswith(prefix) for name in names)
    return [name.removeprefix(prefix) for name in names[1:]]


def test_the_ruleset_has_one_optional_field_per_flag_in_the_core_order() -> None:
    flags = [field.name for field in dataclasses.fields(ruleset.RuleSet)]
    proto_fields = [field.name for field in RULESET.fields]
    assert proto_fields == ["preset", *flags]
    for field in RULESET.fields[1:]:
        assert field.has_presence, f"{field.name} must be optional: unset means the preset's value"


@pytest.mark.parametrize("flag", list(dataclasses.fields(ruleset.RuleSet)), ids=lambda f: f.name)
def test_each_flag_has_the_type_and_values_of_the_core(flag: dataclasses.Field[object]) -> None:
    field = RULESET.fields_by_name[flag.name]
    default = getattr(ruleset.SEEDS, flag.name)
    if isinstance(default, bool):
        assert field.type == FieldDescriptor.TYPE_BOOL
    elif isinstance(default, int):
        assert field.type == FieldDescriptor.TYPE_UINT32
    else:
        assert isinstance(default, enum.Enum)
        enum_type = type(default)
        assert field.enum_type.name == enum_type.__name__
        assert enum_suffixes(field.enum_type) == [member.name for member in enum_type]


def test_the_preset_enum_names_the_core_presets() -> None:
    assert enum_suffixes(rules_pb2.Preset.DESCRIPTOR) == [p.name for p in ruleset.Preset]


def test_every_reason_of_the_core_and_the_api_is_documented() -> None:
    core = {
        value
        for name, value in vars(errors).items()
        if name.isupper() and isinstance(value, str) and value == name
    }
    documented = set(enum_suffixes(errors_pb2.ErrorReason.DESCRIPTOR))
    lanes = {
        value
        for name, value in vars(lane_errors).items()
        if name.isupper() and isinstance(value, str) and value == name
    }
    assert core | API_REASONS | lanes == documented


def test_suit_and_rank_enums_follow_the_card_encoding() -> None:
    suits = enum_suffixes(types_pb2.Suit.DESCRIPTOR)
    assert [name[0] for name in suits] == list(cards.SUIT_LETTERS)
    assert [types_pb2.Suit.Value(f"SUIT_{name}") - 1 for name in suits] == list(cards.SUITS)
    ranks = enum_suffixes(types_pb2.Rank.DESCRIPTOR)
    assert [types_pb2.Rank.Value(f"RANK_{name}") - 1 for name in ranks] == list(cards.RANKS)
    short = {"SEVEN": "7", "EIGHT": "8", "NINE": "9", "TEN": "10"}
    assert [short.get(name, name[0]) for name in ranks] == list(cards.RANK_NAMES)


def test_each_rpc_has_its_own_request_and_response() -> None:
    service = engine_service_pb2.DESCRIPTOR.services_by_name["BalootEngineService"]
    assert service.full_name == "baloot.v1.BalootEngineService"
    assert {m.name for m in service.methods} == {
        "CreateMatch",
        "DealRound",
        "PlaceBid",
        "CallDouble",
        "DeclareProjects",
        "PlayCard",
        "GetScore",
        "GetView",
        "ListLegalActions",
        "ScoreRound",
        "SuggestAction",
        "ApplyBotAction",
        "VerifyRecord",
        "ReplayRecord",
        "GetAttestationKeys",
        "AnalyzeRecord",
        "FairPlayReport",
        "CallQayd",
        "SolveDeal",
    }
    for method in service.methods:
        assert method.input_type.name == f"{method.name}Request"
        assert method.output_type.name == f"{method.name}Response"


@pytest.mark.parametrize(
    "request_type",
    [
        engine_service_pb2.DealRoundRequest,
        engine_service_pb2.PlaceBidRequest,
        engine_service_pb2.CallDoubleRequest,
        engine_service_pb2.DeclareProjectsRequest,
        engine_service_pb2.PlayCardRequest,
        engine_service_pb2.CallQaydRequest,
    ],
)
def test_action_requests_share_one_shape(request_type: type) -> None:
    fields = request_type.DESCRIPTOR.fields_by_name
    assert fields["state"].number == 1
    assert fields["state"].type == FieldDescriptor.TYPE_BYTES
    assert fields["credential"].number == 2
    assert fields["seat"].number == 3
    assert fields["expected_version"].number == 5
    assert fields["expected_version"].has_presence


def test_state_changing_responses_share_one_shape() -> None:
    for name in ("DealRound", "PlaceBid", "CallDouble", "DeclareProjects", "PlayCard", "CallQayd"):
        fields = getattr(engine_service_pb2, f"{name}Response").DESCRIPTOR.fields_by_name
        assert [(f.name, f.number) for f in fields.values()] == [
            ("state", 1),
            ("state_version", 2),
            ("events", 3),
            ("views", 4),
        ]
