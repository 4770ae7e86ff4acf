"""Round scoring (R32-R43, §A.10, §A.13): conversions, success test, allocation, doubling,
kaboot, Gahwa, Baloot, validation of hand-given facts, and worked examples.

Seats follow the rules document's examples with the dealer at South: E = 0 (dealer's right),
N = 1, W = 2, S = 3, so team 0 is East-West and team 1 is North-South.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given

from baloot_engine.rules.actions import Bid, BidKind, Deal, Doubling, DoublingCall, Play
from baloot_engine.rules.cards import ACES, PLAIN_STRENGTH
from baloot_engine.rules.contract import ContractType
from baloot_engine.rules.facts import (
    AwardedProject,
    RoundFacts,
)
from baloot_engine.rules.game import apply, legal_actions, new_match
from baloot_engine.rules.ruleset import (
    KAMMELNA,
    SEEDS,
    BalootOnFailure,
    DoubledAllocation,
    ExactTieRule,
    HokmRounding,
    KabootDoubling,
    KabootProjects,
    ProjectMultiplier,
    RuleSet,
    SuccessMetric,
)
from baloot_engine.rules.scoring import (
    Decision,
    Outcome,
    hokm_points,
    score_round,
    sun_points,
)
from baloot_engine.rules.state import Phase, State

from .builders import (
    EW,
    FIFTY,
    HOKM,
    HUNDRED,
    NS,
    SIRA,
    SUN,
    facts,
    kaboot,
)
from .strategies import played_rounds, random_deck, rule_sets

# --- CV1, CV2: conversions ---------------------------------------------------------------------

CV1 = {
    0: 0, 20: 4, 32: 6, 44: 8, 45: 9, 46: 10, 54: 10, 55: 11, 56: 12, 59: 12, 60: 12, 61: 12,
    64: 12, 65: 13, 66: 14, 69: 14, 70: 14, 75: 15, 76: 16, 85: 17, 98: 20, 130: 26,
}  # fmt: skip


@pytest.mark.parametrize(("abnat", "points"), sorted(CV1.items()))
def test_cv1_sun_conversion(abnat: int, points: int) -> None:
    assert sun_points(abnat) == points


def test_sun_conversion_of_a_split_always_sums_to_26() -> None:
    for abnat in range(131):
        assert sun_points(abnat) + sun_points(130 - abnat) == 26, abnat


CV2 = [
    ((52, 110), (5, 11), (5, 11)),
    ((62, 100), (6, 10), (6, 10)),
    ((72, 90), (7, 9), (7, 9)),
    ((80, 82), (8, 8), (8, 8)),
    ((81, 81), (8, 8), (8, 8)),
    ((85, 77), (8, 8), (8, 8)),
    ((86, 76), (9, 8), (8, 8)),
    ((87, 75), (9, 7), (9, 7)),
    ((96, 66), (10, 7), (9, 7)),
    ((106, 56), (11, 6), (10, 6)),
    ((115, 47), (11, 5), (11, 5)),
    ((126, 36), (13, 4), (12, 4)),
]


@pytest.mark.parametrize(("pair", "independent", "pair_sum_16"), CV2)
def test_cv2_hokm_conversion(
    pair: tuple[int, int], independent: tuple[int, int], pair_sum_16: tuple[int, int]
) -> None:
    a, b = pair
    assert hokm_points(a, b, HokmRounding.INDEPENDENT) == independent
    assert hokm_points(a, b, HokmRounding.PAIR_SUM_16) == pair_sum_16
    # The table is symmetric: swapping the teams swaps the points.
    assert hokm_points(b, a, HokmRounding.PAIR_SUM_16) == pair_sum_16[::-1]


def test_hokm_pair_sum_16_always_sums_to_16() -> None:
    for a in range(163):
        assert sum(hokm_points(a, 162 - a, HokmRounding.PAIR_SUM_16)) == 16, a
        assert sum(hokm_points(a, 162 - a, HokmRounding.INDEPENDENT)) in (16, 17), a


# --- R37/R38: the success test and an undoubled success -----------------------------------------


def test_undoubled_success_each_keeps_its_own_points_which_may_sum_17() -> None:
    score = score_round(facts(HOKM, (96, 66)), SEEDS)
    assert score.success
    assert score.outcome is Outcome.MADE
    assert score.decided_by is Decision.GAME_POINTS
    assert score.points == (10, 7)
    assert score_round(facts(HOKM, (96, 66)), KAMMELNA).points == (9, 7)
    assert "made" in score.reason


def test_undoubled_success_keeps_own_projects() -> None:
    # Sun 80 / 50 → 16 / 10; the buyer's Fifty adds 10.
    score = score_round(facts(SUN, (80, 50), projects=(AwardedProject(0, FIFTY),)), SEEDS)
    assert score.points == (26, 10)
    assert score.teams[0].project_points == 10
    assert score.teams[0].compared_points == 26


def test_defenders_projects_can_make_the_buyer_fail() -> None:
    # Sun 80 / 50 → 16 / 10, but the defenders' Fifty makes it 16 / 20.
    score = score_round(facts(SUN, (80, 50), projects=(AwardedProject(1, FIFTY),)), SEEDS)
    assert not score.success
    assert score.points == (0, 26 + 10)


def test_equal_game_points_go_to_more_raw_points() -> None:
    # Hokm 85 / 77 → 8 / 8: the team with more raw points wins.
    made = score_round(facts(HOKM, (85, 77)), SEEDS)
    assert made.success
    assert made.decided_by is Decision.RAW_POINTS
    assert made.points == (8, 8)
    failed = score_round(facts(HOKM, (77, 85)), SEEDS)
    assert not failed.success
    assert failed.decided_by is Decision.RAW_POINTS
    assert failed.points == (0, 16)


# --- R39: failure ------------------------------------------------------------------------------


def test_hokm_failure_gives_the_pot_and_every_awarded_project_to_the_defenders() -> None:
    # 70 / 92 → 7 / 9; the buyer's own Sira (2) makes 9 / 9 and raw 90 / 92: still a failure,
    # and the Sira goes to the defenders with the pot of 16.
    score = score_round(facts(HOKM, (70, 92), projects=(AwardedProject(0, SIRA),)), SEEDS)
    assert not score.success
    assert score.outcome is Outcome.FAILED
    assert score.points == (0, 18)
    assert score.teams[1].card_points == 16
    assert score.teams[1].project_points == 2


def test_sun_failure_pot_is_26() -> None:
    score = score_round(facts(SUN, (60, 70)), SEEDS)
    assert score.points == (0, 26)


def test_failure_pot_is_fixed_even_when_shares_would_sum_17() -> None:
    # 76 / 86 → 8 / 9 = 17 under independent rounding, but the pot is 16 (§A.13 item 1).
    score = score_round(facts(HOKM, (76, 86)), SEEDS)
    assert score.points == (0, 16)


def test_a_doubled_success_takes_the_pot_even_when_shares_would_sum_17() -> None:
    # 86 / 76 -> 9 / 8 = 17 under independent rounding; a doubled round under winner_takes_all
    # gives the winner the pot 16 x m, not the shares' 17 x m (§A.13 item 1).
    for m in (2, 3, 4):
        assert score_round(facts(HOKM, (86, 76), multiplier=m), SEEDS).points == (16 * m, 0)
        assert score_round(facts(HOKM, (76, 86), multiplier=m), SEEDS).points == (0, 16 * m)
    # Undoubled, each team keeps its own rounded points, which may sum to 17.
    assert score_round(facts(HOKM, (86, 76)), SEEDS).points == (9, 8)


# --- R31: Baloot -------------------------------------------------------------------------------


def test_baloot_on_failure_kept_by_owner_or_to_winner() -> None:
    failed = facts(HOKM, (60, 102), baloot_teams=(0,))
    assert score_round(failed, SEEDS).points == (2, 16)
    to_winner = SEEDS.replace(baloot_on_failure=BalootOnFailure.TO_WINNER)
    assert score_round(failed, to_winner).points == (0, 18)
    assert score_round(failed, KAMMELNA).points == (0, 18)
    # A defender's Baloot stays with the defenders whatever the flag.
    defenders = facts(HOKM, (60, 102), baloot_teams=(1,))
    assert score_round(defenders, SEEDS).points == (0, 18)
    assert score_round(defenders, to_winner).points == (0, 18)


def test_defenders_keep_their_baloot_when_the_buyer_makes_it() -> None:
    made = facts(HOKM, (100, 62), baloot_teams=(1,))
    for rules in (SEEDS, KAMMELNA):
        assert score_round(made, rules).points == (10, 8)


def test_baloot_is_not_in_the_success_test_unless_the_flag_says_so() -> None:
    # 76 / 86 → 8 / 9: a failure; with the buyer's Baloot counted, 10 / 9 and raw 96 / 86.
    round_facts = facts(HOKM, (76, 86), baloot_teams=(0,))
    assert not score_round(round_facts, SEEDS).success
    counted = score_round(round_facts, SEEDS.replace(baloot_in_success_test=True))
    assert counted.success
    assert counted.teams[0].compared_points == 10
    assert counted.teams[0].compared_raw == 96
    # The Baloot is still scored once: 8 card points + 2.
    assert counted.points == (10, 9)
    # A defender's Baloot counts for the defenders: 9 / 8 + 2 = 9 / 10.
    against = facts(HOKM, (86, 76), baloot_teams=(1,))
    assert score_round(against, SEEDS).success
    assert not score_round(against, SEEDS.replace(baloot_in_success_test=True)).success


# --- R40: doubling -----------------------------------------------------------------------------


@pytest.mark.parametrize("m", [2, 3, 4])
def test_hokm_doubled_success_winner_takes_all_projects_multiplied_baloot_not(m: int) -> None:
    # 100 / 62 → 10 / 6 with the buyer's Fifty (5) and Baloot: (16 + 5) × m + 2.
    round_facts = facts(
        HOKM, (100, 62), multiplier=m, projects=(AwardedProject(0, FIFTY),), baloot_teams=(0,)
    )
    score = score_round(round_facts, SEEDS)
    assert score.success
    assert score.points == ((16 + 5) * m + 2, 0)
    assert score.teams[0].baloot_points == 2


@pytest.mark.parametrize("m", [2, 3, 4])
def test_hokm_doubled_failure(m: int) -> None:
    # 60 / 102 → 6 / 10; the buyer's Sira makes 8 / 10: the defenders take (16 + 2) × m and
    # the buyer keeps his Baloot.
    round_facts = facts(
        HOKM, (60, 102), multiplier=m, projects=(AwardedProject(0, SIRA),), baloot_teams=(0,)
    )
    assert score_round(round_facts, SEEDS).points == (2, (16 + 2) * m)


def test_sun_double() -> None:
    round_facts = facts(SUN, (80, 50), multiplier=2, projects=(AwardedProject(0, SIRA),))
    assert score_round(round_facts, SEEDS).points == ((26 + 4) * 2, 0)
    assert score_round(facts(SUN, (50, 80), multiplier=2), SEEDS).points == (0, 52)


@pytest.mark.parametrize("m", [2, 3, 4])
def test_doubled_tie_goes_to_the_buyer(m: int) -> None:
    # 77 / 85 → 8 / 8: undoubled the buyer fails on raw points; doubled the doublers lose.
    assert not score_round(facts(HOKM, (77, 85)), SEEDS).success
    score = score_round(facts(HOKM, (77, 85), multiplier=m), SEEDS)
    assert score.success
    assert score.decided_by is Decision.DOUBLED_TIE
    assert score.points == (16 * m, 0)


def test_sun_doubled_tie_goes_to_the_buyer_even_under_kammelna() -> None:
    score = score_round(facts(SUN, (65, 65), multiplier=2), KAMMELNA)
    assert score.success
    assert score.points == (52, 0)


def test_own_shares_allocation() -> None:
    # §A.13 item 4: success → each team its own G × m; failure → the defenders pot × m.
    own = SEEDS.replace(doubled_allocation=DoubledAllocation.OWN_SHARES)
    made = facts(HOKM, (100, 62), multiplier=2, projects=(AwardedProject(0, FIFTY),))
    assert score_round(made, SEEDS).points == (42, 0)
    assert score_round(made, own).points == ((10 + 5) * 2, 6 * 2)
    failed = facts(HOKM, (60, 102), multiplier=3, projects=(AwardedProject(1, FIFTY),))
    assert score_round(failed, own).points == (0, (16 + 5) * 3)
    # Undoubled, the flag changes nothing.
    assert score_round(replace(made, multiplier=1), own).points == (15, 6)


def test_project_multiplier_cap_at_2() -> None:
    capped = SEEDS.replace(project_multiplier=ProjectMultiplier.CAP_AT_2)
    four = facts(HOKM, (100, 62), multiplier=4, projects=(AwardedProject(0, FIFTY),))
    assert score_round(four, SEEDS).points == (16 * 4 + 5 * 4, 0)
    assert score_round(four, capped).points == (16 * 4 + 5 * 2, 0)
    double = replace(four, multiplier=2)
    assert score_round(double, capped).points == score_round(double, SEEDS).points == (42, 0)


# --- R37: exact ties ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "contract", "abnat", "success", "points"),
    [
        (ExactTieRule.BUYER_WINS, SUN, (65, 65), True, (13, 13)),
        (ExactTieRule.BUYER_WINS, HOKM, (81, 81), True, (8, 8)),
        (ExactTieRule.KAMMELNA, SUN, (65, 65), True, (13, 13)),
        (ExactTieRule.KAMMELNA, HOKM, (81, 81), False, (0, 16)),
        (ExactTieRule.BUYER_LOSES, SUN, (65, 65), False, (0, 26)),
        (ExactTieRule.BUYER_LOSES, HOKM, (81, 81), False, (0, 16)),
    ],
)
def test_exact_tie_rules(
    rule: ExactTieRule,
    contract: ContractType,
    abnat: tuple[int, int],
    success: bool,
    points: tuple[int, int],
) -> None:
    score = score_round(facts(contract, abnat), SEEDS.replace(exact_tie_rule=rule))
    assert score.success is success
    assert score.decided_by is Decision.EXACT_TIE
    assert score.points == points
    assert rule.value in score.reason


def test_exact_tie_with_projects_on_one_side_is_no_tie() -> None:
    # Hokm 71 / 91 with the buyer's Sira... 7 + 2 = 9 / 9 and raw 91 / 91: an exact tie.
    tie = facts(HOKM, (71, 91), projects=(AwardedProject(0, SIRA),))
    assert score_round(tie, SEEDS).decided_by is Decision.EXACT_TIE
    assert score_round(tie, SEEDS.replace(exact_tie_rule=ExactTieRule.BUYER_LOSES)).points == (
        0,
        18,
    )


def test_raw_half_success_metric() -> None:
    raw_half = SEEDS.replace(success_metric=SuccessMetric.RAW_HALF)
    # Undoubled the two metrics agree: 85 / 77 made, 77 / 85 failed.
    assert score_round(facts(HOKM, (85, 77)), raw_half).success
    assert not score_round(facts(HOKM, (77, 85)), raw_half).success
    # Doubled they differ: 77 / 85 ties at 8 GP (a doubled tie, buyer wins) but not on raw.
    doubled = facts(HOKM, (77, 85), multiplier=2)
    assert score_round(doubled, SEEDS).success
    failed = score_round(doubled, raw_half)
    assert not failed.success
    assert failed.decided_by is Decision.RAW_POINTS
    assert failed.points == (0, 32)
    # Under raw_half, half or more makes it (R37: Raw_buyer >= Raw_def), whatever the exact
    # tie rule of the gp metric says; a doubled raw tie goes to the buyer (§A.13 item 3).
    assert score_round(facts(HOKM, (81, 81)), raw_half).success
    kammelna_tie = raw_half.replace(exact_tie_rule=ExactTieRule.KAMMELNA)
    assert score_round(facts(HOKM, (81, 81)), kammelna_tie).success
    losing_tie = raw_half.replace(exact_tie_rule=ExactTieRule.BUYER_LOSES)
    assert score_round(facts(HOKM, (81, 81)), losing_tie).success
    assert not score_round(facts(HOKM, (80, 82)), losing_tie).success
    assert score_round(facts(HOKM, (81, 81), multiplier=3), kammelna_tie).success


# --- R42/R43: kaboot ---------------------------------------------------------------------------


def test_kaboot_values() -> None:
    sun = score_round(kaboot(SUN, 0), SEEDS)
    assert sun.points == (44, 0)
    assert sun.outcome is Outcome.KABOOT
    assert sun.kaboot_team == 0
    hokm = score_round(kaboot(HOKM, 0), SEEDS)
    assert hokm.points == (25, 0)
    against = score_round(kaboot(HOKM, 1), SEEDS)
    assert against.points == (0, 25)
    assert against.outcome is Outcome.KABOOT_AGAINST
    assert not against.success


@pytest.mark.parametrize("m", [2, 3, 4])
def test_kaboot_flat_or_multiplied(m: int) -> None:
    round_facts = kaboot(
        HOKM, 0, multiplier=m, projects=(AwardedProject(0, FIFTY),), baloot_teams=(0,)
    )
    assert score_round(round_facts, SEEDS).points == (25 + 5 + 2, 0)
    multiplied = SEEDS.replace(kaboot_doubling=KabootDoubling.MULTIPLIED)
    assert score_round(round_facts, multiplied).points == (25 * m + 5 * m + 2, 0)
    capped = multiplied.replace(project_multiplier=ProjectMultiplier.CAP_AT_2)
    assert score_round(round_facts, capped).points == (25 * m + 5 * min(m, 2) + 2, 0)


@pytest.mark.parametrize("m", [2, 3, 4])
def test_multiplied_kaboot_multiplies_the_transferred_projects(m: int) -> None:
    # The defenders take every trick of a doubled Hokm: under kabootDoubling = multiplied the
    # buyer's Fifty, transferred to them, is multiplied with the kaboot value; his Baloot
    # transfers too and is never multiplied (§A.13 items 2 and 5).
    round_facts = kaboot(
        HOKM, 1, multiplier=m, projects=(AwardedProject(0, FIFTY),), baloot_teams=(0,)
    )
    multiplied = SEEDS.replace(kaboot_doubling=KabootDoubling.MULTIPLIED)
    assert score_round(round_facts, multiplied).points == (0, 25 * m + 5 * m + 2)
    capped = multiplied.replace(project_multiplier=ProjectMultiplier.CAP_AT_2)
    assert score_round(round_facts, capped).points == (0, 25 * m + 5 * min(m, 2) + 2)
    assert score_round(round_facts, SEEDS).points == (0, 25 + 5 + 2)


def test_sun_kaboot_multiplied() -> None:
    multiplied = SEEDS.replace(kaboot_doubling=KabootDoubling.MULTIPLIED)
    assert score_round(kaboot(SUN, 1, multiplier=2), multiplied).points == (0, 88)
    assert score_round(kaboot(SUN, 1, multiplier=2), SEEDS).points == (0, 44)


@pytest.mark.parametrize(
    ("kaboot_team", "owner", "baloot", "seed000", "all_awarded"),
    [
        # The buyer (team 0) takes every trick.
        (0, 0, 0, 25 + 5 + 2, 25 + 5 + 2),  # own projects and own Baloot: always
        (0, 1, 1, 25, 25 + 5 + 2),  # defenders' projects and Baloot: only with all_awarded
        (0, 0, 1, 25 + 5, 25 + 5 + 2),  # own projects; the defenders' Baloot as above
        # The defenders (team 1) take every trick: the buyer's projects and Baloot transfer.
        (1, 0, 0, 25 + 5 + 2, 25 + 5 + 2),
        (1, 1, 1, 25 + 5 + 2, 25 + 5 + 2),
        (1, 1, 0, 25 + 5 + 2, 25 + 5 + 2),
    ],
)
def test_kaboot_projects_and_baloot(
    kaboot_team: int, owner: int, baloot: int, seed000: int, all_awarded: int
) -> None:
    round_facts = kaboot(
        HOKM, kaboot_team, projects=(AwardedProject(owner, FIFTY),), baloot_teams=(baloot,)
    )
    for rule, expected in (
        (KabootProjects.SEED000, seed000),
        (KabootProjects.ALL_AWARDED, all_awarded),
    ):
        score = score_round(round_facts, SEEDS.replace(kaboot_projects=rule))
        assert score.points[kaboot_team] == expected
        assert score.points[1 - kaboot_team] == 0


def test_kaboot_in_sun_with_defenders_projects() -> None:
    # Sun kaboot by the defenders with the buyer's Hundred (20): 44 + 20.
    round_facts = kaboot(SUN, 1, projects=(AwardedProject(0, HUNDRED),))
    assert score_round(round_facts, SEEDS).points == (0, 64)


def test_reverse_kaboot() -> None:
    round_facts = kaboot(SUN, 1, buyer=0, multiplier=2, reverse_kaboot=True)
    on = SEEDS.replace(reverse_kaboot=True)
    score = score_round(round_facts, on)
    assert score.outcome is Outcome.REVERSE_KABOOT
    assert score.points == (0, 88)
    # Never doubled, even where kaboots are.
    multiplied = on.replace(kaboot_doubling=KabootDoubling.MULTIPLIED)
    assert score_round(replace(round_facts, multiplier=1), multiplied).points == (0, 88)
    assert score_round(round_facts, multiplied).points == (0, 88)
    # With the flag off it is an ordinary kaboot.
    assert score_round(round_facts, SEEDS).points == (0, 44)
    assert score_round(round_facts, SEEDS).outcome is Outcome.KABOOT_AGAINST


# --- R41: Gahwa --------------------------------------------------------------------------------


def test_gahwa_won_and_lost() -> None:
    won = score_round(facts(HOKM, (100, 62), multiplier=4, gahwa=True, baloot_teams=(1,)), SEEDS)
    assert won.outcome is Outcome.GAHWA_WON
    assert won.gahwa_winner == 0
    assert won.points == (0, 0)
    assert all(t.baloot_points == 0 for t in won.teams)
    lost = score_round(facts(HOKM, (60, 102), multiplier=4, gahwa=True), SEEDS)
    assert lost.outcome is Outcome.GAHWA_LOST
    assert lost.gahwa_winner == 1
    assert lost.points == (0, 0)


def test_gahwa_tie_goes_to_the_buyer() -> None:
    score = score_round(facts(HOKM, (77, 85), multiplier=4, gahwa=True), KAMMELNA)
    assert score.gahwa_winner == 0


def test_gahwa_kaboot_team_wins_the_match_whatever_the_projects() -> None:
    # The buyer takes every trick (16 GP) but the defenders were awarded two Hundreds (20):
    # the kaboot still decides (§A.10 step 2), and no kaboot value is scored.
    round_facts = kaboot(
        HOKM,
        0,
        multiplier=4,
        gahwa=True,
        projects=(AwardedProject(1, HUNDRED), AwardedProject(1, HUNDRED)),
    )
    score = score_round(round_facts, SEEDS)
    assert score.gahwa_winner == 0
    assert score.outcome is Outcome.GAHWA_WON
    assert score.points == (0, 0)
    assert score_round(kaboot(HOKM, 1, multiplier=4, gahwa=True), SEEDS).gahwa_winner == 1


# --- worked examples (numbers of our own, for docs/rules.md) ----------------------------------


def test_worked_example_doubled_hokm_made_with_a_fifty() -> None:
    # Hokm ♥ doubled (×2). Buyer NS (team 1) took 74 abnat incl. the last trick, EW 88.
    # Cards: 74 → 7 (7.4 rounds down), 88 → 9 (8.8 rounds up). NS's Fifty won the project
    # comparison: G = 7 + 5 = 12 against 9, so the contract is made. Doubled, winner takes all:
    # (16 + 5) × 2 = 42 for NS. EW held the Baloot: it stays theirs, unmultiplied: 2.
    round_facts = facts(
        HOKM,
        (88, 74),
        buyer=NS,
        multiplier=2,
        projects=(AwardedProject(NS, FIFTY),),
        baloot_teams=(EW,),
    )
    score = score_round(round_facts, SEEDS)
    assert score.success
    assert score.teams[NS].compared_points == 12
    assert score.points == (2, 42)


def test_worked_example_sun_failed() -> None:
    # Sun, buyer EW (team 0): 63 abnat against 67. 63 → 12 (63 = 12 × 5 + 3, 12 even: round
    # down to 60), 67 → 14 (13 × 5 + 2, 13 odd: round up to 70). NS also won the projects with
    # a Sira (4). G = 12 against 18: failed. NS take the pot of 26 plus the Sira: 30.
    round_facts = facts(SUN, (63, 67), buyer=EW, projects=(AwardedProject(NS, SIRA),))
    score = score_round(round_facts, SEEDS)
    assert (score.teams[0].converted_points, score.teams[1].converted_points) == (12, 14)
    assert not score.success
    assert score.points == (0, 30)


def test_worked_example_rounding_presets() -> None:
    # Hokm, buyer EW: 86 against 76. Seeds (independent): 8.6 → 9 and 7.6 → 8, total 17,
    # made 9 to 8. Kammelna (pair sums to 16): the team with more abnat gives the extra point
    # back, 8 to 8; equal game points, EW has more raw points (86 > 76): made, 8 to 8.
    round_facts = facts(HOKM, (86, 76), buyer=EW)
    assert score_round(round_facts, SEEDS).points == (9, 8)
    kammelna = score_round(round_facts, KAMMELNA)
    assert kammelna.decided_by is Decision.RAW_POINTS
    assert kammelna.points == (8, 8)


def test_worked_example_kaboot_against_the_buyer() -> None:
    # Hokm ×2, buyer EW holds a Sira (awarded) and NS's Baloot; NS take all eight tricks.
    # Seeds (flat): 25 + the buyer's Sira 2 + Baloot 2 = 29 for NS; the ×2 is ignored.
    # Multiplied: 25 × 2 + 2 × 2 + 2 (Baloot never multiplied) = 56.
    round_facts = kaboot(
        HOKM, NS, buyer=EW, multiplier=2, projects=(AwardedProject(EW, SIRA),), baloot_teams=(NS,)
    )
    assert score_round(round_facts, SEEDS).points == (0, 29)
    multiplied = SEEDS.replace(kaboot_doubling=KabootDoubling.MULTIPLIED)
    assert score_round(round_facts, multiplied).points == (0, 56)


def test_worked_example_exact_ties_under_kammelna() -> None:
    # 65-65 in Sun is a split (13 each); 81-81 in Hokm is a failure: the defenders take 16.
    assert score_round(facts(SUN, (65, 65)), KAMMELNA).points == (13, 13)
    assert score_round(facts(HOKM, (81, 81)), KAMMELNA).points == (0, 16)


def test_reason_explains_the_result() -> None:
    score = score_round(facts(HOKM, (60, 102), multiplier=3, baloot_teams=(0,)), SEEDS)
    assert "failed" in score.reason
    assert "6 game points against 10" in score.reason
    assert "x 3" in score.reason
    assert "Baloot" in score.reason


# --- properties over random played rounds --------------------------------------------------------


@given(played_rounds(), rule_sets)
def test_scoring_properties(round_facts: RoundFacts, rules: RuleSet) -> None:
    sun = round_facts.contract is SUN
    assert sum(round_facts.card_abnat) == (130 if sun else 162)
    score = score_round(round_facts, rules)
    buyer = round_facts.buyer_team
    assert score.reason
    assert min(score.points) >= 0
    for team, team_score in enumerate(score.teams):
        assert team_score.points == score.points[team]
        assert team_score.points == (
            team_score.card_points + team_score.project_points + team_score.baloot_points
        )
    if round_facts.gahwa:
        assert score.points == (0, 0)
        assert score.gahwa_winner == (buyer if score.success else 1 - buyer)
        return
    assert score.gahwa_winner is None
    if score.kaboot_team is not None:
        assert score.points[1 - score.kaboot_team] == 0
        assert score.success is (score.kaboot_team == buyer)
        return
    converted = tuple(t.converted_points for t in score.teams)
    card_points = tuple(t.card_points for t in score.teams)
    if score.success and round_facts.multiplier == 1:
        # An undoubled success: each team keeps its own converted card points.
        assert card_points == converted
        if sun:
            assert sum(card_points) == 26
        elif rules.hokm_rounding is HokmRounding.PAIR_SUM_16:
            assert sum(card_points) == 16
    if not score.success:
        # A failure: the buyer scores nothing but, when kept by its owner, his own Baloot.
        keeps = (
            round_facts.baloot_teams == (buyer,)
            and rules.baloot_on_failure is BalootOnFailure.KEPT_BY_OWNER
        )
        assert score.points[buyer] == (2 if keeps else 0)
        assert card_points[1 - buyer] == (26 if sun else 16) * round_facts.multiplier
    # The success test is consistent with the compared totals.
    b, d = score.teams[buyer], score.teams[1 - buyer]
    if rules.success_metric is SuccessMetric.GP and b.compared_points != d.compared_points:
        assert score.success is (b.compared_points > d.compared_points)
    if rules.success_metric is SuccessMetric.RAW_HALF and b.compared_raw != d.compared_raw:
        assert score.success is (b.compared_raw > d.compared_raw)


def _sun_played_low(rules: RuleSet, deck: tuple[int, ...], buyer: int) -> tuple[State, bool] | None:
    """Dealer 0; ``buyer`` buys Sun in round 1 (the seats before him pass); then the
    defenders play their highest legal card and the buyers their lowest: the scored round and
    whether the buyer's eight cards held an Ace, or None when the bidding went otherwise."""
    state = new_match(rules, dealer=0)
    state, _ = apply(state, 0, Deal(deck))
    for seat in range(1, 5):
        seat &= 3
        if seat == buyer:
            break
        state, _ = apply(state, seat, Bid(BidKind.PASS))
    state, _ = apply(state, buyer, Bid(BidKind.SUN))
    while state.phase is Phase.DOUBLING:
        state, _ = apply(state, state.turn, Doubling(DoublingCall.DECLINE))
    if state.phase is not Phase.PLAYING:
        return None
    held_ace = state.full_hands[buyer] & ACES != 0
    while state.phase is Phase.PLAYING:
        seat = state.turn
        plays = [a for a in legal_actions(state, seat) if isinstance(a, Play)]
        strength = PLAIN_STRENGTH.__getitem__
        follows = bool(state.trick) and plays[0].card >> 3 == state.trick[0] >> 3
        # The defenders their highest; the buyers their lowest, but a void buyer throws his
        # highest (an Ace it would win with later).
        choose = max if seat & 1 != buyer & 1 or (state.trick and not follows) else min
        state, _ = apply(state, seat, choose(plays, key=lambda a: strength(a.card & 7)))
    return state, held_ace


@pytest.mark.parametrize("buyer", [1, 3])
def test_a_played_round_is_a_reverse_kaboot_only_for_the_dealers_right_holding_an_ace(
    buyer: int,
) -> None:
    # R43 on a played round: the Sun's buyer is the dealer's right (seat 1, dealer 0), he held
    # an Ace, and his team took no trick: 88 to the defenders. Bought by another seat (3), or
    # with the flag off, it is an ordinary kaboot of 44.
    on = SEEDS.replace(reverse_kaboot=True)
    rng = random.Random(43)
    seen = 0
    for _ in range(300):
        deck = random_deck(rng)
        played = _sun_played_low(on, deck, buyer)
        if played is None or played[0].last_score is None:
            continue
        score = played[0].last_score
        if score.facts.tricks_won[buyer & 1] != 0:
            continue
        if not played[1]:  # no Ace: an ordinary kaboot whoever bought
            assert score.outcome is Outcome.KABOOT_AGAINST
            continue
        seen += 1
        if buyer == 1:
            assert score.outcome is Outcome.REVERSE_KABOOT
            assert score.points[1 - (buyer & 1)] == 88
        else:
            assert score.outcome is Outcome.KABOOT_AGAINST
            assert score.points[1 - (buyer & 1)] == 44
        off = _sun_played_low(SEEDS, deck, buyer)
        assert off is not None
        assert off[0].last_score is not None
        assert off[0].last_score.outcome is Outcome.KABOOT_AGAINST
    assert seen >= 1
