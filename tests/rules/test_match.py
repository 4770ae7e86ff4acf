"""The end of a hand and of the match (R41-R44): the facts of a played hand, the winner."""

from __future__ import annotations

import random

import pytest

from baloot_engine.rules.contract import ContractType
from baloot_engine.rules.facts import RoundFacts, validate_facts
from baloot_engine.rules.match import winner_after
from baloot_engine.rules.ruleset import KAMMELNA, SEEDS, BothCrossRule, RuleSet
from baloot_engine.rules.scoring import RoundScore, score_round
from baloot_engine.rules.state import Phase

from .builders import facts, kaboot
from .strategies import play_match


def _score(buyer: int = 0, gahwa: bool = False) -> RoundScore:
    if gahwa:
        return score_round(
            kaboot(ContractType.HOKM, 1, buyer=buyer, multiplier=4, gahwa=True), SEEDS
        )
    return score_round(facts(ContractType.HOKM, (82, 80), buyer=buyer), SEEDS)


@pytest.mark.parametrize(
    ("totals", "buyer", "rule", "winner"),
    [
        ((151, 0), 0, BothCrossRule.HIGHER_TOTAL, -1),  # nobody at the target
        ((152, 100), 1, BothCrossRule.HIGHER_TOTAL, 0),  # one team at the target
        ((100, 160), 0, BothCrossRule.HIGHER_TOTAL, 1),
        ((160, 155), 1, BothCrossRule.HIGHER_TOTAL, 0),  # both: the higher total
        ((160, 160), 1, BothCrossRule.HIGHER_TOTAL, -1),  # equal totals: another hand
        ((160, 155), 1, BothCrossRule.BUYER_TEAM, 1),  # both: the buying team
    ],
)
def test_the_match_winner(
    totals: tuple[int, int], buyer: int, rule: BothCrossRule, winner: int
) -> None:
    rules = SEEDS.replace(both_cross_rule=rule)
    assert winner_after(totals, _score(buyer), rules) == winner


def test_a_gahwa_round_decides_the_match_whatever_the_totals() -> None:
    score = _score(buyer=0, gahwa=True)
    assert score.gahwa_winner == 1
    assert winner_after((0, 0), score, SEEDS) == 1


@pytest.mark.parametrize("rules", [SEEDS, KAMMELNA])
def test_a_played_hand_is_scored_from_the_facts_of_its_tricks(rules: RuleSet) -> None:
    """Every hand of random matches: the facts it was scored from are those of its tricks."""
    for seed in range(4):
        for state in play_match(random.Random(seed), rules):
            score = state.last_score
            if state.phase not in (Phase.ROUND_OVER, Phase.MATCH_OVER) or score is None:
                continue
            if state.sawa_seat >= 0:
                continue  # a Sawa leaves tricks unplayed
            contract = state.contract
            assert contract is not None
            tricks = [(record.cards, record.winner) for record in state.tricks]
            expected = RoundFacts.from_tricks(
                contract.type, contract.trump, contract.buyer_team, tricks
            )
            assert score.facts.card_abnat == expected.card_abnat
            assert score.facts.tricks_won == expected.tricks_won
            assert score.facts.multiplier == contract.multiplier
            validate_facts(score.facts, rules)
