"""The FEDERATION preset's scoring (§A.14): F1 the raw success test with the Baloot, F3 the
conversion of the defenders' points only, F5 projects at Triple and Four, F6 doubled ties.

Every expected number is worked out by hand in the comment beside it.
"""

from __future__ import annotations

import pytest

from baloot_engine.rules.facts import AwardedProject
from baloot_engine.rules.ruleset import (
    FEDERATION,
    SEEDS,
    CardConversion,
    DoubledTieRule,
    ProjectMultiplier,
)
from baloot_engine.rules.scoring import (
    Decision,
    Outcome,
    defenders_counted_points,
    score_round,
)

from .builders import EW, FIFTY, HOKM, NS, SIRA, SUN, facts

COUNTED = SEEDS.replace(card_conversion=CardConversion.DEFENDERS_COUNTED)


# --- F3: only the defenders' card points are converted ------------------------------------


@pytest.mark.parametrize(
    ("abnat", "sun", "expected"),
    [
        # §A.14's examples.
        (65, True, (14, 12)),  # 6.5 -> 7 (5 rounds up) x 2 = 14; 26 - 14 = 12
        (76, False, (8, 8)),  # 7.6 -> 8 (6 rounds up); 16 - 8 = 8
        (86, False, (9, 7)),  # 8.6 -> 9; 16 - 9 = 7
        # More, by the same two rules.
        (64, True, (12, 14)),  # 6.4 -> 6 x 2 = 12; 26 - 12 = 14
        (55, True, (12, 14)),  # 5.5 -> 6 x 2 = 12 (R35 would give 11)
        (45, True, (10, 16)),  # 4.5 -> 5 x 2 = 10 (R35: 9)
        (44, True, (8, 18)),  # 4.4 -> 4 x 2 = 8
        (0, True, (0, 26)),
        (125, True, (26, 0)),  # 12.5 -> 13 x 2 = 26
        (65, False, (6, 10)),  # 6.5 -> 6: a remainder of 5 rounds down in Hokm
        (96, False, (10, 6)),  # 9.6 -> 10
        (15, False, (1, 15)),
        (16, False, (2, 14)),
        (162, False, (16, 0)),
    ],
)
def test_defenders_counted_conversion(abnat: int, sun: bool, expected: tuple[int, int]) -> None:
    assert defenders_counted_points(abnat, sun) == expected


def test_the_defenders_sun_points_are_always_even_and_the_pair_sums_to_the_pot() -> None:
    for abnat in range(131):
        defenders, buyer = defenders_counted_points(abnat, True)
        assert defenders % 2 == 0
        assert defenders + buyer == 26
    for abnat in range(163):
        assert sum(defenders_counted_points(abnat, False)) == 16


def test_a_made_round_scores_the_converted_points_of_each_side() -> None:
    # Sun, buyer EW with 65, NS defend with 65: the defenders' 65 -> 14, the buyer 12. Equal
    # raw points are a tie the buyer keeps (F1, F2).
    score = score_round(facts(SUN, (65, 65), buyer=EW), FEDERATION)
    assert score.success
    assert score.points == (12, 14)
    assert [t.converted_points for t in score.teams] == [12, 14]
    # Hokm, buyer NS 86 against 76: the defenders' 76 -> 8, the buyer 16 - 8 = 8.
    score = score_round(facts(HOKM, (76, 86), buyer=NS), FEDERATION)
    assert score.success
    assert score.points == (8, 8)


def test_defenders_counted_with_the_game_point_test() -> None:
    # SEEDS' game-point test on the converted points: Sun 65-65 gives the buyer 12 against
    # 14, so he fails and NS take the pot of 26.
    score = score_round(facts(SUN, (65, 65), buyer=EW), COUNTED)
    assert not score.success
    assert score.points == (0, 26)
    # Hokm buyer NS 86, EW 76: 8 against 8, then raw 86 > 76: made, 8-8.
    assert score_round(facts(HOKM, (76, 86), buyer=NS), COUNTED).points == (8, 8)


def test_the_same_rounds_under_seeds_convert_each_side() -> None:
    # For comparison: R35 gives 65 -> 13 each; R36 gives 86 -> 9, 76 -> 8.
    assert score_round(facts(SUN, (65, 65), buyer=EW), SEEDS).points == (13, 13)
    assert score_round(facts(HOKM, (76, 86), buyer=NS), SEEDS).points == (8, 9)


def test_hokm_defenders_86_leave_the_buyer_7() -> None:
    # Buyer EW 76 abnat with a Sira (20 raw, 2 GP), NS 86. FEDERATION: raw 96 > 86, made; the
    # defenders' 86 -> 9, the buyer 16 - 9 = 7, plus the Sira 2 = 9. Result 9-9.
    sira = (AwardedProject(EW, SIRA),)
    score = score_round(facts(HOKM, (76, 86), buyer=EW, projects=sira), FEDERATION)
    assert score.success
    assert score.points == (9, 9)
    # SEEDS: 76 -> 8, 86 -> 9; G 8 + 2 = 10 > 9, made: 10-9.
    assert score_round(facts(HOKM, (76, 86), buyer=EW, projects=sira), SEEDS).points == (10, 9)


def test_a_second_hokm_example_with_a_fifty() -> None:
    # Buyer NS 66 abnat with a Fifty (50 raw, 5 GP), EW 96. Raw 116 > 96, made. Defenders'
    # 96 -> 10; buyer 16 - 10 = 6 + 5 = 11. Result 10-11.
    fifty = (AwardedProject(NS, FIFTY),)
    score = score_round(facts(HOKM, (96, 66), buyer=NS, projects=fifty), FEDERATION)
    assert score.points == (10, 11)


def test_a_sun_example_where_the_buyer_gains_on_seeds() -> None:
    # Sun, buyer NS 75, EW 55. Defenders' 55 -> 6 x 2 = 12, buyer 14 (SEEDS: 11 and 15).
    assert score_round(facts(SUN, (55, 75), buyer=NS), FEDERATION).points == (12, 14)
    assert score_round(facts(SUN, (55, 75), buyer=NS), SEEDS).points == (11, 15)


def test_a_failed_round_still_gives_the_fixed_pot() -> None:
    # Hokm, buyer EW 60, NS 102: raw 60 < 102, failed; NS take 16, whatever the conversion.
    score = score_round(facts(HOKM, (60, 102), buyer=EW), FEDERATION)
    assert not score.success
    assert score.points == (0, 16)


# --- F1: raw points with the Baloot ----------------------------------------------------------


def test_the_baloot_counts_in_the_federation_success_test() -> None:
    # Hokm, buyer EW 76 with the Baloot, NS 86. Raw: 76 + 20 = 96 > 86, made. Cards: the
    # defenders' 86 -> 9, buyer 7; the Baloot 2 on top: 9-9.
    score = score_round(facts(HOKM, (76, 86), buyer=EW, baloot_teams=(EW,)), FEDERATION)
    assert score.success
    assert score.decided_by is Decision.RAW_POINTS
    assert score.points == (9, 9)
    # SEEDS (G without the Baloot): 8 < 9, failed; NS take 16, EW keep their Baloot: 2-16.
    seeds = score_round(facts(HOKM, (76, 86), buyer=EW, baloot_teams=(EW,)), SEEDS)
    assert seeds.points == (2, 16)


def test_an_equal_raw_total_is_a_tie_the_buyer_keeps() -> None:
    # Hokm, buyer EW 71 + Baloot 20 = 91 against NS 91: equal, the buyer keeps it. Cards: the
    # defenders' 91 -> 9, the buyer 7, + Baloot 2 = 9. Result 9-9.
    score = score_round(facts(HOKM, (71, 91), buyer=EW, baloot_teams=(EW,)), FEDERATION)
    assert score.success
    assert score.points == (9, 9)


# --- F5: projects at Double only -------------------------------------------------------------

# Hokm, buyer NS 92 abnat with a Fifty and a Sira (5 + 2 = 7 GP), EW 70 with the Baloot.
# Made at every level (raw 162 against 70 + 20); the winner takes the pot 16 x m.
PROJECTS = (AwardedProject(NS, FIFTY), AwardedProject(NS, SIRA))


@pytest.mark.parametrize(
    ("m", "expected"),
    [
        # Undoubled: EW's 70 -> 7 + Baloot 2 = 9; NS 16 - 7 = 9 + 7 = 16.
        (1, (9, 16)),
        (2, (2, 46)),  # 16 x 2 + 7 x 2 = 32 + 14; EW keep the Baloot's 2
        (3, (2, 55)),  # 16 x 3 + 7 = 48 + 7: projects x1 at Triple
        (4, (2, 71)),  # 16 x 4 + 7 = 64 + 7: projects x1 at Four
    ],
)
def test_projects_are_doubled_at_double_and_not_multiplied_at_triple_or_four(
    m: int, expected: tuple[int, int]
) -> None:
    round_facts = facts(
        HOKM, (70, 92), buyer=NS, projects=PROJECTS, baloot_teams=(EW,), multiplier=m
    )
    score = score_round(round_facts, FEDERATION)
    assert score.success
    assert score.points == expected
    assert score.teams[NS].project_points == (14 if m == 2 else 7)
    assert score.teams[EW].baloot_points == 2  # never multiplied


def test_double_only_alone_against_the_full_multiplier() -> None:
    # The same Triple under SEEDS: (16 + 7) x 3 = 69; with double_only alone: 48 + 7 = 55.
    round_facts = facts(
        HOKM, (70, 92), buyer=NS, projects=PROJECTS, baloot_teams=(EW,), multiplier=3
    )
    assert score_round(round_facts, SEEDS).points == (2, 69)
    rules = SEEDS.replace(project_multiplier=ProjectMultiplier.DOUBLE_ONLY)
    assert score_round(round_facts, rules).points == (2, 55)


# --- F6: a doubled tie is lost by the side that made the last raise -------------------------


@pytest.mark.parametrize(
    ("m", "gahwa", "made", "points"),
    [
        (2, False, True, (32, 0)),  # the defenders doubled last: the buyer EW takes 16 x 2
        (3, False, False, (0, 48)),  # the buyer tripled last: NS take 16 x 3
        (4, False, True, (64, 0)),  # the defenders called Four last: EW take 16 x 4
        (4, True, False, (0, 0)),  # the buyer called Gahwa last: NS win the match
    ],
)
def test_federation_doubled_hokm_tie(
    m: int, gahwa: bool, made: bool, points: tuple[int, int]
) -> None:
    # Hokm 81-81, buyer EW: equal raw points.
    score = score_round(facts(HOKM, (81, 81), buyer=EW, multiplier=m, gahwa=gahwa), FEDERATION)
    assert score.success is made
    assert score.decided_by is Decision.DOUBLED_TIE
    assert score.points == points
    if gahwa:
        assert score.outcome is Outcome.GAHWA_LOST
        assert score.gahwa_winner == NS
    # SEEDS: the doubling team loses every doubled tie.
    seeds = score_round(facts(HOKM, (81, 81), buyer=EW, multiplier=m, gahwa=gahwa), SEEDS)
    assert seeds.success


def test_a_doubled_sun_tie_goes_to_the_buyer() -> None:
    # Sun 65-65 doubled: the defenders made the only raise and lose it: 26 x 2 = 52 to EW.
    score = score_round(facts(SUN, (65, 65), buyer=EW, multiplier=2), FEDERATION)
    assert score.success
    assert score.points == (52, 0)


def test_last_raiser_loses_with_the_game_point_test() -> None:
    # SEEDS but last_raiser_loses: Hokm buyer EW 85, NS 77 -> 8 and 8 game points, a tie.
    rules = SEEDS.replace(doubled_tie_rule=DoubledTieRule.LAST_RAISER_LOSES)
    tripled = score_round(facts(HOKM, (85, 77), buyer=EW, multiplier=3), rules)
    assert not tripled.success
    assert tripled.points == (0, 48)
    assert "last raise" in tripled.reason
    doubled = score_round(facts(HOKM, (85, 77), buyer=EW, multiplier=2), rules)
    assert doubled.success
    assert doubled.points == (32, 0)
