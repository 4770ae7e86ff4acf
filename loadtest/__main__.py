"""Play complete matches through the gateway and report: ``python -m loadtest --help``.

    python -m loadtest                      # after `make run`: through Envoy to 127.0.0.1:50051
    python -m loadtest --matches 500 --duration 60 --concurrency 64
    python -m loadtest --direct             # straight to the service, no gateway
    python -m loadtest --target 127.0.0.1:8080 --envoy-admin http://127.0.0.1:9901

Where the load goes: ``--target`` if given; else ``--direct`` sends it to ``--upstream``; else
the gateway at ``--gateway`` (``make gateway``) if one listens there; else a gateway is started
for the run (Envoy on free loopback ports, in front of ``--upstream``) and stopped after it.
The server's metrics (``--metrics``, default the one of ``make run``) give the cross-check.

Exit status 0 when every match finished with no error and the server's counter agrees with
what was sent; 1 otherwise. Traffic goes only to loopback addresses.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import socket
import sys
import tempfile
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

from loadtest.driver import LoadConfig, report, run_load
from loadtest.stack import Gateway, start_gateway


def _local(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _listening(address: str) -> bool:
    host, _, port = address.rpartition(":")
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex((host.strip("[]"), int(port))) == 0


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2):  # noqa: S310 - checked to be loopback
            return True
    except OSError:
        return False


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    defaults = LoadConfig()
    parser = argparse.ArgumentParser(prog="python -m loadtest", description=__doc__.splitlines()[0])
    parser.add_argument("--target", help="send the load here (host:port), as it is")
    parser.add_argument("--gateway", default="127.0.0.1:8080", help="a running gateway to use")
    parser.add_argument("--upstream", default="127.0.0.1:50051", help="the service")
    parser.add_argument("--direct", action="store_true", help="no gateway: load the service")
    parser.add_argument("--matches", type=int, default=defaults.matches, help="most matches")
    parser.add_argument(
        "--duration", type=float, default=defaults.duration, help="seconds to start matches"
    )
    parser.add_argument(
        "--drain", type=float, default=defaults.drain, help="seconds for matches in flight after"
    )
    parser.add_argument("--concurrency", type=int, default=defaults.concurrency)
    parser.add_argument("--connections", type=int, default=defaults.connections)
    parser.add_argument(
        "--match-target", type=int, default=defaults.match_target, help="points to win"
    )
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--retries", type=int, default=defaults.retries)
    parser.add_argument("--deadline", type=float, default=defaults.deadline, help="per call")
    parser.add_argument("--read-every", type=int, default=defaults.read_every)
    parser.add_argument(
        "--metrics",
        action="append",
        help="a server's /metrics URL (repeatable; default http://127.0.0.1:9464/metrics)",
    )
    parser.add_argument(
        "--envoy-admin", help="the gateway's admin URL (default http://127.0.0.1:9901)"
    )
    parser.add_argument("--json", type=Path, help="also write the result here as JSON")
    return parser


@contextlib.contextmanager
def _gateway_for_the_run(upstream: str) -> Iterator[Gateway]:
    with tempfile.TemporaryDirectory(prefix="baloot-load-gateway-") as logs:
        gateway = start_gateway(Path(logs), [upstream])
        try:
            yield gateway
        finally:
            gateway.child.stop()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the load and print the report."""
    parser = build_parser()
    args = parser.parse_args(argv)
    metrics = args.metrics or ["http://127.0.0.1:9464/metrics"]
    addresses = [args.target or "", args.gateway, args.upstream]
    urls = [*metrics, *([args.envoy_admin] if args.envoy_admin else [])]
    hosts = [a.rpartition(":")[0] for a in addresses if a] + [urlsplit(u).hostname for u in urls]
    if not all(_local(host or "") for host in hosts):
        parser.error("load is sent to loopback addresses only (127.0.0.1, ::1 or localhost)")
    if args.duration > 600 or args.matches > 100_000:
        parser.error("a run is bounded: at most 600 s and 100000 matches")
    if not args.metrics and not _answers(metrics[0]):
        print(f"loadtest: no metrics at {metrics[0]}: the cross-check is skipped", flush=True)
        metrics = []
    config = LoadConfig(
        matches=args.matches,
        duration=args.duration,
        drain=args.drain,
        concurrency=args.concurrency,
        connections=args.connections,
        match_target=args.match_target,
        seed=args.seed,
        retries=args.retries,
        deadline=args.deadline,
        read_every=args.read_every,
        metrics_urls=tuple(metrics),
    )
    with contextlib.ExitStack() as stack:
        if args.target:
            config = replace(config, target=args.target, envoy_admin=args.envoy_admin)
        else:
            if not _listening(args.upstream):
                print(f"loadtest: no service on {args.upstream}: start one with `make run`")
                return 1
            if args.direct:
                config = replace(config, target=args.upstream)
            elif _listening(args.gateway):
                admin = args.envoy_admin or "http://127.0.0.1:9901"
                config = replace(
                    config, target=args.gateway, envoy_admin=admin if _answers(admin) else None
                )
            else:
                gateway = stack.enter_context(_gateway_for_the_run(args.upstream))
                print(
                    f"loadtest: no gateway on {args.gateway}; started Envoy on "
                    f"{gateway.target} in front of {args.upstream} for this run",
                    flush=True,
                )
                config = replace(config, target=gateway.target, envoy_admin=gateway.admin_url)
        result = asyncio.run(run_load(config))
    print(report(result), flush=True)
    if args.json is not None:
        args.json.write_text(result.to_json(), encoding="utf-8")
    return 0 if result.passed else 1


if __name__ == "__main__":
    sys.exit(main())
