"""Conformance in the OpenSpiel manner: many complete random matches under both presets.

Play never stalls, legal actions are non-empty while a hand is live, the 32 cards are
conserved at every step, card abnat sum to 130/162, game points obey the contract, a hand
never exceeds its length, and every match ends.
"""

from __future__ import annotations

import random

import pytest

from baloot_engine.rules.cards import FULL_DECK
from baloot_engine.rules.game import legal_actions
from baloot_engine.rules.ruleset import FEDERATION, KAMMELNA, SEEDS, RuleSet
from baloot_engine.rules.scoring import Outcome
from baloot_engine.rules.state import Phase, State
from baloot_engine.rules.validation import validate

from .strategies import PLAYING_PHASES, play_match

MATCHES = 150


def _cards_out(state: State) -> int:
    mask = state.hands[0] | state.hands[1] | state.hands[2] | state.hands[3] | state.played
    for card in (*state.stock, *state.trick):
        mask |= 1 << card
    if state.revealed >= 0:
        mask |= 1 << state.revealed
    return mask


@pytest.mark.parametrize(
    "rules", [SEEDS, KAMMELNA, FEDERATION], ids=["seeds", "kammelna", "federation"]
)
def test_random_matches_keep_every_invariant(rules: RuleSet) -> None:
    rng = random.Random(20241129)
    for _ in range(MATCHES):
        states = play_match(rng, rules)
        final = states[-1]
        assert final.phase is Phase.MATCH_OVER
        assert final.winner in (0, 1)
        actions_in_hand = 0
        for before, after in zip(states, states[1:], strict=False):
            assert validate(after) == [], validate(after)
            if after.phase in PLAYING_PHASES:
                assert _cards_out(after) == FULL_DECK
                assert legal_actions(after, after.turn), "legal actions empty while live"
                actions_in_hand += 1
                # 8 bidding turns + 2 priority/confirm + 8 doubling + 4 declarations + 32 cards
                assert actions_in_hand <= 60
            else:
                actions_in_hand = 0
            if after.phase in (Phase.ROUND_OVER, Phase.MATCH_OVER) and after is not before:
                _check_scored_round(before, after)


def _check_scored_round(before: State, after: State) -> None:
    score = after.last_score
    assert score is not None
    contract = after.contract
    assert contract is not None
    total = 130 if contract.is_sun else 162
    abnat = [t.card_abnat for t in score.teams]
    assert sum(abnat) == total
    assert len(after.tricks) == 8 or after.sawa_seat >= 0
    gained = (
        after.match_scores[0] - before.match_scores[0],
        after.match_scores[1] - before.match_scores[1],
    )
    assert gained == score.points
    assert min(score.points) >= 0
    buyer, defenders = score.buyer_team, 1 - score.buyer_team
    pot = 26 if contract.is_sun else 16
    if score.gahwa:
        assert score.points == (0, 0)
        assert after.winner == score.gahwa_winner
    elif score.outcome is Outcome.FAILED and contract.multiplier == 1:
        projects = sum(t.project_points for t in score.teams)
        baloot_def = score.teams[defenders].baloot_points
        assert score.points[defenders] == pot + projects + baloot_def
        assert score.points[buyer] == score.teams[buyer].baloot_points
    elif score.outcome is Outcome.KABOOT:
        assert 0 in score.points
    if after.phase is Phase.MATCH_OVER and not score.gahwa:
        assert max(after.match_scores) >= after.rules.match_target
        winner = after.winner
        assert after.match_scores[winner] >= after.match_scores[1 - winner]
