"""The round analysis: values, losses, key mistakes, blunders ranked first, determinism, limits."""

from __future__ import annotations

import dataclasses
import json
import time
from functools import cache

import pytest

from baloot_engine.analysis import (
    AnalysisStoppedError,
    Decision,
    DecisionKind,
    Depth,
    MatchSummary,
    Progress,
    RoundSummary,
    analyze,
    budget_of,
    explain,
    key_mistakes,
)
from baloot_engine.analysis.core import representatives, solve_position
from baloot_engine.analysis.export import report_dict
from baloot_engine.analysis.selfplay import play_record
from baloot_engine.bots import Level, suggest
from baloot_engine.bots.handeval import sun_value
from baloot_engine.rules.actions import (
    Action,
    Bid,
    BidKind,
    Doubling,
    DoublingCall,
    Play,
)
from baloot_engine.rules.cards import ACE
from baloot_engine.rules.game import legal_actions
from baloot_engine.rules.record import DivergenceError, RecordedRound, replay
from baloot_engine.rules.state import Phase, State
from baloot_engine.solver import position_of, solve
from tests.analysis.records import with_decision

QUICK = budget_of(Depth.QUICK)


@cache
def basic_record(seed: int = 5, rounds: int = 3) -> tuple[State, tuple[RecordedRound, ...]]:
    start, played = play_record([Level.BASIC] * 4, seed, max_rounds=rounds)
    return start, tuple(played)


@cache
def basic_analysis() -> tuple[object, ...]:
    start, rounds = basic_record()
    return tuple(analyze(start, rounds, budget=QUICK, seed=1))


def test_the_stream_starts_with_progress_and_ends_with_the_match() -> None:
    reports = basic_analysis()
    first = reports[0]
    assert isinstance(first, Progress)
    assert first.done == 0
    assert first.total > 0
    assert isinstance(reports[-1], MatchSummary)
    progress = [r for r in reports if isinstance(r, Progress)]
    assert [p.done for p in progress] == list(range(first.total + 1))
    rounds = [r for r in reports if isinstance(r, RoundSummary)]
    assert len(rounds) == reports[-1].rounds == 3


def test_every_decision_values_every_legal_alternative() -> None:
    decisions = [r for r in basic_analysis() if isinstance(r, Decision)]
    kinds = {d.kind for d in decisions}
    assert DecisionKind.CARD in kinds
    assert DecisionKind.BID in kinds
    for decision in decisions:
        assert len(decision.alternatives) >= 2
        assert decision.fair_loss >= 0
        best = decision.alternatives[decision.best_fair].fair
        for alternative in decision.alternatives:
            assert alternative.fair.score <= best.score + 1e-9
            if decision.kind is DecisionKind.CARD:
                assert alternative.hindsight is not None
                assert alternative.fair.points is not None
                assert 0 <= alternative.fair.points <= 162
            chance = alternative.fair.match_chance
            assert chance is None or 0.0 <= chance <= 1.0
        taken = decision.alternatives[decision.taken].fair
        assert decision.fair_loss == pytest.approx(best.score - taken.score, abs=2e-3)
        if decision.kind is DecisionKind.CARD:
            assert decision.worlds == QUICK.worlds
            assert 0 <= decision.worse_in <= decision.worlds


def test_the_hindsight_value_of_a_card_is_the_solver_on_the_real_deal() -> None:
    start, rounds = basic_record()
    states = {(s.round_index, s.action_index): s.before for s in replay(start, rounds)}
    decision = next(
        r for r in basic_analysis() if isinstance(r, Decision) and r.kind is DecisionKind.CARD
    )
    solution = solve(position_of(states[(decision.round_index, decision.action_index)]))
    team = decision.seat & 1
    assert [a.hindsight.points for a in decision.alternatives if a.hindsight] == [
        v.points[team] for v in solution.values
    ]


def test_round_and_match_figures_add_up() -> None:
    reports = basic_analysis()
    decisions = [r for r in reports if isinstance(r, Decision)]
    match = reports[-1]
    assert isinstance(match, MatchSummary)
    for figures in match.seats:
        mine = [d for d in decisions if d.seat == figures.seat]
        assert figures.decisions == len(mine)
        assert figures.best_choices == sum(d.is_best for d in mine)
        assert figures.mean_fair_loss == pytest.approx(
            sum(d.fair_loss for d in mine) / len(mine), abs=2e-3
        )
    # Costliest first, on the loss the sampled deals agree on (the mean less its error).
    sure = [max(0.0, d.fair_loss - d.fair_loss_error) for d in match.key_mistakes]
    assert 0 < len(sure) <= 5
    assert sure == sorted(sure, reverse=True)
    assert sure[0] == max(max(0.0, d.fair_loss - d.fair_loss_error) for d in decisions)
    assert all(d.fair_loss_error >= 0.0 for d in decisions)
    for summary in (r for r in reports if isinstance(r, RoundSummary)):
        assert summary.par is not None
        assert sum(summary.par.points) == (
            162 if summary.contract and summary.contract.trump >= 0 else 130
        )
        assert all(d.round_index == summary.round_index for d in summary.key_mistakes)


def test_a_discarded_winning_ace_is_the_round_s_first_mistake() -> None:
    start, rounds = basic_record()
    worst: tuple[int, int, int, int] | None = None
    for step in replay(start, rounds):
        before = step.before
        if not (isinstance(step.action, Play) and before.phase is Phase.PLAYING):
            continue
        if len(before.tricks) != 6 or not before.trick:
            continue
        team = step.seat & 1
        values = {v.play.card: v.points[team] for v in solve(position_of(before)).values}
        for card, points in values.items():
            gap = max(values.values()) - points
            if card & 7 == ACE and gap > 0 and (worst is None or gap > worst[0]):
                worst = (gap, step.round_index, step.action_index, card)
    assert worst is not None
    _, round_index, action_index, card = worst
    blundered = with_decision(start, list(rounds), round_index, action_index, Play(card))
    reports = list(analyze(start, blundered, round_indices=[round_index], budget=QUICK, seed=2))
    summary = next(r for r in reports if isinstance(r, RoundSummary))
    first = summary.key_mistakes[0]
    assert (first.round_index, first.action_index) == (round_index, action_index)
    assert first.action == Play(card)
    assert first.hindsight_loss_points
    assert first.hindsight_loss_points > 0
    assert "instead of" in explain(first)
    assert "بدل" in explain(first, "ar")


def test_a_hopeless_sun_is_the_buyer_s_first_mistake() -> None:
    start, rounds = basic_record()
    weakest: tuple[float, int, int, int] | None = None
    for step in replay(start, rounds):
        before = step.before
        if not (isinstance(step.action, Bid) and step.action.kind is BidKind.PASS):
            continue
        if Bid(BidKind.SUN) not in legal_actions(before, step.seat):
            continue
        value = sun_value(before.hands[step.seat] | 1 << before.buy_card)
        if weakest is None or value < weakest[0]:
            weakest = (value, step.round_index, step.action_index, step.seat)
    assert weakest is not None
    _, round_index, action_index, seat = weakest
    blundered = with_decision(start, list(rounds), round_index, action_index, Bid(BidKind.SUN))
    reports = list(
        analyze(start, blundered, seats=[seat], round_indices=[round_index], budget=QUICK, seed=3)
    )
    summary = next(r for r in reports if isinstance(r, RoundSummary))
    first = summary.key_mistakes[0]
    assert (first.round_index, first.action_index, first.kind) == (
        round_index,
        action_index,
        DecisionKind.BID,
    )
    assert first.action == Bid(BidKind.SUN)
    assert first.fair_loss > 3
    assert explain(first).startswith("Bidding Sun instead of")
    assert explain(first, "ar").startswith("قول صن بدل")


def test_the_same_record_and_seed_give_the_same_analysis_byte_for_byte() -> None:
    start, rounds = basic_record(seed=9, rounds=1)

    def text(seed: int) -> str:
        reports = analyze(start, rounds, budget=QUICK, seed=seed)
        return json.dumps([report_dict(r) for r in reports], ensure_ascii=False, sort_keys=True)

    once = text(4)
    assert text(4) == once
    assert text(5) != once


def test_a_record_the_rules_refuse_is_refused_before_any_report() -> None:
    start, rounds = basic_record()
    first = rounds[0]
    broken = RecordedRound(first.deck, (*first.actions[:3], first.actions[5], *first.actions[6:]))
    with pytest.raises(DivergenceError) as refused:
        next(iter(analyze(start, [broken, *rounds[1:]], budget=QUICK)))
    assert refused.value.round_index == 0
    assert refused.value.action_index == 3


def test_an_unfinished_round_is_not_analysed() -> None:
    start, rounds = basic_record()
    last = rounds[-1]
    cut = [*rounds[:-1], RecordedRound(last.deck, last.actions[: len(last.actions) // 2])]
    reports = list(analyze(start, cut, seats=[0], budget=QUICK))
    assert all(
        r.round_index < len(rounds) - 1 for r in reports if isinstance(r, Decision | RoundSummary)
    )


def test_a_deadline_or_a_cancellation_stops_the_work() -> None:
    start, rounds = basic_record()
    stream = analyze(start, rounds, budget=QUICK, deadline=time.monotonic() + 0.05)
    with pytest.raises(AnalysisStoppedError):
        list(stream)
    calls = 0

    def cancelled() -> bool:
        nonlocal calls
        calls += 1
        return calls > 3

    with pytest.raises(AnalysisStoppedError):
        list(analyze(start, rounds, budget=QUICK, cancelled=cancelled))
    assert calls == 4


def test_named_budgets_and_worlds() -> None:
    assert budget_of(Depth.QUICK).worlds < budget_of().worlds < budget_of(Depth.DEEP).worlds
    assert budget_of(Depth.QUICK, 7).worlds == 7
    with pytest.raises(ValueError, match="worlds"):
        budget_of(None, 10_000)


def test_equivalent_cards_are_solved_once_with_the_solver_s_values() -> None:
    start, rounds = play_record([Level.RANDOM] * 4, 2, max_rounds=1)
    checked = 0
    for step in replay(start, rounds):
        if not isinstance(step.action, Play) or step.before.turn != step.seat:
            continue
        position = position_of(step.before)
        solution = solve(position)
        plays = [v.play for v in solution.values]
        same = representatives(position, plays)
        values = solve_position(position, plays, sorted(set(same)), None)
        for i, value in enumerate(solution.values):
            assert values[same[i]] == (value.points, value.tricks)
        checked += 1
    assert checked >= 30


def test_a_loss_every_deal_agrees_on_ranks_above_a_larger_mean_one_deal_makes() -> None:
    # A sure loss of 2 game points (worse in 10 of 10 deals, error 0.1) and a mean loss of 3.8
    # that one deal of ten makes (error 3.6): the sure one is the key mistake.
    sure, noisy = (
        dataclasses.replace(
            decision, fair_loss=loss, fair_loss_error=error, fair_loss_points=0.0, action_index=i
        )
        for i, (decision, loss, error) in enumerate(
            ((_a_mistake(), 2.0, 0.1), (_a_mistake(), 3.8, 3.6))
        )
    )
    assert key_mistakes([noisy, sure]) == (sure, noisy)
    # Equal sure losses: the larger mean first.
    bigger = dataclasses.replace(noisy, fair_loss=5.5, fair_loss_error=3.6)
    assert key_mistakes([bigger, sure])[0] is bigger


def _a_mistake() -> Decision:
    return next(d for d in basic_analysis() if isinstance(d, Decision) and not d.is_best)


def test_the_cards_of_a_gahwa_round_are_worth_the_match() -> None:
    # A Gahwa round decides the match: every card is valued by the chance to win it times the
    # match's target, on both scales, not by the points the plain round would score (where a
    # kaboot may score less than a win with a trick given away).
    def decide(state: State, seat: int, seed: int) -> Action:
        options = legal_actions(state, seat)
        raises = [
            a
            for a in options
            if isinstance(a, Doubling)
            and a.call
            in (DoublingCall.DOUBLE, DoublingCall.TRIPLE, DoublingCall.FOUR, DoublingCall.GAHWA)
        ]
        if state.phase is Phase.DOUBLING and raises:
            return max(raises, key=lambda a: list(DoublingCall).index(a.call))
        return suggest(state, seat, Level.BASIC, seed=seed)

    start, rounds = play_record([Level.BASIC] * 4, 11, max_rounds=1, decide=decide)
    final = list(replay(start, rounds))[-1].before
    assert final.contract is not None
    assert final.contract.gahwa
    cards = [
        d
        for d in analyze(start, rounds, budget=QUICK, seed=1)
        if isinstance(d, Decision) and d.kind is DecisionKind.CARD
    ]
    assert cards
    target = start.rules.match_target
    for decision in cards:
        for alternative in decision.alternatives:
            fair, hindsight = alternative.fair, alternative.hindsight
            assert fair.match_chance is not None
            assert fair.score == pytest.approx(target * fair.match_chance, abs=0.2)
            assert hindsight is not None
            assert hindsight.match_chance is not None
            assert hindsight.score == pytest.approx(target * hindsight.match_chance, abs=0.2)


def test_a_card_that_cost_game_points_but_took_card_points_says_so() -> None:
    mistake = dataclasses.replace(
        _a_mistake(), kind=DecisionKind.CARD, fair_loss=12.5, fair_loss_points=-8.0
    )
    assert "though it took 8 more card points" in explain(mistake)
    assert "بنط زيادة" in explain(mistake, "ar")
