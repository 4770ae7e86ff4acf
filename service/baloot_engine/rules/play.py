"""Trick play (R17-R23) and the Baloot announcement (R31).

This module owns the first lead, which cards a seat may play and what a card does to the
trick. ``allowed_cards`` is the one definition of which cards a seat may play, computed with
bit operations on the hand mask; ``apply_play`` refuses anything else with the reason of the
first duty the card breaks (follow suit, trump, over-trump, closed lead). What a card leads to
beyond its trick (the projects revealed at the first card of trick 2, the scoring after trick
8) is decided by
:mod:`baloot_engine.rules.game`. Declaring projects is :mod:`baloot_engine.rules.declaring`,
Sawa :mod:`baloot_engine.rules.sawa`.
"""

from __future__ import annotations

from baloot_engine.rules import errors
from baloot_engine.rules.actions import Action, Event, EventKind, Play, QaydCategory
from baloot_engine.rules.cards import (
    ACE,
    HIGHER,
    KING_QUEEN,
    SUIT_MASKS,
    format_card,
    format_mask,
    higher_in_suit,
    trick_winner_index,
)
from baloot_engine.rules.contract import Contract, partner_of, team_of
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.members import (
    PARTNER_WINNING_ANY,
    PARTNER_WINNING_NEVER,
    PARTNER_WINNING_POSITIONAL,
    PLAYING,
    TRICK_WON,
)
from baloot_engine.rules.projects import has_baloot
from baloot_engine.rules.ruleset import FirstLeader, RuleSet
from baloot_engine.rules.state import (
    State,
    TrickRecord,
    Violation,
    after_card,
    after_trick,
)


def start_play(state: State, events: list[Event]) -> tuple[State, list[Event]]:
    """The doubling is over: set the first leader (R17) and the Baloot holder (R31)."""
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
        phase=PLAYING,
        full_hands=state.hands,
        leader=leader,
        turn=leader,
        baloot_seat=baloot_seat,
    )
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
    if rule is PARTNER_WINNING_NEVER:
        return False
    if rule is PARTNER_WINNING_ANY:
        return True
    if rule is PARTNER_WINNING_POSITIONAL and len(trick) == 3:
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
    """An Akka call fits a non-trump, non-Ace lead that is the boss of its suit (R20).

    Only under ``akka_requires_declaration``: without it the engine recognises the boss card
    by itself, the call has no meaning, and it is neither offered nor accepted (§A.14).
    """
    contract = state.contract
    if (
        contract is None
        or contract.trump < 0
        or state.trick
        or not state.rules.akka_requires_declaration
    ):
        return False
    return card >> 3 != contract.trump and card & 7 != ACE and is_boss(card, state.played)


def _false_akka_fits(state: State, card: int) -> bool:
    """A false Akka table play accepts: a call that means something (``akka_requires_declaration``,
    R20) on a Hokm lead of a non-trump, non-Ace card that is not the boss (§A.14)."""
    contract = state.contract
    rules = state.rules
    return (
        rules.illegal_moves_allowed
        and rules.akka_requires_declaration
        and contract is not None
        and contract.trump >= 0
        and not state.trick
        and card >> 3 != contract.trump
        and card & 7 != ACE
    )


def broken_rule(
    hand: int, trick: tuple[int, ...], trump: int, card: int
) -> tuple[QaydCategory, int]:
    """The duty an illegal ``card`` broke and its evidence, as :func:`_card_refusal` names it.

    ``hand`` is the seat's hand before the card. The evidence is the cards of the hand that
    made the card illegal: the cards of the suit led (revoke), its trumps (did not trump, did
    not over-trump), or its cards of the other suits (a trump lead in a closed game).
    """
    if not trick:
        return QaydCategory.CLOSED_TRUMP_LEAD, hand & ~SUIT_MASKS[trump]
    led = trick[0] >> 3
    follow = hand & SUIT_MASKS[led]
    if trump < 0 or (follow and card >> 3 != led):
        return QaydCategory.REVOKE, follow
    trumps = hand & SUIT_MASKS[trump]
    if card >> 3 == trump:
        return QaydCategory.NO_OVERTRUMP, trumps
    return QaydCategory.NO_TRUMP, trumps


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
    if state.turn != seat or state.phase is not PLAYING:
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
    if state.phase is not PLAYING:
        raise RuleError(errors.WRONG_PHASE, f"no card play in phase {state.phase.value}")
    if state.turn != seat:
        raise errors.not_your_turn(state.turn, seat, "play")
    card = play.card
    contract = state.contract
    assert contract is not None
    hand = state.hands[seat]
    legal = allowed_cards(
        hand, state.trick, state.leader, seat, state.played, state.akka, contract, state.rules
    )
    broken: Violation | None = None
    if not (0 <= card < 32 and legal >> card & 1):
        if not 0 <= card < 32 or not hand >> card & 1:
            known = 0 <= card < 32
            shown = format_card(card) if known else repr(card)
            raise RuleError(
                errors.CARD_NOT_IN_HAND,
                f"seat {seat} does not hold {shown}",
                details={"seat": str(seat), "card": shown} if known else {"seat": str(seat)},
            )
        if not state.rules.illegal_moves_allowed:
            raise _card_refusal(state, seat, card, legal)
        # Table play (§A.14): the card is accepted and the breach kept private.
        rule, evidence = broken_rule(hand, state.trick, contract.trump, card)
        broken = Violation(seat, len(state.tricks) + 1, card, rule, evidence)
    akka = play.akka
    if akka and not akka_allowed(state, card):
        if not _false_akka_fits(state, card):
            raise RuleError(
                errors.AKKA_NOT_ALLOWED,
                "Akka is called only when leading the boss card of a non-trump suit in Hokm"
                if state.rules.akka_requires_declaration
                else "Akka is not called under these rules: the boss card is recognised by itself",
                details={"seat": str(seat), "card": format_card(card)},
            )
        evidence = _HIGHER_SUN[card] & ~state.played
        broken = Violation(seat, len(state.tricks) + 1, card, QaydCategory.FALSE_AKKA, evidence)
    if broken is not None:
        state = state._replace(violations=(*state.violations, broken))
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
    cards = (first, second, third, fourth)
    record = TrickRecord(leader, cards, winner)
    points = record.points(trump, len(state.tricks) + 1)
    team = winner & 1
    won, lost = state.abnat
    abnat = (won + points, lost) if team == 0 else (won, lost + points)
    played = state.played | 1 << first | 1 << second | 1 << third | 1 << fourth
    events.append(Event(TRICK_WON, seat=winner, team=team, cards=cards, points=points))
    return after_trick(state, hands, record, played, abnat, baloot_announced), events
