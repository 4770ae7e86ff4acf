"""The default service config of the engine's clients: UNAVAILABLE retried with backoff.

Every RPC of ``baloot.v1.BalootEngineService`` is safe to retry (each declares its
``idempotency_level`` in the proto): the service stores nothing, so repeating an action with the
same token gives the same state and events. A call that finds no server (a restart, a rolling
deploy, a replica that just died) is retried up to four times with exponential backoff, which
gRPC applies inside the channel. The same JSON is ``clients/service_config.json`` in the
repository, which the Go, Java and TypeScript clients use too; a test keeps the copies equal.
"""

from __future__ import annotations

import json
from typing import Any

SERVICE_CONFIG: dict[str, Any] = {
    "methodConfig": [
        {
            "name": [{"service": "baloot.v1.BalootEngineService"}],
            "retryPolicy": {
                "maxAttempts": 5,
                "initialBackoff": "0.1s",
                "maxBackoff": "2s",
                "backoffMultiplier": 2,
                "retryableStatusCodes": ["UNAVAILABLE"],
            },
        }
    ]
}


def channel_options(service_config: dict[str, Any] | None = None) -> list[tuple[str, Any]]:
    """The gRPC channel options that apply a service config (default: :data:`SERVICE_CONFIG`)."""
    config = SERVICE_CONFIG if service_config is None else service_config
    return [("grpc.enable_retries", 1), ("grpc.service_config", json.dumps(config))]
