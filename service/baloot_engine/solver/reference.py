"""The solver's pure-Python reference: the same search as the compiled one, written plainly.

It asks the rules core for every legal card (:func:`baloot_engine.rules.play.allowed_cards`)
and for every trick's winner, so it is the definition the compiled search
(``_search.c``) is checked against, card for card, by the differential tests. It is also what
runs where the compiled module is missing.

A value is ``9 * points + tricks`` for the solver's team from a position to the end of the
round (see :mod:`baloot_engine.solver`). :func:`minimax` is the same value by plain minimax,
without pruning, table or equivalent cards: the slow, obvious definition for small endgames.
"""

from __future__ import annotations

import time
from typing import Final

from baloot_engine.rules.cards import (
    ACE,
    HIGHER,
    LAST_TRICK_BONUS,
    POINTS,
    STRENGTHS,
    trick_points,
    trick_winner_index,
)
from baloot_engine.rules.contract import Contract
from baloot_engine.rules.play import allowed_cards, is_boss
from baloot_engine.rules.ruleset import RuleSet

TRICK_WEIGHT: Final = 9
"""A point outweighs every trick count (at most 8): ``value = 9 * points + tricks``."""


class SearchStoppedError(Exception):
    """The node limit or the deadline stopped a search; nothing partial is kept."""


def akka_call(contract: Contract, rules: RuleSet, card: int, played: int) -> bool:
    """Does a perfect leader call Akka with ``card``? Always where the call means something
    (``akka_requires_declaration``) and fits (R20): it only widens the partner's choice."""
    trump = contract.trump
    return (
        rules.akka_requires_declaration
        and trump >= 0
        and card >> 3 != trump
        and card & 7 != ACE
        and is_boss(card, played)
    )


def rest_of(hands: tuple[int, ...] | list[int], trick: tuple[int, ...], trump: int) -> int:
    """The highest value still to be won: every point out (last-trick 10 included), every trick."""
    points = POINTS[trump + 1]
    held = hands[0] | hands[1] | hands[2] | hands[3]
    total = LAST_TRICK_BONUS + sum(points[c] for c in trick)
    m = held
    while m:
        low = m & -m
        total += points[low.bit_length() - 1]
        m ^= low
    tricks = (held.bit_count() + len(trick)) // 4  # the trick in progress counts
    return TRICK_WEIGHT * total + tricks


class ReferenceDeal:
    """One deal's search, as the compiled ``_search.Deal`` (same constructor and ``value``)."""

    def __init__(self, contract: Contract, rules: RuleSet, team: int) -> None:
        self.contract = contract
        self.rules = rules
        self.team = team
        self.trump = contract.trump
        self.points = POINTS[self.trump + 1]
        self.strength = STRENGTHS[self.trump + 1]
        self.higher = HIGHER[self.trump + 1]
        self.table: dict[tuple[int, int], tuple[int, int]] = {}
        self.nodes = 0
        self._limit = 0
        self._deadline = 0.0

    def value(
        self,
        hands: tuple[int, int, int, int],
        trick: tuple[int, ...],
        leader: int,
        played: int,
        akka: bool,
        max_nodes: int = 0,
        deadline: float = 0.0,
        alpha: int = -1,
        beta: int = -1,
    ) -> int | None:
        """The value of the rest of the round for the team, or None if stopped.

        Searched within (``alpha``, ``beta``) (fail-soft; -1 for ``beta``: no upper limit).
        """
        self._limit = self.nodes + max_nodes if max_nodes else 0
        self._deadline = deadline
        rest = rest_of(hands, trick, self.trump)
        if beta < 0 or beta > rest + 1:
            beta = rest + 1
        alpha = max(alpha, -1)
        try:
            return self._search(list(hands), list(trick), leader, played, akka, alpha, beta, rest)
        except SearchStoppedError:
            return None

    def _after_trick(
        self,
        hands: list[int],
        trick: list[int],
        leader: int,
        played: int,
        alpha: int,
        beta: int,
        rest: int,
    ) -> int:
        winner = (leader + trick_winner_index(trick, self.trump)) & 3
        held = hands[0] | hands[1] | hands[2] | hands[3]
        gained = TRICK_WEIGHT * trick_points(trick, self.trump, last=not held) + 1
        mine = gained if winner & 1 == self.team else 0
        if not held:
            return mine
        now = played
        for card in trick:
            now |= 1 << card
        return mine + self._search(
            hands, [], winner, now, False, alpha - mine, beta - mine, rest - gained
        )

    def _search(
        self,
        hands: list[int],
        trick: list[int],
        leader: int,
        played: int,
        akka: bool,
        alpha: int,
        beta: int,
        rest: int,
    ) -> int:
        if rest <= alpha:
            return rest
        if beta <= 0:
            return 0
        n = len(trick)
        if n == 4:
            return self._after_trick(hands, trick, leader, played, alpha, beta, rest)
        key = (hands[0] | hands[1] | hands[2] | hands[3], leader)
        lower, upper = 0, rest
        low, high = alpha, beta
        if n == 0:
            bounds = self.table.get(key)
            if bounds is not None:
                lower, upper = bounds
                if lower >= beta or lower == upper:
                    return lower
                if upper <= alpha:
                    return upper
                low, high = max(low, lower), min(high, upper)
        seat = (leader + n) & 3
        options = allowed_cards(
            hands[seat], tuple(trick), leader, seat, played, akka, self.contract, self.rules
        )
        maximising = seat & 1 == self.team
        best = -1 if maximising else 1 << 30
        for card in self._candidates(options, hands, trick, seat):
            self.nodes += 1
            if self.nodes & 0x3FF == 0 and (
                (self._limit and self.nodes > self._limit)
                or (self._deadline and time.monotonic() > self._deadline)
            ):
                raise SearchStoppedError
            hands[seat] ^= 1 << card
            trick.append(card)
            if n == 3:
                value = self._after_trick(hands, trick, leader, played, low, high, rest)
            else:
                call = akka_call(self.contract, self.rules, card, played) if n == 0 else akka
                value = self._search(hands, trick, leader, played, call, low, high, rest)
            trick.pop()
            hands[seat] ^= 1 << card
            if maximising:
                if value > best:
                    best = value
                    low = max(low, value)
            elif value < best:
                best = value
                high = min(high, value)
            if low >= high:
                break
        if n == 0:
            a, b = max(alpha, lower), min(beta, upper)
            if best <= a:
                upper = min(upper, best)
            elif best >= b:
                lower = max(lower, best)
            else:
                lower = upper = best
            self.table[key] = (lower, upper)
        return best

    def _candidates(self, options: int, hands: list[int], trick: list[int], seat: int) -> list[int]:
        """One card of each run of equivalent cards (adjacent among the cards still out, in
        this hand, of equal points), strongest first in each suit."""
        hand = hands[seat]
        still = hands[0] | hands[1] | hands[2] | hands[3]
        for card in trick:
            still |= 1 << card
        chosen: list[int] = []
        for suit in range(4):
            cards = sorted(
                (c for c in range(suit * 8, suit * 8 + 8) if still >> c & 1),
                key=lambda c: self.strength[c],
                reverse=True,
            )
            start = -1
            for card in cards:
                if options >> card & 1:
                    if start < 0 or self.points[card] != self.points[start]:
                        start = card
                        chosen.append(card)
                elif not hand >> card & 1:
                    start = -1
        return chosen


def minimax(
    hands: tuple[int, int, int, int],
    trick: tuple[int, ...],
    leader: int,
    played: int,
    akka: bool,
    contract: Contract,
    rules: RuleSet,
    team: int,
) -> int:
    """The value by plain minimax over every legal card (no pruning): for small endgames only."""
    trump = contract.trump
    if len(trick) == 4:
        winner = (leader + trick_winner_index(trick, trump)) & 3
        held = hands[0] | hands[1] | hands[2] | hands[3]
        gained = TRICK_WEIGHT * trick_points(trick, trump, last=not held)
        mine = gained + 1 if winner & 1 == team else 0
        if not held:
            return mine
        now = played
        for card in trick:
            now |= 1 << card
        return mine + minimax(hands, (), winner, now, False, contract, rules, team)
    seat = (leader + len(trick)) & 3
    options = allowed_cards(hands[seat], trick, leader, seat, played, akka, contract, rules)
    values = []
    m = options
    while m:
        low = m & -m
        card = low.bit_length() - 1
        m ^= low
        after = list(hands)
        after[seat] ^= low
        calls = [akka] if trick else [False]
        if not trick and akka_call(contract, rules, card, played):
            calls = [False, True]  # both choices, as a leader may make either
        for call in calls:
            values.append(
                minimax(
                    (after[0], after[1], after[2], after[3]),
                    (*trick, card),
                    leader,
                    played,
                    call,
                    contract,
                    rules,
                    team,
                )
            )
    return max(values) if seat & 1 == team else min(values)


__all__ = ["TRICK_WEIGHT", "ReferenceDeal", "SearchStoppedError", "akka_call", "minimax", "rest_of"]
