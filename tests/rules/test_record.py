"""Replaying records through the rules (rules/record.py)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.rules.strategies import recorded_match, rule_sets

from baloot_engine.rules import errors
from baloot_engine.rules.actions import Deal, Play
from baloot_engine.rules.game import legal_actions
from baloot_engine.rules.record import DivergenceError, RecordedRound, replay
from baloot_engine.rules.ruleset import RuleSet

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
