"""A lane runs jobs in processes of its own, refuses at once what it has no room for, shares
itself fairly between clients, charges each job's CPU to its client, and stops what runs past
its deadline. No assertion here depends on how fast the machine is."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, TypeVar

import pytest

from baloot_engine.lanes import (
    Call,
    Client,
    Lane,
    LaneConfig,
    LaneDeadlineError,
    LaneRefusedError,
    Lanes,
    LanesConfig,
    Quota,
    WorkerStoppedError,
)
from baloot_engine.lanes.admission import leave_play, play_slot
from baloot_engine.lanes.clients import (
    ANONYMOUS_CLIENT,
    ApiKeyError,
    ApiKeys,
    HeavyWork,
    parse_api_keys,
    presented_key,
)
from baloot_engine.lanes.quota import Quotas

from . import jobs

_T = TypeVar("_T")
ALICE = Client("alice", keyed=True)
BOB = Client("bob", keyed=True)
ROOMY = Quota(cpu_seconds_per_minute=600.0, queued_jobs=100, streams=10)


def run(make: Callable[[], Awaitable[_T]]) -> _T:
    """Run a coroutine on a new event loop (the lanes' processes are tied to one loop)."""

    async def main() -> _T:
        return await make()

    return asyncio.run(main())


def lane(config: LaneConfig | None = None, quotas: Quotas | None = None) -> Lane:
    config = config or LaneConfig("test", processes=1, queue=8)
    return Lane(config, quotas or Quotas(ROOMY, ROOMY))


async def closed(target: Lane) -> None:
    for process in target.close():
        process.join(2.0)


def test_a_job_runs_in_another_process_and_its_answer_comes_back() -> None:
    async def main() -> tuple[int, str]:
        target = lane()
        try:
            other = await target.call(ALICE, Call(jobs.pid, ()), None)
            with pytest.raises(ValueError, match="no such thing") as raised:
                await target.call(ALICE, Call(jobs.fail, ("no such thing",)), None)
            return other, str(raised.value)
        finally:
            await closed(target)

    other, _ = run(main)
    assert other != os.getpid()


def test_a_job_s_cpu_is_charged_to_its_client() -> None:
    quotas = Quotas(ROOMY, ROOMY, clock=lambda: 1000.0)  # a stopped clock: no refill

    async def main() -> None:
        target = lane(quotas=quotas)
        try:
            await target.call(ALICE, Call(jobs.spin, (0.2,)), None)
        finally:
            await closed(target)

    run(main)
    assert quotas.level(ALICE) <= ROOMY.cpu_seconds_per_minute - 0.2
    assert quotas.level(BOB) == ROOMY.cpu_seconds_per_minute


def test_a_full_lane_refuses_at_once_with_a_retry_delay() -> None:
    async def main() -> list[BaseException | None]:
        target = lane(LaneConfig("test", processes=1, queue=2))
        try:
            calls = [
                asyncio.ensure_future(target.call(ALICE, Call(jobs.spin, (0.3,)), None))
                for _ in range(5)
            ]
            outcomes = await asyncio.gather(*calls, return_exceptions=True)
            return [o if isinstance(o, BaseException) else None for o in outcomes]
        finally:
            await closed(target)

    outcomes = run(main)
    # One running, two waiting: the fourth and fifth are refused before any work.
    assert outcomes[:3] == [None, None, None]
    for refused in outcomes[3:]:
        assert isinstance(refused, LaneRefusedError)
        assert refused.reason == "LANE_FULL"
        assert refused.retry_after is not None
        assert refused.retry_after > 0
        assert refused.metadata["lane"] == "test"


def test_a_client_over_its_queued_jobs_is_refused_and_another_is_not() -> None:
    small = Quota(cpu_seconds_per_minute=600.0, queued_jobs=2, streams=1)

    async def main() -> tuple[list[Any], Any]:
        target = lane(LaneConfig("test", processes=1, queue=20), Quotas(small, small))
        try:
            mine = [
                asyncio.ensure_future(target.call(ALICE, Call(jobs.spin, (0.2,)), None))
                for _ in range(3)
            ]
            theirs = asyncio.ensure_future(target.call(BOB, Call(jobs.spin, (0.01,)), None))
            return await asyncio.gather(*mine, return_exceptions=True), await theirs
        finally:
            await closed(target)

    mine, theirs = run(main)
    assert isinstance(mine[2], LaneRefusedError)
    assert (mine[2].reason, mine[2].metadata["quota"]) == ("QUOTA_EXCEEDED", "queued_jobs")
    assert isinstance(theirs, int)


def test_a_client_in_cpu_debt_waits_until_its_bucket_refills() -> None:
    now = [1000.0]
    quota = Quota(cpu_seconds_per_minute=6.0, queued_jobs=10, streams=1)
    quotas = Quotas(quota, quota, clock=lambda: now[0])
    target = lane(quotas=quotas)
    quotas.charge(ALICE, 9.0)  # 3 CPU-seconds in debt: 30 s at 0.1 a second
    with pytest.raises(LaneRefusedError) as refused:
        target.check(ALICE)
    assert refused.value.reason == "QUOTA_EXCEEDED"
    assert refused.value.metadata["quota"] == "cpu_seconds_per_minute"
    assert refused.value.retry_after == pytest.approx(30.0, abs=0.01)
    target.check(BOB)  # another client is not affected
    now[0] += 31.0
    target.check(ALICE)


def test_clients_take_turns_in_a_busy_lane() -> None:
    async def main() -> list[str]:
        target = lane(LaneConfig("test", processes=1, queue=20))
        order: list[str] = []

        async def one(client: Client, name: str) -> None:
            await target.call(client, Call(jobs.spin, (0.02,)), None)
            order.append(name)

        try:
            tasks = [asyncio.ensure_future(one(ALICE, f"a{i}")) for i in range(5)]
            tasks += [asyncio.ensure_future(one(BOB, f"b{i}")) for i in range(2)]
            await asyncio.gather(*tasks)
        finally:
            await closed(target)
        return order

    # Alice's first job starts at once; then the queues take turns, though Alice's four
    # waiting jobs came first.
    assert run(main) == ["a0", "a1", "b0", "a2", "b1", "a3", "a4"]


def test_a_job_past_its_deadline_is_stopped_and_its_process_replaced() -> None:
    async def main() -> tuple[list[int], list[int], int]:
        config = LaneConfig("test", processes=1, queue=4, grace=0.2)
        target = lane(config)
        try:
            await target.call(ALICE, Call(jobs.pid, ()), None)
            before = target.pids()
            loop = asyncio.get_running_loop()
            with pytest.raises(LaneDeadlineError) as late:
                await target.call(ALICE, Call(jobs.spin, (60.0,)), loop.time() + 0.3)
            assert late.value.reason == "LANE_DEADLINE"
            after = await target.call(ALICE, Call(jobs.pid, ()), None)
            return before, target.pids(), after
        finally:
            await closed(target)

    before, now, answered = run(main)
    assert before != now
    assert now == [answered]


def test_a_job_still_waiting_at_its_deadline_is_told_so_at_once() -> None:
    async def main() -> tuple[str, bool, int, int]:
        config = LaneConfig("test", processes=1, queue=4, grace=0.2)
        target = lane(config)
        try:
            await target.call(ALICE, Call(jobs.pid, ()), None)  # the process is up
            busy = asyncio.ensure_future(target.call(ALICE, Call(jobs.spin, (1.5,)), None))
            await asyncio.sleep(0.1)
            loop = asyncio.get_running_loop()
            began = loop.time()
            with pytest.raises(LaneDeadlineError) as late:
                await target.call(BOB, Call(jobs.pid, ()), time.monotonic() + 0.3)
            # Told at its deadline, while the job ahead still runs (not when a process frees).
            still_busy = not busy.done()
            waiting = target.waiting
            await busy
            return late.value.reason, still_busy, waiting, round(loop.time() - began)
        finally:
            await closed(target)

    reason, still_busy, waiting, _ = run(main)
    assert reason == "LANE_DEADLINE"
    assert still_busy
    assert waiting == 0  # taken out of the queue


def test_a_caller_that_leaves_stops_its_job_and_frees_the_process() -> None:
    async def main() -> tuple[int, int, int]:
        target = lane()
        try:
            first = await target.call(ALICE, Call(jobs.pid, ()), None)
            ticks = target.stream(ALICE, jobs.UntilCancelled(), None)
            assert await anext(ticks) == 0
            await ticks.aclose()  # the caller leaves: the job is told to stop
            second = await target.call(ALICE, Call(jobs.pid, ()), None)
            return first, second, target.running
        finally:
            await closed(target)

    first, second, running = run(main)
    assert first == second  # the same process, not killed
    assert running == 0


def test_a_stream_yields_every_item_in_order() -> None:
    async def main() -> list[int]:
        target = lane()
        try:
            return [item async for item in target.stream(ALICE, jobs.Items(50), None)]
        finally:
            await closed(target)

    assert run(main) == list(range(50))


def test_a_process_that_dies_fails_its_job_and_is_replaced() -> None:
    async def main() -> tuple[int, int]:
        target = lane()
        try:
            first = await target.call(ALICE, Call(jobs.pid, ()), None)
            with pytest.raises(WorkerStoppedError):
                await target.call(ALICE, Call(jobs.die, ()), None)
            return first, await target.call(ALICE, Call(jobs.pid, ()), None)
        finally:
            await closed(target)

    first, second = run(main)
    assert first != second


def test_draining_ends_every_job_with_a_reason_to_send_it_again() -> None:
    async def main() -> list[Any]:
        lanes = Lanes(LanesConfig())
        try:
            calls = [
                asyncio.ensure_future(lanes.solve.call(ALICE, Call(jobs.spin, (30.0,)), None)),
                asyncio.ensure_future(lanes.solve.call(BOB, Call(jobs.spin, (30.0,)), None)),
            ]
            await asyncio.sleep(0)
            lanes.drain(0.0)
            return await asyncio.gather(*calls, return_exceptions=True)
        finally:
            await lanes.close()

    for outcome in run(main):
        assert isinstance(outcome, LaneRefusedError)
        assert outcome.reason == "DRAINING"
        assert outcome.retry_after is not None


def test_an_inline_lane_runs_in_this_process() -> None:
    async def main() -> int:
        target = lane(LaneConfig("test", processes=0, queue=1))
        result: int = await target.call(ALICE, Call(jobs.pid, ()), None)
        return result

    assert run(main) == os.getpid()


def test_a_job_taken_by_a_lane_gives_its_play_slot_back() -> None:
    given_back: list[str] = []

    async def main() -> None:
        play_slot.set(lambda: given_back.append("slot"))
        target = lane(LaneConfig("test", processes=0, queue=1))
        await target.call(ALICE, Call(jobs.pid, ()), None)
        leave_play()  # once only

    run(main)
    assert given_back == ["slot"]


def test_a_refused_job_keeps_its_play_slot() -> None:
    given_back: list[str] = []

    async def main() -> None:
        play_slot.set(lambda: given_back.append("slot"))
        closed_lane = lane(LaneConfig("test", processes=0, queue=1))
        closed_lane.close()
        with pytest.raises(LaneRefusedError):
            await closed_lane.call(ALICE, Call(jobs.pid, ()), None)

    run(main)
    assert given_back == []


# -- who pays ----------------------------------------------------------------------------


def test_api_keys_are_parsed_and_found_by_their_secret() -> None:
    pairs = parse_api_keys("app:0123456789abcdef, tools:fedcba9876543210zz")
    keys = ApiKeys(pairs)
    assert keys.names == ("app", "tools")
    assert keys.client_of("0123456789abcdef") == Client("app", keyed=True)
    assert keys.client_of("0123456789abcdeg") is None
    for bad in ("app", "app:short", ":0123456789abcdef", "anonymous:0123456789abcdef", "a:"):
        with pytest.raises(ApiKeyError) as refused:
            parse_api_keys(bad)
        assert "0123456789abcdef" not in str(refused.value)
    with pytest.raises(ApiKeyError, match="taken"):
        parse_api_keys("a:0123456789abcdef,a:0123456789abcdeX")


def test_the_key_is_read_from_x_api_key_or_a_bearer_token() -> None:
    assert presented_key([("x-api-key", " s3cret ")]) == "s3cret"
    assert presented_key([("authorization", "Bearer s3cret")]) == "s3cret"
    assert presented_key([("authorization", "Basic abc")]) == ""
    assert presented_key(None) == ""


def test_heavy_work_needs_a_key_once_keys_are_configured() -> None:
    keyed = Lanes(
        replace(LanesConfig().inline(), api_keys=ApiKeys(parse_api_keys("app:0123456789abcdef")))
    )
    with pytest.raises(LaneRefusedError) as refused:
        keyed.payer("", keyed.bots)
    assert refused.value.reason == "API_KEY_REQUIRED"
    with pytest.raises(LaneRefusedError) as invalid:
        keyed.payer("not-a-key-of-ours", keyed.bots)
    assert invalid.value.reason == "API_KEY_INVALID"
    assert keyed.payer("0123456789abcdef", keyed.bots) == Client("app", keyed=True)
    local = Lanes(LanesConfig().inline())
    assert local.payer("", local.bots) is ANONYMOUS_CLIENT
    forced = Lanes(replace(LanesConfig().inline(), heavy_work=HeavyWork.OFF))
    with pytest.raises(LaneRefusedError):
        forced.payer("", forced.solve)


def test_a_refusal_of_heavy_work_is_held_for_its_delay_and_then_announces_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from baloot_engine.lanes import admission

    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(admission.asyncio, "sleep", sleep)
    full = LaneRefusedError("LANE_FULL", "full", retry_after=0.3)
    busy = LaneRefusedError("QUOTA_EXCEEDED", "cpu", retry_after=25.0)
    keyless = LaneRefusedError("API_KEY_REQUIRED", "key")
    closing = LaneRefusedError("LANE_CLOSED", "stopping", retry_after=0.1)
    for refusal in (full, busy, keyless, closing):
        run(lambda refusal=refusal: admission.hold(refusal))  # type: ignore[misc]
    # Held about a second, whatever its delay; LANE_CLOSED
    # (a stopping server: another replica answers) not held.
    assert len(slept) == 3
    assert all(0.5 <= seconds <= 1.5 for seconds in slept)
    assert len(set(slept)) == 3  # spread: refusals sent together do not come back together
    assert full.retry_after == pytest.approx(0.001)  # 0.3 s announced, more held
    assert busy.retry_after == pytest.approx(25.0 - slept[1])
    assert keyless.retry_after is None
    assert closing.retry_after == 0.1
