"""Records for the analysis tests: bots' matches, and the same with one decision changed."""

from __future__ import annotations

from baloot_engine.bots import Level, suggest
from baloot_engine.rules.actions import Action, Deal, EventKind
from baloot_engine.rules.game import apply
from baloot_engine.rules.record import Entry, RecordedRound, replay
from baloot_engine.rules.state import State


def with_decision(
    start: State,
    rounds: list[RecordedRound],
    round_index: int,
    action_index: int,
    action: Action,
    seed: int = 7,
) -> list[RecordedRound]:
    """The record's rounds up to ``round_index``, that round with its action ``action_index``
    replaced by ``action`` and the rest of the round played by BASIC bots (later rounds dropped).
    """
    kept = rounds[:round_index]
    state = start
    for step in replay(start, kept):
        state = step.state
    recorded = rounds[round_index]
    actions: list[tuple[int, Entry]] = []
    for index, (seat, entry) in enumerate(recorded.actions):
        if index == action_index:
            break
        assert not isinstance(entry, Exception)
        applied = Deal(recorded.deck) if isinstance(entry, Deal) else entry
        state, _ = apply(state, seat, applied)  # type: ignore[arg-type]
        actions.append((seat, entry))
    seat = recorded.actions[action_index][0]
    state, events = apply(state, seat, action)
    actions.append((seat, action))
    decision = 0
    while not any(e.kind in (EventKind.ROUND_SCORED, EventKind.REDEAL) for e in events):
        seat = state.turn
        chosen = suggest(state, seat, Level.BASIC, seed=seed * 1000 + decision)
        decision += 1
        state, events = apply(state, seat, chosen)
        actions.append((seat, chosen))
    return [*kept, RecordedRound(recorded.deck, tuple(actions))]
