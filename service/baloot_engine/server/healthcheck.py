"""Ask a running server whether it serves: ``python -m baloot_engine.server.healthcheck``.

The container image's HEALTHCHECK runs this: it calls the standard gRPC health service
(``grpc.health.v1.Health/Check``) on ``127.0.0.1:BALOOT_PORT`` and exits 0 when the answer is
SERVING, 1 otherwise (NOT_SERVING while draining, no answer, a refused connection). Kubernetes
does not need it: its native gRPC probes ask the same service.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc


def check(target: str, service: str = "", timeout: float = 3.0) -> str:
    """Return the health status name of ``service`` at ``target`` (or the error code's name)."""
    with grpc.insecure_channel(target) as channel:
        stub: Any = health_pb2_grpc.HealthStub(channel)
        try:
            reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout)
        except grpc.RpcError as error:
            code: grpc.StatusCode = error.code()
            return code.name
    return str(health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status))


def main(argv: Sequence[str] | None = None) -> int:
    """Exit 0 when the server answers SERVING."""
    parser = argparse.ArgumentParser(prog="python -m baloot_engine.server.healthcheck")
    port = os.environ.get("BALOOT_PORT", "").strip() or "50051"
    parser.add_argument("--target", default=f"127.0.0.1:{port}", help="host:port to ask")
    parser.add_argument("--service", default="", help='health entry; "" is the whole server')
    parser.add_argument("--timeout", type=float, default=3.0, help="seconds")
    args = parser.parse_args(argv)
    status = check(args.target, args.service, args.timeout)
    print(f"{args.target}: {status}")
    return 0 if status == "SERVING" else 1


if __name__ == "__main__":
    sys.exit(main())
