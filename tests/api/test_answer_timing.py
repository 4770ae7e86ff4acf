"""How long a verdict that searches the hidden hands took does not leave with its answer.

A Sawa claim's check and a Qayd call's judgement look at every hand; how long they search
depends on the hands (a claim the top cards prove at once, one a fixed defence refutes, one
only the full search settles), and a claim may wait in the judge lane behind other tables'.
Their answers, accepted or refused, leave ``JUDGED_ANSWER_SECONDS`` after the call began, and
no more judged calls are let in than the lane judges in that time. Lower bounds only here: a
loaded machine makes any call slower, never faster (the distributions are measured by
``bench/bench_judge_timing.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import grpc
import pytest
from baloot_client import EngineClient, IllegalActionError
from hypothesis import given
from hypothesis import strategies as st

from baloot.v1 import types_pb2
from baloot_engine.api import judging
from baloot_engine.api.judging import (
    JUDGE_MARGIN_SECONDS,
    JUDGE_WORST_SECONDS,
    JUDGED_ANSWER_SECONDS,
    QAYD_CARD_SECONDS,
    JudgeClock,
    cost_of,
)
from baloot_engine.lanes import Client, LaneRefusedError
from baloot_engine.lanes.clients import ANONYMOUS_CLIENT
from baloot_engine.rules import CallQayd, ClaimSawa

from .conftest import expect_refusal
from .test_judge_process import sawa_claim_at_the_first_lead
from .test_servicer_qayd import a_wrong_call, card, qayd_request, to_play

KEYED = Client("backend", keyed=True)


def _held(
    spent: float, monkeypatch: pytest.MonkeyPatch, early: float = 0.0
) -> tuple[float, JudgeClock]:
    """The wait :meth:`JudgeClock.hold` adds to a judgement that took ``spent`` (a fake clock:
    the call began at 1000 s; the first sleep ends ``early`` seconds before its time, as the
    event loop's timers do after other work in the same pass)."""
    now = [1000.0 + spent]
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        now[0] += max(1e-6, seconds - (0.0 if slept else early))
        slept.append(seconds)

    monkeypatch.setattr(judging.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(judging.asyncio, "sleep", sleep)
    clock = JudgeClock(processes=1, queue=8)
    asyncio.run(clock.hold(1000.0))
    assert all(s > 0 for s in slept)
    return now[0] - (1000.0 + spent), clock


@given(
    spent=st.floats(min_value=0.0, max_value=JUDGED_ANSWER_SECONDS),
    early=st.sampled_from([0.0, 0.0004, 0.003, 0.02]),
)
def test_an_answer_in_time_leaves_at_the_fixed_time_whatever_the_judgement_took(
    spent: float, early: float
) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        wait, clock = _held(spent, monkeypatch, early)
    measured = (1000.0 + spent) - 1000.0  # as the clock measured it
    assert wait >= 0.0
    # On the instant (a timer that ends early is made up), never before it.
    assert measured + wait >= JUDGED_ANSWER_SECONDS - 1e-9
    assert measured + wait == pytest.approx(JUDGED_ANSWER_SECONDS, abs=2e-6)
    assert clock.late == 0


@pytest.mark.parametrize("periods", [1.0001, 1.5, 2.0, 2.7])
def test_a_late_answer_leaves_on_the_next_multiple_and_is_counted(
    periods: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    spent = periods * JUDGED_ANSWER_SECONDS
    wait, clock = _held(spent, monkeypatch)
    total = (1000.0 + spent) - 1000.0 + wait
    multiple = total / JUDGED_ANSWER_SECONDS
    assert abs(multiple - round(multiple)) < 1e-6
    assert round(multiple) > 1
    assert clock.late == 1


def _admitted(clock: JudgeClock, cost: float) -> list[Callable[..., None]]:
    """Enter calls allowed ``cost`` seconds until the clock refuses one; their leave functions."""
    leaves = []
    while True:
        try:
            leaves.append(clock.enter(KEYED, cost))
        except LaneRefusedError as refused:
            assert refused.reason == "LANE_FULL"
            assert refused.retry_after == JUDGED_ANSWER_SECONDS
            return leaves


@pytest.mark.parametrize("processes", [0, 1, 2, 3])
def test_the_lane_takes_the_claims_it_judges_in_time_at_the_longest_each(processes: int) -> None:
    clock = JudgeClock(processes=processes, queue=64)
    claims = len(_admitted(clock, cost_of(ClaimSawa())))
    # The claims in, each searching the longest it is allowed, shared by the processes, end
    # inside the answer time less its margin; one more would not.
    per_process = -(-claims // max(1, processes))
    assert per_process * JUDGE_WORST_SECONDS <= JUDGED_ANSWER_SECONDS - JUDGE_MARGIN_SECONDS
    more = -(-(claims + 1) // max(1, processes))
    assert more * JUDGE_WORST_SECONDS > JUDGED_ANSWER_SECONDS - JUDGE_MARGIN_SECONDS


def test_qayd_calls_on_a_card_cost_less_and_the_queue_bounds_every_kind() -> None:
    assert cost_of(CallQayd(accused=1, trick=1, card=5)) == QAYD_CARD_SECONDS
    assert cost_of(CallQayd(accused=1, trick=2)) == JUDGE_WORST_SECONDS  # false Sawa: a search
    clock = JudgeClock(processes=1, queue=8)
    assert len(_admitted(clock, QAYD_CARD_SECONDS)) == 8  # the queue's bound
    clock = JudgeClock(processes=1, queue=64)
    cards = len(_admitted(clock, QAYD_CARD_SECONDS))
    assert cards * QAYD_CARD_SECONDS <= JUDGED_ANSWER_SECONDS - JUDGE_MARGIN_SECONDS + 1e-9
    assert cards > len(_admitted(JudgeClock(processes=1, queue=64), JUDGE_WORST_SECONDS))


def test_a_judged_call_past_the_room_is_refused_until_one_answer_left() -> None:
    clock = JudgeClock(processes=1, queue=8)
    leaves = _admitted(clock, JUDGE_WORST_SECONDS)
    first = leaves[0]
    first()
    first()  # leaving twice frees one place, not two
    again = clock.enter(KEYED)
    with pytest.raises(LaneRefusedError):
        clock.check_room(KEYED)
    again()
    assert clock.inside == len(leaves) - 1
    assert clock.work == pytest.approx((len(leaves) - 1) * JUDGE_WORST_SECONDS)


def test_a_refused_sawa_claim_and_a_qayd_call_answer_at_the_fixed_time(
    client: EngineClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each answer waits for the judge clock's fixed time (counted, not timed: no wall-clock
    # bound on a loaded machine).
    held: list[float] = []
    original = JudgeClock.hold

    async def hold(self: JudgeClock, began: float) -> None:
        held.append(self.answer_seconds)
        await original(self, began)

    monkeypatch.setattr(JudgeClock, "hold", hold)
    match, leader = sawa_claim_at_the_first_lead(client)
    with pytest.raises(IllegalActionError, match="SAWA_INVALID"):
        match.play(leader, types_pb2.CardPlay(sawa=True))
    assert held == [JUDGED_ANSWER_SECONDS]
    # A correct Qayd call (seat 2 revoked), then a wrong one refused under no_penalty.
    table = to_play(client)
    table.play(1, types_pb2.CardPlay(card=card("AS")))
    table.play(2, types_pb2.CardPlay(card=card("AH")))
    call = types_pb2.QaydCall(accused=2, trick=1, card=card("AH"))
    table.call_qayd(3, call)
    assert held == [JUDGED_ANSWER_SECONDS] * 2
    other, call = a_wrong_call(client)
    expect_refusal(
        client.stub.CallQayd,
        qayd_request(other, 1, call),
        grpc.StatusCode.FAILED_PRECONDITION,
        "QAYD_WRONG",
    )
    assert held == [JUDGED_ANSWER_SECONDS] * 3


def test_one_anonymous_source_has_at_most_its_share_of_the_judge_lane() -> None:
    clock = JudgeClock(processes=2, queue=8, per_source=1)
    flood = ANONYMOUS_CLIENT.from_source("198.51.100.9")
    table = ANONYMOUS_CLIENT.from_source("203.0.113.7")
    first = clock.enter(flood)
    with pytest.raises(LaneRefusedError) as refused:
        clock.enter(flood, QAYD_CARD_SECONDS)  # however cheap its next call
    assert refused.value.reason == "QUOTA_EXCEEDED"
    assert refused.value.metadata == {
        "lane": "judge",
        "quota": "calls_in_lane",
        "client": "anonymous@198.51.100.9",
    }
    assert refused.value.retry_after == JUDGED_ANSWER_SECONDS
    other = clock.enter(table)  # another source still has its place
    keyed = [clock.enter(KEYED, QAYD_CARD_SECONDS) for _ in range(3)]  # a key: the lane's room
    first()
    again = clock.enter(flood)  # its place, once its answer left
    for leave in (again, other, *keyed):
        leave()
    assert clock.inside == 0
    unbounded = JudgeClock(processes=2, queue=8, per_source=0)
    unbounded.enter(flood)
    unbounded.enter(flood)  # no bound: a second call of the source is let in
    assert unbounded.inside == 2
