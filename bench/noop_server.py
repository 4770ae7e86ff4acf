"""The floor of the h2load benchmark: a bare grpc.aio server that does nothing per call.

One generic handler answers every unary method with the same two bytes (a serialized
``HealthCheckResponse{status: SERVING}``) without deserializing the request: no
interceptors, no servicer, no health or reflection service. What a call costs here is what
grpc.aio itself costs on this machine, so every other figure of ``bench_service.py
--mode h2load`` is read against it.

    python bench/noop_server.py --port 51650     # serves until SIGTERM or SIGINT
"""

from __future__ import annotations

import argparse
import asyncio
import signal

import grpc
import grpc.aio

# HealthCheckResponse{status: SERVING}: field 1, varint 1.
REPLY = b"\x08\x01"


async def _reply(request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> bytes:
    del request, context
    return REPLY


class NoopHandler(grpc.GenericRpcHandler):
    """Answers any method: no (de)serializer, so the bytes go through untouched."""

    def __init__(self) -> None:
        self._handler: grpc.RpcMethodHandler[bytes, bytes] = grpc.unary_unary_rpc_method_handler(
            _reply
        )

    def service(
        self, handler_call_details: grpc.HandlerCallDetails
    ) -> grpc.RpcMethodHandler[bytes, bytes]:
        del handler_call_details
        return self._handler


async def serve(host: str, port: int) -> None:
    """Serve until SIGTERM or SIGINT."""
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((NoopHandler(),))
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
    args = parser.parse_args()
    asyncio.run(serve(args.host, args.port))


if __name__ == "__main__":
    main()
