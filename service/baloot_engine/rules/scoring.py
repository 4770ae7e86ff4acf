"""Round scoring: from the facts of a finished round to the points of each team (R32-R43).

This module owns the normative procedure of §A.10 with every scoring flag of the ``RuleSet``:
card abnat and the last-trick bonus, the Sun and Hokm conversions, the buyer's success test,
failure, doubling, Gahwa, kaboot and reverse kaboot, projects and Baloot. It is a pure function
of :class:`~baloot_engine.rules.facts.RoundFacts` (checked first by
:func:`~baloot_engine.rules.facts.validate_facts`). The result, :class:`RoundScore`, explains
itself: every component per team and a sentence saying why the buyer made or failed the
contract.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Final

from baloot_engine.rules.contract import ContractType
from baloot_engine.rules.facts import (
    CONTRACT_NAMES,
    TRICKS_PER_ROUND,
    AwardedProject,
    RoundFacts,
    validate_facts,
)
from baloot_engine.rules.projects import (
    BALOOT_POINTS,
    RAW_VALUES,
    ProjectKind,
    project_points_of,
)
from baloot_engine.rules.ruleset import (
    BalootOnFailure,
    CardConversion,
    DoubledAllocation,
    DoubledTieRule,
    ExactTieRule,
    HokmRounding,
    KabootDoubling,
    KabootProjects,
    ProjectMultiplier,
    RuleSet,
    SuccessMetric,
)

SUN_POT: Final = 26
"""Card points a team takes when it takes a whole Sun round (R39, §A.13 item 1)."""


HOKM_POT: Final = 16
"""Card points a team takes when it takes a whole Hokm round (R39, §A.13 item 1)."""


SUN_KABOOT: Final = 44
"""Kaboot value in Sun (R42)."""


HOKM_KABOOT: Final = 25
"""Kaboot value in Hokm (R42)."""


REVERSE_KABOOT_POINTS: Final = 88
"""Defenders' score in a reverse kaboot (R43), never doubled."""


def sun_points(abnat: int) -> int:
    """Convert a team's Sun card abnat to game points (R35).

    Values ending in 5 become ``a / 5`` exactly; others are rounded to the nearest ten
    (1-4 down, 6-9 up) and then doubled and divided by ten. The two teams always sum to 26.
    """
    q, r = divmod(abnat, 5)
    return q + (1 if q & 1 and r else 0)


def hokm_points(a: int, b: int, rounding: HokmRounding) -> tuple[int, int]:
    """Convert the two teams' Hokm card abnat to game points (R36).

    Each team: ``a // 10``, plus one when the last digit is above 5 (x.5 rounds down). With
    ``PAIR_SUM_16`` a pair that sums to 17 (both last digits 6) loses the extra point on the
    side with more abnat.
    """
    pa = a // 10 + (1 if a % 10 > 5 else 0)
    pb = b // 10 + (1 if b % 10 > 5 else 0)
    if rounding is HokmRounding.PAIR_SUM_16 and pa + pb == 17:
        if a > b:
            pa -= 1
        else:
            pb -= 1
    return pa, pb


def defenders_counted_points(defender_abnat: int, sun: bool) -> tuple[int, int]:
    """Convert under ``card_conversion = defenders_counted`` (§A.14 F3): (defenders, buyer).

    Only the defenders' abnat are converted; the buyer takes the rest of the card pot (26 in
    Sun, 16 in Hokm). Hokm: abnat / 10, a remainder of 1-5 rounds down, 6-9 up. Sun: abnat /
    10, a remainder of 5 or more rounds up, then doubled, so the defenders' Sun points are
    always even.
    """
    tens, rest = divmod(defender_abnat, 10)
    if sun:
        defenders = (tens + (1 if rest >= 5 else 0)) * 2
        return defenders, SUN_POT - defenders
    defenders = tens + (1 if rest > 5 else 0)
    return defenders, HOKM_POT - defenders


def convert_card_points(
    abnat: tuple[int, int], sun: bool, buyer_team: int, rules: RuleSet
) -> tuple[int, int]:
    """Each team's card game points from the two teams' abnat (R35/R36, ``card_conversion``)."""
    if rules.card_conversion is CardConversion.DEFENDERS_COUNTED:
        defenders, buyer = defenders_counted_points(abnat[1 - buyer_team], sun)
        return (buyer, defenders) if buyer_team == 0 else (defenders, buyer)
    if sun:
        return sun_points(abnat[0]), sun_points(abnat[1])
    return hokm_points(abnat[0], abnat[1], rules.hokm_rounding)


class Outcome(Enum):
    """How the round ended for the buying team."""

    MADE = "made"  # the buyer passed the success test (a split included)
    FAILED = "failed"  # the buyer failed: the defenders take the pot
    KABOOT = "kaboot"  # the buyer took all eight tricks
    KABOOT_AGAINST = "kaboot_against"  # the defenders took all eight tricks
    REVERSE_KABOOT = "reverse_kaboot"  # R43: a Sun bought by the dealer's right, no trick taken
    GAHWA_WON = "gahwa_won"  # the buyer won the Gahwa round and with it the match
    GAHWA_LOST = "gahwa_lost"  # the defenders won the Gahwa round and with it the match


class Decision(Enum):
    """What decided the success test."""

    GAME_POINTS = "game_points"  # unequal game points
    RAW_POINTS = "raw_points"  # unequal raw points: after equal game points, or under raw_half
    EXACT_TIE = "exact_tie"  # equal on every count: exact_tie_rule decided
    DOUBLED_TIE = "doubled_tie"  # a tie in a doubled round: doubled_tie_rule decided
    KABOOT = "kaboot"  # one team took all eight tricks
    QAYD = "qayd"  # a Qayd verdict (or a false Sawa) ended the round (R45, §A.14)


@dataclass(frozen=True, slots=True)
class TeamScore:
    """One team's part of a round result.

    ``card_points``, ``project_points`` and ``baloot_points`` are what the team *scored* this
    round (its own converted points, the pot, or the kaboot value, multiplied as the rules
    say); they add up to ``points``. ``converted_points`` is the plain conversion of its card
    abnat (R35/R36), ``project_raw`` the raw value of the awarded projects it owns, and
    ``compared_points`` / ``compared_raw`` the G and Raw of the success test (R37).
    """

    card_abnat: int
    card_points: int
    project_raw: int
    project_points: int
    baloot_points: int
    points: int
    converted_points: int
    compared_points: int
    compared_raw: int


@dataclass(frozen=True, slots=True)
class RoundScore:
    """The scored round: per-team detail, made or failed and why, and the points to add.

    ``points`` is what the match totals gain; it is (0, 0) for a Gahwa round, whose winner
    (``gahwa_winner``) wins the match instead (§A.13 item 11).
    """

    contract: ContractType
    buyer_team: int
    teams: tuple[TeamScore, TeamScore]
    success: bool
    outcome: Outcome
    decided_by: Decision
    reason: str
    multiplier: int
    gahwa: bool
    kaboot_team: int | None
    gahwa_winner: int | None
    awarded: tuple[AwardedProject, ...]
    points: tuple[int, int]
    facts: RoundFacts  # what was scored, so the breakdown can always be recomputed


def _team_name(team: int, buyer: int) -> str:
    """Name a team in a sentence: "the buying team (team 0)" or "the defenders (team 1)"."""
    return f"the {'buying team' if team == buyer else 'defenders'} (team {team})"


@dataclass(slots=True)
class Tally:
    """What each team scores while a round is being scored, and the sentences that say why."""

    card: list[int]
    projects: list[int]
    baloot: list[int]
    sentences: list[str]


def score_round(facts: RoundFacts, rules: RuleSet) -> RoundScore:
    """Score a finished round by the normative procedure of §A.10 with the given flags.

    Validates the facts first (:func:`validate_facts`). Steps: card points (R35/R36,
    ``card_conversion``, ``hokm_rounding``); kaboot and
    reverse kaboot (R42/R43, ``kaboot_doubling``, ``kaboot_projects``); the success test (R37:
    ``success_metric``, ``exact_tie_rule``, ``doubled_tie_rule``, ``baloot_in_success_test``);
    Gahwa (R41); allocation (R38-R40: ``doubled_allocation``, ``project_multiplier``, the fixed
    card pot of §A.13 item 1); Baloot (R31, ``baloot_on_failure``).
    """
    validate_facts(facts, rules)
    return score_checked_round(facts, rules)


def score_checked_round(facts: RoundFacts, rules: RuleSet) -> RoundScore:
    """:func:`score_round` without the validation, for facts known to be possible.

    The engine's own facts come from a played hand, whose every step was legal, so a match
    skips checking them again; anything else goes through :func:`score_round`.
    """
    sun = facts.contract is ContractType.SUN
    abnat = facts.card_abnat
    converted = convert_card_points(abnat, sun, facts.buyer_team, rules)
    project_gp, project_raw = project_totals(facts)
    baloot_team = facts.baloot_teams[0] if facts.baloot_teams else None
    compared_gp = [converted[t] + project_gp[t] for t in (0, 1)]
    compared_raw = [abnat[t] + project_raw[t] for t in (0, 1)]
    if rules.baloot_in_success_test and baloot_team is not None:
        compared_gp[baloot_team] += BALOOT_POINTS
        compared_raw[baloot_team] += RAW_VALUES[ProjectKind.BALOOT]

    tally = Tally([0, 0], [0, 0], [0, 0], [])
    buyer = facts.buyer_team
    kaboot_team = next((t for t in (0, 1) if facts.tricks_won[t] == TRICKS_PER_ROUND), None)
    reverse = kaboot_team is not None and rules.reverse_kaboot and facts.reverse_kaboot
    if kaboot_team is not None:
        # A kaboot decides the round before any comparison, Gahwa included (§A.10 step 2).
        winner = kaboot_team
        success = kaboot_team == buyer
        decided_by = Decision.KABOOT
        if facts.gahwa:
            tally.sentences.append(
                f"{_team_name(winner, buyer).capitalize()} took all eight tricks of the Gahwa "
                "round."
            )
        else:
            _score_kaboot(facts, rules, kaboot_team, project_gp, baloot_team, reverse, tally)
    else:
        success, decided_by, test_text = _success_test(
            facts, rules, compared_gp, compared_raw, facts.multiplier > 1 or facts.gahwa
        )
        winner = buyer if success else 1 - buyer
        tally.sentences.append(
            f"The buying team (team {buyer}) {'made' if success else 'failed'} the "
            f"{CONTRACT_NAMES[facts.contract]}: {test_text}."
        )
        if not facts.gahwa:
            _allocate(facts, rules, success, converted, project_gp, baloot_team, tally)
    gahwa_winner: int | None = None
    if facts.gahwa:
        # §A.13 item 11: the winner takes the match; no round points, Baloot or kaboot value.
        gahwa_winner = winner
        outcome = Outcome.GAHWA_WON if success else Outcome.GAHWA_LOST
        tally.sentences.append(gahwa_sentence(winner))
    elif reverse:
        outcome = Outcome.REVERSE_KABOOT
    elif kaboot_team is not None:
        outcome = Outcome.KABOOT if success else Outcome.KABOOT_AGAINST
    else:
        outcome = Outcome.MADE if success else Outcome.FAILED

    return round_score(
        facts,
        tally,
        success=success,
        outcome=outcome,
        decided_by=decided_by,
        project_raw=project_raw,
        converted=converted,
        compared_gp=compared_gp,
        compared_raw=compared_raw,
        kaboot_team=kaboot_team,
        gahwa_winner=gahwa_winner,
    )


def project_totals(facts: RoundFacts) -> tuple[list[int], list[int]]:
    """Each team's awarded projects: their game points (R24 in Sun or Hokm), their raw value."""
    sun = facts.contract is ContractType.SUN
    project_gp = [0, 0]
    project_raw = [0, 0]
    for project in facts.projects:
        project_gp[project.team] += project_points_of(project.kind, sun)
        project_raw[project.team] += RAW_VALUES[project.kind]
    return project_gp, project_raw


def gahwa_sentence(winner: int) -> str:
    """The sentence of a Gahwa round's end (§A.13 item 11)."""
    return f"Team {winner} wins the Gahwa round and with it the match; no round points are added."


def round_score(
    facts: RoundFacts,
    tally: Tally,
    *,
    success: bool,
    outcome: Outcome,
    decided_by: Decision,
    project_raw: Sequence[int],
    converted: Sequence[int] = (0, 0),
    compared_gp: Sequence[int] = (0, 0),
    compared_raw: Sequence[int] = (0, 0),
    kaboot_team: int | None = None,
    gahwa_winner: int | None = None,
) -> RoundScore:
    """The :class:`RoundScore` of a round whose points are in ``tally``, the one place a round
    score is put together (by :func:`score_round` and by a Qayd verdict's penalty)."""
    teams = [
        TeamScore(
            card_abnat=facts.card_abnat[t],
            card_points=tally.card[t],
            project_raw=project_raw[t],
            project_points=tally.projects[t],
            baloot_points=tally.baloot[t],
            points=tally.card[t] + tally.projects[t] + tally.baloot[t],
            converted_points=converted[t],
            compared_points=compared_gp[t],
            compared_raw=compared_raw[t],
        )
        for t in (0, 1)
    ]
    return RoundScore(
        contract=facts.contract,
        buyer_team=facts.buyer_team,
        teams=(teams[0], teams[1]),
        success=success,
        outcome=outcome,
        decided_by=decided_by,
        reason=" ".join(tally.sentences),
        multiplier=facts.multiplier,
        gahwa=facts.gahwa,
        kaboot_team=kaboot_team,
        gahwa_winner=gahwa_winner,
        awarded=facts.projects,
        points=(teams[0].points, teams[1].points),
        facts=facts,
    )


def _project_multiplier(rules: RuleSet, m: int) -> int:
    """R30: ``cap_at_2`` multiplies projects by at most 2; ``double_only`` (§A.14 F5) by 2 at
    Double and by 1 at Triple and Four."""
    rule = rules.project_multiplier
    if rule is ProjectMultiplier.CAP_AT_2:
        return min(m, 2)
    if rule is ProjectMultiplier.DOUBLE_ONLY:
        return 2 if m == 2 else 1
    return m


def _score_kaboot(
    facts: RoundFacts,
    rules: RuleSet,
    team: int,
    project_gp: list[int],
    baloot_team: int | None,
    reverse: bool,
    tally: Tally,
) -> None:
    """R42/R43 and §A.13 items 2 and 5: one team took all eight tricks (no Gahwa)."""
    sun = facts.contract is ContractType.SUN
    other = 1 - team
    m = facts.multiplier
    buyers_kaboot = team == facts.buyer_team
    # The other team's projects, and with them its Baloot, go to the kaboot team always under
    # all_awarded, and under seed000 only when the defenders make the kaboot (§A.13 item 2).
    transfers = rules.kaboot_projects is KabootProjects.ALL_AWARDED or not buyers_kaboot
    projects = project_gp[team] + (project_gp[other] if transfers else 0)
    name = _team_name(team, facts.buyer_team)
    if reverse:
        # R43: a fixed 88, never doubled; projects follow the kaboot rules, unmultiplied.
        project_m = 1
        tally.card[team] = REVERSE_KABOOT_POINTS
        tally.sentences.append(
            "Reverse kaboot: the buyer bought the Sun as the dealer's right holding an Ace and "
            f"his team took no trick, so {name} score {REVERSE_KABOOT_POINTS}, never doubled."
        )
    else:
        value = SUN_KABOOT if sun else HOKM_KABOOT
        multiplied = rules.kaboot_doubling is KabootDoubling.MULTIPLIED and m > 1
        project_m = _project_multiplier(rules, m) if multiplied else 1
        tally.card[team] = value * m if multiplied else value
        text = f"{name.capitalize()} took all eight tricks (kaboot) and score {value}"
        if multiplied:
            text += f" x {m} = {value * m}"
        elif m > 1:
            text += f"; the x{m} doubling does not apply to a kaboot"
        tally.sentences.append(text + ".")
    tally.projects[team] = projects * project_m
    if projects:
        shown = f"{projects} x {project_m} = {projects * project_m}" if project_m > 1 else projects
        tally.sentences.append(f"Projects: {shown} to team {team}.")
    if project_gp[other] and not transfers:
        tally.sentences.append(f"The projects of team {other} are lost.")
    if baloot_team == team or (baloot_team == other and transfers):
        tally.baloot[team] = BALOOT_POINTS
        tally.sentences.append(f"Baloot: {BALOOT_POINTS} to team {team}, not multiplied.")
    elif baloot_team is not None:
        tally.sentences.append(f"The Baloot of team {other} is lost in the kaboot.")
    if not buyers_kaboot:
        tally.sentences.append("The buying team failed.")


def _allocate(
    facts: RoundFacts,
    rules: RuleSet,
    success: bool,
    converted: tuple[int, int],
    project_gp: list[int],
    baloot_team: int | None,
    tally: Tally,
) -> None:
    """R38-R40, R31 and §A.13 items 1 and 4: share the points of a round without kaboot."""
    buyer = facts.buyer_team
    winner = buyer if success else 1 - buyer
    m = facts.multiplier
    project_m = _project_multiplier(rules, m)
    all_projects = project_gp[0] + project_gp[1]
    if success and m == 1:
        tally.card[:] = converted
        tally.projects[:] = project_gp
        tally.sentences.append("Each team keeps its own points.")
    elif success and rules.doubled_allocation is DoubledAllocation.OWN_SHARES:
        tally.card[:] = [converted[0] * m, converted[1] * m]
        tally.projects[:] = [project_gp[0] * project_m, project_gp[1] * project_m]
        tally.sentences.append(f"Doubled x{m}: each team keeps its own points x {m}.")
    else:
        # The fixed card pot, not the sum of the two rounded shares (§A.13 item 1).
        pot = SUN_POT if facts.contract is ContractType.SUN else HOKM_POT
        tally.card[winner] = pot * m
        tally.projects[winner] = all_projects * project_m
        text = f"{_team_name(winner, buyer).capitalize()} take the card pot of {pot}"
        if m > 1:
            text += f" x {m}"
        if all_projects:
            text += f" and all {all_projects} project points"
            if project_m > 1:
                text += f" x {project_m}"
        tally.sentences.append(text + "; the other team scores no card or project points.")
    if baloot_team is None:
        return
    receiver = baloot_team
    if (
        not success
        and baloot_team == buyer
        and rules.baloot_on_failure is BalootOnFailure.TO_WINNER
    ):
        receiver = winner
    tally.baloot[receiver] = BALOOT_POINTS
    if receiver == baloot_team:
        tally.sentences.append(
            f"Baloot: {BALOOT_POINTS} to its holder's team {receiver}, not multiplied."
        )
    else:
        tally.sentences.append(
            f"The Baloot of team {baloot_team} goes to the winners, team {receiver}."
        )


def _success_test(
    facts: RoundFacts,
    rules: RuleSet,
    gp: list[int],
    raw: list[int],
    doubled: bool,
) -> tuple[bool, Decision, str]:
    """R37: did the buyer make it, what decided it, and a clause saying so."""
    buyer = facts.buyer_team
    defenders = 1 - buyer
    gb, gd, rb, rd = gp[buyer], gp[defenders], raw[buyer], raw[defenders]
    if rules.success_metric is SuccessMetric.RAW_HALF:
        # The seeds' threshold: half of all raw points or more (S003).
        if rb != rd:
            return rb > rd, Decision.RAW_POINTS, f"{rb} raw points against {rd}"
        if not doubled:
            # R37: success iff Raw_buyer >= Raw_def, so equal raw points make the contract
            # whatever exact_tie_rule says (that rule settles ties of the gp metric).
            return True, Decision.RAW_POINTS, f"{rb} raw points each: half or more"
        tie = f"{rb} raw points each"
    else:
        if gb != gd:
            return gb > gd, Decision.GAME_POINTS, f"{gb} game points against {gd}"
        if doubled:
            tie = f"{gb} game points each"
        elif rb != rd:
            return (
                rb > rd,
                Decision.RAW_POINTS,
                f"{gb} game points each, decided by raw points {rb} against {rd}",
            )
        else:
            tie = f"{gb} game points and {rb} raw points each"
    if doubled:
        if rules.doubled_tie_rule is DoubledTieRule.LAST_RAISER_LOSES:
            # §A.14 F6: the side that made the last raise loses the tie: the defenders raised
            # last at Double and Four, the buyer at Triple and Gahwa.
            buyer_raised_last = facts.gahwa or facts.multiplier == 3
            level = "Gahwa" if facts.gahwa else f"x{facts.multiplier}"
            raiser = "the buying team" if buyer_raised_last else "the doubling team"
            return (
                not buyer_raised_last,
                Decision.DOUBLED_TIE,
                f"{tie} at {level}, and {raiser}, which made the last raise, loses",
            )
        # The doubling team (the defenders) loses a tie at every level (§A.13 item 3).
        return True, Decision.DOUBLED_TIE, f"{tie} in a doubled round, and the doubling team loses"
    rule = rules.exact_tie_rule
    if rule is ExactTieRule.BUYER_WINS:
        made = True
    elif rule is ExactTieRule.BUYER_LOSES:
        made = False
    else:
        # Kammelna: a Sun tie is a split, a Hokm tie (81-81) a failure.
        made = facts.contract is ContractType.SUN
    verdict = "goes to the buyer" if made else "counts against the buyer"
    return made, Decision.EXACT_TIE, f"exact tie ({tie}), which {verdict} ({rule.value} rule)"


def project_multiplier(rules: RuleSet, m: int) -> int:
    """The multiplier the projects take at doubling level ``m`` (R30, ``project_multiplier``)."""
    return _project_multiplier(rules, m)
