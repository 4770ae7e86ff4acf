"""Play complete matches against a running service and report: ``python -m loadtest --help``.

    python -m loadtest --target 127.0.0.1:8080 --matches 200 --duration 60 \\
        --metrics http://127.0.0.1:9464/metrics --envoy-admin http://127.0.0.1:9901

Exit status 0 when every match finished with no error and the server's counter agrees with
what was sent; 1 otherwise. Traffic goes only to the loopback target given.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import sys
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

from loadtest.driver import LoadConfig, report, run_load


def _local(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def parse_args(argv: Sequence[str] | None) -> tuple[LoadConfig, Path | None]:
    """The configuration of the run, and where to write the JSON result."""
    defaults = LoadConfig()
    parser = argparse.ArgumentParser(prog="python -m loadtest", description=__doc__.splitlines()[0])
    parser.add_argument("--target", default=defaults.target, help="gateway or service host:port")
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
        "--metrics", action="append", default=[], help="a server's /metrics URL (repeatable)"
    )
    parser.add_argument("--envoy-admin", help="the gateway's admin URL, e.g. http://127.0.0.1:9901")
    parser.add_argument("--json", type=Path, help="also write the result here as JSON")
    args = parser.parse_args(argv)
    host = args.target.rpartition(":")[0]
    urls = [*args.metrics, *([args.envoy_admin] if args.envoy_admin else [])]
    if not _local(host) or not all(_local(urlsplit(url).hostname or "") for url in urls):
        parser.error("load is sent to localhost only (127.0.0.1, ::1 or localhost)")
    if args.duration > 600 or args.matches > 100_000:
        parser.error("a run is bounded: at most 600 s and 100000 matches")
    config = LoadConfig(
        target=args.target,
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
        metrics_urls=tuple(args.metrics),
        envoy_admin=args.envoy_admin,
    )
    return config, args.json


def main(argv: Sequence[str] | None = None) -> int:
    """Run the load and print the report."""
    config, json_path = parse_args(argv)
    result = asyncio.run(run_load(config))
    print(report(result), flush=True)
    if json_path is not None:
        json_path.write_text(result.to_json(), encoding="utf-8")
    return 0 if result.passed else 1


if __name__ == "__main__":
    sys.exit(main())
