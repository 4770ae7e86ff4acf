"""Cards, suits, ranks, hands as bit masks, the three card orders and card values.

This module also owns every table derived from them, each built once beside the function
that defines it (card points, trick strengths, the cards that beat a card, the K+Q and
Ace masks, the sorted card values): the rest of the engine and the bots index these
tables and never retype them.

Encoding (stable, also documented in the proto contract): ``card = suit * 8 + rank``.

* suit: 0 = spades (S), 1 = hearts (H), 2 = diamonds (D), 3 = clubs (C)
* rank: 0 = 7, 1 = 8, 2 = 9, 3 = 10, 4 = J, 5 = Q, 6 = K, 7 = A

The rank index is the *sequence* order used for projects (R25), so a run is a run of
adjacent bits inside a suit's byte. A hand is a 32-bit mask with bit ``card`` set for
each card held.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Final

SPADES: Final = 0
HEARTS: Final = 1
DIAMONDS: Final = 2
CLUBS: Final = 3
SUITS: Final = (SPADES, HEARTS, DIAMONDS, CLUBS)

SEVEN: Final = 0
EIGHT: Final = 1
NINE: Final = 2
TEN: Final = 3
JACK: Final = 4
QUEEN: Final = 5
KING: Final = 6
ACE: Final = 7
RANKS: Final = (SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE)

SUIT_LETTERS: Final = "SHDC"
RANK_NAMES: Final = ("7", "8", "9", "10", "J", "Q", "K", "A")
SUIT_SYMBOLS: Final = "♠♥♦♣"
# Saudi table names of the suits and ranks, as the rule documents use them.
SUIT_NAMES_AR: Final = ("سبيت", "هاص", "ديمن", "شريا")
RANK_NAMES_AR: Final = ("سبعة", "ثمانية", "تسعة", "عشرة", "ولد", "بنت", "شايب", "إكة")

FULL_DECK: Final = 0xFFFFFFFF
SUIT_MASKS: Final = tuple(0xFF << (8 * s) for s in SUITS)

# Trick-taking strength of each rank (higher wins), R1.
PLAIN_STRENGTH: Final = (0, 1, 2, 6, 3, 4, 5, 7)  # A 10 K Q J 9 8 7
TRUMP_STRENGTH: Final = (0, 1, 6, 4, 7, 2, 3, 5)  # J 9 A 10 K Q 8 7

# Card values in abnat, R32.
PLAIN_POINTS: Final = (0, 0, 0, 10, 2, 3, 4, 11)
TRUMP_POINTS: Final = (0, 0, 14, 10, 20, 3, 4, 11)
LAST_TRICK_BONUS: Final = 10
"""Abnat for the team that wins trick 8 (R33)."""


def card_of(suit: int, rank: int) -> int:
    """Return the card index of ``rank`` in ``suit``."""
    return suit * 8 + rank


def suit_of(card: int) -> int:
    """Return the suit of a card index."""
    return card >> 3


def rank_of(card: int) -> int:
    """Return the rank index (0 = 7 … 7 = A) of a card index."""
    return card & 7


def bit(card: int) -> int:
    """Return the one-bit mask of a card."""
    return 1 << card


def mask_of(cards: Iterable[int]) -> int:
    """Return the mask holding every card of ``cards``."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def cards_in(mask: int) -> Iterator[int]:
    """Yield the cards of a mask in ascending index order."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def card_list(mask: int) -> list[int]:
    """Return the cards of a mask as a sorted list."""
    return list(cards_in(mask))


def popcount(mask: int) -> int:
    """Return the number of cards in a mask."""
    return mask.bit_count()


def format_card(card: int) -> str:
    """Return the short code of a card, e.g. ``"10H"`` or ``"JS"``."""
    if not 0 <= card < 32:
        raise ValueError(f"card index out of range: {card}")
    return RANK_NAMES[card & 7] + SUIT_LETTERS[card >> 3]


_SUIT_ALIASES: Final = {
    **{letter: i for i, letter in enumerate(SUIT_LETTERS)},
    **{sym: i for i, sym in enumerate(SUIT_SYMBOLS)},
    **{name: i for i, name in enumerate(SUIT_NAMES_AR)},
}
_RANK_ALIASES: Final = {
    **{name: i for i, name in enumerate(RANK_NAMES)},
    "T": TEN,
    **{name: i for i, name in enumerate(RANK_NAMES_AR)},
}


def parse_card(text: str) -> int:
    """Parse a card code (``"10H"``, ``"TH"``, ``"J♠"``, ``"jh"``) into its index.

    Arabic names are accepted as ``"<rank> <suit>"``, e.g. ``"ولد هاص"`` (jack of hearts).
    Raises ``ValueError`` with a clear message on anything else.
    """
    raw = text.strip()
    if " " in raw:
        rank_part, _, suit_part = raw.partition(" ")
        suit_part = suit_part.strip()
    else:
        rank_part, suit_part = raw[:-1], raw[-1:]
    rank = _RANK_ALIASES.get(rank_part.upper(), _RANK_ALIASES.get(rank_part))
    suit = _SUIT_ALIASES.get(suit_part.upper(), _SUIT_ALIASES.get(suit_part))
    if rank is None or suit is None:
        raise ValueError(f"not a card code: {text!r} (expected e.g. '10H', 'JS', 'AC')")
    return card_of(suit, rank)


def format_mask(mask: int) -> str:
    """Return the cards of a mask as space-separated codes."""
    return " ".join(format_card(c) for c in cards_in(mask))


def parse_cards(text: str) -> list[int]:
    """Parse space-separated card codes into a list of card indexes."""
    return [parse_card(part) for part in text.split()]


def strength(card: int, trump: int) -> int:
    """Return the trick strength of ``card``: trumps rank above every plain card.

    ``trump`` is the trump suit, or -1 for Sun. The result only compares cards that
    can win a trick: cards of the led suit and trumps (see :func:`trick_winner_index`).
    """
    if card >> 3 == trump:
        return 8 + TRUMP_STRENGTH[card & 7]
    return PLAIN_STRENGTH[card & 7]


def card_points(card: int, trump: int) -> int:
    """Return the abnat of a card under a contract with ``trump`` (-1 for Sun), R32."""
    if card >> 3 == trump:
        return TRUMP_POINTS[card & 7]
    return PLAIN_POINTS[card & 7]


def _points_table(trump: int) -> tuple[int, ...]:
    return tuple(card_points(card, trump) for card in range(32))


# POINTS[trump + 1][card]: abnat of a card; index 0 is Sun.
POINTS: Final = tuple(_points_table(t) for t in (-1, *SUITS))


# The abnat of the 32 cards in ascending order, in Sun and in Hokm (any trump suit).
SORTED_SUN_POINTS: Final = tuple(sorted(POINTS[0]))
SORTED_HOKM_POINTS: Final = tuple(sorted(POINTS[1]))


def trick_points(cards: Sequence[int], trump: int, *, last: bool) -> int:
    """The abnat of a trick's cards, with the 10 of the last trick (R33) when ``last``."""
    table = POINTS[trump + 1]
    if len(cards) == 4:  # a completed trick: no generator on the hot path
        first, second, third, fourth = cards
        points = table[first] + table[second] + table[third] + table[fourth]
    else:
        points = sum(table[c] for c in cards)
    return points + LAST_TRICK_BONUS if last else points


def mask_points(mask: int, trump: int) -> int:
    """Return the abnat of all the cards in a mask."""
    table = POINTS[trump + 1]
    return sum(table[c] for c in cards_in(mask))


def _stronger_masks(trump_suit: bool) -> tuple[int, ...]:
    """For each rank, the in-suit mask (bits 0-7) of the ranks that beat it."""
    order = TRUMP_STRENGTH if trump_suit else PLAIN_STRENGTH
    return tuple(sum(1 << r for r in RANKS if order[r] > order[rank]) for rank in RANKS)


# Ranks above a rank inside one suit, as an 8-bit mask to shift by ``suit * 8``.
HIGHER_PLAIN: Final = _stronger_masks(False)
HIGHER_TRUMP: Final = _stronger_masks(True)


def higher_in_suit(card: int, trump: int) -> int:
    """Return the mask of the cards of ``card``'s suit that beat it."""
    suit = card >> 3
    table = HIGHER_TRUMP if suit == trump else HIGHER_PLAIN
    return table[card & 7] << (suit * 8)


# ``strength`` of every card under each contract, indexed ``[trump + 1][card]`` (0 = Sun).
STRENGTHS: Final = tuple(
    tuple(strength(card, trump) for card in range(32)) for trump in range(-1, 4)
)
# ``higher_in_suit`` of every card under each contract, indexed ``[trump + 1][card]``.
HIGHER: Final = tuple(
    tuple(higher_in_suit(card, trump) for card in range(32)) for trump in range(-1, 4)
)


def king_queen(suit: int) -> int:
    """Return the mask of the King and Queen of ``suit`` (a Baloot when it is trump, R31)."""
    return (1 << KING | 1 << QUEEN) << (suit * 8)


KING_QUEEN: Final = tuple(king_queen(suit) for suit in SUITS)
ACES: Final = sum(1 << card_of(suit, ACE) for suit in SUITS)
"""The mask of the four Aces."""


# What decides a trick, indexed ``[trump + 1][led suit][card]``: the card's strength when it
# can win (the led suit or a trump), -1 otherwise. Those strengths are all different.
_WINNING_KEYS: Final = tuple(
    tuple(
        tuple(STRENGTHS[trump + 1][card] if card >> 3 in (led, trump) else -1 for card in range(32))
        for led in SUITS
    )
    for trump in range(-1, 4)
)


def trick_winner_index(cards: tuple[int, ...] | list[int], trump: int) -> int:
    """Return the position (0-3) in ``cards`` of the card that wins the trick, R23."""
    keys = _WINNING_KEYS[trump + 1][cards[0] >> 3]
    best = 0
    best_key = keys[cards[0]]
    for i in range(1, len(cards)):
        key = keys[cards[i]]
        if key > best_key:
            best, best_key = i, key
    return best


class Card:
    """A card as a frozen, hashable value with a codec pair and a runnable repr.

    The engine works on plain integers; this type is for callers and test output.
    ``Card.parse("JH")`` and ``str(card)`` round-trip, ``repr`` evaluates back.
    """

    __slots__ = ("_index",)
    _index: int

    def __init__(self, index: int) -> None:
        checked: object = index
        if not isinstance(checked, int) or not 0 <= index < 32:
            raise ValueError(f"card index out of range: {index!r}")
        object.__setattr__(self, "_index", index)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse a card code, see :func:`parse_card`."""
        return cls(parse_card(text))

    @property
    def index(self) -> int:
        """The card index 0-31."""
        return self._index

    @property
    def suit(self) -> int:
        """The suit 0-3."""
        return self._index >> 3

    @property
    def rank(self) -> int:
        """The rank index 0-7 (7 … A)."""
        return self._index & 7

    def __int__(self) -> int:
        return self._index

    def __index__(self) -> int:
        return self._index

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Card) and other._index == self._index

    def __hash__(self) -> int:
        return hash(("Card", self._index))

    def __str__(self) -> str:
        return format_card(self._index)

    def __repr__(self) -> str:
        return f"Card.parse({format_card(self._index)!r})"
