"""Worker processes: one port shared by several processes, one metrics endpoint, one drain."""

from __future__ import annotations

import os
import signal
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import grpc
import pytest
from prometheus_client.parser import text_string_to_metric_families
from tests.waiting import HANG_GUARD, wait_until

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot.v1 import rules_pb2
from baloot_engine.server.workers import reserve_port

from .conftest import InProcessServer, ServerProcess

pytestmark = pytest.mark.slow

KEY = "KsD3bD8p0hRj5zC6Qy1iN2m9wVfUe4tYxA7oLrGkHqI"
LOOPBACK = ["--host", "127.0.0.1", "--metrics-port", "0", "--log-format", "json"]


def _workers(
    spawn: Callable[..., ServerProcess], tmp_path: Path, port: int = 0, **env: str
) -> ServerProcess:
    return spawn(
        ["-m", "baloot_engine", "--workers", "2", "--port", str(port), *LOOPBACK],
        env={"BALOOT_STATE_KEY_FILE": str(tmp_path / "state.key"), **env},
    )


def _started(server: ServerProcess) -> dict[str, Any]:
    return server.wait_for(lambda r: r.get("event") == "workers started")


def _connections(port: int, count: int) -> Iterator[grpc.Channel]:
    """Channels that each open their own TCP connection (no shared subchannel)."""
    options = [("grpc.use_local_subchannel_pool", 1)]
    for _ in range(count):
        yield grpc.insecure_channel(f"127.0.0.1:{port}", options=options)


def _handled(metrics_port: int, method: str) -> float:
    url = f"http://127.0.0.1:{metrics_port}/metrics"
    with urllib.request.urlopen(url, timeout=5) as reply:
        text = reply.read().decode()
    total = 0.0
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if (
                sample.name == "grpc_server_handled_total"
                and sample.labels["grpc_method"] == method
            ):
                total += sample.value
    return total


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone for our purposes: read its state.
    state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    return state != "Z"


def test_workers_share_the_port_the_keys_and_one_metrics_endpoint(
    spawn: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    server = _workers(spawn, tmp_path)
    started = _started(server)
    port, metrics_port = started["port"], started["metrics_port"]
    assert started["workers"] == 2
    assert len(started["pids"]) == 2
    assert port > 0
    assert metrics_port > 0
    with ExitStack() as stack:
        channels = [stack.enter_context(c) for c in _connections(port, 16)]
        stubs = [pb_grpc.BalootEngineServiceStub(channel) for channel in channels]
        created = stubs[0].CreateMatch(
            pb.CreateMatchRequest(rules=rules_pb2.RuleSet(preset=rules_pb2.PRESET_SEEDS)),
            timeout=10,
        )
        deal = pb.DealRoundRequest(
            state=created.state,
            match_id=created.match_id,
            credential=created.host_credential,
            expected_version=created.state_version,
            seat=created.views[0].dealer,
        )
        # The same token on 16 connections, spread over both workers: both open it (the key
        # was loaded once, before the fork) and both deal the same cards.
        hands = {tuple(stub.DealRound(deal, timeout=10).views[0].hand) for stub in stubs}
        assert len(hands) == 1
    rpc_lines = server.wait_for(
        lambda r: r.get("event") == "rpc" and r.get("method", "").endswith("/DealRound")
    )
    assert rpc_lines["worker"] in (0, 1)

    def workers() -> set[object]:
        return {
            r.get("worker")
            for r in server.records()
            if r.get("event") == "rpc" and r.get("method", "").endswith("/DealRound")
        }

    wait_until(lambda: len(workers()) == 2, "both workers' DealRound lines")
    assert workers() == {0, 1}
    # One endpoint, the sum over both workers.
    assert _handled(metrics_port, "DealRound") == 16
    assert _handled(metrics_port, "CreateMatch") == 1


def test_sigterm_drains_every_worker_and_removes_the_metrics_directory(
    spawn: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    server = _workers(spawn, tmp_path)
    started = _started(server)
    metrics_dir = Path(started["metrics_dir"])
    assert metrics_dir.is_dir()
    assert server.terminate() == 0
    for pid in started["pids"]:
        assert not _alive(pid)
    records = server.records()
    stopping = [r for r in records if r.get("event") == "shutting down"]
    assert sorted(r["worker"] for r in stopping) == [0, 1]
    assert records[-1]["event"] == "server stopped"
    assert records[-1]["workers"] == 2
    assert not metrics_dir.exists()


def test_a_given_metrics_directory_is_emptied_at_start(
    spawn: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    stale = metrics_dir / "counter_999999.db"
    stale.write_bytes(b"left by an earlier run")
    keep = metrics_dir / "README"
    keep.write_text("not ours")
    server = _workers(spawn, tmp_path, PROMETHEUS_MULTIPROC_DIR=str(metrics_dir))
    started = _started(server)
    assert started["metrics_dir"] == str(metrics_dir)
    assert not stale.exists()
    assert _handled(started["metrics_port"], "CreateMatch") == 0
    assert server.terminate() == 0
    assert keep.exists()  # only the *.db files are the server's


def test_a_killed_worker_is_replaced(spawn: Callable[..., ServerProcess], tmp_path: Path) -> None:
    server = _workers(spawn, tmp_path)
    started = _started(server)
    victim = started["pids"][0]
    os.kill(victim, signal.SIGKILL)
    exited = server.wait_for(lambda r: r.get("event") == "worker exited")
    assert exited["pid"] == victim
    assert exited["signal"] == "SIGKILL"
    restarted = server.wait_for(lambda r: r.get("event") == "worker restarted")
    assert restarted["pid"] not in started["pids"]
    with grpc.insecure_channel(f"127.0.0.1:{started['port']}") as channel:
        stub = pb_grpc.BalootEngineServiceStub(channel)
        stub.CreateMatch(pb.CreateMatchRequest(), timeout=10)
    assert _handled(started["metrics_port"], "CreateMatch") == 1
    assert server.terminate() == 0
    assert not _alive(restarted["pid"])


def test_workers_refuse_a_busy_port(
    spawn: Callable[..., ServerProcess], tmp_path: Path, server: InProcessServer
) -> None:
    # A single-process server holds the port: the workers must not join it.
    workers = _workers(spawn, tmp_path, port=server.app.port)
    assert workers.process.wait(HANG_GUARD) == 1
    failure = workers.wait_for(lambda r: r.get("event") == "start-up failed")
    assert f"cannot listen on 127.0.0.1:{server.app.port}" in failure["error"]


def test_a_second_server_cannot_join_the_workers_port(
    spawn: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    port = _started(_workers(spawn, tmp_path))["port"]
    single = spawn(
        ["-m", "baloot_engine", "--port", str(port), *LOOPBACK],
        env={"BALOOT_STATE_KEY_FILE": str(tmp_path / "state.key")},
    )
    assert single.process.wait(HANG_GUARD) == 1
    with pytest.raises(Exception, match="cannot listen"):
        reserve_port("127.0.0.1", port)
    more = _workers(spawn, tmp_path, port=port)
    assert more.process.wait(HANG_GUARD) == 1


def test_reserve_port_picks_a_free_port_for_zero() -> None:
    port = reserve_port("127.0.0.1", 0)
    assert 0 < port < 65536
    assert reserve_port("127.0.0.1", port) == port


def test_workers_stop_when_their_parent_is_killed(
    spawn: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    server = _workers(spawn, tmp_path, BALOOT_GRACE_SECONDS="1")
    started = _started(server)
    server.process.kill()  # no chance to stop the workers itself
    server.process.wait(HANG_GUARD)
    wait_until(
        lambda: not any(_alive(pid) for pid in started["pids"]),
        "the workers of a killed parent to end",
    )
    # The port is free again: nothing was left holding it.
    assert reserve_port("127.0.0.1", started["port"]) == started["port"]


def test_sigterm_lets_every_call_already_sent_to_the_workers_complete(
    spawn: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    server = _workers(spawn, tmp_path)
    port = _started(server)["port"]
    codes: dict[str, int] = {}
    with ExitStack() as stack:
        channels = [stack.enter_context(c) for c in _connections(port, 16)]
        stubs = [pb_grpc.BalootEngineServiceStub(channel) for channel in channels]
        for stub in stubs:  # every connection is up, spread over both workers
            stub.CreateMatch(pb.CreateMatchRequest(), timeout=10)
        calls = [
            stub.CreateMatch.future(pb.CreateMatchRequest(), timeout=60)
            for _ in range(8)
            for stub in stubs
        ]
        server.process.send_signal(signal.SIGTERM)
        for call in calls:
            try:
                call.result(timeout=60)
            except grpc.RpcError as error:
                code = error.code().name
            else:
                code = "OK"
            codes[code] = codes.get(code, 0) + 1
    assert codes == {"OK": 128}
    assert server.process.wait(timeout=60) == 0
    served = [
        r
        for r in server.records()
        if r.get("event") == "rpc" and r.get("method", "").endswith("/CreateMatch")
    ]
    assert {r["grpc_code"] for r in served} == {"OK"}
    assert len(served) == 16 + 128
    assert {r["worker"] for r in served} == {0, 1}
