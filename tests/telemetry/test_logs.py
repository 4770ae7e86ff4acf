"""The log lines: their format, the per-call fields, the level filter and redaction."""

from __future__ import annotations

import contextlib
import contextvars
import datetime
import io
import json
import logging
import re
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
    log_call,
    utc_timestamp,
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


@pytest.mark.usefixtures("restore_logging")
def test_the_direct_call_line_is_the_line_structlog_writes() -> None:
    buffer = io.StringIO()
    configure_logging(Settings(log_format=LogFormat.JSON), stream=buffer)
    fields: dict[str, object] = {
        "method": "/baloot.v1.BalootEngineService/PlayCard",
        "grpc_code": "OK",
        "duration_ms": 0.25,
        "peer": "ipv4:127.0.0.1:5",
        "request_id": "r-1",
        "match_id": "m1",
        "state_version": 7,
        "seat": 2,
        "hand": [1, 2],
        "odd": object,
    }
    structlog.contextvars.bind_contextvars(worker=1, seat=3)
    try:
        log_call(logging.INFO, "rpc", fields)
        get_logger("baloot_engine.rpc").log(logging.INFO, "rpc", **fields)
        log_call(logging.DEBUG, "rpc", fields)  # below the level: not written
        log_call(logging.ERROR, "rpc", fields)
        get_logger("baloot_engine.rpc").log(logging.ERROR, "rpc", **fields)
    finally:
        structlog.contextvars.clear_contextvars()
    direct, standard, direct_error, standard_error = (
        json.loads(line) for line in buffer.getvalue().splitlines()
    )
    for one, other in ((direct, standard), (direct_error, standard_error)):
        assert one.pop("timestamp").endswith("Z")
        assert other.pop("timestamp").endswith("Z")
        assert list(one.items()) == list(other.items())
    assert direct["level"] == "info"
    assert direct_error["level"] == "error"
    assert (direct["worker"], direct["seat"], direct["hand"]) == (1, 2, "<redacted>")
    assert direct["odd"] == repr(object)


@pytest.mark.usefixtures("restore_logging")
def test_the_call_line_reaches_every_handler() -> None:
    buffer = io.StringIO()
    configure_logging(Settings(log_format=LogFormat.JSON), stream=buffer)
    records: list[logging.LogRecord] = []
    another = logging.Handler()
    another.emit = records.append  # type: ignore[method-assign]
    logging.getLogger().addHandler(another)
    log_call(logging.INFO, "rpc", {"method": "/x/Y", "request_id": "r-2"})
    assert [r.name for r in records] == ["baloot_engine.rpc"]
    assert json.loads(buffer.getvalue())["request_id"] == "r-2"


def test_the_call_line_timestamp_is_structlog_s_iso_utc_text() -> None:
    before = datetime.datetime.now(datetime.UTC)
    stamps = [utc_timestamp() for _ in range(1000)]
    after = datetime.datetime.now(datetime.UTC)
    for stamp in stamps:
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z", stamp)
        moment = datetime.datetime.fromisoformat(stamp)
        assert before - datetime.timedelta(milliseconds=1) <= moment <= after
    assert stamps == sorted(stamps)


def test_grpc_library_lines_are_limited_to_one_of_a_kind_per_window() -> None:
    now = [1000.0]  # the filter's clock, moved by the test: the machine's speed plays no part
    flood = LibraryFloodFilter(window=60.0, clock=lambda: now[0])

    def record(name: str, msg: str) -> logging.LogRecord:
        return logging.LogRecord(name, logging.ERROR, __file__, 1, msg, None, None)

    assert flood.filter(record("grpc._cython.cygrpc", "Unexpected error in handler"))
    assert not flood.filter(record("grpc._cython.cygrpc", "Unexpected error in handler"))
    assert not flood.filter(record("grpc._cython.cygrpc", "Unexpected error in handler"))
    assert flood.filter(record("grpc._cython.cygrpc", "Another kind of line"))
    assert flood.filter(record("baloot_engine.rpc", "rpc"))  # the server's own lines pass
    assert flood.filter(record("baloot_engine.rpc", "rpc"))
    now[0] += 59.5
    assert not flood.filter(record("grpc._cython.cygrpc", "Unexpected error in handler"))
    now[0] += 0.5  # the window is over
    later = record("grpc._cython.cygrpc", "Unexpected error in handler")
    assert flood.filter(later)
    assert later.getMessage().endswith("(3 more like it since the last one shown)")
