"""Projects: detection (R24-R27), the best choice (§A.13 item 6), declarations (R28),
comparison (R29) and Baloot (R31)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baloot_engine.rules.cards import (
    ACE,
    CLUBS,
    HEARTS,
    JACK,
    KING,
    NINE,
    QUEEN,
    SPADES,
    TEN,
    card_of,
    mask_of,
    parse_cards,
)
from baloot_engine.rules.contract import NO_TRUMP
from baloot_engine.rules.errors import (
    INVALID_ACTION,
    PROJECT_NOT_HELD,
    ErrorKind,
    RuleError,
)
from baloot_engine.rules.facts import AwardedProject, baloot_teams_for
from baloot_engine.rules.projects import (
    Project,
    ProjectKind,
    baloot_absorbed,
    baloot_project,
    best_projects,
    compare_declarations,
    find_candidates,
    has_baloot,
    may_hold_project,
    project_rank,
    projects_for_declaration,
    team_projects,
    usable_candidates,
    winning_seat,
)
from baloot_engine.rules.ruleset import FEDERATION, KAMMELNA, SEEDS, RuleSet

from .strategies import hand_masks, trumps

SIRA = ProjectKind.SIRA
FIFTY = ProjectKind.FIFTY
HUNDRED = ProjectKind.HUNDRED
FOUR_HUNDRED = ProjectKind.FOUR_HUNDRED
BALOOT = ProjectKind.BALOOT
NO_SPLIT = SEEDS.replace(split_long_runs=False)


def cards(text: str) -> int:
    """The mask of space-separated card codes."""
    return mask_of(parse_cards(text))


def kinds(projects: tuple[Project, ...] | list[Project]) -> list[ProjectKind]:
    return [p.kind for p in projects]


def run(text: str) -> Project:
    return Project(_kind_of_length(len(text.split())), cards(text), True)


def _kind_of_length(n: int) -> ProjectKind:
    return {3: SIRA, 4: FIFTY}.get(n, HUNDRED)


def four(rank: int, sun: bool = False) -> Project:
    kind = FOUR_HUNDRED if rank == ACE and sun else HUNDRED
    return Project(kind, 0x01010101 << rank, False)


# --- R24-R26: each kind ------------------------------------------------------------------


def test_sira_fifty_hundred_are_runs_of_three_four_five() -> None:
    assert best_projects(cards("9S 10S JS 7H 9H 8D 10C QC"), NO_TRUMP, SEEDS) == (run("9S 10S JS"),)
    assert best_projects(cards("9S 10S JS QS 7H 8D 10C KC"), NO_TRUMP, SEEDS) == (
        run("9S 10S JS QS"),
    )
    assert best_projects(cards("9S 10S JS QS KS 7H 8D 10C"), NO_TRUMP, SEEDS) == (
        run("9S 10S JS QS KS"),
    )


def test_runs_use_sequence_order_so_k_q_j_10_is_a_fifty() -> None:
    # In trick order K, Q, J, 10 are not adjacent (A 10 K Q J); in sequence order they are.
    (fifty,) = best_projects(cards("KH QH JH 10H 7S 9D 8C AC"), NO_TRUMP, SEEDS)
    assert fifty.kind is FIFTY
    assert fifty.cards == cards("KH QH JH 10H")


def test_runs_do_not_wrap_from_ace_to_seven() -> None:
    # K-A-7-8 would be a Fifty if the ace wrapped round; it is not even a Sira.
    assert find_candidates(cards("KS AS 7S 8S 10H JD QC 9C"), NO_TRUMP) == []
    # A-7-8-9: only 7-8-9 is a run.
    assert best_projects(cards("AS 7S 8S 9S 10H JD QC KC"), NO_TRUMP, SEEDS) == (run("7S 8S 9S"),)


def test_runs_do_not_cross_suits() -> None:
    # Q♠ K♠ and A♥ are adjacent bits (card 15, 16) but different suits.
    assert find_candidates(cards("QS KS AS 7H 8H 10D JC 9C"), NO_TRUMP) == [run("QS KS AS")]
    assert find_candidates(cards("KS AS 7H 8H 10D JC 9C QD"), NO_TRUMP) == []


@pytest.mark.parametrize("rank", [TEN, JACK, QUEEN, KING])
def test_four_of_a_kind_hundred_in_both_contracts(rank: int) -> None:
    hand = (0x01010101 << rank) | cards("7S 8H 9D 7C")
    for trump in (NO_TRUMP, SPADES):
        assert best_projects(hand, trump, SEEDS) == (four(rank),)


def test_four_aces_are_four_hundred_in_sun_and_a_hundred_in_hokm() -> None:
    hand = cards("AS AH AD AC 7S 8H 9D 7C")
    (sun,) = best_projects(hand, NO_TRUMP, SEEDS)
    assert sun.kind is FOUR_HUNDRED
    assert (sun.raw, sun.points(NO_TRUMP)) == (200, 40)
    (hokm,) = best_projects(hand, HEARTS, SEEDS)
    assert hokm.kind is HUNDRED
    assert (hokm.raw, hokm.points(HEARTS)) == (100, 10)


@pytest.mark.parametrize("text", ["9S 9H 9D 9C", "8S 8H 8D 8C", "7S 7H 7D 7C"])
def test_four_nines_eights_sevens_are_not_projects(text: str) -> None:
    hand = cards(text) | cards("AS KH QD JC")
    for trump in (NO_TRUMP, SPADES):
        assert find_candidates(hand, trump) == []
        assert best_projects(hand, trump, SEEDS) == ()


def test_points_per_contract() -> None:
    # Sun raw * 2 / 10, Hokm raw / 10 (R30); Baloot is 2 in Hokm.
    expected = {SIRA: (4, 2), FIFTY: (10, 5), HUNDRED: (20, 10), FOUR_HUNDRED: (40, 20)}
    for kind, (sun, hokm) in expected.items():
        project = Project(kind, 0, True)
        assert (project.points(NO_TRUMP), project.points(SPADES)) == (sun, hokm)
    assert baloot_project(HEARTS).points(HEARTS) == 2
    assert baloot_project(HEARTS).raw == 20


def test_top_is_card_index_for_runs_and_rank_for_four_of_a_kind() -> None:
    assert run("JH 10H 9H").top == card_of(HEARTS, JACK)
    assert four(QUEEN).top == QUEEN


def test_repr_evaluates_back() -> None:
    for project in (run("AS KS QS"), four(KING), baloot_project(CLUBS)):
        assert eval(repr(project)) == project  # noqa: S307 - the repr is the test subject


# --- R27: candidates and the best set --------------------------------------------------------


def test_candidates_include_every_sub_run() -> None:
    # A five-card run holds 3 Siras, 2 Fifties and 1 Hundred.
    found = find_candidates(cards("AS KS QS JS 10S 7H 8D 9C"), NO_TRUMP)
    assert sorted(kinds(found), key=lambda k: k.value) == [FIFTY] * 2 + [HUNDRED] + [SIRA] * 3


def test_sub_run_left_for_a_sira_when_four_of_a_kind_takes_the_top() -> None:
    # A♠ K♠ Q♠ J♠ 10♠ K♥ K♦ K♣: four Kings (100) + Q♠ J♠ 10♠ (20) = 120 beats the run (100).
    chosen = best_projects(cards("AS KS QS JS 10S KH KD KC"), NO_TRUMP, SEEDS)
    assert chosen == (four(KING), run("QS JS 10S"))


def test_two_siras_from_one_suit_of_six_split_cards() -> None:
    # 7-8-9 and J-Q-K of spades with 10 missing: two disjoint Siras.
    chosen = best_projects(cards("7S 8S 9S JS QS KS AH AD"), NO_TRUMP, SEEDS)
    assert chosen == (run("JS QS KS"), run("7S 8S 9S"))


def test_fifty_and_sira_in_two_suits() -> None:
    chosen = best_projects(cards("7H 8H 9H 10H QD KD AD 7C"), NO_TRUMP, SEEDS)
    assert chosen == (run("7H 8H 9H 10H"), run("QD KD AD"))


def test_eight_card_run_with_split_is_hundred_plus_sira() -> None:
    hand = cards("AS KS QS JS 10S 9S 8S 7S")
    assert best_projects(hand, NO_TRUMP, SEEDS) == (run("AS KS QS JS 10S"), run("9S 8S 7S"))


def test_eight_card_run_without_split_is_one_hundred() -> None:
    hand = cards("AS KS QS JS 10S 9S 8S 7S")
    (hundred,) = best_projects(hand, NO_TRUMP, NO_SPLIT)
    assert hundred.kind is HUNDRED
    assert hundred.cards == hand
    # None of its cards may be used elsewhere: no sub-run is on offer.
    assert usable_candidates(hand, NO_TRUMP, False) == [hundred]


def test_eight_card_trump_run_keeps_the_hundred_over_two_fifties() -> None:
    # Hokm ♠: Hundred + Sira = 120 with the Baloot absorbed; two Fifties + Baloot would also be
    # 120, but the Hundred must be the five highest cards and ranks higher anyway.
    hand = cards("AS KS QS JS 10S 9S 8S 7S")
    assert kinds(best_projects(hand, SPADES, SEEDS)) == [HUNDRED, SIRA]


@pytest.mark.parametrize("split", [True, False])
def test_six_and_seven_card_runs(split: bool) -> None:
    rules = SEEDS.replace(split_long_runs=split)
    six = cards("AS KS QS JS 10S 9S 7H 8D")
    seven = cards("AS KS QS JS 10S 9S 8S 7H")
    for hand, run_cards in ((six, "AS KS QS JS 10S 9S"), (seven, "AS KS QS JS 10S 9S 8S")):
        (hundred,) = best_projects(hand, NO_TRUMP, rules)
        assert hundred.kind is HUNDRED
        # With the split the Hundred is the five highest cards, without it the whole run.
        assert hundred.cards == (cards("AS KS QS JS 10S") if split else cards(run_cards))
        assert hundred.top == card_of(SPADES, ACE)


def test_long_run_hundred_is_its_five_highest_even_to_save_a_baloot() -> None:
    # Hokm ♠, 7-card run A..8: J-10-9-8-7 would leave A-K-Q for a Sira and keep the Baloot,
    # but the rule fixes the Hundred on the five highest cards (§A.13 item 6).
    hand = cards("AS KS QS JS 10S 9S 8S 7S")
    chosen = best_projects(hand, SPADES, SEEDS)
    assert chosen[0].cards == cards("AS KS QS JS 10S")


def test_baloot_preserving_choice_a13_item6() -> None:
    # Hokm ♠ with K♠ Q♠ J♠ 10♠ 9♠ and J♥ J♦ J♣. The sequence Hundred (100) would absorb the
    # Baloot; four Jacks (100) leave K♠ Q♠ outside a Hundred, so the Baloot still counts:
    # 100 + 20 > 100. Without a Baloot at stake the sequence Hundred ranks higher.
    hand = cards("KS QS JS 10S 9S JH JD JC")
    assert best_projects(hand, SPADES, SEEDS) == (four(JACK),)
    assert best_projects(hand, HEARTS, SEEDS) == (run("KS QS JS 10S 9S"),)
    no_absorb = SEEDS.replace(baloot_absorbed_by_hundred=False)
    assert best_projects(hand, SPADES, no_absorb) == (run("KS QS JS 10S 9S"),)


def test_equal_totals_go_to_the_set_whose_best_project_ranks_higher() -> None:
    # Sun: K♠-9♠ (sequence Hundred) or four Jacks (taking J♠) are both worth 100 and what is
    # left forms nothing; the sequence Hundred ranks higher (R29).
    hand = cards("KS QS JS 10S 9S JH JD JC")
    assert best_projects(hand, NO_TRUMP, SEEDS) == (run("KS QS JS 10S 9S"),)


def test_two_four_of_a_kind() -> None:
    hand = cards("KS KH KD KC QS QH QD QC")
    assert best_projects(hand, NO_TRUMP, SEEDS) == (four(KING), four(QUEEN))


def test_no_project() -> None:
    assert best_projects(cards("7S 9S JS KS 8H 10H QD AC"), SPADES, SEEDS) == ()


# --- R31: Baloot --------------------------------------------------------------------------


def test_has_baloot_only_for_king_and_queen_of_trump() -> None:
    hand = cards("KH QH 7S 8S 9D 10D JC AC")
    assert has_baloot(hand, HEARTS)
    assert not has_baloot(hand, SPADES)
    assert not has_baloot(hand, NO_TRUMP)
    assert not has_baloot(cards("KH 7S 8S 9D 10D JC AC QS"), HEARTS)


def test_baloot_absorbed_only_by_a_sequence_hundred() -> None:
    hundred = run("AH KH QH JH 10H")
    fifty = run("KH QH JH 10H")
    kings = four(KING)
    assert baloot_absorbed([hundred], HEARTS, SEEDS)
    assert not baloot_absorbed([fifty], HEARTS, SEEDS)
    assert not baloot_absorbed([kings], HEARTS, SEEDS)
    assert not baloot_absorbed([run("AS KS QS JS 10S")], HEARTS, SEEDS)
    assert not baloot_absorbed([hundred], HEARTS, SEEDS.replace(baloot_absorbed_by_hundred=False))


# --- R28: declarations ----------------------------------------------------------------------


def test_declaration_assigns_best_matching_cards() -> None:
    hand = cards("AS KS QS JS 10S KH KD KC")
    # Hundred alone: the sequence Hundred ranks above four Kings.
    assert projects_for_declaration(hand, [HUNDRED], NO_TRUMP, SEEDS) == (run("AS KS QS JS 10S"),)
    # Hundred + Sira: only four Kings leave a Sira (Q-J-10).
    assert projects_for_declaration(hand, [SIRA, HUNDRED], NO_TRUMP, SEEDS) == (
        four(KING),
        run("QS JS 10S"),
    )
    # A subset of what he holds: a Fifty or a Sira out of the run, the highest cards.
    assert projects_for_declaration(hand, [FIFTY], NO_TRUMP, SEEDS) == (run("AS KS QS JS"),)
    assert projects_for_declaration(hand, [SIRA], NO_TRUMP, SEEDS) == (run("AS KS QS"),)
    assert projects_for_declaration(hand, [], NO_TRUMP, SEEDS) == ()


def test_declaration_of_a_subset_of_two_projects() -> None:
    hand = cards("7H 8H 9H 10H QD KD AD 7C")
    assert projects_for_declaration(hand, [SIRA], NO_TRUMP, SEEDS) == (run("QD KD AD"),)
    assert projects_for_declaration(hand, [FIFTY], NO_TRUMP, SEEDS) == (run("7H 8H 9H 10H"),)


def test_declaration_not_held_is_refused_with_what_he_holds() -> None:
    hand = cards("7H 8H 9H QD KD AD 7C 9C")
    with pytest.raises(RuleError) as caught:
        projects_for_declaration(hand, [FIFTY], NO_TRUMP, SEEDS)
    assert caught.value.reason == PROJECT_NOT_HELD
    assert caught.value.allowed == ("sira", "sira")
    with pytest.raises(RuleError) as caught:
        projects_for_declaration(hand, [SIRA, SIRA, SIRA], NO_TRUMP, SEEDS)
    assert caught.value.reason == PROJECT_NOT_HELD
    with pytest.raises(RuleError) as caught:
        projects_for_declaration(cards("7S 9S JS KS 8H 10H QD AC"), [SIRA], SPADES, SEEDS)
    assert caught.value.reason == PROJECT_NOT_HELD
    assert caught.value.allowed == ()


def test_two_projects_sharing_cards_are_not_held() -> None:
    # A♠ K♠ Q♠ J♠ holds one Fifty, not a Fifty and a Sira.
    hand = cards("AS KS QS JS 7H 9D 8C 10C")
    with pytest.raises(RuleError) as caught:
        projects_for_declaration(hand, [FIFTY, SIRA], NO_TRUMP, SEEDS)
    assert caught.value.reason == PROJECT_NOT_HELD
    assert caught.value.allowed == ("fifty",)


def test_four_hundred_is_not_held_in_hokm() -> None:
    hand = cards("AS AH AD AC 7S 8H 9D 7C")
    with pytest.raises(RuleError) as caught:
        projects_for_declaration(hand, [FOUR_HUNDRED], HEARTS, SEEDS)
    assert caught.value.allowed == ("hundred",)
    assert projects_for_declaration(hand, [FOUR_HUNDRED], NO_TRUMP, SEEDS) == (four(ACE, True),)


def test_baloot_is_never_declared() -> None:
    hand = cards("KH QH 7S 8S 9D 10D JC AC")
    with pytest.raises(RuleError) as caught:
        projects_for_declaration(hand, [BALOOT], HEARTS, SEEDS)
    assert caught.value.reason == INVALID_ACTION
    assert caught.value.kind is ErrorKind.MALFORMED


def test_declaration_follows_split_long_runs() -> None:
    hand = cards("AS KS QS JS 10S 9S 8S 7S")
    assert kinds(projects_for_declaration(hand, [HUNDRED, SIRA], NO_TRUMP, SEEDS)) == [
        HUNDRED,
        SIRA,
    ]
    with pytest.raises(RuleError):
        projects_for_declaration(hand, [HUNDRED, SIRA], NO_TRUMP, NO_SPLIT)


# --- R29: ordering and comparison ---------------------------------------------------------


def test_rank_order_of_classes() -> None:
    ordered = [
        four(ACE, sun=True),  # Four Hundred
        run("JS 10S 9S 8S 7S"),  # any sequence Hundred, even topped by a Jack
        four(ACE),  # four Aces in Hokm: a four-of-a-kind Hundred
        four(KING),
        four(QUEEN),
        four(JACK),
        four(TEN),
        run("10S 9S 8S 7S"),  # any Fifty
        run("AS KS QS"),  # any Sira, even A-K-Q
        baloot_project(SPADES),
    ]
    ranks = [project_rank(p) for p in ordered]
    assert ranks == sorted(ranks, reverse=True)
    assert len(set(ranks)) == len(ranks)


def test_sequence_hundred_beats_four_aces_in_hokm() -> None:
    declared = [[four(ACE)], [run("JH 10H 9H 8H 7H")], [], []]
    assert compare_declarations(declared, first_seat=0) == 1


def test_four_hundred_beats_everything() -> None:
    declared = [[run("AH KH QH JH 10H"), run("9D 8D 7D")], [], [], [four(ACE, sun=True)]]
    assert compare_declarations(declared, first_seat=0) == 1


def test_higher_top_card_wins_whatever_the_suit() -> None:
    declared = [[run("9C 8C 7C")], [run("10S 9S 8S")], [], []]
    assert compare_declarations(declared, first_seat=0) == 1
    declared = [[run("KC QC JC")], [run("QS JS 10S")], [], []]
    assert compare_declarations(declared, first_seat=1) == 0


def test_fifty_beats_any_sira() -> None:
    declared = [[run("AS KS QS")], [run("10H 9H 8H 7H")], [], []]
    assert compare_declarations(declared, first_seat=0) == 1


def test_only_the_single_best_project_counts() -> None:
    # Team 0 holds Fifty + Fifty + Sira in total, team 1 one Fifty topped by an Ace.
    declared = [
        [run("KS QS JS 10S"), run("9H 8H 7H")],
        [run("AD KD QD JD")],
        [run("KC QC JC 10C")],
        [],
    ]
    assert compare_declarations(declared, first_seat=0) == 1


def test_exact_tie_goes_to_the_first_seat_in_turn_order() -> None:
    # Seats 1 and 2 hold equal Siras (top K) in different suits.
    declared = [[], [run("KS QS JS")], [run("KH QH JH")], []]
    assert winning_seat(declared, first_seat=0) == 1
    assert compare_declarations(declared, first_seat=0) == 1
    assert winning_seat(declared, first_seat=2) == 2
    assert compare_declarations(declared, first_seat=2) == 0
    # Seat 3 first: the order is 3, 0, 1, 2, so seat 1 comes before seat 2.
    assert compare_declarations(declared, first_seat=3) == 1


def test_sequence_hundreds_of_different_lengths_compare_by_top_card() -> None:
    # §A.13 item 7: a 6-card Hundred topped by K loses to a 5-card one topped by A; an 8-card
    # and a 5-card Hundred both topped by A are equal and go by seat order.
    six = Project(HUNDRED, cards("KS QS JS 10S 9S 8S"), True)
    five_ace = run("AH KH QH JH 10H")
    eight = Project(HUNDRED, cards("AD KD QD JD 10D 9D 8D 7D"), True)
    assert compare_declarations([[six], [five_ace], [], []], first_seat=0) == 1
    assert winning_seat([[], [five_ace], [eight], []], first_seat=2) == 2
    assert winning_seat([[], [five_ace], [eight], []], first_seat=0) == 1


def test_four_of_a_kind_hundreds_by_rank() -> None:
    assert compare_declarations([[four(TEN)], [four(JACK)], [], []], first_seat=0) == 1
    assert compare_declarations([[four(ACE)], [four(KING)], [], []], first_seat=1) == 0


def test_nobody_declared_and_baloot_ignored() -> None:
    assert compare_declarations([[], [], [], []], first_seat=0) is None
    assert compare_declarations([[baloot_project(SPADES)], [], [], []], first_seat=0) is None
    declared = [[baloot_project(SPADES)], [run("7H 8H 9H")], [], []]
    assert compare_declarations(declared, first_seat=0) == 1


def test_the_winning_team_scores_both_partners_projects_by_seat_without_a_baloot() -> None:
    sira, fifty = run("7H 8H 9H"), run("JS QS KS AS")
    other = run("QD KD AD")
    declared = [[], [fifty, baloot_project(SPADES)], [other], [sira]]
    assert team_projects(declared, 1) == ((1, fifty), (3, sira))
    assert team_projects(declared, 0) == ((2, other),)
    assert team_projects([[], [], [], []], 0) == ()


@pytest.mark.parametrize("trump", [0, NO_TRUMP])
def test_a_hundred_declared_out_of_a_long_run_is_its_five_highest_cards(trump: int) -> None:
    # All eight spades, 7 to A (cards 0-7): with split_long_runs the Hundred is 10-J-Q-K-A
    # (0xF8) and the Sira 7-8-9 (0x07), never 7-8-9-10-J with Q-K-A; in Hokm spades the K and
    # Q stay in the Hundred, which takes the Baloot in (R31). Without split_long_runs the
    # whole run is the one Hundred (§A.13 item 6).
    hand = 0xFF
    split = projects_for_declaration(hand, [ProjectKind.HUNDRED, ProjectKind.SIRA], trump, SEEDS)
    assert [(p.kind, p.cards) for p in split] == [
        (ProjectKind.HUNDRED, 0xF8),
        (ProjectKind.SIRA, 0x07),
    ]
    whole = projects_for_declaration(hand, [ProjectKind.HUNDRED], trump, NO_SPLIT)
    assert [(p.kind, p.cards) for p in whole] == [(ProjectKind.HUNDRED, 0xFF)]
    assert projects_for_declaration(hand, [ProjectKind.HUNDRED], trump, SEEDS)[0].cards == 0xF8


# --- properties -------------------------------------------------------------------------------


@given(hand_masks, trumps, st.sampled_from([SEEDS, KAMMELNA, NO_SPLIT]))
def test_best_projects_are_at_most_two_disjoint_held_projects(
    hand: int, trump: int, rules: RuleSet
) -> None:
    chosen = best_projects(hand, trump, rules)
    assert len(chosen) <= 2
    used = 0
    for project in chosen:
        assert project.cards & hand == project.cards
        assert project.cards & used == 0
        used |= project.cards
        assert project.kind is not BALOOT
        if trump >= 0:
            assert project.kind is not FOUR_HUNDRED
    ranks = [project_rank(p) for p in chosen]
    assert ranks == sorted(ranks, reverse=True)
    # The choice is never worth less than any single usable project.
    value = sum(p.raw for p in chosen)
    for candidate in usable_candidates(hand, trump, rules.split_long_runs):
        assert value >= candidate.raw
    # A declaration of exactly the chosen kinds gets exactly the chosen cards.
    assert projects_for_declaration(hand, kinds(chosen), trump, rules) == chosen


@given(hand_masks, trumps)
def test_every_candidate_is_a_held_run_or_four_of_a_kind(hand: int, trump: int) -> None:
    for project in find_candidates(hand, trump):
        assert project.cards & hand == project.cards
        if project.sequence:
            assert project.kind is _kind_of_length(project.length)
            low = (project.cards & -project.cards).bit_length() - 1
            assert project.cards >> low == (1 << project.length) - 1
            assert low >> 3 == (project.cards.bit_length() - 1) >> 3
        else:
            assert project.length == 4
            assert (project.top_rank) >= TEN
            assert project.top_rank != NINE


@given(st.sets(st.integers(0, 31), min_size=0, max_size=8))
def test_the_quick_project_test_agrees_with_the_full_search(cards: set[int]) -> None:
    hand = sum(1 << card for card in cards)
    for trump in (NO_TRUMP, 0, 3):
        assert may_hold_project(hand) == bool(find_candidates(hand, trump))


# --- §A.14 F11: FEDERATION's Baloot absorption -------------------------------------------------


def test_federation_a_four_of_kings_takes_the_baloot_in_a_run_does_not() -> None:
    four_kings = Project(ProjectKind.HUNDRED, cards("KS KH KD KC"), False)
    four_queens = Project(ProjectKind.HUNDRED, cards("QS QH QD QC"), False)
    four_jacks = Project(ProjectKind.HUNDRED, cards("JS JH JD JC"), False)
    run_hundred = Project(ProjectKind.HUNDRED, cards("9H 10H JH QH KH"), True)
    fifty = Project(ProjectKind.FIFTY, cards("JH QH KH AH"), True)
    # FEDERATION: four Kings or four Queens hold the K or Q of trump and take the Baloot in;
    # four Jacks do not hold either; a run never takes it in.
    assert baloot_absorbed([four_kings], HEARTS, FEDERATION)
    assert baloot_absorbed([four_queens], HEARTS, FEDERATION)
    assert not baloot_absorbed([four_jacks], HEARTS, FEDERATION)
    assert not baloot_absorbed([run_hundred], HEARTS, FEDERATION)
    assert not baloot_absorbed([fifty], HEARTS, FEDERATION)
    # SEEDS: only the run Hundred does.
    assert baloot_absorbed([run_hundred], HEARTS, SEEDS)
    assert not baloot_absorbed([four_kings], HEARTS, SEEDS)
    # The same through the facts of a scored round: seat 1 holds KH QH.
    hands = [cards("7S 8S 9S 7D 8D 9D 7C 8C"), 0, 0, 0]
    hands[1] = cards("KS KH KD KC QH 7H 8H AS")
    hands[2] = cards("10S JS QS 10D JD QD 10C JC")
    kings = (AwardedProject(1, ProjectKind.HUNDRED, seat=1, cards=four_kings.cards),)
    assert baloot_teams_for(hands, HEARTS, kings, FEDERATION) == ()
    assert baloot_teams_for(hands, HEARTS, kings, SEEDS) == (1,)
    # Not scored (the other team won the comparison): the Baloot counts.
    assert baloot_teams_for(hands, HEARTS, (), FEDERATION) == (1,)


def test_federation_best_choice_counts_a_baloot_inside_a_run() -> None:
    # Hearts trump. 9H 10H JH QH KH is a run Hundred holding the Baloot; KS KD KC KH would be
    # four Kings, but KH can serve only one of them. FEDERATION: the run keeps the Baloot
    # (100 + 20 = 120), four Kings + the Fifty 9H-QH take it in (100 + 50 = 150): 150 wins.
    hand = cards("KS KD KC KH QH JH 10H 9H")
    chosen = best_projects(hand, HEARTS, FEDERATION)
    assert sorted(p.kind.value for p in chosen) == ["fifty", "hundred"]
    # SEEDS: four Kings + Fifty keep the Baloot (170); the run would lose it. Same projects.
    assert sorted(p.kind.value for p in best_projects(hand, HEARTS, SEEDS)) == ["fifty", "hundred"]
    # Without the other Kings: the run Hundred, whose Baloot FEDERATION still scores.
    run = cards("7S 8D 7C QH JH 10H 9H KH")
    (only,) = best_projects(run, HEARTS, FEDERATION)
    assert only.sequence
    assert only.kind is ProjectKind.HUNDRED
