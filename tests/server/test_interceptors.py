"""The pieces of the telemetry interceptor: the request id it keeps or makes, and the method
names it labels the metrics with."""

from __future__ import annotations

import uuid

import pytest

from baloot_engine.server.interceptors import new_request_id, request_id_from, split_method


def test_a_well_formed_request_id_is_kept() -> None:
    assert request_id_from([("x-request-id", "abc-123_x.y:z")]) == "abc-123_x.y:z"


@pytest.mark.parametrize(
    "metadata", [None, [], [("x-request-id", "")], [("x-request-id", "a b")], [("x-other", "1")]]
)
def test_a_missing_or_malformed_request_id_is_replaced(
    metadata: list[tuple[str, str]] | None,
) -> None:
    generated = request_id_from(metadata)
    assert len(generated) == 32
    assert int(generated, 16) >= 0


def test_a_new_request_id_is_a_random_uuid4_in_hex() -> None:
    ids = {new_request_id() for _ in range(200)}
    assert len(ids) == 200
    for generated in ids:
        parsed = uuid.UUID(hex=generated)
        assert (parsed.version, parsed.variant, parsed.hex) == (4, uuid.RFC_4122, generated)


def test_methods_split_into_service_and_name() -> None:
    assert split_method("/baloot.v1.BalootEngineService/PlayCard") == (
        "baloot.v1.BalootEngineService",
        "PlayCard",
    )
    assert split_method("garbage") == ("unknown", "garbage")
