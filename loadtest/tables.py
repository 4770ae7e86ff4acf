"""The card-game load model: concurrent tables of four seats played through Envoy.

    python -m loadtest.tables [--mixes none,strong:1,learned:0-3] [--tables 16,32,64]
        [--duration 40] [--json var/tables.json] [--svg docs/images/load-model.svg]

What an operator sizes a backend with is latency against concurrent tables under a real
game's load, not matches played back to back. Each *table* here is a game room as a backend
runs it (docs/clients.md, "The flow of a match"): the backend holds the host credential and
relays each person's action with that person's own seat credential, reads the other people's
views of the new token with the host credential, deals, closes the review of a round and
plays the bots' seats with ``ApplyBotAction``. Per table:

* **people** in the seats without a bot act after a think time drawn from a log-normal
  distribution clipped to 2-5 s (:class:`ThinkTime`, median 3.2 s; real time unless
  ``--think-scale`` says otherwise, and the report prints the factor);
* **bots** in 0-3 seats at one level of the mix (BASIC, STRONG, EXPERT, LEARNED), paced like a
  game shows them (0.5-1.5 s before each action); STRONG and EXPERT are heavy work, so the
  backend sends its API key (``x-api-key``) on every call, as a deployment with keys requires;
* **spectators** (0-2 a table, one on average) read the public view with the spectator
  credential after each change, 0-1 s later;
* **Sawa and Qayd**: table play (Kammelna's rules with ``illegal_moves_allowed`` and ``sawa``),
  a Sawa claim in about one round in ten from the fifth trick on, a Qayd call in about one in
  thirty after a trick; the host closes every round's review after 2 s;
* **a reconnect storm** in the middle of each measured window: a share of the people (a
  quarter by default) re-read their view at once with their seat credentials.

The sweep starts a fresh service (one worker process, the lanes at their defaults, an API key
configured) and a gateway (the repository's Envoy, ``scripts/gateway.py``) on free loopback
ports for each bot mix, runs a bounded number of steps of a bounded duration each (the tables
are cut at the end of a step), and reports p50/p99 per RPC against the number of concurrent
tables on that one server core, with the CPU the service, Envoy and this client took and the
load average. A step passes when every RPC's p99 (its p50 with 10-99 calls in the window; not
judged with fewer) is at most 100 ms above what the call waits by design (a judged Sawa or
Qayd answer leaves on a 100 ms step; an EXPERT decision searches for its budget), nothing
failed and no lane refused; the capacity of a mix is the most tables of the passing steps
below the first failing one. Each table first fast-forwards to a point drawn in a round, so
the tables are spread over its phases. Loopback only; everything stops by itself.

Latency measured on cores shared with other work measures that work too: the report prints
the client's own event-loop lag and the load average beside it, and the CPU each table costs
(less the service's idle CPU), which does not depend on the sharing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import resource
import secrets
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

import grpc
import grpc.aio
from baloot_client import EngineError
from baloot_client.demo import choose

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot.v1 import rules_pb2, types_pb2
from baloot_engine.server.eventloop import run as run_on_loop
from loadtest.driver import quantile
from loadtest.stack import new_state_key, start_gateway, start_service

LEVELS: Final = {
    "basic": pb.BOT_LEVEL_BASIC,
    "strong": pb.BOT_LEVEL_STRONG,
    "expert": pb.BOT_LEVEL_EXPERT,
    "learned": pb.BOT_LEVEL_LEARNED,
}
BETWEEN_HANDS: Final = (types_pb2.PHASE_AWAITING_DEAL, types_pb2.PHASE_ROUND_OVER)
RETRYABLE: Final = frozenset({grpc.StatusCode.UNAVAILABLE})
JUDGED_STEP_MS: Final = 100.0  # api/calls.py JUDGED_ANSWER_STEP: a judged answer's time step
EXPERT_BUDGET_MS: Final = 500.0  # BALOOT_BOT_EXPERT_BUDGET_MS's default
LIMIT_MS: Final = 100.0
FORWARD_TIMEOUT: Final = 300.0  # seconds the tables may take to fast-forward
MIN_CALLS: Final = 100  # an RPC with fewer calls in a window is judged by its p50, not its p99
MIN_MEDIAN_CALLS: Final = 10  # with fewer still, it is shown, not judged
API_KEY_NAME: Final = "loadmodel"


# --- The model's pure parts -------------------------------------------------------------------


@dataclass(frozen=True)
class ThinkTime:
    """How long a person takes to act: log-normal around ``median`` seconds, clipped to
    [low, high], times ``scale`` (1 = real time; 0.5 = people twice as fast, to be reported)."""

    median: float = 3.2
    sigma: float = 0.25
    low: float = 2.0
    high: float = 5.0
    scale: float = 1.0

    def draw(self, rng: random.Random) -> float:
        """One think time, in seconds."""
        raw = rng.lognormvariate(math.log(self.median), self.sigma)
        return min(self.high, max(self.low, raw)) * self.scale

    def clipped_share(self) -> float:
        """The share of draws clipped to either bound (the log-normal's two tails)."""

        def below(x: float) -> float:
            return 0.5 * (1 + math.erf(math.log(x / self.median) / (self.sigma * math.sqrt(2))))

        return below(self.low) + 1 - below(self.high)


@dataclass(frozen=True)
class BotMix:
    """Bots at one level in ``low``-``high`` seats of each table (drawn uniformly per table)."""

    level: str | None  # a key of LEVELS, None: people only
    low: int = 0
    high: int = 0

    @property
    def name(self) -> str:
        """As parsed: ``none``, ``strong:1``, ``learned:0-3``."""
        if self.level is None:
            return "none"
        span = str(self.low) if self.low == self.high else f"{self.low}-{self.high}"
        return f"{self.level}:{span}"

    def seats(self, rng: random.Random) -> tuple[str | None, ...]:
        """The four seats of a new table: a bot level or None (a person)."""
        count = rng.randint(self.low, self.high) if self.level else 0
        bots = set(rng.sample(range(4), count))
        return tuple(self.level if seat in bots else None for seat in range(4))


def parse_mix(text: str) -> BotMix:
    """``none``, ``<level>:<n>`` or ``<level>:<low>-<high>``, 0 <= low <= high <= 3."""
    text = text.strip().lower()
    if text == "none":
        return BotMix(None)
    level, colon, span = text.partition(":")
    if level not in LEVELS or not colon:
        raise ValueError(f"a mix is none or <level>:<n>[-<m>] with a level of {sorted(LEVELS)}")
    low_text, _, high_text = span.partition("-")
    low, high = int(low_text), int(high_text or low_text)
    if not 0 <= low <= high <= 3:
        raise ValueError("bots in 0 to 3 seats: at least one seat is a person's")
    return BotMix(level, low, high)


@dataclass(frozen=True)
class RoundPlan:
    """What the people of one round will do besides playing: a Sawa claim from trick
    ``sawa_from`` on (at the first lead of a person with a claim listed), a Qayd call after
    trick ``qayd_after``."""

    sawa_from: int | None
    qayd_after: int | None


def plan_round(rng: random.Random, sawa_rate: float, qayd_rate: float) -> RoundPlan:
    """Draw a round's plan: a claim with probability ``sawa_rate`` (from trick 5-8), else a
    call with probability ``qayd_rate`` (after trick 1-7)."""
    if rng.random() < sawa_rate:
        return RoundPlan(sawa_from=rng.randint(5, 8), qayd_after=None)
    if rng.random() < qayd_rate:
        return RoundPlan(sawa_from=None, qayd_after=rng.randint(1, 7))
    return RoundPlan(None, None)


def judged(summary: dict[str, float]) -> tuple[str, float]:
    """The statistic a step is judged by for one RPC: its p99 from a hundred calls in the
    window (with fewer, a p99 is only the slowest call), else its p50 from ten, else nothing
    ("-", 0: shown, not judged)."""
    if summary["n"] >= MIN_CALLS:
        return "p99", summary["p99"]
    if summary["n"] >= MIN_MEDIAN_CALLS:
        return "p50", summary["p50"]
    return "-", 0.0


def floor_ms(label: str) -> float:
    """What a call waits by design before it may answer: a judged Sawa claim or Qayd call
    leaves on a 100 ms step, an EXPERT decision searches for its budget."""
    if label in ("PlayCard sawa", "CallQayd"):
        return JUDGED_STEP_MS
    if label == "ApplyBotAction EXPERT":
        return EXPERT_BUDGET_MS
    return 0.0


@dataclass
class StepResult:
    """One step of a sweep: a number of tables for a measured window."""

    mix: str
    tables: int
    window: float
    think_scale: float
    calls: int = 0
    latency_ms: dict[str, dict[str, float]] = field(default_factory=dict)  # label: p50 p99 max n
    errors: dict[str, int] = field(default_factory=dict)  # "label CODE reason": count
    expected: dict[str, int] = field(default_factory=dict)  # refusals the model expects
    refusals: dict[str, int] = field(default_factory=dict)  # lanes' RESOURCE_EXHAUSTED, retried
    service_cores: float = 0.0
    service_idle_cores: float = 0.0  # the service's CPU with no call, measured before the steps
    gateway_cores: float = 0.0
    client_cores: float = 0.0
    loop_lag_p99_ms: float = 0.0
    load_before: float = 0.0
    load_after: float = 0.0
    matches: int = 0
    rounds: int = 0
    storm: int = 0

    @property
    def calls_cores(self) -> float:
        """The service's CPU (the worker and its lanes' processes) for the calls: less idle."""
        return max(0.0, self.service_cores - self.service_idle_cores)

    @property
    def service_ms_per_call(self) -> float:
        """The calls' service CPU per call of the window, in ms."""
        return self.calls_cores * self.window * 1000 / self.calls if self.calls else 0.0

    @property
    def tables_per_busy_core(self) -> float:
        """The tables one core would carry, busy all the time at this CPU per table."""
        return self.tables / self.calls_cores if self.calls_cores else 0.0

    def over(self, limit_ms: float = LIMIT_MS) -> dict[str, float]:
        """The RPCs whose judged latency (:func:`judged`) is more than ``limit_ms`` above its
        floor: label -> that latency."""
        return {
            label: judged(summary)[1]
            for label, summary in self.latency_ms.items()
            if label != "ALL" and judged(summary)[1] - floor_ms(label) > limit_ms
        }

    def unjudged(self) -> list[str]:
        """The RPCs with too few calls in the window to judge (shown all the same)."""
        return [
            label
            for label, summary in self.latency_ms.items()
            if label != "ALL" and judged(summary)[0] == "-"
        ]

    def by_median(self) -> list[str]:
        """The RPCs with too few calls in the window for a p99: judged by their p50."""
        return [
            label
            for label, summary in self.latency_ms.items()
            if label != "ALL" and judged(summary)[0] == "p50"
        ]

    def passed(self, limit_ms: float = LIMIT_MS) -> bool:
        """No RPC over the limit, no error, no refusal of the lanes, and calls were made."""
        return self.calls > 0 and not self.errors and not self.refusals and not self.over(limit_ms)


def capacity(steps: Sequence[StepResult], limit_ms: float = LIMIT_MS) -> int:
    """The most tables of the passing steps below the first failing one (0: none passed)."""
    first_failure = min((s.tables for s in steps if not s.passed(limit_ms)), default=None)
    return max(
        (
            s.tables
            for s in steps
            if s.passed(limit_ms) and (first_failure is None or s.tables < first_failure)
        ),
        default=0,
    )


def next_tables(steps: Sequence[StepResult], ladder: Sequence[int], refine: bool) -> int | None:
    """The next number of tables to try: up the ladder while steps pass; once one fails, the
    midpoint between the last pass and the first failure, once (if ``refine``, and the two are
    more than an eighth apart)."""
    tried = {s.tables for s in steps}
    failed = sorted(s.tables for s in steps if not s.passed())
    if not failed:
        return next((n for n in ladder if n not in tried), None)
    if not refine or tried - set(ladder):  # one refinement at most: the steps are dear
        return None
    best = capacity(steps)
    middle = (best + failed[0]) // 2 if best else failed[0] // 2
    if middle <= 0 or middle in tried or failed[0] - best <= max(2, best // 8):
        return None
    return middle


def summarize(samples: Sequence[float]) -> dict[str, float]:
    """p50, p99 and max in milliseconds, and the count, of latencies in seconds."""
    ordered = sorted(samples)
    return {
        "p50": round(quantile(ordered, 0.50) * 1000, 2),
        "p99": round(quantile(ordered, 0.99) * 1000, 2),
        "max": round(ordered[-1] * 1000, 2) if ordered else 0.0,
        "n": len(ordered),
    }


# --- The running tables ----------------------------------------------------------------------


@dataclass(frozen=True)
class ModelConfig:
    """One step's model: where, how many tables, for how long, who sits."""

    target: str
    tables: int
    mix: BotMix
    api_key: str = ""
    think: ThinkTime = ThinkTime()
    bot_delay: tuple[float, float] = (0.5, 1.5)
    deal_pause: float = 1.0
    review_pause: float = 2.0
    spectators_mean: float = 1.0
    sawa_rate: float = 0.10
    qayd_rate: float = 0.033
    storm_share: float = 0.25
    storm_spread: float = 0.5  # gRPC's reconnect backoff jitter: 1 s +- 20 %
    spread_actions: int = 45  # about a round: each table starts 0 to this many actions in
    ramp: float = 5.0
    warmup: float = 5.0
    duration: float = 40.0
    connections: int = 8
    deadline: float = 30.0
    seed: int = 1


class _FailedError(Exception):
    """A call failed for good: the table starts a new match."""


class _Notice:
    """A version counter that spectators wait on."""

    def __init__(self) -> None:
        self.version = 0
        self._changed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def bump(self) -> None:
        self.version += 1
        self._changed.set_result(None)
        self._changed = asyncio.get_running_loop().create_future()

    async def newer(self, version: int) -> int:
        while self.version <= version:
            await asyncio.shield(self._changed)
        return self.version


class _Step:
    """The shared state of one step."""

    def __init__(self, config: ModelConfig, stubs: Sequence[Any]) -> None:
        self.config = config
        self.stubs = stubs
        # The window opens ``warmup`` seconds after every table has reached its starting
        # point (:meth:`_Table.fast_forward`), and lasts ``duration``.
        self.measure_from = self.measure_to = math.inf
        self.forwarding = config.tables
        self.forwarded = asyncio.Event()
        if not config.tables:
            self.forwarded.set()
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.errors: Counter[str] = Counter()
        self.expected: Counter[str] = Counter()
        self.refusals: Counter[str] = Counter()
        self.lags: list[float] = []
        self.metadata = (("x-api-key", config.api_key),) if config.api_key else None
        self.tables: list[_Table] = []
        self.matches = self.rounds = self.storm = 0

    def open_window(self) -> None:
        self.measure_from = time.perf_counter() + self.config.warmup
        self.measure_to = self.measure_from + self.config.duration

    def table_ready(self) -> None:
        self.forwarding -= 1
        if self.forwarding <= 0:
            self.forwarded.set()

    def measuring(self, at: float) -> bool:
        return self.measure_from <= at < self.measure_to

    async def call(self, label: str, method: Callable[..., Any], request: Any) -> Any:
        """Send ``request``; UNAVAILABLE is sent again, a lane's refusal after its delay; the
        latency runs from the first send to the answer (what the table waits)."""
        start = time.perf_counter()
        for attempt in range(8):
            try:
                response = await method(
                    request, timeout=self.config.deadline, metadata=self.metadata
                )
            except grpc.aio.AioRpcError as error:
                code = error.code()
                if code == grpc.StatusCode.CANCELLED:
                    raise
                if code in RETRYABLE and attempt < 7:
                    await asyncio.sleep(0.05 * 2**attempt)
                    continue
                reason = EngineError.from_rpc_error(error).reason
                if code == grpc.StatusCode.RESOURCE_EXHAUSTED and attempt < 7:
                    if self.measuring(start):
                        self.refusals[f"{label} {reason}"] += 1
                    await asyncio.sleep(1.0)
                    continue
                key = f"{label} {code.name} {reason}".rstrip()
                if reason == "SAWA_INVALID":
                    self.expected[key] += 1
                    raise
                if self.measuring(start):
                    self.errors[key] += 1
                raise _FailedError(key) from None
            if self.measuring(start):
                self.latencies[label].append(time.perf_counter() - start)
            return response
        raise _FailedError(f"{label}: retries used up")

    async def lag_monitor(self) -> None:
        """How late the client's own loop wakes (latencies include it)."""
        while True:
            before = time.perf_counter()
            await asyncio.sleep(0.1)
            late = time.perf_counter() - before - 0.1
            if self.measuring(before):
                self.lags.append(late)

    async def reconnect_storm(self) -> None:
        """In the middle of the window, a share of the people re-read their views at once."""
        await self.forwarded.wait()
        await asyncio.sleep(
            max(0.0, self.measure_from + self.config.duration / 2 - time.perf_counter())
        )
        reads = []
        rng = random.Random(self.config.seed)
        for table in self.tables:
            for seat in table.people:
                if table.state and rng.random() < self.config.storm_share:
                    reads.append(table.reread(seat, rng.uniform(0, self.config.storm_spread)))
        self.storm = len(reads)
        await asyncio.gather(*reads, return_exceptions=True)


class _Table:
    """One game room as its backend runs it."""

    def __init__(self, step: _Step, index: int) -> None:
        self.step = step
        self.config = step.config
        self.rng = random.Random(step.config.seed * 1_000_003 + index)
        self.stub = step.stubs[index % len(step.stubs)]
        self.seats = self.config.mix.seats(self.rng)
        self.people = [seat for seat in range(4) if self.seats[seat] is None]
        self.spectators = min(2, self._poisson(self.config.spectators_mean))
        self.state = b""
        self.version = 0
        self.match_id = self.host = self.spectator = ""
        self.credentials: list[str] = []
        self.views: dict[int, types_pb2.View] = {}
        self.public = types_pb2.View()
        self.plan = RoundPlan(None, None)
        self.qayd_done = True
        self.notice = _Notice()
        self.skip = 0  # actions left to fast-forward

    def _poisson(self, mean: float) -> int:
        count, threshold, product = 0, math.exp(-mean), self.rng.random()
        while product > threshold:
            count += 1
            product *= self.rng.random()
        return count

    def common(self, seat: int, credential: str) -> dict[str, Any]:
        return {
            "state": self.state,
            "match_id": self.match_id,
            "credential": credential,
            "seat": seat,
            "expected_version": self.version,
        }

    async def pause(self, seconds: float) -> None:
        """A pause of the game at the step's pace; none while fast-forwarding."""
        if not self.skip:
            await asyncio.sleep(seconds * self.config.think.scale)

    async def run(self) -> None:
        await asyncio.sleep(self.rng.uniform(0, self.config.ramp))
        # Fast-forward to a point drawn uniformly in a round, with no pause and no read, so
        # the tables are spread over the phases of a round (bidding, tricks, the round's end)
        # rather than all bidding at once when the window opens.
        self.skip = self.rng.randint(0, self.config.spread_actions)
        if not self.skip:
            self.step.table_ready()
        spectators = [asyncio.create_task(self.spectate()) for _ in range(self.spectators)]
        try:
            while True:
                try:
                    await self.play_match()
                except _FailedError:
                    await asyncio.sleep(1.0)
        finally:
            for task in spectators:
                task.cancel()

    async def spectate(self) -> None:
        """A watcher: the public view after each change, 0-1 s later."""
        seen = 0
        rng = random.Random(self.rng.random())
        while True:
            seen = await self.notice.newer(seen)
            await asyncio.sleep(rng.uniform(0, 1.0) * self.config.think.scale)
            if self.spectator and not self.skip:
                request = pb.GetViewRequest(
                    state=self.state, match_id=self.match_id, credential=self.spectator
                )
                with contextlib.suppress(_FailedError):
                    await self.step.call("GetView spectator", self.stub.GetView, request)

    async def reread(self, seat: int, delay: float) -> None:
        """A person's client reconnects and reads its view with its seat credential."""
        await asyncio.sleep(delay)
        request = pb.GetViewRequest(
            state=self.state,
            match_id=self.match_id,
            credential=self.credentials[seat],
            seat=seat,
        )
        await self.step.call("GetView reconnect", self.stub.GetView, request)

    def accept(self, response: Any) -> None:
        self.state, self.version = response.state, response.state_version
        for view in response.views:
            if view.HasField("seat"):
                self.views[view.seat] = view
            self.public = view
        self.notice.bump()

    async def others_read(self, actor: int | None) -> None:
        """The backend reads the other people's views of the new token (host credential)."""
        seats = [seat for seat in self.people if seat != actor]
        answers = await asyncio.gather(
            *(
                self.step.call(
                    "GetView",
                    self.stub.GetView,
                    pb.GetViewRequest(
                        state=self.state, match_id=self.match_id, credential=self.host, seat=seat
                    ),
                )
                for seat in seats
            )
        )
        for seat, answer in zip(seats, answers, strict=True):
            self.views[seat] = answer.view

    async def play_match(self) -> None:
        rules = rules_pb2.RuleSet(
            preset=rules_pb2.PRESET_KAMMELNA, illegal_moves_allowed=True, sawa=True
        )
        created = await self.step.call(
            "CreateMatch", self.stub.CreateMatch, pb.CreateMatchRequest(rules=rules)
        )
        self.step.matches += 1
        self.match_id, self.host = created.match_id, created.host_credential
        self.credentials, self.spectator = (
            list(created.seat_credentials),
            created.spectator_credential,
        )
        self.views = {}
        self.accept(created)
        while self.public.phase != types_pb2.PHASE_MATCH_OVER:
            await self.act()

    async def act(self) -> None:
        if self.skip:
            await self.forward()
            self.skip -= 1
            if not self.skip:
                self.step.table_ready()
            return
        view, stub, step = self.public, self.stub, self.step
        if view.phase in BETWEEN_HANDS:
            if view.phase == types_pb2.PHASE_ROUND_OVER:
                request = pb.GetScoreRequest(
                    state=self.state, match_id=self.match_id, credential=self.host
                )
                await step.call("GetScore", stub.GetScore, request)
            await self.pause(self.config.deal_pause)
            deal = pb.DealRoundRequest(**self.common(view.dealer, self.host))
            self.accept(await step.call("DealRound", stub.DealRound, deal))
            self.plan = plan_round(self.rng, self.config.sawa_rate, self.config.qayd_rate)
            self.qayd_done = False
            step.rounds += 1
            return
        if view.phase == types_pb2.PHASE_ROUND_REVIEW:
            await self.pause(self.config.review_pause)
            close = pb.CallQaydRequest(
                state=self.state,
                match_id=self.match_id,
                credential=self.host,
                close_review=True,
                expected_version=self.version,
            )
            self.accept(await step.call("CallQayd close", stub.CallQayd, close))
            return
        if self.qayd_due(view):
            await self.call_qayd(view)
            return
        seat = view.turn
        level = self.seats[seat]
        if level is not None:
            await self.pause(self.rng.uniform(*self.config.bot_delay))
            bot = pb.ApplyBotActionRequest(level=LEVELS[level], **self.common(seat, self.host))
            label = f"ApplyBotAction {level.upper()}"
            self.accept(await step.call(label, stub.ApplyBotAction, bot))
            return
        think = self.config.think.draw(self.rng)
        if not self.skip:
            await asyncio.sleep(think)
        await self.person_acts(seat, self.views[seat])

    async def forward(self) -> None:
        """One action of the fast-forward: the backend plays the seat to act (a BASIC bot with
        the host credential, whose four views keep every person's view current), or closes
        the review."""
        view, step = self.public, self.step
        if view.phase == types_pb2.PHASE_ROUND_REVIEW:
            close = pb.CallQaydRequest(
                state=self.state,
                match_id=self.match_id,
                credential=self.host,
                close_review=True,
                expected_version=self.version,
            )
            self.accept(await step.call("forward", self.stub.CallQayd, close))
            return
        seat = view.dealer if view.phase in BETWEEN_HANDS else view.turn
        request = pb.ApplyBotActionRequest(level=pb.BOT_LEVEL_BASIC, **self.common(seat, self.host))
        self.accept(await step.call("forward", self.stub.ApplyBotAction, request))
        if view.phase in BETWEEN_HANDS:
            self.plan = plan_round(self.rng, self.config.sawa_rate, self.config.qayd_rate)
            self.qayd_done = False

    def qayd_due(self, view: types_pb2.View) -> bool:
        after = self.plan.qayd_after
        return (
            not self.qayd_done
            and after is not None
            and view.phase == types_pb2.PHASE_PLAYING
            and view.last_trick.number == after
            and not view.current_trick.cards
        )

    async def call_qayd(self, view: types_pb2.View) -> None:
        """A person calls Qayd on an opponent's card of the trick just won."""
        self.qayd_done = True
        caller = self.rng.choice(self.people)
        accused = (caller + self.rng.choice((1, 3))) % 4
        card = next(p.card for p in view.last_trick.cards if p.seat == accused)
        await self.pause(self.config.think.draw(self.rng) / 2 / self.config.think.scale)
        call = types_pb2.QaydCall(accused=accused, trick=view.last_trick.number, card=card)
        request = pb.CallQaydRequest(call=call, **self.common(caller, self.credentials[caller]))
        self.accept(await self.step.call("CallQayd", self.stub.CallQayd, request))
        await self.others_read(caller)

    async def person_acts(self, seat: int, view: types_pb2.View) -> None:
        credential = self.credentials[seat]
        common = self.common(seat, credential)
        stub, step = self.stub, self.step
        claim = types_pb2.Action(play=types_pb2.CardPlay(sawa=True))
        sawa_from = self.plan.sawa_from
        if (
            sawa_from is not None
            and view.phase == types_pb2.PHASE_PLAYING
            and view.current_trick.number >= sawa_from
            and claim in view.legal_actions
        ):
            self.plan = RoundPlan(None, None)
            try:
                response = await step.call(
                    "PlayCard sawa", stub.PlayCard, pb.PlayCardRequest(play=claim.play, **common)
                )
            except grpc.aio.AioRpcError:
                pass  # the claim does not hold: the same seat plays a card
            else:
                self.accept(response)
                await self.others_read(seat)
                return
        action = choose(view, self.rng)
        case = action.WhichOneof("action")
        if case == "bid":
            response = await step.call(
                "PlaceBid", stub.PlaceBid, pb.PlaceBidRequest(bid=action.bid, **common)
            )
        elif case == "doubling":
            request: Any = pb.CallDoubleRequest(doubling=action.doubling, **common)
            response = await step.call("CallDouble", stub.CallDouble, request)
        elif case == "declaration":
            request = pb.DeclareProjectsRequest(declaration=action.declaration, **common)
            response = await step.call("DeclareProjects", stub.DeclareProjects, request)
        elif case == "deal":
            response = await step.call("DealRound", stub.DealRound, pb.DealRoundRequest(**common))
        else:
            request = pb.PlayCardRequest(play=action.play, **common)
            response = await step.call("PlayCard", stub.PlayCard, request)
        self.accept(response)
        await self.others_read(seat)


Probe = Callable[[], tuple[float, float]]


async def run_step(config: ModelConfig, probe: Probe | None = None) -> StepResult:
    """Run ``config.tables`` tables through ramp, warm-up and the measured window; cut them.
    ``probe`` reads the CPU seconds of the service and of Envoy at the window's two ends."""
    options = [("grpc.use_local_subchannel_pool", 1)]
    channels = [
        grpc.aio.insecure_channel(config.target, options=options)
        for _ in range(max(1, config.connections))
    ]
    tasks: list[asyncio.Task[None]] = []
    try:
        for channel in channels:
            await asyncio.wait_for(channel.channel_ready(), timeout=30)
        step = _Step(config, [pb_grpc.BalootEngineServiceStub(c) for c in channels])
        step.tables = [_Table(step, i) for i in range(config.tables)]
        tasks = [asyncio.create_task(table.run()) for table in step.tables]
        tasks.append(asyncio.create_task(step.lag_monitor()))
        await asyncio.wait_for(step.forwarded.wait(), timeout=config.ramp + FORWARD_TIMEOUT)
        step.open_window()
        storm = asyncio.create_task(step.reconnect_storm())
        await asyncio.sleep(max(0.0, step.measure_from - time.perf_counter()))
        started = _cpu_now()
        others = probe() if probe else (0.0, 0.0)
        await asyncio.sleep(max(0.0, step.measure_to - time.perf_counter()))
        used = _cpu_now() - started
        others_used = (
            tuple(b - a for a, b in zip(others, probe(), strict=True)) if probe else (0, 0)
        )
        await storm
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for channel in channels:
            await channel.close()
    result = StepResult(
        mix=config.mix.name,
        tables=config.tables,
        window=config.duration,
        think_scale=config.think.scale,
        errors=dict(step.errors),
        expected=dict(step.expected),
        refusals=dict(step.refusals),
        client_cores=round(used / config.duration, 4),
        service_cores=round(others_used[0] / config.duration, 4),
        gateway_cores=round(others_used[1] / config.duration, 4),
        loop_lag_p99_ms=round(quantile(sorted(step.lags), 0.99) * 1000, 1),
        matches=step.matches,
        rounds=step.rounds,
        storm=step.storm,
    )
    every: list[float] = []
    for label in sorted(step.latencies):
        every.extend(step.latencies[label])
        result.latency_ms[label] = summarize(step.latencies[label])
    result.latency_ms["ALL"] = summarize(every)
    result.calls = len(every)
    return result


def _cpu_now() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# --- The sweep ------------------------------------------------------------------------------


async def sweep_mix(
    mix: BotMix,
    ladder: Sequence[int],
    args: argparse.Namespace,
    log_dir: Path,
    out: Callable[[str], None],
) -> list[StepResult]:
    """One service and gateway for ``mix``; steps up the ladder until one fails. (Every step
    runs on the one event loop of the sweep: grpc.aio's channels belong to a loop. Starting
    and stopping the processes blocks it, while no call is in flight.)"""
    secret = secrets.token_urlsafe(32)
    env = {"BALOOT_API_KEYS": f"{API_KEY_NAME}:{secret}"}
    name = mix.name.replace(":", "-")
    service = start_service(log_dir, workers=1, key=new_state_key(), name=name, env_extra=env)
    steps: list[StepResult] = []
    try:
        gateway = start_gateway(log_dir, [service.target], name=f"{name}-gateway")
        try:
            # Warm-up, not measured: every lane's process, Envoy's connections, the caches,
            # with people and bots acting fast and many claims and calls.
            warm = ModelConfig(
                target=gateway.target,
                tables=8,
                mix=mix,
                api_key=secret,
                think=ThinkTime(scale=0.02),
                sawa_rate=0.5,
                qayd_rate=0.5,
                ramp=0.5,
                warmup=0.0,
                duration=args.warmup_seconds,
                seed=args.seed + 99,
            )
            if args.warmup_seconds > 0:
                warmed = await run_step(warm)
                out(f"{mix.name}: warm-up {warmed.calls:,} calls, {warmed.rounds} rounds")
            tables: int | None = ladder[0]

            def probe() -> tuple[float, float]:
                return service.child.cpu_seconds(), gateway.child.cpu_seconds()

            # The service's CPU with no call (the lanes' idle processes included), subtracted
            # from each step's to give what the calls cost.
            idle_from = probe()[0]
            await asyncio.sleep(args.idle_seconds)
            idle = (probe()[0] - idle_from) / args.idle_seconds if args.idle_seconds else 0.0
            if args.idle_seconds:
                out(f"{mix.name}: service idle {idle:.4f} cores over {args.idle_seconds:.0f} s")
            while tables is not None and len(steps) < args.max_steps:
                config = ModelConfig(
                    target=gateway.target,
                    tables=tables,
                    mix=mix,
                    api_key=secret,
                    think=ThinkTime(scale=args.think_scale),
                    ramp=ThinkTime().high * args.think_scale,
                    duration=args.duration,
                    warmup=args.warmup,
                    seed=args.seed + len(steps),
                )
                load_before = os.getloadavg()[0]
                result = await run_step(config, probe)
                result.service_idle_cores = round(idle, 4)
                result.load_before, result.load_after = load_before, os.getloadavg()[0]
                steps.append(result)
                out(step_line(result))
                tables = (
                    next((n for n in ladder if n > tables), None)
                    if args.all_steps
                    else next_tables(steps, ladder, refine=args.refine)
                )
                await asyncio.sleep(2)
        finally:
            gateway.child.stop()
    finally:
        service.child.stop()
    return steps


async def sweep(
    mixes: Sequence[BotMix], ladder: Sequence[int], args: argparse.Namespace
) -> dict[str, list[StepResult]]:
    """Every mix in turn, each with its own service and gateway."""
    results = {}
    with tempfile.TemporaryDirectory(prefix="baloot-tables-") as scratch:
        for mix in mixes:
            results[mix.name] = await sweep_mix(
                mix, ladder, args, Path(scratch), lambda line: print(line, flush=True)
            )
    return results


def step_line(result: StepResult) -> str:
    """One step in one line, then its RPCs."""
    verdict = "pass" if result.passed() else "FAIL"
    over = ", ".join(
        f"{k} {judged(result.latency_ms[k])[0]} {v:.0f} ms" for k, v in result.over().items()
    )
    problems = "; ".join(
        part
        for part in (
            f"over: {over}" if over else "",
            f"errors: {result.errors}" if result.errors else "",
            f"refusals: {result.refusals}" if result.refusals else "",
            f"judged by p50 (under {MIN_CALLS} calls): {', '.join(result.by_median())}"
            if result.by_median()
            else "",
            f"not judged (under {MIN_MEDIAN_CALLS} calls): {', '.join(result.unjudged())}"
            if result.unjudged()
            else "",
        )
        if part
    )
    every = result.latency_ms.get("ALL", {})
    lines = [
        f"{result.mix} x {result.tables} tables: {verdict}; {result.calls:,} calls in "
        f"{result.window:.0f} s ({result.calls / result.window:,.0f}/s), all p50 "
        f"{every.get('p50', 0):.1f} p99 {every.get('p99', 0):.1f} ms; CPU cores: service "
        f"{result.service_cores:.2f} ({result.service_ms_per_call:.2f} ms a call, "
        f"{result.tables_per_busy_core:,.0f} tables a busy core), "
        f"Envoy {result.gateway_cores:.2f}, client "
        f"{result.client_cores:.2f}; client loop lag p99 {result.loop_lag_p99_ms:.1f} ms; "
        f"load average {result.load_before:.2f} -> {result.load_after:.2f}; storm "
        f"{result.storm} reads; {result.rounds} rounds" + (f"; {problems}" if problems else "")
    ]
    for label, summary in result.latency_ms.items():
        if label != "ALL":
            lines.append(
                f"    {label:<24}{summary['n']:>8,.0f}  p50 {summary['p50']:>8.1f}  "
                f"p99 {summary['p99']:>8.1f}  max {summary['max']:>8.1f}"
            )
    return "\n".join(lines)


def markdown(results: dict[str, list[StepResult]]) -> str:
    """Two tables: per mix, the most tables at p99 <= 100 ms and what bounded it; then what
    the calls cost (the mix's largest step), as a ratio to the people-only mix of the run."""
    lines = [
        (
            "| bot mix | most tables at p99 ≤ 100 ms (one server core) | first failing step | "
            "what failed there | client loop lag p99 there | load average |"
        ),
        "|---|---:|---:|---|---:|---:|",
    ]
    for mix, steps in results.items():
        best = capacity(steps)
        ordered = sorted(steps, key=lambda s: s.tables)
        failing = next((s for s in ordered if not s.passed()), None)
        what = "—"
        if failing is not None:
            parts = [
                f"{k} {judged(failing.latency_ms[k])[0]} {v:.0f} ms"
                for k, v in failing.over().items()
            ]
            parts += [f"{k} ×{v}" for k, v in {**failing.errors, **failing.refusals}.items()]
            what = "; ".join(parts[:3])
        loads = [x for s in ordered for x in (s.load_before, s.load_after)]
        lines.append(
            f"| {mix} | {best or '< ' + str(ordered[0].tables)} | "
            f"{failing.tables if failing else '—'} | {what} | "
            f"{f'{failing.loop_lag_p99_ms:.0f} ms' if failing else '—'} | "
            f"{min(loads):.1f}-{max(loads):.1f} |"
        )
    lines += ["", cost_table(results), "", rpc_table(results)]
    return "\n".join(lines)


def largest(steps: Sequence[StepResult]) -> StepResult:
    """The step with the most calls: its CPU readings are the most precise."""
    return max(steps, key=lambda s: s.calls)


def cost_table(results: dict[str, list[StepResult]]) -> str:
    """What a table costs per mix, at the mix's largest step."""
    base = largest(results["none"]) if results.get("none") else None
    base_cost = base.calls_cores / base.tables if base and base.tables else 0.0
    lines = [
        (
            "| bot mix | tables | calls/s a table | service CPU ms a table-second (less idle) "
            "| × people only | tables a busy service core | service ms a call | Envoy, client "
            "cores |"
        ),
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for mix, steps in results.items():
        step = largest(steps)
        cost = step.calls_cores / step.tables if step.tables else 0.0
        ratio = f"{cost / base_cost:.2f}x" if base_cost else "—"
        lines.append(
            f"| {mix} | {step.tables} | {step.calls / step.window / step.tables:.2f} | "
            f"{cost * 1000:.2f} | {ratio} | {step.tables_per_busy_core:,.0f} | "
            f"{step.service_ms_per_call:.2f} | {step.gateway_cores:.3f}, "
            f"{step.client_cores:.3f} |"
        )
    return "\n".join(lines)


def rpc_table(results: dict[str, list[StepResult]]) -> str:
    """p50 / p99 in ms (and the count) per RPC at each mix's largest step."""
    chosen = {mix: largest(steps) for mix, steps in results.items() if steps}
    labels = sorted({label for step in chosen.values() for label in step.latency_ms})
    labels = [label for label in labels if label != "ALL"] + ["ALL"]
    lines = [
        "| RPC | " + " | ".join(f"{mix} ({s.tables} tables)" for mix, s in chosen.items()) + " |",
        "|---|" + "---:|" * len(chosen),
    ]
    for label in labels:
        cells = []
        for step in chosen.values():
            summary = step.latency_ms.get(label)
            cells.append(
                f"{summary['p50']:.1f} / {summary['p99']:.0f} ({summary['n']:,.0f})"
                if summary
                else "—"
            )
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


COLOURS: Final = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf")


def worst_p99(step: StepResult) -> float:
    """The worst judged latency above its floor of the RPCs of ``step`` (:func:`judged`), in
    ms, at least 1."""
    values = [
        judged(summary)[1] - floor_ms(label)
        for label, summary in step.latency_ms.items()
        if label != "ALL"
    ]
    return max(1.0, *values)


def chart(results: dict[str, list[StepResult]], title: str) -> str:
    """An SVG chart against tables: the worst p99 above its floor of the RPCs judged (solid),
    the p50 of every call (dashed)."""
    width, height, left, right, top, bottom = 760, 420, 70, 200, 40, 50
    plot_w, plot_h = width - left - right, height - top - bottom
    points = {
        mix: [(s.tables, worst_p99(s)) for s in sorted(steps, key=lambda s: s.tables)]
        for mix, steps in results.items()
    }
    medians = {
        mix: [
            (s.tables, max(1.0, s.latency_ms.get("ALL", {}).get("p50", 1.0)))
            for s in sorted(steps, key=lambda s: s.tables)
        ]
        for mix, steps in results.items()
    }
    xs = [x for series in points.values() for x, _ in series] or [1]
    ys = [y for series in points.values() for _, y in series] or [1.0]
    x_lo, x_hi = math.log2(max(1, min(xs))), math.log2(max(2, *xs))
    y_lo, y_hi = 0.0, math.log10(max(1000.0, *ys))
    x_hi = max(x_hi, x_lo + 1)

    def px(x: float) -> float:
        return left + (math.log2(x) - x_lo) / (x_hi - x_lo) * plot_w

    def py(y: float) -> float:
        return top + plot_h - (math.log10(max(1.0, y)) - y_lo) / (y_hi - y_lo) * plot_h

    out = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'font-family="sans-serif" font-size="12">'
        ),
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{left}" y="20" font-size="14">{title}</text>',
        (
            f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" '
            'stroke="#888"/>'
        ),
    ]
    decade = 1
    while decade <= 10**y_hi:
        y = py(decade)
        out.append(
            f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eee"/>'
        )
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{decade:g}</text>')
        decade *= 10
    limit = py(LIMIT_MS)
    out.append(
        f'<line x1="{left}" x2="{left + plot_w}" y1="{limit:.1f}" y2="{limit:.1f}" '
        'stroke="#444" stroke-dasharray="6,4"/>'
        f'<text x="{left + plot_w - 4}" y="{limit - 4:.1f}" text-anchor="end">100 ms</text>'
    )
    tick = 2 ** math.floor(x_lo)
    while tick <= 2**x_hi:
        if tick >= 2**x_lo:
            x = px(tick)
            out.append(
                f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{top + plot_h}" stroke="#eee"/>'
            )
            out.append(
                f'<text x="{x:.1f}" y="{top + plot_h + 16}" text-anchor="middle">{tick}</text>'
            )
        tick *= 2
    out.append(
        f'<text x="{left + plot_w / 2}" y="{height - 10}" text-anchor="middle">concurrent '
        "tables on one server core (one worker process; log scale)</text>"
        f'<text x="16" y="{top + plot_h / 2}" text-anchor="middle" '
        f'transform="rotate(-90 16 {top + plot_h / 2})">worst p99 above its floor (solid), '
        "p50 of all calls (dashed): ms, log</text>"
    )
    for index, (mix, series) in enumerate(points.items()):
        colour = COLOURS[index % len(COLOURS)]
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in series)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for x, y in series:
            out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{colour}"/>')
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in medians[mix])
        out.append(
            f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="1" '
            'stroke-dasharray="3,3"/>'
        )
        ly = top + 14 + 18 * index
        best = capacity(results[mix])
        out.append(
            f'<line x1="{left + plot_w + 12}" x2="{left + plot_w + 32}" y1="{ly - 4}" '
            f'y2="{ly - 4}" stroke="{colour}" stroke-width="2"/>'
            f'<text x="{left + plot_w + 38}" y="{ly}">{mix}: {best} tables</text>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


SMOKE_LABELS: Final = (
    "ApplyBotAction STRONG",
    "PlayCard",
    "GetView",
    "GetView spectator",
    "GetView reconnect",
)


def smoke_verdict(results: dict[str, list[StepResult]]) -> int:
    """The smoke run's exit status: 1 on any error, or if a kind of call the model makes
    (people's cards, bots, the backend's and the spectators' reads, the storm) never came."""
    for steps in results.values():
        for step in steps:
            missing = [label for label in SMOKE_LABELS if label not in step.latency_ms]
            if step.errors or missing or not step.storm:
                print(f"tables smoke: FAIL, errors {step.errors}, never called {missing}")
                return 1
    print("tables smoke: PASS")
    return 0


def write_json(results: dict[str, list[StepResult]], path: Path) -> None:
    """Every step of every mix, with the derived figures, and each mix's capacity."""
    data: dict[str, Any] = {
        mix: [
            {
                **asdict(s),
                "passed": s.passed(),
                "service_ms_per_call": round(s.service_ms_per_call, 3),
                "tables_per_busy_core": round(s.tables_per_busy_core, 1),
            }
            for s in steps
        ]
        for mix, steps in results.items()
    }
    data["capacity"] = {mix: capacity(steps) for mix, steps in results.items()}
    path.write_text(json.dumps(data, indent=2) + "\n")


def load_results(paths: Sequence[Path]) -> dict[str, list[StepResult]]:
    """The sweeps written with ``--json``, merged (a later file's mix replaces an earlier's)."""
    names = set(StepResult.__dataclass_fields__)
    results: dict[str, list[StepResult]] = {}
    for path in paths:
        data = json.loads(path.read_text())
        for mix, steps in data.items():
            if mix != "capacity":
                results[mix] = [
                    StepResult(**{k: v for k, v in s.items() if k in names}) for s in steps
                ]
    return results


def main(argv: Sequence[str] | None = None) -> int:
    """Sweep the bot mixes; print each step, the capacity table, and write JSON and SVG."""
    parser = argparse.ArgumentParser(prog="python -m loadtest.tables", description=__doc__)
    parser.add_argument("--mixes", default="none,basic:3,learned:3,strong:0-3,strong:3,expert:3")
    parser.add_argument("--tables", default="4,8,16,32,64,128,256,512", help="the ladder")
    parser.add_argument("--duration", type=float, default=40.0, help="measured seconds a step")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds before a window")
    parser.add_argument("--warmup-seconds", type=float, default=8.0, help="warm-up run a mix")
    parser.add_argument("--idle-seconds", type=float, default=10.0, help="idle CPU reading")
    parser.add_argument("--max-steps", type=int, default=8, help="steps per mix at most")
    parser.add_argument(
        "--think-scale",
        type=float,
        default=1.0,
        help="1 = real time; 0.1 = people, bots and pauses ten times faster (reported)",
    )
    parser.add_argument("--no-refine", dest="refine", action="store_false")
    parser.add_argument(
        "--all-steps", action="store_true", help="every step of the ladder, failed or not"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--svg", type=Path)
    parser.add_argument("--smoke", action="store_true", help="CI: one short step, fail on errors")
    parser.add_argument("--title", default="Latency against concurrent tables, per bot mix")
    parser.add_argument(
        "--from-json", type=Path, action="append", help="no run: redraw from saved sweeps"
    )
    args = parser.parse_args(argv)
    if args.from_json:
        results = load_results(args.from_json)
        print(markdown(results))
        if args.json is not None:
            write_json(results, args.json)
        if args.svg is not None:
            args.svg.write_text(chart(results, args.title))
        return 0
    if args.smoke:  # CI: a dozen tables of people and STRONG bots at twenty times the pace
        args.mixes, args.tables, args.max_steps, args.think_scale = "strong:0-3", "12", 1, 0.05
        args.duration, args.warmup, args.warmup_seconds, args.idle_seconds = 6.0, 1.0, 0.0, 0.0
    ladder = [int(n) for n in args.tables.split(",")]
    mixes = [parse_mix(text) for text in args.mixes.split(",")]
    think = ThinkTime(scale=args.think_scale)
    print(
        f"{os.cpu_count()} CPUs (shared), load average {os.getloadavg()[0]:.2f}; think time "
        f"log-normal median {think.median} s sigma {think.sigma} clipped to "
        f"{think.low}-{think.high} s ({think.clipped_share():.1%} clipped), scale "
        f"{think.scale:g}; {args.duration:.0f} s measured per step",
        flush=True,
    )
    results = run_on_loop(sweep(mixes, ladder, args))
    print()
    print(markdown(results))
    if args.json is not None:
        write_json(results, args.json)
    if args.svg is not None:
        args.svg.write_text(chart(results, args.title))
    if args.smoke:
        return smoke_verdict(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
