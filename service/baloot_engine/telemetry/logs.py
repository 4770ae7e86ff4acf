"""Structured logging of the service, and the per-call log fields.

Log lines go to stderr through structlog: JSON lines when stderr is not a terminal (for log
collectors), a readable console rendering when it is, or as ``BALOOT_LOG_FORMAT`` says. Lines of
other libraries (grpc, asyncio) that use the standard ``logging`` module get the same format.

Each RPC gets one canonical log line, written by the telemetry interceptor. Code that serves a
call adds facts to that line with :func:`bind_call_fields` (the match id, the state version, the
seat, an error reason). Tokens, hands and credentials are never logged: a last processor
replaces the value of any field with such a name, in case one slips through.
"""

from __future__ import annotations

import enum
import logging
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from typing import Final, Protocol, TextIO, cast

import structlog
from structlog.typing import EventDict, FilteringBoundLogger, Processor, WrappedLogger


class LogFormat(enum.Enum):
    """How log lines are written to stderr."""

    AUTO = "auto"  # console when stderr is a terminal, JSON lines otherwise
    JSON = "json"
    CONSOLE = "console"


class LogLevel(enum.Enum):
    """The lowest level that is logged."""

    DEBUG = "debug"
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


class LogSettings(Protocol):
    """What :func:`configure_logging` reads from the server's settings."""

    @property
    def log_format(self) -> LogFormat:
        """The format of the lines."""

    @property
    def log_level(self) -> LogLevel:
        """The lowest level written."""


_LEVELS: Final = {
    LogLevel.DEBUG: logging.DEBUG,
    LogLevel.INFO: logging.INFO,
    LogLevel.WARNING: logging.WARNING,
    LogLevel.ERROR: logging.ERROR,
}

# Field names whose values must never reach a log line.
SECRET_FIELDS: Final = frozenset(
    {
        "state",
        "token",
        "credential",
        "host_credential",
        "seat_credentials",
        "hand",
        "hands",
        "deck_order",
        "key",
    }
)

_call_fields: ContextVar[dict[str, object] | None] = ContextVar("baloot_call_fields", default=None)


@contextmanager
def call_scope() -> Iterator[dict[str, object]]:
    """Open the log fields of one RPC for the duration of the call and yield them."""
    fields: dict[str, object] = {}
    token = _call_fields.set(fields)
    try:
        yield fields
    finally:
        # A streaming call's generator can be closed from another context (the client went
        # away and grpc finalizes it later): the context that set the fields is gone, so there
        # is nothing left to undo there, and that other context's fields must stay.
        with suppress(ValueError):
            _call_fields.reset(token)


def bind_call_fields(**fields: object) -> None:
    """Add facts to the current RPC's log line; does nothing outside a call."""
    current = _call_fields.get()
    if current is not None:
        current.update(fields)


def _redact_secrets(_logger: WrappedLogger, _method: str, event_dict: EventDict) -> EventDict:
    for name in SECRET_FIELDS.intersection(event_dict):
        event_dict[name] = "<redacted>"
    return event_dict


def _leading_keys(_logger: WrappedLogger, _method: str, event_dict: EventDict) -> EventDict:
    """Put the time, level and event first, so that a JSON line reads well to people too."""
    head = {
        key: event_dict.pop(key) for key in ("timestamp", "level", "event") if key in event_dict
    }
    return {**head, **event_dict}


def _shared_processors() -> list[Processor]:
    return [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        _redact_secrets,
    ]


class LibraryFloodFilter(logging.Filter):
    """Let through one line a minute of each kind that grpc itself logs, with a count.

    grpc logs a traceback for every call whose handler or (de)serializer raised. The server
    answers bad input itself, so this should not happen; if a defect makes it happen on every
    call, one line a minute with its traceback says as much as thousands.
    """

    def __init__(self, prefix: str = "grpc", window: float = 60.0) -> None:
        super().__init__()
        self._prefix = prefix
        self._window = window
        self._seen: dict[tuple[str, str], tuple[float, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        """Pass the first record of a kind in each window, and count the others."""
        if not record.name.startswith(self._prefix):
            return True
        kind = (record.name, str(record.msg)[:80])
        now = time.monotonic()
        since, dropped = self._seen.get(kind, (-self._window, 0))
        if now - since < self._window:
            self._seen[kind] = (since, dropped + 1)
            return False
        if len(self._seen) > 1000:  # messages that embed changing text: forget the oldest
            self._seen.clear()
        self._seen[kind] = (now, 0)
        if dropped:
            record.msg = f"{record.msg} ({dropped} more like it since the last one shown)"
        return True


def wants_json(log_format: LogFormat, stream: TextIO) -> bool:
    """Return True when lines should be JSON: asked for, or ``auto`` and not a terminal."""
    if log_format is LogFormat.AUTO:
        return not stream.isatty()
    return log_format is LogFormat.JSON


def configure_logging(settings: LogSettings, stream: TextIO | None = None) -> None:
    """Send structlog and standard-library logging to ``stream`` (stderr) in one format."""
    out = stream if stream is not None else sys.stderr
    level = _LEVELS[settings.log_level]
    renderer: Processor
    final: list[Processor]
    if wants_json(settings.log_format, out):
        renderer = structlog.processors.JSONRenderer()
        final = [structlog.processors.format_exc_info, _leading_keys, renderer]
    else:
        renderer = structlog.dev.ConsoleRenderer(colors=out.isatty())
        final = [renderer]

    handler = logging.StreamHandler(out)
    handler.addFilter(LibraryFloodFilter())
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=_shared_processors(),
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *final],
        )
    )
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)

    structlog.configure(
        processors=[
            *_shared_processors(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.make_filtering_bound_logger(level),
        cache_logger_on_first_use=True,
    )


def get_logger(name: str) -> FilteringBoundLogger:
    """Return a structlog logger named after a module."""
    return cast("FilteringBoundLogger", structlog.get_logger(name))
