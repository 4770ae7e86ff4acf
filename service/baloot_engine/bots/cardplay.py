"""Card play heuristics on plain values: the BASIC player's cards and the play-out policy.

Everything here works on masks and card indexes (``card = suit * 8 + rank``) and sees only
what the player holds and what is gone (played), so the same function chooses a BASIC bot's
card from its seat's observation and every seat's card inside a STRONG bot's simulated
play-outs. The rules of thumb are the table's obvious ones: win a trick with the cheapest card
that wins it, give points to a partner who is sure to win, lead the boss card (the highest
card of a suit still out), draw trumps as the buyer, throw the cheapest card otherwise.

Play-outs call :func:`choose_card` hundreds of thousands of times, so it works suit by suit on
precomputed tables (indexed by ``trump + 1``, 0 being Sun) instead of lists of cards.
"""

from __future__ import annotations

from typing import Final

from baloot_engine.rules.cards import HIGHER, POINTS, STRENGTHS, SUIT_MASKS

_CONTEXTS: Final = (-1, 0, 1, 2, 3)


# The card tables of the rules core are indexed by trump + 1 (0 = Sun): ``STRENGTHS`` the
# trick strength of each card, ``HIGHER`` the cards of its suit that beat it.
# Cheapness of a card to give away: points first, then trick strength.
_COST: Final = tuple(
    tuple(POINTS[t + 1][c] * 32 + STRENGTHS[t + 1][c] for c in range(32)) for t in _CONTEXTS
)


def _suit_table(key: tuple[int, ...], suit: int, best_low: bool) -> tuple[int, ...]:
    """For each byte of a suit's holding, the card whose ``key`` is lowest (or highest)."""
    table = [-1]
    for byte in range(1, 256):
        cards = [suit * 8 + r for r in range(8) if byte >> r & 1]
        chooser = min if best_low else max
        table.append(chooser(cards, key=lambda c: key[c]))
    return tuple(table)


_SuitTables = tuple[tuple[int, ...], ...]  # [suit][byte] -> card


def _tables(key_of: tuple[tuple[int, ...], ...], best_low: bool) -> tuple[_SuitTables, ...]:
    return tuple(
        tuple(_suit_table(key_of[t + 1], suit, best_low) for suit in range(4)) for t in _CONTEXTS
    )


_LOW_COST: Final = _tables(_COST, True)  # [trump + 1][suit][byte]: cheapest card to give
_HIGH_COST: Final = _tables(_COST, False)  # … the card worth most
_WEAKEST: Final = _tables(STRENGTHS, True)  # … the weakest card (the cheapest winner)
_STRONGEST: Final = _tables(STRENGTHS, False)  # … the strongest card


def _pick(mask: int, table: _SuitTables, key: tuple[int, ...], low: bool) -> int:
    """The card of ``mask`` with the lowest (or highest) ``key``, from per-suit tables."""
    best = -1
    for suit in (0, 1, 2, 3):
        byte = (mask >> (suit << 3)) & 0xFF
        if byte:
            card = table[suit][byte]
            if best < 0 or (key[card] < key[best] if low else key[card] > key[best]):
                best = card
    return best


def is_boss(card: int, hand: int, gone: int, trump: int) -> bool:
    """No card that beats ``card`` inside its suit is still out in another hand."""
    return HIGHER[trump + 1][card] & ~gone & ~hand == 0


def _bosses(mask: int, out: int, higher: tuple[int, ...]) -> int:
    found = 0
    m = mask
    while m:
        low = m & -m
        card = low.bit_length() - 1
        if not higher[card] & out:
            found |= low
        m ^= low
    return found


def choose_card(
    options: int,
    hand: int,
    trick: tuple[int, ...] | list[int],
    gone: int,
    trump: int,
    buyer_side: bool,
    partner_suits: int = 0,
) -> int:
    """The heuristic card among ``options`` (a non-empty mask of legal cards).

    ``gone`` holds every card no longer in a hand (played, and the cards of ``trick``);
    ``buyer_side`` says whether the player's team bought the contract; ``partner_suits`` (bit
    ``s`` for suit ``s``) the plain suits the partner led this round, which a lead without a
    boss card returns (the standard play; 0, as the play-outs pass it, leaves that out).
    """
    if options & (options - 1) == 0:
        return options.bit_length() - 1
    t = trump + 1
    cost = _COST[t]
    strength = STRENGTHS[t]
    higher = HIGHER[t]
    out = ~gone & ~hand & 0xFFFFFFFF
    trump_mask = SUIT_MASKS[trump] if trump >= 0 else 0
    trumps_out = out & trump_mask
    plain = options & ~trump_mask or options
    if not trick:
        return _lead(
            options, plain, hand, out, trump_mask, trumps_out, buyer_side, t, partner_suits
        )
    n = len(trick)
    led = trick[0] >> 3
    best_i = 0
    best = trick[0]
    for i in range(1, n):
        card = trick[i]
        suit = card >> 3
        if suit in (led, trump) and strength[card] > strength[best]:
            best, best_i = card, i
    best_suit = best >> 3
    winners = options & higher[best]
    if best_suit != trump:
        winners |= options & trump_mask
    if n >= 2 and best_i == n - 2:  # the partner is winning
        if n == 3 or (not higher[best] & out and (best_suit == trump or not trumps_out)):
            # Sure to win: give him points, but keep the boss cards for later tricks.
            keep = plain & ~_bosses(plain, out, higher) or plain
            return _pick(keep, _HIGH_COST[t], cost, False)
        sure = _bosses(winners, out, higher)
        if sure and trumps_out and trump >= 0:
            sure &= trump_mask
        if sure:
            points = POINTS[t]
            if points[trick[0]] + points[trick[1]] + points[best] >= 10:
                return _pick(sure, _WEAKEST[t], strength, True)
        return _pick(plain, _LOW_COST[t], cost, True)
    if winners:
        if n == 3:
            return _pick(winners, _WEAKEST[t], strength, True)
        sure = _bosses(winners, out, higher)
        if sure and trumps_out and trump >= 0:
            sure &= trump_mask
        if sure:
            return _pick(sure, _WEAKEST[t], strength, True)
        points = POINTS[t]
        if n == 2 or sum(points[c] for c in trick) >= 10:
            return _pick(winners, _WEAKEST[t], strength, True)
    return _pick(plain, _LOW_COST[t], cost, True)


def _lead(
    options: int,
    plain: int,
    hand: int,
    out: int,
    trump_mask: int,
    trumps_out: int,
    buyer_side: bool,
    t: int,
    partner_suits: int = 0,
) -> int:
    higher = HIGHER[t]
    if trumps_out and buyer_side:
        mine = options & trump_mask
        if mine:
            top = _pick(mine, _STRONGEST[t], STRENGTHS[t], False)
            if not higher[top] & out:
                return top  # draw trumps with the boss trump
    bosses = _bosses(options & ~trump_mask, out, higher)
    if bosses:
        # The boss worth most, from a suit where the others still hold cards.
        live = 0
        for suit in (0, 1, 2, 3):
            if SUIT_MASKS[suit] & out:
                live |= bosses & SUIT_MASKS[suit]
        return _pick(live or bosses, _HIGH_COST[t], _COST[t], False)
    # Do not lead a ten or a king into an ace still out; lead low from the longest suit.
    points = POINTS[t]
    safe = 0
    m = plain
    while m:
        low = m & -m
        card = low.bit_length() - 1
        if points[card] < 10 or not higher[card] & out:
            safe |= low
        m ^= low
    safe = safe or plain
    returned = 0
    for suit in (0, 1, 2, 3):
        if partner_suits >> suit & 1:
            returned |= safe & SUIT_MASKS[suit] & ~trump_mask
    if returned:
        return _pick(returned, _LOW_COST[t], _COST[t], True)  # return the partner's suit
    longest = 0
    pool = 0
    for suit in (0, 1, 2, 3):
        mine = safe & SUIT_MASKS[suit]
        if mine:
            length = (hand & SUIT_MASKS[suit]).bit_count()
            if length > longest:
                longest, pool = length, mine
            elif length == longest:
                pool |= mine
    return _pick(pool, _LOW_COST[t], _COST[t], True)
