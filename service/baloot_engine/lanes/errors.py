"""What a lane answers instead of a result: refused at its door, or stopped on the way.

Plain exceptions with no gRPC in them; the API layer maps each to its status and reason
(``api/refusals.py``). Every refusal at the door comes before any work was done, so the caller
may send the same request again after ``retry_after`` seconds.
"""

from __future__ import annotations

from typing import Final

LANE_FULL: Final = "LANE_FULL"
"""The lane's queue is full: every client's jobs together wait in it up to its bound."""
QUOTA_EXCEEDED: Final = "QUOTA_EXCEEDED"
"""The client is over one of its quotas (CPU-seconds a minute, queued jobs, streams)."""
API_KEY_REQUIRED: Final = "API_KEY_REQUIRED"
"""Heavy work asked for without an API key, where the deployment requires one."""
API_KEY_INVALID: Final = "API_KEY_INVALID"
"""An API key that this deployment did not issue."""
LANE_DEADLINE: Final = "LANE_DEADLINE"
"""The call's deadline passed while its job waited, or the job ran past it and was stopped."""
LANE_CLOSED: Final = "LANE_CLOSED"
"""The server is stopping: the lane takes no new job."""
DRAINING: Final = "DRAINING"
"""The server is stopping and its grace period ends before the job would: the job was
stopped, and the same request sent again reaches another server process or replica."""
WORKER_STOPPED: Final = "WORKER_STOPPED"
"""The process running the job stopped (killed, out of memory) before the job ended."""


class LaneError(Exception):
    """A lane's answer instead of a result: its stable reason, a message, the facts a client
    reads (``metadata``), and how long to wait before sending the same request again (None:
    not before something else changes, e.g. an API key is added)."""

    def __init__(
        self,
        reason: str,
        message: str,
        *,
        retry_after: float | None = None,
        metadata: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.retry_after = retry_after
        self.metadata = dict(metadata or {})

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild, (type(self), self.reason, self.message, self.retry_after, self.metadata))


class LaneRefusedError(LaneError):
    """Refused at the lane's door, before any work: full, over quota, or without a key."""


class LaneDeadlineError(LaneError):
    """The call's deadline passed before its job could end."""


class WorkerStoppedError(LaneError):
    """The process running the job stopped (killed, out of memory) before the job ended; the
    job was pure work, so the same request may be sent again at once."""


def _rebuild(
    kind: type[LaneError],
    reason: str,
    message: str,
    retry_after: float | None,
    metadata: dict[str, str],
) -> LaneError:
    return kind(reason, message, retry_after=retry_after, metadata=metadata)


__all__ = [
    "API_KEY_INVALID",
    "API_KEY_REQUIRED",
    "DRAINING",
    "LANE_CLOSED",
    "LANE_DEADLINE",
    "LANE_FULL",
    "QUOTA_EXCEEDED",
    "WORKER_STOPPED",
    "LaneDeadlineError",
    "LaneError",
    "LaneRefusedError",
    "WorkerStoppedError",
]
