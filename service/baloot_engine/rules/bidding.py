"""Bidding (R5-R12): the two laps, the Hokm confirmation, Ashkal, redeal, variants.

The bidding is a queue of seats to ask (``State.to_ask``) under a stage
(``State.bid_stage``): the normal lap, the reopened lap of ``round1_hokm_reopens_to_all``,
the Hokm bidder's confirmation, and the «قبلك» priority question. ``legal_bids`` is the
one definition of what a seat may say; ``apply_bid`` refuses anything else. The bidding
ends with a contract recorded in ``State.contract`` (:mod:`baloot_engine.rules.game` then
completes the deal and opens the doubling) or with the round cancelled and dealt again (R9,
R12).
"""

from __future__ import annotations

from baloot_engine.rules import errors
from baloot_engine.rules.actions import Bid, BidKind, Event, EventKind, RedealReason
from baloot_engine.rules.cards import ACE, EIGHT, NINE, SEVEN, SUITS
from baloot_engine.rules.contract import Contract, next_seat, team_of
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.members import (
    AWAITING_DEAL,
    BIDDING,
    CONTRACT_HOKM,
    CONTRACT_SUN,
    KAWESH_OFF,
    STAGE_CONFIRM,
    STAGE_PRIORITY,
    STAGE_REOPEN,
)
from baloot_engine.rules.ruleset import Kawesh, SunPriorityClaim
from baloot_engine.rules.state import BidRecord, BidStage, State

# Bids are immutable values: the ones offered are built once (listing the bids of a turn
# then allocates nothing, and a bid chosen from that list is found by identity).
_PASS = Bid(BidKind.PASS)
_SUN = Bid(BidKind.SUN)
_ASHKAL = Bid(BidKind.ASHKAL)
_KAWESH = Bid(BidKind.KAWESH)
_CLAIM_SUN = Bid(BidKind.CLAIM_SUN)
_SWITCH_TO_SUN = Bid(BidKind.SWITCH_TO_SUN)
_HOKM_SUIT_LATER = Bid(BidKind.HOKM)
_HOKM_IN = tuple(Bid(BidKind.HOKM, suit) for suit in SUITS)
_CONFIRM_IN = tuple(Bid(BidKind.CONFIRM_HOKM, suit) for suit in SUITS)

_LOW_CARDS = tuple((1 << SEVEN | 1 << EIGHT | 1 << NINE) << (8 * s) for s in SUITS)
_WORTHLESS = _LOW_CARDS[0] | _LOW_CARDS[1] | _LOW_CARDS[2] | _LOW_CARDS[3]


def lap(dealer: int) -> tuple[int, int, int, int]:
    """The speaking order of a lap: the dealer's right, partner, left, then the dealer."""
    return ((dealer + 1) & 3, (dealer + 2) & 3, (dealer + 3) & 3, dealer)


def start_bidding(
    state: State,
    hands: tuple[int, int, int, int],
    stock: tuple[int, ...],
    revealed: int,
) -> State:
    """Deal the first five cards of each hand and open round 1 of the bidding (R4a-b, R5).

    Only the match's running totals, its dealer and the last score survive from ``state``.
    """
    order = lap(state.dealer)
    return State(
        state.rules,
        BIDDING,
        state.dealer,
        state.hand_number + 1,
        state.match_scores,
        turn=order[0],
        hands=hands,
        stock=stock,
        revealed=revealed,
        buy_card=revealed,
        bidding_round=1,
        bid_stage=BidStage.LAP,
        to_ask=order,
        last_score=state.last_score,
        last_qayd=state.last_qayd,
        rounds_scored=state.rounds_scored,
    )


def _ashkal_allowed(state: State, seat: int) -> bool:
    rules = state.rules
    if seat not in (state.dealer, (state.dealer + 3) & 3):
        return False
    if state.bidding_round == 2 and not rules.ashkal_in_round2:
        return False
    if rules.ashkal_requires_pending_hokm and state.pending_seat < 0:
        return False  # §A.14 F13: only over a Hokm bid in this lap
    return not (rules.ashkal_forbidden_on_ace and state.revealed & 7 == ACE)


def _ashkal_claim_allowed(state: State, seat: int) -> bool:
    """May a seat asked «قبلك» (R11) claim the Sun as Ashkal? Where R7 lets it say Ashkal;
    with ``ashkal_requires_pending_hokm`` only when a Hokm was bid in this lap (the pending
    bid of the question is the Sun being claimed)."""
    if not _ashkal_allowed(state, seat):
        return False
    return not state.rules.ashkal_requires_pending_hokm or any(
        r.bidding_round == state.bidding_round and r.bid.kind is BidKind.HOKM for r in state.bids
    )


def _switch_allowed(state: State, seat: int) -> bool:
    """R6: may the Hokm bidder switch to Sun? With ``ace_switch_dealer_right_only`` (§A.14
    F14) a first-round Hokm on a revealed Ace only when he is the dealer's right."""
    if not state.rules.ace_switch_dealer_right_only or state.bidding_round != 1:
        return True
    return state.revealed & 7 != ACE or seat == (state.dealer + 1) & 3


def kawesh_allowed(state: State, seat: int) -> bool:
    """R12 variant: a worthless first five cards (no A, K, Q, J or 10) may cancel the round.

    ``initial_five_of_789`` allows it during round 1 of the bidding only (until a purchase
    can be final); ``no_court_cards`` during either round. Any seat may call it, on turn
    or not.
    """
    kawesh = state.rules.kawesh
    if kawesh is KAWESH_OFF or state.phase is not BIDDING:
        return False
    if state.bidding_round != 1 and kawesh is Kawesh.INITIAL_FIVE_OF_789:
        return False
    return state.hands[seat] & ~_WORTHLESS == 0


def legal_bids(state: State, seat: int) -> list[Bid]:
    """Every bid ``seat`` may say now, in the documented action order."""
    if state.phase is not BIDDING:
        return []
    bids: list[Bid] = []
    if state.to_ask and state.to_ask[0] == seat:
        bids = _bids_on_turn(state, seat)
    if kawesh_allowed(state, seat):
        bids.append(_KAWESH)
    return bids


def _bids_on_turn(state: State, seat: int) -> list[Bid]:
    stage = state.bid_stage
    revealed_suit = state.revealed >> 3
    if stage is STAGE_CONFIRM:
        if state.pending_suit >= 0:
            confirm = [_CONFIRM_IN[state.pending_suit]]
        else:
            confirm = [_CONFIRM_IN[s] for s in SUITS if s != revealed_suit]
        return [*confirm, _SWITCH_TO_SUN] if _switch_allowed(state, seat) else confirm
    if stage is STAGE_PRIORITY:
        # §A.15: a claimant who may say Ashkal may claim the Sun as Ashkal (for his partner).
        return (
            [_PASS, _CLAIM_SUN, _ASHKAL]
            if _ashkal_claim_allowed(state, seat)
            else [_PASS, _CLAIM_SUN]
        )
    if stage is STAGE_REOPEN:
        # §A.15: a seat asked for Sun may buy it as Ashkal where R7 lets it say Ashkal.
        return [_PASS, _SUN, _ASHKAL] if _ashkal_allowed(state, seat) else [_PASS, _SUN]
    bids = [_PASS]
    if state.pending_seat < 0:
        if state.bidding_round == 1:
            bids.append(_HOKM_IN[revealed_suit])
        elif state.rules.second_hokm_suit_at_confirm:
            bids.append(_HOKM_SUIT_LATER)
        else:
            bids += [_HOKM_IN[s] for s in SUITS if s != revealed_suit]
    bids.append(_SUN)
    if _ashkal_allowed(state, seat):
        bids.append(_ASHKAL)
    return bids


def apply_bid(state: State, seat: int, bid: Bid) -> tuple[State, list[Event]]:
    """Apply a bid and return the new state and the events it caused."""
    if state.phase is not BIDDING:
        raise RuleError(errors.WRONG_PHASE, f"no bidding in phase {state.phase.value}")
    if bid.kind is BidKind.KAWESH:
        if bid.suit != -1:
            raise RuleError(
                errors.SUIT_NOT_ALLOWED, "Kawesh names no suit", allowed=(str(Bid(BidKind.KAWESH)),)
            )
        if not kawesh_allowed(state, seat):
            raise RuleError(errors.KAWESH_NOT_ALLOWED, "this hand may not call Kawesh now")
        return _cancel_hand(state, seat, bid, kawesh=True)
    if state.to_ask[0] != seat:
        raise errors.not_your_turn(state.to_ask[0], seat, "bid")
    bid = _normalise(state, bid)
    legal = _bids_on_turn(state, seat)
    if bid not in legal:
        raise _refusal(state, seat, bid, legal)
    record = BidRecord(seat, bid, state.bidding_round)
    events = [Event(EventKind.BID_PLACED, seat=seat, team=team_of(seat), bid=bid)]
    state = state._replace(bids=(*state.bids, record))
    kind = bid.kind
    if kind is BidKind.PASS:
        return _next_speaker(state, events)
    if kind is BidKind.HOKM:
        state = state._replace(pending_seat=seat, pending_suit=bid.suit)
        return _next_speaker(state, events)
    if kind in (BidKind.SUN, BidKind.ASHKAL):
        return _sun_called(state, seat, kind is BidKind.ASHKAL, events)
    if kind is BidKind.CLAIM_SUN:
        return _fix_contract(
            state, Contract(CONTRACT_SUN, -1, seat, False, state.bidding_round), events
        )
    if kind is BidKind.CONFIRM_HOKM:
        contract = Contract(CONTRACT_HOKM, bid.suit, seat, False, state.bidding_round)
        return _fix_contract(state, contract, events)
    # SWITCH_TO_SUN
    return _fix_contract(
        state, Contract(CONTRACT_SUN, -1, seat, False, state.bidding_round), events
    )


def _normalise(state: State, bid: Bid) -> Bid:
    """Fill in a suit that is implied: a round-1 Hokm is always in the revealed suit, and
    confirming a Hokm whose suit is already named confirms that suit."""
    if bid.suit != -1:
        return bid
    if bid.kind is BidKind.HOKM and state.bidding_round == 1:
        return _HOKM_IN[state.revealed >> 3]
    if bid.kind is BidKind.CONFIRM_HOKM and state.pending_suit >= 0:
        return _CONFIRM_IN[state.pending_suit]
    return bid


def _refusal(state: State, seat: int, bid: Bid, legal: list[Bid]) -> RuleError:
    allowed = tuple(str(b) for b in legal)
    if bid.kind is BidKind.ASHKAL:
        reason, why = errors.ASHKAL_NOT_ALLOWED, "Ashkal is only for the dealer and his left"
        if seat not in (state.dealer, (state.dealer + 3) & 3):
            pass  # the seat may never say it: that is the reason, whatever else holds
        elif state.bidding_round == 2 and not state.rules.ashkal_in_round2:
            why = "Ashkal is not allowed in the second round"
        elif state.rules.ashkal_forbidden_on_ace and state.revealed & 7 == ACE:
            why = "Ashkal is not allowed when the revealed card is an Ace"
        elif state.rules.ashkal_requires_pending_hokm and (
            state.pending_seat < 0
            or (state.bid_stage is STAGE_PRIORITY and _ashkal_allowed(state, seat))
        ):
            # At «قبلك» the pending bid is the Sun being claimed: the seat may say Ashkal,
            # but no Hokm was bid in this lap (_ashkal_claim_allowed).
            why = "Ashkal is said only over a Hokm bid in this lap"
    elif bid.kind in (BidKind.HOKM, BidKind.CONFIRM_HOKM) and any(
        b.kind is bid.kind for b in legal
    ):
        reason, why = errors.SUIT_NOT_ALLOWED, f"Hokm in that suit is not allowed: {bid}"
    elif bid.kind is BidKind.SWITCH_TO_SUN and state.bid_stage is STAGE_CONFIRM:
        reason = errors.BID_NOT_ALLOWED
        why = "on a revealed Ace only the dealer's right may switch his Hokm to Sun"
    else:
        reason, why = errors.BID_NOT_ALLOWED, f"'{bid}' is not allowed now"
    return RuleError(reason, why, allowed=allowed, details={"seat": str(seat)})


def _next_speaker(state: State, events: list[Event]) -> tuple[State, list[Event]]:
    rest = state.to_ask[1:]
    if rest:
        return state._replace(to_ask=rest, turn=rest[0]), events
    if state.bid_stage is STAGE_PRIORITY:
        return _finish_priority(state, events)
    return _lap_over(state, events)


def _lap_over(state: State, events: list[Event]) -> tuple[State, list[Event]]:
    stage = state.bid_stage
    if state.pending_seat >= 0:
        hokm_seat = state.pending_seat
        order = lap(state.dealer)
        if (
            stage is BidStage.LAP
            and state.bidding_round == 1
            and state.rules.round1_hokm_reopens_to_all
        ):
            earlier = order[: order.index(hokm_seat)]
            if earlier:
                return _ask(state, STAGE_REOPEN, earlier), events
        return _ask(state, STAGE_CONFIRM, (hokm_seat,)), events
    if state.bidding_round == 1:
        state = state._replace(bidding_round=2)
        return _ask(state, BidStage.LAP, lap(state.dealer)), events
    cancelled, more = _cancel_hand(state, -1, None, kawesh=False)
    return cancelled, events + more


def _ask(state: State, stage: BidStage, seats: tuple[int, ...]) -> State:
    return state._replace(bid_stage=stage, to_ask=seats, turn=seats[0])


def _sun_called(
    state: State, seat: int, ashkal: bool, events: list[Event]
) -> tuple[State, list[Event]]:
    claim = state.rules.sun_priority_claim
    if claim is not SunPriorityClaim.OFF and state.bid_stage is not STAGE_PRIORITY:
        order = lap(state.dealer)
        earlier = order[: order.index(seat)]
        if claim is SunPriorityClaim.OPPONENTS_WHO_PASSED:
            passed = {
                r.seat
                for r in state.bids
                if r.bidding_round == state.bidding_round and r.bid.kind is BidKind.PASS
            }
            earlier = tuple(s for s in earlier if team_of(s) != team_of(seat) and s in passed)
        if earlier:
            state = state._replace(pending_seat=seat, pending_suit=-1, pending_ashkal=ashkal)
            return _ask(state, STAGE_PRIORITY, earlier), events
    contract = Contract(CONTRACT_SUN, -1, seat, ashkal, state.bidding_round)
    return _fix_contract(state, contract, events)


def _finish_priority(state: State, events: list[Event]) -> tuple[State, list[Event]]:
    """Nobody claimed the Sun: the original caller keeps it."""
    contract = Contract(
        CONTRACT_SUN, -1, state.pending_seat, state.pending_ashkal, state.bidding_round
    )
    return _fix_contract(state, contract, events)


def _fix_contract(
    state: State, contract: Contract, events: list[Event]
) -> tuple[State, list[Event]]:
    """The bidding is over: record the contract (:mod:`~baloot_engine.rules.game` goes on)."""
    events.append(
        Event(
            EventKind.CONTRACT_FIXED,
            seat=contract.buyer,
            team=contract.buyer_team,
            contract=contract,
        )
    )
    return state._replace(contract=contract), events


def _cancel_hand(
    state: State, seat: int, bid: Bid | None, *, kawesh: bool
) -> tuple[State, list[Event]]:
    """All passed twice (R9) or Kawesh (R12): the round scores 0-0 and is dealt again."""
    events: list[Event] = []
    if bid is not None:
        events.append(Event(EventKind.BID_PLACED, seat=seat, team=team_of(seat), bid=bid))
    # kawesh_keeps_dealer keeps the dealer only for a Kawesh before anybody has bought.
    bought = any(r.bid.kind in (BidKind.HOKM, BidKind.SUN, BidKind.ASHKAL) for r in state.bids)
    keep = kawesh and state.rules.kawesh_keeps_dealer and not bought
    dealer = state.dealer if keep else next_seat(state.dealer)
    why = RedealReason.KAWESH if kawesh else RedealReason.ALL_PASSED
    events.append(Event(EventKind.REDEAL, seat=dealer, redeal=why))
    cleared = State(
        rules=state.rules,
        phase=AWAITING_DEAL,
        dealer=dealer,
        hand_number=state.hand_number,
        match_scores=state.match_scores,
        turn=dealer,
        last_score=state.last_score,
        last_qayd=state.last_qayd,
        rounds_scored=state.rounds_scored,
    )
    return cleared, events
