"""Waiting for something to happen, bounded only against a hang.

A test waits for an event (a log line, a counter, a process that ends, a connection that is
replaced), never for a duration, and never asserts how long the event took: CI runs on a
shared, loaded 2-core machine. The bound of a wait is :data:`HANG_GUARD`, far above what the
slowest machine needs, so reaching it means the event is not coming. Speed is measured in
``bench/``, as a ratio to a baseline of the same run.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

HANG_GUARD = 120.0
"""Seconds after which a wait gives up: only a hang takes this long."""


def wait_until(predicate: Callable[[], bool], what: str, poll: float = 0.02) -> None:
    """Return once ``predicate()`` is true; fail the test, naming ``what``, after the guard."""
    guard = time.monotonic() + HANG_GUARD
    while not predicate():
        if time.monotonic() > guard:
            pytest.fail(f"still waiting for {what} after {HANG_GUARD:.0f} s")
        time.sleep(poll)
