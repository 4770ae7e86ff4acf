"""SIGTERM while calls keep coming: no call ends CANCELLED, with one worker and with two.

Clients keep a bounded number of calls in flight on several connections, sending the next as
soon as one ends, before and after the signal, until the server has exited. grpc's shutdown
cancels the calls it has received and not handed to a handler; the drain parks the calls that
come once the lame duck is over (``server/closing.py``) and stops accepting only when none has
come for a moment, then refuses the parked ones UNAVAILABLE with reason DRAINING.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from loadtest.drain import Tally, load
from tests.waiting import HANG_GUARD

from baloot.v1 import engine_service_pb2 as pb

from .conftest import ServerProcess

pytestmark = pytest.mark.slow

CHANNELS = 8
IN_FLIGHT = 8  # per channel


def _create(_n: int) -> tuple[str, Any]:
    return "CreateMatch", pb.CreateMatchRequest()


@pytest.mark.parametrize("workers", [1, 2])
def test_sigterm_under_load_cancels_no_call(
    workers: int, spawn: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    server = spawn(
        [
            "-m",
            "baloot_engine",
            *("--port", "0", "--metrics-port", "0", "--host", "127.0.0.1"),
            *("--workers", str(workers), "--lame-duck-seconds", "1", "--log-format", "json"),
        ],
        env={"BALOOT_STATE_KEY_FILE": str(tmp_path / "state.key")},
    )
    started = "workers started" if workers > 1 else "server started"
    port = int(server.wait_for(lambda r: r.get("event") == started)["port"])
    target = f"127.0.0.1:{port}"
    tally = Tally()
    signalled, done = threading.Event(), threading.Event()
    threads = [
        threading.Thread(target=load, args=(target, _create, IN_FLIGHT, signalled, done, tally))
        for _ in range(CHANNELS)
    ]
    for thread in threads:
        thread.start()
    try:
        deadline = time.monotonic() + HANG_GUARD
        while sum(tally.counts.values()) < 200 and time.monotonic() < deadline:
            time.sleep(0.05)  # the load is up (a hang guard, not a measure of speed)
        signalled.set()
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(timeout=HANG_GUARD) == 0
    finally:
        done.set()
        for thread in threads:
            thread.join(HANG_GUARD)
    counts = tally.counts
    statuses = {(before, code) for before, code, _ in counts}
    assert "CANCELLED" not in {code for _, code in statuses}, counts
    assert {code for before, code in statuses if before} == {"OK"}, counts
    assert {code for before, code in statuses if not before} <= {"OK", "UNAVAILABLE"}, counts
    # Calls came while the server stopped (the test loaded it as meant): they were parked and
    # refused with the reason a client retries on.
    drained = sum(n for (_, code, reason), n in counts.items() if reason == "DRAINING")
    assert drained > 0, counts
    assert sum(n for (before, _, _), n in counts.items() if before) >= 200
