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
import time

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
    JudgeClock,
    room_of,
)
from baloot_engine.lanes import LaneRefusedError

from .conftest import expect_refusal
from .test_judge_process import sawa_claim_at_the_first_lead
from .test_servicer_qayd import a_wrong_call, card, qayd_request, to_play


def _held(spent: float, monkeypatch: pytest.MonkeyPatch) -> tuple[float, JudgeClock]:
    """The wait :meth:`JudgeClock.hold` adds to a judgement that took ``spent`` (a fake clock:
    the call began at 1000 s)."""
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(judging.time, "monotonic", lambda: 1000.0 + spent)
    monkeypatch.setattr(judging.asyncio, "sleep", sleep)
    clock = JudgeClock(processes=1, queue=8)
    asyncio.run(clock.hold(1000.0))
    (wait,) = slept
    return wait, clock


@given(spent=st.floats(min_value=0.0, max_value=JUDGED_ANSWER_SECONDS))
def test_an_answer_in_time_leaves_at_the_fixed_time_whatever_the_judgement_took(
    spent: float,
) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        wait, clock = _held(spent, monkeypatch)
    measured = (1000.0 + spent) - 1000.0  # as the clock measured it
    assert wait >= 0.0
    assert measured + wait == pytest.approx(JUDGED_ANSWER_SECONDS, abs=1e-9)
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


def test_the_room_is_what_the_lane_judges_in_time_at_the_longest_judgement() -> None:
    for processes in (0, 1, 2, 3):
        room = room_of(processes)
        # `room` judgements of the longest measured length, shared by the processes, end
        # inside the answer time less its margin; one more would not.
        rounds = -(-room // max(1, processes))
        assert rounds * JUDGE_WORST_SECONDS <= JUDGED_ANSWER_SECONDS - JUDGE_MARGIN_SECONDS
        assert (rounds + 1) * JUDGE_WORST_SECONDS > JUDGED_ANSWER_SECONDS - JUDGE_MARGIN_SECONDS
    assert JudgeClock(processes=4, queue=2).room == 2  # the lane's queue bounds it too


def test_a_judged_call_past_the_room_is_refused_until_one_answer_left() -> None:
    clock = JudgeClock(processes=1, queue=8)
    leaves = [clock.enter() for _ in range(clock.room)]
    with pytest.raises(LaneRefusedError) as refused:
        clock.enter()
    assert refused.value.reason == "LANE_FULL"
    assert refused.value.retry_after == JUDGED_ANSWER_SECONDS
    leaves[0]()
    leaves[0]()  # leaving twice frees one place, not two
    again = clock.enter()
    with pytest.raises(LaneRefusedError):
        clock.check_room()
    again()
    assert clock.inside == clock.room - 1


def test_a_refused_sawa_claim_and_a_qayd_call_answer_at_the_fixed_time(
    client: EngineClient,
) -> None:
    match, leader = sawa_claim_at_the_first_lead(client)
    began = time.monotonic()
    with pytest.raises(IllegalActionError, match="SAWA_INVALID"):
        match.play(leader, types_pb2.CardPlay(sawa=True))
    assert time.monotonic() - began >= JUDGED_ANSWER_SECONDS
    # A correct Qayd call (seat 2 revoked), then a wrong one refused under no_penalty.
    table = to_play(client)
    table.play(1, types_pb2.CardPlay(card=card("AS")))
    table.play(2, types_pb2.CardPlay(card=card("AH")))
    call = types_pb2.QaydCall(accused=2, trick=1, card=card("AH"))
    began = time.monotonic()
    table.call_qayd(3, call)
    assert time.monotonic() - began >= JUDGED_ANSWER_SECONDS
    other, call = a_wrong_call(client)
    began = time.monotonic()
    expect_refusal(
        client.stub.CallQayd,
        qayd_request(other, 1, call),
        grpc.StatusCode.FAILED_PRECONDITION,
        "QAYD_WRONG",
    )
    assert time.monotonic() - began >= JUDGED_ANSWER_SECONDS
