"""Refusals to statuses: a rule error becomes INVALID_ARGUMENT when malformed and
FAILED_PRECONDITION otherwise, and every status carries an ErrorInfo with the reason, the
domain and the facts."""

from __future__ import annotations

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from baloot_engine.api.status import (
    DOMAIN,
    ApiError,
    credential_invalid,
    request_invalid,
    state_invalid,
)
from baloot_engine.rules import errors
from baloot_engine.rules.errors import ErrorKind, RuleError, malformed


def _error_info(status: grpc.Status) -> tuple[int, str, error_details_pb2.ErrorInfo]:
    """The code, message and ErrorInfo a client reads from the trailing metadata."""
    [(key, value)] = status.trailing_metadata
    assert key == "grpc-status-details-bin"
    rich = status_pb2.Status.FromString(value)
    detail, localized = rich.details  # the ErrorInfo first, then the LocalizedMessage
    assert localized.Is(error_details_pb2.LocalizedMessage.DESCRIPTOR)
    info = error_details_pb2.ErrorInfo()
    assert detail.Unpack(info)
    return rich.code, rich.message, info


def test_a_malformed_request_is_an_invalid_argument() -> None:
    error = ApiError.from_rule_error(malformed(errors.INVALID_CARD, "a card code is 0-31"))
    status = error.to_status()
    assert status.code is grpc.StatusCode.INVALID_ARGUMENT
    code, message, info = _error_info(status)
    assert (code, message) == (grpc.StatusCode.INVALID_ARGUMENT.value[0], "a card code is 0-31")
    assert (info.reason, info.domain) == (errors.INVALID_CARD, DOMAIN)


def test_a_forbidden_action_is_a_failed_precondition_naming_the_allowed_ones() -> None:
    rule_error = RuleError(
        errors.MUST_FOLLOW_SUIT,
        "follow suit",
        kind=ErrorKind.FORBIDDEN,
        allowed=("JH", "9H"),
        details={"led": "hearts"},
    )
    status = ApiError.from_rule_error(rule_error).to_status()
    assert status.code is grpc.StatusCode.FAILED_PRECONDITION
    _, _, info = _error_info(status)
    assert info.reason == errors.MUST_FOLLOW_SUIT
    assert dict(info.metadata) == {"led": "hearts", "allowed": "JH,9H"}


@pytest.mark.parametrize(
    ("error", "code", "reason"),
    [
        (state_invalid("truncated"), grpc.StatusCode.INVALID_ARGUMENT, "STATE_INVALID"),
        (request_invalid("no state"), grpc.StatusCode.INVALID_ARGUMENT, "REQUEST_INVALID"),
        (credential_invalid("wrong"), grpc.StatusCode.PERMISSION_DENIED, "CREDENTIAL_INVALID"),
    ],
)
def test_the_api_refusals_have_their_code_and_reason(
    error: ApiError, code: grpc.StatusCode, reason: str
) -> None:
    status = error.to_status()
    assert status.code is code
    _, message, info = _error_info(status)
    assert message == error.message
    assert (info.reason, info.domain) == (reason, DOMAIN)
