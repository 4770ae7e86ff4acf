"""The end of a round and of the match (R41-R44): scoring into the totals, the winner.

A played hand is turned into plain :class:`RoundFacts` and scored by the same function
score-keeping apps call, so a played round and a recorded one can never disagree.
"""

from __future__ import annotations

from collections.abc import Sequence

from baloot_engine.rules.actions import Event, EventKind, QaydVerdict
from baloot_engine.rules.cards import ACES
from baloot_engine.rules.contract import Contract, next_seat, team_of
from baloot_engine.rules.facts import AwardedProject, RoundFacts
from baloot_engine.rules.members import MATCH_OVER, ROUND_OVER, ROUND_SCORED
from baloot_engine.rules.projects import baloot_absorbed
from baloot_engine.rules.ruleset import BothCrossRule, RuleSet
from baloot_engine.rules.scoring import RoundScore, score_checked_round
from baloot_engine.rules.state import State, shown_projects
from baloot_engine.rules.state import tricks_won as won_per_team


def round_facts(
    state: State, sawa_tricks: int = 0, *, ended_by_qayd: bool = False, projects_lost: int = -1
) -> RoundFacts:
    """Describe a finished hand (or one a Qayd verdict ended: no reverse Kaboot then) as the
    plain facts the scoring function takes. ``projects_lost``: the team whose projects score
    for nobody (a Qayd's offenders under ``qayd_penalty = base_only``), whose Baloot no project
    then absorbs (R31)."""
    contract = state.contract
    assert contract is not None
    tricks_won = list(won_per_team(state.tricks))
    if sawa_tricks:
        tricks_won[team_of(state.sawa_seat)] += sawa_tricks
    # The running abnat already hold the 10 of the last trick (R33): the winner of the 8th
    # trick, or the Sawa claimer's team, took it.
    abnat = state.abnat
    awarded = awarded_projects(state)
    baloot_teams = scored_baloot_teams(state, projects_lost)
    return RoundFacts(
        contract=contract.type,
        buyer_team=contract.buyer_team,
        card_abnat=(abnat[0], abnat[1]),
        tricks_won=(tricks_won[0], tricks_won[1]),
        projects=awarded,
        baloot_teams=baloot_teams,
        multiplier=contract.multiplier,
        gahwa=contract.gahwa,
        # Only where R43 is played: otherwise the fact would record whether the buyer held an
        # Ace that nobody saw (a round a Sawa ended), and the sealed state would carry it.
        reverse_kaboot=state.rules.reverse_kaboot
        and not ended_by_qayd
        and reverse_kaboot_condition(
            contract, state.dealer, state.full_hands[contract.buyer], tricks_won
        ),
    )


def awarded_projects(state: State) -> tuple[AwardedProject, ...]:
    """The projects of the team that won the comparison (R29), once it is made."""
    return tuple(
        AwardedProject(team_of(seat), project.kind, seat=seat, cards=project.cards)
        for seat, project in shown_projects(state)
    )


def scored_baloot_teams(state: State, projects_lost: int = -1) -> tuple[int, ...]:
    """The team of the Baloot holder when the Baloot scores (R31: not absorbed), else ().

    A project absorbs the Baloot only when it scores: the holder declared it, his team won the
    comparison, and its projects are not lost (``projects_lost``, the team of a Qayd's
    offenders under ``base_only``, whose Baloot stays theirs, §A.14 table play 3)."""
    contract = state.contract
    assert contract is not None
    holder = state.baloot_seat
    if holder < 0:
        return ()
    declaration = state.declarations[holder]
    scored = (
        declaration.projects
        if declaration is not None
        and team_of(holder) == state.project_team
        and team_of(holder) != projects_lost
        else ()
    )
    if baloot_absorbed(scored, contract.trump, state.rules):
        return ()
    return (team_of(holder),)


def reverse_kaboot_condition(
    contract: Contract, dealer: int, buyer_hand: int, tricks_won: Sequence[int]
) -> bool:
    """R43's condition: a Sun bought by the dealer's right (``dealer``: the seat that dealt the
    round), who held an Ace (``buyer_hand``: his eight cards), and his team took no trick
    (``tricks_won``: each team's). The one statement of it: the played round's facts and the
    solver's par of a finished round both ask it."""
    return (
        contract.is_sun
        and contract.buyer == (dealer + 1) & 3
        and buyer_hand & ACES != 0
        and tricks_won[contract.buyer_team] == 0
    )


def finish_round(
    state: State, events: list[Event], sawa_tricks: int = 0
) -> tuple[State, list[Event]]:
    """Score the round, add it to the match (R44), and move to the next deal or the end."""
    score = score_checked_round(round_facts(state, sawa_tricks), state.rules)
    return finish_scored(state, events, score)


def finish_scored(
    state: State, events: list[Event], score: RoundScore, qayd: QaydVerdict | None = None
) -> tuple[State, list[Event]]:
    """Add a scored round to the match (R44): a played one, or one a Qayd verdict ended."""
    contract = state.contract
    assert contract is not None
    events.append(Event(ROUND_SCORED, team=contract.buyer_team, score=score))
    totals = (state.match_scores[0] + score.points[0], state.match_scores[1] + score.points[1])
    winner = winner_after(totals, score, state.rules)
    # Between rounds only what the views show survives: the last tricks and contract, and the
    # score (whose facts hold the awarded projects and Baloot).
    finished = State(
        rules=state.rules,
        phase=MATCH_OVER if winner >= 0 else ROUND_OVER,
        dealer=next_seat(state.dealer),
        hand_number=state.hand_number,
        match_scores=totals,
        turn=-1 if winner >= 0 else next_seat(state.dealer),
        tricks=state.tricks,
        played=state.played,
        contract=contract,
        buy_card=state.buy_card,
        abnat=state.abnat,
        sawa_seat=state.sawa_seat,
        last_score=score,
        winner=winner,
        last_qayd=qayd,
        rounds_scored=state.rounds_scored + 1,
    )
    if winner >= 0:
        events.append(Event(EventKind.MATCH_WON, team=winner))
    return finished, events


def winner_after(totals: tuple[int, int], score: RoundScore, rules: RuleSet) -> int:
    """The team that has won the match once ``score`` made the ``totals``, or -1 (R41, R44).

    A Gahwa round's winner wins at once. Otherwise a team at or over the target wins; when
    both are, the higher total wins (equal totals: another hand), or the buying team under
    ``both_cross_rule = buyer_team``.
    """
    if score.gahwa_winner is not None:
        return score.gahwa_winner
    return winner_of_totals(totals, score.buyer_team, rules)


def winner_of_totals(totals: tuple[int, int], buyer_team: int, rules: RuleSet) -> int:
    """The team that has won the match with these ``totals`` after a round that
    ``buyer_team`` bought and that was not a Gahwa, or -1 while the match goes on (R41)."""
    target = rules.match_target
    over = [totals[0] >= target, totals[1] >= target]
    if over[0] and over[1]:
        if rules.both_cross_rule is BothCrossRule.BUYER_TEAM:
            return buyer_team
        if totals[0] == totals[1]:
            return -1
        return 0 if totals[0] > totals[1] else 1
    if over[0]:
        return 0
    if over[1]:
        return 1
    return -1
