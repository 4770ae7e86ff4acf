"""The bots' endgame solver: the exact solver of :mod:`baloot_engine.solver` on one world.

Once few cards are left, a sampled world (a determinization, :mod:`baloot_engine.bots.tracking`)
is small enough to be played perfectly. :meth:`Solver.solve` returns the card points (abnat,
the last-trick bonus included) that one team wins from a position to the end of the round when
both teams play the best cards for their own side, every seat seeing every hand. The search is
the engine's one exact solver; this class keeps its table for the positions of one world.
"""

from __future__ import annotations

from baloot_engine.rules.cards import POINTS
from baloot_engine.rules.contract import Contract
from baloot_engine.rules.ruleset import RuleSet
from baloot_engine.solver import TRICK_WEIGHT, new_search


class Solver:
    """Solves positions of one world; its transposition table serves every call on that world.

    ``team`` is the side whose card points are counted (it maximises, the other side minimises).
    ``nodes`` counts the cards tried, a measure of the work done.
    """

    def __init__(self, contract: Contract, rules: RuleSet, team: int) -> None:
        self.contract = contract
        self.rules = rules
        self.team = team
        self.points = POINTS[contract.trump + 1]
        self._search = new_search(contract, rules, team)

    @property
    def nodes(self) -> int:
        """The cards tried so far on this world."""
        return self._search.nodes

    def solve(
        self,
        hands: tuple[int, int, int, int],
        trick: tuple[int, ...],
        leader: int,
        played: int,
        akka: bool,
    ) -> int:
        """The card points ``team`` wins from here to the end of the round (the cards of the
        trick in progress and the last-trick bonus included), with perfect play on both sides.

        ``played`` holds the cards of the completed tricks; ``hands`` the cards still held.
        """
        value = self._search.value(hands, trick, leader, played, akka)
        assert value is not None  # no limit was set
        return value // TRICK_WEIGHT


__all__ = ["Solver"]
