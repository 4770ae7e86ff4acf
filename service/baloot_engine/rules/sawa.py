"""Sawa (سوا, R46): the player on lead claims every remaining trick for his team.

This module owns when a claim may be made (``sawa_possible``), the proof that it holds
(``claim_holds``: the plain case of cashing the top cards, else an exact AND-OR search over
every play of the others), and what an accepted claim does to the round: the remaining
cards' abnat and the 10 for the last trick go to the claiming team.

The search is exact (in play no budget: a true claim is never refused for being hard to
prove) and kept cheap by five things, none of which changes a verdict: touching cards of one
hand are tried once; positions between tricks are remembered up to what cannot change a
trick's winner (the ranks of the cards still in play, the interchangeable side suits); the plain
proof closes every position where the claimer can cash his cards; a claim is first tried
against two fixed ways of playing of the others (a search over the claimer's choices alone,
which refutes most false claims at once); and the others try the likeliest refutations
first (an opponent the cards that take the trick, then his weakest; the partner his
weakest). ``bench/bench_worst_case.py`` measures its worst case. Scoring the
hand that the claim ended is :mod:`baloot_engine.rules.game`'s next step.

A caller that judges claims for anyone, unauthenticated (the replay of a match record), caps
their total work with :func:`search_budget`: past its positions a search raises
:class:`SearchBudgetError` instead of answering.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from typing import Any, Final

from baloot_engine.rules import errors
from baloot_engine.rules.actions import ClaimSawa, Event, EventKind, QaydCategory
from baloot_engine.rules.cards import (
    ACE,
    FULL_DECK,
    HIGHER,
    LAST_TRICK_BONUS,
    PLAIN_STRENGTH,
    POINTS,
    STRENGTHS,
    SUIT_MASKS,
    TRUMP_STRENGTH,
    cards_in,
    trick_winner_index,
)
from baloot_engine.rules.contract import Contract, team_of
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.members import PLAYING
from baloot_engine.rules.play import allowed_cards, is_boss
from baloot_engine.rules.ruleset import FalseSawa, RuleSet
from baloot_engine.rules.state import State, Violation


class SearchBudgetError(Exception):
    """The Sawa searches of one request went past the positions :func:`search_budget` allows."""


class SearchBudget:
    """The positions the Sawa searches of one request may still visit."""

    __slots__ = ("left",)

    def __init__(self, positions: int) -> None:
        self.left = positions

    def spend(self, positions: int) -> None:
        self.left -= positions
        if self.left < 0:
            raise SearchBudgetError("the Sawa claims need more work to judge than allowed")


_BUDGET: ContextVar[SearchBudget | None] = ContextVar("sawa_search_budget", default=None)
_SPEND_EVERY: Final = 64  # a search counts its positions against the budget in steps of this


@contextmanager
def search_budget(positions: int) -> Iterator[SearchBudget]:
    """Cap the positions every Sawa search inside the block visits, together."""
    budget = SearchBudget(positions)
    token = _BUDGET.set(budget)
    try:
        yield budget
    finally:
        _BUDGET.reset(token)


def sawa_possible(state: State, seat: int) -> bool:
    """A Sawa claim may be made by the player on lead when the flag is on (R46)."""
    return state.rules.sawa and state.phase is PLAYING and not state.trick and state.turn == seat


# The ranks strongest first, from the card orders of rules/cards.py.
_PLAIN_DESCENDING = tuple(sorted(range(8), key=lambda r: -PLAIN_STRENGTH[r]))
_TRUMP_DESCENDING = tuple(sorted(range(8), key=lambda r: -TRUMP_STRENGTH[r]))
# The cards of each suit strongest first, for each trump (-1: Sun): ``_ORDERS[trump][suit]``.
_ORDERS = {
    trump: tuple(
        tuple(suit * 8 + r for r in (_TRUMP_DESCENDING if suit == trump else _PLAIN_DESCENDING))
        for suit in range(4)
    )
    for trump in range(-1, 4)
}


def apply_sawa(state: State, seat: int, _claim: ClaimSawa) -> tuple[State, list[Event]]:
    """Check a Sawa claim against every play of the others; end the hand if it holds.

    An accepted claim leaves the hands empty and ``sawa_seat`` set, its tricks unplayed.
    """
    if not state.rules.sawa:
        raise RuleError(errors.SAWA_NOT_ALLOWED, "Sawa is not played under these rules")
    if not sawa_possible(state, seat):
        raise RuleError(
            errors.SAWA_NOT_ALLOWED,
            "only the player on lead may claim Sawa",
            details={"seat": str(seat)},
        )
    contract = state.contract
    assert contract is not None
    holds = claim_holds(state.hands, seat, contract, state.rules)
    rules = state.rules
    table_play = rules.illegal_moves_allowed
    false_claim: Violation | None = None
    if not holds:
        if not table_play and rules.false_sawa is not FalseSawa.LOSES_HAND:
            raise RuleError(
                errors.SAWA_INVALID,
                "Sawa refused: the other players can win a trick",
                details={"seat": str(seat)},
            )
        # §A.14: a false claim is accepted (table play: callable as سوا خطأ) or loses the round;
        # the evidence is the opponents' cards, which could take a trick.
        opponents = state.hands[(seat + 1) & 3] | state.hands[(seat + 3) & 3]
        false_claim = Violation(seat, len(state.tricks) + 1, -1, QaydCategory.FALSE_SAWA, opponents)
    team = team_of(seat)
    rest = state.hands[0] | state.hands[1] | state.hands[2] | state.hands[3]
    table = POINTS[contract.trump + 1]
    # The remaining cards and the 10 for the last trick, which the claim takes (R33).
    points = sum(table[c] for c in range(32) if rest >> c & 1) + LAST_TRICK_BONUS
    abnat = list(state.abnat)
    abnat[team] += points
    events = [Event(EventKind.SAWA_CLAIMED, seat=seat, team=team, points=points)]
    state = state._replace(
        abnat=(abnat[0], abnat[1]),
        sawa_seat=seat,
        # Table play keeps the unplayed cards for the review (a Qayd judges from them).
        hands=state.hands if table_play else (0, 0, 0, 0),
        violations=state.violations if false_claim is None else (*state.violations, false_claim),
    )
    return state, events


def false_claim_of(state: State) -> Violation | None:
    """The false Sawa that just ended the round outside table play (``false_sawa = loses_hand``)."""
    if state.rules.illegal_moves_allowed or state.sawa_seat < 0 or not state.violations:
        return None
    last = state.violations[-1]
    return last if last.rule is QaydCategory.FALSE_SAWA else None


def claim_holds(
    hands: tuple[int, int, int, int], seat: int, contract: Contract, rules: RuleSet
) -> bool:
    """Does the claim of ``seat``, on lead with these hands, hold against every play (R46)?

    Exact: the plain proof (:func:`cashes`), else a quick refutation by one fixed defence
    (:meth:`SawaSearch.beats_fixed_defence`), else the search. The verdict depends on nothing
    else, so it is kept for the next time the same claim is made (a refused claim changes
    nothing and may be sent again at once). A kept verdict still spends, under
    :func:`search_budget`, the positions its search visited: whether a record's claims fit
    the budget does not depend on which claims the process judged before.
    """
    budget = _BUDGET.get()
    before = budget.left if budget is not None else 0
    holds, positions = _verdict(hands, seat, contract, rules)
    if budget is not None:
        budget.spend(positions - (before - budget.left))  # all of it when the verdict was kept
    return holds


@lru_cache(maxsize=4096)
def _verdict(
    hands: tuple[int, int, int, int], seat: int, contract: Contract, rules: RuleSet
) -> tuple[bool, int]:
    """:func:`claim_holds`' verdict and the positions its search visited."""
    if cashes(hands, seat, contract.trump, contract.closed):
        return True, 0
    in_play = hands[0] | hands[1] | hands[2] | hands[3]
    position = State(
        rules=rules, contract=contract, turn=seat, hands=hands, played=FULL_DECK ^ in_play
    )
    search = SawaSearch(position, team_of(seat))
    try:
        for partner_takes in (False, True):
            if not search.beats_fixed_defence(hands, seat, partner_takes=partner_takes):
                return False, search.nodes
        return search.holds(hands, seat), search.nodes
    finally:
        if search.budget is not None:
            search.budget.spend(search.nodes % _SPEND_EVERY)


def _suit_cashes(mine: int, others: list[int], order: tuple[int, ...]) -> bool:
    """Leading his cards of one suit from the top, does the claimer win every one of them?

    Each other player follows with his lowest cards while he can, keeping his best: the
    claimer's ``i``-th card must beat the best card of every player who still has one of the
    suit at that lead (who held at least ``i`` of them).
    """
    suit = SUIT_MASKS[order[0] >> 3]
    left = (mine & suit).bit_count()
    count = 0
    for card in order:
        if not left:
            return True
        if mine >> card & 1:
            count += 1
            left -= 1
            continue
        for hand in others:
            # ``card`` beats his next card, and its holder still has it at that lead.
            if hand >> card & 1 and (hand & suit).bit_count() > count:
                return False
    return True


def cashes(hands: tuple[int, ...], seat: int, trump: int, closed: bool) -> bool:
    """Can ``seat``, on lead, win every remaining trick by leading his cards from the top?

    He leads his trumps first (in Hokm), then each other suit, each from its best card. That
    wins every trick, whatever the others play, when in each suit his ``i``-th card beats the
    best card of every other player (partner included, who must not take the lead) still
    holding ``i`` or more cards of the suit, and in Hokm nobody holds a trump once his are
    led. A false answer proves nothing: the search decides.
    """
    mine = hands[seat]
    others = [hands[(seat + i) & 3] for i in (1, 2, 3)]
    if trump >= 0:
        trumps = SUIT_MASKS[trump]
        theirs = [hand & trumps for hand in others]
        if any(theirs):
            if closed and mine & ~trumps:
                return False  # R22: no trump lead while he holds another suit
            if max(t.bit_count() for t in theirs) > (mine & trumps).bit_count():
                return False
            if not _suit_cashes(mine, others, _ORDERS[trump][trump]):
                return False
    for suit in range(4):
        if (
            suit != trump
            and mine & SUIT_MASKS[suit]
            and not _suit_cashes(mine, others, _ORDERS[trump][suit])
        ):
            return False
    return True


class SawaSearch:
    """AND-OR search: the claimer picks his cards, everyone else may play anything legal."""

    def __init__(
        self,
        state: State,
        team: int,
        *,
        merge_equivalent: bool = True,
        canonical: bool = True,
        shortcut: bool = True,
    ) -> None:
        contract = state.contract
        assert contract is not None
        self.merge_equivalent = merge_equivalent
        self.canonical = canonical
        self.shortcut = shortcut
        trump = contract.trump
        self.orders = _ORDERS[trump]
        self.ace_matters = trump >= 0
        self.contract = contract
        self.rules = state.rules
        self.team = team
        self.claimer = state.turn
        self.partner = (state.turn + 2) & 3
        self.played = state.played
        self.nodes = 0
        self.budget = _BUDGET.get()
        self.fixed_memo: dict[tuple[tuple[int, ...], int, bool], bool] = {}
        self.partner_takes = False
        self.memo: dict[object, bool] = {}

    def holds(self, hands: tuple[int, ...], leader: int) -> bool:
        if not any(hands):
            return True
        raw = (hands, leader)
        cached = self.memo.get(raw)
        if cached is not None:
            return cached
        key: Any = self._key(hands, leader) if self.canonical else raw
        cached = self.memo.get(key)
        if cached is not None:
            self.memo[raw] = cached
            return cached
        contract = self.contract
        result = (
            self.shortcut
            and leader == self.claimer
            and cashes(hands, leader, contract.trump, contract.closed)
        ) or self._trick(list(hands), leader, leader, ())
        self.memo[key] = self.memo[raw] = result
        return result

    def _key(self, hands: tuple[int, ...], leader: int) -> tuple[object, ...]:
        """The position up to what cannot change a trick's winner.

        Only the order of the cards still in play matters, not their ranks: each suit becomes
        the sequence of its holders (relative to the claimer), strongest card first. The
        non-trump suits are interchangeable, so they are sorted. In Hokm whether a suit's Ace
        is still out is kept too (an Akka is a boss card that is not an Ace, R20).
        """
        claimer = self.claimer
        mine = hands[claimer]
        left = hands[(claimer + 1) & 3]
        partner = hands[(claimer + 2) & 3]
        right = hands[(claimer + 3) & 3]
        suits = []
        for order in self.orders:
            holders = []
            for card in order:
                if mine >> card & 1:
                    holders.append(0)
                elif left >> card & 1:
                    holders.append(1)
                elif partner >> card & 1:
                    holders.append(2)
                elif right >> card & 1:
                    holders.append(3)
            if self.ace_matters:
                holders.append(4 + ((mine | left | partner | right) >> (order[0] & ~7 | ACE) & 1))
            suits.append(tuple(holders))
        trump = self.contract.trump
        if trump >= 0:
            rest = sorted(suits[s] for s in range(4) if s != trump)
            return ((leader - claimer) & 3, suits[trump], *rest)
        return ((leader - claimer) & 3, *sorted(suits))

    def _distinct(self, options: int, hands: list[int], trick: tuple[int, ...]) -> list[int]:
        """One card of each group of equivalent options, strongest first.

        Two cards of one suit in one hand with no card still in play ranking between them
        win and lose exactly the same tricks, so only one of them needs to be tried. A boss
        card stays on its own, because leading it can free a void partner (R20).
        """
        if not self.merge_equivalent:
            return list(cards_in(options))
        in_play = hands[0] | hands[1] | hands[2] | hands[3]
        for card in trick:
            in_play |= 1 << card
        trump = self.contract.trump
        chosen: list[int] = []
        for suit in range(4):
            if not options & SUIT_MASKS[suit]:
                continue
            grouped = False
            for rank in _TRUMP_DESCENDING if suit == trump else _PLAIN_DESCENDING:
                card = suit * 8 + rank
                if not in_play >> card & 1:
                    continue
                if not options >> card & 1:
                    grouped = False
                    continue
                if not grouped:
                    chosen.append(card)
                grouped = not is_boss(card, self.played)
        return chosen

    def beats_fixed_defence(
        self, hands: tuple[int, ...], leader: int, *, partner_takes: bool = False
    ) -> bool:
        """Can the claimer win every trick against one fixed way of playing of the others?

        Each opponent takes the trick with his best card when he can, else plays his weakest.
        The partner plays his weakest, or (``partner_takes``) takes the trick when he can and
        then leads his weakest card of a suit in which an opponent holds a better one. Only
        the claimer's choices branch, so this costs a few hundred positions at most. False
        refutes the claim: that is a way the others may play. True proves nothing: the full
        search decides.
        """
        self.partner_takes = partner_takes
        return self._fixed(hands, leader)

    def _fixed(self, hands: tuple[int, ...], leader: int) -> bool:
        if not any(hands):
            return True
        key = (hands, leader, self.partner_takes)
        cached = self.fixed_memo.get(key)
        if cached is None:
            cached = self._fixed_trick(list(hands), leader, leader, ())
            self.fixed_memo[key] = cached
        return cached

    def _akka_calls(self, card: int) -> tuple[bool, ...]:
        """The Akka calls a lead of ``card`` may carry, as the search tries them (R20).

        Under ``akka_requires_declaration`` the call on a boss lead that is neither an Ace nor
        a trump is the leader's choice: with it a void partner is free, without it he must
        trump, so both are tried (the claimer's choice; every other leader's choice must be
        beaten). Otherwise the engine recognises the boss card by itself and the one value
        passed on is what the rules core computes.
        """
        boss = card & 7 != ACE and is_boss(card, self.played)
        if not self.rules.akka_requires_declaration:
            return (boss,)
        if boss and self.contract.trump >= 0 and card >> 3 != self.contract.trump:
            return (True, False)
        return (False,)

    def _closed(
        self,
        hands: list[int],
        leader: int,
        trick: tuple[int, ...],
        then: Callable[[tuple[int, ...], int], bool],
    ) -> bool:
        """A completed trick: taken by the other team, the claim fails on this line; taken by
        the claiming team, ``then`` goes on from its winner with the trick's cards played."""
        winner = (leader + trick_winner_index(trick, self.contract.trump)) & 3
        if team_of(winner) != self.team:
            return False
        played = self.played
        self.played = played | sum(1 << c for c in trick)
        try:
            return then(tuple(hands), winner)
        finally:
            self.played = played

    def _visit(self) -> None:
        """Count a position, and spend the request's budget every ``_SPEND_EVERY`` of them."""
        self.nodes += 1
        if self.budget is not None and not self.nodes % _SPEND_EVERY:
            self.budget.spend(_SPEND_EVERY)

    def _fixed_trick(
        self,
        hands: list[int],
        leader: int,
        seat: int,
        trick: tuple[int, ...],
        akka: bool = False,
    ) -> bool:
        self._visit()
        trump = self.contract.trump
        if len(trick) == 4:
            return self._closed(hands, leader, trick, self._fixed)
        options = allowed_cards(
            hands[seat], trick, leader, seat, self.played, akka, self.contract, self.rules
        )
        if seat == self.claimer:
            for card in self._distinct(options, hands, trick):
                hands[seat] ^= 1 << card
                for call in self._akka_calls(card) if not trick else (akka,):
                    if self._fixed_trick(hands, leader, (seat + 1) & 3, (*trick, card), call):
                        hands[seat] ^= 1 << card
                        return True
                hands[seat] ^= 1 << card
            return False
        strengths = STRENGTHS[trump + 1]
        cards = list(cards_in(options))
        card = min(cards, key=strengths.__getitem__)
        takes = seat != self.partner or self.partner_takes
        if takes and trick:
            position = len(trick)
            taking = [c for c in cards if trick_winner_index((*trick, c), trump) == position]
            if taking:
                card = max(taking, key=strengths.__getitem__)
        elif takes:  # the partner leads: into a suit where an opponent holds a better card
            rivals = hands[(seat + 1) & 3] | hands[(seat + 3) & 3]
            beaten = [c for c in cards if HIGHER[trump + 1][c] & rivals]
            if beaten:
                card = min(beaten, key=strengths.__getitem__)
        if not trick:
            # One fixed call too: the partner leaves his boss card bare (the claimer must then
            # trump over it), an opponent calls it whenever he may.
            calls = self._akka_calls(card)
            akka = calls[-1] if seat == self.partner else calls[0]
        hands[seat] ^= 1 << card
        ok = self._fixed_trick(hands, leader, (seat + 1) & 3, (*trick, card), akka)
        hands[seat] ^= 1 << card
        return ok

    def _opponent_order(self, choices: list[int], trick: tuple[int, ...]) -> list[int]:
        """An opponent tries first the cards that take the trick now, then his weakest cards
        (keeping his best for a later trick): the likeliest refutations come first."""
        if not trick:
            return choices
        trump = self.contract.trump
        position = len(trick)
        taking = [c for c in choices if trick_winner_index((*trick, c), trump) == position]
        if not taking:
            return choices[::-1]
        return taking + [c for c in reversed(choices) if c not in taking]

    def _trick(
        self,
        hands: list[int],
        leader: int,
        seat: int,
        trick: tuple[int, ...],
        akka: bool = False,
    ) -> bool:
        self._visit()
        if len(trick) == 4:
            return self._closed(hands, leader, trick, self.holds)
        options = allowed_cards(
            hands[seat], trick, leader, seat, self.played, akka, self.contract, self.rules
        )
        mine = seat == self.claimer
        choices = self._distinct(options, hands, trick)
        if seat == self.partner:
            choices.reverse()  # his weakest cards first: the likeliest to give a trick away
        elif not mine:
            choices = self._opponent_order(choices, trick)
        for card in choices:
            low = 1 << card
            hands[seat] ^= low
            for call in self._akka_calls(card) if not trick else (akka,):
                ok = self._trick(hands, leader, (seat + 1) & 3, (*trick, card), call)
                if ok is mine:  # the claimer found a way, or someone else refuted him
                    hands[seat] ^= low
                    return mine
            hands[seat] ^= low
        return not mine


CACHES: Final = {"sawa_claims": _verdict}
"""The bounded caches of this module, by their metric label (``server/caches.py``)."""
