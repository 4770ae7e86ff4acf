"""Replaying records through the rules (rules/record.py)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.rules.strategies import (
    TABLE_PRESET_NAMES,
    TABLE_PRESETS,
    recorded_match,
    recorded_table_match,
    rule_sets,
    table_rules,
)

from baloot_engine.rules import errors
from baloot_engine.rules.actions import Deal, Play
from baloot_engine.rules.game import legal_actions
from baloot_engine.rules.record import (
    CLOSE_REVIEW,
    CloseReview,
    DivergenceError,
    RecordedRound,
    replay,
)
from baloot_engine.rules.ruleset import RuleSet
from baloot_engine.rules.state import Phase

sawa_rule_sets = st.builds(lambda rules, sawa: rules.replace(sawa=sawa), rule_sets, st.booleans())


def _divergence(start: object, rounds: list[RecordedRound]) -> DivergenceError:
    try:
        for _ in replay(start, rounds):  # type: ignore[arg-type]
            pass
    except DivergenceError as divergence:
        return divergence
    raise AssertionError("the record replayed without divergence")


@settings(max_examples=25, deadline=None)
@given(rules=sawa_rule_sets, seed=st.integers(0, 2**32))
def test_a_recorded_match_replays_to_the_same_end(rules: RuleSet, seed: int) -> None:
    start, rounds, final = recorded_match(random.Random(seed), rules)
    steps = list(replay(start, rounds))
    assert steps[-1].state == final
    assert len(steps) == sum(len(r.actions) for r in rounds)
    assert [s.ends_round for s in steps].count(True) == len(rounds)
    # Every step starts where the one before ended, and each applied deal is its round's deck.
    for before, after in zip(steps, steps[1:], strict=False):
        assert after.before == before.state
    for step in steps:
        if isinstance(step.action, Deal):
            assert step.action.deck == rounds[step.round_index].deck


@settings(max_examples=25, deadline=None)
@given(rules=sawa_rule_sets, seed=st.integers(0, 2**32))
def test_a_changed_action_is_the_first_divergence(rules: RuleSet, seed: int) -> None:
    rng = random.Random(seed)
    start, rounds, _ = recorded_match(rng, rules)
    steps = list(replay(start, rounds))
    step = rng.choice(steps)
    legal = set(legal_actions(step.before, step.seat))
    illegal = [
        Play(c) for c in range(32) if Play(c) not in legal and Play(c, akka=True) not in legal
    ]
    seat = step.seat
    if rng.random() < 0.5 or not illegal:
        seat = (seat + rng.randrange(1, 4)) % 4
        action = step.action if not isinstance(step.action, Deal) else Deal(())
    else:
        action = rng.choice(illegal)
    applied = Deal(step.action.deck) if isinstance(action, Deal) else action
    if applied in legal_actions(step.before, seat) or (
        isinstance(action, Deal) and seat == step.seat
    ):
        return  # still legal: the record would diverge later, if at all
    changed = list(rounds)
    original = changed[step.round_index]
    actions = list(original.actions)
    actions[step.action_index] = (seat, action)
    changed[step.round_index] = RecordedRound(original.deck, tuple(actions))
    divergence = _divergence(start, changed)
    assert (divergence.round_index, divergence.action_index) == (
        step.round_index,
        step.action_index,
    )
    assert divergence.reason != errors.RECORD_MISMATCH


@settings(max_examples=15, deadline=None)
@given(rules=rule_sets, seed=st.integers(0, 2**32))
def test_the_structure_of_a_record_is_checked(rules: RuleSet, seed: int) -> None:
    start, rounds, _ = recorded_match(random.Random(seed), rules)
    if len(rounds) < 2:
        return
    first = rounds[0]
    # A round cut short, while another round follows.
    cut = [RecordedRound(first.deck, first.actions[:-1]), *rounds[1:]]
    divergence = _divergence(start, cut)
    assert (divergence.round_index, divergence.action_index, divergence.reason) == (
        0,
        len(first.actions) - 1,
        errors.RECORD_MISMATCH,
    )
    # A round that goes on after its end.
    longer = [RecordedRound(first.deck, (*first.actions, rounds[1].actions[0])), *rounds[1:]]
    divergence = _divergence(start, longer)
    assert (divergence.round_index, divergence.action_index) == (0, len(first.actions))
    # A deal naming another deck, a round with no actions, an unreadable action.
    other = tuple(reversed(first.deck))
    named = [RecordedRound(first.deck, ((first.actions[0][0], Deal(other)), *first.actions[1:]))]
    assert _divergence(start, named).reason == errors.RECORD_MISMATCH
    assert _divergence(start, [RecordedRound(first.deck, ())]).action_index == 0
    broken = errors.malformed(errors.INVALID_ACTION, "no kind")
    unreadable = [RecordedRound(first.deck, (first.actions[0], (0, broken)))]
    divergence = _divergence(start, unreadable)
    assert (divergence.action_index, divergence.reason) == (1, errors.INVALID_ACTION)


# ---------------------------------------------------------------------------------------
# Table play: Qayd calls and the host's close of each review


def _closes(rounds: list[RecordedRound]) -> list[tuple[int, int]]:
    return [
        (r, a)
        for r, recorded in enumerate(rounds)
        for a, (_, action) in enumerate(recorded.actions)
        if isinstance(action, CloseReview)
    ]


@pytest.mark.parametrize("base", TABLE_PRESETS, ids=TABLE_PRESET_NAMES)
def test_a_table_play_match_replays_with_its_closes_of_reviews(base: RuleSet) -> None:
    closed = 0
    for seed in range(4):
        start, rounds, final = recorded_table_match(random.Random(seed), table_rules(base))
        steps = list(replay(start, rounds))
        assert steps[-1].state == final
        assert len(steps) == sum(len(r.actions) for r in rounds)
        assert [s.ends_round for s in steps].count(True) == len(rounds)
        for step in steps:
            if isinstance(step.action, CloseReview):
                closed += 1
                assert step.before.phase is Phase.ROUND_REVIEW
                assert step.ends_round
                assert step.action_index == len(rounds[step.round_index].actions) - 1
    assert closed, "no review was closed"


@pytest.mark.parametrize("base", TABLE_PRESETS, ids=TABLE_PRESET_NAMES)
def test_a_close_removed_or_misplaced_is_the_first_divergence(base: RuleSet) -> None:
    rng = random.Random(11)
    start, rounds, _ = recorded_table_match(rng, table_rules(base))
    closes = _closes(rounds)
    assert closes
    round_index, action_index = closes[0]
    original = rounds[round_index]
    # Removed: the round stops in its review, yet another round follows (or the record ends).
    removed = list(rounds)
    removed[round_index] = RecordedRound(original.deck, original.actions[:action_index])
    if round_index < len(rounds) - 1:
        divergence = _divergence(start, removed)
        assert (divergence.round_index, divergence.action_index, divergence.reason) == (
            round_index,
            action_index,
            errors.RECORD_MISMATCH,
        )
    # Misplaced: a close during the play, before the round is under review.
    at = rng.randrange(1, action_index)
    early = list(rounds)
    early[round_index] = RecordedRound(
        original.deck, (*original.actions[:at], (0, CLOSE_REVIEW), *original.actions[at:])
    )
    divergence = _divergence(start, early)
    assert (divergence.round_index, divergence.action_index, divergence.reason) == (
        round_index,
        at,
        errors.REVIEW_NOT_OPEN,
    )
    # Doubled: the first close scored the round, the second goes on after its end.
    doubled = list(rounds)
    doubled[round_index] = RecordedRound(original.deck, (*original.actions, (0, CLOSE_REVIEW)))
    divergence = _divergence(start, doubled)
    assert (divergence.round_index, divergence.action_index, divergence.reason) == (
        round_index,
        action_index + 1,
        errors.RECORD_MISMATCH,
    )
