"""Sawa (سوا, R46): the player on lead claims every remaining trick for his team.

This module owns when a claim may be made (``sawa_possible``), the proof that it holds
(the plain case of the top cards, else an AND-OR search over every play of the others,
bounded by ``SAWA_NODE_BUDGET``), and what an accepted claim does to the hand: the
remaining cards' abnat and the 10 for the last trick go to the claiming team. Scoring the
hand that the claim ended is :mod:`baloot_engine.rules.game`'s next step.
"""

from __future__ import annotations

from baloot_engine.rules import errors
from baloot_engine.rules.actions import ClaimSawa, Event, EventKind, QaydCategory
from baloot_engine.rules.cards import (
    ACE,
    LAST_TRICK_BONUS,
    POINTS,
    SUIT_MASKS,
    cards_in,
    higher_in_suit,
    trick_winner_index,
)
from baloot_engine.rules.contract import team_of
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.play import allowed_cards, is_boss
from baloot_engine.rules.ruleset import FalseSawa
from baloot_engine.rules.state import Phase, State, Violation


def sawa_possible(state: State, seat: int) -> bool:
    """A Sawa claim may be made by the player on lead when the flag is on (R46)."""
    return (
        state.rules.sawa and state.phase is Phase.PLAYING and not state.trick and state.turn == seat
    )


SAWA_NODE_BUDGET = 200_000
_PLAIN_DESCENDING = (7, 3, 6, 5, 4, 2, 1, 0)  # A 10 K Q J 9 8 7
_TRUMP_DESCENDING = (4, 2, 7, 3, 6, 5, 1, 0)  # J 9 A 10 K Q 8 7


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
    search = SawaSearch(state, team_of(seat))
    holds = _sawa_plainly_holds(state, seat) or search.holds(state.hands, seat)
    rules = state.rules
    table_play = rules.illegal_moves_allowed
    false_claim: Violation | None = None
    if not holds:
        if not table_play and rules.false_sawa is not FalseSawa.LOSES_HAND:
            why = (
                "the claim could not be proven within the search budget"
                if search.exhausted
                else "the other players can win a trick"
            )
            raise RuleError(
                errors.SAWA_INVALID, f"Sawa refused: {why}", details={"seat": str(seat)}
            )
        # §A.14: a false claim is accepted (table play: callable as سوا خطأ) or loses the hand;
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
    """The false Sawa that just ended the hand outside table play (``false_sawa = loses_hand``)."""
    if state.rules.illegal_moves_allowed or state.sawa_seat < 0 or not state.violations:
        return None
    last = state.violations[-1]
    return last if last.rule is QaydCategory.FALSE_SAWA else None


def _sawa_plainly_holds(state: State, seat: int) -> bool:
    """The usual proof of a Sawa, without a search: the claimer holds the top cards.

    Every card he holds outranks every card of its suit in the three other hands (so not
    even his partner takes the lead from him), and in Hokm nobody else holds a trump, or
    he holds at least as many trumps as each of them and draws them first. Then he wins
    every trick whatever the others play. A claim this cannot prove goes to the search.
    """
    contract = state.contract
    assert contract is not None
    trump = contract.trump
    mine = state.hands[seat]
    others = [state.hands[(seat + i) & 3] for i in (1, 2, 3)]
    every_other = others[0] | others[1] | others[2]
    for card in cards_in(mine):
        if higher_in_suit(card, trump) & every_other:
            return False
    if trump < 0:
        return True
    trumps = SUIT_MASKS[trump]
    most = max((hand & trumps).bit_count() for hand in others)
    if most == 0:
        return True
    # A closed game forbids leading a trump while he holds another suit (R22).
    if contract.closed and mine & ~trumps:
        return False
    return (mine & trumps).bit_count() >= most


class SawaSearch:
    """AND-OR search: the claimer picks his cards, everyone else may play anything legal."""

    def __init__(self, state: State, team: int, *, merge_equivalent: bool = True) -> None:
        contract = state.contract
        assert contract is not None
        self.merge_equivalent = merge_equivalent
        self.contract = contract
        self.rules = state.rules
        self.team = team
        self.claimer = state.turn
        self.played = state.played
        self.nodes = 0
        self.exhausted = False
        self.memo: dict[tuple[tuple[int, ...], int], bool] = {}

    def holds(self, hands: tuple[int, ...], leader: int) -> bool:
        if not any(hands):
            return True
        key = (hands, leader)
        cached = self.memo.get(key)
        if cached is not None:
            return cached
        result = self._trick(list(hands), leader, leader, ())
        self.memo[key] = result
        return result

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

    def _trick(self, hands: list[int], leader: int, seat: int, trick: tuple[int, ...]) -> bool:
        self.nodes += 1
        if self.nodes > SAWA_NODE_BUDGET:
            self.exhausted = True
            return False
        if len(trick) == 4:
            winner = (leader + trick_winner_index(trick, self.contract.trump)) & 3
            if team_of(winner) != self.team:
                return False
            played = self.played
            self.played = played | sum(1 << c for c in trick)
            try:
                return self.holds(tuple(hands), winner)
            finally:
                self.played = played
        akka = bool(trick) and trick[0] & 7 != ACE and is_boss(trick[0], self.played)
        options = allowed_cards(
            hands[seat], trick, leader, seat, self.played, akka, self.contract, self.rules
        )
        mine = seat == self.claimer
        for card in self._distinct(options, hands, trick):
            low = 1 << card
            hands[seat] ^= low
            ok = self._trick(hands, leader, (seat + 1) & 3, (*trick, card))
            hands[seat] ^= low
            if mine and ok:
                return True
            if not mine and not ok:
                return False
        return not mine
