"""The naming rule that pairs proto enums with core enums: every core member has exactly one
non-zero proto value, the two tables are inverses, and the rule-set flags are the core's."""

from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Any

import pytest

from baloot.v1 import engine_service_pb2 as service_pb
from baloot.v1 import types_pb2
from baloot_engine.api.enums import RULE_FLAGS, enum_prefix, to_core, to_wire
from baloot_engine.bots import Level
from baloot_engine.rules.actions import BidKind, DoublingCall, EventKind, RedealReason
from baloot_engine.rules.contract import ContractType, PlayMode
from baloot_engine.rules.projects import ProjectKind
from baloot_engine.rules.ruleset import RuleSet
from baloot_engine.rules.state import Phase

PAIRS = [
    (types_pb2.BidKind, BidKind),
    (types_pb2.DoublingCall, DoublingCall),
    (types_pb2.PlayMode, PlayMode),
    (types_pb2.ProjectKind, ProjectKind),
    (types_pb2.ContractType, ContractType),
    (types_pb2.Phase, Phase),
    (types_pb2.EventKind, EventKind),
    (types_pb2.RedealReason, RedealReason),
    (service_pb.BotLevel, Level),
]


def test_the_prefix_is_the_enum_name_in_upper_snake_case() -> None:
    assert enum_prefix("BidKind") == "BID_KIND_"
    assert enum_prefix("Phase") == "PHASE_"
    assert enum_prefix("SunPriorityClaim") == "SUN_PRIORITY_CLAIM_"


@pytest.mark.parametrize(
    ("proto_enum", "core_enum"), PAIRS, ids=lambda p: getattr(p, "__name__", "")
)
def test_each_core_member_has_one_proto_value_and_back(
    proto_enum: Any, core_enum: type[Enum]
) -> None:
    members = to_core(proto_enum, core_enum)
    numbers = to_wire(proto_enum, core_enum)
    assert set(members.values()) == set(core_enum)
    assert {numbers[m]: m for m in core_enum} == members
    assert 0 not in members
    prefix = enum_prefix(proto_enum.DESCRIPTOR.name)
    for member, number in numbers.items():
        assert proto_enum.Name(number) == prefix + member.name
    # Every value the contract defines, but the unspecified zero, names a core member.
    assert sorted(members) == sorted(v.number for v in proto_enum.DESCRIPTOR.values if v.number)


def test_the_rule_flags_are_the_core_rule_set_fields_in_order() -> None:
    assert tuple(f.name for f in dataclasses.fields(RuleSet)) == RULE_FLAGS
