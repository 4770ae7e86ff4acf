"""How the proto enums and the rule-set flags pair with the core's, in both directions.

A proto enum value is named after its core member: the enum's name in UPPER_SNAKE, an
underscore, then the member's name (``BidKind.SUN`` is ``BID_KIND_SUN``); zero is always
``…_UNSPECIFIED`` and pairs with no member. The tables of :mod:`~baloot_engine.api.inbound`
(proto number → core member) and of :mod:`~baloot_engine.api.outbound` (core member → proto
number) are both built here, from that one naming rule, so the two directions always agree.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Any, Final

from baloot.v1 import rules_pb2


def enum_prefix(enum_name: str) -> str:
    """The prefix of every value of a proto enum: ``BidKind`` gives ``BID_KIND_``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", enum_name).upper() + "_"


def to_core(proto_enum: Any, core_enum: type[Enum]) -> dict[int, Any]:
    """Each proto enum number that names a member of ``core_enum``, with that member."""
    prefix = enum_prefix(proto_enum.DESCRIPTOR.name)
    return {proto_enum.Value(prefix + member.name): member for member in core_enum}


def to_wire(proto_enum: Any, core_enum: type[Enum]) -> dict[Any, Any]:
    """Each member of ``core_enum`` with its proto enum number (the inverse of :func:`to_core`).

    The numbers are typed ``Any``: each is of its own proto enum's ``ValueType``.
    """
    return {member: number for number, member in to_core(proto_enum, core_enum).items()}


# The names of the flags of the proto ``RuleSet``, in field order; they equal the core's.
RULE_FLAGS: Final = tuple(f.name for f in rules_pb2.RuleSet.DESCRIPTOR.fields if f.name != "preset")
