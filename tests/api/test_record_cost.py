"""Issue 27, finding 5: the record RPCs need no credential, so a record's work is bounded.

A record holds at most ``MAX_RECORD_ACTIONS`` actions, and the Sawa searches that judge its
claims visit at most ``MAX_SAWA_POSITIONS`` positions together; past either bound it is
refused with RECORD_TOO_LARGE (VerifyRecord, ReplayRecord and a record position of SolveDeal).
"""

from __future__ import annotations

import contextlib
import random

import pytest

from baloot.v1 import records_pb2
from baloot_engine.api import outbound, records
from baloot_engine.api.refusals import RECORD_TOO_LARGE
from baloot_engine.api.status import ApiError
from baloot_engine.rules import sawa
from baloot_engine.rules.actions import Action, ClaimSawa, Deal, EventKind
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.game import apply, legal_actions, new_match
from baloot_engine.rules.ruleset import SEEDS
from baloot_engine.rules.state import Phase

RULES = SEEDS.replace(sawa=True)


def _record_with_a_hard_claim(rng: random.Random) -> records_pb2.MatchRecord:
    """A record whose one round ends with a Sawa claim at the first lead that needs more search
    than a record may spend (found by trying random deals). Whether the claim holds or not, a
    VerifyRecord must judge it: valid, or diverging there."""
    for _ in range(400):
        state = new_match(RULES, dealer=0)
        deck = list(range(32))
        rng.shuffle(deck)
        record = records_pb2.MatchRecord(format=1, first_dealer=0)
        record.rules.CopyFrom(outbound.rules_out(RULES))
        record.starting_scores.extend(state.match_scores)
        current = record.rounds.add(deck_order=deck)
        state, _ = apply(state, 0, Deal(tuple(deck)))
        actions: list[tuple[int, Action]] = [(0, Deal(()))]
        while state.phase in (Phase.BIDDING, Phase.DOUBLING):
            seat = state.turn
            action = rng.choice(legal_actions(state, seat))
            state, _ = apply(state, seat, action)
            actions.append((seat, action))
        if state.phase is not Phase.PLAYING:
            continue  # redealt
        sawa._verdict.cache_clear()
        try:
            with sawa.search_budget(records.MAX_SAWA_POSITIONS):
                after, events = apply(state, state.turn, ClaimSawa())
        except sawa.SearchBudgetError:
            pass
        except RuleError:
            continue  # refuted within the bound
        else:
            continue
        sawa._verdict.cache_clear()
        try:  # a true claim scores the round; a false one is where the record diverges
            after, events = apply(state, state.turn, ClaimSawa())
        except RuleError:
            after, events = state, ()
        actions.append((state.turn, ClaimSawa()))
        for seat, action in actions:
            current.actions.add(seat=seat).action.CopyFrom(outbound.action_out(action))
        for event in events:
            if event.kind is EventKind.ROUND_SCORED and event.score is not None:
                current.score.CopyFrom(
                    outbound.round_score_out(event.score, after.hand_number, after.contract)
                )
        return record
    raise AssertionError("no hard claim found")


def test_a_claim_that_needs_too_much_search_is_refused_and_cheaply(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    record = _record_with_a_hard_claim(random.Random(5))
    sawa._verdict.cache_clear()
    # The work is counted in positions searched (what the budget spends), not timed.
    spent: list[int] = []
    spend = sawa.SearchBudget.spend

    def counted(budget: sawa.SearchBudget, positions: int) -> None:
        spent.append(positions)
        spend(budget, positions)

    monkeypatch.setattr(sawa.SearchBudget, "spend", counted)
    with pytest.raises(ApiError) as refused:
        records.verify(record)
    monkeypatch.undo()
    assert refused.value.reason == RECORD_TOO_LARGE
    assert "Sawa" in str(refused.value)
    with pytest.raises(ApiError) as replay:
        records.replay_checked(record, records.total_steps(record), "the end")
    assert replay.value.reason == RECORD_TOO_LARGE
    # The search stops at its bound: within the step of its count that goes past it (and the
    # rest of a step the stopped search still counts).
    step = max(spent)
    assert records.MAX_SAWA_POSITIONS < sum(spent) < records.MAX_SAWA_POSITIONS + 2 * step
    # The same claim judged in play (no budget) keeps its verdict; the record is still too
    # large, as on a process that never saw the claim: the verdict does not hang on the cache.
    replayed = records.replay_checked(record, records.total_steps(record) - 1, "the claim")
    state = replayed.state
    with contextlib.suppress(RuleError):
        apply(state, state.turn, ClaimSawa())
    with pytest.raises(ApiError) as warm:
        records.verify(record)
    assert warm.value.reason == RECORD_TOO_LARGE


def test_a_record_past_the_total_of_actions_is_refused() -> None:
    record = records_pb2.MatchRecord(format=1)
    per_round = records.MAX_ROUND_ACTIONS
    for _ in range(records.MAX_RECORD_ACTIONS // per_round):
        record.rounds.add().actions.extend(
            records_pb2.RecordedAction(seat=0) for _ in range(per_round)
        )
    assert records.check_size(record) is None
    record.rounds.add().actions.add(seat=0)
    why = records.check_size(record)
    assert why is not None
    assert str(records.MAX_RECORD_ACTIONS) in why


def test_the_search_budget_counts_every_search_of_a_request() -> None:
    with sawa.search_budget(10) as budget:
        budget.spend(10)
        with pytest.raises(sawa.SearchBudgetError):
            budget.spend(1)
    assert sawa._BUDGET.get() is None
