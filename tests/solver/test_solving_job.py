"""SolveDeal's job crosses to the solve lane's process as the state's MatchState bytes: the
state read back there is the state sent, at every card of real rounds under every preset (and
under table play), and the lane's process answers with the response's bytes."""

from __future__ import annotations

import pickle

import pytest

from baloot.v1 import engine_service_pb2 as pb
from baloot_engine.analysis.selfplay import play_record
from baloot_engine.api.solving import LiveJob, answer_of, message_of, response_of, run
from baloot_engine.bots import Level
from baloot_engine.rules.record import replay
from baloot_engine.rules.ruleset import PRESETS, Preset
from baloot_engine.rules.state import Phase


@pytest.mark.parametrize("preset", list(Preset))
def test_a_live_job_crosses_with_its_state_unchanged(preset: Preset) -> None:
    rules = PRESETS[preset]
    table_play = rules.replace(illegal_moves_allowed=True)
    start, rounds = play_record([Level.BASIC] * 4, 7, max_rounds=2, rules=rules)
    crossed = 0
    for step in replay(start, rounds):
        state = step.state
        if state.phase is not Phase.PLAYING or state.turn < 0:
            continue
        for sent in (state, state._replace(rules=table_play)):  # and under table play
            job = LiveJob(sent, 1.5)
            back = pickle.loads(pickle.dumps(job))  # noqa: S301 - our own bytes
            assert back == job
            assert back.state.rules.illegal_moves_allowed == sent.rules.illegal_moves_allowed
        crossed += 1
    assert crossed >= 32


def test_the_lane_answers_with_the_response_bytes() -> None:
    start, rounds = play_record([Level.BASIC] * 4, 3, max_rounds=1)
    state = next(
        s.state for s in replay(start, rounds) if s.state.phase is Phase.PLAYING and s.state.trick
    )
    job = LiveJob(state, 10.0)
    data = run(pickle.loads(pickle.dumps(job)))  # noqa: S301 - as the lane's process runs it
    answer = answer_of(job)
    assert answer is not None
    assert response_of(data, job) == message_of(answer, job)
    assert isinstance(response_of(data, job), pb.SolveDealResponse)
