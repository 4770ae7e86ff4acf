"""Fixtures of the research tests: the server logs of the in-process servers (test_docs.py)."""

from __future__ import annotations

from tests.server.conftest import (  # noqa: F401 - the session fixture routes the server logs
    _logs_through_pytest,
)
