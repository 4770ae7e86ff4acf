"""Worked cases of the rules reference, each computed by hand from its text.

Seats as in the reference's examples (dealer South): E = 0 (dealer's right), N = 1, W = 2,
S = 3; team 0 is East-West, team 1 North-South. Every expected number is worked out in the
comment beside the case, from the rule or table row it cites, not from the engine.
"""

from __future__ import annotations

import random

import pytest

from baloot_engine.rules import errors
from baloot_engine.rules.actions import (
    Bid,
    BidKind,
    Declare,
    Doubling,
    DoublingCall,
    EventKind,
    Play,
)
from baloot_engine.rules.cards import format_card, parse_card, parse_cards
from baloot_engine.rules.contract import ContractType, PlayMode
from baloot_engine.rules.facts import AwardedProject, RoundFacts, baloot_teams_for
from baloot_engine.rules.game import legal_actions
from baloot_engine.rules.ruleset import FEDERATION, KAMMELNA, SEEDS, RuleSet
from baloot_engine.rules.scoring import score_round
from baloot_engine.rules.state import Phase, State

from .builders import EW, FIFTY, HOKM, HUNDRED, NS, SIRA, SUN, cards, facts, kaboot
from .scenario import (
    L1,
    L6,
    act,
    act_events,
    bid,
    build_deck,
    buy_hokm,
    buy_sun,
    dealt,
    hokm,
    hokm_hand,
    pass_rest,
    pass_until,
    play_out,
    refuse,
    sun_hand,
    table,
)

HEARTS = 1


# --- F1: the raw success test counts the Baloot's 20 --------------------------------------


def test_f1_baloot_turns_a_loss_into_a_kept_tie() -> None:
    # §A.14 F1: raw = tricks + last trick + projects + Baloot 20; the buyer fails only when
    # the defenders have more; equal is a tie the buyer keeps.
    # Hokm, buyer EW 71 abnat + Baloot 20 = 91 against NS 91: a tie, kept by the buyer.
    # F3: defenders 91 -> 9 (remainder 1 rounds down); buyer 16 - 9 = 7, + Baloot 2 = 9.
    score = score_round(facts(HOKM, (71, 91), buyer=EW, baloot_teams=(EW,)), FEDERATION)
    assert score.success
    assert score.points == (9, 9)


def test_f1_f12_buyer_short_of_the_defenders_fails_and_keeps_his_baloot() -> None:
    # F1: buyer EW 70 + Baloot 20 = 90 < NS 92 -> failure. R39: defenders take the pot 16.
    # F12: the Baloot stays with its holder, the buyer: 2.
    score = score_round(facts(HOKM, (70, 92), buyer=EW, baloot_teams=(EW,)), FEDERATION)
    assert not score.success
    assert score.points == (2, 16)


def test_f1_projects_count_at_raw_value_in_the_test() -> None:
    # F1: Sun, buyer EW 55 abnat + Fifty 50 = 105 against NS 75 -> success (the abnat alone
    # would lose). F3: defenders 75 -> 7.5 -> 8 (remainder 5 rounds up in Sun) x 2 = 16;
    # buyer 26 - 16 = 10, + Fifty 10 (Sun: 50 x 2 / 10) = 20.
    awarded = (AwardedProject(EW, FIFTY),)
    score = score_round(facts(SUN, (55, 75), buyer=EW, projects=awarded), FEDERATION)
    assert score.success
    assert score.points == (20, 16)


def test_f1_f3_the_hokm_example_86_76_with_a_buyer_sira() -> None:
    # F3 example: Hokm defenders 86 -> 9, buyer 7. Under F1 the buyer with 76 needs more:
    # 76 + Sira 20 = 96 > 86 -> success. Buyer 7 + Sira 2 = 9, defenders 9.
    awarded = (AwardedProject(NS, SIRA),)
    score = score_round(facts(HOKM, (86, 76), buyer=NS, projects=awarded), FEDERATION)
    assert score.success
    assert score.points == (9, 9)


def test_f2_undoubled_exact_hokm_tie_is_kept_by_the_buyer() -> None:
    # F2 (clause 4-3): 81 - 81 in Hokm, undoubled: the buyer keeps it.
    # F3: defenders 81 -> 8; buyer 16 - 8 = 8.
    score = score_round(facts(HOKM, (81, 81), buyer=NS), FEDERATION)
    assert score.success
    assert score.points == (8, 8)


# --- F3: only the defenders' card points are converted (through score_round) --------------

# (contract, defenders' abnat, defenders' points, buyer's points); the buyer EW holds the
# rest of 130 / 162 and wins every case (the defenders never have more).
F3_CASES = [
    # Sun: tens of the defenders' abnat, remainder >= 5 up, then x 2; buyer 26 - that.
    (SUN, 65, 14, 12),  # §A.14 example: 6.5 -> 7 x 2 = 14; 26 - 14 = 12
    (SUN, 64, 12, 14),  # 6.4 -> 6 x 2 = 12 (remainder 4 down)
    (SUN, 61, 12, 14),  # 6.1 -> 6 x 2 = 12 (remainder 1 down)
    (SUN, 59, 12, 14),  # 5.9 -> 6 x 2 = 12 (remainder 9 up)
    (SUN, 55, 12, 14),  # 5.5 -> 6 x 2 = 12 (remainder 5 up; R35 would give 11)
    (SUN, 45, 10, 16),  # 4.5 -> 5 x 2 = 10 (R35 would give 9)
    (SUN, 25, 6, 20),  # 2.5 -> 3 x 2 = 6
    (SUN, 32, 6, 20),  # 3.2 -> 3 x 2 = 6
    (SUN, 21, 4, 22),  # 2.1 -> 2 x 2 = 4
    (SUN, 0, 0, 26),  # defenders took a trick of 7s, 8s and 9s only
    # Hokm: tens, remainder 1-5 down, 6-9 up; buyer 16 - that.
    (HOKM, 76, 8, 8),  # §A.14 example: 7.6 -> 8; 16 - 8 = 8
    (HOKM, 81, 8, 8),  # 8.1 -> 8 (an exact 81 - 81 tie the buyer keeps)
    (HOKM, 75, 7, 9),  # 7.5 -> 7: remainder 5 rounds down in Hokm
    (HOKM, 71, 7, 9),  # 7.1 -> 7
    (HOKM, 69, 7, 9),  # 6.9 -> 7
    (HOKM, 66, 7, 9),  # 6.6 -> 7
    (HOKM, 65, 6, 10),  # 6.5 -> 6
    (HOKM, 50, 5, 11),  # 5.0 -> 5
    (HOKM, 16, 2, 14),  # 1.6 -> 2
    (HOKM, 15, 1, 15),  # 1.5 -> 1
    (HOKM, 0, 0, 16),
]


@pytest.mark.parametrize(("contract", "defenders", "def_points", "buyer_points"), F3_CASES)
def test_f3_defenders_counted_conversion(
    contract, defenders: int, def_points: int, buyer_points: int
) -> None:
    # §A.14 F3 (clauses 4-10, 4-11), hand computations in F3_CASES.
    total = 130 if contract is SUN else 162
    tricks = (7, 1) if defenders == 0 else (4, 4)
    score = score_round(
        facts(contract, (total - defenders, defenders), buyer=EW, tricks=tricks), FEDERATION
    )
    assert score.success
    assert score.points == (buyer_points, def_points)


def test_f3_sun_defenders_points_are_even_and_buyer_keeps_the_rest() -> None:
    # F3: "the defenders' Sun GP is always even"; buyer + defenders = 26 on every success.
    for defenders in (d for d in range(66) if d != 1):  # 1 abnat: no set of cards
        tricks = (7, 1) if defenders <= 28 else (4, 4)  # one trick holds at most 28
        score = score_round(
            facts(SUN, (130 - defenders, defenders), buyer=EW, tricks=tricks), FEDERATION
        )
        assert score.points[NS] % 2 == 0, defenders
        assert sum(score.points) == 26, defenders


# --- F4 / F5: doubled allocation and projects at Triple and Four -------------------------


def test_f4_doubled_success_winner_takes_all() -> None:
    # F4: the winner takes the hand x level plus every project. Hokm x2, buyer NS 90 + Sira
    # 20 = 110 > EW 72. NS: (16 + Sira 2) x 2 = 36 (F5: projects x2 at Double); EW 0.
    awarded = (AwardedProject(NS, SIRA),)
    score = score_round(facts(HOKM, (72, 90), buyer=NS, projects=awarded, multiplier=2), FEDERATION)
    assert score.success
    assert score.points == (0, 36)


def test_f4_doubled_failure_defenders_take_all_projects() -> None:
    # F4: Hokm x2, buyer NS 60 abnat, no projects; EW 102 + Sira 20. Raw 60 < 122 ->
    # failure; the defenders take all: EW (16 + Sira 2) x 2 = 36, NS 0.
    awarded = (AwardedProject(EW, SIRA),)
    score = score_round(
        facts(HOKM, (102, 60), buyer=NS, projects=awarded, multiplier=2), FEDERATION
    )
    assert not score.success
    assert score.points == (36, 0)


def test_f4_defenders_keep_their_baloot_in_a_doubled_success() -> None:
    # F4 + R40: the winner takes the hand x level; the Baloot is added to its owner. Hokm
    # x2, buyer NS 100 against EW 62 + Baloot 20 = 82 (F1) -> success: NS 16 x 2 = 32,
    # EW keep their Baloot 2.
    score = score_round(
        facts(HOKM, (62, 100), buyer=NS, baloot_teams=(EW,), multiplier=2), FEDERATION
    )
    assert score.success
    assert score.points == (2, 32)


def test_f4_f7_doubled_sun_with_a_project() -> None:
    # F4 + F5: Sun x2, buyer EW 80 + Sira 20 = 100 against NS 50 -> success; winner takes
    # all: (26 + Sira 4) x 2 = 60.
    awarded = (AwardedProject(EW, SIRA),)
    score = score_round(facts(SUN, (80, 50), buyer=EW, projects=awarded, multiplier=2), FEDERATION)
    assert score.success
    assert score.points == (60, 0)


@pytest.mark.parametrize(
    ("multiplier", "expected"),
    [
        (2, 16 * 2 + 5 * 2 + 2),  # Double: cards x2, Fifty 5 x2, Baloot 2 -> 44
        (3, 16 * 3 + 5 + 2),  # Triple: cards x3, Fifty x1, Baloot 2 -> 55
        (4, 16 * 4 + 5 + 2),  # Four: cards x4, Fifty x1, Baloot 2 -> 71
    ],
)
def test_f5_projects_once_at_triple_and_four(multiplier: int, expected: int) -> None:
    # F5 (5-4, 5-5): projects x2 at Double, x1 at Triple and Four; Baloot always 2.
    # Hokm, buyer NS 100 + Fifty 50 + Baloot 20 = 170 > EW 62: success, winner takes all.
    awarded = (AwardedProject(NS, FIFTY),)
    score = score_round(
        facts(
            HOKM,
            (62, 100),
            buyer=NS,
            projects=awarded,
            baloot_teams=(NS,),
            multiplier=multiplier,
        ),
        FEDERATION,
    )
    assert score.success
    assert score.points == (0, expected)


def test_f5_projects_once_in_a_failed_triple() -> None:
    # F5 on failure: Hokm x3, buyer NS 60 against EW 102 + Sira 20 -> failure; EW take all:
    # 16 x 3 + Sira 2 x 1 = 50, NS 0.
    awarded = (AwardedProject(EW, SIRA),)
    score = score_round(
        facts(HOKM, (102, 60), buyer=NS, projects=awarded, multiplier=3), FEDERATION
    )
    assert not score.success
    assert score.points == (50, 0)


def test_f4_f12_failed_double_the_buyer_keeps_his_baloot() -> None:
    # F4 + F12: Hokm x2, buyer NS 60 + Baloot 20 = 80 < EW 102 -> failure; EW 16 x 2 = 32;
    # the Baloot stays with its holder NS: 2.
    score = score_round(
        facts(HOKM, (102, 60), buyer=NS, baloot_teams=(NS,), multiplier=2), FEDERATION
    )
    assert not score.success
    assert score.points == (32, 2)


# --- F6: doubled ties by level ------------------------------------------------------------


@pytest.mark.parametrize(
    ("multiplier", "buyer_wins", "expected"),
    [
        (2, True, (0, 32)),  # x2: the doubler (EW) made the last raise, loses: NS 16 x 2
        (3, False, (48, 0)),  # x3: the buyer (NS) made the last raise, loses: EW 16 x 3
        (4, True, (0, 64)),  # x4: the doubler made the last raise (Four): NS 16 x 4
    ],
)
def test_f6_doubled_tie_lost_by_the_last_raiser(
    multiplier: int, buyer_wins: bool, expected: tuple[int, int]
) -> None:
    # F6 (7-6): Hokm 81 - 81, buyer NS, no projects or Baloot (raw tie).
    score = score_round(facts(HOKM, (81, 81), buyer=NS, multiplier=multiplier), FEDERATION)
    assert score.success is buyer_wins
    assert score.points == expected


def test_f6_gahwa_tie_lost_by_the_buyer() -> None:
    # F6: at Gahwa the buyer made the last raise and loses the tie: EW win the match.
    score = score_round(facts(HOKM, (81, 81), buyer=NS, multiplier=4, gahwa=True), FEDERATION)
    assert not score.success
    assert score.gahwa_winner == EW


def test_f6_f1_doubled_tie_made_by_the_baloot() -> None:
    # F1 + F6: Hokm x2, buyer NS 71 + Baloot 20 = 91 against EW 91: a tie at x2, lost by
    # the doubler, so the buyer wins all: NS 16 x 2 + Baloot 2 = 34, EW 0.
    score = score_round(
        facts(HOKM, (91, 71), buyer=NS, baloot_teams=(NS,), multiplier=2), FEDERATION
    )
    assert score.success
    assert score.points == (0, 34)


def test_f1_doubled_round_decided_by_raw_points_not_by_equal_game_points() -> None:
    # F1 under Double: Hokm x2, buyer NS 80 against EW 82. Raw 80 < 82 -> failure, although
    # both sides convert to 8 (F3: 82 -> 8, buyer 16 - 8 = 8). EW take all: 16 x 2 = 32.
    # SEEDS (R37 gp): 8 = 8 is a doubled tie, lost by the doubler: NS 32.
    doubled = facts(HOKM, (82, 80), buyer=NS, multiplier=2)
    assert score_round(doubled, FEDERATION).points == (32, 0)
    assert score_round(doubled, SEEDS).points == (0, 32)


def test_seeds_doubled_tie_at_triple_still_goes_to_the_buyer() -> None:
    # R37 / A.13 item 3 (SEEDS): at every level an exact tie goes to the buyer.
    score = score_round(facts(HOKM, (81, 81), buyer=NS, multiplier=3), SEEDS)
    assert score.success
    assert score.points == (0, 48)


# --- F9: flat kaboot ----------------------------------------------------------------------


def test_f9_hokm_kaboot_is_flat_under_double() -> None:
    # F9 (7-7): 25 plus the kaboot team's projects, never multiplied. Buyer NS takes all
    # tricks at x2 with a Fifty: 25 + 5 = 30 (not 60 or 35 x 2).
    awarded = (AwardedProject(NS, FIFTY),)
    score = score_round(kaboot(HOKM, NS, buyer=NS, projects=awarded, multiplier=2), FEDERATION)
    assert score.kaboot_team == NS
    assert score.points == (0, 30)


def test_f9_sun_kaboot_is_flat_under_double() -> None:
    # F9: Sun kaboot by the buyer EW with a Sira at x2: 44 + 4 = 48.
    awarded = (AwardedProject(EW, SIRA),)
    score = score_round(kaboot(SUN, EW, buyer=EW, projects=awarded, multiplier=2), FEDERATION)
    assert score.points == (48, 0)


def test_f9_defenders_kaboot_takes_the_buyers_projects_and_baloot() -> None:
    # F9 + A.13 item 2 (kabootProjects keeps the SEEDS value seed000, since F9's flag column
    # sets only kaboot_doubling): the defenders EW take all tricks at x2 against buyer NS,
    # who owns the awarded Fifty and the Baloot. Defenders' kaboot: 25 + all awarded
    # projects (Fifty 5) + the buyer's Baloot 2 (it transfers with the projects) = 32, flat.
    awarded = (AwardedProject(NS, FIFTY),)
    round_facts = kaboot(HOKM, EW, buyer=NS, projects=awarded, baloot_teams=(NS,), multiplier=2)
    assert score_round(round_facts, FEDERATION).points == (32, 0)


def test_f9_buyers_kaboot_loses_the_defenders_baloot() -> None:
    # A.13 item 2, seed000: in the buyer's kaboot the defenders' projects do not transfer,
    # so their Baloot is lost; the other team scores nothing. x3 is ignored: NS 25, EW 0.
    round_facts = kaboot(HOKM, NS, buyer=NS, baloot_teams=(EW,), multiplier=3)
    assert score_round(round_facts, FEDERATION).points == (0, 25)


# --- F11: Baloot against four Kings/Queens and runs ---------------------------------------


def _hands(holder_hand: str) -> list[int]:
    # Seat 1 (N) holds ``holder_hand``; the rest of the deck is split over the other seats.
    held = set(parse_cards(holder_hand))
    rest = [c for c in range(32) if c not in held]
    hands = [0, cards(holder_hand), 0, 0]
    for index, seat in enumerate((0, 2, 3)):
        for card in rest[index * 8 : index * 8 + 8]:
            hands[seat] |= 1 << card
    return hands


@pytest.mark.parametrize(
    ("hand", "project_cards", "federation", "seeds"),
    [
        # F11: the Baloot counts even inside a declared run (SEEDS: a run Hundred absorbs it).
        ("9H 10H JH QH KH 7S 8S 9S", "9H 10H JH QH KH", (NS,), ()),
        # Inside a Fifty it counts under both.
        ("JH QH KH AH 7S 8S 9S 7D", "JH QH KH AH", (NS,), (NS,)),
        # F11: four Kings hold the K of trump: the Baloot is not counted (SEEDS: counted).
        ("KS KH KD KC QH 7S 8S 9S", "KS KH KD KC", (), (NS,)),
        # Four Queens hold the Q of trump: not counted.
        ("QS QH QD QC KH 7S 8S 9S", "QS QH QD QC", (), (NS,)),
        # Four Jacks hold neither K nor Q: counted.
        ("JS JH JD JC KH QH 8S 9S", "JS JH JD JC", (NS,), (NS,)),
    ],
)
def test_f11_baloot_absorption(hand: str, project_cards: str, federation, seeds) -> None:
    # §A.14 F11 (5-6, 5-8) and R31 (SEEDS: absorbed only by a sequence Hundred).
    run = len({parse_card(c) >> 3 for c in project_cards.split()}) == 1
    kind = FIFTY if len(project_cards.split()) == 4 and run else HUNDRED
    awarded = (AwardedProject(NS, kind, seat=1, cards=cards(project_cards)),)
    hands = _hands(hand)
    assert baloot_teams_for(hands, HEARTS, awarded, FEDERATION) == federation
    assert baloot_teams_for(hands, HEARTS, awarded, SEEDS) == seeds


def _deal_around(holder_hand: str) -> dict[int, str]:
    # Seat 1 holds ``holder_hand``; the other 24 cards go to seats 2, 3 and 0 in order.
    held = set(parse_cards(holder_hand))
    rest = [format_card(c) for c in range(32) if c not in held]
    hands = {1: holder_hand}
    for index, seat in enumerate((2, 3, 0)):
        hands[seat] = " ".join(rest[index * 8 : index * 8 + 8])
    return hands


@pytest.mark.parametrize(
    ("holder_hand", "rules", "baloot"),
    [
        # Four Kings (with KH of trump): FEDERATION does not count the Baloot; SEEDS does.
        ("KS KH KD KC QH 7S 8S 7D", FEDERATION, 0),
        ("KS KH KD KC QH 7S 8S 7D", SEEDS, 2),
        # A run Hundred 9H-KH holding K+Q of trump: FEDERATION counts it; SEEDS absorbs it.
        ("9H 10H JH QH KH 7S 8S 7D", FEDERATION, 2),
        ("9H 10H JH QH KH 7S 8S 7D", SEEDS, 0),
    ],
)
def test_f11_baloot_with_a_declared_hundred_in_play(
    holder_hand: str, rules: RuleSet, baloot: int
) -> None:
    # §A.14 F11 / R31 through play: seat 1 (R) buys Hokm hearts on KH, declares a Hundred
    # in trick 1 (nobody else declares, so it scores), and the hand is played out. The
    # Baloot points of both teams together are 2 when it counts, 0 when it is taken in.
    state = hokm_hand(_deal_around(holder_hand), "KH", buyer=1, rules=rules)
    state = act(state, 1, Declare((HUNDRED,)))
    state = play_out(state, random.Random(7))
    assert state.last_score is not None
    assert sum(t.baloot_points for t in state.last_score.teams) == baloot


def test_f11_f1_run_hundred_and_baloot_both_score() -> None:
    # F11 + F1: Hokm, buyer NS holds 9H-KH (Hundred 100) with K+Q of trump: Baloot counts.
    # Raw NS 70 + 100 + 20 = 190 > EW 92 -> success. EW 92 -> 9; NS 16 - 9 = 7 + 10 + 2 = 19.
    awarded = (AwardedProject(NS, HUNDRED),)
    score = score_round(
        facts(HOKM, (92, 70), buyer=NS, projects=awarded, baloot_teams=(NS,)), FEDERATION
    )
    assert score.points == (9, 19)


# --- F12: Baloot kept by its owner on failure (defenders' Baloot too) ---------------------


def test_f12_defenders_baloot_on_failure() -> None:
    # F12: Hokm, buyer EW 60 < NS 102 -> failure; NS hold the Baloot: NS 16 + 2 = 18, EW 0.
    score = score_round(facts(HOKM, (60, 102), buyer=EW, baloot_teams=(NS,)), FEDERATION)
    assert score.points == (0, 18)


def test_kammelna_baloot_goes_to_the_winner_on_failure() -> None:
    # A.13 item 13 (KAMMELNA balootOnFailure=toWinner), R37 gp: EW 60 -> 6, NS 102 -> 10;
    # failure: NS 16 + the buyer's Baloot 2 = 18, EW 0.
    score = score_round(facts(HOKM, (60, 102), buyer=EW, baloot_teams=(EW,)), KAMMELNA)
    assert score.points == (0, 18)


# --- §B.1 CV1, CV2, CP1 --------------------------------------------------------------------

CV1 = [
    (0, 0), (20, 4), (32, 6), (44, 8), (45, 9), (46, 10), (54, 10), (55, 11), (56, 12),
    (59, 12), (60, 12), (61, 12), (64, 12), (65, 13), (66, 14), (69, 14), (70, 14), (75, 15),
    (76, 16), (85, 17), (98, 20), (130, 26),
]  # fmt: skip


@pytest.mark.parametrize(("abnat", "gp"), CV1)
def test_cv1_sun_card_points(abnat: int, gp: int) -> None:
    # §B.1 CV1 (R35): team abnat -> GP; the other team holds 130 - abnat, and the two sum
    # to 26. The table row gives both: (a, 130 - a) -> (gp, 26 - gp).
    tricks = (7, 1) if abnat == 130 else (1, 7) if abnat == 0 else (4, 4)
    for rules in (SEEDS, KAMMELNA):
        score = score_round(facts(SUN, (abnat, 130 - abnat), buyer=EW, tricks=tricks), rules)
        assert [t.converted_points for t in score.teams] == [gp, 26 - gp]


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


@pytest.mark.parametrize(("abnat", "independent", "pair16"), CV2)
def test_cv2_hokm_card_points(abnat, independent, pair16) -> None:
    # §B.1 CV2 (R36): SEEDS `independent`, KAMMELNA `pairSum16` (a 17 total loses 1 from
    # the team with more abnat).
    for rules, expected in ((SEEDS, independent), (KAMMELNA, pair16)):
        score = score_round(facts(HOKM, abnat, buyer=EW), rules)
        assert tuple(t.converted_points for t in score.teams) == expected, rules.preset


def _cp1_tricks() -> list[tuple[list[int], int]]:
    # §B.1 CP1: winners by team; N = seat 1 and E = seat 0 take them (NS = 1, EW = 0).
    rows = [
        ("AS 10S KS QS", 1), ("AH 10H KH QH", 0), ("AD 10D KD QD", 1), ("AC 10C KC QC", 1),
        ("JS 9S 8S 7S", 0), ("JH 9H 8H 7H", 0), ("JD 9D 8D 7D", 1), ("JC 9C 8C 7C", 1),
    ]  # fmt: skip
    return [(parse_cards(text), seat) for text, seat in rows]


def test_cp1_sun() -> None:
    # CP1 (a): Sun, buyer NS: NS 28 x 3 + 2 x 2 + 10 = 98, EW 28 + 2 + 2 = 32 (sum 130);
    # GP 98 -> 100 -> 20, 32 -> 30 -> 6. Buyer wins (20 > 6): each keeps its own.
    round_facts = RoundFacts.from_tricks(SUN, -1, NS, _cp1_tricks())
    assert round_facts.card_abnat == (32, 98)
    for rules in (SEEDS, KAMMELNA):
        assert score_round(round_facts, rules).points == (6, 20)


def test_cp1_hokm_spades() -> None:
    # CP1 (b): Hokm spades, buyer NS: T5 J 20 + 9 14 = 34 to EW: EW 28 + 34 + 2 = 64, NS 98
    # (sum 162); pair (98, 64) -> (10, 6) under both roundings (sum 16).
    round_facts = RoundFacts.from_tricks(HOKM, 0, NS, _cp1_tricks())
    assert round_facts.card_abnat == (64, 98)
    for rules in (SEEDS, KAMMELNA):
        assert score_round(round_facts, rules).points == (6, 10)


# --- game-level cases: dealer seat 0, so R = 1, O = 2, L = 3, D = 0 ------------------------

R, O, L, D = table(0)  # noqa: E741 - the rules name these seats
DOUBLE, TRIPLE, FOUR, GAHWA, DECLINE = (
    DoublingCall.DOUBLE,
    DoublingCall.TRIPLE,
    DoublingCall.FOUR,
    DoublingCall.GAHWA,
    DoublingCall.DECLINE,
)
OPEN, CLOSED = PlayMode.OPEN, PlayMode.CLOSED


def _bids(state: State, seat: int) -> set[BidKind]:
    return {a.kind for a in legal_actions(state, seat) if isinstance(a, Bid)}


def _calls(state: State, seat: int) -> set[Doubling]:
    return {a for a in legal_actions(state, seat) if isinstance(a, Doubling)}


def _any_double_offered(state: State) -> bool:
    return state.phase is Phase.DOUBLING and any(
        a.call is DOUBLE for seat in range(4) for a in _calls(state, seat)
    )


# --- F7: Sun double at 100 or less --------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "scores", "offered"),
    [
        # Buyer R (team 1) 101 > 100, defenders (team 0) exactly 100: FEDERATION "100 or
        # less" allows it, SEEDS "below 100" does not (R15).
        (FEDERATION, (100, 101), True),
        (SEEDS, (100, 101), False),
        # Defenders 101 > 100: never.
        (FEDERATION, (101, 120), False),
        # Buyer exactly 100: F7 "the buyer's side more than 100" -> not allowed.
        (FEDERATION, (50, 100), False),
        # Plain case, buyer 120 and defenders 50: both.
        (FEDERATION, (50, 120), True),
        (SEEDS, (50, 120), True),
    ],
)
def test_f7_sun_double_boundaries(rules: RuleSet, scores: tuple[int, int], offered: bool) -> None:
    # §A.14 F7 (7-1, 7-2): the doubling side has 100 or less, the buyer's side more than 100.
    state = buy_sun(dealt(build_deck(revealed="10H"), rules=rules, match_scores=scores), R)
    assert _any_double_offered(state) is offered


def test_f7_sun_double_only_no_triple() -> None:
    # F7 (7-1, 7-2) "Double only": buyer R (team 1) 120, defenders 90; O doubles the Sun
    # (a Sun double names no mode, R15); the buyer is offered no Triple and play starts x2.
    state = buy_sun(dealt(build_deck(revealed="10H"), rules=FEDERATION, match_scores=(90, 120)), R)
    state = act(state, state.turn, Doubling(DOUBLE))
    assert all(TRIPLE not in {a.call for a in _calls(state, seat)} for seat in range(4))
    if state.phase is Phase.DOUBLING:  # any remaining question can only be declined
        state = act(state, state.turn, Doubling(DECLINE))
    assert state.phase is Phase.PLAYING
    assert state.contract is not None
    assert state.contract.multiplier == 2


# --- F8: the Hokm chain ---------------------------------------------------------------------


def _hokm_by_r(rules: RuleSet = FEDERATION) -> State:
    return buy_hokm(dealt(build_deck(revealed="10H"), rules=rules), R)


def test_f8_double_may_be_open_or_closed() -> None:
    # F8 (7-5): "Double open unless the doubler names closed": the first defender (O) may
    # double open or closed.
    state = _hokm_by_r()
    assert state.turn == O
    assert {Doubling(DOUBLE, OPEN), Doubling(DOUBLE, CLOSED)} <= _calls(state, O)


def test_f8_a_double_naming_no_mode_is_open() -> None:
    # F8 (7-5): "Double open unless the doubler names closed": a Double with no mode named
    # is an open Double (x2, not closed).
    state = act(_hokm_by_r(), O, Doubling(DOUBLE))
    assert state.contract is not None
    assert state.contract.multiplier == 2
    assert not state.contract.closed
    # ... and it is recorded as the open Double it is.
    assert state.doubling_calls[-1].call == Doubling(DOUBLE, OPEN)


def test_f8_the_double_without_a_mode_is_federation_only() -> None:
    # R14 outside FEDERATION: a Double must name closed or open (MODE_REQUIRED); the same
    # call is an open Double only with double_open_by_default (F8).
    refuse(_hokm_by_r(SEEDS), O, Doubling(DOUBLE), errors.MODE_REQUIRED)
    rules = SEEDS.replace(double_open_by_default=True)
    state = act(_hokm_by_r(rules), O, Doubling(DOUBLE))
    assert state.contract is not None
    assert (state.contract.multiplier, state.contract.closed) == (2, False)
    # The Four still names its mode: "Four ... open or closed" (F8).
    state = act(_hokm_by_r(), O, Doubling(DOUBLE, CLOSED))
    state = act(state, R, Doubling(TRIPLE))
    refuse(state, O, Doubling(FOUR), errors.MODE_REQUIRED)


def test_f8_triple_only_by_the_buyer_and_it_opens_the_game() -> None:
    # F8: Triple only by the buyer (R), never by his partner L; after a closed Double the
    # Triple makes the game open.
    state = act(_hokm_by_r(), O, Doubling(DOUBLE, CLOSED))
    assert state.contract is not None
    assert state.contract.closed
    assert _calls(state, L) == set()
    assert Doubling(TRIPLE) in _calls(state, R)
    refuse(state, L, Doubling(TRIPLE), errors.NOT_YOUR_TURN)
    state = act(state, R, Doubling(TRIPLE))
    assert state.contract is not None
    assert state.contract.multiplier == 3
    assert not state.contract.closed


def test_f8_four_only_by_the_doubler_then_gahwa_by_the_buyer_open() -> None:
    # F8: Four only by the player who doubled (D here, after O declined), open or closed;
    # his partner O is not asked. Gahwa by the buyer, played open.
    state = act(_hokm_by_r(), O, Doubling(DECLINE))
    state = act(state, D, Doubling(DOUBLE, OPEN))
    state = act(state, R, Doubling(TRIPLE))
    assert _calls(state, O) == set()
    assert {Doubling(FOUR, OPEN), Doubling(FOUR, CLOSED)} <= _calls(state, D)
    state = act(state, D, Doubling(FOUR, CLOSED))
    assert state.contract is not None
    assert state.contract.closed
    assert _calls(state, L) == set()
    state = act(state, R, Doubling(GAHWA))
    assert state.phase is Phase.PLAYING
    assert state.contract is not None
    assert state.contract.gahwa
    assert not state.contract.closed


# --- F13: Ashkal only over a pending Hokm -------------------------------------------------


def test_f13_no_ashkal_without_a_pending_hokm() -> None:
    # F13 (8-1, 8-2, 9): only over a Hokm already bid in that lap. R and O pass: L may not
    # say Ashkal under FEDERATION; under SEEDS (R7) he may.
    for rules, allowed in ((FEDERATION, False), (SEEDS, True)):
        state = pass_until(dealt(build_deck(revealed="10H"), rules=rules), L)
        assert (BidKind.ASHKAL in _bids(state, L)) is allowed
    state = pass_until(dealt(build_deck(revealed="10H"), rules=FEDERATION), L)
    refuse(state, L, Bid(BidKind.ASHKAL), errors.ASHKAL_NOT_ALLOWED)


def test_f13_ashkal_over_a_pending_hokm_in_round_one() -> None:
    # F13: R bids Hokm, O passes: L may say Ashkal; it is a Sun of L's team, caller = buyer.
    state = dealt(build_deck(revealed="10H"), rules=FEDERATION)
    state = bid(state, R, BidKind.HOKM)
    state = bid(state, O, BidKind.PASS)
    assert BidKind.ASHKAL in _bids(state, L)
    state = bid(state, L, BidKind.ASHKAL)
    assert state.contract is not None
    assert state.contract.type is ContractType.SUN
    assert state.contract.ashkal
    assert state.contract.buyer == L


def test_f13_ashkal_in_round_two_over_a_second_hokm() -> None:
    # F13: ashkal_in_round2 = true. Round 1 all pass; round 2: R Wala, O Hokm in spades
    # (not the revealed hearts), L Wala, D: Ashkal over the pending Hokm.
    state = pass_rest(dealt(build_deck(revealed="10H"), rules=FEDERATION))
    assert state.bidding_round == 2
    state = bid(state, R, BidKind.PASS)
    state = bid(state, O, BidKind.HOKM, 0)
    state = bid(state, L, BidKind.PASS)
    assert BidKind.ASHKAL in _bids(state, D)
    state = bid(state, D, BidKind.ASHKAL)
    assert state.contract is not None
    assert state.contract.ashkal
    assert state.contract.buyer == D


def test_f13_no_ashkal_in_round_two_after_saying_wala() -> None:
    # F13: "allowed in round 2 unless the caller said Wala". Round 2: R, O and L say Wala,
    # D bids Hokm in spades; L said Wala and gets no new chance (R8), and D's own Hokm
    # goes straight to his confirmation (R6: the dealer bid it).
    state = pass_rest(dealt(build_deck(revealed="10H"), rules=FEDERATION))
    for seat in (R, O, L):
        state = bid(state, seat, BidKind.PASS)
    state = bid(state, D, BidKind.HOKM, 0)
    assert state.turn == D
    assert _bids(state, L) == set()
    assert BidKind.ASHKAL not in _bids(state, D)
    assert BidKind.CONFIRM_HOKM in _bids(state, D)


# --- F14: the switch to Sun on an Ace, by the dealer's right only ----------------------------


@pytest.mark.parametrize(
    ("rules", "revealed", "bidder", "switch"),
    [
        (FEDERATION, "AH", R, True),  # the dealer's right may switch on an Ace
        (FEDERATION, "AH", O, False),  # F14: anyone else may not
        (FEDERATION, "AH", D, False),
        (FEDERATION, "10H", O, True),  # not an Ace: R6 as usual
        (SEEDS, "AH", O, True),  # SEEDS: R6 for everyone
    ],
)
def test_f14_ace_switch(rules: RuleSet, revealed: str, bidder: int, switch: bool) -> None:
    # §A.14 F14 (4-1): a round-1 Hokm on an Ace may be switched to Sun only by R.
    state = pass_until(dealt(build_deck(revealed=revealed), rules=rules), bidder)
    state = bid(state, bidder, BidKind.HOKM)
    state = pass_rest(state)
    assert state.turn == bidder
    options = _bids(state, bidder)
    assert BidKind.CONFIRM_HOKM in options
    assert (BidKind.SWITCH_TO_SUN in options) is switch


def test_f14_a_second_hokm_with_an_ace_revealed_may_be_switched_by_anyone() -> None:
    # F14 speaks of "a Hokm on it" (on the revealed Ace), i.e. a round-1 Hokm in the
    # revealed suit. A round-2 Hokm is in another suit, so R6 applies as usual: O bids
    # Hokm spades in round 2 with AH revealed and may still switch to Sun.
    state = pass_rest(dealt(build_deck(revealed="AH"), rules=FEDERATION))
    state = bid(state, R, BidKind.PASS)
    state = bid(state, O, BidKind.HOKM, 0)
    state = pass_rest(state)
    assert state.turn == O
    assert BidKind.SWITCH_TO_SUN in _bids(state, O)


# --- §A.14 rulings ---------------------------------------------------------------------------


def test_ruling_r33_the_last_tricks_ten_is_in_the_eighth_trick() -> None:
    # R33 ruling: the 10 of the last trick belongs to the 8th trick's event and to the
    # running abnat. Layout L6 (Hokm hearts, seat 1 holds every heart and leads). Seat 1
    # leads AH..7H; seats 2, 3, 0 follow with their spades, diamonds, clubs from A to 7.
    # Trick 1: AH 11 + AS 11 + AD 11 + AC 11 = 44; trick 8: 7H 0 + 7s 0 + 10 = 10.
    # Totals: hearts 62 + three suits 3 x 30 + 10 = 162, all to team 1.
    state = hokm(L6)
    order = ["A", "K", "Q", "J", "10", "9", "8", "7"]
    trick_points = []
    for rank in order:
        for suit in "HSDC":
            state, events = act_events(state, state.turn, Play(parse_card(rank + suit)))
            trick_points += [e.points for e in events if e.kind is EventKind.TRICK_WON]
            if len(trick_points) == 7 and suit == "C":
                assert state.abnat == (0, 152)
    # Hearts in Hokm: A 11, K 4, Q 3, J 20, 10 10, 9 14, 8 0, 7 0; others A 11, K 4, Q 3,
    # J 2, 10 10, 9 0, 8 0, 7 0.
    assert trick_points == [44, 16, 12, 26, 40, 14, 0, 10]
    assert state.last_score is not None
    assert state.last_score.teams[1].card_abnat == 162


def test_ruling_r27_a_sira_inside_a_longer_run_may_be_declared_and_compares_as_declared() -> None:
    # R27 ruling: seat 1 holds 7S-JS (a run of five) and declares only a Sira; seat 0 holds
    # 9D-QD and declares a Fifty. The comparison uses what was declared: Fifty > Sira, so
    # team 0 scores the projects (had seat 1 declared the Hundred, team 1 would).
    hands = {
        1: "7D 7S 8S 9S 10S JS 7H 8H",
        2: "QS AS JH KH AH KD AD 7C",
        3: "KS QH 10H 8D 9C JC KC AC",
        0: "9D 10D JD QD 9H 8C 10C QC",
    }
    for declared, team in (((HUNDRED,), 1), ((SIRA,), 0)):
        state = sun_hand(hands, "7D", buyer=1)
        # Declaring in trick 1 before one's own turn stays allowed (§A.14): seat 0 plays
        # fourth but declares while seat 1 is on turn.
        assert state.turn == 1
        state = act(state, 0, Declare((FIFTY,)))
        state = act(state, 1, Declare(declared))
        for card in ("7S", "AS", "KS", "8C"):
            state = act(state, state.turn, Play(parse_card(card)))
        assert state.project_team == team, declared


def test_ruling_r27_a_declared_sira_takes_the_best_sira_of_the_run() -> None:
    # R27 ruling + A.13 item 6 ("the engine assigns his best matching cards"): seat 1
    # holds 7S-JS and declares a Sira: its best Sira is 9S-10S-JS (top J). Seat 0 declares
    # a Sira 8D-9D-10D (top 10). Equal kind, higher top card (R29 step 4): team 1 scores.
    hands = {
        1: "7D 7S 8S 9S 10S JS 7H 8H",
        2: "QS AS JH KH AH KD AD 7C",
        3: "KS QH 10H JD 9C JC KC AC",
        0: "8D 9D 10D QD 9H 8C 10C QC",
    }
    state = sun_hand(hands, "7D", buyer=1)
    state = act(state, 0, Declare((SIRA,)))
    state = act(state, 1, Declare((SIRA,)))
    for card in ("7S", "AS", "KS", "8C"):
        state = act(state, state.turn, Play(parse_card(card)))
    assert state.project_team == 1


def test_ruling_r28_no_declaring_after_ones_first_card() -> None:
    # §A.14: R28 fixes only "before one's first card": once seat 1 has led, his own
    # declaration is closed (the earlier declaration before one's turn is the R27 case).
    state = hokm(L1)
    state = act(state, 1, Play(parse_card("AS")))
    refuse(state, 1, Declare((SIRA,)), errors.DECLARATION_CLOSED)


def test_ruling_r20_akka_not_offered_and_refused_without_declaration() -> None:
    # R20 ruling: with akka_requires_declaration off (SEEDS) no Akka play is offered and a
    # play that carries it is refused with AKKA_NOT_ALLOWED. Layout L1: seat 1 leads.
    state = hokm(L1)
    assert not SEEDS.akka_requires_declaration
    assert not any(isinstance(a, Play) and a.akka for a in legal_actions(state, 1))
    for card in ("AS", "KS", "10D"):
        refuse(state, 1, Play(parse_card(card), True), errors.AKKA_NOT_ALLOWED)
