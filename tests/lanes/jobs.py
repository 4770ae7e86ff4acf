"""Jobs for the lanes' tests: module-level, so a lane's spawned process can import them."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


def pid() -> int:
    """The id of the process running the job."""
    return os.getpid()


def fail(message: str) -> None:
    """A job that raises."""
    raise ValueError(message)


def spin(seconds: float) -> int:
    """Burn ``seconds`` of CPU; the loops made."""
    end = time.process_time() + seconds
    loops = 0
    while time.process_time() < end:
        loops += 1
    return loops


def die() -> None:
    """End the process under the job, as the out-of-memory killer would."""
    os._exit(9)


@dataclass(frozen=True)
class UntilCancelled:
    """Emits a tick every 10 ms until told to stop; returns how many it emitted."""

    def run(self, cancelled: Callable[[], bool], emit: Callable[[Any], None]) -> int:
        ticks = 0
        while not cancelled():
            emit(ticks)
            ticks += 1
            time.sleep(0.01)
        return ticks


@dataclass(frozen=True)
class Items:
    """Emits ``count`` items, then returns their sum."""

    count: int

    def run(self, cancelled: Callable[[], bool], emit: Callable[[Any], None]) -> int:
        del cancelled
        for item in range(self.count):
            emit(item)
        return sum(range(self.count))
