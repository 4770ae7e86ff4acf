"""The round analysis ↔ the contract: a ``MatchRecord`` verified and turned into the core's
values, and the analysis' reports turned into ``AnalyzeRecordResponse`` messages.

The analysis itself is :mod:`baloot_engine.analysis` (pure); this module is the translation,
used by the ``AnalyzeRecord`` RPC and by ``baloot-analyze``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from baloot.v1 import records_pb2
from baloot_engine.api import outbound, records
from baloot_engine.rules.actions import Deal, EventKind
from baloot_engine.rules.record import CloseReview, DivergenceError, RecordedRound, replay
from baloot_engine.rules.state import State

RECORD_FORMAT: Final = records.RECORD_FORMAT


class RecordRefusedError(Exception):
    """A record the analysis does not take: too large, or not verified (its divergence)."""

    def __init__(self, reason: str, message: str, divergence: DivergenceError | None = None):
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.divergence = divergence


def prepare(record: records_pb2.MatchRecord) -> tuple[State, list[RecordedRound]]:
    """A record's start and rounds, once its size is checked and it is verified (every action
    replayed, every recorded score compared); raises :class:`RecordRefusedError`."""
    why = records.check_size(record)
    if why is not None:
        raise RecordRefusedError("RECORD_TOO_LARGE", why)
    verdict = records.verify(record)
    if not verdict.valid:
        found = verdict.divergence
        divergence = DivergenceError(
            found.round_index, found.action_index, found.reason, found.message
        )
        raise RecordRefusedError("RECORD_DIVERGES", str(divergence), divergence)
    return records.start_of(record), records._rounds_in(record)


def record_message(
    start: State, rounds: Sequence[RecordedRound], match_id: str = ""
) -> records_pb2.MatchRecord:
    """The ``MatchRecord`` of a record's start and rounds (their scores replayed in)."""
    message = records_pb2.MatchRecord(
        format=RECORD_FORMAT,
        match_id=match_id,
        rules=outbound.rules_out(start.rules),
        starting_scores=list(start.match_scores),
        first_dealer=start.dealer,
    )
    for recorded in rounds:
        into = message.rounds.add(deck_order=recorded.deck)
        for seat, entry in recorded.actions:
            if isinstance(entry, CloseReview):
                into.actions.add(seat=0, close_review=True)
            elif isinstance(entry, Deal):
                into.actions.add(seat=seat, action=outbound.action_out(Deal(())))
            elif not isinstance(entry, Exception):
                into.actions.add(seat=seat, action=outbound.action_out(entry))
    for step in replay(start, rounds):
        for event in step.events:
            if event.kind is EventKind.ROUND_SCORED and event.score is not None:
                state = step.state
                message.rounds[step.round_index].score.CopyFrom(
                    outbound.round_score_out(event.score, state.hand_number, state.contract)
                )
    return message


__all__ = ["RecordRefusedError", "prepare", "record_message"]
