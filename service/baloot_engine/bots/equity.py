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

from baloot_engine.rules.match import winner_of_totals
from baloot_engine.rules.ruleset import RuleSet

ROUND_POINTS: Final = 11.7
"""The game points one team scores in an average round (measured over 4,602 rounds)."""
ROUND_SPREAD: Final = 18.7
"""The standard deviation of one round's difference of the teams' points (same rounds)."""


def _race_spread(ours: int, theirs: int, target: int) -> float:
    """The standard deviation of how far the difference of the totals moves in the rounds the
    two teams still need to reach ``target`` (half a round at least)."""
    rounds = max(0.5, ((target - ours) + (target - theirs)) / (2 * ROUND_POINTS))
    return ROUND_SPREAD * math.sqrt(rounds)


def match_equity(ours: int, theirs: int, target: int) -> float:
    """The chance that the team at ``ours`` wins a match to ``target`` against ``theirs``,
    both below the target, before the next round."""
    z = (ours - theirs) / _race_spread(ours, theirs, target)
    return 0.5 * math.erfc(-z / math.sqrt(2))


def equity_slope(ours: int, theirs: int, target: int) -> float:
    """How fast :func:`match_equity` grows with the difference of the totals at these totals:
    the chance one more point of difference is worth (what a margin in points is worth). A
    match already decided is worth nothing more; level totals over the target play on, and
    there the next round decides."""
    if max(ours, theirs) >= target and ours != theirs:
        return 0.0
    spread = _race_spread(ours, theirs, target)
    z = (ours - theirs) / spread
    return math.exp(-z * z / 2) / (math.sqrt(2 * math.pi) * spread)


def equity_after(
    totals: tuple[int, int], points: tuple[int, int], team: int, buyer_team: int, rules: RuleSet
) -> float:
    """``team``'s match equity once a round's ``points`` are added to the match ``totals``
    (the round was not a Gahwa; ``buyer_team`` bought it)."""
    after = (totals[0] + points[0], totals[1] + points[1])
    winner = winner_of_totals(after, buyer_team, rules)
    if winner >= 0:
        return 1.0 if winner == team else 0.0
    target = rules.match_target
    if after[team] >= target:
        return 0.5  # both over the target with equal totals: another hand
    return match_equity(after[team], after[1 - team], target)


__all__ = ["ROUND_POINTS", "ROUND_SPREAD", "equity_after", "equity_slope", "match_equity"]
