"""The floor of the h2load benchmark: a bare grpc.aio server that does nothing per call.

One generic handler answers every unary method with the same two bytes (a serialized
``HealthCheckResponse{status: SERVING}``) without deserializing the request: no
interceptors, no servicer, no health or reflection service. What a call costs here is what
grpc.aio itself costs on this machine, so every other figure of ``bench_service.py
--mode h2load`` is read against it.

With ``--parse`` the handler does what any health check must do beside: it parses the request
as a ``HealthCheckRequest`` and serializes a ``HealthCheckResponse`` (protobuf's C parser and
serializer, as the service's generated handlers use), still without interceptors or servicer.

    python bench/noop_server.py --port 51650 [--loop uvloop] [--parse]   # until SIGTERM
"""

from __future__ import annotations

import argparse
import asyncio
import signal
from typing import Any

import grpc
import grpc.aio
from grpc_health.v1 import health_pb2

from baloot_engine.server import eventloop

# HealthCheckResponse{status: SERVING}: field 1, varint 1.
REPLY = b"\x08\x01"
SERVING = health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)


async def _reply(request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> bytes:
    del request, context
    return REPLY


async def _parsed_reply(
    request: health_pb2.HealthCheckRequest, context: grpc.aio.ServicerContext[Any, Any]
) -> health_pb2.HealthCheckResponse:
    del request, context
    return SERVING


class NoopHandler(grpc.GenericRpcHandler):
    """Answers any method: no (de)serializer, so the bytes go through untouched; or, with
    ``parse``, the health messages' parser and serializer."""

    def __init__(self, *, parse: bool = False) -> None:
        self._handler: grpc.RpcMethodHandler[Any, Any] = (
            grpc.unary_unary_rpc_method_handler(
                _parsed_reply,
                request_deserializer=health_pb2.HealthCheckRequest.FromString,
                response_serializer=health_pb2.HealthCheckResponse.SerializeToString,
            )
            if parse
            else grpc.unary_unary_rpc_method_handler(_reply)
        )

    def service(
        self, handler_call_details: grpc.HandlerCallDetails
    ) -> grpc.RpcMethodHandler[Any, Any]:
        del handler_call_details
        return self._handler


async def serve(host: str, port: int, *, parse: bool = False) -> None:
    """Serve until SIGTERM or SIGINT."""
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((NoopHandler(parse=parse),))
    bound = server.add_insecure_port(f"{host}:{port}")
    await server.start()
    print(f"noop server on {host}:{bound}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    await server.stop(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument(
        "--loop",
        choices=("asyncio", "uvloop"),
        default="asyncio",
        help="the event loop (the service uses uvloop's when it is installed)",
    )
    parser.add_argument(
        "--parse",
        action="store_true",
        help="parse the request and serialize the reply with the health messages",
    )
    args = parser.parse_args()
    factory = eventloop.loop_factory() if args.loop == "uvloop" else None
    with asyncio.Runner(loop_factory=factory) as runner:
        runner.run(serve(args.host, args.port, parse=args.parse))


if __name__ == "__main__":
    main()
