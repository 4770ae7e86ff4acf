"""Cards (R1): the deck, the three orders, card values by contract (R32), trick winner (R23)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baloot_engine.rules.cards import (
    ACES,
    CLUBS,
    DIAMONDS,
    HEARTS,
    HIGHER,
    KING,
    KING_QUEEN,
    LAST_TRICK_BONUS,
    POINTS,
    QUEEN,
    SORTED_HOKM_POINTS,
    SORTED_SUN_POINTS,
    SPADES,
    STRENGTHS,
    Card,
    card_of,
    card_points,
    format_card,
    higher_in_suit,
    king_queen,
    mask_of,
    parse_card,
    parse_cards,
    strength,
    trick_winner_index,
)

SUITS = "SHDC"
SUN = -1
# R1, high to low.
PLAIN_ORDER = ("A", "10", "K", "Q", "J", "9", "8", "7")
TRUMP_ORDER = ("J", "9", "A", "10", "K", "Q", "8", "7")
SEQUENCE_ORDER = ("A", "K", "Q", "J", "10", "9", "8", "7")
# R32 card values (abnat).
PLAIN_VALUES = {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
TRUMP_VALUES = {**PLAIN_VALUES, "J": 20, "9": 14}


def c(code: str) -> int:
    return parse_card(code)


def winner(codes: str, trump: int) -> str:
    cards = parse_cards(codes)
    return format_card(cards[trick_winner_index(cards, trump)])


# --- encoding -----------------------------------------------------------------------------


def test_the_deck_has_32_distinct_cards_7_to_ace_in_four_suits() -> None:
    names = {format_card(card) for card in range(32)}
    expected = {rank + suit for rank in PLAIN_ORDER for suit in SUITS}
    assert names == expected
    assert len(names) == 32


def test_card_index_is_suit_times_8_plus_rank() -> None:
    for suit_index, suit in enumerate(SUITS):
        for rank_index, rank in enumerate(("7", "8", "9", "10", "J", "Q", "K", "A")):
            assert parse_card(rank + suit) == suit_index * 8 + rank_index


@pytest.mark.parametrize("card", range(32))
def test_codes_round_trip(card: int) -> None:
    assert parse_card(format_card(card)) == card
    assert Card.parse(format_card(card)).index == card
    assert str(Card(card)) == format_card(card)
    assert eval(repr(Card(card))) == Card(card)  # noqa: S307 - the repr is documented to evaluate


def test_parse_accepts_aliases_and_refuses_junk() -> None:
    assert parse_card("TH") == parse_card("10H")
    assert parse_card("j♠") == parse_card("JS")
    for junk in ("", "1H", "11S", "AX", "ZZ"):
        with pytest.raises(ValueError, match="not a card"):
            parse_card(junk)


def test_card_is_immutable() -> None:
    card = Card(3)
    with pytest.raises(AttributeError):
        card._index = 4  # type: ignore[misc]
    with pytest.raises(ValueError, match="out of range"):
        Card(32)


def test_rank_index_is_the_sequence_order() -> None:
    """R1/R25: the third order, A K Q J 10 9 8 7, is the rank index order."""
    ranks = [Card.parse(rank + "S").rank for rank in SEQUENCE_ORDER]
    assert ranks == sorted(ranks, reverse=True)
    assert len(set(ranks)) == 8


# --- R1: trick-taking orders ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("suit", "trump"),
    [(suit, trump) for suit in SUITS for trump in (SUN, 0, 1, 2, 3) if SUITS.index(suit) != trump],
)
def test_plain_order_in_sun_and_in_non_trump_suits(suit: str, trump: int) -> None:
    for high, low in itertools.combinations(PLAIN_ORDER, 2):
        assert winner(f"{high}{suit} {low}{suit}", trump) == f"{high}{suit}"
        assert winner(f"{low}{suit} {high}{suit}", trump) == f"{high}{suit}"


@pytest.mark.parametrize("trump", range(4))
def test_trump_order_j_9_a_10_k_q_8_7(trump: int) -> None:
    suit = SUITS[trump]
    for high, low in itertools.combinations(TRUMP_ORDER, 2):
        assert winner(f"{high}{suit} {low}{suit}", trump) == f"{high}{suit}"
        assert winner(f"{low}{suit} {high}{suit}", trump) == f"{high}{suit}"


def test_the_same_suit_ranks_differently_as_trump() -> None:
    assert winner("AH JH", SUN) == "AH"
    assert winner("AH JH", 0) == "AH"  # spades trump: hearts use the plain order
    assert winner("AH JH", 1) == "JH"
    assert winner("10H 9H", SUN) == "10H"
    assert winner("10H 9H", 1) == "9H"


@pytest.mark.parametrize("trump", [SUN, 0, 1, 2, 3])
def test_strength_is_consistent_with_the_orders(trump: int) -> None:
    for suit_index, suit in enumerate(SUITS):
        order = TRUMP_ORDER if suit_index == trump else PLAIN_ORDER
        values = [strength(c(rank + suit), trump) for rank in order]
        assert values == sorted(values, reverse=True)
        assert len(set(values)) == 8


# --- R32: card values by contract ----------------------------------------------------------


@pytest.mark.parametrize("rank", PLAIN_ORDER)
def test_card_values_in_sun(rank: str) -> None:
    for suit in SUITS:
        assert card_points(c(rank + suit), SUN) == PLAIN_VALUES[rank]


@pytest.mark.parametrize("trump", range(4))
def test_card_values_in_hokm(trump: int) -> None:
    for suit_index, suit in enumerate(SUITS):
        table = TRUMP_VALUES if suit_index == trump else PLAIN_VALUES
        for rank in PLAIN_ORDER:
            assert card_points(c(rank + suit), trump) == table[rank], rank + suit


def test_deck_totals_120_in_sun_and_152_in_hokm() -> None:
    """R34 without the last-trick bonus."""
    assert sum(card_points(card, SUN) for card in range(32)) == 120
    for trump in range(4):
        assert sum(card_points(card, trump) for card in range(32)) == 152


def test_card_points_example_cp1() -> None:
    """§B CP1: per-team abnat of a fixed set of eight tricks, Sun and Hokm ♠."""
    tricks = [
        ("AS 10S KS QS", 0),
        ("AH 10H KH QH", 1),
        ("AD 10D KD QD", 0),
        ("AC 10C KC QC", 0),
        ("JS 9S 8S 7S", 1),
        ("JH 9H 8H 7H", 1),
        ("JD 9D 8D 7D", 0),
        ("JC 9C 8C 7C", 0),
    ]
    for trump, expected in ((SUN, (98, 32)), (0, (98, 64))):
        totals = [0, 0]
        for codes, team in tricks:
            totals[team] += sum(card_points(card, trump) for card in parse_cards(codes))
        totals[tricks[-1][1]] += 10  # last trick
        assert tuple(totals) == expected


# --- R23: the trick winner -----------------------------------------------------------------


def test_sun_highest_card_of_the_led_suit_wins() -> None:
    assert winner("9S 10S 7S AS", SUN) == "AS"
    assert winner("KD 7D QD JD", SUN) == "KD"


def test_off_suit_cards_never_win_even_an_ace() -> None:
    assert winner("7S AH AD AC", SUN) == "7S"
    assert winner("8C 7C AS 10S", SUN) == "8C"


def test_hokm_without_a_trump_the_led_suit_wins() -> None:
    assert winner("7S AD AC 8S", 1) == "8S"  # hearts trump, none played


def test_hokm_any_trump_beats_the_led_suit() -> None:
    assert winner("AS 10S KS 7H", 1) == "7H"
    assert winner("AS 7H 10S KS", 1) == "7H"


def test_hokm_the_highest_trump_wins() -> None:
    assert winner("AS 7H 9H AH", 1) == "9H"
    assert winner("AS JH 9H AH", 1) == "JH"
    assert winner("8H 7H QH KH", 1) == "KH"


def test_hokm_off_suit_non_trump_never_wins() -> None:
    assert winner("7S AD AC 10C", 1) == "7S"


def reference_winner(trick: list[int], trump: int) -> int:
    """R23 written out: trumps first by the trump order, then the led suit by the plain order."""
    led = trick[0] // 8

    def key(i: int) -> tuple[int, int]:
        suit = trick[i] // 8
        rank = format_card(trick[i])[:-1]
        if suit == trump:
            return (2, 8 - TRUMP_ORDER.index(rank))
        if suit == led:
            return (1, 8 - PLAIN_ORDER.index(rank))
        return (0, 0)

    return max(range(4), key=key)


@given(st.permutations(list(range(32))), st.integers(-1, 3))
def test_trick_winner_matches_a_reference_of_r23(deck: list[int], trump: int) -> None:
    for start in range(0, 32, 4):
        trick = deck[start : start + 4]
        assert trick_winner_index(trick, trump) == reference_winner(trick, trump)


# The derived tables, checked against the plain functions they are built from.

CONTRACTS = (-1, SPADES, HEARTS, DIAMONDS, CLUBS)


@pytest.mark.parametrize("trump", CONTRACTS)
def test_card_tables_match_the_functions(trump: int) -> None:
    for card in range(32):
        assert POINTS[trump + 1][card] == card_points(card, trump)
        assert STRENGTHS[trump + 1][card] == strength(card, trump)
        assert HIGHER[trump + 1][card] == higher_in_suit(card, trump)
        beaten_by = [
            other
            for other in range(32)
            if other >> 3 == card >> 3 and strength(other, trump) > strength(card, trump)
        ]
        assert HIGHER[trump + 1][card] == mask_of(beaten_by)


def test_king_queen_and_ace_masks() -> None:
    for suit in (SPADES, HEARTS, DIAMONDS, CLUBS):
        assert KING_QUEEN[suit] == mask_of([card_of(suit, KING), card_of(suit, QUEEN)])
        assert king_queen(suit) == KING_QUEEN[suit]
    assert mask_of(parse_cards("AS AH AD AC")) == ACES


def test_sorted_points_and_the_round_totals() -> None:
    assert tuple(sorted(card_points(c, -1) for c in range(32))) == SORTED_SUN_POINTS
    for trump in (SPADES, HEARTS, DIAMONDS, CLUBS):
        assert tuple(sorted(card_points(c, trump) for c in range(32))) == SORTED_HOKM_POINTS
    # R33/R34: the cards plus the last trick make 130 in Sun and 162 in Hokm.
    assert sum(SORTED_SUN_POINTS) + LAST_TRICK_BONUS == 130
    assert sum(SORTED_HOKM_POINTS) + LAST_TRICK_BONUS == 162
