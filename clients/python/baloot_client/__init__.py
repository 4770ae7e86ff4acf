"""A thin typed Python client of the Baloot engine (``baloot.v1``)."""

from baloot_client.client import (
    EngineClient,
    EngineError,
    IllegalActionError,
    InvalidRequestError,
    Match,
    PermissionDeniedError,
)

__all__ = [
    "EngineClient",
    "EngineError",
    "IllegalActionError",
    "InvalidRequestError",
    "Match",
    "PermissionDeniedError",
]
