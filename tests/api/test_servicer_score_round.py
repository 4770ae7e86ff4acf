"""The stateless round-score calculator over the wire: the conversion tables CV1 and CV2 and the
card-points example CP1 of the rulebook, the match score after a round, and facts that no round
can produce."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot.v1 import rules_pb2, types_pb2

from .conftest import FEDERATION, KAMMELNA, expect_refusal, refusal

SUN = types_pb2.CONTRACT_TYPE_SUN
HOKM = types_pb2.CONTRACT_TYPE_HOKM
HEARTS = types_pb2.SUIT_HEARTS
SPADES = types_pb2.SUIT_SPADES
INVALID_ARGUMENT = grpc.StatusCode.INVALID_ARGUMENT


def sun(
    team0: int, buyer_team: int = 0, tricks: tuple[int, int] = (4, 4), **more: Any
) -> pb.ScoreRoundRequest:
    request = pb.ScoreRoundRequest(
        contract_type=SUN,
        buyer_team=buyer_team,
        card_abnat=[team0, 130 - team0],
        tricks_won=list(tricks),
    )
    return changed(request, **more)


def changed(request: pb.ScoreRoundRequest, **fields: Any) -> pb.ScoreRoundRequest:
    """``request`` with some fields set (a later field wins, as in a oneof)."""
    for name, value in fields.items():
        if isinstance(value, list):
            field = getattr(request, name)
            del field[:]
            field.extend(value)
        elif isinstance(value, rules_pb2.RuleSet):
            request.rules.CopyFrom(value)
        else:
            setattr(request, name, value)
    return request


def hokm(abnat: tuple[int, int], buyer_team: int = 0, **more: Any) -> pb.ScoreRoundRequest:
    request = pb.ScoreRoundRequest(
        contract_type=HOKM,
        trump=HEARTS,
        buyer_team=buyer_team,
        card_abnat=list(abnat),
        tricks_won=[4, 4],
    )
    return changed(request, **more)


def card_points(response: pb.ScoreRoundResponse) -> tuple[int, int]:
    teams = response.score.teams
    return teams[0].card_points, teams[1].card_points


# CV1: team card abnat (last trick included) -> Sun game points.
CV1 = {
    20: 4, 32: 6, 44: 8, 45: 9, 46: 10, 54: 10, 55: 11, 56: 12, 59: 12, 60: 12, 61: 12,
    64: 12, 65: 13, 66: 14, 69: 14, 70: 14, 75: 15, 76: 16, 85: 17, 98: 20,
}  # fmt: skip


@pytest.mark.parametrize(("abnat", "points"), CV1.items())
def test_sun_card_points_follow_cv1(
    stub: pb_grpc.BalootEngineServiceStub, abnat: int, points: int
) -> None:
    # The team with more abnat buys and makes it, so each team keeps its own points.
    response = stub.ScoreRound(sun(abnat, buyer_team=0 if abnat >= 65 else 1))
    assert response.score.made
    assert response.score.teams[0].card_points == points
    assert response.score.teams[0].card_abnat == abnat
    assert response.score.teams[1].card_abnat == 130 - abnat


# CV2: (team A, team B) -> independent rounding (SEEDS) -> pair_sum_16 (KAMMELNA).
CV2 = [
    ((52, 110), (5, 11), (5, 11)),
    ((62, 100), (6, 10), (6, 10)),
    ((72, 90), (7, 9), (7, 9)),
    ((80, 82), (8, 8), (8, 8)),
    ((85, 77), (8, 8), (8, 8)),
    ((86, 76), (9, 8), (8, 8)),
    ((87, 75), (9, 7), (9, 7)),
    ((96, 66), (10, 7), (9, 7)),
    ((106, 56), (11, 6), (10, 6)),
    ((115, 47), (11, 5), (11, 5)),
    ((126, 36), (13, 4), (12, 4)),
]


@pytest.mark.parametrize(("abnat", "independent", "pair_sum_16"), CV2)
def test_hokm_card_points_follow_cv2(
    stub: pb_grpc.BalootEngineServiceStub,
    abnat: tuple[int, int],
    independent: tuple[int, int],
    pair_sum_16: tuple[int, int],
) -> None:
    buyer = 0 if abnat[0] > abnat[1] else 1
    seeds = stub.ScoreRound(hokm(abnat, buyer))
    kammelna = stub.ScoreRound(hokm(abnat, buyer, rules=KAMMELNA))
    assert seeds.score.made
    assert kammelna.score.made
    assert card_points(seeds) == independent
    assert card_points(kammelna) == pair_sum_16
    # One flag changes the rounding whatever the preset.
    overridden = rules_pb2.RuleSet(
        preset=rules_pb2.PRESET_SEEDS, hokm_rounding=rules_pb2.HOKM_ROUNDING_PAIR_SUM_16
    )
    assert card_points(stub.ScoreRound(hokm(abnat, buyer, rules=overridden))) == pair_sum_16


def test_an_exact_hokm_tie_depends_on_the_rule_set(stub: pb_grpc.BalootEngineServiceStub) -> None:
    seeds = stub.ScoreRound(hokm((81, 81)))
    assert seeds.score.made
    assert seeds.score.reason == types_pb2.OUTCOME_REASON_EXACT_TIE
    assert card_points(seeds) == (8, 8)
    kammelna = stub.ScoreRound(hokm((81, 81), rules=KAMMELNA))
    assert not kammelna.score.made
    assert kammelna.score.reason == types_pb2.OUTCOME_REASON_EXACT_TIE
    assert [t.final_points for t in kammelna.score.teams] == [0, 16]


def test_a_failed_sun_gives_the_defenders_the_pot(stub: pb_grpc.BalootEngineServiceStub) -> None:
    response = stub.ScoreRound(sun(64, buyer_team=0))
    score = response.score
    assert not score.made
    assert score.winning_team == 1
    assert score.reason == types_pb2.OUTCOME_REASON_FEWER_POINTS
    assert [t.final_points for t in score.teams] == [0, 26]
    assert score.explanation


# CP1: eight tricks, each (cards, winning team); NS is team 0 (seat 0), EW team 1 (seat 1).
S, H, D, C = 0, 8, 16, 24
SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(8)
CP1 = [
    ([S + ACE, S + TEN, S + KING, S + QUEEN], 0),
    ([H + ACE, H + TEN, H + KING, H + QUEEN], 1),
    ([D + ACE, D + TEN, D + KING, D + QUEEN], 0),
    ([C + ACE, C + TEN, C + KING, C + QUEEN], 0),
    ([S + JACK, S + NINE, S + EIGHT, S + SEVEN], 1),
    ([H + JACK, H + NINE, H + EIGHT, H + SEVEN], 1),
    ([D + JACK, D + NINE, D + EIGHT, D + SEVEN], 0),
    ([C + JACK, C + NINE, C + EIGHT, C + SEVEN], 0),
]


def cp1_tricks() -> list[types_pb2.Trick]:
    return [
        types_pb2.Trick(
            number=number,
            cards=[types_pb2.PlayedCard(card=c) for c in cards],
            winner=team,
        )
        for number, (cards, team) in enumerate(CP1, start=1)
    ]


@pytest.mark.parametrize(
    ("contract", "trump", "abnat", "points"),
    [(SUN, types_pb2.SUIT_UNSPECIFIED, (98, 32), (20, 6)), (HOKM, SPADES, (98, 64), (10, 6))],
    ids=["sun", "hokm-spades"],
)
def test_card_points_are_counted_from_the_tricks(
    stub: pb_grpc.BalootEngineServiceStub,
    contract: int,
    trump: int,
    abnat: tuple[int, int],
    points: tuple[int, int],
) -> None:
    request = pb.ScoreRoundRequest(
        contract_type=contract, trump=trump, buyer_seat=0, tricks=cp1_tricks()
    )
    response = stub.ScoreRound(request)
    teams = response.score.teams
    assert (teams[0].card_abnat, teams[1].card_abnat) == abnat
    assert (teams[0].tricks, teams[1].tricks) == (5, 3)
    assert card_points(response) == points
    assert response.score.made
    # The same round given by its totals scores the same.
    totals = pb.ScoreRoundRequest(
        contract_type=contract, trump=trump, buyer_seat=0, card_abnat=abnat, tricks_won=[5, 3]
    )
    assert stub.ScoreRound(totals).score == response.score
    assert not response.HasField("match")


def match_after(
    stub: pb_grpc.BalootEngineServiceStub, before: tuple[int, int], **more: Any
) -> types_pb2.MatchScore:
    response = stub.ScoreRound(sun(98, tricks=(5, 3), match_scores=list(before), **more))
    assert [t.final_points for t in response.score.teams] == [20, 6]
    return response.match


def test_the_match_score_after_the_round(stub: pb_grpc.BalootEngineServiceStub) -> None:
    going_on = match_after(stub, (100, 10))
    assert list(going_on.points) == [120, 16]
    assert going_on.target == 152
    assert not going_on.HasField("winner_team")
    assert going_on.end_reason == types_pb2.MATCH_END_REASON_UNSPECIFIED

    crossed = match_after(stub, (140, 10))
    assert list(crossed.points) == [160, 16]
    assert crossed.winner_team == 0
    assert crossed.end_reason == types_pb2.MATCH_END_REASON_TARGET_REACHED

    # Both teams cross: the higher total wins; equal totals play another round.
    both = match_after(stub, (140, 150))
    assert (list(both.points), both.winner_team) == ([160, 156], 0)
    behind = match_after(stub, (135, 150))
    assert (list(behind.points), behind.winner_team) == ([155, 156], 1)
    level = match_after(stub, (136, 150))
    assert list(level.points) == [156, 156]
    assert not level.HasField("winner_team")
    # Unless the buying team wins when both cross.
    buyer_rule = rules_pb2.RuleSet(both_cross_rule=rules_pb2.BOTH_CROSS_RULE_BUYER_TEAM)
    assert match_after(stub, (135, 150), rules=buyer_rule).winner_team == 0

    # The target of the rule set.
    short = match_after(stub, (85, 0), rules=rules_pb2.RuleSet(match_target=101))
    assert (short.target, short.winner_team) == (101, 0)


def test_a_gahwa_round_decides_the_match(stub: pb_grpc.BalootEngineServiceStub) -> None:
    request = hokm((62, 100), buyer_team=0, multiplier=4, gahwa=True, match_scores=[10, 20])
    response = stub.ScoreRound(request)
    assert not response.score.made
    assert response.score.contract.gahwa
    assert response.match.winner_team == 1
    assert response.match.end_reason == types_pb2.MATCH_END_REASON_GAHWA
    assert list(response.match.points) == [10, 20]


def test_a_kaboot_is_scored_as_a_kaboot(stub: pb_grpc.BalootEngineServiceStub) -> None:
    response = stub.ScoreRound(sun(130, buyer_team=0, tricks=(8, 0)))
    score = response.score
    assert score.kaboot_team == 0
    assert score.reason == types_pb2.OUTCOME_REASON_KABOOT
    assert score.teams[0].final_points > 26
    assert score.teams[1].final_points == 0


def with_tricks(change: Any) -> pb.ScoreRoundRequest:
    tricks = cp1_tricks()
    change(tricks)
    return pb.ScoreRoundRequest(contract_type=SUN, buyer_team=0, tricks=tricks)


def _drop_winner(tricks: list[types_pb2.Trick]) -> None:
    tricks[7].ClearField("winner")


def _three_cards(tricks: list[types_pb2.Trick]) -> None:
    del tricks[7].cards[3]


def _card_twice(tricks: list[types_pb2.Trick]) -> None:
    tricks[7].cards[0].card = tricks[0].cards[0].card


def _nine_tricks(tricks: list[types_pb2.Trick]) -> None:
    tricks.append(tricks[0])


def _seven_tricks(tricks: list[types_pb2.Trick]) -> None:
    tricks.pop()


IMPOSSIBLE = {
    "abnat not summing to 130": pb.ScoreRoundRequest(
        contract_type=SUN, buyer_team=0, card_abnat=[98, 33], tricks_won=[5, 3]
    ),
    "abnat not summing to 162": hokm((86, 77)),
    "tricks not summing to 8": sun(98, tricks=(5, 4)),
    "a kaboot with abnat on both sides": sun(120, tricks=(8, 0)),
    "one abnat": hokm((1, 161)),
    "one entry per team missing": pb.ScoreRoundRequest(
        contract_type=SUN, buyer_team=0, card_abnat=[130], tricks_won=[8]
    ),
    "no totals and no tricks": pb.ScoreRoundRequest(contract_type=SUN, buyer_team=0),
    "no contract type": pb.ScoreRoundRequest(buyer_team=0, card_abnat=[98, 32], tricks_won=[5, 3]),
    "an unknown contract type": sun(98, tricks=(5, 3), contract_type=9),
    "no buyer": pb.ScoreRoundRequest(contract_type=SUN, card_abnat=[98, 32], tricks_won=[5, 3]),
    "buyer team 2": sun(98, buyer_team=2),
    "a multiplier of 5": hokm((86, 76), multiplier=5),
    "a Sun tripled": sun(98, multiplier=3),
    "a Gahwa in Sun": sun(98, gahwa=True),
    "a Gahwa without Four": hokm((86, 76), gahwa=True, multiplier=2),
    "two Baloots": hokm((86, 76), baloot_teams=[0, 1]),
    "a Baloot in Sun": sun(98, baloot_teams=[0]),
    "a Baloot of team 7": hokm((86, 76), baloot_teams=[7]),
    "projects of both teams": hokm(
        (86, 76),
        awarded_projects=[
            pb.AwardedProject(team=0, kind=types_pb2.PROJECT_KIND_SIRA),
            pb.AwardedProject(team=1, kind=types_pb2.PROJECT_KIND_SIRA),
        ],
    ),
    "a project of team 3": hokm(
        (86, 76), awarded_projects=[pb.AwardedProject(team=3, kind=types_pb2.PROJECT_KIND_SIRA)]
    ),
    "a Four Hundred in Hokm": hokm(
        (86, 76),
        awarded_projects=[pb.AwardedProject(team=0, kind=types_pb2.PROJECT_KIND_FOUR_HUNDRED)],
    ),
    "a Baloot given as a project": hokm(
        (86, 76),
        awarded_projects=[pb.AwardedProject(team=0, kind=types_pb2.PROJECT_KIND_BALOOT)],
    ),
    "five projects": hokm(
        (86, 76),
        awarded_projects=[pb.AwardedProject(team=0, kind=types_pb2.PROJECT_KIND_SIRA)] * 5,
    ),
    "a reverse kaboot in Hokm": hokm((86, 76), reverse_kaboot=True),
    "a reverse kaboot of a buyer with tricks": sun(98, reverse_kaboot=True),
    "tricks and totals": pb.ScoreRoundRequest(
        contract_type=SUN, buyer_team=0, tricks=cp1_tricks(), card_abnat=[98, 32]
    ),
    "a trick without its winner": with_tricks(_drop_winner),
    "a trick of three cards": with_tricks(_three_cards),
    "a card in two tricks": with_tricks(_card_twice),
    "nine tricks": with_tricks(_nine_tricks),
    "seven tricks": with_tricks(_seven_tricks),
    "a Sun with a trump, by its tricks": pb.ScoreRoundRequest(
        contract_type=SUN, trump=HEARTS, buyer_team=0, tricks=cp1_tricks()
    ),
}


@pytest.mark.parametrize("request_", IMPOSSIBLE.values(), ids=IMPOSSIBLE.keys())
def test_impossible_facts_are_refused(
    stub: pb_grpc.BalootEngineServiceStub, request_: pb.ScoreRoundRequest
) -> None:
    expect_refusal(stub.ScoreRound, request_, INVALID_ARGUMENT, "INVALID_ROUND_FACTS")


def test_malformed_cards_and_seats_have_their_own_reasons(
    stub: pb_grpc.BalootEngineServiceStub,
) -> None:
    def card_40(tricks: list[types_pb2.Trick]) -> None:
        tricks[7].cards[0].card = 40

    def winner_9(tricks: list[types_pb2.Trick]) -> None:
        tricks[7].winner = 9

    expect_refusal(stub.ScoreRound, with_tricks(card_40), INVALID_ARGUMENT, "INVALID_CARD")
    expect_refusal(stub.ScoreRound, with_tricks(winner_9), INVALID_ARGUMENT, "INVALID_SEAT")
    expect_refusal(stub.ScoreRound, sun(98, buyer_seat=5), INVALID_ARGUMENT, "INVALID_SEAT")
    request = sun(98, tricks=(5, 3), match_scores=[1, 2, 3])
    expect_refusal(stub.ScoreRound, request, INVALID_ARGUMENT, "REQUEST_INVALID")


MISNAMED = {
    "a Hokm without its trump": pb.ScoreRoundRequest(
        contract_type=HOKM, buyer_team=0, card_abnat=[86, 76], tricks_won=[4, 4]
    ),
    "an unknown trump": hokm((86, 76), trump=9),
    "a project of no kind": hokm(
        (86, 76),
        awarded_projects=[pb.AwardedProject(team=0, kind=types_pb2.PROJECT_KIND_UNSPECIFIED)],
    ),
}


@pytest.mark.parametrize("request_", MISNAMED.values(), ids=MISNAMED.keys())
def test_missing_facts_are_refused_as_round_facts(
    stub: pb_grpc.BalootEngineServiceStub, request_: pb.ScoreRoundRequest
) -> None:
    expect_refusal(stub.ScoreRound, request_, INVALID_ARGUMENT, "INVALID_ROUND_FACTS")


def test_a_sun_with_a_trump_is_refused_by_its_totals(
    stub: pb_grpc.BalootEngineServiceStub,
) -> None:
    request = sun(98, tricks=(5, 3), trump=HEARTS)
    expect_refusal(stub.ScoreRound, request, INVALID_ARGUMENT, "INVALID_ROUND_FACTS")


def test_match_scores_out_of_range_are_refused(stub: pb_grpc.BalootEngineServiceStub) -> None:
    request = sun(98, tricks=(5, 3), match_scores=[2**32 - 1, 2**32 - 1])
    assert refusal(stub.ScoreRound, request).code == INVALID_ARGUMENT
    # R44: a team at the target has won; no round follows it. Both at it with equal totals
    # play another round (unless the buyers win those).
    for scores in ([152, 0], [160, 158], [9000, 100]):
        request = sun(98, tricks=(5, 3), match_scores=scores)
        expect_refusal(stub.ScoreRound, request, INVALID_ARGUMENT, "REQUEST_INVALID")
    tied = stub.ScoreRound(sun(98, tricks=(5, 3), match_scores=[160, 160])).match
    assert (list(tied.points), tied.winner_team) == ([180, 166], 0)
    buyers = rules_pb2.RuleSet(both_cross_rule=rules_pb2.BOTH_CROSS_RULE_BUYER_TEAM)
    request = sun(98, tricks=(5, 3), match_scores=[160, 160], rules=buyers)
    expect_refusal(stub.ScoreRound, request, INVALID_ARGUMENT, "REQUEST_INVALID")
    request = sun(
        98, tricks=(5, 3), match_scores=[100, 0], rules=rules_pb2.RuleSet(match_target=101)
    )
    assert stub.ScoreRound(request).match.winner_team == 0


def test_a_sun_doubled_at_scores_r15_forbids_is_refused(
    stub: pb_grpc.BalootEngineServiceStub,
) -> None:
    # R15: a Sun is doubled only while the buyers are above 100 and the defenders below; the
    # match scores given say whether this round's Double could have been called.
    for scores in ([0, 0], [120, 110], [90, 10]):
        request = sun(98, tricks=(5, 3), multiplier=2, match_scores=scores)
        expect_refusal(stub.ScoreRound, request, INVALID_ARGUMENT, "INVALID_ROUND_FACTS")
    allowed = stub.ScoreRound(sun(98, tricks=(5, 3), multiplier=2, match_scores=[120, 40]))
    assert [t.final_points for t in allowed.score.teams] == [52, 0]
    assert stub.ScoreRound(sun(98, tricks=(5, 3), multiplier=2)).score.teams[0].final_points == 52


def test_the_calculator_needs_no_match(stub: pb_grpc.BalootEngineServiceStub) -> None:
    response = stub.ScoreRound(
        pb.ScoreRoundRequest(
            contract_type=SUN, buyer_team=1, card_abnat=[32, 98], tricks_won=[3, 5]
        )
    )
    score = response.score
    assert score.round_number == 0
    assert score.contract.type == SUN
    assert score.contract.buyer_team == 1
    assert score.winning_team == 1
    assert [t.team for t in score.teams] == [0, 1]
    assert [t.final_points for t in score.teams] == [6, 20]
    assert "team 1" in score.explanation


# ---------------------------------------------------------------------------------------
# The FEDERATION preset's scoring values (§A.14), computed by hand


def federation(**flags: Any) -> rules_pb2.RuleSet:
    rules = rules_pb2.RuleSet()
    rules.CopyFrom(FEDERATION)
    for name, value in flags.items():
        setattr(rules, name, value)
    return rules


@pytest.mark.parametrize(
    ("request_", "points"),
    [
        # F3: Sun 65-65, buyer team 0: the defenders' 65 -> 7 x 2 = 14, the buyer 12.
        (sun(65, rules=FEDERATION), (12, 14)),
        # F3: Hokm buyer team 1 86, defenders 76 -> 8, the buyer 16 - 8 = 8.
        (hokm((76, 86), buyer_team=1, rules=FEDERATION), (8, 8)),
        # F3 + F1: Hokm buyer team 0 76 with the Baloot (raw 96 > 86): 86 -> 9, buyer 7 + 2.
        (hokm((76, 86), rules=FEDERATION, baloot_teams=[0]), (9, 9)),
        # F6: Hokm 81-81 tripled: the buyer raised last and loses, 16 x 3 to team 1.
        (hokm((81, 81), rules=FEDERATION, multiplier=3), (0, 48)),
        # F6: the same at Four: the defenders raised last, 16 x 4 to the buyer.
        (hokm((81, 81), rules=FEDERATION, multiplier=4), (64, 0)),
        # Single flags over SEEDS: card_conversion alone, Sun 75-55 bought by team 0.
        (
            sun(
                75,
                rules=rules_pb2.RuleSet(
                    card_conversion=rules_pb2.CARD_CONVERSION_DEFENDERS_COUNTED
                ),
            ),
            (14, 12),
        ),
    ],
)
def test_score_round_takes_the_federation_values(
    stub: pb_grpc.BalootEngineServiceStub,
    request_: pb.ScoreRoundRequest,
    points: tuple[int, int],
) -> None:
    response = stub.ScoreRound(request_)
    assert tuple(t.final_points for t in response.score.teams) == points


def test_score_round_projects_at_triple_under_federation(
    stub: pb_grpc.BalootEngineServiceStub,
) -> None:
    # Hokm x3, buyer team 1 92 with a Fifty and a Sira (7 GP), team 0 70: made; the pot
    # 16 x 3 = 48 and the projects x1 (F5): 55. Under SEEDS (16 + 7) x 3 = 69.
    projects = [
        pb.AwardedProject(team=1, kind=types_pb2.PROJECT_KIND_FIFTY),
        pb.AwardedProject(team=1, kind=types_pb2.PROJECT_KIND_SIRA),
    ]
    request = hokm((70, 92), buyer_team=1, multiplier=3, awarded_projects=projects)
    assert [t.final_points for t in stub.ScoreRound(request).score.teams] == [0, 69]
    request.rules.CopyFrom(FEDERATION)
    assert [t.final_points for t in stub.ScoreRound(request).score.teams] == [0, 55]
    rules = rules_pb2.RuleSet(project_multiplier=rules_pb2.PROJECT_MULTIPLIER_DOUBLE_ONLY)
    request.rules.CopyFrom(rules)
    assert [t.final_points for t in stub.ScoreRound(request).score.teams] == [0, 55]


def test_score_round_still_refuses_impossible_facts_under_federation(
    stub: pb_grpc.BalootEngineServiceStub,
) -> None:
    for request in (
        hokm((80, 80), rules=FEDERATION),  # abnat do not sum to 162
        sun(65, rules=FEDERATION, multiplier=3),  # a Sun is doubled once at most
        hokm((81, 81), rules=FEDERATION, baloot_teams=[0, 1]),  # two Baloots
    ):
        expect_refusal(stub.ScoreRound, request, INVALID_ARGUMENT, "INVALID_ROUND_FACTS")
    unknown = hokm((81, 81), rules=federation(card_conversion=7))
    expect_refusal(stub.ScoreRound, unknown, INVALID_ARGUMENT, "INVALID_RULES")
