"""The facts of a finished round, and the check that a round could have produced them.

This module owns :class:`RoundFacts`, what the scoring of :mod:`baloot_engine.rules.scoring`
takes: built by the engine from a played hand, from the eight tricks
(:meth:`RoundFacts.from_tricks`), or given by hand by a score-keeping app, with the awarded
projects (:func:`award_projects`) and the Baloot (:func:`baloot_teams_for`). Impossible facts
are refused by :func:`validate_facts` with ``INVALID_ROUND_FACTS`` (§A.13 item 12), never
scored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from baloot_engine.rules.cards import (
    ACE,
    LAST_TRICK_BONUS,
    SORTED_HOKM_POINTS,
    SORTED_SUN_POINTS,
    TEN,
    format_card,
    format_mask,
    trick_points,
)
from baloot_engine.rules.contract import ContractType
from baloot_engine.rules.errors import INVALID_ROUND_FACTS, RuleError, malformed
from baloot_engine.rules.projects import (
    RAW_VALUES,
    Project,
    ProjectKind,
    baloot_absorbed,
    baloot_mask,
    project_points_of,
    team_projects,
    winning_seat,
)
from baloot_engine.rules.ruleset import RuleSet

SUN_TOTAL: Final = 130
"""Card abnat of a Sun round, last-trick bonus included (R34)."""


HOKM_TOTAL: Final = 162
"""Card abnat of a Hokm round, last-trick bonus included (R34)."""


TRICKS_PER_ROUND: Final = 8


CONTRACT_NAMES: Final = {ContractType.SUN: "Sun", ContractType.HOKM: "Hokm"}


@dataclass(frozen=True, slots=True)
class AwardedProject:
    """A project that scores for ``team`` after the R29 comparison.

    ``seat`` and ``cards`` are optional (a score-keeping app may only know the type); when
    given they are checked (a four-of-a-kind of 9s is refused, no card may be in two projects).
    """

    team: int
    kind: ProjectKind
    seat: int | None = None
    cards: int = 0

    def points(self, sun: bool) -> int:
        """Game points of the project, unmultiplied (R30)."""
        return project_points_of(self.kind, sun)

    @property
    def raw(self) -> int:
        """Raw value in abnat."""
        return RAW_VALUES[self.kind]


def award_projects(
    declared: Sequence[Sequence[Project]], first_seat: int
) -> tuple[AwardedProject, ...]:
    """Return the projects that score after the R29 comparison, as :class:`AwardedProject`.

    ``declared[seat]`` are the projects each seat 0-3 declared; the team of the winning seat
    scores the projects of both its players (:func:`~baloot_engine.rules.projects.team_projects`:
    by declarer, seats in order, each seat's as declared).
    """
    seat = winning_seat(declared, first_seat)
    if seat is None:
        return ()
    team = seat & 1
    return tuple(
        AwardedProject(team, project.kind, player, project.cards)
        for player, project in team_projects(declared, team)
    )


def baloot_teams_for(
    hands: Sequence[int],
    trump: int,
    awarded: Sequence[AwardedProject],
    rules: RuleSet,
) -> tuple[int, ...]:
    """Return ``RoundFacts.baloot_teams`` for the 8-card hands held at the start of play (R31).

    The holder of the K and Q of trump scores a Baloot unless a project he scores (``awarded``
    with his seat) takes it in under ``baloot_absorption``: a run Hundred holding both cards
    (``run_hundred``), four Kings or four Queens (``four_of_a_kind_kq``), or nothing.
    """
    mask = baloot_mask(trump)
    if not mask:
        return ()
    for seat, hand in enumerate(hands):
        if hand & mask != mask:
            continue
        scored = [
            Project(p.kind, p.cards, _run_length(p.cards) >= 5) for p in awarded if p.seat == seat
        ]
        return () if baloot_absorbed(scored, trump, rules) else (seat & 1,)
    return ()


def _int(value: object) -> bool:
    """A plain integer: ``True`` and ``False`` are not counts."""
    return type(value) is int


@dataclass(frozen=True, slots=True)
class RoundFacts:
    """Everything the scoring needs about a finished round.

    ``card_abnat`` includes the +10 of the last trick; ``projects`` are the projects awarded by
    R29 (so all of one team); ``baloot_teams`` holds the team of the Baloot holder when the
    Baloot scores (after absorption by a Hundred). ``reverse_kaboot`` says the R43 condition was
    met and matters only with ``rules.reverse_kaboot``.
    """

    contract: ContractType
    buyer_team: int
    card_abnat: tuple[int, int]
    tricks_won: tuple[int, int]
    projects: tuple[AwardedProject, ...] = ()
    baloot_teams: tuple[int, ...] = ()
    multiplier: int = 1
    gahwa: bool = False
    reverse_kaboot: bool = False

    @classmethod
    def from_tricks(
        cls,
        contract: ContractType,
        trump: int,
        buyer_team: int,
        tricks: Sequence[tuple[Sequence[int], int]],
        *,
        projects: tuple[AwardedProject, ...] = (),
        baloot_teams: tuple[int, ...] = (),
        multiplier: int = 1,
        gahwa: bool = False,
        reverse_kaboot: bool = False,
    ) -> RoundFacts:
        """Build the facts from the eight tricks: ``(cards, winning seat)`` each (R32-R34).

        Card abnat per team are the values of the cards of the tricks it won plus 10 for the
        winner of the last trick. The 32 cards must each appear exactly once.
        """
        if contract is ContractType.SUN:
            if trump != -1:
                raise _invalid(
                    f"a Sun contract has no trump suit, got trump {trump}", field="trump"
                )
        elif not (_int(trump) and 0 <= trump <= 3):
            raise _invalid(f"a Hokm contract needs a trump suit 0-3, got {trump!r}", field="trump")
        if len(tricks) != TRICKS_PER_ROUND:
            raise _invalid(f"a round has 8 tricks, got {len(tricks)}", field="tricks")
        abnat = [0, 0]
        won = [0, 0]
        seen = 0
        for number, (cards, seat) in enumerate(tricks, start=1):
            if len(cards) != 4:
                raise _invalid(f"trick {number} has {len(cards)} cards, not 4", trick=number)
            if not (_int(seat) and 0 <= seat <= 3):
                raise _invalid(f"trick {number} has winning seat {seat!r}, not 0-3", trick=number)
            team = seat & 1
            for card in cards:
                if not (_int(card) and 0 <= card < 32):
                    raise _invalid(f"trick {number} holds an invalid card {card!r}", trick=number)
                if seen >> card & 1:
                    name = format_card(card)
                    raise _invalid(
                        f"card {name} appears twice (trick {number})", trick=number, card=name
                    )
                seen |= 1 << card
            abnat[team] += trick_points(cards, trump, last=number == TRICKS_PER_ROUND)
            won[team] += 1
        return cls(
            contract=contract,
            buyer_team=buyer_team,
            card_abnat=(abnat[0], abnat[1]),
            tricks_won=(won[0], won[1]),
            projects=projects,
            baloot_teams=baloot_teams,
            multiplier=multiplier,
            gahwa=gahwa,
            reverse_kaboot=reverse_kaboot,
        )


def _invalid(message: str, **details: object) -> RuleError:
    return malformed(INVALID_ROUND_FACTS, message, **{k: str(v) for k, v in details.items()})


def _run_length(cards: int) -> int:
    """Length of the run ``cards`` forms inside one suit, or 0 when it is not one run."""
    if cards <= 0 or cards >= 1 << 32:
        return 0
    low = (cards & -cards).bit_length() - 1
    if low >> 3 != (cards.bit_length() - 1) >> 3:
        return 0
    shifted = cards >> low
    return shifted.bit_length() if shifted & (shifted + 1) == 0 else 0


def _project_shape_ok(project: AwardedProject, sun: bool) -> bool:
    cards = project.cards
    kind = project.kind
    run = _run_length(cards)
    if kind is ProjectKind.SIRA:
        return run == 3
    if kind is ProjectKind.FIFTY:
        return run == 4
    low = (cards & -cards).bit_length() - 1
    four = low <= ACE and cards == 0x01010101 << low
    if kind is ProjectKind.HUNDRED:
        return run >= 5 or (four and low >= TEN and (low != ACE or not sun))
    if kind is ProjectKind.FOUR_HUNDRED:
        return four and low == ACE
    return False


def validate_facts_at_scores(
    facts: RoundFacts, rules: RuleSet, match_scores: tuple[int, int]
) -> None:
    """Refuse facts the match scores before the round rule out (``INVALID_ROUND_FACTS``): a
    doubled Sun where R15 allows no Double at those scores."""
    if (
        facts.contract is ContractType.SUN
        and facts.multiplier == 2
        and not rules.sun_double_allowed(match_scores, facts.buyer_team)
    ):
        raise _invalid(
            "a Sun cannot be doubled at these match scores (R15: the buying team above 100, "
            "the defenders below)",
            field="multiplier",
        )


def validate_facts(facts: RoundFacts, rules: RuleSet) -> None:
    """Refuse facts that no round can produce (§A.13 item 12) with ``INVALID_ROUND_FACTS``.

    Checked: the contract, teams 0/1, per-team abnat summing to 130/162 and tricks to 8, no
    negative numbers, no abnat without a trick (so a kaboot team holds every abnat), no team at
    exactly 1 abnat (no card is worth 1), the multiplier (1-4, at most 2 in Sun), no Gahwa in
    Sun, at most one Baloot and none in Sun, projects of one team only, no Four Hundred in Hokm,
    no Baloot among the projects, project cards of the right shape and never shared, at most two
    projects per seat, and a reverse kaboot only in a Sun whose buyer took no trick.
    """
    del rules  # every flag accepts the same facts; kept for symmetry with score_round
    sun = _validate_shape(facts)
    contract = facts.contract
    total = SUN_TOTAL if sun else HOKM_TOTAL
    abnat, tricks = facts.card_abnat, facts.tricks_won
    if sum(abnat) != total:
        raise _invalid(
            f"card abnat must sum to {total} in {CONTRACT_NAMES[contract]}, "
            f"got {abnat[0]} + {abnat[1]}",
            field="card_abnat",
        )
    if sum(tricks) != TRICKS_PER_ROUND:
        raise _invalid(f"tricks must sum to 8, got {tricks[0]} + {tricks[1]}", field="tricks_won")
    for team in (0, 1):
        if tricks[team] == 0 and abnat[team] > 0:
            raise _invalid(
                f"team {team} took no trick but has {abnat[team]} abnat"
                + (" (a kaboot team holds every abnat)" if tricks[1 - team] == 8 else ""),
                team=team,
            )
        if abnat[team] == 1:
            raise _invalid(f"team {team} has 1 abnat, which no set of cards is worth", team=team)
    _validate_abnat_per_trick(abnat, tricks, sun)
    if facts.reverse_kaboot and not (sun and tricks[facts.buyer_team] == 0):
        raise _invalid(
            "a reverse kaboot needs a Sun contract whose buying team took no trick",
            field="reverse_kaboot",
        )


def validate_cut_facts(facts: RoundFacts) -> None:
    """Refuse facts no hand ended by a Qayd verdict (§A.14) can have: the checks of
    :func:`validate_facts` that hold for any part of a round (the contract, teams 0/1, the
    multiplier, the Gahwa, the Baloot, the projects' shapes; abnat and tricks two
    non-negative numbers each) and at most the whole round's eight tricks and abnat."""
    sun = _validate_shape(facts)
    if sum(facts.tricks_won) > TRICKS_PER_ROUND:
        raise _invalid("a hand has at most 8 tricks", field="tricks_won")
    if sum(facts.card_abnat) > (SUN_TOTAL if sun else HOKM_TOTAL):
        raise _invalid("a hand has at most the round's abnat", field="card_abnat")
    if facts.reverse_kaboot:
        raise _invalid("a hand a verdict ended is no reverse kaboot", field="reverse_kaboot")


def _validate_shape(facts: RoundFacts) -> bool:
    """What holds for the facts of any hand, whole or cut short; return whether it is a Sun."""
    contract = facts.contract
    if not isinstance(contract, ContractType):
        raise _invalid(f"unknown contract {contract!r}", field="contract")
    sun = contract is ContractType.SUN
    if not (_int(facts.buyer_team) and facts.buyer_team in (0, 1)):
        raise _invalid(f"buyer team must be 0 or 1, got {facts.buyer_team!r}")
    for name, pair in (("card_abnat", facts.card_abnat), ("tricks_won", facts.tricks_won)):
        if len(pair) != 2 or type(pair[0]) is not int or type(pair[1]) is not int:
            raise _invalid(f"{name} must be two integers, one per team, got {pair!r}")
        if min(pair) < 0:
            raise _invalid(f"{name} cannot be negative, got {pair}", field=name)
    m = facts.multiplier
    if not _int(m) or not 1 <= m <= (2 if sun else 4):
        limit = "1 or 2 in Sun" if sun else "1 to 4 in Hokm"
        raise _invalid(f"the multiplier must be {limit}, got {m!r}", field="multiplier")
    if not isinstance(facts.gahwa, bool) or not isinstance(facts.reverse_kaboot, bool):
        raise _invalid("gahwa and reverse_kaboot must be booleans")
    if facts.gahwa and sun:
        raise _invalid("there is no Gahwa in a Sun contract", field="gahwa")
    if facts.gahwa and m != 4:
        raise _invalid("a Gahwa follows Four: its multiplier is 4", field="multiplier")
    if len(facts.baloot_teams) > 1:
        raise _invalid("a round has at most one Baloot", field="baloot_teams")
    for team in facts.baloot_teams:
        if sun:
            raise _invalid("there is no Baloot in a Sun contract", field="baloot_teams")
        if not (_int(team) and team in (0, 1)):
            raise _invalid(f"Baloot team must be 0 or 1, got {team!r}", field="baloot_teams")
    _validate_projects(facts.projects, sun)
    return sun


def _sums_by_count(values: Sequence[int]) -> tuple[frozenset[int], ...]:
    """For each n, every total the values of n distinct cards of the deck can make."""
    sums: list[set[int]] = [{0}] + [set() for _ in values]
    for value in values:
        for n in range(len(values), 0, -1):
            sums[n] |= {total + value for total in sums[n - 1]}
    return tuple(frozenset(found) for found in sums)


_CARD_SUMS: Final = {
    True: _sums_by_count(SORTED_SUN_POINTS),
    False: _sums_by_count(SORTED_HOKM_POINTS),
}
"""The totals 4k cards can make, by k (R32): in Hokm the same whatever the trump suit."""


def _validate_abnat_per_trick(abnat: tuple[int, int], tricks: tuple[int, int], sun: bool) -> None:
    """A team with k tricks holds 4k cards: its abnat are a total 4k cards of the deck can make
    (no four Sun cards are worth 38, say). One of the teams with a trick also has the 10 of the
    last trick."""
    sums = _CARD_SUMS[sun]

    def fits(team: int, bonus: int) -> bool:
        return abnat[team] - bonus in sums[4 * tricks[team]]

    for last in (0, 1):
        if tricks[last] and fits(last, LAST_TRICK_BONUS) and fits(1 - last, 0):
            return
    raise _invalid(
        f"{abnat[0]} and {abnat[1]} abnat cannot come from {tricks[0]} and {tricks[1]} tricks",
        field="card_abnat",
    )


def _validate_projects(projects: tuple[AwardedProject, ...], sun: bool) -> None:
    teams: set[int] = set()
    used = 0
    per_seat = [0, 0, 0, 0]
    for project in projects:
        if not isinstance(project, AwardedProject) or not isinstance(project.kind, ProjectKind):
            raise _invalid(f"not an awarded project: {project!r}", field="projects")
        name = project.kind.value
        if not (_int(project.team) and project.team in (0, 1)):
            raise _invalid(f"project team must be 0 or 1, got {project.team!r}", field="projects")
        teams.add(project.team)
        if project.kind is ProjectKind.BALOOT:
            raise _invalid("Baloot is not an awarded project; give it in baloot_teams")
        if project.kind is ProjectKind.FOUR_HUNDRED and not sun:
            raise _invalid("four Aces are a Hundred in Hokm, not a Four Hundred", project=name)
        if project.seat is not None:
            if not (_int(project.seat) and 0 <= project.seat <= 3):
                raise _invalid(f"project seat must be 0-3, got {project.seat!r}", project=name)
            if project.seat & 1 != project.team:
                raise _invalid(f"seat {project.seat} is not in team {project.team}", project=name)
            per_seat[project.seat] += 1
            if per_seat[project.seat] > 2:
                raise _invalid(f"seat {project.seat} has more than two projects", seat=project.seat)
        if not _int(project.cards) or not 0 <= project.cards < 1 << 32:
            raise _invalid(f"project cards must be a card mask, got {project.cards!r}")
        if project.cards:
            if not _project_shape_ok(project, sun):
                contract = "Sun" if sun else "Hokm"
                raise _invalid(
                    f"the cards {format_mask(project.cards)} do not form a {name} in {contract}",
                    project=name,
                )
            if used & project.cards:
                raise _invalid("a card is used in two projects", project=name)
            used |= project.cards
    if sum(p.kind is ProjectKind.FOUR_HUNDRED for p in projects) > 1:
        raise _invalid("there are only four Aces: at most one Four Hundred")
    if len(teams) > 1:
        raise _invalid("after the project comparison only one team scores projects")
    if len(projects) > 4:
        raise _invalid("a team scores at most four projects (two per player)")
