"""Lanes: where every piece of heavy work runs, apart from the play and from each other.

A server process answers a table's actions and reads itself, on its event loop (the *play*
lane: sub-millisecond work, bounded by ``BALOOT_MAX_CONCURRENT_RPCS``). Everything that can
take longer runs in a lane of its own processes:

========== ====================================================== =====
lane       work                                                   nice
========== ====================================================== =====
judge      a Sawa claim's proof, a Qayd call's judgement          0
bots       a STRONG or EXPERT decision (SuggestAction, ApplyBot)  0
solve      SolveDeal                                              10
analysis   AnalyzeRecord, FairPlayReport (streams)                15
========== ====================================================== =====

Each lane has its processes, a bounded queue shared fairly between clients, its deadline
handling and its metrics; a full lane or a client over its quota is refused at once
(:class:`~baloot_engine.lanes.errors.LaneRefusedError`, with a retry delay), never queued
behind. The *nice* level makes the kernel give the play path and the bots the CPU before the
solves and the analyses, so a machine busy with analyses still answers cards and bot turns
on time. Heavy work (every lane but the judge's, whose work a table's play needs) is paid
for by a client (:mod:`~baloot_engine.lanes.clients`) under its quotas
(:mod:`~baloot_engine.lanes.quota`).

This package knows nothing of gRPC or protobuf: the match layer hands it jobs, the servicer
turns its refusals into statuses.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field, replace
from typing import Final

from baloot_engine.lanes.clients import (
    ANONYMOUS_CLIENT,
    ApiKeys,
    Client,
    HeavyWork,
    presented_key,
)
from baloot_engine.lanes.errors import (
    API_KEY_INVALID,
    API_KEY_REQUIRED,
    LaneDeadlineError,
    LaneError,
    LaneRefusedError,
    WorkerStoppedError,
)
from baloot_engine.lanes.lane import Lane, LaneConfig, LaneMetrics, NoMetrics
from baloot_engine.lanes.process import Call, Job
from baloot_engine.lanes.quota import Quota, Quotas
from baloot_engine.lanes.sources import IPNetwork, Sources

BOTS: Final = "bots"
JUDGE: Final = "judge"
SOLVE: Final = "solve"
ANALYSIS: Final = "analysis"
_STOP_SECONDS: Final = 2.0

DEFAULT_BOTS: Final = LaneConfig(BOTS, processes=1, queue=32, max_seconds=12.0)
DEFAULT_JUDGE: Final = LaneConfig(
    JUDGE, processes=1, queue=8, max_seconds=12.0, metered=False, per_source=1
)
DEFAULT_SOLVE: Final = LaneConfig(SOLVE, processes=1, queue=8, nice=10, max_seconds=12.0)
DEFAULT_ANALYSIS: Final = LaneConfig(
    ANALYSIS, processes=1, queue=4, nice=15, max_seconds=610.0, streams=True
)
DEFAULT_KEYED: Final = Quota(cpu_seconds_per_minute=60.0, queued_jobs=16, streams=2)
"""A keyed client's quota: a core's minute a minute, 16 jobs in a lane, 2 streams."""
DEFAULT_ANONYMOUS: Final = Quota(cpu_seconds_per_minute=30.0, queued_jobs=16, streams=2)
"""The anonymous client's (where it may ask for heavy work at all)."""


@dataclass(frozen=True, slots=True)
class LanesConfig:
    """Every lane's size, the quotas, and who may ask for heavy work."""

    bots: LaneConfig = DEFAULT_BOTS
    judge: LaneConfig = DEFAULT_JUDGE
    solve: LaneConfig = DEFAULT_SOLVE
    analysis: LaneConfig = DEFAULT_ANALYSIS
    keyed: Quota = DEFAULT_KEYED
    anonymous: Quota = DEFAULT_ANONYMOUS
    heavy_work: HeavyWork = HeavyWork.AUTO
    api_keys: ApiKeys = field(default_factory=ApiKeys)
    trusted_proxies: tuple[IPNetwork, ...] = ()

    def inline(self) -> LanesConfig:
        """The same, every lane run inline in the server process (tests, benchmarks)."""
        return replace(
            self,
            bots=replace(self.bots, processes=0),
            judge=replace(self.judge, processes=0),
            solve=replace(self.solve, processes=0),
            analysis=replace(self.analysis, processes=0),
        )


class Lanes:
    """The lanes of one server process, and the clients who pay for their work."""

    def __init__(
        self, config: LanesConfig | None = None, metrics: LaneMetrics | None = None
    ) -> None:
        config = config if config is not None else LanesConfig()
        self.config = config
        self.quotas = Quotas(config.keyed, config.anonymous)
        metrics = metrics if metrics is not None else NoMetrics()
        self.bots = Lane(config.bots, self.quotas, metrics)
        self.judge = Lane(config.judge, self.quotas, metrics)
        self.solve = Lane(config.solve, self.quotas, metrics)
        self.analysis = Lane(config.analysis, self.quotas, metrics)
        self._anonymous = config.api_keys.anonymous_allowed(config.heavy_work)
        self.sources = Sources(config.trusted_proxies)
        self._metrics = metrics

    @property
    def all(self) -> tuple[Lane, ...]:
        """Every lane."""
        return (self.judge, self.bots, self.solve, self.analysis)

    @property
    def anonymous_heavy_work(self) -> bool:
        """Whether callers without an API key may ask for heavy work."""
        return self._anonymous

    def client(self, key: str, source: str = "") -> Client:
        """The client an API key names ('' for none: the anonymous client calling from
        ``source``); a key this deployment did not issue is refused (API_KEY_INVALID), never
        taken as anonymous."""
        if not key:
            return ANONYMOUS_CLIENT.from_source(source) if source else ANONYMOUS_CLIENT
        found = self.config.api_keys.client_of(key)
        if found is None:
            self._metrics.refused("any", API_KEY_INVALID)
            raise LaneRefusedError(API_KEY_INVALID, "the API key is not one this deployment issued")
        return found

    def payer(self, key: str, lane: Lane, source: str = "") -> Client:
        """The client who pays for a heavy job in ``lane``: refused without an API key where
        the deployment requires one, and when the lane would not take the job now."""
        client = self.client(key, source)
        if not client.keyed and not self._anonymous:
            self._metrics.refused(lane.name, API_KEY_REQUIRED)
            raise LaneRefusedError(
                API_KEY_REQUIRED,
                f"the {lane.name} lane's work needs an API key (x-api-key metadata) on this "
                "deployment",
                metadata={"lane": lane.name},
            )
        lane.check(client)
        return client

    def prestart(self) -> None:
        """Start every lane's processes now (the first job would otherwise wait for them)."""
        for lane in self.all:
            lane.prestart()

    def pids(self) -> dict[str, list[int]]:
        """Each lane's live processes."""
        return {lane.name: lane.pids() for lane in self.all}

    def drain(self, seconds: float) -> asyncio.TimerHandle:
        """In ``seconds`` (the server's grace period, less a margin), stop every job not yet
        ended and tell its caller to send the request again (DRAINING): no call of heavy work
        is cut without a reason a client can act on. Returns the timer (cancelled if the jobs
        end first)."""
        loop = asyncio.get_running_loop()

        def drain_all() -> None:
            for lane in self.all:
                lane.drain()

        return loop.call_later(max(0.0, seconds), drain_all)

    async def close(self) -> None:
        """Take no more jobs and end every lane's processes (the calls they ran for have
        ended: a server's last step)."""
        processes = [p for lane in self.all for p in lane.close()]
        deadline = time.monotonic() + _STOP_SECONDS

        def join_all() -> None:
            for process in processes:
                process.join(deadline - time.monotonic())

        await asyncio.get_running_loop().run_in_executor(None, join_all)


def deadline_in(seconds: float | None) -> float | None:
    """A ``time.monotonic()`` instant ``seconds`` from now (None stays None)."""
    return None if seconds is None else time.monotonic() + seconds


__all__ = [
    "ANALYSIS",
    "BOTS",
    "JUDGE",
    "SOLVE",
    "ApiKeys",
    "Call",
    "Client",
    "HeavyWork",
    "Job",
    "Lane",
    "LaneConfig",
    "LaneDeadlineError",
    "LaneError",
    "LaneMetrics",
    "LaneRefusedError",
    "Lanes",
    "LanesConfig",
    "Quota",
    "WorkerStoppedError",
    "deadline_in",
    "presented_key",
]
