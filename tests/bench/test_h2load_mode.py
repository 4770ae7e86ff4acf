"""The h2load mode of ``bench/bench_service.py`` still works: real replays, checked replies.

Not a timed test: nothing here depends on how fast the machine is. It checks that the
replayed requests are accepted by a real server (h2load would count HTTP 200 for a gRPC
error too), that the status-code check catches replies that are not OK, and that the whole
mode runs end to end briefly. h2load comes from Debian's nghttp2-client, which ``.ci/run``
installs (and the benchmark installs itself when run as root).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
for path in (ROOT, BENCH):  # the benchmark's modules, and the load test's next to them
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import h2load_replay as h2  # noqa: E402 - needs bench/ on the path
from loadtest.stack import new_state_key  # noqa: E402
from tests.waiting import wait_until  # noqa: E402

from baloot.v1 import engine_service_pb2 as pb  # noqa: E402

pytestmark = pytest.mark.slow

REQUESTS = 200


@pytest.fixture(scope="module")
def h2load() -> str:
    try:
        return h2.ensure_h2load()
    except (h2.BenchError, subprocess.CalledProcessError) as error:
        pytest.skip(f"h2load cannot be installed here: {error}")


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A default and a quiet server sharing one key, and the requests prepared on them."""
    scratch = tmp_path_factory.mktemp("h2load")
    key = new_state_key()
    default = h2.start_engine(scratch, "default", key)
    try:
        quiet = h2.start_engine(scratch, "quiet", key, quiet=True)
    except BaseException:
        default.stop()
        raise
    try:
        replays = {"health Check": h2.health_replay(), **h2.prepare_replays(default.target)}
        yield {"default": default, "quiet": quiet, "replays": replays, "scratch": scratch}
    finally:
        quiet.stop()
        default.stop()


def test_the_framing_is_a_grpc_length_prefixed_message() -> None:
    assert h2.grpc_frame(b"") == b"\x00\x00\x00\x00\x00"
    assert h2.grpc_frame(b"ab" * 150) == b"\x00\x00\x00\x01\x2c" + b"ab" * 150


def test_every_prepared_request_is_accepted_by_both_servers(stack: dict[str, Any]) -> None:
    replays: dict[str, h2.Replay] = stack["replays"]
    assert set(replays) == {
        "health Check",
        "PlayCard seat",
        "PlayCard host",
        "DealRound",
        "PlaceBid",
        "GetView",
    }
    for replay in replays.values():
        for server in ("default", "quiet"):
            code, details = h2.call_raw(stack[server].target, replay.method, replay.message)
            assert code.name == "OK", (replay.name, server, details)
    seat = pb.PlayCardRequest.FromString(replays["PlayCard seat"].message)
    host = pb.PlayCardRequest.FromString(replays["PlayCard host"].message)
    assert seat.state == host.state
    assert seat.credential != host.credential


@pytest.mark.parametrize("rpc", ["health Check", "PlayCard seat"])
def test_a_replay_under_h2load_ends_ok_every_time(
    h2load: str, stack: dict[str, Any], rpc: str
) -> None:
    replay: h2.Replay = stack["replays"][rpc]
    body = replay.write_body(stack["scratch"])
    sample, _ = h2.measure(
        h2load, stack["default"], replay, body, requests=REQUESTS, connections=2, streams=4
    )
    assert sample.calls == REQUESTS
    assert sample.not_ok == {}
    assert sample.ok_counted is not None
    assert sample.ok_counted >= REQUESTS
    assert sample.verified
    assert sample.server_us_per_call > 0
    quiet, _ = h2.measure(
        h2load, stack["quiet"], replay, body, requests=REQUESTS, connections=2, streams=4
    )
    assert quiet.calls == REQUESTS
    assert quiet.ok_counted is None
    assert quiet.verified


def test_replies_that_are_not_ok_are_caught(h2load: str, stack: dict[str, Any]) -> None:
    good: h2.Replay = stack["replays"]["PlayCard seat"]
    request = pb.PlayCardRequest.FromString(good.message)
    state = bytearray(request.state)
    state[-1] ^= 1  # the token no longer opens
    request.state = bytes(state)
    bad = h2.Replay("PlayCard broken", good.method, request.SerializeToString())
    metrics = stack["default"].metrics_url
    refused_before = h2.handled(metrics)[bad.method, "INVALID_ARGUMENT"]
    with pytest.raises(h2.BenchError, match="INVALID_ARGUMENT"):
        h2.check_replay(stack["default"].target, bad)
    # The server counts a call once its status is sent, so the client may see the refusal
    # first: wait until the check's own call is counted, or it would land in the run's delta.
    wait_until(
        lambda: h2.handled(metrics)[bad.method, "INVALID_ARGUMENT"] != refused_before,
        "the refused check call to be counted",
        poll=0.05,
    )
    sample, _ = h2.measure(
        h2load,
        stack["default"],
        bad,
        bad.write_body(stack["scratch"]),
        requests=REQUESTS,
        connections=2,
        streams=4,
    )
    # h2load itself sees HTTP 200 for every call; only the server's counter tells.
    assert sample.calls == REQUESTS
    assert sample.not_ok == {"INVALID_ARGUMENT": REQUESTS}
    assert not sample.verified


def test_the_whole_mode_runs_briefly(h2load: str) -> None:
    del h2load  # installed by the fixture
    done = subprocess.run(
        [
            sys.executable,
            str(BENCH / "bench_service.py"),
            "--mode",
            "h2load",
            "--requests",
            str(REQUESTS),
            "--rounds",
            "1",
            "--mix-seconds",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=280,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "every replayed call ended OK" in out
    for line in (
        "bare grpc.aio no-op",
        "PlayCard seat [default]",
        "GetView [quiet]",
        "logging + metrics, share",
        "the load test's match mix",
        "2 workers, Envoy",
        "PlayCard (seat) server CPU / health check, default settings:",
        "2 workers / 1 worker under h2load, one port:",
    ):
        assert line in out, (line, out)
    assert f"{REQUESTS} OK, 0 other (server metrics)" in out
