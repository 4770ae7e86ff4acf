"""Declaring projects in the first trick (R28) and revealing them after it (R29)."""

from __future__ import annotations

from itertools import combinations_with_replacement

import pytest
from hypothesis import given

from baloot_engine.rules import errors
from baloot_engine.rules.actions import CallQayd, ClaimSawa, Declare, EventKind, Play
from baloot_engine.rules.cards import parse_card
from baloot_engine.rules.declaring import (
    declarable,
    declaration_open,
    legal_declarations,
    reveal_projects,
)
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.projects import ProjectKind, projects_for_declaration
from baloot_engine.rules.ruleset import KAMMELNA, SEEDS, RuleSet
from baloot_engine.rules.state import State

from .scenario import L1, act, act_events, first_legal_play, hokm, play, refuse, sun_hand
from .strategies import hand_masks, trumps

SIRA, FIFTY, HUNDRED = ProjectKind.SIRA, ProjectKind.FIFTY, ProjectKind.HUNDRED
DECLARABLE = (SIRA, FIFTY, HUNDRED, ProjectKind.FOUR_HUNDRED)

# Dealer 0, seat 0 buys a Sun; seat 1 leads. Seat 1 holds a Fifty (7-8-9-10 of spades), seat 2
# a Sira (J-Q-K of hearts), seats 3 and 0 no project.
HANDS = {
    1: "7S 8S 9S 10S AH 7C 8C QD",
    2: "JH QH KH 9C 10C AC 7D JD",
    3: "JS KS 7H 9H JC 8D 10D AD",
    0: "QS AS 8H 10H QC KC 9D KD",
}


def _hand(rules: RuleSet = SEEDS) -> State:
    return sun_hand(HANDS, "KD", buyer=0, rules=rules)


def test_each_seat_may_declare_what_it_holds_before_its_first_card() -> None:
    state = _hand()
    assert state.leader == 1
    assert legal_declarations(state, 1) == [Declare((SIRA,)), Declare((FIFTY,))]
    assert legal_declarations(state, 2) == [Declare((SIRA,))]
    assert legal_declarations(state, 3) == []
    assert legal_declarations(state, 0) == []
    state = play(state, "7C")
    # Seat 1 has played: too late for him, still open for the seats after him.
    assert not declaration_open(state, 1)
    refuse(state, 1, Declare((FIFTY,)), errors.DECLARATION_CLOSED)
    assert legal_declarations(state, 2) == [Declare((SIRA,))]


def test_a_seat_declares_once_and_only_what_it_holds() -> None:
    state = _hand()
    refuse(state, 2, Declare((FIFTY,)), errors.PROJECT_NOT_HELD)
    # One or two project types: none, or three, is no declaration (R28).
    refuse(state, 2, Declare(()), errors.PROJECT_NOT_HELD)
    refuse(state, 2, Declare((SIRA, SIRA, SIRA)), errors.PROJECT_NOT_HELD)
    state, events = act_events(state, 2, Declare((SIRA,)))
    assert [(e.kind, e.seat, e.kinds) for e in events] == [
        (EventKind.PROJECTS_DECLARED, 2, (SIRA,))
    ]
    assert legal_declarations(state, 2) == []
    refuse(state, 2, Declare((SIRA,)), errors.DECLARATION_CLOSED)


def test_the_best_declaration_is_revealed_after_trick_one() -> None:
    state = act(_hand(), 1, Declare((FIFTY,)))
    state = act(state, 2, Declare((SIRA,)))
    state = play(state, "7C", "9C", "JC")
    assert state.project_team == -1
    state, events = act_events(state, 0, Play(parse_card("QC")))
    # R28: compared when the first card of trick 2 is played, not when trick 1 ends.
    assert not [e for e in events if e.kind is EventKind.PROJECTS_REVEALED]
    assert state.project_team == -1
    state, events = first_legal_play(state)
    assert events[0].kind is EventKind.CARD_PLAYED
    revealed = [e for e in events if e.kind is EventKind.PROJECTS_REVEALED]
    assert len(revealed) == 1
    assert revealed[0].team == 1  # seat 1's Fifty beats seat 2's Sira
    assert [(seat, p.kind) for seat, p in revealed[0].projects] == [(1, FIFTY)]
    assert state.project_team == 1
    assert state.tricks[0].winner == 0


def test_a_sawa_at_the_lead_of_trick_two_compares_the_projects_first() -> None:
    # R28 with R46: trick 1 is over and nobody has led to trick 2, so the declarations are
    # not compared yet; a Sawa there compares them before the round ends, and the winning
    # team's projects score beside the claimed tricks (Sun: Kaboot 44 + two Siras and a Sira
    # of team 1, 12 game points).
    hands = {
        1: "AS 10S KS QS AH 10H KH QH",
        2: "JS 9S 8S 7S JH 9H 8H 7H",
        3: "AD 10D JD QD AC 10C KC QC",
        0: "KD 9D 8D 7D JC 9C 8C 7C",
    }
    state = sun_hand(hands, "KD", buyer=0, rules=SEEDS.replace(sawa=True))
    state = act(state, 1, Declare((SIRA, SIRA)))
    state = act(state, 2, Declare((SIRA, SIRA)))
    state = play(state, "AS", "7S")
    state = act(state, 3, Declare((SIRA,)))
    state = play(state, "QD", "7D")
    assert (len(state.tricks), state.trick, state.project_team) == (1, (), -1)
    state, events = act_events(state, state.turn, ClaimSawa())
    kinds = [e.kind for e in events]
    assert kinds[:2] == [EventKind.SAWA_CLAIMED, EventKind.PROJECTS_REVEALED]
    revealed = next(e for e in events if e.kind is EventKind.PROJECTS_REVEALED)
    assert revealed.team == 1
    assert state.last_score is not None
    assert state.last_score.points == (0, 56)


def test_a_qayd_at_the_lead_of_trick_two_compares_the_projects_first() -> None:
    # R28 with R43: a Qayd called after trick 1 and before the lead of trick 2 compares the
    # declarations first (PROJECTS_REVEALED before QAYD_JUDGED), so the Qayd's score counts
    # the projects as the round's first card of trick 2 would have revealed them.
    table = SEEDS.replace(illegal_moves_allowed=True)
    state = play(hokm(L1, table), "AS")
    state = act(state, 2, Declare((HUNDRED,)))
    state = play(state, "AH")  # seat 2 revokes: it holds a spade
    state = act(state, 3, Declare((SIRA,)))
    while not state.tricks:
        state, _ = first_legal_play(state)
    assert (len(state.tricks), state.trick, state.project_team) == (1, (), -1)
    state, events = act_events(state, 3, CallQayd(2, 1, parse_card("AH")))
    assert [e.kind for e in events] == [
        EventKind.PROJECTS_REVEALED,
        EventKind.QAYD_JUDGED,
        EventKind.ROUND_SCORED,
    ]
    assert state.match_scores == (2, 26)


def test_nothing_is_revealed_when_nobody_declared() -> None:
    state = play(_hand(), "7C", "9C", "JC", "QC")
    assert state.project_team == -1
    assert len(state.tricks) == 1


def test_automatic_declarations_at_the_first_lead() -> None:
    rules = SEEDS.replace(auto_declare_projects=True)
    state = _hand(rules)
    declared = {seat: d.kinds for seat, d in enumerate(state.declarations) if d is not None}
    assert declared == {1: (FIFTY,), 2: (SIRA,)}
    assert all(legal_declarations(state, seat) == [] for seat in range(4))


@given(hand_masks, trumps)
def test_declarable_is_exactly_what_a_declaration_accepts(hand: int, trump: int) -> None:
    for rules in (SEEDS, KAMMELNA):
        accepted = set()
        for size in (1, 2):
            for kinds in combinations_with_replacement(DECLARABLE, size):
                try:
                    projects_for_declaration(hand, kinds, trump, rules)
                except RuleError:
                    continue
                accepted.add(kinds)
        assert set(declarable(hand, trump, rules)) == accepted


# --- §A.14 rulings: sub-runs of a longer run, declaring before one's turn --------------------

# Seat 1 holds a seven-card run 7S-KS; seat 0 two Siras (8D-10D and QD-AD); seats 2 and 3 none.
LONG_RUN = {
    1: "7S 8S 9S 10S JS QS KS 7H",
    2: "AS 8H 10H QH AH 7C 9C JC",
    3: "9H JH KH 8C 10C QC 7D JD",
    0: "KC AC 8D 9D 10D QD KD AD",
}


def test_a_sira_or_a_fifty_inside_a_longer_run_may_be_declared() -> None:
    state = sun_hand(LONG_RUN, "KD", buyer=0)
    # A run of seven: any Sira, Fifty or Hundred inside it, and with split_long_runs (SEEDS)
    # two disjoint parts of it: Sira + Sira (3 + 3) or Sira + Fifty (3 + 4); a Hundred leaves
    # only two cards, too few for a second project.
    assert legal_declarations(state, 1) == [
        Declare((SIRA,)),
        Declare((FIFTY,)),
        Declare((HUNDRED,)),
        Declare((SIRA, SIRA)),
        Declare((SIRA, FIFTY)),
    ]
    declared = act(state, 1, Declare((SIRA,)))
    record = declared.declarations[1]
    assert record is not None
    # The best Sira of the run: its three highest cards.
    assert record.projects[0].cards == sum(1 << parse_card(c) for c in ("JS", "QS", "KS"))
    fifty = projects_for_declaration(state.full_hands[1], (FIFTY,), -1, SEEDS)
    assert fifty[0].cards == sum(1 << parse_card(c) for c in ("10S", "JS", "QS", "KS"))


def test_without_split_long_runs_one_part_of_a_long_run_only() -> None:
    rules = SEEDS.replace(split_long_runs=False)
    state = sun_hand(LONG_RUN, "KD", buyer=0, rules=rules)
    assert legal_declarations(state, 1) == [
        Declare((SIRA,)),
        Declare((FIFTY,)),
        Declare((HUNDRED,)),
    ]
    refuse(state, 1, Declare((SIRA, FIFTY)), errors.PROJECT_NOT_HELD)
    hundred = projects_for_declaration(state.full_hands[1], (HUNDRED,), -1, rules)
    assert hundred[0].cards.bit_count() == 7  # the whole run, as before


def test_the_comparison_uses_what_was_declared() -> None:
    # Seat 1 holds a Hundred but declares only a Sira (JS-KS); seat 0 declares its Sira QD-AD,
    # whose Ace beats the King: team 0 scores its projects, seat 1's team none.
    state = sun_hand(LONG_RUN, "KD", buyer=0)
    state = act(state, 1, Declare((SIRA,)))
    state = act(state, 0, Declare((SIRA,)))  # seat 0 declares before its turn (§A.14)
    state = act(play(state, "7H", "8H", "9H"), 0, Play(parse_card("KC")))
    state, events = first_legal_play(state)
    (revealed,) = [e for e in events if e.kind is EventKind.PROJECTS_REVEALED]
    assert revealed.team == 0
    assert [(seat, p.kind) for seat, p in revealed.projects] == [(0, SIRA)]
    assert state.project_team == 0


def test_declaring_in_trick_one_before_ones_own_turn_stays_allowed() -> None:
    state = _hand()
    assert state.turn == 1
    # Seat 2 and seat 0 are not on turn: they may declare at once, before any card.
    assert legal_declarations(state, 2) == [Declare((SIRA,))]
    state, events = act_events(state, 2, Declare((SIRA,)))
    assert [(e.kind, e.seat) for e in events] == [(EventKind.PROJECTS_DECLARED, 2)]
    assert state.turn == 1


# Equal Siras (8-9-10) in seats 3 and 0; nobody else holds a project.
EQUAL_SIRAS = {
    3: "8S 9S 10S AH 7D QD 7C KC",
    0: "8H 9H 10H AS 9D KD 8C QC",
    1: "7S JS 7H JH 8D 10D 9C JC",
    2: "QS KS QH KH JD AD 10C AC",
}


@pytest.mark.parametrize(("dealer", "team"), [(2, 1), (3, 0)])
def test_equal_projects_go_to_the_seat_first_from_the_dealer_s_right(
    dealer: int, team: int
) -> None:
    # R29 step 5 in a played round: the tie goes to the seat nearer the dealer's right in
    # turn order, so seat 3 with dealer 2, seat 0 with dealer 3.
    state = sun_hand(EQUAL_SIRAS, "7S", buyer=1, dealer=dealer)
    state = act(state, 3, Declare((SIRA,)))
    state = act(state, 0, Declare((SIRA,)))
    for _ in range(4):
        state, _events = first_legal_play(state)
    state, events = first_legal_play(state)
    (revealed,) = [e for e in events if e.kind is EventKind.PROJECTS_REVEALED]
    assert revealed.team == team
    assert state.project_team == team


def test_projects_already_shown_at_the_end_of_trick_one_are_not_shown_twice() -> None:
    # A state sealed by an earlier version, which compared at the end of trick 1, carries the
    # comparison already: the first card of trick 2 does not compare again.
    state = act(_hand(), 1, Declare((FIFTY,)))
    state = play(state, "7C", "9C", "JC", "QC")
    shown = reveal_projects(state, [])
    assert shown.project_team == 1
    state, events = first_legal_play(shown)
    assert not [e for e in events if e.kind is EventKind.PROJECTS_REVEALED]
    assert state.project_team == 1
