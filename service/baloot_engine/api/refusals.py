"""Refusals without gRPC: the stable reasons of this layer and :class:`ApiError`.

A refusal names its canonical status by name (:class:`Code`, the names of gRPC's status
codes), so the match layer (:mod:`baloot_engine.api.matches`) can refuse without importing
gRPC; :mod:`baloot_engine.api.status` turns a refusal into the status a caller reads.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Final

from baloot_engine.rules import ErrorKind, RuleError

if TYPE_CHECKING:
    import grpc

STATE_INVALID: Final = "STATE_INVALID"
STALE_STATE: Final = "STALE_STATE"
CREDENTIAL_INVALID: Final = "CREDENTIAL_INVALID"
PRESET_DECK_DISABLED: Final = "PRESET_DECK_DISABLED"
REQUEST_INVALID: Final = "REQUEST_INVALID"
OVERLOADED: Final = "OVERLOADED"
LEDGER_UNAVAILABLE: Final = "LEDGER_UNAVAILABLE"
WORKER_STOPPED: Final = "WORKER_STOPPED"
MATCH_UNKNOWN: Final = "MATCH_UNKNOWN"
RECORD_TOO_LARGE: Final = "RECORD_TOO_LARGE"
RECORD_DIVERGES: Final = "RECORD_DIVERGES"
SOLVER_DEADLINE: Final = "SOLVER_DEADLINE"
ROUND_NOT_PLAYED_OUT: Final = "ROUND_NOT_PLAYED_OUT"
RECORD_FORMAT_UNKNOWN: Final = "RECORD_FORMAT_UNKNOWN"
RECORD_RULES_INCONSISTENT: Final = "RECORD_RULES_INCONSISTENT"
DEAL_NOT_COMMITTED: Final = "DEAL_NOT_COMMITTED"


class Code(enum.Enum):
    """The canonical status of a refusal (the names of gRPC's status codes)."""

    INVALID_ARGUMENT = "INVALID_ARGUMENT"
    FAILED_PRECONDITION = "FAILED_PRECONDITION"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    RESOURCE_EXHAUSTED = "RESOURCE_EXHAUSTED"
    UNAVAILABLE = "UNAVAILABLE"
    DEADLINE_EXCEEDED = "DEADLINE_EXCEEDED"
    UNAUTHENTICATED = "UNAUTHENTICATED"


class ApiError(Exception):
    """A refusal on its way to the caller: status code, stable reason, message, facts, and
    for a refusal that time may lift, how many seconds to wait before sending the same request
    again (``retry_after``: a ``google.rpc.RetryInfo`` in the status, and ``retry_after_ms`` in
    the ErrorInfo's metadata)."""

    def __init__(
        self,
        code: Code | grpc.StatusCode,
        reason: str,
        message: str,
        metadata: dict[str, str] | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.code = Code[code.name]
        self.reason = reason
        self.message = message
        self.metadata = dict(metadata or {})
        self.retry_after = retry_after
        if retry_after is not None:
            self.metadata["retry_after_ms"] = str(max(1, round(retry_after * 1000)))

    def __reduce__(self) -> tuple[object, ...]:
        # Whole across processes (an analysis refuses its records in the analysis lane).
        return (_rebuild, (self.code.name, self.reason, self.message, self.metadata))

    @classmethod
    def from_rule_error(cls, error: RuleError) -> ApiError:
        """The refusal of a rule error: malformed input, or an action the rules forbid now."""
        code = (
            Code.INVALID_ARGUMENT if error.kind is ErrorKind.MALFORMED else Code.FAILED_PRECONDITION
        )
        metadata = dict(error.details)
        if error.allowed:
            metadata["allowed"] = allowed_codes(error.allowed)
        return cls(code, error.reason, error.message, metadata)

    def to_status(self) -> grpc.Status:
        """The rich status (code, message, ErrorInfo) for ``abort_with_status``."""
        from baloot_engine.api.status import status_of  # gRPC only when a status is made

        return status_of(self)


def _rebuild(code: str, reason: str, message: str, metadata: dict[str, str]) -> ApiError:
    return ApiError(Code[code], reason, message, metadata)


def allowed_codes(allowed: tuple[str, ...]) -> str:
    """The ``allowed`` metadata: the legal alternatives as one comma-separated list of codes.

    Every entry is one code without spaces, whatever the action: a card code (``7H``), or an
    action's name with its suit or mode after a colon (``pass``, ``hokm:S``, ``double:open``),
    or a project kind (``sira``). The rules core writes a qualifier after a space.
    """
    return ",".join(code.replace(" ", ":") for code in allowed)


def state_invalid(why: str) -> ApiError:
    """A token that does not open or holds an impossible state."""
    return ApiError(Code.INVALID_ARGUMENT, STATE_INVALID, f"state token refused: {why}")


def request_invalid(why: str) -> ApiError:
    """A malformed request no other reason covers."""
    return ApiError(Code.INVALID_ARGUMENT, REQUEST_INVALID, why)


def worker_stopped(message: str) -> ApiError:
    """UNAVAILABLE, WORKER_STOPPED: the process computing the answer stopped; nothing was done,
    and the same request may be sent again."""
    return ApiError(
        Code.UNAVAILABLE,
        WORKER_STOPPED,
        f"{message}; nothing was done: send the same request again",
    )


def overloaded(why: str) -> ApiError:
    """A call refused before any work because the process runs as many calls as it accepts."""
    return ApiError(Code.RESOURCE_EXHAUSTED, OVERLOADED, why)


def credential_invalid(why: str) -> ApiError:
    """A credential that does not entitle the caller."""
    return ApiError(Code.PERMISSION_DENIED, CREDENTIAL_INVALID, why)


def bot_call_refused() -> ApiError:
    """A bot call (SuggestAction, ApplyBotAction) with another credential than the host's: the
    same refusal for both, whatever the seat or the bot's level."""
    return credential_invalid(
        "only the host credential may call a bot (SuggestAction, ApplyBotAction)"
    )


def preset_deck_disabled(why: str) -> ApiError:
    """A preset deck this server or this match does not accept."""
    return ApiError(Code.PERMISSION_DENIED, PRESET_DECK_DISABLED, why)


def stale_state(version: int, why: str, latest: str | None = None) -> ApiError:
    """A token that is not the state the caller expected, or not the latest of its match."""
    metadata = {"state_version": str(version)}
    if latest is not None:
        metadata["latest_version"] = latest
    return ApiError(Code.FAILED_PRECONDITION, STALE_STATE, why, metadata)
