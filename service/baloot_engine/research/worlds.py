"""Deals a seat cannot tell from the real one: the hidden cards dealt again, for search.

:func:`draw_hands` draws the hands of the other seats consistently with one seat's
observation, as the bots sample their worlds (:mod:`baloot_engine.bots.tracking`: hand sizes,
the cards seen in a hand, the cards a seat showed it cannot hold), and besides with the
projects the other seats declared: the cards of a declaration that is not shown are placed
first (one of the sets of that type the seat could hold, drawn at random), and a world in
which a declaration would come out otherwise (an automatic declaration of other types, a
declared type the hand cannot make) is drawn again. The OpenSpiel game replays its deal from
such a world (:meth:`~baloot_engine.research.openspiel_game.BalootState.resample_from_infostate`)
and keeps it when the seat's observation is the same; the draw narrows the worlds, the replay
decides.
"""

from __future__ import annotations

import random
from typing import Final

from baloot_engine.bots.tracking import Tracker, sample_hands, track
from baloot_engine.rules.declaring import declarable
from baloot_engine.rules.observation import Observation
from baloot_engine.rules.projects import Project, ProjectKind, best_projects, usable_candidates

DRAWS: Final = 50
"""Worlds :func:`draw_hands` draws, at most, for one that fits the declarations."""

_FOUR_OF_RANK: Final = 0x01010101
_SHAPES: Final = tuple(
    [
        ((1 << length) - 1) << (suit * 8 + start)
        for suit in range(4)
        for length in (3, 4, 5)
        for start in range(9 - length)
    ]
    + [_FOUR_OF_RANK << rank for rank in range(8)]
)
"""Every set of cards a project can be: the runs of three to five cards and the fours of a kind."""


def spent_by_seat(observation: Observation) -> tuple[int, int, int, int]:
    """The cards each seat has played this round (completed tricks and the current one)."""
    spent = [0, 0, 0, 0]
    for record in observation.tricks:
        for position, card in enumerate(record.cards):
            spent[(record.leader + position) & 3] |= 1 << card
    for position, card in enumerate(observation.trick):
        spent[(observation.leader + position) & 3] |= 1 << card
    return spent[0], spent[1], spent[2], spent[3]


def _hidden_declarations(observation: Observation) -> list[tuple[int, tuple[ProjectKind, ...]]]:
    """The other seats' declarations whose cards are not shown."""
    shown = {seat for seat, _ in observation.shown}
    return [
        (seat, kinds)
        for seat, kinds in enumerate(observation.declared)
        if kinds and seat != observation.seat and seat not in shown
    ]


def _projects_within(cards: int, trump: int, split: bool) -> list[Project]:
    """Every project (run of three to five, four of a kind) made of cards of ``cards``."""
    found = []
    for shape in _SHAPES:
        if shape & ~cards:
            continue
        for project in usable_candidates(shape, trump, split):
            if project.cards == shape:
                found.append(project)
    return found


def _planted(
    observation: Observation, tracker: Tracker, spent: tuple[int, int, int, int], rng: random.Random
) -> Tracker | None:
    """The tracker with the cards of one drawn set of each hidden declaration placed in its
    declarer's hand, or None when a declaration finds no such set."""
    trump = observation.trump
    split = observation.rules.split_long_runs
    known = list(tracker.known)
    taken = 0
    for seat in range(4):
        taken |= known[seat]
    for seat, kinds in _hidden_declarations(observation):
        room = tracker.sizes[seat] - known[seat].bit_count()
        free = tracker.unseen & ~tracker.excluded[seat] & ~taken
        cards = spent[seat] | known[seat] | free
        within = _projects_within(cards, trump, split)
        firsts = [p for p in within if p.kind is kinds[0]]
        options: list[int] = []
        if len(kinds) == 1:
            options = [p.cards for p in firsts]
        else:
            seconds = [p for p in within if p.kind is kinds[1]]
            options = [a.cards | b.cards for a in firsts for b in seconds if not a.cards & b.cards]
        options = [o for o in options if (o & free).bit_count() <= room]
        if not options:
            return None
        chosen = rng.choice(options) & free
        known[seat] |= chosen
        taken |= chosen
    return tracker._replace(known=(known[0], known[1], known[2], known[3]))


def _fits(
    observation: Observation, world: tuple[int, int, int, int], spent: tuple[int, int, int, int]
) -> bool:
    """The other seats' declarations come out as they did with the hands of ``world``."""
    trump = observation.trump
    rules = observation.rules
    for seat in range(4):
        if seat == observation.seat:
            continue
        full = world[seat] | spent[seat]
        declared = observation.declared[seat]
        if rules.auto_declare_projects:
            kinds = tuple(project.kind for project in best_projects(full, trump, rules))
            if kinds != (declared or ()):
                return False
        elif declared and declared not in declarable(full, trump, rules):
            return False
    return True


def draw_hands(observation: Observation, rng: random.Random) -> tuple[int, int, int, int]:
    """The hands of a world consistent with ``observation`` (of the doubling or the play):
    the seat's own hand, the others drawn (see the module's documentation).

    Gives the last world drawn when none of :data:`DRAWS` fits the declarations (the replay
    that follows refuses it).
    """
    tracker = track(observation)
    spent = spent_by_seat(observation)
    hidden = bool(_hidden_declarations(observation))
    world = sample_hands(observation, tracker, rng)
    for draw in range(DRAWS):
        if draw:
            planted = _planted(observation, tracker, spent, rng) if hidden and draw & 1 else None
            world = sample_hands(observation, planted or tracker, rng)
        if _fits(observation, world, spent):
            return world
    return world
