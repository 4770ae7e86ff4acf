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
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from baloot_engine.api.messages import LOCALES, call_language, localized
from baloot_engine.rules.errors import ErrorKind, RuleError

DOMAIN: Final = "baloot.v1"

STATE_INVALID: Final = "STATE_INVALID"
STALE_STATE: Final = "STALE_STATE"
CREDENTIAL_INVALID: Final = "CREDENTIAL_INVALID"
PRESET_DECK_DISABLED: Final = "PRESET_DECK_DISABLED"
REQUEST_INVALID: Final = "REQUEST_INVALID"
OVERLOADED: Final = "OVERLOADED"
LEDGER_UNAVAILABLE: Final = "LEDGER_UNAVAILABLE"
MATCH_UNKNOWN: Final = "MATCH_UNKNOWN"
RECORD_TOO_LARGE: Final = "RECORD_TOO_LARGE"
RECORD_DIVERGES: Final = "RECORD_DIVERGES"


class ApiError(Exception):
    """A refusal on its way to the caller: status code, stable reason, message, facts."""

    def __init__(
        self,
        code: grpc.StatusCode,
        reason: str,
        message: str,
        metadata: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata = dict(metadata or {})

    @classmethod
    def from_rule_error(cls, error: RuleError) -> ApiError:
        """The status of a refusal by the rules core."""
        code = (
            grpc.StatusCode.INVALID_ARGUMENT
            if error.kind is ErrorKind.MALFORMED
            else grpc.StatusCode.FAILED_PRECONDITION
        )
        metadata = dict(error.details)
        if error.allowed:
            metadata["allowed"] = allowed_codes(error.allowed)
        return cls(code, error.reason, error.message, metadata)

    def to_status(self) -> grpc.Status:
        """The rich status for ``abort_with_status``: code, message, then in its details the
        ErrorInfo and a LocalizedMessage in the call's language (English when the catalogue
        has no sentence for the reason: the status message itself)."""
        info = error_details_pb2.ErrorInfo(
            reason=self.reason, domain=DOMAIN, metadata=self.metadata
        )
        language = call_language()
        text = localized(self.reason, self.metadata, language)
        if text is None:
            language, text = "en", self.message
        message = error_details_pb2.LocalizedMessage(locale=LOCALES[language], message=text)
        details = [any_pb2.Any(), any_pb2.Any()]
        details[0].Pack(info)
        details[1].Pack(message)
        status = status_pb2.Status(code=_CODES[self.code], message=self.message, details=details)
        return rpc_status.to_status(status)


def allowed_codes(allowed: tuple[str, ...]) -> str:
    """The ``allowed`` metadata: the legal alternatives as one comma-separated list of codes.

    Every entry is one code without spaces, whatever the action: a card code (``7H``), or an
    action's name with its suit or mode after a colon (``pass``, ``hokm:S``, ``double:open``),
    or a project kind (``sira``). The rules core writes a qualifier after a space.
    """
    return ",".join(code.replace(" ", ":") for code in allowed)


def state_invalid(why: str) -> ApiError:
    """A token that does not open or holds an impossible state."""
    return ApiError(grpc.StatusCode.INVALID_ARGUMENT, STATE_INVALID, f"state token refused: {why}")


def request_invalid(why: str) -> ApiError:
    """A malformed request no other reason covers."""
    return ApiError(grpc.StatusCode.INVALID_ARGUMENT, REQUEST_INVALID, why)


def overloaded(why: str) -> ApiError:
    """A call refused before any work because the process runs as many calls as it accepts."""
    return ApiError(grpc.StatusCode.RESOURCE_EXHAUSTED, OVERLOADED, why)


def credential_invalid(why: str) -> ApiError:
    """A credential that does not entitle the caller."""
    return ApiError(grpc.StatusCode.PERMISSION_DENIED, CREDENTIAL_INVALID, why)


_CODES: Final = {
    grpc.StatusCode.INVALID_ARGUMENT: code_pb2.INVALID_ARGUMENT,
    grpc.StatusCode.FAILED_PRECONDITION: code_pb2.FAILED_PRECONDITION,
    grpc.StatusCode.PERMISSION_DENIED: code_pb2.PERMISSION_DENIED,
    grpc.StatusCode.RESOURCE_EXHAUSTED: code_pb2.RESOURCE_EXHAUSTED,
    grpc.StatusCode.UNAVAILABLE: code_pb2.UNAVAILABLE,
}
