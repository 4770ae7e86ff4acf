"""Fixtures of the bot tests: the in-process servers of the server tests."""

from __future__ import annotations

from tests.server.conftest import (  # noqa: F401 - the session fixture routes the server logs
    _logs_through_pytest,
)
