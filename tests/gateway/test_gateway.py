"""The Envoy gateway: native gRPC and gRPC-Web on one port, CORS, request ids, admin on loopback."""

from __future__ import annotations

import struct
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import yaml
from loadtest import stack

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot.v1 import rules_pb2

pytestmark = pytest.mark.slow

GATEWAY_SCRIPT = stack.ROOT / "scripts" / "gateway.py"
METHOD = "/baloot.v1.BalootEngineService/CreateMatch"


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[stack.Gateway]:
    """A service and Envoy in front of it, shared by the tests of this module."""
    logs = tmp_path_factory.mktemp("gateway")
    service = stack.start_service(logs, key=stack.new_state_key(), log_level="info")
    try:
        running = stack.start_gateway(logs, [service.target])
        try:
            yield running
        finally:
            running.child.stop()
    finally:
        service.child.stop()


def _grpc_web(gateway: stack.Gateway, message: bytes) -> tuple[int, dict[str, str], bytes]:
    """POST one gRPC-Web call (binary framing) as a browser would; return status, headers, body."""
    request = urllib.request.Request(
        f"http://{gateway.target}{METHOD}",
        data=b"\x00" + struct.pack(">I", len(message)) + message,
        headers={
            "content-type": "application/grpc-web+proto",
            "x-grpc-web": "1",
            "origin": "http://localhost:5173",
            "x-request-id": "web-1",
        },
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as reply:  # noqa: S310
        return reply.status, {k.lower(): v for k, v in reply.headers.items()}, reply.read()


def _frames(body: bytes) -> list[tuple[int, bytes]]:
    frames = []
    while body:
        flag, length = body[0], struct.unpack(">I", body[1:5])[0]
        frames.append((flag, body[5 : 5 + length]))
        body = body[5 + length :]
    return frames


def test_native_grpc_goes_through_and_keeps_the_request_id(gateway: stack.Gateway) -> None:
    with grpc.insecure_channel(gateway.target) as channel:
        stub = pb_grpc.BalootEngineServiceStub(channel)
        response, call = stub.CreateMatch.with_call(
            pb.CreateMatchRequest(rules=rules_pb2.RuleSet(preset=rules_pb2.PRESET_SEEDS)),
            metadata=[("x-request-id", "native-1")],
            timeout=10,
        )
    assert response.match_id
    assert ("x-request-id", "native-1") in call.trailing_metadata()
    stack.wait_until(
        lambda: any(r["request_id"] == "native-1" for r in gateway.access_log()),
        15,
        "the access log line",
    )
    (line,) = [r for r in gateway.access_log() if r["request_id"] == "native-1"]
    assert line["path"] == METHOD
    assert line["grpc_status"] == "OK"
    assert line["protocol"] == "HTTP/2"


def test_grpc_web_from_a_browser_page_is_translated(gateway: stack.Gateway) -> None:
    request = pb.CreateMatchRequest(rules=rules_pb2.RuleSet(preset=rules_pb2.PRESET_KAMMELNA))
    status, headers, body = _grpc_web(gateway, request.SerializeToString())
    assert status == 200
    assert headers["content-type"].startswith("application/grpc-web")
    assert headers["access-control-allow-origin"] == "http://localhost:5173"
    assert "grpc-status" in headers["access-control-expose-headers"]
    frames = _frames(body)
    data = [payload for flag, payload in frames if flag == 0]
    trailers = [payload for flag, payload in frames if flag & 0x80]
    assert len(data) == 1
    assert pb.CreateMatchResponse.FromString(data[0]).match_id
    assert b"grpc-status:0" in trailers[0].replace(b" ", b"")


def test_grpc_web_errors_carry_the_status_in_the_trailers(gateway: stack.Gateway) -> None:
    # An empty PlayCard request is malformed: INVALID_ARGUMENT (3), not an HTTP error.
    request = urllib.request.Request(
        f"http://{gateway.target}/baloot.v1.BalootEngineService/PlayCard",
        data=b"\x00\x00\x00\x00\x00",
        headers={"content-type": "application/grpc-web+proto", "x-grpc-web": "1"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as reply:  # noqa: S310
        status = reply.status
        headers = {k.lower(): v for k, v in reply.headers.items()}
        body = reply.read()
    assert status == 200
    code = headers.get("grpc-status")
    if code is None:  # sent in a trailer frame when the response has a body
        trailer = next(payload for flag, payload in _frames(body) if flag & 0x80)
        code = trailer.replace(b" ", b"").split(b"grpc-status:")[1].split(b"\r\n")[0].decode()
    assert code == "3"


@pytest.mark.parametrize(
    ("origin", "allowed"),
    [
        ("http://localhost:5173", True),
        ("http://127.0.0.1:8000", True),
        ("https://evil.example", False),
    ],
)
def test_cors_preflight_allows_local_pages_only(
    gateway: stack.Gateway, origin: str, allowed: bool
) -> None:
    request = urllib.request.Request(
        f"http://{gateway.target}{METHOD}",
        headers={
            "origin": origin,
            "access-control-request-method": "POST",
            "access-control-request-headers": "content-type,x-grpc-web,x-user-agent",
        },
        method="OPTIONS",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:  # noqa: S310
            headers = {k.lower(): v for k, v in reply.headers.items()}
    except urllib.error.HTTPError as error:
        headers = {k.lower(): v for k, v in error.headers.items()}
    assert (headers.get("access-control-allow-origin") == origin) is allowed
    if allowed:
        assert "x-grpc-web" in headers["access-control-allow-headers"]


def test_the_admin_interface_listens_on_loopback_only(gateway: stack.Gateway) -> None:
    assert gateway.admin("/ready").strip() == "LIVE"
    refused = subprocess.run(
        [sys.executable, str(GATEWAY_SCRIPT), "render", "--admin", "0.0.0.0:9901"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert refused.returncode != 0
    assert "loopback" in refused.stderr


def test_render_applies_the_addresses(tmp_path: Path) -> None:
    output = tmp_path / "envoy.yaml"
    subprocess.run(
        [
            sys.executable,
            str(GATEWAY_SCRIPT),
            "render",
            "--listen",
            "127.0.0.1:18080",
            "--upstream",
            "127.0.0.1:50061",
            "--upstream",
            "127.0.0.1:50062",
            "--cors-origin",
            r"https://play\.example\.com",
            "--output",
            str(output),
        ],
        check=True,
    )
    config = yaml.safe_load(output.read_text())
    resources = config["static_resources"]
    assert resources["listeners"][0]["address"]["socket_address"]["port_value"] == 18080
    endpoints = resources["clusters"][0]["load_assignment"]["endpoints"][0]["lb_endpoints"]
    ports = [e["endpoint"]["address"]["socket_address"]["port_value"] for e in endpoints]
    assert ports == [50061, 50062]
    assert config["admin"]["address"]["socket_address"]["address"] == "127.0.0.1"


def _render(tmp_path: Path, *args: str) -> Any:
    output = tmp_path / "rendered.yaml"
    subprocess.run(
        [sys.executable, str(GATEWAY_SCRIPT), "render", *args, "--output", str(output)],
        check=True,
    )
    return yaml.safe_load(output.read_text())


def _cluster(config: Any) -> Any:
    return config["static_resources"]["clusters"][0]


@pytest.mark.parametrize(
    ("args", "limit"),
    [
        ([], 256),  # one process at the default upstream
        (["--upstream", "127.0.0.1:50061", "--upstream", "127.0.0.1:50062"], 512),
        (["--upstream-capacity", "512"], 512),  # one address, two workers
        (["--preset", "compose"], 512),  # the two replicas of docker-compose.yml
        (["--preset", "k8s"], 20 * 256),  # the HPA's maximum
        (["--preset", "k8s", "--endpoints", "4"], 4 * 256),
    ],
)
def test_the_circuit_breaker_is_what_the_endpoints_take_together(
    tmp_path: Path, args: list[str], limit: int
) -> None:
    cluster = _cluster(_render(tmp_path, *args))
    (breaker,) = cluster["circuit_breakers"]["thresholds"]
    assert breaker["max_requests"] == limit
    assert breaker["max_pending_requests"] == limit
    options = cluster["typed_extension_protocol_options"]
    http2 = next(iter(options.values()))["explicit_http_config"]["http2_protocol_options"]
    # No upstream connection carries more calls than one process takes.
    assert http2["max_concurrent_streams"] == 256


def test_envoy_retries_what_a_stopping_replica_may_answer_and_checks_health(
    tmp_path: Path,
) -> None:
    config = _render(tmp_path)
    cluster = _cluster(config)
    (check,) = cluster["health_checks"]
    assert check["grpc_health_check"] == {"service_name": ""}
    assert check["interval"] == "1s"
    assert check["unhealthy_threshold"] <= 2
    listener = config["static_resources"]["listeners"][0]
    manager = listener["filter_chains"][0]["filters"][0]["typed_config"]
    routes = manager["route_config"]["virtual_hosts"][0]["routes"]
    for route in routes:
        if route["name"] in ("reads", "heavy", "actions"):
            retry_on = set(route["route"]["retry_policy"]["retry_on"].split(","))
            assert {"unavailable", "reset", "connect-failure", "refused-stream"} <= retry_on
            # RESOURCE_EXHAUSTED (a full lane, a quota) carries its own retry delay.
            assert "resource-exhausted" not in retry_on


def test_heavy_work_gets_the_time_its_lanes_allow(tmp_path: Path) -> None:
    # An EXPERT decision may search 5 s and a solve 10 s, after a wait in its lane's queue:
    # the gateway's 3 s per try of the other actions would cut them.
    config = _render(tmp_path)
    listener = config["static_resources"]["listeners"][0]
    manager = listener["filter_chains"][0]["filters"][0]["typed_config"]
    routes = {r["name"]: r for r in manager["route_config"]["virtual_hosts"][0]["routes"]}
    heavy = routes["heavy"]
    regex = heavy["match"]["safe_regex"]["regex"]
    for method in ("SuggestAction", "ApplyBotAction", "SolveDeal"):
        assert method in regex
    names = list(routes)
    assert names.index("heavy") < names.index("actions")  # matched before the prefix route
    per_try = float(heavy["route"]["retry_policy"]["per_try_timeout"].rstrip("s"))
    assert per_try > 10
