"""The worked cases of ``rule_cases.json`` checked against the rules core, one runner for all.

Each case names the rule sets it holds under; the format is in ``tests/golden/README.md``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from baloot_engine.rules import (
    FEDERATION,
    KAMMELNA,
    SEEDS,
    ContractType,
    RoundFacts,
    RuleSet,
    score_round,
)
from baloot_engine.rules.cards import mask_of, parse_cards
from baloot_engine.rules.facts import AwardedProject, baloot_teams_for
from baloot_engine.rules.projects import ProjectKind

PATH = Path(__file__).with_name("rule_cases.json")
CASES: dict[str, list[dict[str, Any]]] = json.loads(PATH.read_text())
PRESETS: dict[str, RuleSet] = {"SEEDS": SEEDS, "KAMMELNA": KAMMELNA, "FEDERATION": FEDERATION}


def _projects(rows: list[dict[str, Any]]) -> tuple[AwardedProject, ...]:
    return tuple(
        AwardedProject(
            row["team"],
            ProjectKind(row["kind"]),
            row.get("seat"),
            mask_of(parse_cards(row.get("cards", ""))),
        )
        for row in rows
    )


def round_facts(given: dict[str, Any]) -> RoundFacts:
    """The facts of a case: given as numbers, or as the eight tricks (cards, winning seat)."""
    contract = ContractType(given["contract"])
    extra: dict[str, Any] = {
        "projects": _projects(given.get("projects", [])),
        "baloot_teams": tuple(given.get("baloot_teams", [])),
        "multiplier": given.get("multiplier", 1),
        "gahwa": given.get("gahwa", False),
    }
    if "tricks" in given:
        tricks = [(parse_cards(t["cards"]), t["winner"]) for t in given["tricks"]]
        return RoundFacts.from_tricks(
            contract, given["trump"], given["buyer_team"], tricks, **extra
        )
    return RoundFacts(
        contract=contract,
        buyer_team=given["buyer_team"],
        card_abnat=tuple(given["card_abnat"]),
        tricks_won=tuple(given["tricks_won"]),
        **extra,
    )


def _each(kind: str) -> list[Any]:
    return [
        pytest.param(case, rules, id=f"{case['name']}-{rules}")
        for case in CASES[kind]
        for rules in case["rules"]
    ]


def test_every_case_has_a_unique_name() -> None:
    names = [case["name"] for cases in CASES.values() if isinstance(cases, list) for case in cases]
    assert len(names) == len(set(names))


@pytest.mark.parametrize(("case", "rules"), _each("score"))
def test_a_round_scores_as_worked_out(case: dict[str, Any], rules: str) -> None:
    facts = round_facts(case["facts"])
    score = score_round(facts, PRESETS[rules])
    if "card_abnat" in case:
        assert list(facts.card_abnat) == case["card_abnat"]
    if "success" in case:
        assert score.success is case["success"]
    if "points" in case:
        assert list(score.points) == case["points"]
    if "converted_points" in case:
        assert [t.converted_points for t in score.teams] == case["converted_points"]
    if "kaboot_team" in case:
        assert score.kaboot_team == case["kaboot_team"]
    if "gahwa_winner" in case:
        assert score.gahwa_winner == case["gahwa_winner"]


@pytest.mark.parametrize(("case", "rules"), _each("baloot"))
def test_the_baloot_counts_as_worked_out(case: dict[str, Any], rules: str) -> None:
    hands = [mask_of(parse_cards(hand)) for hand in case["hands"]]
    awarded = _projects(case["projects"])
    teams = baloot_teams_for(hands, case["trump"], awarded, PRESETS[rules])
    assert list(teams) == case["baloot_teams"]


def test_every_case_checks_something() -> None:
    checks = {"card_abnat", "success", "points", "converted_points", "kaboot_team", "gahwa_winner"}
    assert all(checks & case.keys() for case in CASES["score"])
