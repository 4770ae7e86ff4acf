"""Run a command against a real server started for it: ``with_server.py -- COMMAND [ARG...]``.

The clients in other languages (``clients/go``, ``clients/java``, ``clients/grpcurl``) play their
matches against the real service, as a user's program would. This script starts
``baloot-server`` on 127.0.0.1 with a free port (``--port 0``), a fresh state key in a temporary
directory and no metrics endpoint, waits for its ``server started`` log line, runs the command
with ``BALOOT_TARGET=127.0.0.1:PORT`` in its environment, then stops the server with SIGTERM and
exits with the command's exit code. The server's log goes to a file that is printed when the
command fails, so a refusal the client did not expect can be read next to the client's output.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT_SECONDS = 30.0


def _server_command(server: str, key_file: Path) -> list[str]:
    return [
        server,
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--metrics-enabled",
        "false",
        "--log-format",
        "json",
        "--grace-seconds",
        "1",
        "--state-key-file",
        str(key_file),
    ]


def _read_port(stream: IO[str], log: IO[str], found: list[int], ready: threading.Event) -> None:
    """Copy the server's log to ``log`` and note the port of its ``server started`` line."""
    for line in stream:
        log.write(line)
        log.flush()
        if ready.is_set():
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("event") == "server started":
            port = entry.get("port")
            if isinstance(port, int):
                found.append(port)
                ready.set()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--server",
        default=os.environ.get("BALOOT_SERVER", str(ROOT / ".venv" / "bin" / "baloot-server")),
        help="the server program (default: $BALOOT_SERVER or .venv/bin/baloot-server)",
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command to run")
    args = parser.parse_args(argv)
    command: list[str] = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given")
    if not Path(args.server).exists():
        raise SystemExit(f"no server at {args.server}: run `make install` first")

    with tempfile.TemporaryDirectory(prefix="baloot-client-") as tmp:
        log_path = Path(tmp) / "server.log"
        # The server must not pick up the caller's BALOOT_* settings (a port, a key file…).
        env = {k: v for k, v in os.environ.items() if not k.startswith("BALOOT_")}
        with log_path.open("w") as log:
            server = subprocess.Popen(
                _server_command(args.server, Path(tmp) / "state.key"),
                cwd=tmp,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            assert server.stderr is not None
            found: list[int] = []
            ready = threading.Event()
            reader = threading.Thread(
                target=_read_port, args=(server.stderr, log, found, ready), daemon=True
            )
            reader.start()
            deadline = time.monotonic() + START_TIMEOUT_SECONDS
            while not ready.wait(0.1):
                if server.poll() is not None or time.monotonic() > deadline:
                    server.kill()
                    server.wait()
                    reader.join(timeout=5)
                    sys.stderr.write(log_path.read_text())
                    raise SystemExit("the server did not start")
            target = f"127.0.0.1:{found[0]}"
            print(f"with_server: baloot-server on {target}", flush=True)
            try:
                env_command = {**os.environ, "BALOOT_TARGET": target}
                code = subprocess.run(command, env=env_command, check=False).returncode
            finally:
                server.send_signal(signal.SIGTERM)
                try:
                    server.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    server.kill()
                    server.wait()
                reader.join(timeout=5)
        if code != 0:
            sys.stderr.write(f"with_server: the command exited with {code}; the server's log:\n")
            sys.stderr.write(log_path.read_text())
        return code


if __name__ == "__main__":
    sys.exit(main())
