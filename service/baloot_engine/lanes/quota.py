"""Per-client quotas of heavy work: CPU-seconds a minute, jobs queued per lane, open streams.

The CPU quota is a bucket: it holds at most a minute's worth of CPU-seconds and refills at that
rate; every job's CPU time, measured in the process that ran it, is taken from it when the job
ends (a job may take it below zero: a client in debt is refused until the bucket refills above
zero, and is told when). Quotas are kept per server process: with ``BALOOT_WORKERS`` > 1 or
several replicas, a client's quota is each process's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from baloot_engine.lanes.clients import Client

_MAX_BUCKETS: Final = 4096
"""Buckets kept before the full ones are dropped (a full bucket is what a new one would be)."""


@dataclass(frozen=True, slots=True)
class Quota:
    """One client's limits. ``cpu_seconds_per_minute`` 0 means heavy work is refused."""

    cpu_seconds_per_minute: float
    queued_jobs: int
    streams: int


class Bucket:
    """A client's CPU-seconds: at most a minute's worth, refilled continuously."""

    __slots__ = ("level", "rate", "size", "updated")

    def __init__(self, per_minute: float, now: float) -> None:
        self.size = per_minute
        self.rate = per_minute / 60.0
        self.level = per_minute
        self.updated = now

    def refill(self, now: float) -> float:
        """The level now."""
        self.level = min(self.size, self.level + (now - self.updated) * self.rate)
        self.updated = now
        return self.level

    def wait(self, now: float) -> float:
        """Seconds until the level is above zero again (0 if it is)."""
        level = self.refill(now)
        if level > 0:
            return 0.0
        return (-level / self.rate if self.rate > 0 else float("inf")) + 0.001


class Quotas:
    """Every client's bucket, in one server process."""

    def __init__(
        self,
        keyed: Quota,
        anonymous: Quota,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.keyed = keyed
        self.anonymous = anonymous
        self._clock = clock
        self._buckets: dict[str, Bucket] = {}

    def quota_of(self, client: Client) -> Quota:
        """The limits of ``client``."""
        return self.keyed if client.keyed else self.anonymous

    def cpu_wait(self, client: Client) -> float:
        """Seconds ``client`` must wait before its bucket lets it start a job (0: now)."""
        bucket = self._buckets.get(client.owner)
        if bucket is None:
            return 0.0 if self.quota_of(client).cpu_seconds_per_minute > 0 else float("inf")
        return bucket.wait(self._clock())

    def charge(self, client: Client, cpu_seconds: float) -> None:
        """Take a finished job's CPU time from ``client``'s bucket."""
        now = self._clock()
        bucket = self._buckets.get(client.owner)
        if bucket is None:
            if len(self._buckets) >= _MAX_BUCKETS:
                self._forget(now)
            bucket = self._buckets[client.owner] = Bucket(
                self.quota_of(client).cpu_seconds_per_minute, now
            )
        bucket.refill(now)
        bucket.level -= max(0.0, cpu_seconds)

    def level(self, client: Client) -> float:
        """CPU-seconds left in ``client``'s bucket now."""
        bucket = self._buckets.get(client.owner)
        if bucket is None:
            return self.quota_of(client).cpu_seconds_per_minute
        return bucket.refill(self._clock())

    def _forget(self, now: float) -> None:
        for name, bucket in list(self._buckets.items()):
            if bucket.refill(now) >= bucket.size:
                del self._buckets[name]


__all__ = ["Bucket", "Quota", "Quotas"]
