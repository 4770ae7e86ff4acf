"""Projects (المشاريع): detection in a hand, the best choice, declarations and comparison.

This module owns R24-R31 up to the point where projects become points:

* which card sets are projects (R24-R26) and which of them a player may score together (R27,
  ``split_long_runs``, §A.13 item 6),
* what a declaration of project types assigns and when it is refused (R28, ``PROJECT_NOT_HELD``),
* the ordering of projects and the comparison between the two teams once trick 1 is over
  (R29; made at the first card of trick 2, R28),
* Baloot detection and its absorption by a project of its holder (R31, ``baloot_absorption``).

Runs use the sequence order A-K-Q-J-10-9-8-7, which is the rank index order of
:mod:`baloot_engine.rules.cards`, so a run is a block of adjacent bits inside a suit's byte and
a four-of-a-kind is one bit in each suit's byte. Everything here is bit arithmetic on hand masks.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cache
from typing import Final

from baloot_engine.rules.cards import ACE, KING_QUEEN, TEN, format_mask
from baloot_engine.rules.errors import (
    INVALID_ACTION,
    PROJECT_NOT_HELD,
    ErrorKind,
    RuleError,
)
from baloot_engine.rules.ruleset import BalootAbsorption, RuleSet


class ProjectKind(Enum):
    """The project types of R24 (Baloot included, though it is never declared)."""

    SIRA = "sira"
    FIFTY = "fifty"
    HUNDRED = "hundred"
    FOUR_HUNDRED = "four_hundred"
    BALOOT = "baloot"


RAW_VALUES: Final[dict[ProjectKind, int]] = {
    ProjectKind.SIRA: 20,
    ProjectKind.FIFTY: 50,
    ProjectKind.HUNDRED: 100,
    # "Four Hundred" is a name: its value is 200 abnat, 40 game points in Sun (E7).
    ProjectKind.FOUR_HUNDRED: 200,
    ProjectKind.BALOOT: 20,
}

BALOOT_POINTS: Final = 2
"""Game points of a Baloot (20 raw in Hokm); never multiplied (R31)."""

# One bit per suit at rank 0; shifted by a rank it is the four cards of that rank.
_FOUR_OF_RANK: Final = 0x01010101
_RUN_KINDS: Final = {3: ProjectKind.SIRA, 4: ProjectKind.FIFTY}

# R29 classes, higher is better. A sequence Hundred beats any four-of-a-kind Hundred.
_CLASS_FOUR_HUNDRED: Final = 5
_CLASS_SEQUENCE_HUNDRED: Final = 4
_CLASS_FOUR_KIND_HUNDRED: Final = 3
_CLASS_FIFTY: Final = 2
_CLASS_SIRA: Final = 1
_CLASS_BALOOT: Final = 0


def project_points_of(kind: ProjectKind, sun: bool) -> int:
    """Return the game points of a project kind: Sun ``raw * 2 // 10``, Hokm ``raw // 10`` (R30)."""
    raw = RAW_VALUES[kind]
    return raw * 2 // 10 if sun else raw // 10


@dataclass(frozen=True, slots=True)
class Project:
    """One project held by one player: its kind, the mask of its cards and its shape.

    ``sequence`` is True for a run and False for a four-of-a-kind or a Baloot.
    """

    kind: ProjectKind
    cards: int
    sequence: bool

    @property
    def raw(self) -> int:
        """Raw value in abnat: Sira 20, Fifty 50, Hundred 100, Four Hundred 200, Baloot 20."""
        return RAW_VALUES[self.kind]

    @property
    def top(self) -> int:
        """For a run, the card index of its highest card; otherwise the rank of its cards."""
        high = self.cards.bit_length() - 1
        return high if self.sequence else high & 7

    @property
    def top_rank(self) -> int:
        """Rank index (0 = 7 … 7 = A) of the highest card; what R29 compares."""
        return (self.cards.bit_length() - 1) & 7

    @property
    def length(self) -> int:
        """Number of cards in the project."""
        return self.cards.bit_count()

    def points(self, trump: int) -> int:
        """Game points under a contract with ``trump`` (-1 for Sun), R30; Four Hundred is 40."""
        return project_points_of(self.kind, trump < 0)

    def __str__(self) -> str:
        return f"{self.kind.value} ({format_mask(self.cards)})"

    def __repr__(self) -> str:
        return f"Project(ProjectKind.{self.kind.name}, {self.cards:#010x}, {self.sequence})"


@cache  # at most 4 suits x 8 ranks x 8 lengths: projects are immutable
def _run_project(suit: int, low_rank: int, length: int) -> Project:
    kind = _RUN_KINDS.get(length, ProjectKind.HUNDRED)
    return Project(kind, ((1 << length) - 1) << (suit * 8 + low_rank), True)


def _maximal_runs(hand: int) -> Iterator[tuple[int, int, int]]:
    """Yield ``(suit, low_rank, length)`` of every maximal run of three or more cards."""
    for suit in range(4):
        byte = (hand >> (suit * 8)) & 0xFF
        while byte:
            low = (byte & -byte).bit_length() - 1
            shifted = byte >> low
            # Trailing ones of ``shifted``: the run starting at ``low``.
            length = (shifted ^ (shifted + 1)).bit_length() - 1
            if length >= 3:
                yield suit, low, length
            byte &= ~(((1 << length) - 1) << low)


def _four_of_a_kind(hand: int, trump: int) -> Iterator[Project]:
    # Four 9s, 8s and 7s are not projects (R24); four Aces are a Four Hundred in Sun only.
    for rank in range(TEN, ACE + 1):
        cards = _FOUR_OF_RANK << rank
        if hand & cards == cards:
            if rank == ACE and trump < 0:
                yield Project(ProjectKind.FOUR_HUNDRED, cards, False)
            else:
                yield Project(ProjectKind.HUNDRED, cards, False)


def find_candidates(hand: int, trump: int) -> list[Project]:
    """Return every project shape in a hand, overlapping ones included (R24-R27).

    Every run of three or more cards of one suit, sub-runs included (3 cards: Sira, 4: Fifty,
    5 or more: Hundred), and every qualifying four-of-a-kind. ``trump`` is -1 for Sun. Baloot is
    not a candidate: see :func:`has_baloot`. Which of these a player may score together is
    :func:`usable_candidates` and :func:`best_projects`.
    """
    found: list[Project] = []
    for suit, low, length in _maximal_runs(hand):
        for size in range(length, 2, -1):
            for start in range(low + length - size, low - 1, -1):
                found.append(_run_project(suit, start, size))
    found.extend(_four_of_a_kind(hand, trump))
    return found


# Bits 0-5 of each suit's byte: where a run of three inside one suit can start.
_RUN_STARTS: Final = 0x3F3F3F3F
# Ten to Ace in the lowest suit: the ranks whose four-of-a-kind is a project.
_FOUR_KIND_RANKS: Final = sum(1 << rank for rank in range(TEN, ACE + 1))


def may_hold_project(hand: int) -> bool:
    """A quick test: does the hand hold a run of three in one suit or a qualifying four?

    Most hands hold no project; this answers them with a few bit operations before any
    candidate is built.
    """
    runs = hand & hand >> 1 & hand >> 2 & _RUN_STARTS
    fours = hand & hand >> 8 & hand >> 16 & hand >> 24 & _FOUR_KIND_RANKS
    return bool(runs or fours)


def usable_candidates(hand: int, trump: int, split_long_runs: bool) -> list[Project]:
    """Return the projects a player may choose from, with long runs per ``split_long_runs``.

    A run of up to five cards offers all its sub-runs (so a four-of-a-kind may take one of its
    cards and leave a Sira). A run of six to eight cards is one fixed shape (§A.13 item 6): with
    ``split_long_runs`` a Hundred of its five highest cards plus a Sira of the rest when three
    cards remain; without it one Hundred of the whole run, none of whose cards may serve
    elsewhere.
    """
    if not may_hold_project(hand):
        return []
    found: list[Project] = []
    for suit, low, length in _maximal_runs(hand):
        if length <= 5:
            for size in range(length, 2, -1):
                for start in range(low + length - size, low - 1, -1):
                    found.append(_run_project(suit, start, size))
        elif split_long_runs:
            rest = length - 5
            found.append(_run_project(suit, low + rest, 5))
            if rest >= 3:
                found.append(_run_project(suit, low, rest))
        else:
            found.append(_run_project(suit, low, length))
    found.extend(_four_of_a_kind(hand, trump))
    return found


def declaration_candidates(
    hand: int, trump: int, split_long_runs: bool
) -> tuple[list[Project], tuple[int, ...]]:
    """The projects a player may *declare*, and the masks of his runs of six to eight cards.

    :func:`usable_candidates` plus every Sira and Fifty inside a run of six to eight cards: a
    player may declare a shorter run inside a longer one, since declaring less than one holds
    is always allowed (the ruling on R27 of §A.14). A Hundred out of such a run stays what
    §A.13 item 6 makes it, the run's five highest cards (or the whole run without
    ``split_long_runs``), so no lower five cards can be declared to keep the K and Q of trump
    out of it. Two projects taken from one such run are a split of it, allowed only with
    ``split_long_runs`` (see :func:`pairable`).
    """
    found = usable_candidates(hand, trump, split_long_runs)
    long_runs: list[int] = []
    for suit, low, length in _maximal_runs(hand):
        if length <= 5:
            continue
        long_runs.append(((1 << length) - 1) << (suit * 8 + low))
        for size in (4, 3):
            for start in range(low + length - size, low - 1, -1):
                project = _run_project(suit, start, size)
                if project not in found:
                    found.append(project)
    return found, tuple(long_runs)


def pairable(
    first: Project, second: Project, long_runs: tuple[int, ...], split_long_runs: bool
) -> bool:
    """May a player score ``first`` and ``second`` together (R27)?

    They never share a card; without ``split_long_runs`` they are not two parts of one run of
    six to eight cards.
    """
    if first.cards & second.cards:
        return False
    if split_long_runs:
        return True
    return not any(first.cards & run and second.cards & run for run in long_runs)


def baloot_mask(trump: int) -> int:
    """Return the mask of the K and Q of trump (0 in Sun)."""
    return KING_QUEEN[trump] if trump >= 0 else 0


def has_baloot(hand: int, trump: int) -> bool:
    """True when the hand holds the K and Q of trump in a Hokm contract (R31)."""
    mask = baloot_mask(trump)
    return mask != 0 and hand & mask == mask


def baloot_project(trump: int) -> Project:
    """Return the Baloot of a trump suit as a :class:`Project` (for display and events)."""
    if trump < 0:
        raise ValueError("there is no Baloot in a Sun contract")
    return Project(ProjectKind.BALOOT, baloot_mask(trump), False)


def absorbs_baloot(project: Project, baloot: int, absorption: BalootAbsorption) -> bool:
    """Does ``project``, scored by the Baloot's holder, take in the Baloot ``baloot`` (R31)?

    ``run_hundred``: a run Hundred holding both the K and Q of trump. ``four_of_a_kind_kq``
    (§A.14 F11): four Kings or four Queens, which hold one of the two; a run never does.
    ``none``: nothing. A Sira or a Fifty never absorbs it.
    """
    if project.kind is not ProjectKind.HUNDRED or not baloot:
        return False
    if absorption is BalootAbsorption.RUN_HUNDRED:
        return project.sequence and project.cards & baloot == baloot
    if absorption is BalootAbsorption.FOUR_OF_A_KIND_KQ:
        return not project.sequence and project.cards & baloot != 0
    return False


def baloot_absorbed(projects: Sequence[Project], trump: int, rules: RuleSet) -> bool:
    """True when one of the holder's scored projects takes his Baloot in (R31).

    ``projects`` are the holder's *scored* projects; ``baloot_absorption`` says which project
    absorbs it (:func:`absorbs_baloot`).
    """
    if trump < 0:
        return False
    mask = baloot_mask(trump)
    return any(absorbs_baloot(p, mask, rules.baloot_absorption) for p in projects)


def project_rank(project: Project) -> tuple[int, int]:
    """Return the R29 ordering key of a project; higher is better.

    Four Hundred > sequence Hundred > four-of-a-kind Hundred > Fifty > Sira (> Baloot, which
    is never compared). Within a class the higher top card in sequence order wins; sequence
    Hundreds of different lengths compare by top card only (§A.13 item 7); four-of-a-kind
    Hundreds compare A > K > Q > J > 10. The suit never matters.
    """
    kind = project.kind
    if kind is ProjectKind.HUNDRED:
        cls = _CLASS_SEQUENCE_HUNDRED if project.sequence else _CLASS_FOUR_KIND_HUNDRED
    elif kind is ProjectKind.FIFTY:
        cls = _CLASS_FIFTY
    elif kind is ProjectKind.SIRA:
        cls = _CLASS_SIRA
    elif kind is ProjectKind.FOUR_HUNDRED:
        cls = _CLASS_FOUR_HUNDRED
    else:
        cls = _CLASS_BALOOT
    return cls, project.top_rank


def _choice_key(
    chosen: tuple[Project, ...], baloot: int, absorption: BalootAbsorption
) -> tuple[int, tuple[tuple[int, int], ...], tuple[int, ...]]:
    """Order the candidate sets of §A.13 item 6; the largest key is the player's choice.

    First the total raw value plus 20 for a Baloot the set does not absorb, then the ranks of
    the projects best first (R29), then the card masks so that the choice is deterministic.
    """
    total = sum(RAW_VALUES[p.kind] for p in chosen)
    if baloot and not any(absorbs_baloot(p, baloot, absorption) for p in chosen):
        total += RAW_VALUES[ProjectKind.BALOOT]
    ranks = tuple(sorted((project_rank(p) for p in chosen), reverse=True))
    masks = tuple(sorted((p.cards for p in chosen), reverse=True))
    return total, ranks, masks


def _best_choice(
    candidates: Sequence[Project],
    hand: int,
    trump: int,
    rules: RuleSet,
    kinds: list[ProjectKind] | None,
    long_runs: tuple[int, ...] = (),
) -> tuple[Project, ...] | None:
    """Best set of at most two candidates that may go together, optionally of the given kinds.

    ``long_runs`` are the player's runs of six to eight cards when ``candidates`` hold parts
    of them (a declaration), for :func:`pairable`.
    """
    baloot = baloot_mask(trump) if has_baloot(hand, trump) else 0
    absorption = rules.baloot_absorption
    best: tuple[Project, ...] | None = None
    best_key: tuple[int, tuple[tuple[int, int], ...], tuple[int, ...]] | None = None

    def consider(chosen: tuple[Project, ...]) -> None:
        nonlocal best, best_key
        if kinds is not None and sorted(p.kind.value for p in chosen) != [k.value for k in kinds]:
            return
        key = _choice_key(chosen, baloot, absorption)
        if best_key is None or key > best_key:
            best, best_key = chosen, key

    consider(())
    for i, first in enumerate(candidates):
        consider((first,))
        for second in candidates[i + 1 :]:
            if pairable(first, second, long_runs, rules.split_long_runs):
                consider((first, second))
    if best is None:
        return None
    return tuple(sorted(best, key=project_rank, reverse=True))


def best_projects(hand: int, trump: int, rules: RuleSet) -> tuple[Project, ...]:
    """Return the projects a player scores from an 8-card hand, best first (R27, §A.13 item 6).

    Among all sets of at most two disjoint usable projects, the highest total raw value counting
    a Baloot the set does not absorb (so an equal choice never costs the Baloot); then the set
    whose best project ranks higher (R29). Baloot itself is not in the result.
    """
    candidates = usable_candidates(hand, trump, rules.split_long_runs)
    if not candidates:
        return ()
    chosen = _best_choice(candidates, hand, trump, rules, None)
    return chosen or ()


def projects_for_declaration(
    hand: int, kinds: Sequence[ProjectKind], trump: int, rules: RuleSet
) -> tuple[Project, ...]:
    """Assign a declaration of project types to the player's best matching cards (R28).

    A player names types, not cards; the engine picks, among the sets of projects of exactly
    those types that he may declare together (:func:`declaration_candidates`,
    :func:`pairable`), the one :func:`best_projects` would prefer. A player may declare less
    than he holds (any subset, even a Fifty out of a five-card run or a Sira out of a
    seven-card run). Baloot is never declared (it is scored automatically) and more than two
    projects are never allowed.

    Raises :class:`RuleError` ``PROJECT_NOT_HELD`` with ``allowed`` = the types of his best
    projects when he does not hold the declaration; ``INVALID_ACTION`` for a declared Baloot.
    """
    if any(kind is ProjectKind.BALOOT for kind in kinds):
        raise RuleError(
            INVALID_ACTION,
            "Baloot is not declared: it is scored automatically when the K and Q of trump are "
            "held by one player.",
            kind=ErrorKind.MALFORMED,
        )
    if not kinds:
        return ()
    held = best_projects(hand, trump, rules)
    wanted = sorted(kinds, key=lambda k: k.value)
    chosen = None
    if len(wanted) <= 2:
        candidates, long_runs = declaration_candidates(hand, trump, rules.split_long_runs)
        chosen = _best_choice(candidates, hand, trump, rules, wanted, long_runs)
    if chosen is None:
        declared = " + ".join(k.value for k in kinds)
        holding = " + ".join(p.kind.value for p in held) or "no project"
        limit = " (a player scores at most two projects)" if len(wanted) > 2 else ""
        raise RuleError(
            PROJECT_NOT_HELD,
            f"Declared {declared}{limit}, but the hand holds {holding}.",
            allowed=tuple(p.kind.value for p in held),
            details={
                "declared": ",".join(k.value for k in kinds),
                "held": ",".join(p.kind.value for p in held),
            },
        )
    return chosen


def winning_seat(declared: Sequence[Sequence[Project]], first_seat: int) -> int | None:
    """Return the seat whose single best project wins the R29 comparison, or None.

    ``declared[seat]`` are the projects declared by each seat 0-3 (a Baloot among them is
    ignored). Exactly equal projects go to the seat that comes first in turn order starting
    from ``first_seat`` (the dealer's right): ``first_seat``, ``first_seat + 1``, … mod 4.
    """
    best_seat: int | None = None
    best_rank: tuple[int, int] | None = None
    for step in range(4):
        seat = (first_seat + step) & 3
        for project in declared[seat]:
            if project.kind is ProjectKind.BALOOT:
                continue
            rank = project_rank(project)
            # Strictly better only: an equal project of a later seat does not take over.
            if best_rank is None or rank > best_rank:
                best_seat, best_rank = seat, rank
    return best_seat


def team_projects(
    declared: Sequence[Sequence[Project]], team: int
) -> tuple[tuple[int, Project], ...]:
    """The projects a team scores when it wins the R29 comparison: every project both its
    players declared (``declared[seat]``, seats 0-3; a Baloot among them is left out), each
    with its declarer, seats in order. The one listing of them: the revealed projects, the
    played round's facts, the views and the bots' scoring of a deal all come from it."""
    return tuple(
        (seat, project)
        for seat in range(4)
        if seat & 1 == team
        for project in declared[seat]
        if project.kind is not ProjectKind.BALOOT
    )


def compare_declarations(declared: Sequence[Sequence[Project]], first_seat: int) -> int | None:
    """Return the team (0 or 1) that scores its projects (R29), or None.

    The team holding the single best declared project scores all the projects of both its
    players; the other team scores none. See :func:`winning_seat` for the order and tie-break.
    """
    seat = winning_seat(declared, first_seat)
    return None if seat is None else seat & 1


CACHES: Final = {"run_projects": _run_project}
"""The bounded caches of this module, by their metric label (``server/caches.py``)."""
