"""The server as a real process: entry points, JSON log lines, and the drain on SIGTERM."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from tests.waiting import HANG_GUARD, wait_until

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot_engine.server.app import NOT_SERVING, SERVING

from .conftest import SLOW_SERVER, ServerProcess

pytestmark = pytest.mark.slow

SERVICE = "baloot.v1.BalootEngineService"
FREE_PORTS = ["--port", "0", "--metrics-port", "0"]
FIRST_KEY = "KsD3bD8p0hRj5zC6Qy1iN2m9wVfUe4tYxA7oLrGkHqI"
SECOND_KEY = "Zq8Wm3Tn5Rb7Yc2Vx4Ls6Kd9Jf1Hg0Pa3Ue5Io7Nr8M"


def test_every_log_line_is_json_and_the_rpc_line_carries_the_request_id(
    spawn: Callable[..., ServerProcess],
) -> None:
    # stderr is a pipe, not a terminal, so the default format (auto) must be JSON.
    server = spawn(["-m", "baloot_engine", *FREE_PORTS])
    port = server.wait_started()
    with grpc.insecure_channel(f"localhost:{port}") as channel:
        stub = pb_grpc.BalootEngineServiceStub(channel)
        with pytest.raises(grpc.RpcError) as raised:
            stub.PlayCard(pb.PlayCardRequest(), metadata=[("x-request-id", "trace-7")], timeout=5)
        assert raised.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    line = server.wait_for(lambda r: r.get("event") == "rpc" and r.get("request_id") == "trace-7")
    assert line["method"] == f"/{SERVICE}/PlayCard"
    assert line["grpc_code"] == "INVALID_ARGUMENT"
    assert line["reason"] == "REQUEST_INVALID"
    assert line["level"] == "info"
    assert isinstance(line["duration_ms"], float)
    assert line["peer"].startswith(("ipv4:", "ipv6:"))
    assert "timestamp" in line
    assert server.terminate() == 0
    events = [record["event"] for record in server.records()]  # every line parses as JSON
    assert events[0] == "settings"
    assert events[-1] == "server stopped"


def test_settings_are_logged_once_without_secrets(spawn: Callable[..., ServerProcess]) -> None:
    server = spawn(
        ["-m", "baloot_engine", *FREE_PORTS],
        env={"BALOOT_STATE_KEYS": f"{FIRST_KEY},{SECOND_KEY}", "BALOOT_TYPO": "1"},
    )
    server.wait_started()
    settings = [r for r in server.records() if r["event"] == "settings"]
    assert len(settings) == 1
    assert settings[0]["state_keys"] == "<2 configured>"
    assert settings[0]["port"] == 0
    assert FIRST_KEY not in server.output()
    assert SECOND_KEY not in server.output()
    warning = server.wait_for(lambda r: r["event"] == "unknown setting ignored")
    assert warning["variable"] == "BALOOT_TYPO"


def test_sigterm_drains_in_flight_calls_then_exits_cleanly(
    spawn: Callable[..., ServerProcess],
) -> None:
    # A grace period no drain comes near: a server that waited it out instead of stopping once
    # the call is done would outlast the hang guard of the wait below. How long a drain takes
    # is not checked (a loaded machine starts and stops processes slowly).
    grace = 10 * HANG_GUARD
    server = spawn([str(SLOW_SERVER), *FREE_PORTS, "--grace-seconds", str(grace)])
    port = server.wait_started()
    with grpc.insecure_channel(f"localhost:{port}") as channel:
        watch = health_pb2_grpc.HealthStub(channel).Watch(
            health_pb2.HealthCheckRequest(service=SERVICE), timeout=HANG_GUARD
        )
        statuses = iter(watch)
        assert next(statuses).status == SERVING

        sleep = channel.unary_unary("/baloot.test.SlowService/Sleep")
        in_flight = sleep.future(b"1.5", timeout=HANG_GUARD)
        server.wait_for(lambda r: r["event"] == "slow call started")

        server.process.send_signal(signal.SIGTERM)
        assert next(statuses).status == NOT_SERVING
        watch.cancel()  # an open Watch is itself in flight; a prober would hang up now

        assert in_flight.result(timeout=HANG_GUARD) == b"done"
        assert server.process.wait(timeout=HANG_GUARD) == 0

    records = server.records()
    events = [r["event"] for r in records]
    assert events.index("signal received") < events.index("shutting down")
    assert events[-1] == "server stopped"
    slow_line = next(r for r in records if r["event"] == "rpc" and "Sleep" in r["method"])
    assert slow_line["grpc_code"] == "OK"


@pytest.mark.parametrize(
    ("env", "args", "named"),
    [
        ({"BALOOT_PORT": "abc"}, [], "BALOOT_PORT"),
        ({"BALOOT_METRICS_PORT": "70000"}, [], "BALOOT_METRICS_PORT"),
        ({"BALOOT_LOG_FORMAT": "xml"}, [], "BALOOT_LOG_FORMAT"),
        ({"BALOOT_GRACE_SECONDS": "soon"}, [], "BALOOT_GRACE_SECONDS"),
        ({}, ["--port", "abc"], "--port"),
    ],
)
def test_an_invalid_setting_stops_start_up_with_one_line_naming_it(
    env: dict[str, str], args: list[str], named: str
) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "baloot_engine", *args],
        env={**_clean_env(), **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    message = result.stderr.strip()
    assert "\n" not in message
    assert named in message
    assert message.startswith("baloot-server: invalid ")


def test_the_console_script_is_installed() -> None:
    script = Path(sys.executable).parent / "baloot-server"
    found = str(script) if script.exists() else shutil.which("baloot-server")
    assert found is not None
    result = subprocess.run(
        [found, "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0
    assert result.stdout.startswith("baloot-server ")


def _clean_env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith("BALOOT_")}


def _statuses(calls: list[grpc.Future]) -> Counter[str]:
    """How the calls ended, by status code name."""
    codes: Counter[str] = Counter()
    for call in calls:
        try:
            call.result(timeout=60)
        except grpc.RpcError as error:
            codes[error.code().name] += 1
        else:
            codes["OK"] += 1
    return codes


def test_sigterm_lets_every_call_already_sent_complete(
    spawn: Callable[..., ServerProcess],
) -> None:
    # Calls the server has received but not yet handed to a handler wait in grpc's queue;
    # grpc's shutdown cancels them, so the server stops accepting only once calls stopped coming.
    server = spawn(["-m", "baloot_engine", *FREE_PORTS])
    port = server.wait_started()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = pb_grpc.BalootEngineServiceStub(channel)
        stub.CreateMatch(pb.CreateMatchRequest(), timeout=10)  # the connection is up
        calls = [stub.CreateMatch.future(pb.CreateMatchRequest(), timeout=60) for _ in range(64)]
        server.process.send_signal(signal.SIGTERM)
        assert _statuses(calls) == {"OK": 64}
    assert server.process.wait(timeout=30) == 0
    records = server.records()
    created = [r for r in records if r["event"] == "rpc" and r["method"].endswith("/CreateMatch")]
    assert [r["grpc_code"] for r in created] == ["OK"] * 65
    events = [r["event"] for r in records]
    assert events.index("shutting down") < events.index("server stopped")


def test_a_burst_beyond_grpcs_own_queue_is_served_or_refused_with_a_reason(
    spawn: Callable[..., ServerProcess],
) -> None:
    # grpc's core starts cancelling calls at random once 1,000 wait to be taken; the server
    # lets that queue grow, so every call of a burst is either served or refused OVERLOADED.
    server = spawn([str(SLOW_SERVER), *FREE_PORTS, "--max-concurrent-rpcs", "256"])
    port = server.wait_started()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        sleep = channel.unary_unary("/baloot.test.SlowService/Sleep")
        sleep(b"0", timeout=10)
        codes = _statuses([sleep.future(b"1.5", timeout=60) for _ in range(1500)])
    assert set(codes) <= {"OK", "RESOURCE_EXHAUSTED"}, codes
    assert codes["OK"] >= 256
    assert codes["RESOURCE_EXHAUSTED"] > 0
    assert server.terminate(timeout=60) == 0
    shed = [r for r in server.records() if r["event"] == "calls shed"]
    assert sum(r["calls"] for r in shed) == codes["RESOURCE_EXHAUSTED"]


def test_streams_cancelled_by_their_client_leave_the_server_running(
    spawn: Callable[..., ServerProcess],
) -> None:
    # A cancelled stream once left a suspended generator that the garbage collector closed
    # after grpc had freed the call: the server died of a segmentation fault.
    server = spawn(["-m", "baloot_engine", *FREE_PORTS])
    port = server.wait_started()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        reflect = reflection_pb2_grpc.ServerReflectionStub(channel)
        health = health_pb2_grpc.HealthStub(channel)
        for _ in range(30):
            stream = reflect.ServerReflectionInfo(
                iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=10
            )
            assert next(stream).list_services_response.service
            stream.cancel()
            watch = health.Watch(health_pb2.HealthCheckRequest(), timeout=10)
            assert next(watch).status == SERVING
            watch.cancel()
        time.sleep(0.5)
        assert server.process.poll() is None
        reply = health.Check(health_pb2.HealthCheckRequest(), timeout=10)
        assert reply.status == SERVING
    assert server.terminate() == 0
    assert not [r for r in server.records() if r["level"] == "error"]


def _spawned_children(pid: int) -> list[str]:
    """The command lines of ``pid``'s children that multiprocessing spawned."""
    return list(_spawned(pid).values())


def _spawned_pids(pid: int) -> list[str]:
    """The process ids of ``pid``'s children that multiprocessing spawned."""
    return list(_spawned(pid))


def _spawned(pid: int) -> dict[str, str]:
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, IndexError, ValueError):
            continue
        if parent == pid and "multiprocessing" in command and "spawn_main" in command:
            found[entry.name] = command
    return found


def test_the_bot_pool_and_the_analysis_worker_start_with_the_server(
    spawn: Callable[..., ServerProcess],
) -> None:
    # Their processes start with the server, so the first searching bot, solve or analysis
    # does not wait a second or more for a process to spawn and import the engine.
    server = spawn(["-m", "baloot_engine", *FREE_PORTS])
    server.wait_started()
    wait_until(lambda: len(_spawned_children(server.process.pid)) >= 2, "the server's processes")
    assert server.terminate() == 0


def test_the_server_s_processes_end_with_it_even_when_it_is_killed(
    spawn: Callable[..., ServerProcess],
) -> None:
    # A server killed outright (SIGKILL, the out-of-memory killer) leaves no orphan running:
    # its bots' process and analysis worker end with it.
    server = spawn(["-m", "baloot_engine", *FREE_PORTS])
    server.wait_started()
    pid = server.process.pid
    wait_until(lambda: len(_spawned_children(pid)) >= 2, "the server's processes")
    children = [int(c) for c in _spawned_pids(pid)]
    server.process.kill()
    server.process.wait(HANG_GUARD)
    wait_until(
        lambda: not any(Path(f"/proc/{c}").exists() for c in children),
        "the processes of a killed server to end",
    )
