"""Bidding (R2, R5-R12): the two laps, Hokm confirmation, Ashkal, redeal and the variants."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baloot_engine.rules import errors
from baloot_engine.rules.actions import (
    Bid,
    BidKind,
    Deal,
    Doubling,
    DoublingCall,
    EventKind,
    Play,
    RedealReason,
)
from baloot_engine.rules.cards import parse_card
from baloot_engine.rules.contract import ContractType, PlayMode
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.game import apply, legal_actions, new_match
from baloot_engine.rules.ruleset import (
    FEDERATION,
    KAMMELNA,
    SEEDS,
    Kawesh,
    RuleSet,
    SunPriorityClaim,
)
from baloot_engine.rules.state import BidStage, Phase, State
from baloot_engine.rules.validation import validate

from .scenario import (
    act,
    act_events,
    bid,
    bids,
    build_deck,
    dealt,
    pass_rest,
    pass_until,
    refuse,
    table,
)
from .strategies import bidding_rules, decks

PASS, HOKM, SUN, ASHKAL = BidKind.PASS, BidKind.HOKM, BidKind.SUN, BidKind.ASHKAL
CONFIRM, SWITCH, CLAIM, KAWESH = (
    BidKind.CONFIRM_HOKM,
    BidKind.SWITCH_TO_SUN,
    BidKind.CLAIM_SUN,
    BidKind.KAWESH,
)

S, H, D, C = 0, 1, 2, 3
DEALER = 0
R, O, L, DD = table(DEALER)  # noqa: E741 - seats 1, 2, 3, 0 (DD: the dealer; D is ♦)
DEALERS = (0, 1, 2, 3)

DECK = build_deck(revealed="10H")  # revealed suit: hearts
ACE_DECK = build_deck(revealed="AH")


def start(rules: RuleSet = SEEDS, *, dealer: int = DEALER, deck: tuple[int, ...] = DECK) -> State:
    return dealt(deck, rules=rules, dealer=dealer)


def round2(rules: RuleSet = SEEDS, *, dealer: int = DEALER, deck: tuple[int, ...] = DECK) -> State:
    state = pass_rest(start(rules, dealer=dealer, deck=deck))
    assert state.phase is Phase.BIDDING
    assert state.bidding_round == 2
    return state


def options(state: State, seat: int) -> set[Bid]:
    return {a for a in legal_actions(state, seat) if isinstance(a, Bid)}


def contract_of(state: State) -> tuple[ContractType, int, int, bool, int]:
    contract = state.contract
    assert contract is not None
    assert state.phase in (Phase.DOUBLING, Phase.PLAYING)
    return (
        contract.type,
        contract.trump,
        contract.buyer,
        contract.ashkal,
        contract.bidding_round,
    )


def sun(buyer: int, bidding_round: int = 1, *, ashkal: bool = False) -> tuple:
    return (ContractType.SUN, -1, buyer, ashkal, bidding_round)


def hokm(buyer: int, trump: int, bidding_round: int = 1) -> tuple:
    return (ContractType.HOKM, trump, buyer, False, bidding_round)


def bidding_is_over(state: State) -> None:
    assert state.phase is not Phase.BIDDING
    for seat in range(4):
        assert not any(isinstance(a, Bid) for a in legal_actions(state, seat))
        refuse(state, seat, Bid(PASS), errors.WRONG_PHASE)


# --- R2 / R5: who speaks, in which order -------------------------------------------------


@pytest.mark.parametrize("dealer", DEALERS)
def test_bidding_starts_at_the_dealers_right_and_goes_counter_clockwise(dealer: int) -> None:
    state = start(dealer=dealer)
    order = []
    for _ in range(4):
        order.append(state.turn)
        for seat in range(4):
            if seat != state.turn:
                assert options(state, seat) == set()
                refuse(state, seat, Bid(PASS), errors.NOT_YOUR_TURN)
        state = bid(state, state.turn, PASS)
    assert order == [(dealer + 1) % 4, (dealer + 2) % 4, (dealer + 3) % 4, dealer]
    assert state.bidding_round == 2
    assert state.turn == (dealer + 1) % 4  # round 2 starts with R again


def test_round1_options() -> None:
    state = start()
    assert options(state, R) == {Bid(PASS), Bid(HOKM, H), Bid(SUN)}
    state = bid(state, R, PASS)
    assert options(state, O) == {Bid(PASS), Bid(HOKM, H), Bid(SUN)}
    state = bid(state, O, PASS)
    assert options(state, L) == {Bid(PASS), Bid(HOKM, H), Bid(SUN), Bid(ASHKAL)}
    state = bid(state, L, PASS)
    assert options(state, DD) == {Bid(PASS), Bid(HOKM, H), Bid(SUN), Bid(ASHKAL)}


def test_round1_hokm_is_always_the_revealed_suit() -> None:
    state = start()
    refuse(state, R, Bid(HOKM, S), errors.SUIT_NOT_ALLOWED)
    state = bid(state, R, HOKM)  # naming no suit means the revealed suit
    assert state.pending_suit == H


def test_bids_outside_the_bidding_phase_are_refused() -> None:
    state = new_match(SEEDS)
    refuse(state, 1, Bid(PASS), errors.WRONG_PHASE)
    state = start()
    refuse(state, R, Play(parse_card("7S")), errors.WRONG_PHASE)
    refuse(state, R, Doubling(DoublingCall.DOUBLE, PlayMode.OPEN), errors.WRONG_PHASE)


# --- R5: Sun ends at once; Hokm does not; no Hokm over Hokm --------------------------------


@pytest.mark.parametrize("position", range(4))
def test_sun_ends_the_bidding_at_once(position: int) -> None:
    seat = table(DEALER)[position]
    state = pass_until(start(), seat)
    state, events = act_events(state, seat, Bid(SUN))
    assert contract_of(state) == sun(seat)
    fixed = [e for e in events if e.kind is EventKind.CONTRACT_FIXED]
    assert [e.seat for e in fixed] == [seat]
    bidding_is_over(state)


def test_hokm_does_not_end_the_bidding() -> None:
    state = bid(start(), R, HOKM)
    assert state.phase is Phase.BIDDING
    assert state.contract is None
    assert state.turn == O


def test_no_hokm_over_hokm_in_round1() -> None:
    state = bid(start(), R, HOKM)
    assert options(state, O) == {Bid(PASS), Bid(SUN)}
    refuse(state, O, Bid(HOKM), errors.BID_NOT_ALLOWED)
    refuse(state, O, Bid(HOKM, H), errors.BID_NOT_ALLOWED)
    state = bid(state, O, PASS)
    assert options(state, L) == {Bid(PASS), Bid(SUN), Bid(ASHKAL)}
    refuse(state, L, Bid(HOKM, H), errors.BID_NOT_ALLOWED)


@pytest.mark.parametrize("later", [O, L, DD])
def test_a_later_sun_takes_over_a_pending_hokm(later: int) -> None:
    state = bid(start(), R, HOKM)
    state = pass_until(state, later)
    state = bid(state, later, SUN)
    assert contract_of(state) == sun(later)
    bidding_is_over(state)


@pytest.mark.parametrize("caller", [L, DD])
def test_a_later_ashkal_takes_over_a_pending_hokm(caller: int) -> None:
    state = bid(start(), R, HOKM)
    state = pass_until(state, caller)
    state = bid(state, caller, ASHKAL)
    assert contract_of(state) == sun(caller, ashkal=True)


def test_players_who_passed_before_the_hokm_get_no_new_chance_by_default() -> None:
    state = bids(start(), (R, PASS), (O, PASS), (L, HOKM))
    state = bid(state, DD, PASS)
    assert state.bid_stage is BidStage.CONFIRM
    assert state.turn == L
    for seat in (R, O, DD):
        assert options(state, seat) == set()
        refuse(state, seat, Bid(SUN), errors.NOT_YOUR_TURN)


REOPEN = SEEDS.replace(round1_hokm_reopens_to_all=True)


def test_round1_hokm_reopens_to_all_asks_earlier_passers_in_turn_order() -> None:
    state = bids(start(REOPEN), (R, PASS), (O, PASS), (L, HOKM), (DD, PASS))
    assert state.turn == R
    assert options(state, R) == {Bid(PASS), Bid(SUN)}
    refuse(state, R, Bid(HOKM, H), errors.BID_NOT_ALLOWED)
    refuse(state, O, Bid(SUN), errors.NOT_YOUR_TURN)
    state = bid(state, R, PASS)
    assert state.turn == O
    assert options(state, O) == {Bid(PASS), Bid(SUN)}
    sun_state = bid(state, O, SUN)
    assert contract_of(sun_state) == sun(O)
    state = bid(state, O, PASS)
    assert state.bid_stage is BidStage.CONFIRM
    assert state.turn == L
    assert contract_of(bid(state, L, CONFIRM, H)) == hokm(L, H)


def test_round1_hokm_reopens_to_all_first_sun_wins_at_once() -> None:
    state = bids(start(REOPEN), (R, PASS), (O, PASS), (L, PASS), (DD, HOKM))
    assert state.turn == R
    state = bid(state, R, SUN)
    assert contract_of(state) == sun(R)
    bidding_is_over(state)


@pytest.mark.parametrize(
    "flags",
    [
        {},
        {"ashkal_requires_pending_hokm": True},
        {"sun_priority_claim": SunPriorityClaim.HIGHER_PRIORITY},
    ],
)
def test_the_dealers_left_may_say_ashkal_in_the_reopened_lap(flags: dict[str, object]) -> None:
    # §A.15: asked for Sun after the dealer's Hokm, the dealer's left may buy it as Ashkal.
    state = bids(start(REOPEN.replace(**flags)), (R, PASS), (O, PASS), (L, PASS), (DD, HOKM))
    assert state.bid_stage is BidStage.REOPEN
    for seat in (R, O):  # not the dealer's left: Sun only
        assert options(state, seat) == {Bid(PASS), Bid(SUN)}
        refuse(state, seat, Bid(ASHKAL), errors.ASHKAL_NOT_ALLOWED)
        state = bid(state, seat, PASS)
    assert options(state, L) == {Bid(PASS), Bid(SUN), Bid(ASHKAL)}
    state = bid(state, L, ASHKAL)
    if "sun_priority_claim" in flags:
        # The priority question (R and O, earlier in the lap, may claim the Sun) follows.
        assert state.bid_stage is BidStage.PRIORITY
        state = pass_rest(state)
    assert contract_of(state) == sun(L, ashkal=True)


def test_no_ashkal_in_the_reopened_lap_where_r7_forbids_it() -> None:
    rules = REOPEN.replace(ashkal_forbidden_on_ace=True)
    state = bids(start(rules, deck=ACE_DECK), (R, PASS), (O, PASS), (L, PASS), (DD, HOKM))
    state = bids(state, (R, PASS), (O, PASS))
    assert options(state, L) == {Bid(PASS), Bid(SUN)}
    refuse(state, L, Bid(ASHKAL), errors.ASHKAL_NOT_ALLOWED)


def test_round1_hokm_reopens_to_all_with_nobody_before_the_bidder() -> None:
    state = bid(start(REOPEN), R, HOKM)
    state = pass_rest(state)
    assert state.bid_stage is BidStage.CONFIRM
    assert state.turn == R


def test_all_four_pass_in_round1_opens_round2() -> None:
    state = round2()
    assert state.turn == R
    assert state.contract is None


# --- R6: confirm or switch -------------------------------------------------------------------


def test_hokm_bidder_confirms_or_switches_after_the_lap() -> None:
    state = pass_rest(bid(start(), R, HOKM))
    assert state.bid_stage is BidStage.CONFIRM
    assert state.turn == R
    assert options(state, R) == {Bid(CONFIRM, H), Bid(SWITCH)}
    refuse(state, R, Bid(PASS), errors.BID_NOT_ALLOWED)
    refuse(state, R, Bid(SUN), errors.BID_NOT_ALLOWED)
    refuse(state, R, Bid(CONFIRM, S), errors.SUIT_NOT_ALLOWED)
    refuse(state, O, Bid(CONFIRM, H), errors.NOT_YOUR_TURN)
    assert contract_of(bid(state, R, CONFIRM, H)) == hokm(R, H)
    assert contract_of(bid(state, R, SWITCH)) == sun(R)


def test_a_dealer_hokm_bidder_chooses_at_once() -> None:
    state = bids(start(), (R, PASS), (O, PASS), (L, PASS), (DD, HOKM))
    assert state.bid_stage is BidStage.CONFIRM
    assert state.turn == DD
    assert options(state, DD) == {Bid(CONFIRM, H), Bid(SWITCH)}
    assert contract_of(bid(state, DD, CONFIRM, H)) == hokm(DD, H)


def test_round2_hokm_bidder_confirms_his_named_suit_or_switches() -> None:
    state = pass_rest(bid(round2(), R, HOKM, C))
    assert state.turn == R
    assert options(state, R) == {Bid(CONFIRM, C), Bid(SWITCH)}
    refuse(state, R, Bid(CONFIRM, S), errors.SUIT_NOT_ALLOWED)
    assert contract_of(bid(state, R, CONFIRM, C)) == hokm(R, C, 2)
    assert contract_of(bid(state, R, SWITCH)) == sun(R, 2)


# --- R7: Ashkal ----------------------------------------------------------------------------


@pytest.mark.parametrize("dealer", DEALERS)
def test_ashkal_only_for_the_dealers_left_and_the_dealer(dealer: int) -> None:
    seats = table(dealer)
    state = start(dealer=dealer)
    for seat in (seats.r, seats.o):
        assert Bid(ASHKAL) not in options(state, seat)
        refuse(state, seat, Bid(ASHKAL), errors.ASHKAL_NOT_ALLOWED)
        state = bid(state, seat, PASS)
    assert Bid(ASHKAL) in options(state, seats.l)
    assert contract_of(bid(state, seats.l, ASHKAL)) == sun(seats.l, ashkal=True)
    state = bid(state, seats.l, PASS)
    assert Bid(ASHKAL) in options(state, seats.d)
    assert contract_of(bid(state, seats.d, ASHKAL)) == sun(seats.d, ashkal=True)


def test_no_ashkal_in_round2_by_default() -> None:
    state = bids(round2(), (R, PASS), (O, PASS))
    assert Bid(ASHKAL) not in options(state, L)
    refuse(state, L, Bid(ASHKAL), errors.ASHKAL_NOT_ALLOWED)
    state = bid(state, L, PASS)
    refuse(state, DD, Bid(ASHKAL), errors.ASHKAL_NOT_ALLOWED)


@pytest.mark.parametrize("rules", [SEEDS.replace(ashkal_in_round2=True), KAMMELNA])
def test_ashkal_in_round2_when_the_flag_is_on(rules: RuleSet) -> None:
    state = round2(rules)
    refuse(state, R, Bid(ASHKAL), errors.ASHKAL_NOT_ALLOWED)
    state = bids(state, (R, PASS), (O, PASS))
    assert Bid(ASHKAL) in options(state, L)
    assert contract_of(bid(state, L, ASHKAL)) == sun(L, 2, ashkal=True)


def test_ashkal_allowed_on_an_ace_by_default() -> None:
    state = bids(start(deck=ACE_DECK), (R, PASS), (O, PASS))
    assert contract_of(bid(state, L, ASHKAL)) == sun(L, ashkal=True)


def test_ashkal_forbidden_on_ace() -> None:
    rules = SEEDS.replace(ashkal_forbidden_on_ace=True)
    state = bids(start(rules, deck=ACE_DECK), (R, PASS), (O, PASS))
    assert Bid(ASHKAL) not in options(state, L)
    refuse(state, L, Bid(ASHKAL), errors.ASHKAL_NOT_ALLOWED)
    assert contract_of(bid(state, L, SUN)) == sun(L)
    state = bids(start(rules), (R, PASS), (O, PASS))  # revealed 10H: allowed
    assert contract_of(bid(state, L, ASHKAL)) == sun(L, ashkal=True)


# --- R8: round 2 -----------------------------------------------------------------------------


def test_round2_options_hokm_in_another_suit() -> None:
    state = round2()
    assert options(state, R) == {Bid(PASS), Bid(SUN), Bid(HOKM, S), Bid(HOKM, D), Bid(HOKM, C)}
    refuse(state, R, Bid(HOKM, H), errors.SUIT_NOT_ALLOWED)
    refuse(state, R, Bid(HOKM), errors.SUIT_NOT_ALLOWED)


@pytest.mark.parametrize("position", range(4))
def test_round2_sun_ends_the_bidding_at_once(position: int) -> None:
    seat = table(DEALER)[position]
    state = bid(pass_until(round2(), seat), seat, SUN)
    assert contract_of(state) == sun(seat, 2)
    bidding_is_over(state)


def test_round2_no_hokm_over_hokm_and_later_players_may_say_sun() -> None:
    state = bid(round2(), R, HOKM, S)
    assert options(state, O) == {Bid(PASS), Bid(SUN)}
    refuse(state, O, Bid(HOKM, D), errors.BID_NOT_ALLOWED)
    assert contract_of(bid(state, O, SUN)) == sun(O, 2)


@pytest.mark.parametrize("rules", [SEEDS, REOPEN])
def test_round2_players_who_spoke_get_no_new_chance(rules: RuleSet) -> None:
    state = bids(round2(rules), (R, PASS), (O, PASS), (L, HOKM, D), (DD, PASS))
    assert state.bid_stage is BidStage.CONFIRM
    assert state.turn == L
    refuse(state, R, Bid(SUN), errors.NOT_YOUR_TURN)
    assert contract_of(bid(state, L, CONFIRM, D)) == hokm(L, D, 2)


AT_CONFIRM = SEEDS.replace(second_hokm_suit_at_confirm=True)


@pytest.mark.parametrize("rules", [AT_CONFIRM, KAMMELNA])
def test_second_hokm_suit_named_at_confirmation(rules: RuleSet) -> None:
    state = round2(rules)
    assert Bid(HOKM) in options(state, R)
    state = pass_rest(bid(state, R, HOKM))
    assert state.turn == R
    assert options(state, R) == {Bid(CONFIRM, S), Bid(CONFIRM, D), Bid(CONFIRM, C), Bid(SWITCH)}
    refuse(state, R, Bid(CONFIRM, H), errors.SUIT_NOT_ALLOWED)
    assert contract_of(bid(state, R, CONFIRM, D)) == hokm(R, D, 2)
    assert contract_of(bid(state, R, SWITCH)) == sun(R, 2)


def test_second_hokm_suit_at_confirm_leaves_round1_alone() -> None:
    state = pass_rest(bid(start(AT_CONFIRM), R, HOKM))
    assert options(state, R) == {Bid(CONFIRM, H), Bid(SWITCH)}


# --- R9 / R10: redeal, contract ------------------------------------------------------------


def test_all_pass_twice_cancels_the_hand_and_the_deal_passes_right() -> None:
    state = pass_rest(round2())
    assert state.phase is Phase.AWAITING_DEAL
    assert state.contract is None
    assert state.hands == (0, 0, 0, 0)
    assert state.match_scores == (0, 0)
    assert state.dealer == R
    assert validate(state) == []
    assert legal_actions(state, R) != []
    refuse(state, DEALER, Deal(DECK), errors.NOT_YOUR_TURN)
    assert act(state, R, Deal(DECK)).turn == O


def test_the_eighth_pass_reports_the_redeal() -> None:
    state = bids(round2(), (R, PASS), (O, PASS), (L, PASS))
    _, events = act_events(state, DD, Bid(PASS))
    kinds = [e.kind for e in events]
    assert kinds == [EventKind.BID_PLACED, EventKind.REDEAL]
    assert events[-1].seat == R
    assert events[-1].redeal is RedealReason.ALL_PASSED


def test_the_contract_records_type_trump_buyer_ashkal_and_round() -> None:
    state = bids(start(), (R, PASS), (O, HOKM))
    state = pass_rest(state)
    state, events = act_events(state, O, Bid(CONFIRM, H))
    fixed = [e for e in events if e.kind is EventKind.CONTRACT_FIXED]
    assert len(fixed) == 1
    assert fixed[0].contract == state.contract
    assert contract_of(state) == hokm(O, H)
    assert state.contract is not None
    assert state.contract.buyer_team == O % 2


# --- R11: «قبلك» priority claim ------------------------------------------------------------

OPPONENTS = SEEDS.replace(sun_priority_claim=SunPriorityClaim.OPPONENTS_WHO_PASSED)
HIGHER = SEEDS.replace(sun_priority_claim=SunPriorityClaim.HIGHER_PRIORITY)


def test_no_priority_claim_by_default() -> None:
    state = bids(start(), (R, PASS), (O, PASS), (L, PASS), (DD, SUN))
    assert contract_of(state) == sun(DD)


def test_opponents_who_passed_are_asked_in_turn_order() -> None:
    state = bids(start(OPPONENTS), (R, PASS), (O, PASS), (L, PASS), (DD, SUN))
    assert state.phase is Phase.BIDDING
    assert state.bid_stage is BidStage.PRIORITY
    assert state.turn == R
    assert options(state, R) == {Bid(PASS), Bid(CLAIM)}
    refuse(state, O, Bid(CLAIM), errors.NOT_YOUR_TURN)
    state = bid(state, R, PASS)
    assert state.turn == L  # O is the caller's partner: not asked
    claimed = bid(state, L, CLAIM)
    assert contract_of(claimed) == sun(L)
    kept = bid(state, L, PASS)
    assert contract_of(kept) == sun(DD)


def test_opponents_who_passed_first_claimant_wins_at_once() -> None:
    state = bids(start(OPPONENTS), (R, PASS), (O, PASS), (L, PASS), (DD, SUN), (R, CLAIM))
    assert contract_of(state) == sun(R)
    bidding_is_over(state)


def test_opponents_who_passed_only_the_passing_opponent_is_asked() -> None:
    state = bids(start(OPPONENTS), (R, PASS), (O, PASS), (L, SUN))
    assert state.turn == O  # R is L's partner
    state = bid(state, O, PASS)
    assert contract_of(state) == sun(L)


def test_opponents_who_passed_a_hokm_bidder_is_not_asked() -> None:
    state = bids(start(OPPONENTS), (R, HOKM), (O, SUN))
    assert contract_of(state) == sun(O)


def test_nobody_earlier_nobody_asked() -> None:
    for rules in (OPPONENTS, HIGHER):
        assert contract_of(bid(start(rules), R, SUN)) == sun(R)


def test_higher_priority_asks_every_earlier_player_partner_included() -> None:
    state = bids(start(HIGHER), (R, PASS), (O, PASS), (L, PASS), (DD, SUN))
    assert state.turn == R
    state = bid(state, R, PASS)
    assert state.turn == O
    assert options(state, O) == {Bid(PASS), Bid(CLAIM)}
    assert contract_of(bid(state, O, CLAIM)) == sun(O)
    state = bid(state, O, PASS)
    assert state.turn == L
    assert contract_of(bid(state, L, PASS)) == sun(DD)


def test_higher_priority_asks_an_earlier_hokm_bidder() -> None:
    state = bids(start(HIGHER), (R, HOKM), (O, PASS), (L, SUN))
    assert state.turn == R
    assert contract_of(bid(state, R, CLAIM)) == sun(R)


def test_priority_claim_over_an_ashkal() -> None:
    state = bids(start(HIGHER), (R, PASS), (O, PASS), (L, ASHKAL))
    assert state.turn == R
    kept = bids(state, (R, PASS), (O, PASS))
    assert contract_of(kept) == sun(L, ashkal=True)
    claimed = bids(state, (R, PASS), (O, CLAIM))
    assert claimed.contract is not None
    assert claimed.contract.is_sun
    assert claimed.contract.buyer == O
    assert claimed.hands[O] >> parse_card("10H") & 1  # the Sun buyer takes the revealed card


def test_a_claimant_who_may_say_ashkal_may_claim_the_sun_as_ashkal() -> None:
    # §A.15: wherever a seat that may say Ashkal (R7) may buy Sun in round 1, it may buy it
    # as Ashkal; L, the dealer's left, asked «قبلك» after the dealer's Sun, is such a seat.
    state = bids(start(HIGHER), (R, PASS), (O, PASS), (L, PASS), (DD, SUN), (R, PASS), (O, PASS))
    assert state.turn == L
    assert options(state, L) == {Bid(PASS), Bid(CLAIM), Bid(ASHKAL)}
    claimed = bid(state, L, ASHKAL)
    assert contract_of(claimed) == sun(L, ashkal=True)
    assert claimed.hands[R] >> parse_card("10H") & 1  # his partner takes the revealed card
    # R and O may not say Ashkal: only the dealer and the dealer's left may.
    first = bids(start(HIGHER), (R, PASS), (O, PASS), (L, PASS), (DD, SUN))
    assert options(first, R) == {Bid(PASS), Bid(CLAIM)}
    refuse(first, R, Bid(ASHKAL), errors.ASHKAL_NOT_ALLOWED)


def test_an_ashkal_claim_needs_a_hokm_in_the_lap_where_ashkal_does() -> None:
    rules = HIGHER.replace(ashkal_requires_pending_hokm=True)
    state = bids(start(rules), (R, PASS), (O, PASS), (L, PASS), (DD, SUN), (R, PASS), (O, PASS))
    assert options(state, L) == {Bid(PASS), Bid(CLAIM)}
    # The refusal names the reason: the seat may say Ashkal, but no Hokm was bid in the lap.
    refused = refuse(state, L, Bid(ASHKAL), errors.ASHKAL_NOT_ALLOWED)
    assert "only over a Hokm" in refused.message
    state = bids(start(rules), (R, HOKM), (O, PASS), (L, PASS), (DD, SUN), (R, PASS), (O, PASS))
    assert state.turn == L
    assert options(state, L) == {Bid(PASS), Bid(CLAIM), Bid(ASHKAL)}


# --- R12: Kawesh ---------------------------------------------------------------------------

WORTHLESS = build_deck({R: "7S 8S 9S 7H 8H", O: "7D 8D 9D 7C 8C"}, "10H")
TEN_IN_HAND = build_deck({R: "7S 8S 9S 7H 10D"}, "10H")
KAWESH_RULES = [
    SEEDS.replace(kawesh=Kawesh.INITIAL_FIVE_OF_789),
    SEEDS.replace(kawesh=Kawesh.NO_COURT_CARDS),
]


def test_kawesh_is_off_by_default() -> None:
    state = start(deck=WORTHLESS)
    assert Bid(KAWESH) not in options(state, R)
    refuse(state, R, Bid(KAWESH), errors.KAWESH_NOT_ALLOWED)


@pytest.mark.parametrize("rules", KAWESH_RULES)
def test_kawesh_with_a_hand_of_only_7_8_9(rules: RuleSet) -> None:
    state = start(rules, deck=WORTHLESS)
    assert Bid(KAWESH) in options(state, R)
    cancelled = act(state, R, Bid(KAWESH))
    assert cancelled.phase is Phase.AWAITING_DEAL
    assert cancelled.dealer == R
    assert cancelled.hands == (0, 0, 0, 0)
    # Still open after a pending Hokm (the purchase is not final yet).
    state = bid(state, R, HOKM)
    assert act(state, O, Bid(KAWESH)).phase is Phase.AWAITING_DEAL


@pytest.mark.parametrize("rules", KAWESH_RULES)
def test_kawesh_names_no_suit(rules: RuleSet) -> None:
    """An action outside the legal set is refused: a Kawesh claim carries no suit."""
    state = start(rules, deck=WORTHLESS)
    assert Bid(KAWESH, S) not in options(state, R)
    refuse(state, R, Bid(KAWESH, S), errors.SUIT_NOT_ALLOWED)


@pytest.mark.parametrize("rules", KAWESH_RULES)
def test_no_kawesh_with_a_ten_or_a_court_card(rules: RuleSet) -> None:
    state = start(rules, deck=TEN_IN_HAND)
    assert Bid(KAWESH) not in options(state, R)
    refuse(state, R, Bid(KAWESH), errors.KAWESH_NOT_ALLOWED)


@pytest.mark.parametrize("rules", KAWESH_RULES)
def test_kawesh_in_round2_only_with_no_court_cards_never_once_the_contract_is_fixed(
    rules: RuleSet,
) -> None:
    state = pass_rest(start(rules, deck=WORTHLESS))
    assert state.bidding_round == 2
    if rules.kawesh is Kawesh.INITIAL_FIVE_OF_789:  # SAK: round-1 bidding only
        refuse(state, R, Bid(KAWESH), errors.KAWESH_NOT_ALLOWED)
    else:  # TAZ: any bidding phase
        assert Bid(KAWESH) in options(state, R)
        assert act(state, R, Bid(KAWESH)).phase is Phase.AWAITING_DEAL
    fixed = bid(state, R, SUN)
    with pytest.raises(RuleError) as caught:
        apply(fixed, O, Bid(KAWESH))
    assert caught.value.reason in (errors.WRONG_PHASE, errors.KAWESH_NOT_ALLOWED)


# --- properties ----------------------------------------------------------------------------

MAX_BIDDING_ACTIONS = 20  # 4 + 3 reopened + 3 priority + 1 confirm, twice, minus overlaps

ALL_BIDS = [Bid(kind, suit) for kind in BidKind for suit in (-1, 0, 1, 2, 3)]


@settings(max_examples=300, deadline=None)
@given(rules=bidding_rules, deck=decks, dealer=st.integers(0, 3), data=st.data())
def test_random_legal_bidding_ends_in_a_contract_or_a_redeal(
    rules: RuleSet, deck: tuple[int, ...], dealer: int, data: st.DataObject
) -> None:
    state = dealt(deck, rules=rules, dealer=dealer)
    seats = table(dealer)
    steps = 0
    kawesh = False
    while state.phase is Phase.BIDDING:
        steps += 1
        assert steps <= MAX_BIDDING_ACTIONS
        assert state.turn == state.to_ask[0]
        # Only the seat on turn may speak (a Kawesh claim aside).
        for seat in range(4):
            if seat != state.turn:
                assert all(b.kind is KAWESH for b in options(state, seat))
        choices = sorted(
            ((seat, b) for seat in range(4) for b in options(state, seat)),
            key=lambda sb: (sb[0], sb[1].sort_key()),
        )
        seat, choice = data.draw(st.sampled_from(choices))
        kawesh = choice.kind is KAWESH
        bought = any(r.bid.kind in (HOKM, SUN, ASHKAL) for r in state.bids)
        state = act(state, seat, choice)
    if state.phase is Phase.AWAITING_DEAL:
        # kawesh_keeps_dealer is TAZ's pre-bid redeal: once somebody bought, the deal rotates.
        keep = kawesh and rules.kawesh_keeps_dealer and not bought
        assert state.dealer == (dealer if keep else seats.r)
        assert state.hands == (0, 0, 0, 0)
        return
    contract = state.contract
    assert contract is not None
    assert state.phase in (Phase.DOUBLING, Phase.PLAYING)
    revealed_suit = deck[20] // 8
    if contract.type is ContractType.HOKM:
        assert (contract.trump == revealed_suit) == (contract.bidding_round == 1)
    if contract.ashkal:
        assert contract.buyer in (seats.l, seats.d)
        assert contract.bidding_round == 1 or rules.ashkal_in_round2
        assert not (rules.ashkal_forbidden_on_ace and deck[20] % 8 == 7)
    if rules.doubling_window.value == "after_deal":
        assert [h.bit_count() for h in state.hands] == [8, 8, 8, 8]


@settings(max_examples=200, deadline=None)
@given(rules=bidding_rules, deck=decks, data=st.data())
def test_bids_outside_the_legal_set_are_refused_and_change_nothing(
    rules: RuleSet, deck: tuple[int, ...], data: st.DataObject
) -> None:
    state = dealt(deck, rules=rules)
    while state.phase is Phase.BIDDING:
        seat = data.draw(st.integers(0, 3))
        legal = options(state, seat)
        for candidate in ALL_BIDS:
            if candidate in legal:
                continue
            if (
                candidate == Bid(HOKM)
                and state.bidding_round == 1
                and Bid(HOKM, state.revealed // 8) in legal
            ):
                continue  # a round-1 Hokm naming no suit is the revealed suit
            if (
                candidate == Bid(BidKind.CONFIRM_HOKM)
                and state.pending_suit >= 0
                and Bid(BidKind.CONFIRM_HOKM, state.pending_suit) in legal
            ):
                continue  # confirming a named Hokm without its suit confirms that suit
            snapshot = repr(state)
            with pytest.raises(RuleError):
                apply(state, seat, candidate)
            assert repr(state) == snapshot
        on_turn = sorted(options(state, state.turn), key=Bid.sort_key)
        state = act(state, state.turn, data.draw(st.sampled_from(on_turn)))


# --- §A.14 F13 and F14: FEDERATION's Ashkal and the switch on an Ace ---------------------------

PENDING_HOKM = SEEDS.replace(ashkal_requires_pending_hokm=True, ashkal_in_round2=True)


@pytest.mark.parametrize("rules", [PENDING_HOKM, FEDERATION])
def test_ashkal_only_over_a_hokm_bid_in_the_same_lap(rules: RuleSet) -> None:
    # No Hokm yet: L and the dealer may say Sun but not Ashkal.
    state = bids(start(rules), (R, PASS), (O, PASS))
    assert Bid(ASHKAL) not in options(state, L)
    assert Bid(SUN) in options(state, L)
    with pytest.raises(RuleError) as refused:
        apply(state, L, Bid(ASHKAL))
    assert refused.value.reason == errors.ASHKAL_NOT_ALLOWED
    assert "over a Hokm" in refused.value.message
    state = bid(state, L, PASS)
    refuse(state, DD, Bid(ASHKAL), errors.ASHKAL_NOT_ALLOWED)
    # O bids Hokm: L (and then the dealer) may take it away with an Ashkal.
    state = bids(start(rules), (R, PASS), (O, HOKM))
    assert Bid(ASHKAL) in options(state, L)
    assert contract_of(bid(state, L, ASHKAL)) == sun(L, ashkal=True)
    state = bid(state, L, PASS)
    assert contract_of(bid(state, DD, ASHKAL)) == sun(DD, ashkal=True)


@pytest.mark.parametrize("rules", [PENDING_HOKM, FEDERATION])
def test_ashkal_in_round2_over_a_second_hokm(rules: RuleSet) -> None:
    state = bids(round2(rules), (R, PASS), (O, PASS))
    refuse(state, L, Bid(ASHKAL), errors.ASHKAL_NOT_ALLOWED)  # nobody bid Hokm in this lap
    state = bids(round2(rules), (R, HOKM, C))
    state = bid(state, O, PASS)  # O says Wala and is not asked again in this lap
    assert Bid(ASHKAL) in options(state, L)
    assert contract_of(bid(state, L, ASHKAL)) == sun(L, 2, ashkal=True)


@pytest.mark.parametrize("rules", [SEEDS.replace(ace_switch_dealer_right_only=True), FEDERATION])
def test_on_a_revealed_ace_only_the_dealers_right_switches_to_sun(rules: RuleSet) -> None:
    # O bids Hokm on AH; the others pass; O may only confirm.
    state = pass_rest(bids(start(rules, deck=ACE_DECK), (R, PASS), (O, HOKM)))
    assert state.bid_stage is BidStage.CONFIRM
    assert options(state, O) == {Bid(CONFIRM, H)}
    with pytest.raises(RuleError) as refused:
        apply(state, O, Bid(SWITCH))
    assert refused.value.reason == errors.BID_NOT_ALLOWED
    assert "dealer's right" in refused.value.message
    assert contract_of(bid(state, O, CONFIRM, H)) == hokm(O, H)
    # R (the dealer's right) bids Hokm on the Ace: he may still switch.
    state = pass_rest(bid(start(rules, deck=ACE_DECK), R, HOKM))
    assert options(state, R) == {Bid(CONFIRM, H), Bid(SWITCH)}
    assert contract_of(bid(state, R, SWITCH)) == sun(R)
    # Not an Ace (10H): everybody may switch, as in SEEDS.
    state = pass_rest(bids(start(rules), (R, PASS), (O, HOKM)))
    assert options(state, O) == {Bid(CONFIRM, H), Bid(SWITCH)}
    # A second-round Hokm names another suit: it is not on the Ace, the switch stays.
    state = pass_rest(bids(round2(rules, deck=ACE_DECK), (R, PASS), (O, HOKM, C)))
    assert options(state, O) == {Bid(CONFIRM, C), Bid(SWITCH)}
