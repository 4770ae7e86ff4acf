"""How long a verdict that searches the hidden hands took does not leave with its answer.

A Sawa claim's check and a Qayd call's judgement look at every hand; how long they search
depends on the hands (a claim the top cards prove at once, one a fixed defence refutes, one
only the full search settles). Their answers, accepted or refused, leave on a whole number
of ``JUDGED_ANSWER_STEP`` after the call began. Lower bounds only: a loaded machine makes
any call slower, never faster.
"""

from __future__ import annotations

import asyncio
import math
import time

import grpc
import pytest
from baloot_client import EngineClient, IllegalActionError

from baloot.v1 import types_pb2
from baloot_engine.api import calls
from baloot_engine.api.calls import JUDGED_ANSWER_STEP

from .conftest import expect_refusal
from .test_judge_process import sawa_claim_at_the_first_lead
from .test_servicer_qayd import a_wrong_call, card, qayd_request, to_play


@pytest.mark.parametrize("spent", [0.0, 0.0004, 0.0371, 0.0999, 0.1, 0.1301, 0.25])
def test_an_answer_leaves_on_a_whole_step_whatever_the_search_took(
    spent: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A fake clock: the call began at 1000 s and the search took `spent`; the wait must bring
    # the answer to a whole number of steps (at least one), so the search time is gone.
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(calls.time, "monotonic", lambda: 1000.0 + spent)
    monkeypatch.setattr(calls.asyncio, "sleep", sleep)
    asyncio.run(calls.to_the_step(1000.0))
    (wait,) = slept
    assert wait >= 0.0
    spent = (1000.0 + spent) - 1000.0  # as the clock measured it
    total = spent + wait
    steps = total / JUDGED_ANSWER_STEP
    assert steps >= 1.0 - 1e-9
    assert abs(steps - round(steps)) < 1e-6
    assert round(steps) == max(1, math.ceil(spent / JUDGED_ANSWER_STEP))


def test_a_refused_sawa_claim_and_a_qayd_call_answer_on_the_step(client: EngineClient) -> None:
    match, leader = sawa_claim_at_the_first_lead(client)
    began = time.monotonic()
    with pytest.raises(IllegalActionError, match="SAWA_INVALID"):
        match.play(leader, types_pb2.CardPlay(sawa=True))
    assert time.monotonic() - began >= JUDGED_ANSWER_STEP
    # A correct Qayd call (seat 2 revoked), then a wrong one refused under no_penalty.
    table = to_play(client)
    table.play(1, types_pb2.CardPlay(card=card("AS")))
    table.play(2, types_pb2.CardPlay(card=card("AH")))
    call = types_pb2.QaydCall(accused=2, trick=1, card=card("AH"))
    began = time.monotonic()
    table.call_qayd(3, call)
    assert time.monotonic() - began >= JUDGED_ANSWER_STEP
    other, call = a_wrong_call(client)
    began = time.monotonic()
    expect_refusal(
        client.stub.CallQayd,
        qayd_request(other, 1, call),
        grpc.StatusCode.FAILED_PRECONDITION,
        "QAYD_WRONG",
    )
    assert time.monotonic() - began >= JUDGED_ANSWER_STEP
