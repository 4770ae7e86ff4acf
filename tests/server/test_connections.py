"""Connections: a maximum age that makes clients reconnect, keepalive, and the options behind."""

from __future__ import annotations

from collections.abc import Callable

import grpc
import grpc.aio
from tests.waiting import HANG_GUARD, wait_until

from baloot_engine.server.app import server_options
from baloot_engine.server.settings import Settings

from .conftest import InProcessServer


async def _peer(_request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> bytes:
    return context.peer().encode()


PEER_SERVICE = grpc.method_handlers_generic_handler(
    "baloot.test.PeerService", {"Peer": grpc.unary_unary_rpc_method_handler(_peer)}
)


def test_an_old_connection_is_closed_gracefully_and_the_client_reconnects(
    start_server: Callable[..., InProcessServer],
) -> None:
    running = start_server(
        extra_handlers=[PEER_SERVICE],
        max_connection_age_seconds=0.5,
        max_connection_age_grace_seconds=1,
    )
    peers: list[str] = []
    with grpc.insecure_channel(running.target) as channel:
        peer = channel.unary_unary("/baloot.test.PeerService/Peer")

        def reconnected_twice() -> bool:
            peers.append(peer(b"", timeout=HANG_GUARD).decode())  # none fails across them
            # Each connection comes from a new client port.
            return len(set(peers)) >= 3

        wait_until(reconnected_twice, "two reconnections", poll=0.05)


def test_the_connection_options_follow_the_settings() -> None:
    options = dict(server_options(Settings(), reuse_port=False))
    assert options["grpc.keepalive_time_ms"] == 60_000
    assert options["grpc.keepalive_timeout_ms"] == 20_000
    assert options["grpc.max_connection_age_ms"] == 300_000
    assert "grpc.max_concurrent_streams" not in options  # grpc's own unless set
    assert options["grpc.max_connection_age_grace_ms"] == 620_000  # past any stream's deadline
    # Envoy pings its upstream connections every 30 s, also when idle: that must be allowed.
    assert options["grpc.keepalive_permit_without_calls"] == 1
    assert options["grpc.http2.min_ping_interval_without_data_ms"] <= 30_000
    # grpc's own queue of calls not yet taken holds many times the bound.
    assert options["grpc.server.max_pending_requests"] >= 16 * 256
    assert options["grpc.so_reuseport"] == 0

    off = dict(
        server_options(
            Settings(keepalive_seconds=0, max_connection_age_seconds=0, max_concurrent_rpcs=2),
            reuse_port=True,
        )
    )
    assert "grpc.keepalive_time_ms" not in off
    assert "grpc.max_connection_age_ms" not in off
    # Never below a floor far above grpc's default (1,000), however low the bound: a burst that
    # waits for a busy loop reaches the gate (OVERLOADED) instead of being cancelled by grpc.
    assert off["grpc.server.max_pending_requests"] == 8000
    assert off["grpc.server.max_pending_requests_hard_limit"] == 16000
    assert off["grpc.so_reuseport"] == 1
