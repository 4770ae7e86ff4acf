"""Every suggestion of every level is a legal action, under rule sets far apart."""

from __future__ import annotations

import pytest

from baloot_engine.bots import Level, suggest
from baloot_engine.rules import errors
from baloot_engine.rules.actions import ClaimSawa, Declare, Play
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.game import apply, legal_actions, new_match
from baloot_engine.rules.state import Phase
from tests.bots.games import RULE_SETS, SMALL, bot, walk


@pytest.mark.parametrize("rules_name", sorted(RULE_SETS))
@pytest.mark.parametrize("level", list(Level), ids=lambda level: level.value)
def test_every_suggestion_is_legal_over_seeded_games(level: Level, rules_name: str) -> None:
    seeds = range(6) if level in (Level.STRONG, Level.EXPERT) else range(25)
    decisions = 0
    for seed in seeds:
        for _ in walk(RULE_SETS[rules_name], seed, bot(level), max_rounds=2 if seed % 2 else 4):
            decisions += 1
    assert decisions > 100


@pytest.mark.parametrize("rules_name", sorted(RULE_SETS))
def test_seats_not_on_turn_get_a_legal_action_or_a_clear_refusal(rules_name: str) -> None:
    seen = set()
    for state in walk(RULE_SETS[rules_name], 7, bot(Level.BASIC), max_rounds=3):
        for seat in range(4):
            if seat == state.turn:
                continue
            legal = legal_actions(state, seat)
            try:
                action = suggest(state, seat, Level.BASIC, seed=1)
            except RuleError as error:
                assert not legal
                assert error.reason == errors.NOT_YOUR_TURN
                assert str(state.turn) in error.message
                seen.add("refused")
            else:
                # Out of turn a seat may only declare its projects (or call Kawesh).
                assert action in legal
                seen.add(type(action).__name__)
    assert "refused" in seen


def test_no_action_between_rounds_or_after_the_match() -> None:
    state = new_match(RULE_SETS["seeds"], dealer=0)
    with pytest.raises(RuleError) as refused:
        suggest(state, 0, Level.BASIC, seed=1)
    assert refused.value.reason == errors.WRONG_PHASE
    assert "DealRound" in refused.value.message
    with pytest.raises(RuleError) as malformed:
        suggest(state, 4, Level.BASIC, seed=1)
    assert malformed.value.reason == errors.INVALID_SEAT
    finished = state._replace(phase=Phase.MATCH_OVER, winner=0, turn=-1)
    with pytest.raises(RuleError) as over:
        suggest(finished, 0, Level.RANDOM)
    assert over.value.reason == errors.MATCH_OVER


def test_basic_always_declares_its_projects_and_calls_akka() -> None:
    declared = akka = 0
    # An Akka call exists only where the rules ask for it (akka_requires_declaration, §A.14).
    rules = RULE_SETS["seeds"].replace(akka_requires_declaration=True)
    for seed in range(40):
        for state in walk(rules, seed, bot(Level.BASIC), max_rounds=2):
            seat = state.turn
            legal = legal_actions(state, seat)
            action = suggest(state, seat, Level.BASIC, seed=seed)
            if any(isinstance(a, Declare) for a in legal):
                assert isinstance(action, Declare)
                declared += 1
            if isinstance(action, Play) and Play(action.card, True) in legal:
                assert action.akka
                akka += 1
    assert declared > 5
    assert akka > 0


def test_bots_claim_sawa_only_when_it_holds() -> None:
    claims = 0
    for seed in range(30):
        for state in walk(RULE_SETS["custom"], seed, bot(Level.BASIC), max_rounds=2):
            action = suggest(state, state.turn, Level.BASIC, seed=seed)
            if isinstance(action, ClaimSawa):
                apply(state, state.turn, action)  # raises SAWA_INVALID if the claim were false
                claims += 1
    assert claims > 0


def test_strong_with_its_real_budget_stays_legal() -> None:
    for state in walk(RULE_SETS["kammelna"], 3, bot(Level.STRONG), max_rounds=1):
        action = suggest(state, state.turn, Level.STRONG, seed=5)
        assert action in legal_actions(state, state.turn)
    assert SMALL.steps < 2000
