"""Dealing (R3, R4, R9): deck orders, the first five cards, the buy card, the completion.

The shuffle is always an input. A deck order is either given (tests, replays, duplicate
tournaments), drawn from the OS CSPRNG (:func:`random_deck`), or derived from a secret
match seed with a keyed PRF (:func:`deck_from_seed`) so a retried deal gives the same
cards and nobody can re-roll one.

Deck order: cards 1-20 go in packets of 3 then 2 to the dealer's right (R), the dealer's
partner (O), the dealer's left (L) and the dealer (D); card 21 is the revealed buy card;
cards 22-32 complete the hands after bidding in the order R, O, L, D: 3 cards each, 2 for
the player who takes the buy card.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence

from baloot_engine.rules import errors
from baloot_engine.rules.cards import FULL_DECK, format_card
from baloot_engine.rules.errors import malformed

DECK_SIZE = 32
REVEALED_INDEX = 20
_PACKETS = ((0, 3), (3, 6), (6, 9), (9, 12), (12, 14), (14, 16), (16, 18), (18, 20))


_ALL_CARDS = frozenset(range(DECK_SIZE))


def check_deck(deck: Sequence[int]) -> tuple[int, ...]:
    """Return ``deck`` as a tuple if it holds each of the 32 cards exactly once."""
    cards = tuple(deck)
    # The usual case in one pass of set operations; anything else is explained below.
    if len(cards) == DECK_SIZE and set(map(type, cards)) == {int} and set(cards) == _ALL_CARDS:
        return cards
    if len(cards) != DECK_SIZE:
        raise malformed(errors.INVALID_DECK, f"a deck holds 32 cards, got {len(cards)}")
    mask = 0
    for card in cards:
        if type(card) is not int or not 0 <= card < DECK_SIZE:
            raise malformed(errors.INVALID_DECK, f"not a card index: {card!r}")
        if mask >> card & 1:
            name = format_card(card)
            raise malformed(errors.INVALID_DECK, f"card {name} appears twice", card=name)
        mask |= 1 << card
    if mask != FULL_DECK:  # pragma: no cover - implied by the two checks above
        raise malformed(errors.INVALID_DECK, "the deck is incomplete")
    return cards


def random_deck() -> tuple[int, ...]:
    """Return a deck shuffled with the operating system's CSPRNG."""
    deck = list(range(DECK_SIZE))
    rng = secrets.SystemRandom()
    rng.shuffle(deck)
    return tuple(deck)


def deck_from_seed(seed: bytes, round_number: int) -> tuple[int, ...]:
    """Derive the deck of round ``round_number`` from a secret match seed.

    HMAC-SHA256 in counter mode is the PRF; a Fisher-Yates shuffle with rejection
    sampling turns its bytes into an unbiased permutation.
    """
    deck = list(range(DECK_SIZE))
    stream = _prf_stream(seed, round_number)
    for i in range(DECK_SIZE - 1, 0, -1):
        bound = i + 1
        limit = 256 - 256 % bound
        while True:
            value = next(stream)
            if value < limit:
                break
        j = value % bound
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def board_set_seed(board_key: bytes, board_set: str, secret: str) -> bytes:
    """The seed of a board set: its name bound to the secret its organiser holds.

    Tables created with the same name and secret (on servers sharing the board key) share the
    seed, so they are dealt the same boards; a name without its secret gives other boards.
    """
    name = board_set.encode("utf-8")
    label = b"baloot-board-set/" + len(name).to_bytes(1, "big") + name + secret.encode("utf-8")
    return hmac.new(board_key, label, hashlib.sha256).digest()


def seeded_board_deck(board_seed: bytes, round_number: int, redeals: int) -> tuple[int, ...]:
    """The deck of round ``round_number`` (from 1) of a board set, after ``redeals`` redeals of
    that round, from the set's seed (:func:`board_set_seed`)."""
    label = b"baloot-board/%d/%d" % (round_number, redeals)
    return deck_from_seed(hmac.new(board_seed, label, hashlib.sha256).digest(), round_number)


def board_deck(
    board_key: bytes, board_set: str, round_number: int, redeals: int
) -> tuple[int, ...]:
    """The deck of a duplicate board of a match created before board sets had secrets: round
    ``round_number`` (from 1) of ``board_set``, after ``redeals`` redeals of that round.

    Anyone who knew the name could create a match on it and read its boards; matches created
    since are dealt by :func:`seeded_board_deck`. Kept so that matches in progress keep theirs.
    """
    label = b"baloot-board/%d/%d/" % (round_number, redeals) + board_set.encode("utf-8")
    seed = hmac.new(board_key, label, hashlib.sha256).digest()
    return deck_from_seed(seed, round_number)


def _prf_stream(seed: bytes, round_number: int):  # type: ignore[no-untyped-def]
    counter = 0
    label = b"baloot-deck" + round_number.to_bytes(8, "big")
    while True:
        block = hmac.new(seed, label + counter.to_bytes(4, "big"), hashlib.sha256).digest()
        yield from block
        counter += 1


def initial_hands(deck: Sequence[int], dealer: int) -> tuple[int, int, int, int]:
    """Return the five-card hands (masks by seat) of the first deal, R4(a)."""
    hands = [0, 0, 0, 0]
    for packet, (start, end) in enumerate(_PACKETS):
        seat = (dealer + 1 + packet) & 3
        for card in deck[start:end]:
            hands[seat] |= 1 << card
    return hands[0], hands[1], hands[2], hands[3]


def completion_cards(
    stock: Sequence[int], dealer: int, taker: int, revealed: int
) -> tuple[int, int, int, int]:
    """Return the cards (masks by seat) that complete each hand to eight, R4(c)(d).

    ``taker`` receives the revealed card plus 2 cards from the stock, every other seat 3,
    dealt in the order R, O, L, D.
    """
    extra = [0, 0, 0, 0]
    position = 0
    for offset in range(1, 5):
        seat = (dealer + offset) & 3
        count = 2 if seat == taker else 3
        for card in stock[position : position + count]:
            extra[seat] |= 1 << card
        position += count
        if seat == taker:
            extra[seat] |= 1 << revealed
    return extra[0], extra[1], extra[2], extra[3]
