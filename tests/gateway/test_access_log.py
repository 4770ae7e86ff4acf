"""The gateway's access log names the real gRPC status of gRPC-Web calls; CORS origins add up."""

from __future__ import annotations

import struct
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from loadtest import stack

from baloot.v1 import engine_service_pb2 as pb

GATEWAY_SCRIPT = stack.ROOT / "scripts" / "gateway.py"
LOCAL = r"https?://(localhost|127\.0\.0\.1|\[::1\])(:[0-9]+)?"
SITE = r"https://play\.example\.com"


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[stack.Gateway]:
    logs = tmp_path_factory.mktemp("gateway-log")
    service = stack.start_service(logs, key=stack.new_state_key(), log_level="info")
    try:
        running = stack.start_gateway(logs, [service.target])
        try:
            yield running
        finally:
            running.child.stop()
    finally:
        service.child.stop()


def _grpc_web(gateway: stack.Gateway, method: str, message: bytes, request_id: str) -> None:
    request = urllib.request.Request(
        f"http://{gateway.target}/baloot.v1.BalootEngineService/{method}",
        data=b"\x00" + struct.pack(">I", len(message)) + message,
        headers={
            "content-type": "application/grpc-web+proto",
            "x-grpc-web": "1",
            "x-request-id": request_id,
        },
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as reply:  # noqa: S310
        assert reply.status == 200
        reply.read()


def _logged(gateway: stack.Gateway, request_id: str) -> dict[str, Any]:
    stack.wait_until(
        lambda: any(r["request_id"] == request_id for r in gateway.access_log()),
        15,
        f"the access log line of {request_id}",
    )
    (line,) = [r for r in gateway.access_log() if r["request_id"] == request_id]
    return line


@pytest.mark.slow
def test_a_grpc_web_success_is_logged_as_ok(gateway: stack.Gateway) -> None:
    facts = pb.ScoreRoundRequest(
        contract_type=1, buyer_team=0, card_abnat=[80, 50], tricks_won=[5, 3]
    )
    _grpc_web(gateway, "ScoreRound", facts.SerializeToString(), "web-ok")
    line = _logged(gateway, "web-ok")
    assert line["protocol"] == "HTTP/1.1"
    assert line["grpc_status"] == "OK"


@pytest.mark.slow
def test_a_grpc_web_refusal_is_logged_with_its_code(gateway: stack.Gateway) -> None:
    _grpc_web(gateway, "ScoreRound", b"", "web-refused")
    assert _logged(gateway, "web-refused")["grpc_status"] == "InvalidArgument"


def _origins(tmp_path: Path, *flags: str) -> list[str]:
    output = tmp_path / "envoy.yaml"
    subprocess.run(
        [sys.executable, str(GATEWAY_SCRIPT), "render", *flags, "--output", str(output)],
        check=True,
    )
    config = yaml.safe_load(output.read_text())
    manager = config["static_resources"]["listeners"][0]["filter_chains"][0]["filters"][0]
    (host,) = manager["typed_config"]["route_config"]["virtual_hosts"]
    cors = host["typed_per_filter_config"]["envoy.filters.http.cors"]
    return [match["safe_regex"]["regex"] for match in cors["allow_origin_string_match"]]


def test_a_cors_origin_is_added_to_the_local_pages(tmp_path: Path) -> None:
    assert _origins(tmp_path) == [LOCAL]
    assert _origins(tmp_path, "--cors-origin", SITE) == [LOCAL, SITE]
    assert _origins(tmp_path, "--cors-origin", SITE, "--no-preset-origins") == [SITE]
