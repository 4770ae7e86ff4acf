"""Fixtures for the gateway tests: services and Envoy on free localhost ports.

The load-test package (`loadtest/`, at the top of the repository) starts and watches the
processes; every process a test starts is stopped when the test ends.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from loadtest import stack  # noqa: E402 - needs the repository root on the path


@pytest.fixture
def key() -> str:
    """One state key shared by every service of the test, as replicas share a Secret."""
    return stack.new_state_key()


@pytest.fixture
def children(tmp_path: Path) -> Iterator[list[stack.Child]]:
    """Processes to stop at the end of the test (gateways first, then services)."""
    started: list[stack.Child] = []
    yield started
    for child in reversed(started):
        child.stop(timeout=15)
