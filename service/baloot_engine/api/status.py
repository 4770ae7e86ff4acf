"""The one mapping from refusals to gRPC statuses with ``google.rpc.ErrorInfo`` details.

``INVALID_ARGUMENT`` for malformed input, ``FAILED_PRECONDITION`` for a well-formed action
the rules forbid now (and a stale ``expected_version``), ``PERMISSION_DENIED`` for
credentials and disabled preset decks, ``RESOURCE_EXHAUSTED`` for a call refused because the
process is at its bound of concurrent calls, ``UNAVAILABLE`` for a match ledger out of reach
(retryable). The reason is the stable code of the rules core
or of this layer; the domain is ``baloot.v1``. A ``google.rpc.LocalizedMessage`` follows the
ErrorInfo: the refusal in the call's language, English or Arabic (:mod:`.messages`).
"""

from __future__ import annotations

from typing import Final

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from baloot_engine.api.messages import LOCALES, call_language, localized
from baloot_engine.api.refusals import (
    CREDENTIAL_INVALID,
    LEDGER_UNAVAILABLE,
    MATCH_UNKNOWN,
    OVERLOADED,
    PRESET_DECK_DISABLED,
    RECORD_DIVERGES,
    RECORD_TOO_LARGE,
    REQUEST_INVALID,
    STALE_STATE,
    STATE_INVALID,
    ApiError,
    Code,
    allowed_codes,
    credential_invalid,
    overloaded,
    request_invalid,
    state_invalid,
)

DOMAIN: Final = "baloot.v1"


def status_of(refusal: ApiError) -> grpc.Status:
    """The rich status of a refusal, for ``abort_with_status``: code, message, then in its
    details the ErrorInfo and a LocalizedMessage in the call's language (English when the
    catalogue has no sentence for the reason: the status message itself)."""
    info = error_details_pb2.ErrorInfo(
        reason=refusal.reason, domain=DOMAIN, metadata=refusal.metadata
    )
    language = call_language()
    text = localized(refusal.reason, refusal.metadata, language)
    if text is None:
        language, text = "en", refusal.message
    message = error_details_pb2.LocalizedMessage(locale=LOCALES[language], message=text)
    details = [any_pb2.Any(), any_pb2.Any()]
    details[0].Pack(info)
    details[1].Pack(message)
    if refusal.retry_after is not None:
        delay = duration_pb2.Duration()
        delay.FromMilliseconds(max(1, round(refusal.retry_after * 1000)))
        retry = any_pb2.Any()
        retry.Pack(error_details_pb2.RetryInfo(retry_delay=delay))
        details.append(retry)
    code = _CODES[refusal.code]
    status = status_pb2.Status(code=code, message=refusal.message, details=details)
    return rpc_status.to_status(status)


_CODES: Final = {code: getattr(code_pb2, code.name) for code in Code}

__all__ = [
    "CREDENTIAL_INVALID",
    "DOMAIN",
    "LEDGER_UNAVAILABLE",
    "MATCH_UNKNOWN",
    "OVERLOADED",
    "PRESET_DECK_DISABLED",
    "RECORD_DIVERGES",
    "RECORD_TOO_LARGE",
    "REQUEST_INVALID",
    "STALE_STATE",
    "STATE_INVALID",
    "ApiError",
    "allowed_codes",
    "credential_invalid",
    "overloaded",
    "request_invalid",
    "state_invalid",
    "status_of",
]
