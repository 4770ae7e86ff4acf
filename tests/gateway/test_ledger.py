"""The match ledger across processes: two workers sharing one ledger, and Envoy in front.

A redis-server, the service with ``--workers 2`` and ``BALOOT_LEDGER``, and the gateway run on
free loopback ports for the module. A fork of a match is refused whichever worker gets it,
and through the gateway too, where also of two concurrent actions from one token exactly
one wins.
"""

from __future__ import annotations

import contextlib
import functools
import random
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import pytest
from baloot_client import EngineClient, Match
from loadtest import stack
from tests.api.conftest import (
    Refusal,
    Table,
    action_call,
    expect_refusal,
    read_calls,
    read_refusal,
)
from tests.api.redis_server import RedisServer

from baloot.v1 import rules_pb2, types_pb2

pytestmark = pytest.mark.slow

SEEDS = rules_pb2.RuleSet(preset=rules_pb2.PRESET_SEEDS)
FAILED_PRECONDITION = grpc.StatusCode.FAILED_PRECONDITION
# Each channel its own connection (and so, with SO_REUSEPORT, possibly its own worker).
OWN_CONNECTION = [("grpc.use_local_subchannel_pool", 1)]


@pytest.fixture(scope="module")
def deployment(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[stack.Service, stack.Gateway, RedisServer]]:
    logs = tmp_path_factory.mktemp("ledger")
    redis = RedisServer(Path(logs) / "redis").start()
    try:
        service = stack.start_service(
            logs,
            workers=2,
            key=stack.new_state_key(),
            env_extra={"BALOOT_LEDGER": redis.url},
        )
        try:
            gateway = stack.start_gateway(logs, [service.target])
            try:
                yield service, gateway, redis
            finally:
                gateway.child.stop()
        finally:
            service.child.stop()
    finally:
        redis.stop()


def copy_at(match: Match, client: EngineClient, state: bytes, version: int) -> Match:
    return Match(
        client=client,
        match_id=match.match_id,
        host_credential=match.host_credential,
        seat_credentials=match.seat_credentials,
        state=state,
        version=version,
        views=[],
    )


def test_two_workers_share_one_ledger(
    deployment: tuple[stack.Service, stack.Gateway, RedisServer],
) -> None:
    service, _gateway, redis = deployment
    with channels_to(service.target, 8) as channels:
        clients = [EngineClient(c) for c in channels]
        match = clients[0].create_match(SEEDS, first_dealer=0)
        table = Table(match, random.Random(81), seat_share=0)
        history: list[tuple[bytes, int]] = [(match.state, match.version)]
        # Every action on another connection, so both workers take part.
        while match.version < 24:
            match.client = clients[match.version % len(clients)]
            table.step()
            history.append((match.state, match.version))
        assert redis.get(f"baloot:match:{match.match_id}") is not None
        calls = service.calls_by_process()
        assert len([pid for pid, count in calls.items() if count > 0]) == 2, calls
        # Every old token is refused, on every connection (whichever worker holds it).
        for index, (state, version) in enumerate(history[:-1]):
            old = copy_at(match, clients[index % len(clients)], state, version)
            for method, request in read_calls(old.client.stub, old, 0):
                refused = expect_refusal(method, request, FAILED_PRECONDITION, "STALE_STATE")
                assert refused.metadata["latest_version"] == str(match.version)
        # The latest one goes on, on any connection.
        for client in clients:
            assert copy_at(match, client, match.state, match.version).view(0).state_version == 24


def test_forks_are_refused_through_the_gateway(
    deployment: tuple[stack.Service, stack.Gateway, RedisServer],
) -> None:
    _service, gateway, _redis = deployment
    with channels_to(gateway.target, 2) as channels:
        client = EngineClient(channels[0])
        stubs = [client.stub, EngineClient(channels[1]).stub]
        table = Table(client.create_match(SEEDS, first_dealer=0), random.Random(82), seat_share=0)
        table.play(lambda v: v.phase == types_pb2.PHASE_PLAYING and v.state_version >= 8)
        match = table.match
        won = 0
        with ThreadPoolExecutor(2) as pool:
            while won < 6 and table.latest.phase == types_pb2.PHASE_PLAYING:
                turn = table.latest.turn
                options = list(table.seat_view(turn).legal_actions)
                if len(options) < 2:
                    table.step()
                    continue
                old = (match.state, match.version)
                calls = [
                    action_call(stub, match, turn, action)
                    for stub, action in zip(stubs, options[:2], strict=True)
                ]
                answers = list(pool.map(functools.partial(at_once, threading.Barrier(2)), calls))
                accepted = [a for a in answers if not isinstance(a, Refusal)]
                refused = [a for a in answers if isinstance(a, Refusal)]
                assert len(accepted) == 1, answers
                assert [(r.code, r.reason) for r in refused] == [
                    (FAILED_PRECONDITION, "STALE_STATE")
                ]
                match.state, match.version = accepted[0].state, accepted[0].state_version
                table.views = {view.seat: view for view in accepted[0].views}
                # The loser's token, once more through the gateway: still refused.
                loser = options[1] if answers[0] is accepted[0] else options[0]
                method, request = action_call(stubs[0], match, turn, loser, state=old[0])
                expect_refusal(method, request, FAILED_PRECONDITION, "STALE_STATE")
                won += 1
        assert won == 6


def at_once(barrier: threading.Barrier, call: tuple[Callable[..., Any], Any]) -> Any:
    barrier.wait()
    try:
        return call[0](call[1], timeout=10)
    except grpc.RpcError as error:
        return read_refusal(error)


@contextlib.contextmanager
def channels_to(target: str, count: int) -> Iterator[list[grpc.Channel]]:
    """``count`` channels to ``target``, each on its own connection, closed on exit."""
    channels = [grpc.insecure_channel(target, options=OWN_CONNECTION) for _ in range(count)]
    try:
        yield channels
    finally:
        for channel in channels:
            channel.close()
