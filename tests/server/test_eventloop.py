"""The server's event loop: uvloop's when installed, asyncio's otherwise, same results."""

from __future__ import annotations

import asyncio
import importlib.util

import pytest

from baloot_engine.server import eventloop


async def _loop_module() -> str:
    await asyncio.sleep(0)
    return type(asyncio.get_running_loop()).__module__.partition(".")[0]


def test_the_server_runs_on_uvloop_when_it_is_installed() -> None:
    expected = "uvloop" if importlib.util.find_spec("uvloop") is not None else "asyncio"
    assert eventloop.run(_loop_module()) == expected


def test_without_uvloop_the_server_runs_on_asyncio_s_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(eventloop, "loop_factory", lambda: None)
    assert eventloop.run(_loop_module()) == "asyncio"
