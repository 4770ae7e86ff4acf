"""Match equity: a team's chance to win the match from given totals.

A round is worth more than its points near the end of a match: ten points that carry a team
over the target win the match, ten points more when the other team is about to win anyway are
worth almost nothing. :func:`match_equity` estimates the chance that a team wins from the
totals before a round, treating the rest of the match as a race in which the difference of the
totals moves by a random amount each round (a normal law with the spread of real rounds) until
a team reaches the target; :func:`equity_after` scores a round's points that way, ending the
match when the rules end it.
"""

from __future__ import annotations

import math
from typing import Final

from baloot_engine.rules.ruleset import BothCrossRule, RuleSet

ROUND_POINTS: Final = 11.7
"""The game points one team scores in an average round (measured over 4,602 rounds)."""
ROUND_SPREAD: Final = 18.7
"""The standard deviation of one round's difference of the teams' points (same rounds)."""


def match_equity(ours: int, theirs: int, target: int) -> float:
    """The chance that the team at ``ours`` wins a match to ``target`` against ``theirs``,
    both below the target, before the next round."""
    rounds = max(0.5, ((target - ours) + (target - theirs)) / (2 * ROUND_POINTS))
    z = (ours - theirs) / (ROUND_SPREAD * math.sqrt(rounds))
    return 0.5 * math.erfc(-z / math.sqrt(2))


def equity_after(
    totals: tuple[int, int], points: tuple[int, int], team: int, buyer_team: int, rules: RuleSet
) -> float:
    """``team``'s match equity once a round's ``points`` are added to the match ``totals``."""
    ours = totals[team] + points[team]
    theirs = totals[1 - team] + points[1 - team]
    target = rules.match_target
    if ours >= target and theirs >= target:
        if rules.both_cross_rule is BothCrossRule.BUYER_TEAM:
            return 1.0 if buyer_team == team else 0.0
        if ours == theirs:
            return 0.5
        return 1.0 if ours > theirs else 0.0
    if ours >= target:
        return 1.0
    if theirs >= target:
        return 0.0
    return match_equity(ours, theirs, target)


__all__ = ["ROUND_POINTS", "ROUND_SPREAD", "equity_after", "match_equity"]
