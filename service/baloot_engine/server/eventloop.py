"""The event loop the server runs on: uvloop's when it is installed, else asyncio's own.

uvloop (libuv under the asyncio API) is a dependency on the platforms it supports. grpc.aio
runs on it unchanged, and it takes less CPU per call than asyncio's selector loop: under
h2load, about a fifth fewer instructions for a health check and a seventh fewer for a
PlayCard (``docs/performance.md``). Where it is missing, the server runs on asyncio's loop,
which is also the loop of the in-process tests.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

_T = TypeVar("_T")


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """``uvloop.new_event_loop`` when uvloop can be imported, else None (asyncio's loop)."""
    try:
        uvloop = importlib.import_module("uvloop")
    except ImportError:
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def run(main: Coroutine[Any, Any, _T]) -> _T:
    """``asyncio.run(main)`` on the loop of :func:`loop_factory`."""
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(main)
