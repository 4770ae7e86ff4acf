"""Faults during a load run: a replica or a worker dies, or replicas restart, and no match is lost.

The service keeps nothing between calls: each request carries the whole match in its token,
sealed with a key every replica shares. So when a process dies, the calls it held are sent
again (by Envoy, or by the client with the same token) to a process that is alive, which gives
the same answer; the matches go on from the last token their player holds.
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from loadtest import stack
from loadtest.driver import LoadConfig, LoadResult, report, run_load

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc

pytestmark = pytest.mark.slow

KILL_AFTER_SECONDS = 4.0
# Enough matches that the run is still going when the kill comes: the duration bounds it.
MATCHES = 400


def _run_and_kill(config: LoadConfig, kill: Callable[[], None]) -> LoadResult:
    """Run the load; ``kill`` happens a few seconds in, while matches are being played."""
    killer = threading.Timer(KILL_AFTER_SECONDS, kill)
    killer.start()
    try:
        result = asyncio.run(run_load(config))
    finally:
        killer.cancel()
        killer.join()
    print(report(result))  # shown with pytest -s, or when the test fails
    return result


def _assert_no_match_lost(result: LoadResult) -> None:
    assert result.errors == {}
    assert result.matches_failed == 0
    assert result.matches_abandoned == 0
    assert result.matches_started > 0
    assert result.matches_completed == result.matches_started


def test_a_replica_killed_behind_envoy_loses_no_match_and_leaves_the_rotation(
    tmp_path: Path, key: str, children: list[stack.Child]
) -> None:
    first = stack.start_service(tmp_path, key=key, name="replica-a")
    children.append(first.child)
    second = stack.start_service(tmp_path, key=key, name="replica-b")
    children.append(second.child)
    gateway = stack.start_gateway(tmp_path, [first.target, second.target])
    children.append(gateway.child)
    config = LoadConfig(
        target=gateway.target,
        matches=MATCHES,
        duration=12,
        drain=45,
        concurrency=16,
        connections=4,
        match_target=41,
        envoy_admin=gateway.admin_url,
    )

    result = _run_and_kill(config, second.child.popen.kill)

    assert second.child.popen.wait(10) == -signal.SIGKILL
    _assert_no_match_lost(result)
    served = [record["upstream_host"] for record in gateway.access_log()]
    assert served.count(second.target) > 0  # it did serve before it died
    # The active health check has taken the dead replica out; the other stays in.
    stack.wait_until(
        lambda: "failed_active_hc" in gateway.hosts().get(second.target, ""),
        15,
        "the health check to fail the killed replica",
    )
    assert gateway.hosts()[first.target] == "healthy"
    stats = gateway.stats()
    assert stats["health_check.failure"] > 0
    assert stats["membership_healthy"] == 1
    # New calls all go to the live replica, at the first attempt.
    with grpc.insecure_channel(gateway.target) as channel:
        stub = pb_grpc.BalootEngineServiceStub(channel)
        for i in range(10):
            stub.CreateMatch(
                pb.CreateMatchRequest(), metadata=[("x-request-id", f"after-kill-{i}")], timeout=5
            )

    def after_kill() -> list[dict[str, object]]:
        return [r for r in gateway.access_log() if r["request_id"].startswith("after-kill-")]

    # Envoy flushes its access log about once a second.
    stack.wait_until(lambda: len(after_kill()) == 10, 15, "the access log of the new calls")
    after = after_kill()
    assert {r["upstream_host"] for r in after} == {first.target}
    assert {r["attempts"] for r in after} == {1}


def test_a_worker_killed_mid_run_loses_no_match_and_is_replaced(
    tmp_path: Path, key: str, children: list[stack.Child]
) -> None:
    service = stack.start_service(tmp_path, key=key, workers=2, log_level="info")
    children.append(service.child)
    workers_before = service.worker_pids()
    killed: list[int] = []

    def kill_the_busier_worker() -> None:
        # The kernel spreads connections at random: kill the worker that holds the most.
        calls = service.calls_by_process()
        victim = max(workers_before, key=lambda pid: calls.get(pid, 0))
        killed.append(victim)
        os.kill(victim, signal.SIGKILL)

    config = LoadConfig(
        target=service.target,
        matches=MATCHES,
        duration=12,
        drain=45,
        concurrency=16,
        connections=8,
        match_target=41,
        metrics_urls=(service.metrics_url,),
    )

    result = _run_and_kill(config, kill_the_busier_worker)
    (victim,) = killed

    # Clients sent the calls the dead worker held again, with the same token.
    _assert_no_match_lost(result)
    # The metrics endpoint (the supervisor's) still adds up every worker, the dead one too.
    assert result.cross_check == "ok"
    # The supervisor logs the exit and the restart; a short run may end before it has.
    stack.wait_until(
        lambda: '"event": "worker restarted"' in service.child.log_text(),
        15,
        "the supervisor's restart log line",
    )
    log = service.child.log_text()
    assert '"event": "worker exited"' in log
    assert '"event": "worker restarted"' in log
    workers = service.worker_pids()
    assert victim not in workers
    assert len(workers) == 2
    calls = service.calls_by_process()
    assert calls[victim] > 0  # the killed worker had served calls
    assert sum(n for pid, n in calls.items() if pid != victim) > 0  # the others took over


# Long enough for both restarts to happen while matches are being played.
ROLLING_DURATION = 30.0


def test_a_rolling_restart_behind_envoy_fails_no_call(
    tmp_path: Path, key: str, children: list[stack.Child]
) -> None:
    """Two replicas restarted one after the other with SIGTERM, under load: no call fails.

    The load driver does not retry (``retries=0``): every call must succeed at its first
    attempt from the client's side, Envoy's retries included. A stopping replica reports
    NOT_SERVING, Envoy's health check takes it out of the rotation while it still serves, it
    stops accepting once calls stopped coming, and drains. The next replica is restarted only
    once Envoy sees the new one healthy, as an orchestrator waits for readiness.
    """
    replicas = [
        stack.start_service(tmp_path, key=key, name=name, grace_seconds=10)
        for name in ("replica-a", "replica-b")
    ]
    children.extend(replica.child for replica in replicas)
    gateway = stack.start_gateway(tmp_path, [replica.target for replica in replicas])
    children.append(gateway.child)
    config = LoadConfig(
        target=gateway.target,
        matches=MATCHES * 4,
        duration=ROLLING_DURATION,
        drain=45,
        concurrency=16,
        connections=4,
        match_target=41,
        retries=0,
        envoy_admin=gateway.admin_url,
    )
    exits: list[int | None] = []
    restarted: list[stack.Service] = []
    problems: list[str] = []

    def roll() -> None:
        try:
            time.sleep(KILL_AFTER_SECONDS)
            for old in replicas:
                old.child.popen.send_signal(signal.SIGTERM)
                exits.append(old.child.popen.wait(40))
                new = stack.start_service(
                    tmp_path, key=key, name=f"{old.child.name}-2", grace_seconds=10, port=old.port
                )
                children.append(new.child)
                restarted.append(new)
                stack.wait_until(
                    lambda target=new.target: gateway.hosts().get(target) == "healthy",
                    40,
                    f"Envoy to see {new.target} healthy again",
                )
                time.sleep(2)  # serve for a while with both before the next restart
        except Exception as error:  # noqa: BLE001 - reported by the test below
            problems.append(f"{type(error).__name__}: {error}")

    roller = threading.Thread(target=roll)
    roller.start()
    try:
        result = asyncio.run(run_load(config))
    finally:
        roller.join()
    print(report(result))
    failed_calls = sum(result.errors.values())
    print(f"rolling restart: {failed_calls} failed calls out of {result.calls:,}")

    assert problems == []
    assert exits == [0, 0]
    assert len(restarted) == 2
    assert result.errors == {}
    assert failed_calls == 0
    _assert_no_match_lost(result)
    # Both old replicas left the rotation before they stopped accepting calls.
    for old in replicas:
        log = old.child.log_text()
        assert "calls still arriving" not in log, log
    # The restarted replicas served calls after their restart.
    served = {record["upstream_host"] for record in gateway.access_log()}
    assert {new.target for new in restarted} <= served
    assert gateway.healthy(2)
