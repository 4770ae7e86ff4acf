"""Request size limits: every repeated field of every request has one, checked before the
request is read, so an oversized field is refused at the cost of one length."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor

from baloot.v1 import engine_service_pb2 as service_pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot.v1 import types_pb2
from baloot_engine.api import inbound
from baloot_engine.rules.errors import ErrorKind, RuleError

from .conftest import expect_refusal

INVALID_ARGUMENT = grpc.StatusCode.INVALID_ARGUMENT

# The request of every RPC (AnalyzeRecord's is in analysis.proto), and the other requests of
# engine_service.proto.
REQUESTS = [
    *(m.input_type for m in service_pb.DESCRIPTOR.services_by_name["BalootEngineService"].methods),
    *(
        message
        for name, message in service_pb.DESCRIPTOR.message_types_by_name.items()
        if name.endswith("Request")
    ),
]


# What a record holds is checked by records.check_size, not by the limits table.
CHECKED_BY_RECORDS = {"MatchRecord"}


def _repeated_fields(message: Descriptor, seen: set[str]) -> set[tuple[str, str]]:
    """Every (message, field) repeated field reachable from ``message``."""
    if message.full_name in seen:
        return set()
    seen.add(message.full_name)
    found: set[tuple[str, str]] = set()
    for field in message.fields:
        if field.is_repeated:
            found.add((message.name, field.name))
        if field.message_type is not None and message.name not in CHECKED_BY_RECORDS:
            found |= _repeated_fields(field.message_type, seen)
    return found


def test_every_repeated_field_of_a_request_has_a_limit() -> None:
    seen: set[str] = set()
    fields: set[tuple[str, str]] = set()
    for request in REQUESTS:
        fields |= _repeated_fields(request, seen)
    assert fields, "the requests have repeated fields"
    assert fields == set(inbound.REPEATED_LIMITS)


def _path_to(message: Descriptor, name: str, seen: frozenset[str]) -> list[str] | None:
    """The field names leading from ``message`` to a message called ``name``."""
    if message.name == name:
        return []
    for field in message.fields:
        inner = field.message_type
        if inner is not None and inner.full_name not in seen:
            rest = _path_to(inner, name, seen | {inner.full_name})
            if rest is not None:
                return [field.name, *rest]
    return None


def _request_with(message_name: str, field: str, size: int) -> Any:
    """A request whose ``message_name.field`` holds ``size`` entries (the first request that
    holds such a message; every message on the way is a single entry)."""
    for descriptor in REQUESTS:
        path = _path_to(descriptor, message_name, frozenset({descriptor.full_name}))
        if path is not None:
            break
    else:
        raise AssertionError(f"no request holds {message_name}")
    request: Any = message_factory.GetMessageClass(descriptor)()
    target: Any = request
    for name in path:
        inner = getattr(target, name)
        target = inner.add() if target.DESCRIPTOR.fields_by_name[name].is_repeated else inner
    values = getattr(target, field)
    if target.DESCRIPTOR.fields_by_name[field].message_type is not None:
        for _ in range(size):
            values.add()
    else:
        values.extend([1] * size)
    return request


@pytest.mark.parametrize("key", sorted(inbound.REPEATED_LIMITS))
def test_a_field_over_its_limit_is_refused_with_its_reason(key: tuple[str, str]) -> None:
    limit, reason = inbound.REPEATED_LIMITS[key]
    inbound.check_sizes(_request_with(*key, limit))  # at the limit: left to the conversion
    with pytest.raises(RuleError) as refused:
        inbound.check_sizes(_request_with(*key, limit + 1))
    error = refused.value
    assert (error.reason, error.kind) == (reason, ErrorKind.MALFORMED)
    assert error.details["limit"] == str(limit)
    assert error.details["field"].endswith(key[1])


def test_huge_fields_are_refused_over_a_channel(stub: pb_grpc.BalootEngineServiceStub) -> None:
    request = service_pb.ScoreRoundRequest(contract_type=types_pb2.CONTRACT_TYPE_SUN)
    request.awarded_projects.extend(
        service_pb.AwardedProject(team=0, kind=types_pb2.PROJECT_KIND_SIRA) for _ in range(50_000)
    )
    refused = expect_refusal(stub.ScoreRound, request, INVALID_ARGUMENT, "INVALID_ROUND_FACTS")
    assert refused.metadata == {"field": "awarded_projects", "limit": "16"}
    create = service_pb.CreateMatchRequest(starting_scores=[0] * 100_000)
    refused = expect_refusal(stub.CreateMatch, create, INVALID_ARGUMENT, "REQUEST_INVALID")
    assert refused.metadata["field"] == "starting_scores"
