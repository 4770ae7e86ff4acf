"""Table play (R45, §A.14): judging a Qayd (قيد) call and scoring the round it ends.

With ``illegal_moves_allowed`` a seat may play any card it holds; the rules it breaks are kept
privately in :attr:`State.violations <baloot_engine.rules.state.State.violations>` (by
:mod:`baloot_engine.rules.play` and :mod:`baloot_engine.rules.sawa`). A seat of the other team
may call Qayd on a card from the first card until the round is scored. This module says whether
a call may be made (:func:`judge` refuses it otherwise), what its verdict is, and what the round
is worth to the winner (:func:`penalty_score`). Every verdict ends the round (a wrong call
under ``qayd_false_call = no_penalty`` is refused, not judged); what follows is
:mod:`baloot_engine.rules.game`'s next step.
"""

from __future__ import annotations

from baloot_engine.rules import errors
from baloot_engine.rules.actions import CallQayd, QaydCategory, QaydVerdict
from baloot_engine.rules.cards import HIGHER, SUIT_MASKS, format_card
from baloot_engine.rules.contract import team_of
from baloot_engine.rules.errors import RuleError, malformed
from baloot_engine.rules.facts import CONTRACT_NAMES, RoundFacts, validate_cut_facts
from baloot_engine.rules.match import round_facts
from baloot_engine.rules.members import CONTRACT_SUN, PLAYING, ROUND_REVIEW
from baloot_engine.rules.projects import BALOOT_POINTS
from baloot_engine.rules.ruleset import QaydFalseCall, QaydPenalty, RuleSet
from baloot_engine.rules.scoring import (
    HOKM_POT,
    SUN_POT,
    Decision,
    Outcome,
    RoundScore,
    Tally,
    gahwa_sentence,
    project_multiplier,
    project_totals,
    round_score,
)
from baloot_engine.rules.state import State

_HIGHER_SUN = HIGHER[0]

CATEGORY_NAMES = {
    QaydCategory.REVOKE: "a revoke (قاطع)",
    QaydCategory.NO_TRUMP: "not trumping (ما دق بحكم)",
    QaydCategory.NO_OVERTRUMP: "not over-trumping (ما كبر بحكم)",
    QaydCategory.CLOSED_TRUMP_LEAD: "a trump lead in a closed game (ربع في الدبل)",
    QaydCategory.FALSE_AKKA: "a false Akka (أكة خاطئة)",
    QaydCategory.FALSE_SAWA: "a false Sawa (سوا خطأ)",
}


def may_call(state: State) -> bool:
    """Whether Qayd calls are taken now: table play, from the first card until the scoring."""
    if not state.rules.illegal_moves_allowed:
        return False
    if state.phase is ROUND_REVIEW:
        return True
    return state.phase is PLAYING and bool(state.tricks or state.trick)


def judge(state: State, caller: int, call: CallQayd) -> QaydVerdict:
    """The verdict on ``caller``'s Qayd call, or a :class:`RuleError` if it cannot be made.

    A call is refused (nothing judged) outside table play, outside the play and the review,
    against the caller's own team, or when it points at no card: the accused must have played
    ``card`` in trick ``trick`` (for a false Sawa: made the claim, and ``card`` is -1). Any
    other call is judged: right when the accused broke a rule with that card (the rule named,
    if one is), wrong otherwise. Under ``qayd_false_call = no_penalty`` a wrong call is refused
    instead (``QAYD_WRONG``, §A.15): nothing is judged, nothing published, and play goes on.
    """
    rules = state.rules
    if not rules.illegal_moves_allowed:
        raise RuleError(
            errors.QAYD_NOT_ALLOWED, "Qayd is called only in table play (illegal_moves_allowed)"
        )
    if not may_call(state):
        raise RuleError(
            errors.WRONG_PHASE,
            f"no Qayd call in phase {state.phase.value}: calls are taken from the first card "
            "until the round is scored",
        )
    accused = call.accused
    if not 0 <= accused <= 3:
        raise malformed(errors.INVALID_SEAT, f"the accused seat is 0-3, got {accused}")
    if team_of(accused) == team_of(caller):
        raise RuleError(
            errors.QAYD_NOT_ALLOWED,
            "only a seat of the other team may call Qayd on a card",
            details={"seat": str(caller), "accused": str(accused)},
        )
    _check_target(state, call)
    found = None
    for violation in state.violations:
        if (
            violation.seat == accused
            and violation.trick == call.trick
            and violation.card == call.card
        ):
            found = violation
    if found is not None and (call.category is None or call.category is found.rule):
        return QaydVerdict(
            caller, accused, call.trick, call.card, found.rule, True, found.evidence, caller & 1
        )
    if rules.qayd_false_call is QaydFalseCall.NO_PENALTY:
        # Refused, not judged: no verdict, no event, and nothing of the accused's hand shown.
        details = {"seat": str(accused), "trick": str(call.trick)}
        if call.card >= 0:
            details["card"] = format_card(call.card)
        what = (
            f"seat {accused}'s Sawa claim"
            if call.card == -1
            else f"seat {accused}'s {format_card(call.card)} in trick {call.trick}"
        )
        raise RuleError(
            errors.QAYD_WRONG,
            f"the Qayd call on {what} is wrong (no such breach of the rules); with "
            "qayd_false_call = no_penalty a wrong call is refused and play goes on",
            details=details,
        )
    evidence = _evidence_of_innocence(state, call)
    return QaydVerdict(
        caller, accused, call.trick, call.card, call.category, False, evidence, accused & 1
    )


def _check_target(state: State, call: CallQayd) -> None:
    """Refuse a call that points at no card of the accused (or at no claim of his)."""
    accused, trick, card = call.accused, call.trick, call.card
    details = {"accused": str(accused), "trick": str(trick), "card": str(card)}
    if call.category is QaydCategory.FALSE_SAWA or card == -1:
        if (
            call.category is not QaydCategory.FALSE_SAWA
            or card != -1
            or state.sawa_seat != accused
            or trick != len(state.tricks) + 1
        ):
            raise RuleError(
                errors.QAYD_INVALID,
                "a call without a card is a false Sawa call on the claimer, in the trick of "
                "the claim",
                details=details,
            )
        return
    if not 0 <= card < 32:
        raise malformed(errors.INVALID_CARD, f"a card is 0-31, got {card}")
    cards = _cards_of_trick(state, trick)
    if cards is None:
        raise RuleError(errors.QAYD_INVALID, f"trick {trick} has not been played", details=details)
    leader, played = cards
    if card not in played or (leader + played.index(card)) & 3 != accused:
        raise RuleError(
            errors.QAYD_INVALID,
            f"seat {accused} did not play {format_card(card)} in trick {trick}",
            details=details,
        )


def _cards_of_trick(state: State, trick: int) -> tuple[int, tuple[int, ...]] | None:
    """The leader and cards of trick ``trick`` (1-based; the trick in progress too)."""
    done = len(state.tricks)
    if 1 <= trick <= done:
        record = state.tricks[trick - 1]
        return record.leader, record.cards
    if trick == done + 1 and state.trick:
        return state.leader, state.trick
    return None


def hand_before(state: State, seat: int, trick: int) -> int:
    """The cards ``seat`` held when trick ``trick`` (1-based) began."""
    hand = state.full_hands[seat]
    for record in state.tricks[: trick - 1]:
        position = (seat - record.leader) & 3
        hand &= ~(1 << record.cards[position])
    return hand


def _evidence_of_innocence(state: State, call: CallQayd) -> int:
    """What shows a wrong call wrong once the round ends: the accused's cards at the time that
    the rule named is about (the suit led for a revoke, trump for not trumping or not
    over-trumping, the other suits for a closed trump lead, the higher cards still out for an
    Akka; with no rule named the suit led and trump; for a Sawa the opponents' cards). Only the
    named rule's cards: a breach of another rule by the same card stays unshown."""
    seat = call.accused
    if call.card == -1:
        return state.hands[(seat + 1) & 3] | state.hands[(seat + 3) & 3]
    cards = _cards_of_trick(state, call.trick)
    assert cards is not None
    hand = hand_before(state, seat, call.trick)
    trump = state.trump
    trumps = SUIT_MASKS[trump] if trump >= 0 else 0
    led = SUIT_MASKS[cards[1][0] >> 3]
    category = call.category
    if category is QaydCategory.REVOKE:
        return hand & led
    if category is QaydCategory.NO_TRUMP or category is QaydCategory.NO_OVERTRUMP:
        return hand & trumps
    if category is QaydCategory.CLOSED_TRUMP_LEAD:
        return hand & ~trumps
    if category is QaydCategory.FALSE_AKKA:
        played = 0
        for record in state.tricks[: call.trick - 1]:
            for card in record.cards:
                played |= 1 << card
        return _HIGHER_SUN[call.card] & ~played
    return hand & (led | trumps)


def penalty_facts(state: State, verdict: QaydVerdict) -> RoundFacts:
    """The facts of a round a verdict ended: the tricks so far, the projects and the Baloot.

    Under ``qayd_penalty = base_only`` the offenders' projects score for nobody, so none of
    them absorbs their Baloot (R31): it stays with its holder (§A.14 table play 3)."""
    lost = 1 - verdict.winner_team if state.rules.qayd_penalty is QaydPenalty.BASE_ONLY else -1
    return round_facts(state, ended_by_qayd=True, projects_lost=lost)


def penalty_score(facts: RoundFacts, rules: RuleSet, verdict: QaydVerdict) -> RoundScore:
    """The hand a verdict ended, scored as a failed contract's defenders score it (§A.14).

    The winner takes the card pot (26 in Sun, 16 in Hokm) times the multiplier, and the
    projects: every awarded project under ``qayd_penalty = full_hand``, only its own under
    ``base_only``, times the projects' multiplier (R30). The Baloot stays with its holder's
    team, never multiplied. A Gahwa hand's winner wins the match instead (R41). Facts no cut
    hand can have are refused with ``INVALID_ROUND_FACTS`` (:func:`validate_cut_facts`).
    """
    validate_cut_facts(facts)
    winner = verdict.winner_team
    buyer = facts.buyer_team
    m = facts.multiplier
    project_gp, project_raw = project_totals(facts)
    tally = Tally([0, 0], [0, 0], [0, 0], [_verdict_sentence(verdict)])
    pot = SUN_POT if facts.contract is CONTRACT_SUN else HOKM_POT
    if facts.gahwa:
        tally.sentences.append(gahwa_sentence(winner))
    else:
        project_m = project_multiplier(rules, m)
        if rules.qayd_penalty is QaydPenalty.FULL_HAND:
            won = project_gp[0] + project_gp[1]
        else:
            won = project_gp[winner]
        tally.card[winner] = pot * m
        tally.projects[winner] = won * project_m
        text = f"Team {winner} takes the card pot of {pot}"
        if m > 1:
            text += f" x {m}"
        if won:
            which = "all" if rules.qayd_penalty is QaydPenalty.FULL_HAND else "its own"
            text += f" and {which} {won} project points"
            if project_m > 1:
                text += f" x {project_m}"
        tally.sentences.append(text + "; the other team scores no card or project points.")
        if project_gp[1 - winner] and rules.qayd_penalty is QaydPenalty.BASE_ONLY:
            tally.sentences.append(f"The projects of team {1 - winner} are lost.")
        for team in facts.baloot_teams:
            tally.baloot[team] = BALOOT_POINTS
            tally.sentences.append(
                f"Baloot: {BALOOT_POINTS} to its holder's team {team}, not multiplied."
            )
    success = winner == buyer
    if facts.gahwa:
        outcome = Outcome.GAHWA_WON if success else Outcome.GAHWA_LOST
    else:
        outcome = Outcome.MADE if success else Outcome.FAILED
    tally.sentences.append(
        f"The buying team (team {buyer}) {'keeps' if success else 'loses'} the "
        f"{CONTRACT_NAMES[facts.contract]}."
    )
    return round_score(
        facts,
        tally,
        success=success,
        outcome=outcome,
        decided_by=Decision.QAYD,
        project_raw=project_raw,
        gahwa_winner=winner if facts.gahwa else None,
    )


def _verdict_sentence(verdict: QaydVerdict) -> str:
    what = (
        f"{format_card(verdict.card)} in trick {verdict.trick}"
        if verdict.card >= 0
        else f"Sawa claim in trick {verdict.trick}"
    )
    named = "" if verdict.category is None else f" for {CATEGORY_NAMES[verdict.category]}"
    if verdict.caller < 0:
        return (
            f"Seat {verdict.accused}'s Sawa claim was false, so team {verdict.accused & 1} "
            "loses the round."
        )
    if verdict.correct:
        return (
            f"Seat {verdict.caller} called Qayd{named} on seat {verdict.accused}'s {what}, "
            f"rightly: team {verdict.accused & 1} loses the round."
        )
    return (
        f"Seat {verdict.caller} called Qayd{named} on seat {verdict.accused}'s {what}, "
        f"wrongly: team {verdict.caller & 1} loses the round."
    )


def false_sawa_verdict(seat: int, trick: int, evidence: int) -> QaydVerdict:
    """The verdict on a false Sawa outside table play under ``false_sawa = loses_hand``."""
    return QaydVerdict(-1, seat, trick, -1, QaydCategory.FALSE_SAWA, True, evidence, 1 - (seat & 1))
