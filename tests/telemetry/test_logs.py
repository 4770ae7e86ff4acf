"""The log lines: their format, the per-call fields, the level filter and redaction."""

from __future__ import annotations

import contextlib
import contextvars
import io
import json
import logging
import time
from collections.abc import Iterator

import pytest
import structlog

from baloot_engine.server.settings import Settings
from baloot_engine.telemetry.logs import (
    LibraryFloodFilter,
    LogFormat,
    LogLevel,
    _call_fields,
    bind_call_fields,
    call_scope,
    configure_logging,
    get_logger,
    wants_json,
)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    config = structlog.get_config()
    yield
    for handler in list(root.handlers):
        root.removeHandler(handler)
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)
    structlog.configure(**config)


def test_auto_format_follows_the_terminal() -> None:
    assert wants_json(LogFormat.AUTO, io.StringIO())
    assert not wants_json(LogFormat.AUTO, _Terminal())
    assert wants_json(LogFormat.JSON, _Terminal())
    assert not wants_json(LogFormat.CONSOLE, io.StringIO())


@pytest.mark.usefixtures("restore_logging")
def test_json_lines_carry_call_fields_and_never_secrets() -> None:
    buffer = io.StringIO()
    configure_logging(Settings(log_format=LogFormat.JSON), stream=buffer)
    log = get_logger("test")
    with call_scope() as fields:
        bind_call_fields(match_id="m1", state_version=7)
        log.info("rpc", credential="seat-secret", state=b"sealed", hand=[1, 2], **fields)
    bind_call_fields(ignored=True)  # outside a call: no effect, no error
    logging.getLogger("grpc").warning("from the standard library")
    first, second = (json.loads(line) for line in buffer.getvalue().splitlines())
    assert first["event"] == "rpc"
    assert (first["match_id"], first["state_version"]) == ("m1", 7)
    assert first["credential"] == first["state"] == first["hand"] == "<redacted>"
    assert first["level"] == "info"
    assert first["timestamp"].endswith("Z")
    assert second == {**second, "event": "from the standard library", "level": "warning"}


@pytest.mark.usefixtures("restore_logging")
def test_the_level_setting_filters_lines() -> None:
    buffer = io.StringIO()
    configure_logging(
        Settings(log_format=LogFormat.JSON, log_level=LogLevel.WARNING), stream=buffer
    )
    get_logger("test").info("hidden")
    get_logger("test").warning("shown")
    assert [json.loads(line)["event"] for line in buffer.getvalue().splitlines()] == ["shown"]


@pytest.mark.usefixtures("restore_logging")
def test_a_terminal_gets_readable_lines() -> None:
    terminal = _Terminal()
    configure_logging(Settings(log_format=LogFormat.AUTO), stream=terminal)
    get_logger("test").info("server started", port=50051)
    line = terminal.getvalue()
    assert "server started" in line
    assert "port" in line
    assert not line.lstrip().startswith("{")


def test_a_call_scope_closed_from_another_context_does_not_fail() -> None:
    # grpc may finalize a cancelled streaming call's generator in another context than the
    # one that opened the call's log fields.
    def open_scope() -> contextlib.AbstractContextManager[dict[str, object]]:
        scope = call_scope()
        scope.__enter__()
        bind_call_fields(match_id="m1")
        return scope

    scope = contextvars.copy_context().run(open_scope)
    elsewhere = contextvars.copy_context()
    elsewhere.run(scope.__exit__, None, None, None)
    assert elsewhere.run(_call_fields.get) is None


def test_grpc_library_lines_are_limited_to_one_of_a_kind_per_window() -> None:
    flood = LibraryFloodFilter(window=0.2)

    def record(name: str, msg: str) -> logging.LogRecord:
        return logging.LogRecord(name, logging.ERROR, __file__, 1, msg, None, None)

    assert flood.filter(record("grpc._cython.cygrpc", "Unexpected error in handler"))
    assert not flood.filter(record("grpc._cython.cygrpc", "Unexpected error in handler"))
    assert not flood.filter(record("grpc._cython.cygrpc", "Unexpected error in handler"))
    assert flood.filter(record("grpc._cython.cygrpc", "Another kind of line"))
    assert flood.filter(record("baloot_engine.rpc", "rpc"))  # the server's own lines pass
    assert flood.filter(record("baloot_engine.rpc", "rpc"))
    time.sleep(0.25)
    later = record("grpc._cython.cygrpc", "Unexpected error in handler")
    assert flood.filter(later)
    assert later.getMessage().endswith("(2 more like it since the last one shown)")
