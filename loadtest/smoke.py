"""The CI load smoke test: a 2-worker service, Envoy in front, complete matches through it.

    python -m loadtest.smoke [--duration 20] [--matches 60] [--workers 2]

Starts everything on free localhost ports, plays matches through the gateway for a bounded
time, prints the load report, and fails (exit status 1) on any error, any match that did not
finish, a server counter that disagrees with the client, or a worker that handled no call.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from loadtest.driver import LoadConfig, report, run_load
from loadtest.stack import new_state_key, start_gateway, start_service


def main(argv: Sequence[str] | None = None) -> int:
    """Run the smoke test; return the exit status."""
    parser = argparse.ArgumentParser(prog="python -m loadtest.smoke")
    parser.add_argument("--duration", type=float, default=20.0, help="seconds to start matches")
    parser.add_argument("--matches", type=int, default=60)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--match-target", type=int, default=61)
    parser.add_argument("--logs", type=Path, help="keep the logs here (default: a temp dir)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="baloot-smoke-") as scratch:
        log_dir = args.logs or Path(scratch)
        service = start_service(log_dir, workers=args.workers, key=new_state_key())
        try:
            gateway = start_gateway(log_dir, [service.target])
            try:
                config = LoadConfig(
                    target=gateway.target,
                    matches=args.matches,
                    duration=args.duration,
                    drain=30.0,
                    concurrency=args.concurrency,
                    # The kernel gives each connection to a worker at random: with 16, the
                    # chance that one worker gets none is 2 in 65,536.
                    connections=16,
                    match_target=args.match_target,
                    metrics_urls=(service.metrics_url,),
                    envoy_admin=gateway.admin_url,
                )
                print(
                    f"smoke: service {service.target} ({args.workers} workers), "
                    f"gateway {gateway.target}, logs in {log_dir}",
                    flush=True,
                )
                result = asyncio.run(run_load(config))
                print(report(result), flush=True)
                per_worker = service.calls_by_process()
            finally:
                gateway.child.stop()
        finally:
            service.child.stop()
    shown = ", ".join(f"pid {pid}: {n:,}" for pid, n in sorted(per_worker.items()))
    print(f"engine calls handled per worker: {shown or 'n/a (one process)'}")
    idle = [pid for pid, n in per_worker.items() if n == 0]
    if args.workers > 1 and (len(per_worker) < args.workers or idle):
        print("smoke: FAIL, a worker handled no call", file=sys.stderr)
        return 1
    if not result.passed:
        print("smoke: FAIL", file=sys.stderr)
        return 1
    print("smoke: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
