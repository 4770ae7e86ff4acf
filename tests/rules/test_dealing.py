"""Dealing (R4) and the dealer's rotation (R3), with the deck helpers of ``scenario``."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baloot_engine.rules import dealing, errors
from baloot_engine.rules.actions import Bid, BidKind, Deal, EventKind, RedealReason
from baloot_engine.rules.cards import FULL_DECK, parse_card
from baloot_engine.rules.contract import ContractType
from baloot_engine.rules.dealing import board_deck
from baloot_engine.rules.game import apply, legal_actions, new_match
from baloot_engine.rules.ruleset import SEEDS, Kawesh
from baloot_engine.rules.state import Phase, State

from .scenario import (
    act,
    act_events,
    bid,
    build_deck,
    buy_hokm,
    buy_sun,
    codes,
    dealt,
    deck_for_hands,
    decline_all,
    pass_rest,
    pass_until,
    play_out,
    refuse,
    table,
)
from .strategies import decks

DEALERS = (0, 1, 2, 3)
IDENTITY = tuple(range(32))  # deck position i holds card i


def positions(*indexes: int) -> set[str]:
    """Card codes of the cards lying at the given positions of the identity deck."""
    return codes(indexes)


def all_pieces(state: State) -> list[int]:
    """Masks of every place a card can be: four hands, the stock, the revealed card."""
    pieces = list(state.hands)
    pieces += [1 << c for c in state.stock]
    if state.revealed >= 0:
        pieces.append(1 << state.revealed)
    return pieces


def assert_each_card_once(state: State) -> None:
    seen = 0
    for piece in all_pieces(state):
        assert seen & piece == 0, "a card is in two places"
        seen |= piece
    assert seen == FULL_DECK, "a card is missing"


# --- the scenario helpers lay decks out as R4 says ---------------------------------------


def test_build_deck_puts_each_card_in_its_slot() -> None:
    deck = build_deck(
        {1: "AS KS QS JS 10S", 2: "AH KH QH JH 10H", 3: "AD KD QD JD 10D", 0: "AC KC QC JC 10C"},
        "9S",
        {1: "9H 9D", 2: "9C 8S 8H", 3: "8D 8C 7S", 0: "7H 7D 7C"},
        dealer=0,
        taker=1,
    )
    assert deck[0:3] == tuple(parse_card(c) for c in ("AS", "KS", "QS"))
    assert deck[12:14] == (parse_card("JS"), parse_card("10S"))
    assert deck[9:12] == tuple(parse_card(c) for c in ("AC", "KC", "QC"))
    assert deck[20] == parse_card("9S")
    assert deck[21:23] == (parse_card("9H"), parse_card("9D"))
    assert deck[29:32] == tuple(parse_card(c) for c in ("7H", "7D", "7C"))


def test_deck_for_hands_round_trips_the_eight_card_hands() -> None:
    hands = {
        1: "8H AS KS 7S 10D 9D 7C 8C",
        2: "QS JS 10S 9S 8S AH KD 9C",
        3: "JH 10H 7H QD JD AC KC QC",
        0: "9H KH QH AD 8D 7D 10C JC",
    }
    state = decline_all(buy_hokm(dealt(deck_for_hands(hands, "8H", taker=1)), 1))
    for seat, text in hands.items():
        assert codes(state.hands[seat]) == set(text.split())


# --- R4 (a), (b): five cards each in packets of 3 then 2, then the revealed card --------


@pytest.mark.parametrize("dealer", DEALERS)
def test_first_deal_in_packets_of_three_then_two_starting_at_the_dealers_right(
    dealer: int,
) -> None:
    state = dealt(IDENTITY, dealer=dealer)
    seats = table(dealer)
    assert codes(state.hands[seats.r]) == positions(0, 1, 2, 12, 13)
    assert codes(state.hands[seats.o]) == positions(3, 4, 5, 14, 15)
    assert codes(state.hands[seats.l]) == positions(6, 7, 8, 16, 17)
    assert codes(state.hands[seats.d]) == positions(9, 10, 11, 18, 19)
    assert state.revealed == 20
    assert sorted(state.stock) == list(range(21, 32))
    assert [h.bit_count() for h in state.hands] == [5, 5, 5, 5]
    assert_each_card_once(state)


@pytest.mark.parametrize("dealer", DEALERS)
def test_initial_hands_function_matches_the_deal(dealer: int) -> None:
    state = dealt(IDENTITY, dealer=dealer)
    assert dealing.initial_hands(IDENTITY, dealer) == state.hands


def test_the_deal_event_reports_five_cards_and_the_revealed_card() -> None:
    _, events = act_events(new_match(SEEDS, dealer=2), 2, Deal(IDENTITY))
    dealt_events = [e for e in events if e.kind is EventKind.CARDS_DEALT]
    assert len(dealt_events) == 1
    assert dealt_events[0].cards == (5, 5, 5, 5)
    assert dealt_events[0].card == 20


# --- R4 (c): completion R, O, L, D; the buyer takes the revealed card + 2 ----------------


def completed(buyer_pos: int, how: str, dealer: int) -> State:
    """Deal the identity deck and fix a round-1 contract for the seat at ``buyer_pos``."""
    state = dealt(IDENTITY, dealer=dealer)
    buyer = table(dealer)[buyer_pos]
    if how == "hokm":
        state = buy_hokm(state, buyer)
    else:
        state = buy_sun(state, buyer, ashkal=how == "ashkal")
    return decline_all(state)


# Expected completion (deck positions) of R, O, L, D when the taker is at each position.
COMPLETION = {
    0: ((20, 21, 22), (23, 24, 25), (26, 27, 28), (29, 30, 31)),
    1: ((21, 22, 23), (20, 24, 25), (26, 27, 28), (29, 30, 31)),
    2: ((21, 22, 23), (24, 25, 26), (20, 27, 28), (29, 30, 31)),
    3: ((21, 22, 23), (24, 25, 26), (27, 28, 29), (20, 30, 31)),
}
FIRST = ((0, 1, 2, 12, 13), (3, 4, 5, 14, 15), (6, 7, 8, 16, 17), (9, 10, 11, 18, 19))


@pytest.mark.parametrize("dealer", DEALERS)
@pytest.mark.parametrize(("buyer_pos", "how"), [(0, "hokm"), (1, "sun"), (2, "sun"), (3, "hokm")])
def test_completion_gives_the_buyer_the_revealed_card_plus_two_and_the_others_three(
    dealer: int, buyer_pos: int, how: str
) -> None:
    state = completed(buyer_pos, how, dealer)
    assert state.phase is Phase.PLAYING
    seats = table(dealer)
    assert state.contract is not None
    assert state.contract.buyer == seats[buyer_pos]
    for pos, seat in enumerate(seats):
        assert codes(state.hands[seat]) == positions(*FIRST[pos], *COMPLETION[buyer_pos][pos])
    assert [h.bit_count() for h in state.hands] == [8, 8, 8, 8]
    assert state.stock == ()
    assert state.revealed == -1
    assert state.hands[seats[buyer_pos]] >> 20 & 1


@pytest.mark.parametrize("dealer", DEALERS)
@pytest.mark.parametrize("caller_pos", [2, 3])
def test_ashkal_gives_the_revealed_card_to_the_callers_partner(
    dealer: int, caller_pos: int
) -> None:
    """R4(d)/R7: L's partner is R, D's partner is O; the caller stays the buyer."""
    state = completed(caller_pos, "ashkal", dealer)
    seats = table(dealer)
    contract = state.contract
    assert contract is not None
    assert contract.type is ContractType.SUN
    assert contract.ashkal
    assert contract.buyer == seats[caller_pos]
    taker_pos = caller_pos - 2
    for pos, seat in enumerate(seats):
        assert codes(state.hands[seat]) == positions(*FIRST[pos], *COMPLETION[taker_pos][pos])
    assert not state.hands[seats[caller_pos]] >> 20 & 1
    assert [h.bit_count() for h in state.hands] == [8, 8, 8, 8]


def test_completion_cards_function_follows_r_o_l_d() -> None:
    stock = tuple(range(21, 32))
    extra = dealing.completion_cards(stock, 0, 3, 20)
    assert codes(extra[1]) == positions(21, 22, 23)  # R
    assert codes(extra[2]) == positions(24, 25, 26)  # O
    assert codes(extra[3]) == positions(20, 27, 28)  # L takes the revealed card
    assert codes(extra[0]) == positions(29, 30, 31)  # D


def test_completion_event_reports_eight_cards_each() -> None:
    state = pass_until(dealt(IDENTITY), 2)
    _, events = act_events(state, 2, Bid(BidKind.SUN))
    sizes = [e.cards for e in events if e.kind is EventKind.CARDS_DEALT]
    assert sizes == [(8, 8, 8, 8)]


# --- deck input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "deck",
    [
        IDENTITY[:31],
        (*IDENTITY, 0),
        (0, *IDENTITY[:31][1:], 0),
        (*IDENTITY[:31], 32),
        (*IDENTITY[:31], -1),
        (1.0, *IDENTITY[1:]),
        (True, 0, *IDENTITY[2:]),
        ("0", *IDENTITY[1:]),
    ],
    ids=["31 cards", "33 cards", "duplicate", "index 32", "index -1", "float", "bool", "text"],
)
def test_an_impossible_deck_is_refused(deck: tuple[int, ...]) -> None:
    refuse(new_match(SEEDS), 0, Deal(deck), errors.INVALID_DECK)


def test_only_the_dealer_deals() -> None:
    state = new_match(SEEDS, dealer=2)
    for seat in (0, 1, 3):
        refuse(state, seat, Deal(IDENTITY), errors.NOT_YOUR_TURN)
    assert legal_actions(state, 2) != []
    assert all(legal_actions(state, seat) == [] for seat in (0, 1, 3))


def test_no_deal_while_a_hand_is_in_progress() -> None:
    state = dealt(IDENTITY)
    refuse(state, 0, Deal(IDENTITY), errors.WRONG_PHASE)


def test_random_deck_is_a_permutation() -> None:
    for _ in range(20):
        assert sorted(dealing.random_deck()) == list(range(32))


def test_deck_from_seed_is_a_deterministic_permutation() -> None:
    first = dealing.deck_from_seed(b"match seed", 1)
    assert sorted(first) == list(range(32))
    assert dealing.deck_from_seed(b"match seed", 1) == first
    assert dealing.deck_from_seed(b"match seed", 2) != first
    assert dealing.deck_from_seed(b"other seed", 1) != first


# --- R3: the first dealer and the rotation to the right ------------------------------------


@pytest.mark.parametrize("dealer", DEALERS)
def test_the_first_dealer_is_given(dealer: int) -> None:
    state = new_match(SEEDS, dealer=dealer)
    assert state.dealer == dealer
    assert state.phase is Phase.AWAITING_DEAL


def test_an_invalid_first_dealer_is_refused() -> None:
    with pytest.raises(errors.RuleError) as caught:
        new_match(SEEDS, dealer=4)
    assert caught.value.reason == errors.INVALID_SEAT


@pytest.mark.parametrize("dealer", DEALERS)
def test_the_deal_passes_to_the_right_after_a_played_hand(dealer: int) -> None:
    state = completed(0, "hokm", dealer)
    state = play_out(state, random.Random(dealer))
    assert state.phase is Phase.ROUND_OVER
    assert state.dealer == (dealer + 1) % 4
    assert state.hand_number == 1
    refuse(state, dealer, Deal(IDENTITY), errors.NOT_YOUR_TURN)
    nxt = act(state, (dealer + 1) % 4, Deal(IDENTITY))
    assert nxt.turn == (dealer + 2) % 4  # the new dealer's right opens the bidding


def all_pass_twice(state: State) -> tuple[State, tuple]:
    state = pass_rest(state)
    assert state.bidding_round == 2
    for _ in range(3):
        state = bid(state, state.turn, BidKind.PASS)
    return act_events(state, state.turn, Bid(BidKind.PASS))


@pytest.mark.parametrize("dealer", DEALERS)
def test_the_deal_passes_to_the_right_after_an_all_pass_redeal(dealer: int) -> None:
    state, events = all_pass_twice(dealt(IDENTITY, dealer=dealer, match_scores=(40, 60)))
    assert state.phase is Phase.AWAITING_DEAL
    assert state.dealer == (dealer + 1) % 4
    assert state.match_scores == (40, 60)
    redeal = [e for e in events if e.kind is EventKind.REDEAL]
    assert len(redeal) == 1
    assert redeal[0].seat == (dealer + 1) % 4
    assert redeal[0].redeal is RedealReason.ALL_PASSED
    refuse(state, dealer, Deal(IDENTITY), errors.NOT_YOUR_TURN)


WORTHLESS_R = build_deck({1: "7S 8S 9S 7H 8H"}, dealer=0)  # R's first five: only 7, 8, 9


@pytest.mark.parametrize("option", [Kawesh.INITIAL_FIVE_OF_789, Kawesh.NO_COURT_CARDS])
@pytest.mark.parametrize(("keeps", "next_dealer"), [(False, 1), (True, 0)])
def test_kawesh_cancels_the_hand_and_rotates_unless_kawesh_keeps_dealer(
    option: Kawesh, keeps: bool, next_dealer: int
) -> None:
    rules = SEEDS.replace(kawesh=option, kawesh_keeps_dealer=keeps)
    state = dealt(WORTHLESS_R, rules=rules, match_scores=(10, 20))
    state, events = act_events(state, 1, Bid(BidKind.KAWESH))
    assert state.phase is Phase.AWAITING_DEAL
    assert state.dealer == next_dealer
    assert state.match_scores == (10, 20)
    assert [(e.seat, e.redeal) for e in events if e.kind is EventKind.REDEAL] == [
        (next_dealer, RedealReason.KAWESH)
    ]


@pytest.mark.parametrize("option", [Kawesh.INITIAL_FIVE_OF_789, Kawesh.NO_COURT_CARDS])
def test_a_kawesh_after_a_purchase_rotates_even_with_kawesh_keeps_dealer(option: Kawesh) -> None:
    # kawesh_keeps_dealer is the pre-bid redeal: R's Hokm is a purchase, so O's Kawesh
    # afterwards passes the deal to the right as usual (R3).
    deck = build_deck({2: "7S 8S 9S 7H 8H"}, dealer=0)
    rules = SEEDS.replace(kawesh=option, kawesh_keeps_dealer=True)
    state = dealt(deck, rules=rules)
    state = act(state, 1, Bid(BidKind.HOKM))
    state = act(state, 2, Bid(BidKind.KAWESH))
    assert state.phase is Phase.AWAITING_DEAL
    assert state.dealer == 1


def test_the_dealer_goes_round_the_table_to_the_right() -> None:
    rng = random.Random(7)
    state = new_match(SEEDS, dealer=3)
    dealers = []
    for _ in range(8):
        dealers.append(state.dealer)
        state = act(state, state.dealer, Deal(tuple(rng.sample(range(32), 32))))
        state = play_out(state, rng)
        if state.phase is Phase.MATCH_OVER:
            break
    assert dealers == [(3 + i) % 4 for i in range(len(dealers))]


# --- properties ----------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(deck=decks, dealer=st.integers(0, 3), choice=st.integers(0, 7))
def test_every_card_is_in_exactly_one_place_and_hands_hold_5_then_8(
    deck: tuple[int, ...], dealer: int, choice: int
) -> None:
    state = dealt(deck, dealer=dealer)
    assert_each_card_once(state)
    assert [h.bit_count() for h in state.hands] == [5, 5, 5, 5]
    assert state.revealed == deck[20]
    seats = table(dealer)
    buyer_pos = choice % 4
    if choice < 4:
        state = buy_hokm(state, seats[buyer_pos])
    elif buyer_pos >= 2:
        state = buy_sun(state, seats[buyer_pos], ashkal=True)
    else:
        state = buy_sun(state, seats[buyer_pos])
    state = decline_all(state)
    assert_each_card_once(state)
    assert [h.bit_count() for h in state.hands] == [8, 8, 8, 8]
    contract = state.contract
    assert contract is not None
    taker = (contract.buyer + 2) % 4 if contract.ashkal else contract.buyer
    assert state.hands[taker] >> deck[20] & 1
    for seat in range(4):  # the first five cards stay in the hand
        assert dealing.initial_hands(deck, dealer)[seat] & ~state.hands[seat] == 0


@settings(max_examples=60, deadline=None)
@given(deck=decks, dealer=st.integers(0, 3), seed=st.integers(0, 2**16))
def test_the_dealer_rotates_after_every_hand(deck: tuple[int, ...], dealer: int, seed: int) -> None:
    state = act(new_match(SEEDS, dealer=dealer), dealer, Deal(deck))
    state = play_out(state, random.Random(seed))
    if state.phase is Phase.MATCH_OVER:  # a Gahwa decided the match: nobody deals again
        return
    assert state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER)
    assert state.dealer == (dealer + 1) % 4
    with pytest.raises(errors.RuleError):
        apply(state, dealer, Deal(deck))


def test_board_decks_are_permutations_fixed_by_key_set_round_and_redeal() -> None:
    key = bytes(range(32))
    deck = board_deck(key, "cup", 1, 0)
    assert sorted(deck) == list(range(32))
    assert board_deck(key, "cup", 1, 0) == deck
    others = {
        board_deck(key, "cup", 2, 0),
        board_deck(key, "cup", 1, 1),
        board_deck(key, "cup2", 1, 0),
        board_deck(bytes(32), "cup", 1, 0),
    }
    assert deck not in others
    assert len(others) == 4
