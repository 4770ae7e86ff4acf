"""The judged calls search the hidden hands in the judge's lane, and a lane process that died
is replaced.

A Sawa claim's check and a Qayd call's judgement take longer on some hands than on others.
Their own answers leave on a whole step (``test_answer_timing``); run on the server's event
loop, the search would also delay whatever other call the same process was answering, which
a caller could time. They run in the judge's lane (``lanes/``), whose process runs nothing
else. A lane's process can die (killed by an operator, by the out-of-memory killer): it is
then replaced on its next use rather than refusing every later decision or judgement.
"""

from __future__ import annotations

import os
import pickle
import random
import signal
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from baloot_client import EngineClient, IllegalActionError, Match

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import rules_pb2, types_pb2
from baloot_engine.api.matches import as_before
from baloot_engine.api.state_codec import decode, encode
from baloot_engine.lanes import Lane
from baloot_engine.rules import game, sawa
from baloot_engine.rules.actions import ClaimSawa, Deal
from baloot_engine.rules.game import apply, close_review, new_match
from baloot_engine.rules.ruleset import SEEDS
from baloot_engine.rules.sawa import sawa_possible
from baloot_engine.rules.state import Phase, State
from tests.rules.strategies import choose, random_deck
from tests.server.conftest import InProcessServer, make_settings

from .conftest import KEY_A
from .test_servicer_qayd import TABLE, card, to_play


@pytest.fixture(scope="module")
def engine() -> Iterator[InProcessServer]:
    """This module's own server (its lanes' processes are killed here)."""
    with InProcessServer(make_settings(allow_preset_deck=True, state_keys=(KEY_A,))) as running:
        yield running


def sawa_claim_at_the_first_lead(client: EngineClient) -> tuple[Match, int]:
    """A match whose leader, at the first lead, holds a Sawa claim the other hands refute
    (Sawa on, no table play): the match and the leader."""
    rules = rules_pb2.RuleSet()
    rules.CopyFrom(TABLE)
    rules.sawa = True
    rules.illegal_moves_allowed = False
    match = to_play(client, rules)
    return match, match.views[0].turn


def _sawa_refused(client: EngineClient) -> None:
    match, leader = sawa_claim_at_the_first_lead(client)
    with pytest.raises(IllegalActionError, match="SAWA_INVALID"):
        match.play(leader, types_pb2.CardPlay(sawa=True))


def _qayd_upheld(client: EngineClient) -> None:
    """A correct Qayd call: seat 2 did not follow the Spade led though it holds one."""
    table = to_play(client)
    table.play(1, types_pb2.CardPlay(card=card("AS")))
    table.play(2, types_pb2.CardPlay(card=card("AH")))
    table.call_qayd(3, types_pb2.QaydCall(accused=2, trick=1, card=card("AH")))
    assert table.views[0].phase in (types_pb2.PHASE_ROUND_OVER, types_pb2.PHASE_AWAITING_DEAL)


def test_the_claims_and_calls_are_judged_outside_the_servers_process(
    client: EngineClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Patched here, in the server's process: a search run here would be recorded. The
    # judge's process has the real functions, and the answers are the real ones.
    searched: list[str] = []
    claim_holds, judge = sawa.claim_holds, game.judge

    def recorded_claim(*args: Any) -> bool:
        searched.append("sawa")
        return claim_holds(*args)

    def recorded_judge(*args: Any) -> Any:
        searched.append("qayd")
        return judge(*args)

    monkeypatch.setattr(sawa, "claim_holds", recorded_claim)
    monkeypatch.setattr(game, "judge", recorded_judge)
    _sawa_refused(client)
    _qayd_upheld(client)
    assert searched == []


def _kill(lane: Lane) -> list[int]:
    """Kill every process of ``lane`` (as the out-of-memory killer would); their ids."""
    pids = lane.pids()
    assert pids
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    return pids


def test_a_judge_process_that_died_is_replaced(
    engine: InProcessServer, client: EngineClient
) -> None:
    _sawa_refused(client)  # the judge's process is running
    dead = _kill(engine.app.lanes.judge)
    _sawa_refused(client)  # answered by a new process, or refused as retryable, never INTERNAL
    _qayd_upheld(client)
    assert engine.app.lanes.judge.pids()
    assert not set(engine.app.lanes.judge.pids()) & set(dead)


def test_a_bot_process_that_died_is_replaced(engine: InProcessServer, client: EngineClient) -> None:
    created = client.stub.CreateMatch(pb.CreateMatchRequest(first_dealer=0))
    dealt = client.stub.DealRound(
        pb.DealRoundRequest(
            state=created.state,
            match_id=created.match_id,
            credential=created.host_credential,
            seat=0,
        )
    )
    request = pb.SuggestActionRequest(
        state=dealt.state,
        match_id=created.match_id,
        credential=created.host_credential,
        seat=dealt.views[0].turn,
        level=pb.BOT_LEVEL_STRONG,
        seed=5,
    )
    before = client.stub.SuggestAction(request)
    dead = _kill(engine.app.lanes.bots)
    answers = []
    for _ in range(2):  # the first may find the process dying: WORKER_STOPPED, retryable
        try:
            answers.append(client.stub.SuggestAction(request))
        except grpc.RpcError as error:
            assert error.code() is grpc.StatusCode.UNAVAILABLE, error
    assert answers
    assert all(after.action == before.action for after in answers)  # seeded: the same
    assert not set(engine.app.lanes.bots.pids()) & set(dead)


def test_the_last_step_does_not_wait_for_the_jobs_of_ended_calls() -> None:
    # A server stops its lanes once its grace period is over: the calls are gone, so a job
    # still running (an EXPERT decision of 5 s, say) is not waited for: its process is
    # terminated (waiting held the process past the orchestrator's termination period).
    with InProcessServer(make_settings(grace_seconds=0.5)) as running:
        lane = running.app.lanes.solve
        job = running.run(_start_sleeping(lane), timeout=10)
        pids = lane.pids()
        assert pids
    assert job.done()
    for pid in pids:
        assert not _alive(pid)


async def _start_sleeping(lane: Lane) -> Any:
    """Start a 30 s job in ``lane``; the task awaiting it."""
    import asyncio

    from baloot_engine.lanes import Call
    from baloot_engine.lanes.clients import ANONYMOUS_CLIENT

    task = asyncio.get_running_loop().create_task(
        lane.call(ANONYMOUS_CLIENT, Call(time.sleep, (30,)), None)
    )
    while not lane.running:  # noqa: ASYNC110 - the lane has no event to wait on
        await asyncio.sleep(0.01)
    return task


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_judged_state_seals_to_the_bytes_of_the_same_call_applied_here() -> None:
    # The state comes back from the judge's process pickled, every field a new object; the
    # token encoder keeps unchanged fields in place by identity. Given back the fields that did
    # not change, the plaintext is byte for byte the inline one (the ledger keys on it).
    rules = SEEDS.replace(illegal_moves_allowed=True, sawa=True)
    rng = random.Random(3)
    compared = 0
    seed = bytes(16)
    while compared < 40:
        state = new_match(rules, 0)
        for _ in range(2):  # the claims of the second round: the state holds the first's score
            if state.phase is Phase.ROUND_REVIEW:
                state, _ = close_review(state)
            if state.phase is Phase.MATCH_OVER:
                break
            state, _ = apply(state, state.dealer, Deal(random_deck(rng)))
            state, checked = _claims_seal_alike(state, rng, seed)
            compared += checked


def _claims_seal_alike(state: State, rng: random.Random, seed: bytes) -> tuple[State, int]:
    """Play the round of ``state`` at random, checking every accepted Sawa claim of a second
    round on the way; the state at its end and the number checked."""
    compared = 0
    while state.phase in (Phase.BIDDING, Phase.DOUBLING, Phase.PLAYING):
        if (
            state.phase is Phase.PLAYING
            and state.hand_number > 1
            and sawa_possible(state, state.turn)
        ):
            before = decode(encode(state, seed, 1000))
            after, _ = apply(before.state, state.turn, ClaimSawa())  # table play: accepted
            inline = encode(after, before.seed, 1001, before)
            judged = pickle.loads(pickle.dumps(after))  # noqa: S301 - our own bytes
            assert encode(as_before(before.state, judged), before.seed, 1001, before) == inline
            compared += 1
        state, _ = apply(state, *choose(rng, state))
    return state, compared
