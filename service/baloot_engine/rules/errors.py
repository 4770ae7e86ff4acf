"""The one exception type of the rules core and its stable reason codes.

A reason is a stable UPPER_SNAKE string that callers may branch on; the gRPC layer
copies it into ``google.rpc.ErrorInfo.reason``. ``kind`` tells the API layer which
status family applies: an action the rules forbid now, or input that is malformed.
"""

from __future__ import annotations

from enum import Enum
from typing import Final


class ErrorKind(Enum):
    """What sort of mistake a :class:`RuleError` reports."""

    FORBIDDEN = "forbidden"  # well-formed, but the rules forbid it now
    MALFORMED = "malformed"  # impossible or inconsistent input


# Reasons for actions the rules forbid in the current state.
WRONG_PHASE: Final = "WRONG_PHASE"
NOT_YOUR_TURN: Final = "NOT_YOUR_TURN"
BID_NOT_ALLOWED: Final = "BID_NOT_ALLOWED"
ASHKAL_NOT_ALLOWED: Final = "ASHKAL_NOT_ALLOWED"
SUIT_NOT_ALLOWED: Final = "SUIT_NOT_ALLOWED"
DOUBLE_NOT_ALLOWED: Final = "DOUBLE_NOT_ALLOWED"
MODE_REQUIRED: Final = "MODE_REQUIRED"
KAWESH_NOT_ALLOWED: Final = "KAWESH_NOT_ALLOWED"
CARD_NOT_IN_HAND: Final = "CARD_NOT_IN_HAND"
MUST_FOLLOW_SUIT: Final = "MUST_FOLLOW_SUIT"
MUST_TRUMP: Final = "MUST_TRUMP"
MUST_OVERTRUMP: Final = "MUST_OVERTRUMP"
TRUMP_LEAD_LOCKED: Final = "TRUMP_LEAD_LOCKED"
AKKA_NOT_ALLOWED: Final = "AKKA_NOT_ALLOWED"
PROJECT_NOT_HELD: Final = "PROJECT_NOT_HELD"
DECLARATION_CLOSED: Final = "DECLARATION_CLOSED"
SAWA_INVALID: Final = "SAWA_INVALID"
SAWA_NOT_ALLOWED: Final = "SAWA_NOT_ALLOWED"
MATCH_OVER: Final = "MATCH_OVER"
QAYD_NOT_ALLOWED: Final = "QAYD_NOT_ALLOWED"
QAYD_INVALID: Final = "QAYD_INVALID"
QAYD_WRONG: Final = "QAYD_WRONG"  # a wrong call under qayd_false_call = no_penalty
REVIEW_NOT_OPEN: Final = "REVIEW_NOT_OPEN"
RECORD_MISMATCH: Final = "RECORD_MISMATCH"  # a replayed record ends a round otherwise

# Reasons for malformed or impossible input.
INVALID_CARD: Final = "INVALID_CARD"
INVALID_DECK: Final = "INVALID_DECK"
INVALID_SEAT: Final = "INVALID_SEAT"
INVALID_RULES: Final = "INVALID_RULES"
INVALID_ACTION: Final = "INVALID_ACTION"
INVALID_ROUND_FACTS: Final = "INVALID_ROUND_FACTS"
STATE_INVALID: Final = "STATE_INVALID"


class RuleError(Exception):
    """An action or input refused by the rules, with a stable reason code.

    ``allowed`` lists the legal alternatives (as display strings) when there are any,
    ``details`` carries extra machine-readable facts (seat, card…) as strings.
    """

    def __init__(
        self,
        reason: str,
        message: str,
        *,
        kind: ErrorKind = ErrorKind.FORBIDDEN,
        allowed: tuple[str, ...] = (),
        details: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.kind = kind
        self.allowed = allowed
        self.details = dict(details or {})

    def __repr__(self) -> str:
        return f"RuleError({self.reason!r}, {self.message!r})"

    def __reduce__(self) -> tuple[object, ...]:
        # Whole across processes (a bot's refusal comes back from its worker process).
        return (_rebuild, (self.reason, self.message, self.kind, self.allowed, self.details))


def _rebuild(
    reason: str,
    message: str,
    kind: ErrorKind,
    allowed: tuple[str, ...],
    details: dict[str, str],
) -> RuleError:
    return RuleError(reason, message, kind=kind, allowed=allowed, details=details)


def malformed(reason: str, message: str, **details: str) -> RuleError:
    """Return a :class:`RuleError` for impossible or inconsistent input."""
    return RuleError(reason, message, kind=ErrorKind.MALFORMED, details=details)


def not_your_turn(turn: int, seat: int, doing: str = "act") -> RuleError:
    """The refusal of an action by ``seat`` while seat ``turn`` is to ``doing`` (NOT_YOUR_TURN);
    ``turn`` -1: no seat is (the ``turn`` metadata is then left out)."""
    if turn < 0:
        return RuleError(NOT_YOUR_TURN, f"no seat is to {doing} now, not seat {seat}")
    return RuleError(
        NOT_YOUR_TURN, f"seat {turn} is to {doing}, not seat {seat}", details={"turn": str(turn)}
    )


def under_review(seat: int) -> RuleError:
    """The refusal of a bot's action for ``seat`` while a table-play round is under review,
    where no seat is to act (WRONG_PHASE)."""
    return RuleError(
        WRONG_PHASE,
        f"the round is under review: no seat is to act, seat {seat} neither; a seat of the other "
        "team may call Qayd, else the host closes the review (CallQayd with close_review)",
    )
