"""Replaying a match record: every round's deck and actions, through :func:`game.apply`.

A record is the starting state of a match (rules, first dealer, starting scores) and, for
each round dealt, its deck order and the ordered ``(seat, action)`` pairs of the round, the
dealer's deal first. A redeal (all passed, Kawesh) starts a new round. :func:`replay` applies
them one by one, exactly as the service would have, and yields every :class:`Step`; the first
action the rules refuse, or a round that ends otherwise than the record's rounds do, stops it
with a :class:`DivergenceError` that names the round, the action and the rules' reason.

The deal of a record carries no deck (``Deal(())``): the round's deck is dealt. A deal that
names a deck must name the round's. In table play the host's close of a round's review is an
entry of its own, :data:`CLOSE_REVIEW` (its seat is ignored), replayed through
:func:`game.close_review`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import NamedTuple

from baloot_engine.rules import game
from baloot_engine.rules.actions import Action, Deal, Event, EventKind
from baloot_engine.rules.errors import RECORD_MISMATCH, RuleError
from baloot_engine.rules.state import State

_ROUND_ENDS = (EventKind.ROUND_SCORED, EventKind.REDEAL)


class CloseReview(NamedTuple):
    """The host closing the review of a table-play round (no seat's action)."""


CLOSE_REVIEW = CloseReview()
"""The entry of a record for the close of a review."""

Entry = Action | CloseReview
"""What a record's entry applies: a seat's action, or the close of a review."""


class RecordedRound(NamedTuple):
    """One dealt round of a record: its deck order and its actions in order.

    An action that could not be read (a malformed entry) is given as the :class:`RuleError`
    reading it raised: the replay refuses it where it stands, after whatever diverged before.
    """

    deck: tuple[int, ...]
    actions: tuple[tuple[int, Entry | RuleError], ...]


class Step(NamedTuple):
    """One applied action of a record and what it did."""

    round_index: int
    action_index: int
    seat: int
    action: Entry  # as applied (a deal with the round's deck)
    before: State
    state: State
    events: tuple[Event, ...]
    ends_round: bool  # the action scored the round or cancelled it (a redeal)


class DivergenceError(Exception):
    """Where a record first disagrees with the rules, and the rules' reason."""

    def __init__(self, round_index: int, action_index: int, reason: str, message: str) -> None:
        super().__init__(f"round {round_index}, action {action_index}: {reason}: {message}")
        self.round_index = round_index
        self.action_index = action_index
        self.reason = reason
        self.message = message


def replay(start: State, rounds: Sequence[RecordedRound]) -> Iterator[Step]:
    """Apply every action of ``rounds`` from ``start``; raise :class:`DivergenceError` on the first
    disagreement.

    Each round but the last must end (be scored or redealt) with its last action, and no round
    goes on after it ended; the last round may stop anywhere (a match in progress).
    """
    state = start
    last = len(rounds) - 1
    for round_index, recorded in enumerate(rounds):
        actions = recorded.actions
        if not actions:
            raise DivergenceError(round_index, 0, RECORD_MISMATCH, "the round holds no deal")
        ended = False
        for action_index, (seat, action) in enumerate(actions):
            if ended:
                raise DivergenceError(
                    round_index,
                    action_index,
                    RECORD_MISMATCH,
                    f"the round ended with action {action_index - 1}; "
                    "what follows belongs to the next round",
                )
            if isinstance(action, RuleError):
                raise DivergenceError(round_index, action_index, action.reason, action.message)
            if type(action) is Deal:
                if action.deck and action.deck != recorded.deck:
                    raise DivergenceError(
                        round_index,
                        action_index,
                        RECORD_MISMATCH,
                        "the deal names another deck than the round's",
                    )
                action = Deal(recorded.deck)
            try:
                if isinstance(action, CloseReview):
                    new, closed = game.close_review(state)
                    events = tuple(closed)
                else:
                    new, events = game.apply(state, seat, action)
            except RuleError as error:
                raise DivergenceError(
                    round_index, action_index, error.reason, error.message
                ) from None
            ended = any(event.kind in _ROUND_ENDS for event in events)
            yield Step(round_index, action_index, seat, action, state, new, events, ended)
            state = new
        if not ended and round_index < last:
            raise DivergenceError(
                round_index,
                len(actions),
                RECORD_MISMATCH,
                "the round stops before its end, yet another round follows",
            )


__all__ = [
    "CLOSE_REVIEW",
    "CloseReview",
    "DivergenceError",
    "Entry",
    "RecordedRound",
    "Step",
    "replay",
]
