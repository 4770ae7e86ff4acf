"""The RuleSet: SEEDS defaults (§A.12), the KAMMELNA preset (§A.13 item 13), overrides."""

from __future__ import annotations

import dataclasses
from enum import Enum

import pytest

from baloot_engine.rules import ruleset as rs
from baloot_engine.rules.ruleset import KAMMELNA, SEEDS, Preset, RuleSet, RuleSetError

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
    "reveal_hands_after_round": False,
    "qayd_penalty": "full_hand",
    "qayd_false_call": "loses_hand",
    "false_sawa": "refused",
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
    "project_multiplier": ("cap_at_2",),
    "baloot_on_failure": ("to_winner",),
    "hokm_rounding": ("pair_sum_16",),
    "exact_tie_rule": ("kammelna", "buyer_loses"),
    "success_metric": ("raw_half",),
    "doubled_allocation": ("own_shares",),
    "kaboot_doubling": ("multiplied",),
    "kaboot_projects": ("all_awarded",),
    "both_cross_rule": ("buyer_team",),
    "qayd_penalty": ("base_only",),
    "qayd_false_call": ("no_penalty",),
    "false_sawa": ("loses_hand",),
}


def test_seeds_has_every_default_of_the_flag_table() -> None:
    assert SEEDS.to_dict() == SEEDS_DEFAULTS
    assert RuleSet() == SEEDS


def test_kammelna_differs_from_seeds_by_exactly_the_listed_flags() -> None:
    seeds, kammelna = SEEDS.to_dict(), KAMMELNA.to_dict()
    changed = {name: kammelna[name] for name in kammelna if kammelna[name] != seeds[name]}
    assert changed == KAMMELNA_CHANGES


def test_presets_by_name() -> None:
    assert RuleSet.preset(Preset.SEEDS) == SEEDS
    assert RuleSet.preset(Preset.KAMMELNA) == KAMMELNA
    assert RuleSet.preset(Preset.KAMMELNA, sawa=True) == KAMMELNA.replace(sawa=True)


@pytest.mark.parametrize(("name", "value"), [(n, v) for n, vs in ALTERNATIVES.items() for v in vs])
def test_every_alternative_can_be_chosen(name: str, value: object) -> None:
    rules = RuleSet.from_dict({name: value})
    assert rules.to_dict()[name] == value
    others = {k: v for k, v in rules.to_dict().items() if k != name}
    assert others == {k: v for k, v in SEEDS_DEFAULTS.items() if k != name}


@pytest.mark.parametrize(
    "name",
    [name for name, value in SEEDS_DEFAULTS.items() if isinstance(value, bool)],
)
def test_every_boolean_flag_can_be_flipped(name: str) -> None:
    flipped = SEEDS.replace(**{name: not SEEDS_DEFAULTS[name]})
    assert getattr(flipped, name) is (not SEEDS_DEFAULTS[name])


def test_table_play_is_a_supported_rule_set_since_qayd_is_judged() -> None:
    # §A.14: illegal_moves_allowed used to be refused; table play now records and judges.
    rules = KAMMELNA.replace(illegal_moves_allowed=True)
    assert rules.problems() == []
    assert rules.qayd_penalty.value == "full_hand"


def test_to_dict_and_from_dict_round_trip() -> None:
    for rules in (SEEDS, KAMMELNA, SEEDS.replace(first_leader=rs.FirstLeader.BUYER)):
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
