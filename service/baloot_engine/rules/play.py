"""Trick play (R17-R23), project declaration (R28-R29), Baloot (R31) and Sawa (R46).

``allowed_cards`` is the one definition of which cards a seat may play, computed with bit
operations on the hand mask; ``apply_play`` refuses anything else with the reason of the
first duty the card breaks (follow suit, trump, over-trump, closed lead).
"""

from __future__ import annotations

from functools import lru_cache

from baloot_engine.rules import errors
from baloot_engine.rules.actions import Action, ClaimSawa, Declare, Event, EventKind, Play
from baloot_engine.rules.cards import (
    ACE,
    HIGHER,
    KING_QUEEN,
    POINTS,
    SUIT_MASKS,
    cards_in,
    format_card,
    format_mask,
    higher_in_suit,
    trick_winner_index,
)
from baloot_engine.rules.contract import Contract, partner_of, team_of
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.projects import (
    ProjectKind,
    best_projects,
    compare_declarations,
    has_baloot,
    projects_for_declaration,
    usable_candidates,
)
from baloot_engine.rules.ruleset import FirstLeader, PartnerWinningRule, RuleSet
from baloot_engine.rules.state import (
    Declaration,
    Phase,
    State,
    TrickRecord,
    after_card,
    after_trick,
)

# Enum members as module constants on the paths of every card (see ``state.Phase``).
_TRICK_WON = EventKind.TRICK_WON
_NEVER = PartnerWinningRule.NEVER
_ANY_PARTNER_WINNING = PartnerWinningRule.ANY_PARTNER_WINNING
_POSITIONAL = PartnerWinningRule.POSITIONAL

_DECLARABLE = (ProjectKind.SIRA, ProjectKind.FIFTY, ProjectKind.HUNDRED, ProjectKind.FOUR_HUNDRED)


def start_play(state: State, events: list[Event]) -> tuple[State, list[Event]]:
    """The doubling is over: set the first leader (R17), Baloot, automatic declarations."""
    contract = state.contract
    assert contract is not None
    rules = state.rules
    if rules.first_leader is FirstLeader.BUYER:
        leader = contract.buyer
    else:
        leader = (state.dealer + 1) & 3
    trump = contract.trump
    baloot_seat = -1
    if trump >= 0:
        for seat in range(4):
            if has_baloot(state.hands[seat], trump):
                baloot_seat = seat
    state = state._replace(
        phase=Phase.PLAYING,
        full_hands=state.hands,
        leader=leader,
        turn=leader,
        baloot_seat=baloot_seat,
    )
    if rules.auto_declare_projects:
        declarations: list[Declaration | None] = []
        for seat in range(4):
            found = best_projects(state.hands[seat], trump, rules)
            if found:
                kinds = tuple(p.kind for p in found)
                declarations.append(Declaration(kinds, found))
                events.append(
                    Event(EventKind.PROJECTS_DECLARED, seat=seat, team=team_of(seat), kinds=kinds)
                )
            else:
                declarations.append(None)
        state = state._replace(declarations=tuple(declarations))
    return state, events


# ---------------------------------------------------------------------------------------
# Legal cards


def allowed_cards(
    hand: int,
    trick: tuple[int, ...],
    leader: int,
    seat: int,
    played: int,
    akka: bool,
    contract: Contract,
    rules: RuleSet,
) -> int:
    """The mask of the cards a seat may play (R18-R22), on plain values.

    ``legal_plays``, ``apply_play`` and the Sawa search all ask this one function.
    """
    trump = contract.trump
    if not trick:
        if trump >= 0 and contract.closed:  # R22: no trump lead while holding another suit
            plain = hand & ~SUIT_MASKS[trump]
            if plain:
                return plain
        return hand
    led = trick[0] >> 3
    follow = hand & SUIT_MASKS[led]
    if trump < 0:  # R18, Sun
        return follow or hand
    if led == trump:  # R21
        if not follow:
            return hand
        win = trick_winner_index(trick, trump)
        if not rules.overtrump_partner and team_of((leader + win) & 3) == team_of(seat):
            return follow
        return (follow & higher_in_suit(trick[win], trump)) or follow
    if follow:
        return follow
    trumps = hand & SUIT_MASKS[trump]
    if not trumps:  # R19.1
        return hand
    win = trick_winner_index(trick, trump)
    partner_wins = team_of((leader + win) & 3) == team_of(seat)
    if partner_wins and _partner_exempts(trick, leader, seat, played, akka, trump, rules):
        return hand  # R20
    best = trick[win]
    if best >> 3 != trump:  # R19.3: nobody has trumped yet
        return trumps
    if partner_wins and not rules.overtrump_partner:
        return trumps  # A.13 item 8: he must trump, but need not beat his partner
    higher = trumps & higher_in_suit(best, trump)  # R19.4
    if higher:
        return higher
    return trumps if rules.undertrump_required else hand


_HIGHER_SUN = HIGHER[0]


def is_boss(card: int, played: int) -> bool:
    """True when every card of ``card``'s suit that outranks it (Sun order) was played."""
    return _HIGHER_SUN[card] & ~played == 0


def _partner_exempts(
    trick: tuple[int, ...],
    leader: int,
    seat: int,
    played: int,
    akka: bool,
    trump: int,
    rules: RuleSet,
) -> bool:
    """R20: is a void player whose partner is winning free of the duty to trump?"""
    rule = rules.partner_winning_rule
    if rule is _NEVER:
        return False
    if rule is _ANY_PARTNER_WINNING:
        return True
    if rule is _POSITIONAL and len(trick) == 3:
        return True
    if leader != partner_of(seat):
        return False
    if any(card >> 3 == trump for card in trick):
        return False
    lead = trick[0]
    if lead & 7 == ACE:
        return True
    if rules.akka_requires_declaration and not akka:
        return False
    return is_boss(lead, played)


def akka_allowed(state: State, card: int) -> bool:
    """An Akka call fits a non-trump, non-Ace lead that is the boss of its suit (R20)."""
    contract = state.contract
    if contract is None or contract.trump < 0 or state.trick:
        return False
    return card >> 3 != contract.trump and card & 7 != ACE and is_boss(card, state.played)


_PLAYS = tuple(Play(card) for card in range(32))
_AKKA_PLAYS = tuple(Play(card, True) for card in range(32))
# Events are immutable: the 128 possible card events of each kind are built once.
_CARD_PLAYED = tuple(
    tuple(Event(EventKind.CARD_PLAYED, seat=seat, team=seat & 1, card=card) for card in range(32))
    for seat in range(4)
)
_AKKA_CALLED = tuple(
    tuple(Event(EventKind.AKKA_CALLED, seat=seat, team=seat & 1, card=card) for card in range(32))
    for seat in range(4)
)


# The card actions of each 8-bit rank mask of each suit, in card order: the plays of a card
# mask are the concatenation of its four bytes' tuples (no loop over the cards).
_SUIT_PLAYS = tuple(
    tuple(
        tuple(_PLAYS[suit * 8 + rank] for rank in range(8) if byte >> rank & 1)
        for byte in range(256)
    )
    for suit in range(4)
)


def legal_plays(state: State, seat: int) -> list[Action]:
    """Every card action ``seat`` may take now, in card order."""
    if state.turn != seat or state.phase is not Phase.PLAYING:
        return []
    contract = state.contract
    assert contract is not None
    trick = state.trick
    mask = allowed_cards(
        state.hands[seat],
        trick,
        state.leader,
        seat,
        state.played,
        state.akka,
        contract,
        state.rules,
    )
    if trick or contract.trump < 0:
        plays = _SUIT_PLAYS
        return [
            *plays[0][mask & 0xFF],
            *plays[1][mask >> 8 & 0xFF],
            *plays[2][mask >> 16 & 0xFF],
            *plays[3][mask >> 24],
        ]
    return _leads_with_akka(state, mask)


def _leads_with_akka(state: State, mask: int) -> list[Action]:
    """A Hokm lead: each card, followed by its Akka call where one fits (R20)."""
    plays: list[Action] = []
    while mask:
        low = mask & -mask
        card = low.bit_length() - 1
        plays.append(_PLAYS[card])
        if akka_allowed(state, card):
            plays.append(_AKKA_PLAYS[card])
        mask ^= low
    return plays


# ---------------------------------------------------------------------------------------
# Playing a card


def apply_play(state: State, seat: int, play: Play) -> tuple[State, list[Event]]:
    """Play a card and return the new state and the events it caused."""
    if state.phase is not Phase.PLAYING:
        raise RuleError(errors.WRONG_PHASE, f"no card play in phase {state.phase.value}")
    if state.turn != seat:
        raise RuleError(
            errors.NOT_YOUR_TURN,
            f"seat {state.turn} is to play, not seat {seat}",
            details={"turn": str(state.turn)},
        )
    card = play.card
    contract = state.contract
    assert contract is not None
    hand = state.hands[seat]
    legal = allowed_cards(
        hand, state.trick, state.leader, seat, state.played, state.akka, contract, state.rules
    )
    if not (0 <= card < 32 and legal >> card & 1):
        if not 0 <= card < 32 or not hand >> card & 1:
            shown = format_card(card) if 0 <= card < 32 else repr(card)
            raise RuleError(
                errors.CARD_NOT_IN_HAND,
                f"seat {seat} does not hold {shown}",
                details={"seat": str(seat)},
            )
        raise _card_refusal(state, seat, card, legal)
    akka = play.akka
    if akka and not akka_allowed(state, card):
        raise RuleError(
            errors.AKKA_NOT_ALLOWED,
            "Akka is called only when leading the boss card of a non-trump suit in Hokm",
            details={"seat": str(seat), "card": format_card(card)},
        )
    events = [_CARD_PLAYED[seat][card]]
    if akka:
        events.append(_AKKA_CALLED[seat][card])
    hand ^= 1 << card
    hands = state.hands
    if seat == 0:
        hands = (hand, hands[1], hands[2], hands[3])
    elif seat == 1:
        hands = (hands[0], hand, hands[2], hands[3])
    elif seat == 2:
        hands = (hands[0], hands[1], hand, hands[3])
    else:
        hands = (hands[0], hands[1], hands[2], hand)
    baloot_announced = state.baloot_announced
    if seat == state.baloot_seat and not baloot_announced:
        kq = KING_QUEEN[contract.trump]
        if kq >> card & 1 and not hand & kq:
            baloot_announced = True
            events.append(Event(EventKind.BALOOT_ANNOUNCED, seat=seat, team=seat & 1))
    trick = (*state.trick, card)
    if len(trick) < 4:
        akka = akka if len(trick) == 1 else state.akka
        return after_card(state, hands, trick, (seat + 1) & 3, akka, baloot_announced), events
    return _complete_trick(state, hands, trick, baloot_announced, events)


def _card_refusal(state: State, seat: int, card: int, legal: int) -> RuleError:
    trick = state.trick
    trump = state.trump
    allowed = tuple(format_card(c) for c in range(32) if legal >> c & 1)
    details = {"seat": str(seat), "card": format_card(card)}
    if not trick:
        return RuleError(
            errors.TRUMP_LEAD_LOCKED,
            "the game is closed: no trump lead while holding another suit",
            allowed=allowed,
            details=details,
        )
    led = trick[0] >> 3
    if state.hands[seat] & SUIT_MASKS[led] and card >> 3 != led:
        reason, why = errors.MUST_FOLLOW_SUIT, "you must follow the suit led"
    elif card >> 3 == trump:
        reason, why = errors.MUST_OVERTRUMP, "you must play a higher trump"
    else:
        reason, why = errors.MUST_TRUMP, "you must trump: you hold no card of the suit led"
    return RuleError(
        reason, f"{why} (allowed: {format_mask(legal)})", allowed=allowed, details=details
    )


def _complete_trick(
    state: State,
    hands: tuple[int, int, int, int],
    trick: tuple[int, ...],
    baloot_announced: bool,
    events: list[Event],
) -> tuple[State, list[Event]]:
    contract = state.contract
    assert contract is not None
    trump = contract.trump
    leader = state.leader
    winner = (leader + trick_winner_index(trick, trump)) & 3
    first, second, third, fourth = trick
    table = POINTS[trump + 1]
    points = table[first] + table[second] + table[third] + table[fourth]
    team = winner & 1
    won, lost = state.abnat
    abnat = (won + points, lost) if team == 0 else (won, lost + points)
    cards = (first, second, third, fourth)
    record = TrickRecord(leader, cards, winner)
    played = state.played | 1 << first | 1 << second | 1 << third | 1 << fourth
    events.append(Event(_TRICK_WON, seat=winner, team=team, cards=cards, points=points))
    state = after_trick(state, hands, record, played, abnat, baloot_announced)
    done = len(state.tricks)
    if done == 1:
        state = _reveal_projects(state, events)
    elif done == 8:
        from baloot_engine.rules.match import finish_round

        return finish_round(state, events)
    return state, events


def _reveal_projects(state: State, events: list[Event]) -> State:
    """After trick 1, compare the declarations (R29) and reveal the winning team's projects."""
    declared = [d.projects if d is not None else () for d in state.declarations]
    if not any(declared):
        return state
    first = (state.dealer + 1) & 3
    team = compare_declarations(declared, first)
    if team is None:
        return state
    shown = tuple(
        (seat, project) for seat in range(4) if team_of(seat) == team for project in declared[seat]
    )
    events.append(Event(EventKind.PROJECTS_REVEALED, team=team, projects=shown))
    return state._replace(project_team=team)


# ---------------------------------------------------------------------------------------
# Declaring projects


def declarable(hand: int, trump: int, rules: RuleSet) -> tuple[tuple[ProjectKind, ...], ...]:
    """Every combination of one or two project types the hand can declare (R27-R28).

    One type per usable project, two types per pair of disjoint usable projects; this is
    exactly what :func:`projects_for_declaration` accepts, without trying each combination.
    """
    return _declarable(hand, trump, rules.split_long_runs)


@lru_cache(maxsize=8192)
def _declarable(
    hand: int, trump: int, split_long_runs: bool
) -> tuple[tuple[ProjectKind, ...], ...]:
    candidates = usable_candidates(hand, trump, split_long_runs)
    if not candidates:
        return ()
    found: set[tuple[ProjectKind, ...]] = set()
    for i, first in enumerate(candidates):
        found.add((first.kind,))
        for second in candidates[i + 1 :]:
            if not first.cards & second.cards:
                found.add(tuple(sorted((first.kind, second.kind), key=_DECLARABLE.index)))
    return tuple(sorted(found, key=_kinds_order))


def _kinds_order(kinds: tuple[ProjectKind, ...]) -> tuple[int, ...]:
    return (len(kinds), *(_DECLARABLE.index(k) for k in kinds))


def declaration_open(state: State, seat: int) -> bool:
    """A seat may declare during trick 1, before or with its first card, once (R28)."""
    if state.phase is not Phase.PLAYING or state.tricks or state.rules.auto_declare_projects:
        return False
    if state.declarations[seat] is not None:
        return False
    position = (seat - state.leader) & 3
    return position >= len(state.trick)


def legal_declarations(state: State, seat: int) -> list[Declare]:
    """Every project declaration ``seat`` may make now."""
    if not declaration_open(state, seat):
        return []
    hand = state.full_hands[seat]
    return [Declare(kinds) for kinds in declarable(hand, state.trump, state.rules)]


def apply_declare(state: State, seat: int, action: Declare) -> tuple[State, list[Event]]:
    """Record a declaration; the engine assigns the seat's best cards for those types."""
    if state.phase is not Phase.PLAYING:
        raise RuleError(errors.WRONG_PHASE, f"no declaring in phase {state.phase.value}")
    if not declaration_open(state, seat):
        raise RuleError(
            errors.DECLARATION_CLOSED,
            "projects are declared once, in the first trick, before or with your first card",
            details={"seat": str(seat)},
        )
    kinds = tuple(action.kinds)
    if not kinds or len(kinds) > 2:
        raise RuleError(errors.PROJECT_NOT_HELD, "declare one or two project types")
    projects = projects_for_declaration(state.full_hands[seat], kinds, state.trump, state.rules)
    declarations = list(state.declarations)
    declarations[seat] = Declaration(kinds, projects)
    events = [Event(EventKind.PROJECTS_DECLARED, seat=seat, team=team_of(seat), kinds=kinds)]
    return state._replace(declarations=tuple(declarations)), events


# ---------------------------------------------------------------------------------------
# Sawa


def sawa_possible(state: State, seat: int) -> bool:
    """A Sawa claim may be made by the player on lead when the flag is on (R46)."""
    return (
        state.rules.sawa and state.phase is Phase.PLAYING and not state.trick and state.turn == seat
    )


SAWA_NODE_BUDGET = 200_000
_PLAIN_DESCENDING = (7, 3, 6, 5, 4, 2, 1, 0)  # A 10 K Q J 9 8 7
_TRUMP_DESCENDING = (4, 2, 7, 3, 6, 5, 1, 0)  # J 9 A 10 K Q 8 7


def apply_sawa(state: State, seat: int, _claim: ClaimSawa) -> tuple[State, list[Event]]:
    """Check a Sawa claim against every play of the others; end the hand if it holds."""
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
    if not holds:
        why = (
            "the claim could not be proven within the search budget"
            if search.exhausted
            else "the other players can win a trick"
        )
        raise RuleError(errors.SAWA_INVALID, f"Sawa refused: {why}", details={"seat": str(seat)})
    team = team_of(seat)
    remaining = 8 - len(state.tricks)
    events: list[Event] = []
    if not state.tricks:
        # The hand ends before trick 1 is over: compare the declarations now (R29).
        state = _reveal_projects(state, events)
    rest = state.hands[0] | state.hands[1] | state.hands[2] | state.hands[3]
    table = POINTS[contract.trump + 1]
    points = sum(table[c] for c in range(32) if rest >> c & 1)
    abnat = list(state.abnat)
    abnat[team] += points
    events.insert(0, Event(EventKind.SAWA_CLAIMED, seat=seat, team=team, points=points))
    state = state._replace(
        abnat=(abnat[0], abnat[1]),
        sawa_seat=seat,
        hands=(0, 0, 0, 0),
    )
    from baloot_engine.rules.match import finish_round

    return finish_round(state, events, sawa_tricks=remaining)


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
