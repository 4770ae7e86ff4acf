"""Structured logging of the service, and the per-call log fields.

Log lines go to stderr through structlog: JSON lines when stderr is not a terminal (for log
collectors), a readable console rendering when it is, or as ``BALOOT_LOG_FORMAT`` says. Lines of
other libraries (grpc, asyncio) that use the standard ``logging`` module get the same format.

Each RPC gets one canonical log line, written by the telemetry interceptor with
:func:`log_call`. Code that serves a call adds facts to that line with :func:`bind_call_fields`
(the match id, the state version, the seat, an error reason). Tokens, hands and credentials are
never logged: a last processor replaces the value of any field with such a name, in case one
slips through.

The per-call line is written on every RPC, so when the lines are JSON and go only to the handler
:func:`configure_logging` installed, :func:`log_call` renders it itself: the same fields in the
same order as the processor chain gives (time, level, event, the call's fields, the structlog
context variables), with the same redaction, written to the same stream under the handler's
lock, without the processor chain, the standard library's record and formatter in between. In
every other case (console lines, another handler added, an exception to format) it goes through
structlog like every other line.
"""

from __future__ import annotations

import enum
import logging
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar, Token
from typing import Final, Protocol, TextIO, cast

import orjson
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

_LEVEL_NAMES: Final = {
    logging.DEBUG: "debug",
    logging.INFO: "info",
    logging.WARNING: "warning",
    logging.ERROR: "error",
    logging.CRITICAL: "critical",
}

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


def open_call_fields() -> tuple[dict[str, object], Token[dict[str, object] | None]]:
    """Open the log fields of one RPC, as :func:`call_scope` does, without a generator."""
    fields: dict[str, object] = {}
    return fields, _call_fields.set(fields)


def close_call_fields(token: Token[dict[str, object] | None]) -> None:
    """End what :func:`open_call_fields` opened (a no-op from another context, as above)."""
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


def _json_fallback(value: object) -> object:
    """Render what JSON cannot hold as structlog's JSON renderer does."""
    to_log = getattr(value, "__structlog__", None)
    return to_log() if callable(to_log) else repr(value)


class _CallLineSink:
    """Where :func:`log_call` writes directly: the JSON handler of :func:`configure_logging`.

    The handler's only filter (:class:`LibraryFloodFilter`) passes every line that is not
    grpc's own, so skipping it for the per-call line changes nothing.
    """

    __slots__ = ("handler", "logger", "stream")

    def __init__(self, handler: logging.StreamHandler[TextIO], stream: TextIO, name: str) -> None:
        self.handler = handler
        self.stream = stream
        self.logger = logging.getLogger(name)


_second: list[object] = [-1, ""]  # the last second stamped, and its text up to the seconds


def utc_timestamp() -> str:
    """Now in UTC as ISO 8601 with a ``Z``: the text of structlog's ``TimeStamper(fmt="iso",
    utc=True)``, with the date and time of day formatted once per second."""
    micros = time.time_ns() // 1000
    seconds, fraction = divmod(micros, 1_000_000)
    if seconds != _second[0]:
        _second[:] = [seconds, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))]
    if fraction:
        return f"{_second[1]}.{fraction:06d}Z"
    return f"{_second[1]}Z"


CALL_LOGGER: Final = "baloot_engine.rpc"
_sink: _CallLineSink | None = None


def log_call(level: int, event: str, fields: dict[str, object]) -> None:
    """Write the canonical line of one RPC (logger ``baloot_engine.rpc``) at ``level``.

    The same line as ``get_logger("baloot_engine.rpc").log(level, event, **fields)``.
    """
    sink = _sink
    handlers = logging.root.handlers
    if (
        sink is None
        or len(handlers) != 1
        or handlers[0] is not sink.handler
        or sink.handler.stream is not sink.stream
        or "exc_info" in fields
    ):
        _fallback_call_log().log(level, event, **fields)
        return
    if not sink.logger.isEnabledFor(level):
        return
    line: dict[str, object] = {"timestamp": None, "level": None, "event": event}
    line.update(fields)
    structlog.contextvars.merge_contextvars(None, "", line)
    line["level"] = _LEVEL_NAMES.get(level) or logging.getLevelName(level).lower()
    line["timestamp"] = utc_timestamp()
    for name in SECRET_FIELDS.intersection(line):
        line[name] = "<redacted>"
    text = orjson.dumps(line, default=_json_fallback, option=orjson.OPT_APPEND_NEWLINE).decode()
    handler = sink.handler
    handler.acquire()
    try:
        sink.stream.write(text)
        sink.stream.flush()
    except (OSError, ValueError):
        # The stream broke: let the standard path report it as it reports any line.
        handler.release()
        _fallback_call_log().log(level, event, **fields)
        return
    handler.release()


def call_log_enabled(level: int) -> bool:
    """False when :func:`log_call` would surely write nothing at ``level`` (so the caller
    need not gather the line's fields); True when it may write."""
    sink = _sink
    return sink is None or sink.logger.isEnabledFor(level)


def _fallback_call_log() -> FilteringBoundLogger:
    # A new proxy each time: it follows the configuration in force (tests change it).
    return get_logger(CALL_LOGGER)


class LibraryFloodFilter(logging.Filter):
    """Let through one line a minute of each kind that grpc itself logs, with a count.

    grpc logs a traceback for every call whose handler or (de)serializer raised. The server
    answers bad input itself, so this should not happen; if a defect makes it happen on every
    call, one line a minute with its traceback says as much as thousands.
    """

    def __init__(
        self,
        prefix: str = "grpc",
        window: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self._prefix = prefix
        self._window = window
        self._clock = clock
        self._seen: dict[tuple[str, str], tuple[float, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        """Pass the first record of a kind in each window, and count the others."""
        if not record.name.startswith(self._prefix):
            return True
        kind = (record.name, str(record.msg)[:80])
        now = self._clock()
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
    global _sink  # noqa: PLW0603 - the direct path of the per-call line follows the handler
    out = stream if stream is not None else sys.stderr
    level = _LEVELS[settings.log_level]
    renderer: Processor
    final: list[Processor]
    json_lines = wants_json(settings.log_format, out)
    if json_lines:
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
    _sink = _CallLineSink(handler, out, CALL_LOGGER) if json_lines else None

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
