"""Start-up and shutdown of the gRPC server process.

Why grpc.aio rather than the thread-pool server: the work of an RPC is pure Python (open a
token, apply a rule, seal a token), so a thread pool adds a hand-off per call and GIL contention
without running anything in parallel, and every open stream (a health Watch) would hold a
thread. One event loop per process keeps each call on one thread and idle connections cheap;
throughput scales with processes (``BALOOT_WORKERS``) and replicas. Measured on a 2-core
machine with a trivial unary echo, both servers cost the same server CPU per call within the
noise (0.3-0.6 ms), so the sync server is not faster and the structural reasons decide.

The layers: :func:`create_server` builds a bound, not yet started server (tests bind port 0 in
process); :class:`EngineServer` adds the lifecycle (metrics endpoint, health SERVING after start,
NOT_SERVING then a graceful drain on stop, see :meth:`EngineServer.stop`); :func:`serve` runs
it until SIGTERM or SIGINT; :func:`main` is the console entry point (``baloot-server`` and
``python -m baloot_engine``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import Any, Final, cast

import grpc
import grpc.aio
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import SERVICE_NAME as HEALTH_SERVICE_NAME
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection, reflection_pb2_grpc

from baloot.v1 import engine_service_pb2_grpc
from baloot_engine import __version__
from baloot_engine.api.attestation import AttestationKeyError, Attestor, load_attestor, show_key
from baloot_engine.api.calls import door_of
from baloot_engine.api.ledger import LedgerClientMissingError, MatchLedger, redact_url
from baloot_engine.api.sealing import KeyRing, StateKeyError, load_or_create_key_file
from baloot_engine.api.servicer import SERVICE_NAME, BalootEngineServicer
from baloot_engine.lanes import Lanes
from baloot_engine.server import eventloop
from baloot_engine.server.caches import CacheCollector, install_memory_dump, inventory
from baloot_engine.server.closing import Closing
from baloot_engine.server.interceptors import CallGate, TelemetryHandler
from baloot_engine.server.settings import (
    Settings,
    SettingsError,
    load_settings,
    unknown_variables,
)
from baloot_engine.server.workers import run_workers
from baloot_engine.telemetry.logs import configure_logging, get_logger
from baloot_engine.telemetry.metrics import (
    Metrics,
    MetricsEndpoint,
    multiprocess_values,
    start_metrics_endpoint,
)

SERVING: Final = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING: Final = health_pb2.HealthCheckResponse.NOT_SERVING
# The health entries kept by the server: "" is the whole server, as probes ask by default.
HEALTH_ENTRIES: Final = ("", SERVICE_NAME)
# The lame-duck period ends once no call has arrived for this long: nothing is on its way.
QUIET_SECONDS: Final = 0.5
# Keepalive pings the server sends must be answered within this time.
KEEPALIVE_TIMEOUT_SECONDS: Final = 20
# Client pings (Envoy's upstream keepalive: every 30 s) are accepted this often, even on a
# connection with no call; grpc's default (5 minutes) would close such connections.
MIN_CLIENT_PING_SECONDS: Final = 10
# Calls grpc has received but the event loop has not yet taken wait in grpc's core; past 1,000
# of them (grpc's default) it starts cancelling new ones at random, silently (the client sees
# CANCELLED, and no metric counts them). Taking a call and refusing it with OVERLOADED is cheap
# (its body is not even parsed), so the queue is let grow to this many times the bound, and to
# at least MIN_PENDING_CALLS whatever the bound, before grpc's own limit: a burst that arrives
# while the loop is busy reaches the gate and is refused with OVERLOADED and counted. 8,000
# waiting calls took 294 MB, client and server in one process (the server's part is less);
# past the floor (and twice it, where grpc refuses every new call) grpc's cancelling remains.
PENDING_CALLS_PER_ADMITTED: Final = 16
MIN_PENDING_CALLS: Final = 8000

DRAIN_MARGIN_SECONDS: Final = 1.0
"""Heavy work still running this long before the grace period ends is stopped with DRAINING."""
PARK_QUIET_SECONDS: Final = 0.2
PARK_SECONDS: Final = 2.0
"""After the lame duck, calls that still come are parked (:mod:`~baloot_engine.server.closing`)
until none has come for ``PARK_QUIET_SECONDS``, for at most ``PARK_SECONDS``."""
GOAWAY_SECONDS: Final = 0.1
"""How long after grpc's shutdown began the parked calls are refused: its GOAWAY is out."""

_log = get_logger("baloot_engine.server")


def _loopback(host: str) -> bool:
    return host in ("localhost", "127.0.0.1", "::1", "[::1]") or host.startswith("127.")


class _Services:
    """What the generated ``add_*Servicer_to_server`` functions see of the server: it keeps
    their generic handlers, for :class:`TelemetryHandler` to wrap, and drops their registered
    method handlers.

    grpc.aio then finds every method through the one generic handler, with the same handlers
    and the same answers (UNIMPLEMENTED for an unknown method). grpc's registered methods cost
    every call, of any service, more than they save: about 75,000 CPU instructions per health
    check under h2load, a fifth of what grpc.aio itself spends on a call
    (``docs/performance.md``).
    """

    def __init__(self) -> None:
        self.handlers: list[grpc.GenericRpcHandler] = []

    def add_generic_rpc_handlers(self, handlers: Sequence[grpc.GenericRpcHandler]) -> None:
        """Keep the service's generic handlers."""
        self.handlers.extend(handlers)

    def add_registered_method_handlers(self, service: str, handlers: dict[str, Any]) -> None:
        """Leave the same handlers out of grpc's registered methods."""
        del service, handlers


class ServerStartError(RuntimeError):
    """The server could not start (a port in use, an address that does not resolve)."""


def server_options(settings: Settings, *, reuse_port: bool) -> list[tuple[str, int]]:
    """The grpc channel arguments of the server."""
    options = [
        ("grpc.max_receive_message_length", settings.max_message_bytes),
        ("grpc.max_send_message_length", settings.max_message_bytes),
        # A single process owns the port: a second server on the same port fails to start
        # instead of silently sharing the traffic. Workers share it on purpose; their
        # supervisor checks first that no other server holds it.
        ("grpc.so_reuseport", 1 if reuse_port else 0),
        (
            "grpc.server.max_pending_requests",
            max(MIN_PENDING_CALLS, PENDING_CALLS_PER_ADMITTED * settings.max_concurrent_rpcs),
        ),
        (
            "grpc.server.max_pending_requests_hard_limit",
            2 * max(MIN_PENDING_CALLS, PENDING_CALLS_PER_ADMITTED * settings.max_concurrent_rpcs),
        ),
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.min_ping_interval_without_data_ms", MIN_CLIENT_PING_SECONDS * 1000),
    ]
    if settings.max_streams_per_connection > 0:
        # One connection's calls in flight (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS).
        options.append(("grpc.max_concurrent_streams", settings.max_streams_per_connection))
    if settings.keepalive_seconds > 0:
        options += [
            ("grpc.keepalive_time_ms", _millis(settings.keepalive_seconds)),
            ("grpc.keepalive_timeout_ms", KEEPALIVE_TIMEOUT_SECONDS * 1000),
        ]
    if settings.max_connection_age_seconds > 0:
        # A connection lives this long (grpc adds +-10 % jitter), then gets a GOAWAY: a client
        # reconnects, and its new connection may reach a replica added since.
        options += [
            ("grpc.max_connection_age_ms", _millis(settings.max_connection_age_seconds)),
            (
                "grpc.max_connection_age_grace_ms",
                _millis(settings.max_connection_age_grace_seconds),
            ),
        ]
    return options


def _millis(seconds: float) -> int:
    return max(1, min(2**31 - 1, round(seconds * 1000)))


def load_attestor_of(settings: Settings) -> Attestor:
    """The key that signs this deployment's deal commitments (docs/fair-deals.md): the
    setting's, else the key file's (created when missing, as the state key's), with the
    earlier public keys still accepted."""
    try:
        attestor, created = load_attestor(
            settings.attestation_key,
            settings.attestation_key_file,
            settings.attestation_public_keys,
        )
    except AttestationKeyError as error:
        raise ServerStartError(f"cannot load the attestation key: {error}") from None
    if created:
        path = settings.attestation_key_file.resolve()
        _log.warning("created an attestation key file", path=str(path), mode="0600")
    # Public by design: clients check records against them (GetAttestationKeys).
    _log.info("attestation keys", public_keys=[show_key(k) for k in attestor.public_keys])
    return attestor


def load_keys(settings: Settings) -> KeyRing:
    """The state keys: ``BALOOT_STATE_KEYS``, or else the key file (created when missing).

    The key file lets ``make run`` work with no setup and keeps tokens valid across
    restarts on one machine; replicas share ``BALOOT_STATE_KEYS`` through a secret.
    """
    try:
        if settings.state_keys:
            ring = KeyRing.from_texts(settings.state_keys)
        else:
            path = settings.state_key_file
            key, created = load_or_create_key_file(path)
            if created:
                _log.warning("created a state key file", path=str(path.resolve()), mode="0600")
            else:
                _log.info("using the state key file", path=str(path.resolve()))
            ring = KeyRing([key])
    except (StateKeyError, OSError) as error:
        raise ServerStartError(f"cannot load the state keys: {error}") from None
    # Fingerprints are public (tokens carry their first byte): they say which key seals.
    _log.info("state keys", fingerprints=list(ring.fingerprints))
    return ring


async def create_server(
    settings: Settings,
    *,
    metrics: Metrics | None = None,
    health: health_aio.HealthServicer | None = None,
    keys: KeyRing | None = None,
    extra_handlers: Sequence[grpc.GenericRpcHandler] = (),
    reuse_port: bool = False,
    gate: CallGate | None = None,
    ledger: MatchLedger | None = None,
    lanes: Lanes | None = None,
    attestor: Attestor | None = None,
    closing: Closing | None = None,
) -> tuple[grpc.aio.Server, int]:
    """Build the gRPC server with every service, bind it, and return it with its port.

    The server is not started. Its health entries say NOT_SERVING until the caller starts it
    and sets them to SERVING (as :class:`EngineServer` does). ``extra_handlers`` adds services
    next to the engine's, e.g. a test service. ``reuse_port`` lets the worker processes of
    one server bind the same port (see :mod:`baloot_engine.server.workers`). ``gate`` bounds
    the concurrent calls (a new one with ``settings.max_concurrent_rpcs`` when not given).
    ``ledger`` is the match ledger the servicer checks tokens with (:class:`EngineServer`
    opens and closes the one ``BALOOT_LEDGER`` names). ``lanes`` run the heavy work (new ones
    of the settings' sizes when not given; :class:`EngineServer` starts and stops them).
    ``closing`` parks the calls that come while the server stops (:meth:`EngineServer.stop`).
    """
    metrics = metrics if metrics is not None else Metrics()
    health = health if health is not None else health_aio.HealthServicer()
    gate = gate if gate is not None else CallGate(settings.max_concurrent_rpcs)
    server = grpc.aio.server(options=server_options(settings, reuse_port=reuse_port))
    keys = keys if keys is not None else load_keys(settings)
    lanes = lanes if lanes is not None else Lanes(settings.lanes(), metrics.lanes)
    servicer = BalootEngineServicer(
        keys,
        metrics,
        allow_preset_deck=settings.allow_preset_deck,
        ledger=ledger,
        lanes=lanes,
        expert_budget_ms=settings.bot_expert_budget_ms,
        attestor=attestor if attestor is not None else load_attestor_of(settings),
    )
    services = _Services()
    as_server = cast("grpc.aio.Server", services)
    engine_service_pb2_grpc.add_BalootEngineServiceServicer_to_server(servicer, as_server)
    health_pb2_grpc.add_HealthServicer_to_server(health, as_server)
    if settings.reflection:
        names = (SERVICE_NAME, HEALTH_SERVICE_NAME, reflection.SERVICE_NAME)
        reflection_pb2_grpc.add_ServerReflectionServicer_to_server(  # type: ignore[no-untyped-call]
            reflection.aio.ReflectionServicer(names), as_server
        )
    services.handlers.extend(extra_handlers)
    door = door_of(lanes, SERVICE_NAME)
    telemetry = TelemetryHandler(services.handlers, metrics, gate, door, lanes.sources)
    if closing is None:
        server.add_generic_rpc_handlers((telemetry,))
    else:
        closing.handlers = services.handlers
        server.add_generic_rpc_handlers((closing, telemetry))
    try:
        port = server.add_insecure_port(settings.address)
    except RuntimeError as error:
        raise ServerStartError(f"cannot listen on {settings.address}: {error}") from None
    if port == 0:
        raise ServerStartError(f"cannot listen on {settings.address}")
    for entry in HEALTH_ENTRIES:
        await health.set(entry, NOT_SERVING)
    return server, port


class EngineServer:
    """A server with its lifecycle: start, report SERVING, drain on stop."""

    def __init__(
        self,
        settings: Settings,
        *,
        extra_handlers: Sequence[grpc.GenericRpcHandler] = (),
        reuse_port: bool = False,
        keys: KeyRing | None = None,
        attestor: Attestor | None = None,
    ) -> None:
        self.settings = settings
        self._reuse_port = reuse_port
        self._keys = keys
        self._attestor = attestor
        self.metrics = Metrics()
        self.health = health_aio.HealthServicer()
        self.gate = CallGate(settings.max_concurrent_rpcs)
        self.lanes = Lanes(settings.lanes(), self.metrics.lanes)
        self.closing: Closing | None = None
        self._extra_handlers = tuple(extra_handlers)
        self._server: grpc.aio.Server | None = None
        self._endpoint: MetricsEndpoint | None = None
        self._ledger: MatchLedger | None = None
        self.port = 0

    @property
    def keys(self) -> KeyRing | None:
        """The key ring the server seals with (None before :meth:`start`, unless given)."""
        return self._keys

    @property
    def metrics_port(self) -> int | None:
        """The port of the metrics endpoint, or None when metrics are off."""
        return self._endpoint.port if self._endpoint is not None else None

    async def start(self) -> None:
        """Bind, start serving, open the metrics endpoint and report SERVING."""
        settings = self.settings
        await self._open_ledger()
        if self._keys is None:
            self._keys = load_keys(settings)
        if self._attestor is None:
            self._attestor = load_attestor_of(settings)
        self.closing = Closing((HEALTH_SERVICE_NAME,))
        if not multiprocess_values():  # workers' metrics are files: no collector reaches them
            self.metrics.registry.register(CacheCollector(inventory(self._keys)))
        self._server, self.port = await create_server(
            settings,
            metrics=self.metrics,
            health=self.health,
            extra_handlers=self._extra_handlers,
            reuse_port=self._reuse_port,
            keys=self._keys,
            gate=self.gate,
            ledger=self._ledger,
            lanes=self.lanes,
            attestor=self._attestor,
            closing=self.closing,
        )
        await self._server.start()
        if settings.metrics_enabled:
            try:
                self._endpoint = start_metrics_endpoint(
                    self.metrics, settings.metrics_host, settings.metrics_port
                )
            except OSError as error:
                await self._server.stop(None)
                address = f"{settings.metrics_host}:{settings.metrics_port}"
                raise ServerStartError(f"cannot serve metrics on {address}: {error}") from None
        for entry in HEALTH_ENTRIES:
            await self.health.set(entry, SERVING)
        _log.info(
            "server started",
            version=__version__,
            host=settings.host,
            port=self.port,
            metrics_host=settings.metrics_host if self._endpoint else None,
            metrics_port=self.metrics_port,
            pid=os.getpid(),
            event_loop=type(asyncio.get_running_loop()).__module__.partition(".")[0],
            anonymous_heavy_work=self.lanes.anonymous_heavy_work,
            api_keys=len(settings.api_keys),
        )
        if self.lanes.anonymous_heavy_work and not _loopback(settings.host):
            _log.warning(
                "heavy work is open to callers without an API key on a non-loopback address: "
                "set BALOOT_API_KEYS (or BALOOT_ANONYMOUS_HEAVY_WORK=off) in production",
                host=settings.host,
            )

    async def stop(self) -> None:
        """Report NOT_SERVING, serve until calls stop coming, stop accepting, drain.

        1. Health says NOT_SERVING, so balancers that check it stop sending new calls.
        2. Lame duck: calls are still taken, normally, until none has arrived for
           ``QUIET_SECONDS`` (at once on an idle server), for at most ``lame_duck_seconds``.
           This matters because grpc's shutdown cancels every call it has received but not yet
           handed to a handler (calls queue in grpc's core while the event loop is busy), and
           the client sees those as CANCELLED, which no retry rule retries. Once no call has
           arrived for a while, no call is waiting in that queue.
        3. Parking: every call that still comes is parked, unread (:mod:`.closing`), until
           none has come for ``PARK_QUIET_SECONDS`` (at most ``PARK_SECONDS``): a client with
           its calls parked sends no more, so none is on the wire when grpc stops accepting.
        4. grpc stops accepting (GOAWAY: clients send new calls elsewhere, or retry them);
           the parked calls are then refused UNAVAILABLE, reason DRAINING (their retry reaches
           another server), and the calls in flight run to their end, for at most
           ``grace_seconds``. Heavy work still running a second before the grace period ends
           is stopped and its caller told to send the request again (UNAVAILABLE, reason
           DRAINING, with a retry delay), so no call is cut without a reason.
        5. The lanes' processes end.
        """
        if self._server is None:
            await self.lanes.close()
            await self._close_ledger()
            return
        settings = self.settings
        await self.health.enter_graceful_shutdown()
        _log.info(
            "shutting down",
            grace_seconds=settings.grace_seconds,
            lame_duck_seconds=settings.lame_duck_seconds,
        )
        if not await self.gate.wait_quiet(QUIET_SECONDS, settings.lame_duck_seconds):
            _log.warning(
                "calls still arriving at the end of the lame-duck period: stopping anyway",
                lame_duck_seconds=settings.lame_duck_seconds,
            )
        closing = self.closing
        if closing is not None:
            closing.close()
            since = self.gate.last_arrival
            if not await closing.wait_quiet(since, PARK_QUIET_SECONDS, PARK_SECONDS):
                _log.warning(
                    "calls still arriving while parked: grpc may cancel those on the wire",
                    parked=closing.parked,
                )
        drain = self.lanes.drain(settings.grace_seconds - DRAIN_MARGIN_SECONDS)
        stopping = asyncio.ensure_future(self._server.stop(settings.grace_seconds))
        if closing is not None:
            await asyncio.sleep(GOAWAY_SECONDS)
            closing.release()
        await stopping
        drain.cancel()
        await self.lanes.close()
        self.gate.flush_log()
        self._server = None
        if self._endpoint is not None:
            self._endpoint.close()
            self._endpoint = None
        await self._close_ledger()
        _log.info("server stopped")

    async def _close_ledger(self) -> None:
        if self._ledger is not None:
            await self._ledger.close()
            self._ledger = None

    async def _open_ledger(self) -> None:
        """Connect to the match ledger, if one is set; an unreachable one is only logged.

        Each process (each worker) opens its own connections. While the ledger is out of
        reach every call that carries a token is refused with LEDGER_UNAVAILABLE.
        """
        settings = self.settings
        if not settings.ledger:
            return
        try:
            self._ledger = MatchLedger(
                settings.ledger,
                ttl_seconds=settings.ledger_ttl_seconds,
                timeout_seconds=settings.ledger_timeout_seconds,
                durability=settings.ledger_durability,
            )
        except LedgerClientMissingError as error:
            raise ServerStartError(str(error)) from None
        shown = redact_url(settings.ledger)
        if await self._ledger.ping():
            _log.info("match ledger reachable", ledger=shown)
        else:
            _log.warning("match ledger unreachable: calls are refused until it is", ledger=shown)


async def serve(
    settings: Settings,
    *,
    extra_handlers: Sequence[grpc.GenericRpcHandler] = (),
    reuse_port: bool = False,
    keys: KeyRing | None = None,
    on_started: Callable[[], None] | None = None,
    attestor: Attestor | None = None,
) -> None:
    """Run the server until SIGTERM or SIGINT, then drain it gracefully.

    ``on_started`` is called once the server serves (a worker tells its supervisor).
    """
    app = EngineServer(
        settings,
        extra_handlers=extra_handlers,
        reuse_port=reuse_port,
        keys=keys,
        attestor=attestor,
    )
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()

    def on_signal(signum: int) -> None:
        name = signal.Signals(signum).name
        if stopping.is_set():
            _log.info("signal ignored: already shutting down", signal=name)
            return
        _log.info("signal received", signal=name)
        stopping.set()

    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, on_signal, signum)
    try:
        await app.start()
        # The lanes' processes (a searching bot's decision, a judged claim, a solve, an
        # analysis) start now, not on the first such call, which would otherwise wait a
        # second or more for a process to spawn and import the engine.
        app.lanes.prestart()
        install_memory_dump(loop, inventory(app.keys))
        # What start-up made lives as long as the process: the garbage collector's full
        # passes need not walk it again (the calls' own objects are collected as before).
        gc.freeze()
        if on_started is not None:
            on_started()
        await stopping.wait()
    finally:
        # The lanes' processes end with the server (a forked worker ends without the
        # interpreter's exit handlers).
        await app.stop()
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGUSR2):
            loop.remove_signal_handler(signum)


def main(
    argv: Sequence[str] | None = None, *, extra_handlers: Sequence[grpc.GenericRpcHandler] = ()
) -> int:
    """Console entry point: read the settings, log them once, serve; return the exit status."""
    try:
        settings = load_settings(sys.argv[1:] if argv is None else argv, os.environ)
    except SettingsError as error:
        print(f"baloot-server: {error}", file=sys.stderr)
        return 2
    configure_logging(settings)
    _log.info("settings", **settings.redacted())
    for name in unknown_variables(os.environ):
        _log.warning("unknown setting ignored", variable=name)
    if settings.workers > 1:
        return _serve_workers(settings, extra_handlers)
    try:
        eventloop.run(serve(settings, extra_handlers=extra_handlers))
    except ServerStartError as error:
        _log.error("start-up failed", error=str(error))
        return 1
    return 0


def _serve_workers(settings: Settings, extra_handlers: Sequence[grpc.GenericRpcHandler]) -> int:
    """Serve with ``settings.workers`` processes on one port; the parent serves the metrics.

    The keys are loaded once, before the workers exist: were the key files missing, each
    worker would otherwise create its own key, and no worker could open another's tokens (nor
    would their deal commitments carry one deployment's signature).
    """
    try:
        keys = load_keys(settings)
        attestor = load_attestor_of(settings)
    except ServerStartError as error:
        _log.error("start-up failed", error=str(error))
        return 1

    async def serve_worker(worker_settings: Settings, ready: Callable[[], None]) -> None:
        await serve(
            dataclasses.replace(worker_settings, metrics_enabled=False),
            extra_handlers=extra_handlers,
            reuse_port=True,
            keys=keys,
            on_started=ready,
            attestor=attestor,
        )

    return run_workers(settings, serve_worker)
