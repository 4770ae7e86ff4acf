"""Records of bots playing: the deals and decisions of seeded matches, for the analysis' tests,
its calibration and its benchmark."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from baloot_engine.bots import Level, suggest
from baloot_engine.bots.expert import DEFAULT_EXPERT_BUDGET, ExpertBudget
from baloot_engine.rules.actions import Action, Deal, EventKind
from baloot_engine.rules.game import apply, new_match
from baloot_engine.rules.record import Entry, RecordedRound
from baloot_engine.rules.ruleset import SEEDS, RuleSet
from baloot_engine.rules.state import Phase, State


def deck_of(seed: int, round_number: int) -> tuple[int, ...]:
    """The deck of a round of a seeded self-play match (the same for every level)."""
    deck = list(range(32))
    random.Random(f"analysis-deal/{seed}/{round_number}").shuffle(deck)
    return tuple(deck)


def play_record(
    levels: Sequence[Level],
    seed: int,
    *,
    max_rounds: int = 0,
    rules: RuleSet = SEEDS,
    expert: ExpertBudget = DEFAULT_EXPERT_BUDGET,
    decide: Callable[[State, int, int], Action] | None = None,
) -> tuple[State, list[RecordedRound]]:
    """A seeded match of bots, seat ``s`` playing at ``levels[s]``: its start and its rounds.

    ``decide(state, seat, seed)`` replaces the bots' decisions when given (a benchmark's own
    players).

    It stops when the match is won or after ``max_rounds`` dealt hands (0: no limit). The
    decks depend on the seed and the round number only, so every set of levels meets the same
    first deal.
    """
    start = new_match(rules, dealer=seed % 4)
    state = start
    rounds: list[RecordedRound] = []
    actions: list[tuple[int, Entry]] = []
    deck: tuple[int, ...] = ()
    decision = 0
    while state.phase is not Phase.MATCH_OVER:
        if state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
            if max_rounds and len(rounds) >= max_rounds:
                break
            deck = deck_of(seed, state.hand_number + 1)
            actions = [(state.dealer, Deal(()))]
            state, _ = apply(state, state.dealer, Deal(deck))
            continue
        seat = state.turn
        decision_seed = seed * 100_003 + decision
        if decide is None:
            action = suggest(state, seat, levels[seat], seed=decision_seed, expert=expert)
        else:
            action = decide(state, seat, decision_seed)
        decision += 1
        state, events = apply(state, seat, action)
        actions.append((seat, action))
        if any(e.kind in (EventKind.ROUND_SCORED, EventKind.REDEAL) for e in events):
            rounds.append(RecordedRound(deck, tuple(actions)))
            actions = []
    return start, rounds


__all__ = ["deck_of", "play_record"]
