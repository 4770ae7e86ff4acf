"""Helpers of the bot tests: seeded decks, rule sets far apart, and games played to a point."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from types import ModuleType

import pytest

from baloot_engine.bots import ExpertBudget, Level, suggest
from baloot_engine.bots.search import Budget, Scorer
from baloot_engine.rules.actions import Action, Deal
from baloot_engine.rules.game import apply, legal_actions, new_match
from baloot_engine.rules.ruleset import (
    KAMMELNA,
    SEEDS,
    ClosedChooser,
    DoublingWindow,
    FirstLeader,
    Kawesh,
    PartnerWinningRule,
    RuleSet,
    SunPriorityClaim,
)
from baloot_engine.rules.state import Phase, State

# A rule set far from both presets: Sawa claims, engine-declared projects, Kawesh, the «قبلك»
# claim, the reopened first lap, the buyer naming open/closed and leading, a late completion.
CUSTOM = SEEDS.replace(
    sawa=True,
    auto_declare_projects=True,
    kawesh=Kawesh.NO_COURT_CARDS,
    sun_priority_claim=SunPriorityClaim.HIGHER_PRIORITY,
    closed_chooser=ClosedChooser.BUYER,
    first_leader=FirstLeader.BUYER,
    round1_hokm_reopens_to_all=True,
    doubling_window=DoublingWindow.BEFORE_BUYER_COMPLETION,
    akka_requires_declaration=True,
    partner_winning_rule=PartnerWinningRule.POSITIONAL,
    match_target=101,
)
RULE_SETS = {"seeds": SEEDS, "kammelna": KAMMELNA, "custom": CUSTOM}
# A small search keeps the STRONG tests quick; the search itself is the same.
SMALL = Budget(steps=300, min_samples=2, max_samples=4, seconds=0.05)
# A few worlds and a solved last two tricks keep the EXPERT tests quick.
TINY_EXPERT = ExpertBudget(worlds=3, min_worlds=2, max_worlds=6, seconds=0.05, solve_at=2)
# Whole-world solves from five cards a hand on: the new search at a size the tests can afford.
SOLVED_EXPERT = TINY_EXPERT._replace(worlds=4, solve_at=5)


def deck(seed: int, round_number: int) -> tuple[int, ...]:
    """A seeded deck order."""
    cards = list(range(32))
    random.Random(f"bots-{seed}-{round_number}").shuffle(cards)
    return tuple(cards)


def end_of_hand(rng: random.Random, per_hand: int) -> tuple[list[int], int]:
    """A random end of a hand: ``per_hand`` cards in each hand (bit masks), the rest played."""
    cards = list(range(32))
    rng.shuffle(cards)
    hands = [0, 0, 0, 0]
    for seat in range(4):
        for card in cards[seat * per_hand : (seat + 1) * per_hand]:
            hands[seat] |= 1 << card
    played = 0
    for card in cards[4 * per_hand :]:
        played |= 1 << card
    return hands, played


def bot(
    level: Level, budget: Budget = SMALL, expert: ExpertBudget = TINY_EXPERT
) -> Callable[[State, int, int], Action]:
    """A chooser ``(state, seat, seed) -> action`` of one level."""

    def choose(state: State, seat: int, seed: int) -> Action:
        return suggest(state, seat, level, seed, budget=budget, expert=expert)

    return choose


def walk(
    rules: RuleSet,
    seed: int,
    choose: Callable[[State, int, int], Action],
    *,
    max_rounds: int = 3,
) -> Iterator[State]:
    """Yield every state a bot-played match passes through (before each decision).

    Every action is checked against the rules core's legal actions and applied, so an illegal
    suggestion fails the caller's test at once.
    """
    state = new_match(rules, dealer=seed % 4)
    step = 0
    while state.phase is not Phase.MATCH_OVER and state.hand_number <= max_rounds:
        if state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
            if state.hand_number == max_rounds:
                return
            state, _ = apply(state, state.dealer, Deal(deck(seed, state.hand_number + 1)))
            continue
        yield state
        seat = state.turn
        action = choose(state, seat, seed * 1000 + step)
        legal = legal_actions(state, seat)
        assert action in legal, f"{action} is not legal for seat {seat}: {legal}"
        state, _ = apply(state, seat, action)
        step += 1


def record_scorer_matches(monkeypatch: pytest.MonkeyPatch, module: ModuleType) -> list[object]:
    """Make the scorers ``module`` creates record their match totals (None: round points) in
    the list returned, in the order they are made."""
    seen: list[object] = []

    class Recording(Scorer):
        def __init__(self, *args: object) -> None:
            super().__init__(*args)  # type: ignore[arg-type]
            seen.append(self.match)

    monkeypatch.setattr(module, "Scorer", Recording)
    return seen
