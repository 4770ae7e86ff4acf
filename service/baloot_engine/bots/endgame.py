"""An exact endgame solver: alpha-beta over the remaining tricks of one world with all hands known.

Once few cards are left, a sampled world (a determinization, :mod:`baloot_engine.bots.tracking`)
is small enough to be played perfectly. :func:`solve` returns the card points (abnat, the
last-trick bonus included) that one team wins from a position to the end of the hand when both
teams play the best cards for their own side, every seat seeing every hand. The legal cards
come from the rules core (``allowed_cards``), so every rule flag is followed.

The value of a position at the start of a trick depends only on the cards still in the hands
and on the leader (which card is in which hand is fixed within one world), so a transposition
table keyed by (remaining cards, leader) holds bounds found earlier. Cards that win and lose the
same tricks (adjacent in their suit among the cards still in play, equal points) are tried once,
and the last trick, where every card is forced, is counted without a search.
"""

from __future__ import annotations

from typing import Final

from baloot_engine.rules.cards import ACE, HIGHER, LAST_TRICK_BONUS, POINTS, STRENGTHS
from baloot_engine.rules.contract import Contract
from baloot_engine.rules.play import allowed_cards
from baloot_engine.rules.ruleset import RuleSet

_EXACT: Final = 0
_LOWER: Final = 1
_UPPER: Final = 2


def _orders(strength: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """For each suit and each byte of its cards still in play, those cards, strongest first."""
    return tuple(
        tuple(
            tuple(
                sorted(
                    (suit * 8 + r for r in range(8) if byte >> r & 1),
                    key=lambda c: strength[c],
                    reverse=True,
                )
            )
            for byte in range(256)
        )
        for suit in range(4)
    )


_ORDER: Final = tuple(_orders(strength) for strength in STRENGTHS)
"""[trump + 1][suit][byte]: the cards of ``byte`` in ``suit``, strongest first."""


class Solver:
    """Solves positions of one world; its transposition table serves every call on that world.

    ``team`` is the side whose card points are counted (it maximises, the other side minimises).
    ``nodes`` counts the cards tried, a measure of the work done.
    """

    def __init__(self, contract: Contract, rules: RuleSet, team: int) -> None:
        self.contract = contract
        self.rules = rules
        self.team = team
        trump = contract.trump
        self.trump = trump
        self.points = POINTS[trump + 1]
        self.strength = STRENGTHS[trump + 1]
        self.higher = HIGHER[trump + 1]
        self.buyer_team = contract.buyer_team
        self.order = _ORDER[trump + 1]
        self.table: dict[int, tuple[int, int]] = {}
        self.nodes = 0

    def solve(
        self,
        hands: tuple[int, int, int, int],
        trick: tuple[int, ...],
        leader: int,
        played: int,
        akka: bool,
    ) -> int:
        """The card points ``team`` wins from here to the end of the hand (the cards of the
        trick in progress and the last-trick bonus included), with perfect play on both sides.

        ``played`` holds the cards of the completed tricks; ``hands`` the cards still held.
        """
        remaining = hands[0] | hands[1] | hands[2] | hands[3]
        total = LAST_TRICK_BONUS
        for card in trick:
            total += self.points[card]
        m = remaining
        while m:
            low = m & -m
            total += self.points[low.bit_length() - 1]
            m ^= low
        if not trick and remaining.bit_count() == 4:
            return self._last_trick(list(hands), leader)
        return self._search(list(hands), trick, leader, played, akka, -1, total + 1, total)

    def _options(
        self,
        hands: list[int],
        trick: tuple[int, ...],
        leader: int,
        seat: int,
        played: int,
        akka: bool,
    ) -> list[int]:
        hand = hands[seat]
        if hand & (hand - 1) == 0:
            return [hand.bit_length() - 1]
        allowed = allowed_cards(hand, trick, leader, seat, played, akka, self.contract, self.rules)
        if allowed & (allowed - 1) == 0:
            return [allowed.bit_length() - 1]
        # One card of each run of equivalent cards (no card of another hand between them),
        # strongest runs first.
        still = hands[0] | hands[1] | hands[2] | hands[3]
        for card in trick:
            still |= 1 << card
        points = self.points
        order = self.order
        chosen: list[int] = []
        for suit in (0, 1, 2, 3):
            shift = suit << 3
            if not allowed >> shift & 0xFF:
                continue
            start = -1  # the first card of the current run (-1: no run)
            for card in order[suit][still >> shift & 0xFF]:
                if allowed >> card & 1:
                    if start < 0 or points[card] != points[start]:
                        start = card
                        chosen.append(card)
                elif not hand >> card & 1:
                    start = -1  # a card of another hand (or of the trick) ends the run
        return chosen

    def _last_trick(self, hands: list[int], leader: int) -> int:
        """The value of the last trick, every seat holding one card (all of them forced)."""
        strength = self.strength
        trump = self.trump
        lead = hands[leader].bit_length() - 1
        led = lead >> 3
        best = lead
        winner = leader
        total = self.points[lead] + LAST_TRICK_BONUS
        for step in (1, 2, 3):
            seat = (leader + step) & 3
            card = hands[seat].bit_length() - 1
            total += self.points[card]
            if card >> 3 in (led, trump) and strength[card] > strength[best]:
                best, winner = card, seat
        return total if winner & 1 == self.team else 0

    def _search(
        self,
        hands: list[int],
        trick: tuple[int, ...],
        leader: int,
        played: int,
        akka: bool,
        alpha: int,
        beta: int,
        rest: int,
    ) -> int:
        """The points ``team`` wins from here, within (``alpha``, ``beta``) (fail-soft: a value
        at or below ``alpha`` is an upper bound, one at or above ``beta`` a lower bound);
        ``rest`` is every point still to be won (between 0 and ``rest`` whoever wins them)."""
        if rest <= alpha:
            return rest
        if beta <= 0:
            return 0
        n = len(trick)
        if n == 4:
            strength = self.strength
            trump = self.trump
            led = trick[0] >> 3
            best = 0
            for i in (1, 2, 3):
                card = trick[i]
                if card >> 3 in (led, trump) and strength[card] > strength[trick[best]]:
                    best = i
            winner = (leader + best) & 3
            points = self.points
            gained = points[trick[0]] + points[trick[1]] + points[trick[2]] + points[trick[3]]
            now = played | 1 << trick[0] | 1 << trick[1] | 1 << trick[2] | 1 << trick[3]
            if not hands[0] | hands[1] | hands[2] | hands[3]:
                gained += LAST_TRICK_BONUS
                return gained if winner & 1 == self.team else 0
            mine = gained if winner & 1 == self.team else 0
            if (hands[0] | hands[1] | hands[2] | hands[3]).bit_count() == 4:
                return mine + self._last_trick(hands, winner)
            return mine + self._search(
                hands, (), winner, now, False, alpha - mine, beta - mine, rest - gained
            )
        key = 0
        if n == 0:
            key = (hands[0] | hands[1] | hands[2] | hands[3]) << 2 | leader
            entry = self.table.get(key)
            if entry is not None:
                value, flag = entry
                if flag == _EXACT:
                    return value
                if flag == _LOWER and value >= beta:
                    return value
                if flag == _UPPER and value <= alpha:
                    return value
        seat = (leader + n) & 3
        maximising = seat & 1 == self.team
        low, high = alpha, beta
        best_value = -1 if maximising else 1 << 30
        trump = self.trump
        if n == 3:
            # The trick's last card is scored here rather than one call deeper.
            team = self.team
            strength = self.strength
            points = self.points
            led = trick[0] >> 3
            top = 0
            for i in (1, 2):
                card = trick[i]
                if card >> 3 in (led, trump) and strength[card] > strength[trick[top]]:
                    top = i
            top_strength = strength[trick[top]]
            base = points[trick[0]] + points[trick[1]] + points[trick[2]]
            before = played | 1 << trick[0] | 1 << trick[1] | 1 << trick[2]
        for card in self._options(hands, trick, leader, seat, played, akka):
            self.nodes += 1
            hands[seat] ^= 1 << card
            if n == 3:
                if card >> 3 in (led, trump) and strength[card] > top_strength:
                    winner = seat
                else:
                    winner = (leader + top) & 3
                gained = base + points[card]
                still = hands[0] | hands[1] | hands[2] | hands[3]
                mine = gained if winner & 1 == team else 0
                if not still:
                    value = gained + LAST_TRICK_BONUS if winner & 1 == team else 0
                elif still.bit_count() == 4:
                    value = mine + self._last_trick(hands, winner)
                else:
                    value = mine + self._search(
                        hands,
                        (),
                        winner,
                        before | 1 << card,
                        False,
                        low - mine,
                        high - mine,
                        rest - gained,
                    )
            else:
                call = akka
                if n == 0:
                    call = (
                        trump >= 0
                        and card >> 3 != trump
                        and card & 7 != ACE
                        and self.higher[card] & ~played == 0
                    )
                value = self._search(hands, (*trick, card), leader, played, call, low, high, rest)
            hands[seat] ^= 1 << card
            if maximising:
                if value > best_value:
                    best_value = value
                    low = max(low, value)
            elif value < best_value:
                best_value = value
                high = min(high, value)
            if low >= high:
                break
        if n == 0:
            if best_value <= alpha:
                self.table[key] = (best_value, _UPPER)
            elif best_value >= beta:
                self.table[key] = (best_value, _LOWER)
            else:
                self.table[key] = (best_value, _EXACT)
        return best_value


__all__ = ["Solver"]
