"""Completing the deal once the contract is fixed, and the doubling chain (R4c-d, R13-R16).

Hokm: Double (defenders, open/closed) → Triple (buyers) → Four (defenders, open/closed)
→ Gahwa (buyers). Each step belongs to a team whose players are asked in turn order
starting after the last caller; the first to accept raises, the step ends the chain only
when both decline (with ``four_by_doubler_only`` Four is offered to the doubler alone; with
``triple_opens`` a Triple makes the game open). Sun and Ashkal: a single Double, only at the
match scores of R15.
When the chain is over the doubling step is ``NONE``; :mod:`baloot_engine.rules.game` then
starts the play.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from baloot_engine.rules import errors
from baloot_engine.rules.actions import Doubling, DoublingCall, Event, EventKind
from baloot_engine.rules.contract import Contract, PlayMode, team_of
from baloot_engine.rules.dealing import completion_cards
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.members import DOUBLING, DOUBLING_STEP_NONE
from baloot_engine.rules.ruleset import ClosedChooser, DoublingWindow
from baloot_engine.rules.state import BidStage, DoublingRecord, DoublingStep, State

_MODES = (PlayMode.OPEN, PlayMode.CLOSED)


def begin_contract(state: State, events: list[Event]) -> tuple[State, list[Event]]:
    """The bidding fixed ``state.contract``: complete the hands, open the doubling (R4c/d, R16).

    Returns with the doubling step ``NONE`` when no doubling is open.
    """
    contract = state.contract
    assert contract is not None
    taker = contract.taker
    extra = completion_cards(state.stock, state.dealer, taker, state.revealed)
    delay_taker = state.rules.doubling_window is DoublingWindow.BEFORE_BUYER_COMPLETION
    hands = tuple(
        hand if (delay_taker and seat == taker) else hand | extra[seat]
        for seat, hand in enumerate(state.hands)
    )
    stock = tuple(c for c in state.stock if extra[taker] >> c & 1) if delay_taker else ()
    state = state._replace(
        hands=(hands[0], hands[1], hands[2], hands[3]),
        stock=stock,
        revealed=state.revealed if delay_taker else -1,
        buyer_completed=not delay_taker,
        bid_stage=BidStage.NONE,
        to_ask=(),
        pending_seat=-1,
        pending_suit=-1,
        pending_ashkal=False,
    )
    events.append(Event(EventKind.CARDS_DEALT, cards=_sizes(state), card=state.buy_card))
    if _doubling_open(state, contract):
        order = _team_after(contract.buyer, 1 - contract.buyer_team, state, buyer_step=False)
        state = state._replace(
            phase=DOUBLING, doubling_step=DoublingStep.DOUBLE, to_ask=order, turn=order[0]
        )
        return state, events
    return _end_chain(state, events)


def _sizes(state: State) -> tuple[int, ...]:
    return tuple(hand.bit_count() for hand in state.hands)


def _doubling_open(state: State, contract: Contract) -> bool:
    return not contract.is_sun or state.rules.sun_double_allowed(
        state.match_scores, contract.buyer_team
    )


def _team_after(caller: int, team: int, state: State, *, buyer_step: bool) -> tuple[int, ...]:
    """The seats of ``team`` in turn order after ``caller`` (A.13 item 9)."""
    contract = state.contract
    if buyer_step and contract is not None and state.rules.buyer_steps_by_buyer_only:
        return (contract.buyer,)
    return tuple(s for s in ((caller + i) & 3 for i in (1, 2, 3)) if team_of(s) == team)


def legal_calls(state: State, seat: int) -> list[Doubling]:
    """Every doubling call ``seat`` may make now, in the documented action order."""
    if state.phase is not DOUBLING or not state.to_ask or state.to_ask[0] != seat:
        return []
    step = state.doubling_step
    if step is DoublingStep.CHOOSE_MODE:
        return [Doubling(DoublingCall.CHOOSE_MODE, m) for m in _MODES]
    decline = Doubling(DoublingCall.DECLINE)
    contract = state.contract
    assert contract is not None
    if step is DoublingStep.DOUBLE:
        raise_call = DoublingCall.DOUBLE
    elif step is DoublingStep.TRIPLE:
        return [Doubling(DoublingCall.TRIPLE), decline]
    elif step is DoublingStep.FOUR:
        raise_call = DoublingCall.FOUR
    else:
        return [Doubling(DoublingCall.GAHWA), decline]
    if contract.is_sun or state.rules.closed_chooser is ClosedChooser.BUYER:
        return [Doubling(raise_call), decline]
    return [Doubling(raise_call, m) for m in _MODES] + [decline]


_OPEN_BY_DEFAULT: Final = (DoublingCall.DOUBLE, DoublingCall.FOUR)
"""The calls that name a mode; under ``double_open_by_default`` naming none is the open one."""


def apply_call(state: State, seat: int, call: Doubling) -> tuple[State, list[Event]]:
    """Apply a doubling call and return the new state and the events it caused."""
    if state.phase is not DOUBLING:
        raise RuleError(errors.WRONG_PHASE, f"no doubling in phase {state.phase.value}")
    if state.to_ask[0] != seat:
        raise errors.not_your_turn(state.to_ask[0], seat, "answer the doubling")
    legal = legal_calls(state, seat)
    if (
        call.mode is None
        and call.call in _OPEN_BY_DEFAULT
        and state.rules.double_open_by_default
        and Doubling(call.call, PlayMode.OPEN) in legal
    ):
        # §A.14 F8 and §A.15: "open unless the doubler names closed": a Double or a Four
        # naming no mode is the open one, recorded as such.
        call = Doubling(call.call, PlayMode.OPEN)
    if call not in legal:
        wants_mode = any(c.call is call.call and c.mode is not None for c in legal)
        reason = (
            errors.MODE_REQUIRED
            if wants_mode and call.mode is None
            else (errors.DOUBLE_NOT_ALLOWED)
        )
        raise RuleError(
            reason,
            f"'{call}' is not allowed now",
            allowed=tuple(str(c) for c in legal),
            details={"seat": str(seat)},
        )
    contract = state.contract
    assert contract is not None
    events = [Event(EventKind.DOUBLING_CALLED, seat=seat, team=team_of(seat), doubling=call)]
    state = state._replace(doubling_calls=(*state.doubling_calls, DoublingRecord(seat, call)))
    kind = call.call
    if kind is DoublingCall.DECLINE:
        rest = state.to_ask[1:]
        if rest:
            return state._replace(to_ask=rest, turn=rest[0]), events
        return _end_chain(state, events)
    if kind is DoublingCall.CHOOSE_MODE:
        assert call.mode is not None
        state = state._replace(contract=replace(contract, mode=call.mode))
        return _start(state, events)
    mode = contract.mode if call.mode is None else call.mode
    if kind is DoublingCall.DOUBLE:
        contract = replace(contract, multiplier=2, mode=mode)
        if contract.is_sun:
            return _end_chain(state._replace(contract=contract), events)
        nxt, team = DoublingStep.TRIPLE, contract.buyer_team
    elif kind is DoublingCall.TRIPLE:
        # §A.14 F8: with triple_opens a Triple lifts a closed Double's lead restriction (R22).
        opened = PlayMode.OPEN if state.rules.triple_opens else contract.mode
        contract = replace(contract, multiplier=3, mode=opened)
        nxt, team = DoublingStep.FOUR, 1 - contract.buyer_team
        if state.rules.four_by_doubler_only:
            # §A.14 F8: Four only by the player who doubled; his partner is not asked.
            doubler = next(
                r.seat for r in state.doubling_calls if r.call.call is DoublingCall.DOUBLE
            )
            state = state._replace(contract=contract)
            return state._replace(doubling_step=nxt, to_ask=(doubler,), turn=doubler), events
    elif kind is DoublingCall.FOUR:
        contract = replace(contract, multiplier=4, mode=mode)
        nxt, team = DoublingStep.GAHWA, contract.buyer_team
    else:  # GAHWA
        if state.rules.gahwa_forces_open:
            mode = PlayMode.OPEN
        contract = replace(contract, gahwa=True, mode=mode)
        return _end_chain(state._replace(contract=contract), events)
    state = state._replace(contract=contract)
    order = _team_after(seat, team, state, buyer_step=team == contract.buyer_team)
    state = state._replace(doubling_step=nxt, to_ask=order, turn=order[0])
    return state, events


def _end_chain(state: State, events: list[Event]) -> tuple[State, list[Event]]:
    contract = state.contract
    assert contract is not None
    if (
        state.rules.closed_chooser is ClosedChooser.BUYER
        and not contract.is_sun
        and contract.multiplier >= 2
        and not (contract.gahwa and state.rules.gahwa_forces_open)
    ):
        state = state._replace(
            phase=DOUBLING,
            doubling_step=DoublingStep.CHOOSE_MODE,
            to_ask=(contract.buyer,),
            turn=contract.buyer,
        )
        return state, events
    return _start(state, events)


def _start(state: State, events: list[Event]) -> tuple[State, list[Event]]:
    contract = state.contract
    assert contract is not None
    if state.doubling_calls or state.phase is DOUBLING:
        events.append(Event(EventKind.DOUBLING_ENDED, contract=contract))
    if not state.buyer_completed:
        taker = contract.taker
        extra = 1 << state.revealed
        for card in state.stock:
            extra |= 1 << card
        hands = list(state.hands)
        hands[taker] |= extra
        state = state._replace(
            hands=(hands[0], hands[1], hands[2], hands[3]),
            stock=(),
            revealed=-1,
            buyer_completed=True,
        )
        events.append(Event(EventKind.CARDS_DEALT, cards=_sizes(state), card=state.buy_card))
    return state._replace(doubling_step=DOUBLING_STEP_NONE, to_ask=()), events
