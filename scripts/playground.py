"""The browser playground: the service, the Envoy gateway (gRPC-Web) and the static page.

    python scripts/playground.py serve [--port 8000] [--gateway 127.0.0.1:8080]
                                       [--upstream 127.0.0.1:50051] [--admin 127.0.0.1:9901]
    python scripts/playground.py test [--timeout 300] [--artifacts var/artifacts]
    python scripts/playground.py screenshots [--out docs/images]

``serve`` (``make playground``) uses the service of ``make run`` when one answers on
``--upstream`` and the gateway of ``make gateway`` when one listens on ``--gateway``; it starts
whichever is missing, serves ``playground/dist/`` on loopback, prints the URL, and on Ctrl-C
stops what it started (logs under ``var/playground/``).

``test`` (``make playground-test``) starts its own service, gateway and static server on free
loopback ports, runs the end-to-end test in headless Chromium (``playground/e2e/``, Node's test
runner with playwright-core) within ``--timeout`` seconds, and stops everything. The test saves
its screenshots under ``--artifacts``. ``screenshots`` (``make playground-screenshots``) does the
same with ``playground/e2e/screenshots.mjs``, which writes the README's pictures to ``--out``.

The page is static: everything it does goes through the gateway to the service, so the static
server here is Python's ``http.server`` and nothing more.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import FrameType
from typing import IO, Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "playground" / "dist"
E2E = ROOT / "playground" / "e2e"
GATEWAY_SCRIPT = ROOT / "scripts" / "gateway.py"
LOG_DIR = ROOT / "var" / "playground"
LOOPBACK = "127.0.0.1"


class _Handler(SimpleHTTPRequestHandler):
    """Static files, never cached (a rebuilt page shows at the next reload), quiet logs."""

    extensions_map = {  # noqa: RUF012 - the base class declares it as a class attribute
        **SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
        ".map": "application/json",
        ".css": "text/css",
    }

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
        pass


def start_static(directory: Path, port: int) -> ThreadingHTTPServer:
    """Serve ``directory`` on 127.0.0.1:``port`` (0 = a free one) from a daemon thread."""
    if not (directory / "index.html").is_file():
        raise SystemExit(f"playground: {directory}/index.html missing; run `make playground-build`")
    handler = functools.partial(_Handler, directory=str(directory))
    server = ThreadingHTTPServer((LOOPBACK, port), handler)
    threading.Thread(target=server.serve_forever, name="static", daemon=True).start()
    return server


def parse_address(text: str) -> tuple[str, int]:
    """``host:port`` as a pair."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
    return host.strip("[]"), int(port)


def service_serving(target: str, timeout: float = 1.0) -> bool:
    """Whether a service answers SERVING on ``target``."""
    try:
        with grpc.insecure_channel(target) as channel:
            stub: Any = health_pb2_grpc.HealthStub(channel)
            reply = stub.Check(health_pb2.HealthCheckRequest(), timeout=timeout)
    except grpc.RpcError:
        return False
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


def listening(host: str, port: int) -> bool:
    """Whether something accepts TCP connections on host:port."""
    with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.5):
        return True
    return False


def wait_for(predicate: Any, timeout: float, what: str, child: subprocess.Popen[bytes]) -> None:
    """Poll ``predicate`` until it holds; fail if ``child`` exits or time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        if child.poll() is not None:
            raise SystemExit(f"playground: {what} exited at start-up (status {child.returncode})")
        time.sleep(0.1)
    raise SystemExit(f"playground: timed out waiting for {what}")


class Children:
    """The processes this run started, stopped in reverse order (SIGTERM, then SIGKILL)."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self._started: list[tuple[str, subprocess.Popen[bytes], IO[bytes]]] = []

    def start(self, name: str, argv: Sequence[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
        """Start ``argv`` with its output in ``<log_dir>/<name>.log``."""
        self.log_dir.mkdir(parents=True, exist_ok=True)
        log = (self.log_dir / f"{name}.log").open("wb")
        child = subprocess.Popen(
            list(argv), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env
        )
        self._started.append((name, child, log))
        return child

    def log_tail(self, name: str, lines: int = 30) -> str:
        """The end of a child's log."""
        path = self.log_dir / f"{name}.log"
        with contextlib.suppress(OSError):
            return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
        return ""

    def stop(self) -> None:
        """Stop every child, the last started first."""
        for _name, child, log in reversed(self._started):
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
                try:
                    child.wait(15)
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.wait(5)
            log.close()
        self._started.clear()


def _service_env(port: int, key: str | None) -> dict[str, str]:
    """The service's environment: loopback, JSON logs, no metrics endpoint (none is needed)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BALOOT_")}
    env.update(
        BALOOT_HOST=LOOPBACK,
        BALOOT_PORT=str(port),
        BALOOT_LOG_FORMAT="json",
        BALOOT_METRICS_ENABLED="false",
    )
    if key is not None:
        env["BALOOT_STATE_KEYS"] = key
    return env


def start_service(children: Children, port: int, *, key: str | None) -> str:
    """Start ``baloot-server`` on 127.0.0.1:``port``; return its target once it serves."""
    target = f"{LOOPBACK}:{port}"
    child = children.start(
        "service",
        [sys.executable, "-m", "baloot_engine"],
        _service_env(port, key),
    )
    wait_for(lambda: service_serving(target), 60, "the service", child)
    return target


def start_gateway(children: Children, listen: str, admin: str, upstream: str) -> None:
    """Start Envoy (scripts/gateway.py run) and wait until it accepts connections."""
    host, port = parse_address(listen)
    child = children.start(
        "gateway",
        [
            sys.executable,
            str(GATEWAY_SCRIPT),
            "run",
            "--listen",
            listen,
            "--admin",
            admin,
            "--upstream",
            upstream,
            "--concurrency",
            "1",
        ],
        dict(os.environ),
    )
    wait_for(lambda: listening(host, port), 60, "the gateway", child)


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def _terminate_on_sigterm() -> Iterator[None]:
    """Turn SIGTERM into KeyboardInterrupt, so ``finally`` blocks stop the children."""

    def interrupt(_signum: int, _frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def serve(args: argparse.Namespace) -> int:
    """``make playground``: reuse or start the service and gateway, serve the page."""
    children = Children(LOG_DIR)
    with _terminate_on_sigterm():
        try:
            upstream: str = args.upstream
            if service_serving(upstream):
                print(f"playground: using the service on {upstream}")
            else:
                _, port = parse_address(upstream)
                print(f"playground: starting the service on {upstream} (log {LOG_DIR}/service.log)")
                start_service(children, port, key=None)
            gateway_host, gateway_port = parse_address(args.gateway)
            if listening(gateway_host, gateway_port):
                print(f"playground: using the gateway on {args.gateway}")
            else:
                print(
                    f"playground: starting Envoy on {args.gateway} -> {upstream} "
                    f"(log {LOG_DIR}/gateway.log)"
                )
                start_gateway(children, args.gateway, args.admin, upstream)
            static = start_static(DIST, args.port)
            url = f"http://{LOOPBACK}:{static.server_port}/"
            if gateway_port != 8080 or gateway_host not in (LOOPBACK, "localhost"):
                url += f"?gateway=http://{gateway_host}:{gateway_port}"
            print(f"\n  Baloot playground: {url}\n\n  (Ctrl-C stops what this command started)")
            sys.stdout.flush()
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            print("\nplayground: stopping")
        finally:
            children.stop()
    return 0


def run_test(args: argparse.Namespace) -> int:
    """``make playground-test``: a stack of its own, the Chromium test, bounded in time."""
    node = os.environ.get("NODE", "node")
    artifacts = Path(args.artifacts).resolve()
    artifacts.mkdir(parents=True, exist_ok=True)
    command = [
        node,
        "--test",
        "--test-reporter=spec",
        str(E2E / "playground.test.mjs"),
        str(E2E / "analysis.test.mjs"),
    ]
    return run_in_stack(args, "playground-test", command, {"PLAYGROUND_ARTIFACTS": str(artifacts)})


def run_screenshots(args: argparse.Namespace) -> int:
    """``make playground-screenshots``: the README's pictures, taken on a stack of its own."""
    out = Path(args.out).resolve()
    command = [os.environ.get("NODE", "node"), str(E2E / "screenshots.mjs")]
    return run_in_stack(
        args, "playground-screenshots", command, {"PLAYGROUND_SCREENSHOTS": str(out)}
    )


def run_in_stack(
    args: argparse.Namespace, name: str, command: Sequence[str], extra_env: dict[str, str]
) -> int:
    """Run ``command`` against a service, gateway and static server of its own, then stop them."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="baloot-playground-") as scratch:
        log_dir = Path(args.logs) if args.logs else Path(scratch)
        children = Children(log_dir)
        status = 1
        with _terminate_on_sigterm():
            try:
                upstream = start_service(children, free_port(), key=_new_key())
                gateway = f"{LOOPBACK}:{free_port()}"
                start_gateway(children, gateway, f"{LOOPBACK}:{free_port()}", upstream)
                static = start_static(DIST, 0)
                url = f"http://{LOOPBACK}:{static.server_port}/"
                print(f"{name}: service {upstream}, gateway {gateway}, page {url}", flush=True)
                env = dict(os.environ)
                env.update(extra_env)
                env.update(PLAYGROUND_URL=url, PLAYGROUND_GATEWAY=f"http://{gateway}")
                remaining = max(10.0, args.timeout - (time.monotonic() - started))
                try:
                    status = subprocess.run(
                        list(command),
                        cwd=ROOT / "playground",
                        env=env,
                        timeout=remaining,
                        check=False,
                    ).returncode
                except subprocess.TimeoutExpired:
                    print(f"{name}: FAIL, over {args.timeout:.0f} s", file=sys.stderr)
                    status = 1
                static.shutdown()
            except KeyboardInterrupt:
                status = 130
            finally:
                children.stop()
                if status != 0:
                    for child_name in ("service", "gateway"):
                        tail = children.log_tail(child_name)
                        if tail:
                            print(f"--- {child_name} log (end) ---\n{tail}", file=sys.stderr)
    verdict = "PASS" if status == 0 else "FAIL"
    print(f"{name}: {verdict} in {time.monotonic() - started:.0f} s")
    return status


def _new_key() -> str:
    return secrets.token_urlsafe(32)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and run the command."""
    parser = argparse.ArgumentParser(prog="python scripts/playground.py")
    commands = parser.add_subparsers(dest="command", required=True)
    serve_parser = commands.add_parser(
        "serve", help="service, gateway and the page (make playground)"
    )
    serve_parser.add_argument("--port", type=int, default=8000, help="the page's port (loopback)")
    serve_parser.add_argument(
        "--gateway", default=f"{LOOPBACK}:8080", help="Envoy's listen address"
    )
    serve_parser.add_argument("--admin", default=f"{LOOPBACK}:9901", help="Envoy's admin address")
    serve_parser.add_argument("--upstream", default=f"{LOOPBACK}:50051", help="the service")
    test_parser = commands.add_parser("test", help="the end-to-end test in headless Chromium")
    test_parser.add_argument(
        "--timeout", type=float, default=300.0, help="seconds for the whole run"
    )
    test_parser.add_argument("--artifacts", default=str(ROOT / "var" / "artifacts"))
    test_parser.add_argument("--logs", help="keep the service and gateway logs here")
    shots_parser = commands.add_parser("screenshots", help="the README's screenshots")
    shots_parser.add_argument("--out", default=str(ROOT / "docs" / "images"))
    shots_parser.add_argument("--timeout", type=float, default=300.0)
    shots_parser.add_argument("--logs", help="keep the service and gateway logs here")
    args = parser.parse_args(argv)
    commands_run = {"serve": serve, "test": run_test, "screenshots": run_screenshots}
    return commands_run[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
