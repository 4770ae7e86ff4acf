"""Round facts (§A.13 item 12): built from eight tricks, awarded projects and Baloot, and the
refusal of facts no round can produce.
"""

from __future__ import annotations

from typing import Any

import pytest

from baloot_engine.rules.cards import HEARTS, SPADES, parse_cards
from baloot_engine.rules.contract import NO_TRUMP, ContractType
from baloot_engine.rules.errors import INVALID_ROUND_FACTS, ErrorKind, RuleError
from baloot_engine.rules.facts import (
    AwardedProject,
    RoundFacts,
    award_projects,
    baloot_teams_for,
    validate_facts,
)
from baloot_engine.rules.projects import Project, ProjectKind
from baloot_engine.rules.ruleset import (
    KAMMELNA,
    SEEDS,
)
from baloot_engine.rules.scoring import (
    score_round,
)

from .builders import (
    EW,
    FIFTY,
    FOUR_HUNDRED,
    HOKM,
    HUNDRED,
    NS,
    SIRA,
    SUN,
    E,
    N,
    S,
    W,
    cards,
    facts,
    kaboot,
)

# --- CP1: card points from eight tricks --------------------------------------------------------

CP1_TRICKS = [
    ("AS 10S KS QS", N),
    ("AH 10H KH QH", E),
    ("AD 10D KD QD", N),
    ("AC 10C KC QC", S),
    ("JS 9S 8S 7S", W),
    ("JH 9H 8H 7H", E),
    ("JD 9D 8D 7D", S),
    ("JC 9C 8C 7C", N),
]


def cp1(contract: ContractType, trump: int) -> RoundFacts:
    tricks = [(parse_cards(text), seat) for text, seat in CP1_TRICKS]
    return RoundFacts.from_tricks(contract, trump, NS, tricks)


def test_cp1_a_sun() -> None:
    # NS: three 28-abnat tricks, two 2-abnat tricks and the last trick's 10 = 98; EW = 32.
    round_facts = cp1(SUN, NO_TRUMP)
    assert round_facts.card_abnat == (32, 98)
    assert round_facts.tricks_won == (3, 5)
    score = score_round(round_facts, SEEDS)
    assert score.success
    assert (score.teams[NS].card_points, score.teams[EW].card_points) == (20, 6)
    assert score.points == (6, 20)


def test_cp1_b_hokm_spades() -> None:
    # The J♠ 9♠ trick is worth 34 in Hokm ♠: EW = 28 + 34 + 2 = 64, NS = 98.
    round_facts = cp1(HOKM, SPADES)
    assert round_facts.card_abnat == (64, 98)
    score = score_round(round_facts, SEEDS)
    assert score.points == (6, 10)


def test_from_tricks_puts_the_last_trick_bonus_on_trick_8() -> None:
    tricks = [(parse_cards(text), seat) for text, seat in CP1_TRICKS]
    tricks[7] = (tricks[7][0], E)
    assert RoundFacts.from_tricks(SUN, NO_TRUMP, NS, tricks).card_abnat == (44, 86)


@pytest.mark.parametrize(
    ("contract", "trump", "change"),
    [
        (SUN, NO_TRUMP, lambda t: t[:7]),  # seven tricks
        (SUN, NO_TRUMP, lambda t: [*t[:7], (t[0][0], N)]),  # a card in two tricks
        (SUN, NO_TRUMP, lambda t: [(t[0][0][:3], N), *t[1:]]),  # a trick of three cards
        (SUN, NO_TRUMP, lambda t: [(t[0][0], 4), *t[1:]]),  # no seat 4
        (SUN, NO_TRUMP, lambda t: [([32, *t[0][0][1:]], N), *t[1:]]),  # no card 32
        (SUN, SPADES, lambda t: t),  # a Sun has no trump
        (HOKM, NO_TRUMP, lambda t: t),  # a Hokm needs one
    ],
)
def test_from_tricks_refuses_impossible_tricks(
    contract: ContractType, trump: int, change: Any
) -> None:
    tricks = change([(parse_cards(text), seat) for text, seat in CP1_TRICKS])
    with pytest.raises(RuleError) as caught:
        RoundFacts.from_tricks(contract, trump, NS, tricks)
    assert caught.value.reason == INVALID_ROUND_FACTS


# --- §A.13 item 12: impossible facts are refused -----------------------------------------------

BAD_FACTS = {
    # Seven Sun tricks hold 28 cards, at least 76 abnat; one trick at most 44 + 10.
    "abnat that the tricks cannot hold": facts(SUN, (0, 130), tricks=(7, 1)),
    # Within the bounds, yet no four Sun cards are worth 38 or 39 (with the last 10: 48, 49),
    # and no eight Hokm cards 95 (105 with the 10).
    "a Sun trick worth 39 abnat": facts(SUN, (49, 81), tricks=(1, 7)),
    "a Sun trick worth 38 abnat": facts(SUN, (48, 82), tricks=(1, 7)),
    "two Hokm tricks worth 95 abnat": facts(HOKM, (105, 57), tricks=(2, 6)),
    "a Gahwa that did not follow Four": facts(HOKM, (81, 81), multiplier=2, gahwa=True),
    "two Four Hundreds": facts(
        SUN,
        (65, 65),
        projects=(
            AwardedProject(0, ProjectKind.FOUR_HUNDRED),
            AwardedProject(0, ProjectKind.FOUR_HUNDRED),
        ),
    ),
    "abnat do not sum to 162": facts(HOKM, (80, 80)),
    "abnat do not sum to 130": facts(SUN, (81, 81)),
    "negative abnat": facts(HOKM, (-10, 172)),
    "tricks do not sum to 8": facts(HOKM, (81, 81), tricks=(4, 3)),
    "negative tricks": facts(HOKM, (81, 81), tricks=(-1, 9)),
    "kaboot with abnat on both sides": facts(HOKM, (150, 12), tricks=(8, 0)),
    "abnat without a trick": facts(SUN, (120, 10), tricks=(0, 8)),
    "one abnat": facts(SUN, (1, 129)),
    "three teams": facts(HOKM, (81, 81, 0)),  # type: ignore[arg-type]
    "buyer team 2": facts(HOKM, (81, 81), buyer=2),
    "multiplier 0": facts(HOKM, (81, 81), multiplier=0),
    "multiplier 5": facts(HOKM, (81, 81), multiplier=5),
    "multiplier 3 in Sun": facts(SUN, (65, 65), multiplier=3),
    "boolean multiplier": facts(HOKM, (81, 81), multiplier=True),
    "gahwa in Sun": facts(SUN, (65, 65), multiplier=2, gahwa=True),
    "two Baloots": facts(HOKM, (81, 81), baloot_teams=(0, 1)),
    "Baloot in Sun": facts(SUN, (65, 65), baloot_teams=(0,)),
    "Baloot team 2": facts(HOKM, (81, 81), baloot_teams=(2,)),
    "Four Hundred in Hokm": facts(HOKM, (81, 81), projects=(AwardedProject(0, FOUR_HUNDRED),)),
    "projects of both teams": facts(
        HOKM, (81, 81), projects=(AwardedProject(0, SIRA), AwardedProject(1, SIRA))
    ),
    "project team 2": facts(HOKM, (81, 81), projects=(AwardedProject(2, SIRA),)),
    "Baloot as a project": facts(HOKM, (81, 81), projects=(AwardedProject(0, ProjectKind.BALOOT),)),
    "four 9s": facts(
        HOKM, (81, 81), projects=(AwardedProject(0, HUNDRED, 0, cards("9S 9H 9D 9C")),)
    ),
    "a Sira of four cards": facts(
        HOKM, (81, 81), projects=(AwardedProject(0, SIRA, 0, cards("7S 8S 9S 10S")),)
    ),
    "a run across suits": facts(
        HOKM, (81, 81), projects=(AwardedProject(0, SIRA, 0, cards("KS AS 7H")),)
    ),
    "four Aces as a Hundred in Sun": facts(
        SUN, (65, 65), projects=(AwardedProject(0, HUNDRED, 0, cards("AS AH AD AC")),)
    ),
    "a card in two projects": facts(
        HOKM,
        (81, 81),
        projects=(
            AwardedProject(0, SIRA, 0, cards("7S 8S 9S")),
            AwardedProject(0, SIRA, 2, cards("9S 10S JS")),
        ),
    ),
    "a seat outside its team": facts(HOKM, (81, 81), projects=(AwardedProject(0, SIRA, 1),)),
    "three projects for one seat": facts(
        HOKM, (81, 81), projects=tuple(AwardedProject(0, SIRA, 0) for _ in range(3))
    ),
    "five projects": facts(
        HOKM,
        (81, 81),
        projects=(
            *(AwardedProject(0, SIRA, seat) for seat in (0, 0, 2, 2)),
            AwardedProject(0, SIRA),
        ),
    ),
    "reverse kaboot in Hokm": facts(HOKM, (0, 162), tricks=(0, 8), reverse_kaboot=True),
    "reverse kaboot after a trick": facts(SUN, (10, 120), tricks=(1, 7), reverse_kaboot=True),
    "unknown contract": facts("sun", (65, 65)),  # type: ignore[arg-type]
}


# What each refusal says: the message names the problem.
REFUSAL_MESSAGES = {
    "abnat that the tricks cannot hold": "cannot come from 7 and 1 tricks",
    "a Sun trick worth 39 abnat": "cannot come from 1 and 7 tricks",
    "a Sun trick worth 38 abnat": "cannot come from 1 and 7 tricks",
    "two Hokm tricks worth 95 abnat": "cannot come from 2 and 6 tricks",
    "a Gahwa that did not follow Four": "follows Four",
    "two Four Hundreds": "at most one Four Hundred",
    "abnat do not sum to 162": "sum to 162 in Hokm",
    "abnat do not sum to 130": "sum to 130 in Sun",
    "negative abnat": "cannot be negative",
    "tricks do not sum to 8": "tricks must sum to 8",
    "negative tricks": "cannot be negative",
    "kaboot with abnat on both sides": "took no trick but has 12 abnat",
    "abnat without a trick": "took no trick",
    "one abnat": "1 abnat",
    "three teams": "two integers",
    "buyer team 2": "buyer team",
    "multiplier 0": "multiplier",
    "multiplier 5": "multiplier",
    "multiplier 3 in Sun": "1 or 2 in Sun",
    "boolean multiplier": "multiplier",
    "gahwa in Sun": "Gahwa",
    "two Baloots": "at most one Baloot",
    "Baloot in Sun": "no Baloot in a Sun",
    "Baloot team 2": "Baloot team",
    "Four Hundred in Hokm": "Four Hundred",
    "projects of both teams": "only one team",
    "project team 2": "project team",
    "Baloot as a project": "not an awarded project",
    "four 9s": "9S 9H 9D 9C do not form a hundred",
    "a Sira of four cards": "do not form a sira",
    "a run across suits": "do not form a sira",
    "four Aces as a Hundred in Sun": "do not form a hundred in Sun",
    "a card in two projects": "two projects",
    "a seat outside its team": "not in team 0",
    "three projects for one seat": "more than two projects",
    "five projects": "at most four projects",
    "reverse kaboot in Hokm": "reverse kaboot",
    "reverse kaboot after a trick": "reverse kaboot",
    "unknown contract": "unknown contract",
}


@pytest.mark.parametrize("name", sorted(BAD_FACTS))
def test_impossible_facts_are_refused(name: str) -> None:
    round_facts = BAD_FACTS[name]
    for rules in (SEEDS, KAMMELNA):
        with pytest.raises(RuleError) as caught:
            validate_facts(round_facts, rules)
        assert caught.value.reason == INVALID_ROUND_FACTS
        assert caught.value.kind is ErrorKind.MALFORMED
        assert REFUSAL_MESSAGES[name] in caught.value.message
        with pytest.raises(RuleError):
            score_round(round_facts, rules)


def test_possible_edge_facts_are_accepted() -> None:
    # A team may win tricks worth nothing; a kaboot team holds everything; projects with cards.
    validate_facts(facts(SUN, (130, 0), tricks=(7, 1)), SEEDS)
    validate_facts(kaboot(HOKM, 1), SEEDS)
    validate_facts(
        facts(
            SUN,
            (65, 65),
            projects=(
                AwardedProject(1, FOUR_HUNDRED, 1, cards("AS AH AD AC")),
                AwardedProject(1, HUNDRED, 3, cards("KD QD JD 10D 9D 8D")),
                AwardedProject(1, SIRA, 3, cards("JC 10C 9C")),
            ),
        ),
        SEEDS,
    )
    validate_facts(
        facts(HOKM, (81, 81), projects=(AwardedProject(0, HUNDRED, 2, cards("AS AH AD AC")),)),
        SEEDS,
    )


# --- from declarations to facts ------------------------------------------------------------------


def test_award_projects_gives_both_partners_projects_to_the_winning_team() -> None:
    sira = Project(SIRA, cards("7H 8H 9H"), True)
    fifty = Project(FIFTY, cards("JS QS KS AS"), True)
    other = Project(SIRA, cards("QD KD AD"), True)
    awarded = award_projects([[sira], [other], [fifty], []], first_seat=0)
    assert awarded == (
        AwardedProject(0, SIRA, 0, sira.cards),
        AwardedProject(0, FIFTY, 2, fifty.cards),
    )
    assert award_projects([[], [], [], []], first_seat=0) == ()


def test_baloot_teams_for_hands_with_absorption() -> None:
    hands = [
        cards("KH QH JH 10H 9H 7S 8S 9S"),
        cards("AS KS QS JS 10S 7D 8D 9D"),
        0,
        0,
    ]
    hundred = AwardedProject(0, HUNDRED, 0, cards("KH QH JH 10H 9H"))
    assert baloot_teams_for(hands, HEARTS, [hundred], SEEDS) == ()
    assert baloot_teams_for(hands, HEARTS, [], SEEDS) == (0,)
    no_absorb = SEEDS.replace(baloot_absorbed_by_hundred=False)
    assert baloot_teams_for(hands, HEARTS, [hundred], no_absorb) == (0,)
    assert baloot_teams_for(hands, SPADES, [], SEEDS) == (1,)
    assert baloot_teams_for(hands, NO_TRUMP, [], SEEDS) == ()
