"""The full-information oracle: the perfect-information value of a state, hidden cards visible.

For training "with the hidden cards visible" (a critic that sees every hand, as PerfectDou's
does), :func:`perfect_information_abnat` gives the card abnat each team ends the hand with when
all four seats see all four hands and play the rest of it perfectly, each team for its own
abnat. It reads the whole state (every hand) on purpose: it is a training signal, never an
input of a policy that plays.

It asks the engine's exact solver (:mod:`baloot_engine.solver`, tens of milliseconds from a
full deal) for the value of the position, the abnat already won included; pass ``max_cards``
to refuse larger positions. The card play only is searched: declarations and Sawa claims are
not part of it (a perfect leader calls Akka wherever the call fits).
"""

from __future__ import annotations

from baloot_engine.rules.state import Phase, State
from baloot_engine.solver import position_of, solve


def perfect_information_abnat(state: State, max_cards: int = 32) -> tuple[int, int]:
    """Team 0's and team 1's card abnat at the end of the round under perfect play (all hands
    seen, the last-trick bonus included), from a state of the play phase.

    Raises ValueError outside the play or when more than ``max_cards`` cards are still held.
    """
    if state.phase is not Phase.PLAYING or state.contract is None:
        raise ValueError(f"the oracle values states of the play, not phase {state.phase.value}")
    held = sum(hand.bit_count() for hand in state.hands)
    if held > max_cards:
        raise ValueError(f"{held} cards are still held, more than max_cards = {max_cards}")
    return solve(position_of(state)).best_value.points


def perfect_information_value(state: State, seat: int, max_cards: int = 32) -> int:
    """The oracle's abnat margin for ``seat``'s team: its abnat minus the other team's."""
    abnat = perfect_information_abnat(state, max_cards)
    team = seat & 1
    return abnat[team] - abnat[team ^ 1]
