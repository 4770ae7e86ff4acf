"""The two entry points of the rules core: ``legal_actions`` and ``apply``.

``legal_actions(state, seat)`` is the one definition of legality; ``apply(state, seat,
action)`` returns the next state and the events the action caused, or raises a
:class:`RuleError` with a stable reason and leaves nothing changed (states are immutable).
Each phase has its own small legal/apply pair in its own module.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from baloot_engine.rules import errors
from baloot_engine.rules.actions import (
    Action,
    Bid,
    ClaimSawa,
    Deal,
    Declare,
    Doubling,
    Event,
    EventKind,
    Play,
)
from baloot_engine.rules.bidding import apply_bid, legal_bids, start_bidding
from baloot_engine.rules.dealing import REVEALED_INDEX, check_deck, initial_hands
from baloot_engine.rules.doubling import apply_call, legal_calls
from baloot_engine.rules.errors import RuleError, malformed
from baloot_engine.rules.play import (
    apply_declare,
    apply_play,
    apply_sawa,
    legal_declarations,
    legal_plays,
    sawa_possible,
)
from baloot_engine.rules.ruleset import SEEDS, RuleSet
from baloot_engine.rules.state import (
    Phase,
    State,
)

_CLAIM_SAWA = ClaimSawa()


def new_match(
    rules: RuleSet = SEEDS,
    dealer: int = 0,
    match_scores: tuple[int, int] = (0, 0),
) -> State:
    """Start a match: nothing dealt yet; ``dealer`` deals first.

    ``match_scores`` continues a match begun elsewhere (a recorded table game, a
    tournament stage); they must be below the target.
    """
    if not 0 <= dealer <= 3:
        raise malformed(errors.INVALID_SEAT, f"the first dealer must be a seat 0-3, got {dealer}")
    if any(score < 0 or score >= rules.match_target for score in match_scores):
        raise malformed(
            errors.INVALID_ACTION,
            f"starting match scores must be between 0 and {rules.match_target - 1}",
        )
    return State(rules=rules, dealer=dealer, match_scores=match_scores, turn=dealer)


def legal_actions(state: State, seat: int) -> list[Action]:
    """Every action ``seat`` may take now, sorted in the documented action order.

    Order: deal, bids, doubling calls, declarations, cards (ascending card index, each
    card followed by its Akka call where one fits), Sawa.
    """
    phase = state.phase
    if phase is Phase.PLAYING:
        actions = legal_plays(state, seat)
        if not state.tricks:
            actions[:0] = legal_declarations(state, seat)
        if not state.trick and sawa_possible(state, seat):
            actions.append(_CLAIM_SAWA)
        return actions
    if phase is Phase.BIDDING:
        return list(legal_bids(state, seat))
    if phase is Phase.DOUBLING:
        return list(legal_calls(state, seat))
    if phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER) and seat == state.dealer:
        return [Deal(())]
    return []


def apply(state: State, seat: int, action: Action) -> tuple[State, tuple[Event, ...]]:
    """Apply ``action`` for ``seat`` and return the new state and the events it caused."""
    checked: object = seat
    if not isinstance(checked, int) or not 0 <= seat <= 3:
        raise malformed(errors.INVALID_SEAT, f"a seat is 0-3, got {seat!r}")
    if state.phase is Phase.MATCH_OVER:
        raise RuleError(errors.MATCH_OVER, "the match is over")
    handler = _HANDLERS.get(type(action))
    if handler is None:
        raise malformed(errors.INVALID_ACTION, f"not an action: {action!r}")
    new, events = handler(state, seat, action)
    return new, tuple(events)


def _apply_deal(state: State, seat: int, action: Deal) -> tuple[State, list[Event]]:
    return deal(state, seat, action.deck)


_HANDLERS: dict[type, Callable[[State, int, Any], tuple[State, list[Event]]]] = {
    Play: apply_play,
    Bid: apply_bid,
    Doubling: apply_call,
    Declare: apply_declare,
    Deal: _apply_deal,
    ClaimSawa: apply_sawa,
}


def deal(state: State, seat: int, deck: Sequence[int]) -> tuple[State, list[Event]]:
    """Deal a hand (R4a-b) from a deck order and open the bidding.

    Only the dealer deals; the API layer lets the host deal on his behalf.
    """
    if state.phase not in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
        raise RuleError(errors.WRONG_PHASE, f"cannot deal in phase {state.phase.value}")
    if seat != state.dealer:
        raise RuleError(
            errors.NOT_YOUR_TURN,
            f"seat {state.dealer} deals, not seat {seat}",
            details={"turn": str(state.dealer)},
        )
    cards = check_deck(deck)
    revealed = cards[REVEALED_INDEX]
    dealt = start_bidding(
        state, initial_hands(cards, state.dealer), cards[REVEALED_INDEX + 1 :], revealed
    )
    events = [Event(EventKind.CARDS_DEALT, cards=(5, 5, 5, 5), card=revealed, seat=state.dealer)]
    return dealt, events
