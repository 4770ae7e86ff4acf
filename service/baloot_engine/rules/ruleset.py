"""The rule variants of a match: one immutable ``RuleSet``, its presets and validation.

Every flag of the rules reference (§A.12, §A.14) is a field here. Defaults are the ``SEEDS``
preset; ``KAMMELNA`` changes exactly the flags listed in §A.13 item 13, ``FEDERATION`` those of
the table of §A.14. Each flag is consulted only where the rule it names differs.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum
from typing import Any, Final

SUN_DOUBLE_THRESHOLD: Final = 100
"""The match score around which a Sun may be doubled (R15): the buyers above it, the defenders
below it (whether the threshold itself counts is ``sun_double_buyer_min`` and
``sun_double_defender_max``)."""


class Preset(Enum):
    """Named bundles of flag values."""

    SEEDS = "seeds"
    KAMMELNA = "kammelna"
    FEDERATION = "federation"


class SunPriorityClaim(Enum):
    """«قبلك»: who may claim a Sun/Ashkal before the player who said it (R5/R11)."""

    OFF = "off"
    OPPONENTS_WHO_PASSED = "opponents_who_passed"
    HIGHER_PRIORITY = "higher_priority"


class Kawesh(Enum):
    """Redeal claim for a worthless hand (R12)."""

    OFF = "off"
    INITIAL_FIVE_OF_789 = "initial_five_of_789"
    NO_COURT_CARDS = "no_court_cards"


class ClosedChooser(Enum):
    """Who names closed/open in a doubled Hokm (R14)."""

    DOUBLER = "doubler"
    BUYER = "buyer"


class ScoreBoundary(Enum):
    """Whether a Sun-double score boundary of 100 is strict or inclusive (R15)."""

    STRICT = "strict"
    INCLUSIVE = "inclusive"


class DoublingWindow(Enum):
    """When the doubling chain is asked (R16)."""

    AFTER_DEAL = "after_deal"
    BEFORE_BUYER_COMPLETION = "before_buyer_completion"


class FirstLeader(Enum):
    """Who leads the first trick (R17)."""

    DEALER_RIGHT = "dealer_right"
    BUYER = "buyer"


class PartnerWinningRule(Enum):
    """When a void player whose partner leads the trick is free of the duty to trump (R20)."""

    AKKA_ONLY = "akka_only"
    POSITIONAL = "positional"
    ANY_PARTNER_WINNING = "any_partner_winning"
    NEVER = "never"


class ProjectMultiplier(Enum):
    """How the doubling multiplier applies to projects (R30)."""

    FULL = "full"
    CAP_AT_2 = "cap_at_2"
    DOUBLE_ONLY = "double_only"  # x2 at Double, x1 at Triple and Four


class BalootOnFailure(Enum):
    """Who scores a Baloot on a failed contract (R31)."""

    KEPT_BY_OWNER = "kept_by_owner"
    TO_WINNER = "to_winner"


class HokmRounding(Enum):
    """How Hokm card abnat become game points (R36)."""

    INDEPENDENT = "independent"
    PAIR_SUM_16 = "pair_sum_16"


class ExactTieRule(Enum):
    """Outcome of an undoubled exact tie (equal GP and equal raw points), R37."""

    BUYER_WINS = "buyer_wins"
    KAMMELNA = "kammelna"
    BUYER_LOSES = "buyer_loses"


class SuccessMetric(Enum):
    """What the buyer's success test compares (R37)."""

    GP = "gp"
    RAW_HALF = "raw_half"


class DoubledTieRule(Enum):
    """Outcome of a tie in a doubled round (R37)."""

    DOUBLER_LOSES = "doubler_loses"
    LAST_RAISER_LOSES = "last_raiser_loses"  # defenders at x2 and x4, the buyer at x3 and Gahwa


class DoubledAllocation(Enum):
    """How a doubled round is shared (R40)."""

    WINNER_TAKES_ALL = "winner_takes_all"
    OWN_SHARES = "own_shares"


class KabootDoubling(Enum):
    """Whether the doubling multiplier applies to a kaboot (R42)."""

    FLAT = "flat"
    MULTIPLIED = "multiplied"


class KabootProjects(Enum):
    """Which awarded projects the kaboot team scores (R42)."""

    SEED000 = "seed000"
    ALL_AWARDED = "all_awarded"


class BothCrossRule(Enum):
    """Who wins when both teams reach the target after the same round (R44)."""

    HIGHER_TOTAL = "higher_total"
    BUYER_TEAM = "buyer_team"


class CardConversion(Enum):
    """How card abnat become card game points (R35/R36)."""

    EACH_TEAM = "each_team"  # each team on its own: R35, R36 with hokm_rounding
    DEFENDERS_COUNTED = "defenders_counted"  # the defenders' only; the buyer takes the rest


class BalootAbsorption(Enum):
    """Which scored project of the Baloot's holder takes the Baloot in (R31)."""

    RUN_HUNDRED = "run_hundred"  # a run Hundred holding the K and Q of trump
    NONE = "none"
    FOUR_OF_A_KIND_KQ = "four_of_a_kind_kq"  # four Kings or four Queens; never a run


class QaydPenalty(Enum):
    """What a correct Qayd call gives the caller's team (R45, §A.14)."""

    FULL_HAND = "full_hand"  # the pot x multiplier and every awarded project (Kammelna)
    BASE_ONLY = "base_only"  # the pot x multiplier and the caller's team's own projects


class QaydFalseCall(Enum):
    """What a wrong Qayd call costs the caller's team (R45, §A.14)."""

    LOSES_HAND = "loses_hand"  # the caller's team loses the round as an offender would
    NO_PENALTY = "no_penalty"  # the call is refused (not judged) and play goes on


class FalseSawa(Enum):
    """What a false Sawa claim does outside table play (R46, §A.14)."""

    REFUSED = "refused"  # the claim is refused and play goes on
    LOSES_HAND = "loses_hand"  # the claimer's team loses the round at once


class RuleSetError(ValueError):
    """A rule set with an unknown, mistyped or contradictory setting."""


@dataclass(frozen=True)
class RuleSet:
    """Every variant flag of a match. The field defaults are the ``SEEDS`` preset."""

    kawesh_keeps_dealer: bool = False
    round1_hokm_reopens_to_all: bool = False
    sun_priority_claim: SunPriorityClaim = SunPriorityClaim.OFF
    ashkal_in_round2: bool = False
    ashkal_forbidden_on_ace: bool = False
    second_hokm_suit_at_confirm: bool = False
    kawesh: Kawesh = Kawesh.OFF
    buyer_steps_by_buyer_only: bool = False
    closed_chooser: ClosedChooser = ClosedChooser.DOUBLER
    gahwa_forces_open: bool = True
    sun_double_buyer_min: ScoreBoundary = ScoreBoundary.STRICT
    sun_double_defender_max: ScoreBoundary = ScoreBoundary.STRICT
    doubling_window: DoublingWindow = DoublingWindow.AFTER_DEAL
    first_leader: FirstLeader = FirstLeader.DEALER_RIGHT
    undertrump_required: bool = True
    partner_winning_rule: PartnerWinningRule = PartnerWinningRule.AKKA_ONLY
    akka_requires_declaration: bool = False
    overtrump_partner: bool = True
    split_long_runs: bool = True
    auto_declare_projects: bool = False
    project_multiplier: ProjectMultiplier = ProjectMultiplier.FULL
    baloot_on_failure: BalootOnFailure = BalootOnFailure.KEPT_BY_OWNER
    baloot_absorbed_by_hundred: bool = True
    baloot_in_success_test: bool = False
    hokm_rounding: HokmRounding = HokmRounding.INDEPENDENT
    exact_tie_rule: ExactTieRule = ExactTieRule.BUYER_WINS
    success_metric: SuccessMetric = SuccessMetric.GP
    doubled_tie_rule: DoubledTieRule = DoubledTieRule.DOUBLER_LOSES
    doubled_allocation: DoubledAllocation = DoubledAllocation.WINNER_TAKES_ALL
    kaboot_doubling: KabootDoubling = KabootDoubling.FLAT
    kaboot_projects: KabootProjects = KabootProjects.SEED000
    reverse_kaboot: bool = False
    match_target: int = 152
    both_cross_rule: BothCrossRule = BothCrossRule.HIGHER_TOTAL
    illegal_moves_allowed: bool = False
    sawa: bool = False
    card_conversion: CardConversion = CardConversion.EACH_TEAM
    # baloot_absorbed_by_hundred is kept for old callers: it reads this flag (RUN_HUNDRED or
    # not), ``replace`` keeps the two in step, and ``problems`` refuses them apart.
    baloot_absorption: BalootAbsorption = BalootAbsorption.RUN_HUNDRED
    four_by_doubler_only: bool = False
    triple_opens: bool = False
    ashkal_requires_pending_hokm: bool = False
    ace_switch_dealer_right_only: bool = False
    double_open_by_default: bool = False
    reveal_hands_after_round: bool = False
    qayd_penalty: QaydPenalty = QaydPenalty.FULL_HAND
    qayd_false_call: QaydFalseCall = QaydFalseCall.LOSES_HAND
    false_sawa: FalseSawa = FalseSawa.REFUSED

    def __post_init__(self) -> None:
        problems = self.problems()
        if problems:
            raise RuleSetError("; ".join(problems))
        # Rule sets key caches on every request: hash the flags once, not per lookup
        # (which is why this dataclass has a __dict__ and no __slots__).
        values = tuple(getattr(self, f.name) for f in dataclasses.fields(self))
        object.__setattr__(self, "_cached_hash", hash(values))

    def __hash__(self) -> int:
        cached: int = self.__dict__["_cached_hash"]
        return cached

    def problems(self) -> list[str]:
        """List every invalid or contradictory setting (empty when the set is valid)."""
        found: list[str] = []
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            expected = _FIELD_TYPES[field.name]
            if expected is bool:
                ok = isinstance(value, bool)
            elif expected is int:
                ok = isinstance(value, int) and not isinstance(value, bool)
            else:
                ok = isinstance(value, expected)
            if not ok:
                found.append(f"{field.name}: expected {expected.__name__}, got {value!r}")
        target: object = self.match_target
        if isinstance(target, int) and not 1 <= target <= 10_000:
            found.append(f"match_target: must be between 1 and 10000, got {self.match_target}")
        absorption: object = self.baloot_absorption
        absorbed: object = self.baloot_absorbed_by_hundred
        if (
            isinstance(absorption, BalootAbsorption)
            and isinstance(absorbed, bool)
            and absorbed != (absorption is BalootAbsorption.RUN_HUNDRED)
        ):
            found.append(
                "baloot_absorbed_by_hundred: must be true exactly when baloot_absorption "
                f"is run_hundred, got {absorbed} with {absorption.value}"
            )
        if self.triple_opens is True and self.closed_chooser is ClosedChooser.BUYER:
            found.append(
                "triple_opens: a Triple opens a game whose mode the doubler names; it cannot "
                "go with closed_chooser = buyer"
            )
        return found

    def match_goes_on(self, match_scores: tuple[int, int]) -> bool:
        """R44: a match goes on while no team has reached the target, or while both have with
        equal totals (another round is played; under ``both_cross_rule = buyer_team`` the
        round's buyers have won instead)."""
        first, second = match_scores
        over = (first >= self.match_target, second >= self.match_target)
        if not over[0] and not over[1]:
            return True
        return (
            over[0]
            and over[1]
            and first == second
            and self.both_cross_rule is not BothCrossRule.BUYER_TEAM
        )

    def sun_double_allowed(self, match_scores: tuple[int, int], buyer_team: int) -> bool:
        """R15: a Sun may be doubled only while the buyers lead past 100 and the defenders trail.

        ``sun_double_buyer_min`` and ``sun_double_defender_max`` say whether 100 itself counts.
        """
        buyer_score = match_scores[buyer_team]
        defender_score = match_scores[1 - buyer_team]
        threshold = SUN_DOUBLE_THRESHOLD
        if self.sun_double_buyer_min is ScoreBoundary.STRICT:
            buyer_ok = buyer_score > threshold
        else:
            buyer_ok = buyer_score >= threshold
        if self.sun_double_defender_max is ScoreBoundary.STRICT:
            defender_ok = defender_score < threshold
        else:
            defender_ok = defender_score <= threshold
        return buyer_ok and defender_ok

    def replace(self, **changes: Any) -> RuleSet:
        """Return a copy with some flags changed; unknown names are refused.

        ``baloot_absorbed_by_hundred`` and ``baloot_absorption`` say one thing twice: changing
        one alone changes the other to agree (true is ``run_hundred``; false turns
        ``run_hundred`` into ``none`` and keeps any other value).
        """
        unknown = sorted(set(changes) - set(_FIELD_TYPES))
        if unknown:
            raise RuleSetError(f"unknown rule flag(s): {', '.join(unknown)}")
        old_flag, new_flag = "baloot_absorbed_by_hundred", "baloot_absorption"
        if old_flag in changes and new_flag not in changes:
            if changes[old_flag] is True:
                changes[new_flag] = BalootAbsorption.RUN_HUNDRED
            elif self.baloot_absorption is BalootAbsorption.RUN_HUNDRED:
                changes[new_flag] = BalootAbsorption.NONE
        elif new_flag in changes and old_flag not in changes:
            changes[old_flag] = changes[new_flag] is BalootAbsorption.RUN_HUNDRED
        return dataclasses.replace(self, **changes)

    @classmethod
    def preset(cls, preset: Preset, **overrides: Any) -> RuleSet:
        """Return a preset, optionally with single flags overridden."""
        base = PRESETS[preset]
        return base.replace(**overrides) if overrides else base

    def to_dict(self) -> dict[str, object]:
        """Return the flags as plain values (enum members as their string values)."""
        out: dict[str, object] = {}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            out[field.name] = value.value if isinstance(value, Enum) else value
        return out

    @classmethod
    def from_dict(cls, values: dict[str, object], base: RuleSet | None = None) -> RuleSet:
        """Build a rule set from plain values (as :meth:`to_dict` gives) over ``base``."""
        changes: dict[str, Any] = {}
        problems: list[str] = []
        for name, raw in values.items():
            expected = _FIELD_TYPES.get(name)
            if expected is None:
                problems.append(f"unknown rule flag: {name}")
            elif issubclass(expected, Enum):
                try:
                    changes[name] = expected(raw)
                except ValueError:
                    allowed = ", ".join(m.value for m in expected)
                    problems.append(f"{name}: {raw!r} is not one of {allowed}")
            else:
                changes[name] = raw
        if problems:
            raise RuleSetError("; ".join(problems))
        return (base or SEEDS).replace(**changes)


_FIELD_TYPES: Final[dict[str, type]] = {
    "kawesh_keeps_dealer": bool,
    "round1_hokm_reopens_to_all": bool,
    "sun_priority_claim": SunPriorityClaim,
    "ashkal_in_round2": bool,
    "ashkal_forbidden_on_ace": bool,
    "second_hokm_suit_at_confirm": bool,
    "kawesh": Kawesh,
    "buyer_steps_by_buyer_only": bool,
    "closed_chooser": ClosedChooser,
    "gahwa_forces_open": bool,
    "sun_double_buyer_min": ScoreBoundary,
    "sun_double_defender_max": ScoreBoundary,
    "doubling_window": DoublingWindow,
    "first_leader": FirstLeader,
    "undertrump_required": bool,
    "partner_winning_rule": PartnerWinningRule,
    "akka_requires_declaration": bool,
    "overtrump_partner": bool,
    "split_long_runs": bool,
    "auto_declare_projects": bool,
    "project_multiplier": ProjectMultiplier,
    "baloot_on_failure": BalootOnFailure,
    "baloot_absorbed_by_hundred": bool,
    "baloot_in_success_test": bool,
    "hokm_rounding": HokmRounding,
    "exact_tie_rule": ExactTieRule,
    "success_metric": SuccessMetric,
    "doubled_tie_rule": DoubledTieRule,
    "doubled_allocation": DoubledAllocation,
    "kaboot_doubling": KabootDoubling,
    "kaboot_projects": KabootProjects,
    "reverse_kaboot": bool,
    "match_target": int,
    "both_cross_rule": BothCrossRule,
    "illegal_moves_allowed": bool,
    "sawa": bool,
    "card_conversion": CardConversion,
    "baloot_absorption": BalootAbsorption,
    "four_by_doubler_only": bool,
    "triple_opens": bool,
    "ashkal_requires_pending_hokm": bool,
    "ace_switch_dealer_right_only": bool,
    "double_open_by_default": bool,
    "reveal_hands_after_round": bool,
    "qayd_penalty": QaydPenalty,
    "qayd_false_call": QaydFalseCall,
    "false_sawa": FalseSawa,
}

SEEDS: Final = RuleSet()
KAMMELNA: Final = RuleSet(
    ashkal_in_round2=True,
    second_hokm_suit_at_confirm=True,
    partner_winning_rule=PartnerWinningRule.ANY_PARTNER_WINNING,
    overtrump_partner=False,
    baloot_on_failure=BalootOnFailure.TO_WINNER,
    hokm_rounding=HokmRounding.PAIR_SUM_16,
    exact_tie_rule=ExactTieRule.KAMMELNA,
    kaboot_projects=KabootProjects.ALL_AWARDED,
)
# §A.14: the federation's regulation as its public clause-by-clause summary gives it (the
# clause of each value is in docs/rules.md, section 12); where it is silent, SEEDS.
FEDERATION: Final = RuleSet(
    success_metric=SuccessMetric.RAW_HALF,  # F1, 4-2…4-9
    baloot_in_success_test=True,  # F1
    card_conversion=CardConversion.DEFENDERS_COUNTED,  # F3, 4-10, 4-11
    project_multiplier=ProjectMultiplier.DOUBLE_ONLY,  # F5, 5-4, 5-5
    doubled_tie_rule=DoubledTieRule.LAST_RAISER_LOSES,  # F6, 7-6
    sun_double_defender_max=ScoreBoundary.INCLUSIVE,  # F7, 7-1, 7-2
    buyer_steps_by_buyer_only=True,  # F8, 7-5
    four_by_doubler_only=True,  # F8
    triple_opens=True,  # F8
    baloot_absorption=BalootAbsorption.FOUR_OF_A_KIND_KQ,  # F11, 5-6, 5-8
    baloot_absorbed_by_hundred=False,  # F11: a run no longer takes the Baloot in
    ashkal_requires_pending_hokm=True,  # F13, 8-1, 8-2, 9
    ashkal_in_round2=True,  # F13
    ace_switch_dealer_right_only=True,  # F14, 4-1
    double_open_by_default=True,  # F8, 7-5
)
PRESETS: Final = {Preset.SEEDS: SEEDS, Preset.KAMMELNA: KAMMELNA, Preset.FEDERATION: FEDERATION}
