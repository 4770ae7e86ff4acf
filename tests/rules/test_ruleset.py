"""The RuleSet: SEEDS defaults (§A.12), the KAMMELNA (§A.13 item 13) and FEDERATION (§A.14)
presets, overrides."""

from __future__ import annotations

import dataclasses
import re
from enum import Enum
from pathlib import Path

import pytest

from baloot_engine.rules import ruleset as rs
from baloot_engine.rules.ruleset import (
    FEDERATION,
    KAMMELNA,
    SEEDS,
    BalootAbsorption,
    ClosedChooser,
    Preset,
    RuleSet,
    RuleSetError,
)

# §A.12, default column, in the engine's spelling.
SEEDS_DEFAULTS: dict[str, object] = {
    "kawesh_keeps_dealer": False,
    "round1_hokm_reopens_to_all": False,
    "sun_priority_claim": "off",
    "ashkal_in_round2": False,
    "ashkal_forbidden_on_ace": False,
    "second_hokm_suit_at_confirm": False,
    "kawesh": "off",
    "buyer_steps_by_buyer_only": False,
    "closed_chooser": "doubler",
    "gahwa_forces_open": True,
    "sun_double_buyer_min": "strict",
    "sun_double_defender_max": "strict",
    "doubling_window": "after_deal",
    "first_leader": "dealer_right",
    "undertrump_required": True,
    "partner_winning_rule": "akka_only",
    "akka_requires_declaration": False,
    "overtrump_partner": True,
    "split_long_runs": True,
    "auto_declare_projects": False,
    "project_multiplier": "full",
    "baloot_on_failure": "kept_by_owner",
    "baloot_absorbed_by_hundred": True,
    "baloot_in_success_test": False,
    "hokm_rounding": "independent",
    "exact_tie_rule": "buyer_wins",
    "success_metric": "gp",
    "doubled_tie_rule": "doubler_loses",
    "doubled_allocation": "winner_takes_all",
    "kaboot_doubling": "flat",
    "kaboot_projects": "seed000",
    "reverse_kaboot": False,
    "match_target": 152,
    "both_cross_rule": "higher_total",
    "illegal_moves_allowed": False,
    "sawa": False,
    # §A.14: the flags the FEDERATION preset adds, at their SEEDS values.
    "card_conversion": "each_team",
    "baloot_absorption": "run_hundred",
    "four_by_doubler_only": False,
    "triple_opens": False,
    "ashkal_requires_pending_hokm": False,
    "ace_switch_dealer_right_only": False,
    "reveal_hands_after_round": False,
}

# §A.14's table F1-F14: the complete list of FEDERATION's differences from SEEDS.
FEDERATION_CHANGES: dict[str, object] = {
    "success_metric": "raw_half",  # F1
    "baloot_in_success_test": True,  # F1
    "card_conversion": "defenders_counted",  # F3
    "project_multiplier": "double_only",  # F5
    "doubled_tie_rule": "last_raiser_loses",  # F6
    "sun_double_defender_max": "inclusive",  # F7
    "buyer_steps_by_buyer_only": True,  # F8
    "four_by_doubler_only": True,  # F8
    "triple_opens": True,  # F8
    "baloot_absorption": "four_of_a_kind_kq",  # F11
    "baloot_absorbed_by_hundred": False,  # F11: the old flag reads the new one
    "ashkal_requires_pending_hokm": True,  # F13
    "ashkal_in_round2": True,  # F13
    "ace_switch_dealer_right_only": True,  # F14
}

# §A.13 item 13: the complete list of KAMMELNA's differences.
KAMMELNA_CHANGES: dict[str, object] = {
    "ashkal_in_round2": True,
    "second_hokm_suit_at_confirm": True,
    "partner_winning_rule": "any_partner_winning",
    "overtrump_partner": False,
    "baloot_on_failure": "to_winner",
    "hokm_rounding": "pair_sum_16",
    "exact_tie_rule": "kammelna",
    "kaboot_projects": "all_awarded",
}

# §A.12 alternatives column (the play-, bidding- and doubling-relevant ones and the rest).
ALTERNATIVES: dict[str, tuple[object, ...]] = {
    "sun_priority_claim": ("opponents_who_passed", "higher_priority"),
    "kawesh": ("initial_five_of_789", "no_court_cards"),
    "closed_chooser": ("buyer",),
    "sun_double_buyer_min": ("inclusive",),
    "sun_double_defender_max": ("inclusive",),
    "doubling_window": ("before_buyer_completion",),
    "first_leader": ("buyer",),
    "partner_winning_rule": ("positional", "any_partner_winning", "never"),
    "project_multiplier": ("cap_at_2", "double_only"),
    "card_conversion": ("defenders_counted",),
    "doubled_tie_rule": ("last_raiser_loses",),
    "baloot_absorption": ("none", "four_of_a_kind_kq"),
    "baloot_on_failure": ("to_winner",),
    "hokm_rounding": ("pair_sum_16",),
    "exact_tie_rule": ("kammelna", "buyer_loses"),
    "success_metric": ("raw_half",),
    "doubled_allocation": ("own_shares",),
    "kaboot_doubling": ("multiplied",),
    "kaboot_projects": ("all_awarded",),
    "both_cross_rule": ("buyer_team",),
}


def test_seeds_has_every_default_of_the_flag_table() -> None:
    assert SEEDS.to_dict() == SEEDS_DEFAULTS
    assert RuleSet() == SEEDS


def test_kammelna_differs_from_seeds_by_exactly_the_listed_flags() -> None:
    seeds, kammelna = SEEDS.to_dict(), KAMMELNA.to_dict()
    changed = {name: kammelna[name] for name in kammelna if kammelna[name] != seeds[name]}
    assert changed == KAMMELNA_CHANGES


def test_federation_differs_from_seeds_by_exactly_the_table_of_a14() -> None:
    seeds, federation = SEEDS.to_dict(), FEDERATION.to_dict()
    changed = {name: federation[name] for name in federation if federation[name] != seeds[name]}
    assert changed == FEDERATION_CHANGES
    # F2, F4, F9, F12 keep the SEEDS values the table names.
    assert federation["exact_tie_rule"] == "buyer_wins"
    assert federation["doubled_allocation"] == "winner_takes_all"
    assert federation["kaboot_doubling"] == "flat"
    assert federation["baloot_on_failure"] == "kept_by_owner"


def test_the_old_absorption_flag_and_the_new_one_stay_in_step() -> None:
    none, kq = BalootAbsorption.NONE, BalootAbsorption.FOUR_OF_A_KIND_KQ
    # Old callers set only the boolean.
    assert SEEDS.replace(baloot_absorbed_by_hundred=False).baloot_absorption is none
    assert FEDERATION.replace(baloot_absorbed_by_hundred=True).baloot_absorption is (
        BalootAbsorption.RUN_HUNDRED
    )
    # False over FEDERATION changes nothing: a run Hundred already takes no Baloot in.
    assert FEDERATION.replace(baloot_absorbed_by_hundred=False) == FEDERATION
    # New callers set only the enum; the boolean follows.
    assert SEEDS.replace(baloot_absorption=kq).baloot_absorbed_by_hundred is False
    assert SEEDS.replace(baloot_absorption=none).baloot_absorbed_by_hundred is False
    assert FEDERATION.replace(baloot_absorption=BalootAbsorption.RUN_HUNDRED) == SEEDS.replace(
        **{k: getattr(FEDERATION, k) for k in FEDERATION_CHANGES if not k.startswith("baloot_a")}
    )
    # Both at once must agree.
    with pytest.raises(RuleSetError, match="baloot_absorbed_by_hundred"):
        SEEDS.replace(baloot_absorbed_by_hundred=True, baloot_absorption=kq)
    with pytest.raises(RuleSetError, match="baloot_absorbed_by_hundred"):
        RuleSet(baloot_absorption=none)
    assert RuleSet.from_dict({"baloot_absorption": "none"}).baloot_absorbed_by_hundred is False


def test_triple_opens_needs_the_doubler_to_name_the_mode() -> None:
    with pytest.raises(RuleSetError, match="triple_opens"):
        FEDERATION.replace(closed_chooser=ClosedChooser.BUYER)
    assert SEEDS.replace(closed_chooser=ClosedChooser.BUYER).triple_opens is False


def test_presets_by_name() -> None:
    assert RuleSet.preset(Preset.SEEDS) == SEEDS
    assert RuleSet.preset(Preset.FEDERATION) == FEDERATION
    assert RuleSet.preset(Preset.KAMMELNA) == KAMMELNA
    assert RuleSet.preset(Preset.KAMMELNA, sawa=True) == KAMMELNA.replace(sawa=True)


@pytest.mark.parametrize(("name", "value"), [(n, v) for n, vs in ALTERNATIVES.items() for v in vs])
def test_every_alternative_can_be_chosen(name: str, value: object) -> None:
    rules = RuleSet.from_dict({name: value})
    assert rules.to_dict()[name] == value
    # The old Baloot flag reads the new one (see the next tests); every other flag stays.
    apart = {name, "baloot_absorbed_by_hundred"} if name == "baloot_absorption" else {name}
    others = {k: v for k, v in rules.to_dict().items() if k not in apart}
    assert others == {k: v for k, v in SEEDS_DEFAULTS.items() if k not in apart}


@pytest.mark.parametrize(
    "name",
    [
        name
        for name, value in SEEDS_DEFAULTS.items()
        if isinstance(value, bool) and name != "illegal_moves_allowed"  # see the next test
    ],
)
def test_every_boolean_flag_can_be_flipped(name: str) -> None:
    flipped = SEEDS.replace(**{name: not SEEDS_DEFAULTS[name]})
    assert getattr(flipped, name) is (not SEEDS_DEFAULTS[name])


def test_illegal_moves_allowed_is_refused_because_illegal_cards_are_never_accepted() -> None:
    with pytest.raises(RuleSetError, match="illegal_moves_allowed"):
        SEEDS.replace(illegal_moves_allowed=True)


def test_to_dict_and_from_dict_round_trip() -> None:
    for rules in (SEEDS, KAMMELNA, FEDERATION, SEEDS.replace(first_leader=rs.FirstLeader.BUYER)):
        assert RuleSet.from_dict(rules.to_dict()) == rules


def test_from_dict_over_a_base() -> None:
    rules = RuleSet.from_dict({"sawa": True}, base=KAMMELNA)
    assert rules == KAMMELNA.replace(sawa=True)


def test_unknown_flags_are_refused() -> None:
    with pytest.raises(RuleSetError, match="no_such_flag"):
        SEEDS.replace(no_such_flag=True)
    with pytest.raises(RuleSetError, match="no_such_flag"):
        RuleSet.from_dict({"no_such_flag": True})


@pytest.mark.parametrize(
    "values",
    [
        {"partner_winning_rule": "sometimes"},
        {"kawesh": True},
        {"first_leader": "dealer"},
    ],
)
def test_unknown_values_are_refused(values: dict[str, object]) -> None:
    with pytest.raises(RuleSetError):
        RuleSet.from_dict(values)


@pytest.mark.parametrize(
    "changes",
    [
        {"undertrump_required": 1},
        {"overtrump_partner": "yes"},
        {"match_target": True},
        {"match_target": 0},
        {"match_target": "152"},
        {"partner_winning_rule": "never"},  # a string where the enum member is expected
    ],
)
def test_mistyped_values_are_refused(changes: dict[str, object]) -> None:
    with pytest.raises(RuleSetError):
        SEEDS.replace(**changes)


def test_a_rule_set_is_frozen_and_hashable() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        SEEDS.sawa = True  # type: ignore[misc]
    assert hash(SEEDS) == hash(RuleSet())
    assert len({SEEDS, KAMMELNA, RuleSet()}) == 2


def test_replace_does_not_change_the_preset() -> None:
    SEEDS.replace(overtrump_partner=False)
    assert SEEDS.overtrump_partner is True


def test_every_enum_flag_lists_the_table_values() -> None:
    for field in dataclasses.fields(RuleSet):
        value = getattr(SEEDS, field.name)
        if isinstance(value, Enum):
            members = {m.value for m in type(value)}
            expected = {SEEDS_DEFAULTS[field.name], *ALTERNATIVES.get(field.name, ())}
            assert members == expected, field.name


def test_the_rulebook_table_of_the_three_presets_matches_them() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text()
    section = text.split("### Every flag in the three presets", 1)[1].split("\n---", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| (.+?) \| (.+?) \| (.+?) \| .+ \|$", section, re.MULTILINE)
    found = {name: tuple(v.strip("*`") for v in values) for name, *values in rows}
    expected = {
        name: tuple(str(p.to_dict()[name]) for p in (SEEDS, KAMMELNA, FEDERATION))
        for name in SEEDS.to_dict()
    }
    assert found == expected
