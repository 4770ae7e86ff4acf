"""Exact Baloot scenarios for the rules tests: deck layouts, bidding scripts, card play.

Seats are numbered 0-3 in counter-clockwise order; the next player is ``(seat + 1) % 4``.
Relative to the dealer D the seats are R (dealer's right, first to speak and, by default,
first to lead), O (opposite, the dealer's partner) and L (dealer's left)::

    seats = table(dealer)  # seats.r, seats.o, seats.l, seats.d

Test modules of this package import the helpers relatively: ``from .scenario import dealt``.

Deck layout (rules R4, dealing order top to bottom, 32 cards):

* indexes 0-19: the first five cards of each player in packets of 3 then 2, in the order
  R, O, L, D (0-2 R, 3-5 O, 6-8 L, 9-11 D, 12-13 R, 14-15 O, 16-17 L, 18-19 D);
* index 20: the revealed buy card;
* indexes 21-31: the completion after bidding, in the order R, O, L, D: three cards each,
  two for the *taker* (the player who receives the revealed card: the buyer, or in Ashkal
  the caller's partner).

:func:`build_deck` lays out given first-five cards, revealed card and completion cards;
:func:`deck_for_hands` lays out four given eight-card hands. Cards are written as codes
(``"10H"``, ``"JS"``, ``"AC"``) separated by spaces.

Driving helpers apply actions through the public entry points
(:func:`baloot_engine.rules.game.apply`) and check every state they produce with
:func:`baloot_engine.rules.validation.validate`. :func:`refuse` asserts that an action is refused
with a given reason and that the refused state is left exactly as it was.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

import pytest

from baloot_engine.rules.actions import (
    Action,
    Bid,
    BidKind,
    ClaimSawa,
    Deal,
    Declare,
    Doubling,
    DoublingCall,
    Event,
    Play,
)
from baloot_engine.rules.cards import format_card, parse_card, parse_cards
from baloot_engine.rules.contract import PlayMode
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.game import apply, legal_actions, new_match
from baloot_engine.rules.ruleset import SEEDS, RuleSet
from baloot_engine.rules.state import BidStage, Phase, State
from baloot_engine.rules.validation import validate

ALL_CARDS = frozenset(range(32))
_PASSING_STAGES = (BidStage.LAP, BidStage.REOPEN, BidStage.PRIORITY)
_FIRST_FIVE_SLOTS = ((0, 1, 2, 12, 13), (3, 4, 5, 14, 15), (6, 7, 8, 16, 17), (9, 10, 11, 18, 19))
REVEALED_SLOT = 20


class Table(NamedTuple):
    """The four seats named relative to the dealer."""

    r: int
    o: int
    l: int  # noqa: E741 - the rules name this seat L
    d: int


def table(dealer: int) -> Table:
    """Return the seats R, O, L, D for a dealer."""
    return Table((dealer + 1) % 4, (dealer + 2) % 4, (dealer + 3) % 4, dealer)


def team(seat: int) -> int:
    """Return the team of a seat: partners sit opposite."""
    return seat % 2


def card_set(text: str | Iterable[int]) -> frozenset[int]:
    """Return the cards of a code string (or an iterable of indexes) as a set."""
    if isinstance(text, str):
        cards = parse_cards(text)
        if len(set(cards)) != len(cards):
            raise ValueError(f"a card is repeated in {text!r}")
        return frozenset(cards)
    return frozenset(text)


def codes(cards: int | Iterable[int]) -> set[str]:
    """Return a hand mask (int) or an iterable of cards as a set of card codes."""
    if isinstance(cards, int):
        return {format_card(c) for c in range(32) if cards >> c & 1}
    return {format_card(c) for c in cards}


def code_set(text: str) -> set[str]:
    """Normalise a code string into a set of card codes (for comparisons)."""
    return {format_card(c) for c in parse_cards(text)}


def mask(text: str) -> int:
    """Return the hand mask of a code string."""
    out = 0
    for card in card_set(text):
        out |= 1 << card
    return out


# ---------------------------------------------------------------------------------------
# Deck layouts


def build_deck(
    first_five: Mapping[int, str] | None = None,
    revealed: str | None = None,
    completion: Mapping[int, str] | None = None,
    *,
    dealer: int = 0,
    taker: int | None = None,
) -> tuple[int, ...]:
    """Lay out a deck from the first five cards by seat, the revealed card and the completion.

    ``taker`` is the seat that will receive the revealed card (default: R); it gets two
    completion cards, every other seat three. Anything left unspecified is filled with the
    remaining cards in ascending card order, so a test names only the cards it relies on.
    """
    first_five = dict(first_five or {})
    completion = dict(completion or {})
    seats = table(dealer)
    taker = seats.r if taker is None else taker
    used: set[int] = set()

    def take(cards: Iterable[int]) -> list[int]:
        out = list(cards)
        for card in out:
            if card in used:
                raise ValueError(f"card {format_card(card)} is placed twice")
            used.add(card)
        return out

    first = {seat: take(parse_cards(first_five.get(seat, ""))) for seat in range(4)}
    shown = take([parse_card(revealed)]) if revealed else []
    rest = {seat: take(parse_cards(completion.get(seat, ""))) for seat in range(4)}
    pool = sorted(ALL_CARDS - used)

    def fill(cards: list[int], size: int, what: str) -> list[int]:
        if len(cards) > size:
            raise ValueError(f"{what}: {len(cards)} cards given, {size} expected")
        while len(cards) < size:
            cards.append(pool.pop(0))
        return cards

    deck: list[int] = [-1] * 32
    for position, seat in enumerate(seats):
        cards = fill(first[seat], 5, f"first five of seat {seat}")
        for slot, card in zip(_FIRST_FIVE_SLOTS[position], cards, strict=True):
            deck[slot] = card
    deck[REVEALED_SLOT] = fill(shown, 1, "revealed card")[0]
    index = REVEALED_SLOT + 1
    for seat in seats:
        size = 2 if seat == taker else 3
        for card in fill(rest[seat], size, f"completion of seat {seat}"):
            deck[index] = card
            index += 1
    assert sorted(deck) == list(range(32))
    return tuple(deck)


def deck_for_hands(
    hands: Mapping[int, str], revealed: str, *, taker: int, dealer: int = 0
) -> tuple[int, ...]:
    """Lay out a deck that gives each seat exactly the eight cards listed for it.

    The revealed card must be in the taker's hand. For every seat the first five listed
    cards (the revealed card aside) are its first deal, the others its completion.
    """
    if sorted(hands) != [0, 1, 2, 3]:
        raise ValueError("give the hands of all four seats")
    shown = parse_card(revealed)
    first: dict[int, str] = {}
    rest: dict[int, str] = {}
    for seat, text in hands.items():
        cards = parse_cards(text)
        if len(cards) != 8:
            raise ValueError(f"seat {seat} has {len(cards)} cards, 8 expected")
        if seat == taker:
            if shown not in cards:
                raise ValueError(f"the taker (seat {seat}) must hold the revealed card")
            cards.remove(shown)
        elif shown in cards:
            raise ValueError(f"only the taker may hold the revealed card, not seat {seat}")
        first[seat] = " ".join(format_card(c) for c in cards[:5])
        rest[seat] = " ".join(format_card(c) for c in cards[5:])
    return build_deck(first, revealed, rest, dealer=dealer, taker=taker)


# ---------------------------------------------------------------------------------------
# Driving the engine


def act(state: State, seat: int, action: Action) -> State:
    """Apply an action that must be legal; check the new state is consistent."""
    new, _ = act_events(state, seat, action)
    return new


def act_events(state: State, seat: int, action: Action) -> tuple[State, tuple[Event, ...]]:
    """Like :func:`act`, also returning the events."""
    new, events = apply(state, seat, action)
    problems = validate(new)
    assert problems == [], problems
    return new, events


def refuse(state: State, seat: int, action: Action, reason: str) -> RuleError:
    """Assert that ``action`` is refused with ``reason`` and that nothing changed.

    The refused state must compare equal to a snapshot taken before, be still consistent,
    and offer the same legal actions as before.
    """
    snapshot = repr(state)
    legal_before = [legal_actions(state, s) for s in range(4)]
    with pytest.raises(RuleError) as caught:
        apply(state, seat, action)
    assert caught.value.reason == reason, (caught.value.reason, caught.value.message)
    assert repr(state) == snapshot
    assert validate(state) == []
    assert [legal_actions(state, s) for s in range(4)] == legal_before
    return caught.value


def dealt(
    deck: tuple[int, ...] | None = None,
    *,
    rules: RuleSet = SEEDS,
    dealer: int = 0,
    match_scores: tuple[int, int] = (0, 0),
) -> State:
    """Start a match and deal one hand from ``deck`` (default: :func:`build_deck`)."""
    state = new_match(rules, dealer=dealer, match_scores=match_scores)
    return act(state, dealer, Deal(deck if deck is not None else build_deck(dealer=dealer)))


def bid(state: State, seat: int, kind: BidKind, suit: int = -1) -> State:
    """Say a bid for ``seat``."""
    return act(state, seat, Bid(kind, suit))


def bids(state: State, *script: tuple[int, BidKind] | tuple[int, BidKind, int]) -> State:
    """Say several bids in a row: ``(seat, kind)`` or ``(seat, kind, suit)``."""
    for step in script:
        state = bid(state, *step)
    return state


def pass_until(state: State, seat: int) -> State:
    """Every seat on turn passes until ``seat`` is on turn (in the current lap)."""
    while state.turn != seat:
        assert state.phase is Phase.BIDDING
        state = bid(state, state.turn, BidKind.PASS)
    return state


def pass_rest(state: State) -> State:
    """Every seat on turn passes until this lap (or reopened lap, or priority question) ends.

    Stops when the stage changes to another question, the bidding round changes or the
    bidding is over.
    """
    start = (state.bid_stage, state.bidding_round)
    if start[0] not in _PASSING_STAGES:
        return state
    while state.phase is Phase.BIDDING and (state.bid_stage, state.bidding_round) == start:
        state = bid(state, state.turn, BidKind.PASS)
    return state


def buy_hokm(state: State, buyer: int) -> State:
    """Round 1: the players before ``buyer`` pass, he says Hokm, the rest pass, he confirms."""
    state = pass_until(state, buyer)
    state = bid(state, buyer, BidKind.HOKM)
    state = pass_rest(state)
    assert state.turn == buyer
    return bid(state, buyer, BidKind.CONFIRM_HOKM, state.revealed >> 3)


def buy_sun(state: State, buyer: int, *, ashkal: bool = False) -> State:
    """Round 1: the players before ``buyer`` pass, then he says Sun (or Ashkal)."""
    state = pass_until(state, buyer)
    return bid(state, buyer, BidKind.ASHKAL if ashkal else BidKind.SUN)


def decline_all(state: State) -> State:
    """Every seat asked in the doubling chain declines."""
    while state.phase is Phase.DOUBLING:
        state = act(state, state.turn, Doubling(DoublingCall.DECLINE))
    return state


def double_then_decline(state: State, mode: PlayMode) -> State:
    """The first defender asked doubles with ``mode``; every later question is declined."""
    assert state.phase is Phase.DOUBLING
    state = act(state, state.turn, Doubling(DoublingCall.DOUBLE, mode))
    return decline_all(state)


def hokm_hand(
    hands: Mapping[int, str],
    revealed: str,
    *,
    buyer: int,
    rules: RuleSet = SEEDS,
    dealer: int = 0,
    doubled: PlayMode | None = None,
) -> State:
    """Deal four eight-card hands, let ``buyer`` buy Hokm in the revealed suit, start play.

    With ``doubled`` the first defender asked doubles in that mode and nobody raises further.
    """
    state = dealt(
        deck_for_hands(hands, revealed, taker=buyer, dealer=dealer), rules=rules, dealer=dealer
    )
    state = buy_hokm(state, buyer)
    state = double_then_decline(state, doubled) if doubled else decline_all(state)
    assert state.phase is Phase.PLAYING
    return state


def sun_hand(
    hands: Mapping[int, str],
    revealed: str,
    *,
    buyer: int,
    rules: RuleSet = SEEDS,
    dealer: int = 0,
) -> State:
    """Deal four eight-card hands, let ``buyer`` buy Sun in round 1, start play."""
    state = dealt(
        deck_for_hands(hands, revealed, taker=buyer, dealer=dealer), rules=rules, dealer=dealer
    )
    state = decline_all(buy_sun(state, buyer))
    assert state.phase is Phase.PLAYING
    return state


def play(state: State, *cards: str) -> State:
    """The seat on turn plays each card in order (codes, optionally suffixed ``"!"`` for Akka)."""
    for text in cards:
        akka = text.endswith("!")
        state = act(state, state.turn, Play(parse_card(text.rstrip("!")), akka))
    return state


def first_legal_play(state: State) -> tuple[State, tuple[Event, ...]]:
    """The seat on turn plays its first legal card; the new state and the events it caused."""
    card = next(a for a in legal_actions(state, state.turn) if isinstance(a, Play))
    return act_events(state, state.turn, card)


def legal_card_codes(state: State, seat: int | None = None) -> set[str]:
    """The codes of the cards ``seat`` (default: the seat on turn) may play now."""
    seat = state.turn if seat is None else seat
    return {format_card(a.card) for a in legal_actions(state, seat) if isinstance(a, Play)}


def hand_codes(state: State, seat: int) -> set[str]:
    """The codes of the cards ``seat`` holds."""
    return codes(state.hands[seat])


def play_out(state: State, rng: random.Random) -> State:
    """Finish the hand in progress with random legal actions (no Sawa, no declarations)."""
    while state.phase in (Phase.BIDDING, Phase.DOUBLING, Phase.PLAYING):
        seat = state.turn
        options = [a for a in legal_actions(state, seat) if not isinstance(a, (ClaimSawa, Declare))]
        assert options, f"seat {seat} has no legal action in {state.phase}"
        state = act(state, seat, rng.choice(options))
    return state


def rules_with(**flags: Any) -> RuleSet:
    """SEEDS with some flags changed."""
    return SEEDS.replace(**flags)


# --- the trick-play layouts: four eight-card hands, trump hearts (revealed 8H) bought by seat 1

# Trump hearts (revealed 8H), bought by R = seat 1, who leads trick 1.
# Seat 3 (R's partner) and seat 0 are void in spades and hold trumps.
L1 = {
    1: "8H AS KS 7S 10D 9D 7C 8C",
    2: "QS JS 10S 9S 8S AH KD 9C",
    3: "JH 10H 7H QD JD AC KC QC",
    0: "9H KH QH AD 8D 7D 10C JC",
}
# Seat 2 is void in spades and trumps; seat 3 follows spades; seat 0 (2's partner) is void
# in spades and holds the high trumps J and A.
L3 = {
    1: "8H 7S AS KS 10D 9D 7C 8C",
    2: "9H 7H AD KD QD AC KC QC",
    3: "QS JS 10S 9S 8S JD 8D 7D",
    0: "JH AH 10H KH QH JC 10C 9C",
}
# Seat 2 holds the single AS; seat 0 (2's partner, the fourth player) is void in spades.
L4 = {
    1: "8H 7S KS 10D 9D 7C 8C QD",
    2: "AS 9H 7H AD KD AC KC QC",
    3: "QS JS 10S 9S 8S JD 8D 7D",
    0: "JH AH 10H KH QH JC 10C 9C",
}
# Trick 1 AS 10S 7S JS (seat 1 wins); afterwards seat 3 is void in spades.
L5 = {
    1: "8H AS KS QS 10D 9D 7C 8C",
    2: "10S 9S 8S AH KD AD 9C 10C",
    3: "7S JH 10H 7H QD JD AC KC",
    0: "JS 9H KH QH 8D 7D JC QC",
}
# Seat 1 holds nothing but trumps.
L6 = {
    1: "AH KH QH JH 10H 9H 8H 7H",
    2: "AS KS QS JS 10S 9S 8S 7S",
    3: "AD KD QD JD 10D 9D 8D 7D",
    0: "AC KC QC JC 10C 9C 8C 7C",
}


def hokm(layout: dict[int, str], rules: RuleSet = SEEDS, doubled: PlayMode | None = None) -> State:
    """The hand of ``layout`` in Hokm hearts bought by seat 1 (dealer 0), at the first lead."""
    return hokm_hand(layout, "8H", buyer=1, rules=rules, doubled=doubled)
