"""The container health check: exit 0 only while the server answers SERVING."""

from __future__ import annotations

import socket
from collections.abc import Callable

import pytest

from baloot_engine.server.healthcheck import check, main

from .conftest import InProcessServer


def test_a_serving_server_passes(
    server: InProcessServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--target", server.target]) == 0
    assert capsys.readouterr().out.strip() == f"{server.target}: SERVING"
    assert check(server.target, "baloot.v1.BalootEngineService") == "SERVING"


def test_an_unknown_health_entry_fails(server: InProcessServer) -> None:
    assert main(["--target", server.target, "--service", "no.such.Service"]) == 1
    assert check(server.target, "no.such.Service") == "NOT_FOUND"


def test_a_draining_server_fails(start_server: Callable[..., InProcessServer]) -> None:
    running = start_server()
    running.run(running.app.health.enter_graceful_shutdown())
    assert check(running.target) == "NOT_SERVING"
    assert main(["--target", running.target]) == 1


def test_nothing_listening_fails() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert main(["--target", f"127.0.0.1:{port}", "--timeout", "1"]) == 1
