"""How long a verdict that searches the hidden hands took does not leave with its answer.

A Sawa claim's check and a Qayd call's judgement look at every hand; how long they search
depends on the hands (a claim the top cards prove at once, one a fixed defence refutes, one
only the full search settles). Their answers, accepted or refused, leave on a whole number
of ``JUDGED_ANSWER_STEP`` after the call began. Lower bounds only: a loaded machine makes
any call slower, never faster.
"""

from __future__ import annotations

import asyncio
import time

import grpc
import pytest
from baloot_client import EngineClient, IllegalActionError

from baloot.v1 import rules_pb2, types_pb2
from baloot_engine.api.servicer import JUDGED_ANSWER_STEP, _on_the_step
from baloot_engine.rules import errors
from baloot_engine.rules.errors import RuleError

from .conftest import expect_refusal
from .test_servicer_qayd import TABLE, card, qayd_request, to_play


def _timed(judge_seconds: float, *, fails: bool = False) -> float:
    def judge() -> str:
        time.sleep(judge_seconds)
        if fails:
            raise RuleError(errors.SAWA_INVALID, "refused")
        return "answer"

    began = time.monotonic()

    async def run() -> str:
        return await _on_the_step(began, judge)

    if fails:
        with pytest.raises(RuleError):
            asyncio.run(run())
    else:
        assert asyncio.run(run()) == "answer"
    return time.monotonic() - began


def test_an_answer_leaves_on_a_whole_step_whatever_the_search_took() -> None:
    assert _timed(0.0) >= JUDGED_ANSWER_STEP
    assert _timed(0.01) >= JUDGED_ANSWER_STEP
    # A search longer than a step waits for the next one.
    assert _timed(1.3 * JUDGED_ANSWER_STEP) >= 2 * JUDGED_ANSWER_STEP
    # A refusal waits as an answer does.
    assert _timed(0.0, fails=True) >= JUDGED_ANSWER_STEP


def test_a_refused_sawa_claim_and_a_qayd_call_answer_on_the_step(client: EngineClient) -> None:
    rules = rules_pb2.RuleSet()
    rules.CopyFrom(TABLE)
    rules.sawa = True
    rules.illegal_moves_allowed = False
    match = to_play(client, rules)
    leader = match.views[0].turn
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
    refused = rules_pb2.RuleSet()
    refused.CopyFrom(TABLE)
    refused.qayd_false_call = rules_pb2.QAYD_FALSE_CALL_NO_PENALTY
    other = to_play(client, refused)
    other.play(1, types_pb2.CardPlay(card=card("AS")))
    other.play(2, types_pb2.CardPlay(card=card("QS")))
    began = time.monotonic()
    expect_refusal(
        client.stub.CallQayd,
        qayd_request(other, 1, types_pb2.QaydCall(accused=2, trick=1, card=card("QS"))),
        grpc.StatusCode.FAILED_PRECONDITION,
        "QAYD_WRONG",
    )
    assert time.monotonic() - began >= JUDGED_ANSWER_STEP
