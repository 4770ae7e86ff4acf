"""Declaring projects during the first trick (R28), and revealing them at the first card of
trick 2 (R28, R29).

This module owns when a seat may declare, which combinations of project types it may
declare (``legal_declarations``), what a declaration records (``apply_declare``, the cards
chosen by :func:`baloot_engine.rules.projects.projects_for_declaration`), the declarations
made for every seat under ``auto_declare_projects``, and the comparison that reveals the
winning team's projects (made when the first card of trick 2 is played, or before a Sawa or a
Qayd that ends the round first: ``game._before_comparison``). Which card sets are projects is
:mod:`baloot_engine.rules.projects`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from baloot_engine.rules import errors
from baloot_engine.rules.actions import Declare, Event, EventKind
from baloot_engine.rules.contract import team_of
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.members import PLAYING
from baloot_engine.rules.projects import (
    ProjectKind,
    best_projects,
    compare_declarations,
    declaration_candidates,
    pairable,
    projects_for_declaration,
    team_projects,
)
from baloot_engine.rules.ruleset import RuleSet
from baloot_engine.rules.state import Declaration, State, declared_projects

_DECLARABLE = (ProjectKind.SIRA, ProjectKind.FIFTY, ProjectKind.HUNDRED, ProjectKind.FOUR_HUNDRED)


def declare_automatically(state: State, events: list[Event]) -> State:
    """``auto_declare_projects``: at the first lead every seat declares its best projects."""
    declarations: list[Declaration | None] = []
    trump = state.trump
    for seat in range(4):
        found = best_projects(state.hands[seat], trump, state.rules)
        if found:
            kinds = tuple(p.kind for p in found)
            declarations.append(Declaration(kinds, found))
            events.append(
                Event(EventKind.PROJECTS_DECLARED, seat=seat, team=team_of(seat), kinds=kinds)
            )
        else:
            declarations.append(None)
    return state._replace(declarations=tuple(declarations))


def declarable(hand: int, trump: int, rules: RuleSet) -> tuple[tuple[ProjectKind, ...], ...]:
    """Every combination of one or two project types the hand can declare (R27-R28).

    One type per project it may declare (a shorter run inside a longer one included), two
    types per pair of them that may go together; this is
    exactly what :func:`projects_for_declaration` accepts, without trying each combination.
    """
    return _declarable(hand, trump, rules.split_long_runs)


@lru_cache(maxsize=8192)
def _declarable(
    hand: int, trump: int, split_long_runs: bool
) -> tuple[tuple[ProjectKind, ...], ...]:
    candidates, long_runs = declaration_candidates(hand, trump, split_long_runs)
    if not candidates:
        return ()
    found: set[tuple[ProjectKind, ...]] = set()
    for i, first in enumerate(candidates):
        found.add((first.kind,))
        for second in candidates[i + 1 :]:
            if pairable(first, second, long_runs, split_long_runs):
                found.add(tuple(sorted((first.kind, second.kind), key=_DECLARABLE.index)))
    return tuple(sorted(found, key=_kinds_order))


def _kinds_order(kinds: tuple[ProjectKind, ...]) -> tuple[int, ...]:
    return (len(kinds), *(_DECLARABLE.index(k) for k in kinds))


def declaration_open(state: State, seat: int) -> bool:
    """A seat may declare during trick 1, before or with its first card, once (R28)."""
    if state.phase is not PLAYING or state.tricks or state.rules.auto_declare_projects:
        return False
    if state.declarations[seat] is not None:
        return False
    position = (seat - state.leader) & 3
    return position >= len(state.trick)


def legal_declarations(state: State, seat: int) -> list[Declare]:
    """Every project declaration ``seat`` may make now."""
    if not declaration_open(state, seat):
        return []
    hand = state.full_hands[seat]
    return [Declare(kinds) for kinds in declarable(hand, state.trump, state.rules)]


def apply_declare(state: State, seat: int, action: Declare) -> tuple[State, list[Event]]:
    """Record a declaration; the engine assigns the seat's best cards for those types."""
    if state.phase is not PLAYING:
        raise RuleError(errors.WRONG_PHASE, f"no declaring in phase {state.phase.value}")
    if not declaration_open(state, seat):
        raise RuleError(
            errors.DECLARATION_CLOSED,
            "projects are declared once, in the first trick, before or with your first card",
            details={"seat": str(seat)},
        )
    kinds = tuple(action.kinds)
    if not kinds or len(kinds) > 2:
        raise RuleError(errors.PROJECT_NOT_HELD, "declare one or two project types")
    projects = projects_for_declaration(state.full_hands[seat], kinds, state.trump, state.rules)
    declarations = list(state.declarations)
    declarations[seat] = Declaration(kinds, projects)
    events = [Event(EventKind.PROJECTS_DECLARED, seat=seat, team=team_of(seat), kinds=kinds)]
    return state._replace(declarations=tuple(declarations)), events


def reveal_projects(state: State, events: list[Event]) -> State:
    """Compare the declarations (R29) and reveal the winning team's projects: at the first card
    of trick 2 (R28), or before a Sawa or a Qayd that ends the round before it."""
    declared = declared_projects(state)
    if not any(declared):
        return state
    first = (state.dealer + 1) & 3
    team = compare_declarations(declared, first)
    if team is None:
        return state
    shown = team_projects(declared, team)
    events.append(Event(EventKind.PROJECTS_REVEALED, team=team, projects=shown))
    return state._replace(project_team=team)


CACHES: Final = {"declarable": _declarable}
"""The bounded caches of this module, by their metric label (``server/caches.py``)."""
