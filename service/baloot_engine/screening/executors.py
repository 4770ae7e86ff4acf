"""Where the screen's work units run: in this process, or on Ray.

A unit is a pure function applied to one item (a record, a flagged set); an executor only
decides where it runs, so the bytes out are the same with either (the driver orders them).
:class:`SerialExecutor` runs them one after the other here; :class:`RayExecutor` on Ray, local
by default (``ray.init`` on this machine with ``num_cpus`` workers) or on a cluster
(``address``). Ray is imported only when a :class:`RayExecutor` starts (the ``screen`` extra).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class Executor(Protocol):
    """Runs a function over items, yielding ``(index, result)`` as each is done."""

    name: str

    def run(self, function: Callable[[T], R], items: Iterable[T]) -> Iterator[tuple[int, R]]: ...

    def close(self) -> None: ...


class SerialExecutor:
    """Every unit in this process, in order."""

    name = "serial"

    def run(self, function: Callable[[T], R], items: Iterable[T]) -> Iterator[tuple[int, R]]:
        for index, item in enumerate(items):
            yield index, function(item)

    def close(self) -> None:
        return None


def ray_available() -> bool:
    """Whether Ray can be imported (the ``screen`` extra is installed)."""
    import importlib.util

    return importlib.util.find_spec("ray") is not None


class RayExecutor:
    """Every unit a Ray task: on this machine with ``num_cpus`` workers, or on the cluster at
    ``address``. At most ``in_flight`` tasks per worker are submitted ahead, so that a day's
    records are read as the work proceeds, not all at once."""

    name = "ray"

    def __init__(
        self, num_cpus: int | None = None, address: str | None = None, in_flight: int = 2
    ) -> None:
        import ray

        self._ray: Any = ray
        if not ray.is_initialized():
            if address:
                ray.init(address=address, log_to_driver=False)
            else:
                ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
        resources: dict[str, float] = self._ray.cluster_resources()
        self.workers = int(resources.get("CPU", num_cpus or 1))
        self.in_flight = max(1, in_flight * self.workers)

        def call(function: Callable[[Any], Any], item: Any) -> Any:
            return function(item)

        self._remote = ray.remote(num_cpus=1)(call)

    def run(self, function: Callable[[T], R], items: Iterable[T]) -> Iterator[tuple[int, R]]:
        ray = self._ray
        shared = ray.put(function)
        pending: dict[Any, int] = {}
        source = enumerate(items)
        exhausted = False
        while pending or not exhausted:
            while not exhausted and len(pending) < self.in_flight:
                nxt = next(source, None)
                if nxt is None:
                    exhausted = True
                    break
                index, item = nxt
                pending[self._remote.remote(shared, item)] = index
            if not pending:
                break
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                yield pending.pop(ref), ray.get(ref)

    def close(self) -> None:
        self._ray.shutdown()


def executor_of(kind: str, num_cpus: int | None = None, address: str | None = None) -> Executor:
    """``serial``, ``ray``, or ``auto`` (Ray when it is installed, else serial)."""
    if kind == "auto":
        kind = "ray" if ray_available() else "serial"
    if kind == "ray":
        return RayExecutor(num_cpus, address)
    if kind == "serial":
        return SerialExecutor()
    raise ValueError(f"an executor is auto, ray or serial, got {kind!r}")


__all__ = ["Executor", "RayExecutor", "SerialExecutor", "executor_of", "ray_available"]
