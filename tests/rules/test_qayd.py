"""Table play (R45, R46, §A.14): illegal cards accepted and kept private, Qayd calls judged.

The hands are layout L1 of the trick-play tests: Hokm hearts (revealed 8H) bought by seat 1
(team 1), dealer 0, seat 1 leads trick 1. Seat 0 holds the Baloot (KH QH); seat 2 holds the
spade Hundred 8S-QS; seat 3 the club Sira QC KC AC. Every expected score is counted by hand:
the pot is 16 in Hokm (26 in Sun), times the multiplier; a Hundred is 10 in Hokm, a Baloot 2.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from baloot_engine.rules import errors
from baloot_engine.rules.actions import (
    CallQayd,
    ClaimSawa,
    Declare,
    EventKind,
    Play,
    QaydCategory,
    QaydVerdict,
)
from baloot_engine.rules.cards import format_card, parse_card
from baloot_engine.rules.contract import ContractType, PlayMode
from baloot_engine.rules.facts import RoundFacts
from baloot_engine.rules.game import close_review, legal_actions
from baloot_engine.rules.projects import ProjectKind
from baloot_engine.rules.qayd import penalty_score
from baloot_engine.rules.ruleset import (
    KAMMELNA,
    SEEDS,
    FalseSawa,
    QaydFalseCall,
    QaydPenalty,
    RuleSet,
)
from baloot_engine.rules.scoring import Decision, Outcome
from baloot_engine.rules.state import Phase, State
from baloot_engine.rules.validation import validate

from .scenario import L1, L6, act_events, hokm, hokm_hand, mask, play, refuse
from .strategies import TABLE_PRESETS, play_table_match, table_rules

TABLE = SEEDS.replace(illegal_moves_allowed=True)
REVOKE = QaydCategory.REVOKE
NO_TRUMP = QaydCategory.NO_TRUMP
NO_OVERTRUMP = QaydCategory.NO_OVERTRUMP
CLOSED_LEAD = QaydCategory.CLOSED_TRUMP_LEAD
FALSE_AKKA = QaydCategory.FALSE_AKKA
FALSE_SAWA = QaydCategory.FALSE_SAWA


def card(code: str) -> int:
    return parse_card(code)


def call(state: State, caller: int, qayd: CallQayd) -> tuple[State, QaydVerdict]:
    """Apply a Qayd call and return the next state and its (single) verdict."""
    state, events = act_events(state, caller, qayd)
    verdicts = [e.qayd for e in events if e.kind is EventKind.QAYD_JUDGED]
    assert len(verdicts) == 1
    verdict = verdicts[0]
    assert verdict is not None
    return state, verdict


def revoked(rules: RuleSet = TABLE) -> State:
    """Seat 1 leads AS; seat 2 holds five spades and plays AH: a revoke (R18)."""
    return play(hokm(L1, rules), "AS", "AH")


# --- an illegal card is accepted and recorded, privately --------------------------------


def test_an_illegal_card_is_refused_outside_table_play() -> None:
    state = play(hokm(L1), "AS")
    refuse(state, 2, Play(card("AH")), errors.MUST_FOLLOW_SUIT)


def test_an_illegal_card_is_accepted_in_table_play_and_recorded_with_its_evidence() -> None:
    before = play(hokm(L1, TABLE), "AS")
    # legal_actions still lists only the legal cards: the five spades.
    listed = {a.card for a in legal_actions(before, 2) if isinstance(a, Play)}
    assert listed == {card(c) for c in ("QS", "JS", "10S", "9S", "8S")}
    state = play(before, "AH")
    assert validate(state) == []
    (violation,) = state.violations
    assert violation.seat == 2
    assert violation.trick == 1
    assert violation.card == card("AH")
    assert violation.rule is REVOKE
    assert violation.evidence == mask("QS JS 10S 9S 8S")
    assert state.trick == (card("AS"), card("AH"))


def test_each_duty_broken_is_recorded_under_its_own_category() -> None:
    # Did not trump (R19): seat 0 is void in spades, holds 9H KH QH and plays AD while the
    # opponent's AS wins (seat 3 was free: his partner led an Ace).
    state = play(hokm(L1, TABLE), "AS", "QS", "QD", "AD")
    (v,) = state.violations
    assert (v.seat, v.trick, v.card, v.rule) == (0, 1, card("AD"), NO_TRUMP)
    assert v.evidence == mask("9H KH QH")
    # Did not over-trump (R19): seat 3 trumps with 10H; seat 0 must beat it with 9H but plays KH.
    state = play(hokm(L1, TABLE), "AS", "QS", "10H", "KH")
    (v,) = state.violations
    assert (v.seat, v.card, v.rule) == (0, card("KH"), NO_OVERTRUMP)
    assert v.evidence == mask("9H KH QH")
    # A trump lead in a closed game (R22): seat 1 leads 8H while holding six other cards.
    state = play(hokm(L1, TABLE, doubled=PlayMode.CLOSED), "8H")
    (v,) = state.violations
    assert (v.seat, v.trick, v.card, v.rule) == (1, 1, card("8H"), CLOSED_LEAD)
    assert v.evidence == mask("AS KS 7S 10D 9D 7C 8C")


def test_a_false_akka_is_accepted_in_table_play_and_refused_outside() -> None:
    # KS is not the boss of spades: AS (seat 1's own) and 10S (seat 2) are still out.
    rules = SEEDS.replace(akka_requires_declaration=True)
    refuse(hokm(L1, rules), 1, Play(card("KS"), akka=True), errors.AKKA_NOT_ALLOWED)
    # Without akka_requires_declaration an Akka means nothing (§A.14 rulings): refused even
    # in table play.
    refuse(hokm(L1, TABLE), 1, Play(card("KS"), akka=True), errors.AKKA_NOT_ALLOWED)
    state = play(hokm(L1, rules.replace(illegal_moves_allowed=True)), "KS!")
    (v,) = state.violations
    assert (v.seat, v.trick, v.card, v.rule) == (1, 1, card("KS"), FALSE_AKKA)
    assert v.evidence == mask("AS 10S")
    assert state.akka


def test_a_legal_card_records_nothing() -> None:
    state = play(hokm(L1, TABLE), "AS", "QS", "QD", "9H")
    assert state.violations == ()


# --- correct calls: every category caught ------------------------------------------------


def test_a_correct_revoke_call_ends_the_round_at_once() -> None:
    state, verdict = call(revoked(), 3, CallQayd(2, 1, card("AH"), REVOKE))
    assert verdict == QaydVerdict(3, 2, 1, card("AH"), REVOKE, True, mask("QS JS 10S 9S 8S"), 1)
    # Team 1 takes the Hokm pot 16; the Baloot (seat 0's KH QH) stays with team 0: 2.
    assert state.phase is Phase.ROUND_OVER
    assert state.match_scores == (2, 16)
    score = state.last_score
    assert score is not None
    assert score.decided_by is Decision.QAYD
    assert score.outcome is Outcome.MADE  # the buyer's team (1) keeps the hand
    assert score.points == (2, 16)
    assert state.last_qayd == verdict
    assert state.violations == ()


@pytest.mark.parametrize("named", [None, NO_TRUMP])
def test_did_not_trump_is_caught_with_or_without_naming_the_rule(
    named: QaydCategory | None,
) -> None:
    state = play(hokm(L1, TABLE), "AS", "QS", "QD", "AD")  # trick 1 over: seat 1 won it
    state, verdict = call(state, 1, CallQayd(0, 1, card("AD"), named))
    assert verdict.correct
    assert verdict.category is NO_TRUMP
    assert verdict.evidence == mask("9H KH QH")
    # Team 1: 16; the Baloot stays with team 0.
    assert state.match_scores == (2, 16)


def test_did_not_over_trump_is_caught() -> None:
    state = play(hokm(L1, TABLE), "AS", "QS", "10H", "KH")
    state, verdict = call(state, 3, CallQayd(0, 1, card("KH"), NO_OVERTRUMP))
    assert verdict.correct
    assert state.match_scores == (2, 16)


def test_a_closed_trump_lead_is_caught_and_the_penalty_is_doubled() -> None:
    state = play(hokm(L1, TABLE, doubled=PlayMode.CLOSED), "8H")
    state, verdict = call(state, 2, CallQayd(1, 1, card("8H"), CLOSED_LEAD))
    assert verdict.correct
    assert verdict.winner_team == 0
    # Team 0 takes 16 x 2 = 32, and its own Baloot 2 (never multiplied).
    assert state.match_scores == (34, 0)
    assert state.last_score is not None
    assert state.last_score.outcome is Outcome.FAILED


def test_a_false_akka_is_caught() -> None:
    rules = TABLE.replace(akka_requires_declaration=True)
    state = play(hokm(L1, rules), "KS!")
    state, verdict = call(state, 0, CallQayd(1, 1, card("KS"), FALSE_AKKA))
    assert verdict.correct
    assert verdict.evidence == mask("AS 10S")
    assert state.match_scores == (18, 0)  # 16 and team 0's own Baloot 2


def test_a_false_sawa_is_accepted_in_table_play_and_caught_in_the_review() -> None:
    rules = TABLE.replace(sawa=True)
    state, events = act_events(hokm(L1, rules), 1, ClaimSawa())
    kinds = [e.kind for e in events]
    assert EventKind.SAWA_CLAIMED in kinds
    assert kinds[-1] is EventKind.REVIEW_OPENED
    assert state.phase is Phase.ROUND_REVIEW
    (v,) = state.violations
    assert (v.seat, v.trick, v.card, v.rule) == (1, 1, -1, FALSE_SAWA)
    assert v.evidence == mask(L1[0]) | mask(L1[2])  # the opponents' cards
    state, verdict = call(state, 0, CallQayd(1, 1, -1, FALSE_SAWA))
    assert verdict.correct
    assert state.match_scores == (18, 0)


# --- the penalty values ------------------------------------------------------------------


def _revoke_with_projects(rules: RuleSet) -> State:
    """Seat 2 declares the spade Hundred and revokes; seat 3 declares his Sira; seat 3 calls."""
    state = play(hokm(L1, rules), "AS")
    state, _ = act_events(state, 2, Declare((ProjectKind.HUNDRED,)))
    state = play(state, "AH")
    state, _ = act_events(state, 3, Declare((ProjectKind.SIRA,)))
    state, verdict = call(state, 3, CallQayd(2, 1, card("AH")))
    assert verdict.correct
    return state


def test_full_hand_gives_the_caller_every_awarded_project() -> None:
    state = _revoke_with_projects(TABLE)
    # The Hundred (team 0) beat the Sira: awarded to team 0, 10 in Hokm. full_hand: team 1
    # takes 16 + 10 = 26; team 0 keeps only its Baloot 2.
    assert state.match_scores == (2, 26)


def test_base_only_gives_the_caller_its_own_projects_only() -> None:
    state = _revoke_with_projects(TABLE.replace(qayd_penalty=QaydPenalty.BASE_ONLY))
    # Team 1 won no project comparison: 16 alone; the Hundred is lost; the Baloot stays.
    assert state.match_scores == (2, 16)
    assert state.last_score is not None
    assert "projects of team 0 are lost" in state.last_score.reason


@pytest.mark.parametrize(
    ("penalty", "scores"), [(QaydPenalty.FULL_HAND, (0, 26)), (QaydPenalty.BASE_ONLY, (2, 16))]
)
def test_an_offenders_baloot_inside_his_lost_hundred_stays_his(
    penalty: QaydPenalty, scores: tuple[int, int]
) -> None:
    # Seat 0 holds A K Q J 10 of trumps (hearts): a run Hundred holding his Baloot, which wins
    # the comparison, then he discards a diamond while holding trumps and seat 1 calls.
    # full_hand: the Hundred goes to the callers (16 + 10) and still takes the Baloot in (R31,
    # as on a failed contract). base_only: the offenders' projects score for nobody, so nothing
    # absorbs the Baloot, which stays with its holder (§A.14 table play 3): 2 to team 0.
    hands = {
        0: "AH KH QH JH 10H 8D 7D 10C",
        1: "7H AS KS 7S 10D 9D 7C 8C",
        2: "QS JS 10S 9S 8S 9H KD 9C",
        3: "8H AD QD JD AC KC QC JC",
    }
    state = hokm_hand(hands, "7H", buyer=1, rules=TABLE.replace(qayd_penalty=penalty))
    state, _ = act_events(state, 0, Declare((ProjectKind.HUNDRED,)))
    state = play(state, "AS", "8S", "8H", "8D")
    state, verdict = call(state, 1, CallQayd(0, 1, card("8D")))
    assert verdict.correct
    assert state.match_scores == scores


def test_a_gahwa_round_lost_by_qayd_loses_the_match() -> None:
    facts = RoundFacts(
        contract=ContractType.HOKM,
        buyer_team=1,
        card_abnat=(30, 40),
        tricks_won=(1, 2),
        multiplier=4,
        gahwa=True,
        baloot_teams=(1,),
    )
    verdict = QaydVerdict(0, 1, 3, card("7S"), REVOKE, True, 0, 0)
    score = penalty_score(facts, TABLE, verdict)
    assert score.gahwa_winner == 0
    assert score.points == (0, 0)
    assert score.outcome is Outcome.GAHWA_LOST


def test_the_penalty_in_sun_is_the_sun_pot() -> None:
    facts = RoundFacts(
        contract=ContractType.SUN, buyer_team=0, card_abnat=(20, 10), tricks_won=(1, 1)
    )
    verdict = QaydVerdict(1, 0, 2, card("7S"), REVOKE, True, 0, 1)
    assert penalty_score(facts, TABLE, verdict).points == (0, 26)
    doubled = dataclasses.replace(facts, multiplier=2)
    assert penalty_score(doubled, TABLE, verdict).points == (0, 52)


@pytest.mark.parametrize(
    "change",
    [
        {"buyer_team": 2},
        {"buyer_team": 16},
        {"tricks_won": (5, 4)},
        {"card_abnat": (100, 40)},
        {"card_abnat": (-1, 10)},
        {"multiplier": 3},
        {"multiplier": 2**32},
        {"gahwa": True},
        {"baloot_teams": (0,)},
        {"reverse_kaboot": True},
    ],
)
def test_the_penalty_refuses_facts_no_cut_hand_has(change: dict[str, object]) -> None:
    """The facts of a hand a verdict ended come from a token: the ones no hand can have
    (found forged by `make forge`: a buying team 16 reached a response as a negative team)
    are refused as INVALID_ROUND_FACTS, never scored."""
    facts = RoundFacts(
        contract=ContractType.SUN, buyer_team=0, card_abnat=(20, 10), tricks_won=(1, 1)
    )
    verdict = QaydVerdict(1, 0, 2, card("7S"), REVOKE, True, 0, 1)
    with pytest.raises(errors.RuleError) as refused:
        penalty_score(dataclasses.replace(facts, **change), TABLE, verdict)  # type: ignore[arg-type]
    assert refused.value.reason == errors.INVALID_ROUND_FACTS


# --- wrong calls -------------------------------------------------------------------------


def test_a_call_on_a_clean_card_loses_the_hand_for_the_caller() -> None:
    state = play(hokm(L1, TABLE), "AS", "QS")
    state, verdict = call(state, 1, CallQayd(2, 1, card("QS")))
    assert not verdict.correct
    assert verdict.winner_team == 0
    # Evidence: seat 2's spades and trumps when trick 1 began.
    assert verdict.evidence == mask("QS JS 10S 9S 8S AH")
    assert state.match_scores == (18, 0)  # team 0: 16 and its Baloot 2


def test_a_call_naming_another_rule_is_wrong() -> None:
    state, verdict = call(revoked(), 3, CallQayd(2, 1, card("AH"), NO_TRUMP))
    assert not verdict.correct
    assert verdict.category is NO_TRUMP
    # The evidence is about the rule named (seat 2's trumps: AH), not the revoke it hides.
    assert verdict.evidence == mask("AH")
    assert state.match_scores == (18, 0)


def test_a_false_sawa_call_on_a_good_claim_is_wrong() -> None:
    # L6: seat 1 holds all eight trumps; his Sawa holds.
    rules = TABLE.replace(sawa=True)
    state, _ = act_events(hokm(L6, rules), 1, ClaimSawa())
    assert state.phase is Phase.ROUND_REVIEW
    assert state.violations == ()
    state, verdict = call(state, 0, CallQayd(1, 1, -1, FALSE_SAWA))
    assert not verdict.correct
    # Team 1 takes 16 and its own Baloot (seat 1's KH QH) 2.
    assert state.match_scores == (0, 18)


def test_with_no_penalty_a_wrong_call_is_refused_and_nothing_is_published() -> None:
    # §A.15: refused with its own reason, the state unchanged, no verdict, no event.
    rules = TABLE.replace(qayd_false_call=QaydFalseCall.NO_PENALTY)
    before = play(hokm(L1, rules), "AS", "QS")
    refused = refuse(before, 1, CallQayd(2, 1, card("QS")), errors.QAYD_WRONG)
    assert refused.details == {"seat": "2", "trick": "1", "card": "QS"}
    # Another rule than the one the card broke is wrong too; so is a false-Sawa call on a
    # claim that holds, in the review.
    state = revoked(rules)
    refuse(state, 3, CallQayd(2, 1, card("AH"), QaydCategory.NO_TRUMP), errors.QAYD_WRONG)
    claimed, _ = act_events(hokm(L6, rules.replace(sawa=True)), 1, ClaimSawa())
    assert claimed.phase is Phase.ROUND_REVIEW
    refuse(claimed, 0, CallQayd(1, 1, -1, FALSE_SAWA), errors.QAYD_WRONG)
    # A right call still ends the hand.
    state = play(hokm(L1, rules), "AS", "AH")
    state, verdict = call(state, 3, CallQayd(2, 1, card("AH")))
    assert verdict.correct
    assert state.match_scores == (2, 16)


# --- calls that are refused (nothing judged) ---------------------------------------------


def test_calls_that_point_at_nothing_are_refused() -> None:
    state = revoked()
    refuse(state, 0, CallQayd(2, 1, card("AH")), errors.QAYD_NOT_ALLOWED)  # own team
    refuse(state, 3, CallQayd(2, 1, card("QS")), errors.QAYD_INVALID)  # not played
    refuse(state, 1, CallQayd(0, 1, card("AH")), errors.QAYD_INVALID)  # another seat's card
    refuse(state, 3, CallQayd(2, 2, card("AH")), errors.QAYD_INVALID)  # trick not played
    refuse(state, 3, CallQayd(2, 1, -1, FALSE_SAWA), errors.QAYD_INVALID)  # no claim
    refuse(state, 3, CallQayd(2, 1, -1), errors.QAYD_INVALID)
    refuse(hokm(L1, TABLE), 0, CallQayd(1, 1, card("AS")), errors.WRONG_PHASE)  # no card yet


def test_no_qayd_outside_table_play() -> None:
    state = play(hokm(L1), "AS", "QS")
    refuse(state, 1, CallQayd(2, 1, card("QS")), errors.QAYD_NOT_ALLOWED)


def test_a_call_after_the_round_was_scored_is_refused() -> None:
    state, _ = call(revoked(), 3, CallQayd(2, 1, card("AH")))
    assert state.phase is Phase.ROUND_OVER
    refuse(state, 3, CallQayd(2, 1, card("AH")), errors.WRONG_PHASE)
    with pytest.raises(errors.RuleError) as refused:
        close_review(state)
    assert refused.value.reason == errors.REVIEW_NOT_OPEN


# --- the review: the last trick, the host closing it -------------------------------------


def _play_lowest(state: State, tricks: int) -> State:
    """Play the lowest legal card until ``tricks`` tricks are complete."""
    while len(state.tricks) < tricks:
        plays = [a for a in legal_actions(state, state.turn) if isinstance(a, Play) and not a.akka]
        state, _ = act_events(state, state.turn, plays[0])
    return state


def _false_akka_on_the_last_lead(rules: RuleSet) -> State:
    """A hand whose trick-8 leader holds a plain non-Ace card another seat can beat; he
    leads it calling Akka and the last trick is played out: the round is under review."""
    for seed in range(400):
        rng = random.Random(seed)
        deck = list(range(32))
        rng.shuffle(deck)
        hands = {s: " ".join(_codes(deck[s * 8 : s * 8 + 8])) for s in range(4)}
        if parse_card("8H") not in deck[8:16]:
            continue
        state = _play_lowest(hokm(hands, rules), 7)
        leader = state.turn
        (lead,) = (c for c in range(32) if state.hands[leader] >> c & 1)
        others = state.hands[0] | state.hands[1] | state.hands[2] | state.hands[3]
        others &= ~state.hands[leader]
        beaten = any(
            others >> c & 1 and c >> 3 == lead >> 3 and c & 7 > lead & 7 for c in range(32)
        )
        if lead >> 3 == state.trump or lead & 7 == 7 or not beaten:
            continue
        state, _ = act_events(state, leader, Play(lead, akka=True))
        return _play_lowest(state, 8)
    raise AssertionError("no deal found")


def _codes(cards: list[int]) -> list[str]:
    return [format_card(c) for c in cards]


def test_the_last_trick_can_be_called_in_the_review() -> None:
    rules = TABLE.replace(akka_requires_declaration=True)
    state = _false_akka_on_the_last_lead(rules)
    assert state.phase is Phase.ROUND_REVIEW
    assert state.turn == -1
    assert legal_actions(state, 0) == legal_actions(state, 1) == []
    (v,) = state.violations
    assert v.trick == 8
    assert v.rule is FALSE_AKKA
    caller = (v.seat + 1) & 3
    state, verdict = call(state, caller, CallQayd(v.seat, 8, v.card, FALSE_AKKA))
    assert verdict.correct
    assert state.phase in (Phase.ROUND_OVER, Phase.MATCH_OVER)
    score = state.last_score
    assert score is not None
    # The caller's team takes the pot of 16 and whatever projects and Baloot: at least 16.
    assert score.points[caller & 1] >= 16
    assert score.teams[caller & 1].card_points == 16


def test_the_host_closing_the_review_scores_the_round_as_outside_table_play() -> None:
    rules = TABLE.replace(akka_requires_declaration=True)
    state = _false_akka_on_the_last_lead(rules)
    closed, events = close_review(state)
    assert events[0].kind is EventKind.ROUND_SCORED
    assert closed.phase in (Phase.ROUND_OVER, Phase.MATCH_OVER)
    score = closed.last_score
    assert score is not None
    assert score.decided_by is not Decision.QAYD
    # Eight tricks were played: the abnat with the last-trick 10 make the whole 162.
    assert sum(score.facts.card_abnat) == 162
    assert sum(score.facts.tricks_won) == 8
    refuse(closed, 0, CallQayd(1, 8, 0), errors.WRONG_PHASE)


def test_outside_table_play_the_last_card_still_scores_at_once() -> None:
    state = _play_lowest(hokm(L1), 8)
    assert state.phase is Phase.ROUND_OVER


# --- false Sawa outside table play -------------------------------------------------------


def test_a_false_sawa_outside_table_play_is_refused_by_default() -> None:
    refuse(hokm(L1, SEEDS.replace(sawa=True)), 1, ClaimSawa(), errors.SAWA_INVALID)


def test_a_false_sawa_loses_the_hand_at_once_under_loses_hand() -> None:
    rules = SEEDS.replace(sawa=True, false_sawa=FalseSawa.LOSES_HAND)
    state, events = act_events(hokm(L1, rules), 1, ClaimSawa())
    verdicts = [e.qayd for e in events if e.kind is EventKind.QAYD_JUDGED]
    assert verdicts == [QaydVerdict(-1, 1, 1, -1, FALSE_SAWA, True, mask(L1[0]) | mask(L1[2]), 0)]
    assert state.phase is Phase.ROUND_OVER
    assert state.match_scores == (18, 0)  # team 0: 16 and its Baloot 2
    # A good claim still takes the remaining tricks.
    good, _ = act_events(hokm(L6, rules), 1, ClaimSawa())
    assert good.last_score is not None
    assert good.last_score.decided_by is Decision.KABOOT


# --- random table-play matches -----------------------------------------------------------


@pytest.mark.parametrize(
    "base", TABLE_PRESETS, ids=lambda r: "kammelna" if r == KAMMELNA else "seeds"
)
@pytest.mark.parametrize(
    "variant",
    [{}, {"qayd_penalty": QaydPenalty.BASE_ONLY, "qayd_false_call": QaydFalseCall.NO_PENALTY}],
    ids=["defaults", "other values"],
)
def test_random_table_matches_conserve_cards_and_keep_totals(
    base: RuleSet, variant: dict[str, object]
) -> None:
    rules = table_rules(base).replace(akka_requires_declaration=True, **variant)
    judged = {True: 0, False: 0}
    for seed in range(4):
        steps = play_table_match(random.Random(seed), rules)
        totals = [0, 0]
        for state, events in steps:
            assert validate(state) == []
            for event in events:
                if event.kind is EventKind.ROUND_SCORED:
                    assert event.score is not None
                    totals[0] += event.score.points[0]
                    totals[1] += event.score.points[1]
                if event.kind is EventKind.QAYD_JUDGED:
                    assert event.qayd is not None
                    judged[event.qayd.correct] += 1
            assert tuple(totals) == state.match_scores
        final = steps[-1][0]
        assert final.phase is Phase.MATCH_OVER
        assert final.winner in (0, 1)
    assert judged[True]
    # Under no_penalty a wrong call is refused (QAYD_WRONG), never judged in public (§A.15).
    assert bool(judged[False]) is (rules.qayd_false_call is QaydFalseCall.LOSES_HAND)


def test_an_uncalled_false_sawa_is_scored_as_claimed_when_the_review_closes() -> None:
    rules = TABLE.replace(sawa=True)
    state, _ = act_events(hokm(L1, rules), 1, ClaimSawa())
    closed, events = close_review(state)
    assert events[0].kind is EventKind.ROUND_SCORED
    score = closed.last_score
    assert score is not None
    # All eight tricks went to the claimer's team (1), and with them all 162 abnat: a kaboot
    # by the buyer, 25 in Hokm; seat 0's Baloot is lost in the buyer's kaboot (R42, seed000).
    assert score.facts.tricks_won == (0, 8)
    assert score.facts.card_abnat == (0, 162)
    assert score.decided_by is Decision.KABOOT
    assert closed.match_scores == (0, 25)
