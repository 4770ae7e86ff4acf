"""A thin typed Python client of the Baloot engine (``baloot.v1``)."""

from baloot_client.client import (
    EngineClient,
    EngineError,
    IllegalActionError,
    InvalidRequestError,
    Match,
    PermissionDeniedError,
)
from baloot_client.records import RecordBuilder, read_record, write_record
from baloot_client.retry import SERVICE_CONFIG

__all__ = [
    "SERVICE_CONFIG",
    "EngineClient",
    "EngineError",
    "IllegalActionError",
    "InvalidRequestError",
    "Match",
    "PermissionDeniedError",
    "RecordBuilder",
    "read_record",
    "write_record",
]
