"""Match equity: an even race is even, more points never hurt, the two teams' chances add up to
one, a round that ends the match is won or lost outright, and a match-aware score counts a
round by the chance to win the match after it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baloot_engine.bots.equity import equity_after, equity_slope, match_equity
from baloot_engine.bots.search import EQUITY_SCALE, Scorer, in_score_units, standing_value
from baloot_engine.rules.contract import Contract, ContractType
from baloot_engine.rules.facts import RoundFacts
from baloot_engine.rules.ruleset import KAMMELNA, SEEDS, BothCrossRule
from baloot_engine.rules.scoring import score_round

scores = st.integers(min_value=0, max_value=151)


@given(scores)
def test_equal_totals_are_an_even_match(total: int) -> None:
    assert match_equity(total, total, 152) == pytest.approx(0.5)


@given(scores, scores)
def test_the_two_chances_add_up_to_one(ours: int, theirs: int) -> None:
    assert match_equity(ours, theirs, 152) + match_equity(theirs, ours, 152) == pytest.approx(1)


@given(st.integers(min_value=0, max_value=150), scores)
def test_a_point_more_never_lowers_the_chance(ours: int, theirs: int) -> None:
    assert match_equity(ours + 1, theirs, 152) >= match_equity(ours, theirs, 152)


def test_the_same_lead_weighs_more_near_the_end() -> None:
    assert match_equity(140, 120, 152) > match_equity(60, 40, 152) > 0.5


def test_a_round_that_ends_the_match_is_won_or_lost() -> None:
    assert equity_after((140, 100), (12, 0), 0, 1, SEEDS) == 1.0
    assert equity_after((140, 100), (0, 52), 0, 0, SEEDS) == 0.0
    # Both over the target: the higher total wins, equal totals play on.
    assert equity_after((145, 140), (10, 20), 0, 0, SEEDS) == 0.0
    assert equity_after((150, 150), (10, 10), 1, 0, SEEDS) == 0.5
    buyer_wins = SEEDS.replace(both_cross_rule=BothCrossRule.BUYER_TEAM)
    assert equity_after((145, 140), (10, 20), 0, 0, buyer_wins) == 1.0
    assert equity_after((100, 100), (10, 0), 0, 1, KAMMELNA) == match_equity(110, 100, 152)


def test_a_match_aware_score_is_the_chance_to_win_after_the_round() -> None:
    contract = Contract(ContractType.HOKM, buyer=0, trump=0)
    plain = Scorer(contract, SEEDS, 0)
    aware = Scorer(contract, SEEDS, 0, (145, 60))
    near = Scorer(contract, SEEDS, 0, (100, 100))
    made = ((110, 52), (6, 2))  # abnat with the last trick's ten (162 in all), tricks won
    failed = ((60, 102), (3, 5))
    assert plain.value(*made, (), ()) > 0 > plain.value(*failed, (), ())
    # From 145 the buyer's points of a made Hokm reach 152: the match is won.
    assert aware.value(*made, (), ()) == EQUITY_SCALE
    assert 0 < aware.value(*failed, (), ()) < EQUITY_SCALE
    # From an even 100 each a made round is worth its lead in the race, a failed one its loss.
    facts = RoundFacts(
        contract=ContractType.HOKM, buyer_team=0, card_abnat=made[0], tricks_won=made[1]
    )
    ours, theirs = score_round(facts, SEEDS).points
    assert near.value(*made, (), ()) == round(
        EQUITY_SCALE * (2 * match_equity(100 + ours, 100 + theirs, 152) - 1)
    )
    assert near.value(*failed, (), ()) < 0 < near.value(*made, (), ()) < EQUITY_SCALE


@given(st.integers(min_value=2, max_value=149), st.integers(min_value=2, max_value=149))
def test_the_slope_is_what_a_point_of_difference_is_worth(ours: int, theirs: int) -> None:
    # Moving one point from one team to the other keeps the rounds left and moves the
    # difference by two.
    change = match_equity(ours + 1, theirs - 1, 152) - match_equity(ours - 1, theirs + 1, 152)
    assert equity_slope(ours, theirs, 152) == pytest.approx(change / 4, rel=0.02, abs=1e-6)
    assert equity_slope(ours, theirs, 152) == pytest.approx(equity_slope(theirs, ours, 152))


def test_a_margin_in_points_is_worth_more_near_the_end_of_an_even_match() -> None:
    assert in_score_units(4.0, None, 0, SEEDS) == 4.0
    early = in_score_units(4.0, (0, 0), 0, SEEDS)
    late = in_score_units(4.0, (140, 140), 1, SEEDS)
    assert early == pytest.approx(2 * EQUITY_SCALE * 4 * equity_slope(0, 0, 152))
    assert 0 < early < late
    # A match already won at the totals leaves nothing to play for; level totals over the
    # target play on, and the next round decides, as it nearly does at 151-151.
    assert in_score_units(4.0, (152, 10), 0, SEEDS) == 0.0
    level = in_score_units(4.0, (152, 152), 0, SEEDS)
    assert level == in_score_units(4.0, (160, 160), 1, SEEDS) > late
    assert level == pytest.approx(in_score_units(4.0, (151, 151), 0, SEEDS))


def test_a_redeal_is_worth_the_chance_as_the_totals_stand() -> None:
    assert standing_value(None, 0, SEEDS) == 0.0
    assert standing_value((0, 0), 1, SEEDS) == pytest.approx(0.0)
    behind = standing_value((100, 130), 0, SEEDS)
    assert behind == pytest.approx(EQUITY_SCALE * (2 * match_equity(100, 130, 152) - 1))
    assert behind < 0 < standing_value((100, 130), 1, SEEDS) == pytest.approx(-behind)
