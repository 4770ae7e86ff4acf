"""Trick play (R2, R17-R23): leads, following, trumping, the Akka rule, closed games, winners.

Every scenario deals four exact eight-card hands (dealer seat 0, so R = 1, O = 2, L = 3,
D = 0; teams {0, 2} and {1, 3}), fixes a contract through the public actions and plays real
cards. A property test then plays random hands under random play flags against a reference
written from rules.md.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baloot_engine.rules import errors
from baloot_engine.rules.actions import (
    Bid,
    BidKind,
    ClaimSawa,
    Deal,
    Declare,
    Doubling,
    DoublingCall,
    EventKind,
    Play,
)
from baloot_engine.rules.cards import format_card, parse_card
from baloot_engine.rules.contract import PlayMode
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.game import apply, legal_actions, new_match
from baloot_engine.rules.projects import ProjectKind
from baloot_engine.rules.ruleset import (
    KAMMELNA,
    SEEDS,
    FirstLeader,
    PartnerWinningRule,
    RuleSet,
)
from baloot_engine.rules.state import Phase, State
from baloot_engine.rules.validation import validate

from .scenario import (
    L1,
    L3,
    L4,
    L5,
    L6,
    act,
    act_events,
    bid,
    buy_hokm,
    buy_sun,
    code_set,
    dealt,
    deck_for_hands,
    decline_all,
    hokm,
    hokm_hand,
    legal_card_codes,
    pass_until,
    play,
    refuse,
    rules_with,
    sun_hand,
    table,
)
from .strategies import play_rules

AKKA_ONLY = PartnerWinningRule.AKKA_ONLY
POSITIONAL = PartnerWinningRule.POSITIONAL
ANY_PARTNER = PartnerWinningRule.ANY_PARTNER_WINNING
NEVER = PartnerWinningRule.NEVER


def pw(rule: PartnerWinningRule) -> RuleSet:
    return SEEDS.replace(partner_winning_rule=rule)


def P(code: str, akka: bool = False) -> Play:  # noqa: N802 - reads like a card
    return Play(parse_card(code), akka)


def full(layout: dict[int, str], seat: int, *played: str) -> set[str]:
    """The cards of ``seat``'s eight-card hand minus those he already played."""
    return code_set(layout[seat]) - set(played)


# --- R17 / R2: who leads, who plays next -------------------------------------------------------


@pytest.mark.parametrize("dealer", range(4))
@pytest.mark.parametrize(("buyer_pos", "how"), [(3, "hokm"), (1, "sun"), (2, "ashkal")])
def test_the_dealers_right_leads_the_first_trick_whoever_bought(
    dealer: int, buyer_pos: int, how: str
) -> None:
    buyer = table(dealer)[buyer_pos]
    state = dealt(tuple(range(32)), dealer=dealer)
    state = (
        buy_hokm(state, buyer) if how == "hokm" else buy_sun(state, buyer, ashkal=how == "ashkal")
    )
    state = decline_all(state)
    assert state.phase is Phase.PLAYING
    assert state.leader == state.turn == (dealer + 1) % 4


@pytest.mark.parametrize("dealer", range(4))
@pytest.mark.parametrize(
    ("buyer_pos", "how"), [(3, "hokm"), (1, "sun"), (2, "ashkal"), (0, "hokm")]
)
def test_first_leader_buyer(dealer: int, buyer_pos: int, how: str) -> None:
    rules = rules_with(first_leader=FirstLeader.BUYER)
    buyer = table(dealer)[buyer_pos]
    state = dealt(tuple(range(32)), rules=rules, dealer=dealer)
    state = (
        buy_hokm(state, buyer) if how == "hokm" else buy_sun(state, buyer, ashkal=how == "ashkal")
    )
    state = decline_all(state)
    assert state.leader == state.turn == buyer  # in Ashkal the caller is the buyer


def test_play_goes_counter_clockwise_and_only_the_seat_on_turn_plays() -> None:
    state = hokm(L1)
    assert state.turn == 1
    refuse(state, 2, P("QS"), errors.NOT_YOUR_TURN)
    refuse(state, 0, P("9H"), errors.NOT_YOUR_TURN)
    for expected, card in zip((1, 2, 3, 0), ("10D", "KD", "QD", "AD"), strict=True):
        assert state.turn == expected
        for seat in range(4):
            if seat != expected:
                assert legal_card_codes(state, seat) == set()
        state = play(state, card)
    assert state.leader == state.turn == 0  # AD won: the winner leads the next trick


def test_a_card_not_in_hand_is_refused() -> None:
    state = hokm(L1)
    refuse(state, 1, P("QS"), errors.CARD_NOT_IN_HAND)
    refuse(state, 1, Play(32), errors.CARD_NOT_IN_HAND)


def test_the_leader_may_lead_any_card() -> None:
    state = hokm(L1)
    assert legal_card_codes(state) == full(L1, 1)


# --- R18: following suit -------------------------------------------------------------------


def test_hokm_must_follow_suit_even_when_able_to_trump() -> None:
    state = play(hokm(L1), "7S")
    assert legal_card_codes(state) == code_set("QS JS 10S 9S 8S")
    refuse(state, 2, P("AH"), errors.MUST_FOLLOW_SUIT)
    refuse(state, 2, P("KD"), errors.MUST_FOLLOW_SUIT)


def test_sun_follow_suit_and_void_plays_anything() -> None:
    state = play(sun_hand(L1, "8H", buyer=1), "7S")
    assert legal_card_codes(state) == code_set("QS JS 10S 9S 8S")  # no duty to beat
    refuse(state, 2, P("AH"), errors.MUST_FOLLOW_SUIT)
    state = play(state, "8S")
    assert legal_card_codes(state) == full(L1, 3)  # void: any card, hearts are no trumps
    state = play(state, "JH")
    assert legal_card_codes(state) == full(L1, 0)


# --- R19: void in the led suit in Hokm ----------------------------------------------------------


def test_void_without_trumps_plays_anything() -> None:
    state = play(hokm(L3), "8H", "9H")  # trump led; seat 3 holds no trump (R21)
    assert legal_card_codes(state) == full(L3, 3)


def test_void_and_no_trump_in_a_plain_trick_plays_anything() -> None:
    layout = {
        1: "8H 7S AS KS 10D 9D 7C 8C",
        2: "AD KD QD AC KC QC JC 10C",  # void in spades and in trumps
        3: "QS JS 10S 9S 8S JD 8D 7D",
        0: "JH AH 10H KH QH 9H 7H 9C",
    }
    state = play(hokm(layout), "7S")
    assert legal_card_codes(state) == full(layout, 2)


def test_must_trump_when_an_opponent_wins_with_a_plain_card() -> None:
    state = play(hokm(L1), "7S", "QS")
    assert legal_card_codes(state) == code_set("JH 10H 7H")  # any trump
    refuse(state, 3, P("QD"), errors.MUST_TRUMP)
    refuse(state, 3, P("AC"), errors.MUST_TRUMP)


def test_must_overtrump_an_opponents_trump() -> None:
    state = play(hokm(L1), "7S", "QS", "10H")
    assert legal_card_codes(state) == {"9H"}  # 9 beats 10 in trumps; K and Q do not
    refuse(state, 0, P("KH"), errors.MUST_OVERTRUMP)
    refuse(state, 0, P("QH"), errors.MUST_OVERTRUMP)
    refuse(state, 0, P("AD"), errors.MUST_TRUMP)


def test_must_undertrump_when_unable_to_overtrump() -> None:
    state = play(hokm(L1), "7S", "QS", "JH")
    assert legal_card_codes(state) == code_set("9H KH QH")
    refuse(state, 0, P("AD"), errors.MUST_TRUMP)
    refuse(state, 0, P("10C"), errors.MUST_TRUMP)


NO_UNDERTRUMP = rules_with(undertrump_required=False)


def test_undertrump_not_required_frees_a_player_unable_to_overtrump() -> None:
    state = play(hokm(L1, NO_UNDERTRUMP), "7S", "QS", "JH")
    assert legal_card_codes(state) == full(L1, 0)


def test_undertrump_not_required_keeps_the_other_duties() -> None:
    state = play(hokm(L1, NO_UNDERTRUMP), "7S", "QS")
    assert legal_card_codes(state) == code_set("JH 10H 7H")  # still must trump
    state = play(state, "10H")
    assert legal_card_codes(state) == {"9H"}  # still must over-trump when able
    refuse(state, 0, P("AD"), errors.MUST_TRUMP)


# --- R20: partner winning, the Akka rule --------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "free"),
    [(AKKA_ONLY, True), (POSITIONAL, True), (ANY_PARTNER, True), (NEVER, False)],
)
def test_partner_led_ace_frees_the_void_third_player(rule: PartnerWinningRule, free: bool) -> None:
    state = play(hokm(L1, pw(rule)), "AS", "8S")
    expected = full(L1, 3) if free else code_set("JH 10H 7H")
    assert legal_card_codes(state) == expected
    if not free:
        refuse(state, 3, P("QD"), errors.MUST_TRUMP)
    else:
        assert code_set("QD") <= legal_card_codes(state)


@pytest.mark.parametrize(
    ("rule", "free"),
    [(AKKA_ONLY, False), (POSITIONAL, False), (ANY_PARTNER, True), (NEVER, False)],
)
def test_partner_winning_with_a_card_that_is_not_the_boss(
    rule: PartnerWinningRule, free: bool
) -> None:
    """KS led while AS is still unplayed (in the leader's own hand): no Akka."""
    state = play(hokm(L1, pw(rule)), "KS", "8S")
    expected = full(L1, 3) if free else code_set("JH 10H 7H")
    assert legal_card_codes(state) == expected
    if not free:
        refuse(state, 3, P("QD"), errors.MUST_TRUMP)


@pytest.mark.parametrize(
    ("rule", "free"),
    [(AKKA_ONLY, False), (POSITIONAL, True), (ANY_PARTNER, True), (NEVER, False)],
)
def test_fourth_player_whose_partner_wins_with_a_plain_card(
    rule: PartnerWinningRule, free: bool
) -> None:
    state = play(hokm(L4, pw(rule)), "7S", "AS", "8S")
    expected = full(L4, 0) if free else code_set("JH AH 10H KH QH")
    assert legal_card_codes(state) == expected
    if not free:
        refuse(state, 0, P("JC"), errors.MUST_TRUMP)


@pytest.mark.parametrize(
    ("rule", "overtrump_partner", "expected"),
    [
        (AKKA_ONLY, True, "JH"),
        (AKKA_ONLY, False, "JH AH 10H KH QH"),
        (NEVER, True, "JH"),
        (POSITIONAL, True, None),
        (ANY_PARTNER, True, None),
        (ANY_PARTNER, False, None),
    ],
)
def test_partner_has_trumped_a13_item8(
    rule: PartnerWinningRule, overtrump_partner: bool, expected: str | None
) -> None:
    """Seat 2 trumps seat 1's spade lead; seat 0 (2's partner, fourth) is void in spades."""
    rules = rules_with(partner_winning_rule=rule, overtrump_partner=overtrump_partner)
    state = play(hokm(L3, rules), "7S")
    assert legal_card_codes(state) == code_set("9H 7H")
    state = play(state, "9H", "8S")
    if expected is None:
        assert legal_card_codes(state) == full(L3, 0)
        return
    assert legal_card_codes(state) == code_set(expected)
    refuse(state, 0, P("JC"), errors.MUST_TRUMP)
    if overtrump_partner:
        refuse(state, 0, P("10H"), errors.MUST_OVERTRUMP)


@pytest.mark.parametrize(
    ("overtrump_partner", "undertrump_required", "expected"),
    [
        (False, False, "7H 8H"),  # need not beat the partner, but must still trump
        (False, True, "7H 8H"),
        (True, False, None),  # cannot beat the partner's Jack, and undertrumping is not asked
        (True, True, "7H 8H"),
    ],
)
def test_a_void_player_under_his_partners_trump_with_only_lower_trumps(
    overtrump_partner: bool, undertrump_required: bool, expected: str | None
) -> None:
    # R20 and A.13 item 8: seat 2 trumps seat 1's spade lead with the Jack of hearts; seat 0,
    # void in spades, holds only the 7 and 8 of trumps below it. With overtrump_partner off he
    # must still play a trump whatever undertrump_required says; with it on he must beat his
    # partner if he can, and, unable to, trump under him only when undertrump_required is on.
    hands = {
        1: "AS KS QS JS 10S 9S AD KD",
        2: "JH 9H AH 10H AC KC QC JC",
        3: "8S 7S KH QH QD JD 10D 9D",
        0: "7H 8H 8D 7D 10C 9C 8C 7C",
    }
    rules = rules_with(overtrump_partner=overtrump_partner, undertrump_required=undertrump_required)
    state = play(hokm_hand(hands, "9H", buyer=2, rules=rules), "AS", "JH", "8S")
    assert state.turn == 0
    if expected is None:
        assert legal_card_codes(state) == code_set(hands[0])
        return
    assert legal_card_codes(state) == code_set(expected)
    refuse(state, 0, P("7C"), errors.MUST_TRUMP)


def test_akka_boss_card_after_the_higher_cards_are_played() -> None:
    state = play(hokm(L5), "AS", "10S", "7S", "JS")
    assert state.leader == 1
    boss = play(state, "KS", "9S")  # A and 10 are gone: K is the boss of spades
    assert legal_card_codes(boss) == full(L5, 3, "7S")
    not_boss = play(state, "QS", "9S")  # K is still unplayed (in the leader's own hand)
    assert legal_card_codes(not_boss) == code_set("JH 10H 7H")
    refuse(not_boss, 3, P("QD"), errors.MUST_TRUMP)


DECLARED = rules_with(akka_requires_declaration=True)


def test_akka_requires_declaration_a_boss_card_must_be_called() -> None:
    state = play(hokm(L5, DECLARED), "AS", "10S", "7S", "JS")
    assert P("KS", akka=True) in legal_actions(state, 1)
    silent = play(state, "KS", "9S")
    assert legal_card_codes(silent) == code_set("JH 10H 7H")
    refuse(silent, 3, P("QD"), errors.MUST_TRUMP)
    called, events = act_events(state, 1, P("KS", akka=True))
    assert [e.card for e in events if e.kind is EventKind.AKKA_CALLED] == [parse_card("KS")]
    called = play(called, "9S")
    assert legal_card_codes(called) == full(L5, 3, "7S")


def test_akka_requires_declaration_an_ace_needs_no_call() -> None:
    state = play(hokm(L1, DECLARED), "AS", "8S")
    assert legal_card_codes(state) == full(L1, 3)


def test_akka_call_on_a_card_that_is_not_the_boss_is_refused() -> None:
    for rules in (SEEDS, DECLARED):
        state = hokm(L5, rules)
        assert P("KS", akka=True) not in legal_actions(state, 1)
        refuse(state, 1, P("KS", akka=True), errors.AKKA_NOT_ALLOWED)  # AS still unplayed
        state = play(state, "AS", "10S", "7S", "JS")
        refuse(state, 1, P("QS", akka=True), errors.AKKA_NOT_ALLOWED)  # KS still unplayed


def test_without_akka_requires_declaration_the_call_is_neither_offered_nor_accepted() -> None:
    # §A.14 ruling on R20: KS is the boss of spades once AS and 10S are gone, but with the
    # flag off the engine recognises it by itself and an Akka call means nothing.
    for rules in (SEEDS, KAMMELNA):
        state = play(hokm(L5, rules), "AS", "10S", "7S", "JS")
        assert state.leader == 1
        assert P("KS") in legal_actions(state, 1)
        assert P("KS", akka=True) not in legal_actions(state, 1)
        assert not any(isinstance(a, Play) and a.akka for a in legal_actions(state, 1))
        refuse(state, 1, P("KS", akka=True), errors.AKKA_NOT_ALLOWED)
        # The boss card still frees a void partner without the call (SEEDS: Akka-only rule).
        if rules is SEEDS:
            assert legal_card_codes(play(state, "KS", "9S")) == full(L5, 3, "7S")


def test_akka_call_only_when_leading() -> None:
    state = play(hokm(L5, DECLARED), "AS", "10S", "7S", "JS", "10D")
    with pytest.raises(RuleError):
        apply(state, 2, P("KD", akka=True))


def test_kammelna_preset_frees_any_player_whose_partner_wins() -> None:
    state = play(hokm(L4, KAMMELNA), "7S", "AS", "8S")
    assert legal_card_codes(state) == full(L4, 0)


# --- R21: trump led ----------------------------------------------------------------------------


def test_trump_led_must_follow_and_beat_the_highest_trump() -> None:
    state = play(hokm(L1), "8H")
    assert legal_card_codes(state) == {"AH"}
    refuse(state, 2, P("8S"), errors.MUST_FOLLOW_SUIT)
    state = play(state, "AH")
    assert legal_card_codes(state) == {"JH"}  # only J beats A
    refuse(state, 3, P("10H"), errors.MUST_OVERTRUMP)
    refuse(state, 3, P("QD"), errors.MUST_FOLLOW_SUIT)
    state = play(state, "JH")
    assert legal_card_codes(state) == code_set("9H KH QH")  # cannot beat J: any trump
    refuse(state, 0, P("AD"), errors.MUST_FOLLOW_SUIT)


def test_trump_led_void_in_trumps_plays_anything() -> None:
    layout = {
        1: "8H AS KS 7S 10D 9D 7C 8C",
        2: "AH JH QS JS 10S 9S 8S KD",
        3: "QD JD 7D AC KC QC JC 10C",  # no trump
        0: "9H KH QH 10H 7H AD 8D 9C",
    }
    state = play(hokm(layout), "8H", "AH")
    assert legal_card_codes(state) == full(layout, 3)


@pytest.mark.parametrize(
    ("overtrump_partner", "expected"), [(True, "9H"), (False, "9H KH QH 10H 7H")]
)
def test_trump_led_over_a_partners_trump(overtrump_partner: bool, expected: str) -> None:
    layout = {
        1: "8H AS KS 7S 10D 9D 7C 8C",
        2: "AH JH QS JS 10S 9S 8S KD",
        3: "QD JD 7D AC KC QC JC 10C",
        0: "9H KH QH 10H 7H AD 8D 9C",
    }
    state = play(hokm(layout, rules_with(overtrump_partner=overtrump_partner)), "8H", "AH", "QD")
    assert legal_card_codes(state) == code_set(expected)  # seat 2, the partner, holds AH
    if overtrump_partner:
        refuse(state, 0, P("10H"), errors.MUST_OVERTRUMP)


def test_trump_led_opponents_trump_must_be_beaten_even_without_overtrump_partner() -> None:
    state = play(hokm(L1, rules_with(overtrump_partner=False)), "8H", "AH")
    assert legal_card_codes(state) == {"JH"}


# --- R22: closed game ------------------------------------------------------------------------


def test_closed_no_trump_lead_while_holding_another_suit() -> None:
    state = hokm(L1, doubled=PlayMode.CLOSED)
    assert state.contract is not None
    assert state.contract.closed
    assert legal_card_codes(state) == full(L1, 1) - {"8H"}
    refuse(state, 1, P("8H"), errors.TRUMP_LEAD_LOCKED)


def test_closed_an_akka_call_does_not_unlock_a_trump_lead() -> None:
    state = hokm(L1, doubled=PlayMode.CLOSED)
    refuse(state, 1, P("8H", akka=True), errors.TRUMP_LEAD_LOCKED)


@pytest.mark.parametrize("doubled", [None, PlayMode.OPEN])
def test_open_or_undoubled_trump_may_be_led(doubled: PlayMode | None) -> None:
    state = hokm(L1, doubled=doubled)
    assert "8H" in legal_card_codes(state)
    state = play(state, "8H")
    assert state.trick == (parse_card("8H"),)


def test_closed_applies_to_both_teams_and_later_tricks() -> None:
    state = play(hokm(L1, doubled=PlayMode.CLOSED), "10D", "KD", "QD", "AD")
    assert state.leader == 0  # a defender leads trick 2
    assert legal_card_codes(state) == code_set("8D 7D 10C JC")
    refuse(state, 0, P("9H"), errors.TRUMP_LEAD_LOCKED)


def test_closed_lead_trump_when_holding_only_trumps() -> None:
    state = hokm(L6, doubled=PlayMode.CLOSED)
    assert legal_card_codes(state) == full(L6, 1)
    state = play(state, "JH")
    assert state.trick == (parse_card("JH"),)


def test_closed_does_not_change_following_or_trumping() -> None:
    state = play(hokm(L1, doubled=PlayMode.CLOSED), "7S", "QS")
    assert legal_card_codes(state) == code_set("JH 10H 7H")
    state = play(state, "10H")
    assert legal_card_codes(state) == {"9H"}


def test_closed_by_four_and_opened_by_gahwa() -> None:
    def chain(*script: tuple[int, DoublingCall, PlayMode | None]) -> State:
        state = buy_hokm(dealt(_deck(L1)), 1)
        for seat, kind, mode in script:
            state = act(state, seat, Doubling(kind, mode))
        return decline_all(state)

    four = chain(
        (2, DoublingCall.DOUBLE, PlayMode.OPEN),
        (3, DoublingCall.TRIPLE, None),
        (0, DoublingCall.FOUR, PlayMode.CLOSED),
    )
    refuse(four, 1, P("8H"), errors.TRUMP_LEAD_LOCKED)
    gahwa = chain(
        (2, DoublingCall.DOUBLE, PlayMode.CLOSED),
        (3, DoublingCall.TRIPLE, None),
        (0, DoublingCall.FOUR, PlayMode.CLOSED),
        (1, DoublingCall.GAHWA, None),
    )
    assert "8H" in legal_card_codes(gahwa)


def _deck(layout: dict[int, str]) -> tuple[int, ...]:
    return deck_for_hands(layout, "8H", taker=1)


# --- R23: trick winner in play ---------------------------------------------------------------


def test_hokm_trick_won_by_the_highest_trump_with_trump_values() -> None:
    state = play(hokm(L1), "8H", "AH", "JH")
    state, events = act_events(state, 0, P("9H"))
    won = [e for e in events if e.kind is EventKind.TRICK_WON]
    assert len(won) == 1
    assert won[0].seat == 3
    assert won[0].team == 1
    assert won[0].points == 0 + 11 + 20 + 14
    assert state.abnat == (0, 45)
    assert state.leader == state.turn == 3
    assert state.tricks[-1].winner == 3


def test_hokm_a_trump_beats_the_led_ace() -> None:
    state = play(hokm(L1), "AS", "8S", "7H")
    assert legal_card_codes(state) == code_set("9H KH QH")  # over-trump the opponent's 7H
    state, events = act_events(state, 0, P("QH"))
    won = next(e for e in events if e.kind is EventKind.TRICK_WON)
    assert won.seat == 0
    assert won.points == 11 + 0 + 0 + 3
    assert state.abnat == (14, 0)


def test_sun_off_suit_ace_does_not_win() -> None:
    state = play(sun_hand(L1, "8H", buyer=1), "7S", "8S", "AC")
    state, events = act_events(state, 0, P("7D"))
    won = next(e for e in events if e.kind is EventKind.TRICK_WON)
    assert won.seat == 2
    assert won.points == 11
    assert state.leader == 2


def test_sun_uses_plain_values_for_every_suit() -> None:
    state = play(sun_hand(L1, "8H", buyer=1), "8H", "AH")
    state, events = act_events(state, 3, P("JH"))
    state, events = act_events(state, 0, P("9H"))
    won = next(e for e in events if e.kind is EventKind.TRICK_WON)
    assert won.seat == 2  # AH is the highest heart in Sun
    assert won.points == 0 + 11 + 2 + 0


# --- a whole hand -------------------------------------------------------------------------------


def test_a_whole_hand_ends_after_eight_tricks_and_the_deal_moves_on() -> None:
    state = hokm(L6)
    rng = random.Random(3)
    tricks = 0
    while state.phase is Phase.PLAYING:
        options = [a for a in legal_actions(state, state.turn) if isinstance(a, Play)]
        state, events = act_events(state, state.turn, rng.choice(options))
        tricks += sum(e.kind is EventKind.TRICK_WON for e in events)
    assert tricks == 8
    assert state.phase is Phase.ROUND_OVER
    assert state.dealer == 1
    assert sum(state.abnat) == 162  # R33: the running abnat hold the 10 of the last trick
    refuse(state, 0, Deal(tuple(range(32))), errors.NOT_YOUR_TURN)


def test_no_play_outside_the_playing_phase() -> None:
    state = dealt(tuple(range(32)))
    refuse(state, 1, P("7S"), errors.WRONG_PHASE)
    state = pass_until(state, 1)
    state = bid(state, 1, BidKind.HOKM)
    refuse(state, 2, P("7S"), errors.WRONG_PHASE)


# --- reference of R18-R22 and the properties ------------------------------------------------------

PLAIN_LOW_TO_HIGH = ("7", "8", "9", "J", "Q", "K", "10", "A")
TRUMP_LOW_TO_HIGH = ("7", "8", "Q", "K", "10", "A", "9", "J")
SUN_VALUES = {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}


def rank(card: int) -> str:
    return format_card(card)[:-1]


def suit(card: int) -> int:
    return card // 8


def power(card: int, trump: int) -> int:
    if suit(card) == trump:
        return 100 + TRUMP_LOW_TO_HIGH.index(rank(card))
    return PLAIN_LOW_TO_HIGH.index(rank(card))


def ref_winner(trick: list[int], trump: int) -> int:
    led = suit(trick[0])
    live = [i for i, c in enumerate(trick) if suit(c) in (led, trump)]
    return max(live, key=lambda i: power(trick[i], trump))


def ref_points(card: int, trump: int) -> int:
    if suit(card) == trump and rank(card) in ("J", "9"):
        return 20 if rank(card) == "J" else 14
    return SUN_VALUES[rank(card)]


def ref_boss(card: int, played: set[int]) -> bool:
    higher = PLAIN_LOW_TO_HIGH[PLAIN_LOW_TO_HIGH.index(rank(card)) + 1 :]
    return all(parse_card(r + "SHDC"[suit(card)]) in played for r in higher)


def ref_exempt(
    trick: list[int],
    leader: int,
    seat: int,
    played: set[int],
    akka: bool,
    trump: int,
    rules: RuleSet,
) -> bool:
    """R20: a void player whose partner is winning; is he free of the duty to trump?"""
    rule = rules.partner_winning_rule
    if rule is NEVER:
        return False
    if rule is ANY_PARTNER:
        return True
    if rule is POSITIONAL and len(trick) == 3:
        return True
    lead = trick[0]
    if leader != (seat + 2) % 4 or any(suit(c) == trump for c in trick):
        return False
    if rank(lead) == "A":
        return True
    if rules.akka_requires_declaration and not akka:
        return False
    return ref_boss(lead, played)


def ref_legal(
    hand: set[int],
    trick: list[int],
    leader: int,
    seat: int,
    played: set[int],
    akka: bool,
    trump: int,
    closed: bool,
    rules: RuleSet,
) -> set[int]:
    if not trick:
        plain = {c for c in hand if suit(c) != trump}
        return plain if trump >= 0 and closed and plain else set(hand)
    led = suit(trick[0])
    follow = {c for c in hand if suit(c) == led}
    if trump < 0:
        return follow or set(hand)
    win = ref_winner(trick, trump)
    best = trick[win]
    partner_wins = (leader + win) % 2 == seat % 2
    if led == trump:
        if not follow:
            return set(hand)
        if partner_wins and not rules.overtrump_partner:
            return follow
        return {c for c in follow if power(c, trump) > power(best, trump)} or follow
    if follow:
        return follow
    trumps = {c for c in hand if suit(c) == trump}
    if not trumps:
        return set(hand)
    if partner_wins and ref_exempt(trick, leader, seat, played, akka, trump, rules):
        return set(hand)
    if suit(best) != trump:
        return trumps
    higher = {c for c in trumps if power(c, trump) > power(best, trump)}
    if partner_wins and not rules.overtrump_partner:
        # A.13 item 8 without the duty to beat the partner: he must still trump. Whether
        # undertrump_required=False then frees a player who *cannot* beat his partner is
        # not settled by rules.md (see AMBIGUOUS_UNDERTRUMP); with a higher trump he must trump.
        return trumps
    if higher:
        return higher
    return trumps if rules.undertrump_required else set(hand)


def ambiguous_undertrump(
    hand: set[int], trick: list[int], leader: int, seat: int, trump: int, rules: RuleSet
) -> bool:
    """The one corner where rules.md admits two readings (``trumps`` or the whole hand).

    Partner winning with a trump, no exemption, ``overtrump_partner=False`` and
    ``undertrump_required=False``, and no trump in hand beats the partner's: "he must trump"
    (R20, A.13 item 8) against "under-trump is never compulsory" (R19 flag).
    """
    if trump < 0 or not trick or rules.overtrump_partner or rules.undertrump_required:
        return False
    led = suit(trick[0])
    if led == trump or any(suit(c) == led for c in hand):
        return False
    win = ref_winner(trick, trump)
    best = trick[win]
    if suit(best) != trump or (leader + win) % 2 != seat % 2:
        return False
    trumps = {c for c in hand if suit(c) == trump}
    return bool(trumps) and all(power(c, trump) < power(best, trump) for c in trumps)


def ref_reason(card: int, hand: set[int], trick: list[int], trump: int) -> str:
    if not trick:
        return errors.TRUMP_LEAD_LOCKED
    led = suit(trick[0])
    if any(suit(c) == led for c in hand) and suit(card) != led:
        return errors.MUST_FOLLOW_SUIT
    if suit(card) == trump:
        return errors.MUST_OVERTRUMP
    return errors.MUST_TRUMP


def to_contract(rng: random.Random, rules: RuleSet, dealer: int) -> State:
    """Deal random decks and bid at random, Hokm-biased, until a hand is being played."""
    state = new_match(
        rules, dealer=dealer, match_scores=(rng.randrange(0, 152), rng.randrange(0, 152))
    )
    while state.phase is not Phase.PLAYING:
        if state.phase is Phase.AWAITING_DEAL:
            state = act(state, state.dealer, Deal(tuple(rng.sample(range(32), 32))))
            continue
        options = legal_actions(state, state.turn)
        hokm_bids = [a for a in options if isinstance(a, Bid) and a.kind is BidKind.HOKM]
        raises = [
            a for a in options if isinstance(a, Doubling) and a.call is not DoublingCall.DECLINE
        ]
        if hokm_bids and rng.random() < 0.5:
            choice = rng.choice(hokm_bids)
        elif raises and rng.random() < 0.5:
            choice = rng.choice(raises)
        else:
            choice = rng.choice(options)
        state = act(state, state.turn, choice)
    return state


@settings(max_examples=250, deadline=None)
@given(rules=play_rules, dealer=st.integers(0, 3), rng=st.randoms(use_true_random=False))
def test_random_hands_follow_the_reference_of_r17_r23(
    rules: RuleSet, dealer: int, rng: random.Random
) -> None:
    state = to_contract(rng, rules, dealer)
    contract = state.contract
    assert contract is not None
    trump = contract.trump
    expected_leader = (
        contract.buyer if rules.first_leader is FirstLeader.BUYER else (dealer + 1) % 4
    )
    hands = [{c for c in range(32) if state.hands[s] >> c & 1} for s in range(4)]
    played: set[int] = set()
    totals = [0, 0]
    for _ in range(8):
        assert state.leader == state.turn == expected_leader
        trick: list[int] = []
        akka = False
        for position in range(4):
            seat = (expected_leader + position) % 4
            assert state.turn == seat
            assert {c for c in range(32) if state.hands[seat] >> c & 1} == hands[seat]
            expected = ref_legal(
                hands[seat],
                trick,
                expected_leader,
                seat,
                played,
                akka,
                trump,
                contract.closed,
                rules,
            )
            plays = [a for a in legal_actions(state, seat) if isinstance(a, Play)]
            offered = {a.card for a in plays if not a.akka}
            if offered == set(hands[seat]) and ambiguous_undertrump(
                hands[seat], trick, expected_leader, seat, trump, rules
            ):
                expected = offered  # the other reading of the ambiguous corner
            assert offered == expected
            akka_cards = {a.card for a in plays if a.akka}
            if trick or trump < 0 or not rules.akka_requires_declaration:
                assert akka_cards == set()
            else:
                assert akka_cards == {
                    c
                    for c in expected
                    if suit(c) != trump and rank(c) != "A" and ref_boss(c, played)
                }
            illegal = sorted(hands[seat] - expected)
            if illegal:
                card = rng.choice(illegal)
                refuse(state, seat, Play(card), ref_reason(card, hands[seat], trick, trump))
            choice = rng.choice(plays)
            state, events = act_events(state, seat, choice)
            if position == 0:
                akka = choice.akka
            trick.append(choice.card)
            hands[seat].discard(choice.card)
        win = ref_winner(trick, trump)
        winner = (expected_leader + win) % 4
        won = [e for e in events if e.kind is EventKind.TRICK_WON]
        last_trick = 10 if len(played) == 28 else 0  # R33: the 8th trick carries the 10
        assert [(e.seat, e.points) for e in won] == [
            (winner, sum(ref_points(c, trump) for c in trick) + last_trick)
        ]
        totals[winner % 2] += won[0].points
        played |= set(trick)
        expected_leader = winner
    assert state.phase in (Phase.ROUND_OVER, Phase.MATCH_OVER)
    assert list(state.abnat) == totals
    assert sum(totals) == (130 if trump < 0 else 162)
    assert state.dealer == (dealer + 1) % 4 or state.phase is Phase.MATCH_OVER


UNIVERSE = [
    *(Bid(kind, s) for kind in BidKind for s in (-1, 0, 1, 2, 3)),
    *(Doubling(call, m) for call in DoublingCall for m in (None, PlayMode.OPEN, PlayMode.CLOSED)),
    *(Play(c, a) for c in range(32) for a in (False, True)),
    ClaimSawa(),
    Declare((ProjectKind.SIRA,)),
    Declare((ProjectKind.FIFTY,)),
    Declare((ProjectKind.HUNDRED,)),
    Declare((ProjectKind.FOUR_HUNDRED,)),
    Declare((ProjectKind.SIRA, ProjectKind.SIRA)),
]


def _alias(state: State, seat: int, action: object) -> bool:
    """Documented short forms (docs/rules.md §14): a bid may omit a suit that is already fixed.

    A round-1 Hokm naming no suit bids the revealed suit; confirming a Hokm named with its suit
    may omit the suit.
    """
    if state.phase is not Phase.BIDDING or seat != state.turn:
        return False
    legal = legal_actions(state, seat)
    if action == Bid(BidKind.HOKM) and state.bidding_round == 1:
        return Bid(BidKind.HOKM, state.revealed // 8) in legal
    if action == Bid(BidKind.CONFIRM_HOKM) and state.pending_suit >= 0:
        return Bid(BidKind.CONFIRM_HOKM, state.pending_suit) in legal
    return False


@settings(max_examples=30, deadline=None)
@given(rules=st.sampled_from([SEEDS, KAMMELNA]), rng=st.randoms(use_true_random=False))
def test_actions_outside_the_legal_set_are_refused_and_change_nothing(
    rules: RuleSet, rng: random.Random
) -> None:
    state = new_match(rules, dealer=0)
    state = act(state, 0, Deal(tuple(rng.sample(range(32), 32))))
    steps = 0
    while state.phase in (Phase.BIDDING, Phase.DOUBLING, Phase.PLAYING):
        steps += 1
        assert steps < 80
        seat = rng.randrange(4)
        legal = legal_actions(state, seat)
        snapshot = repr(state)
        for action in UNIVERSE:
            if action in legal:
                apply(state, seat, action)  # every listed action is accepted
            elif not _alias(state, seat, action):
                with pytest.raises(RuleError):
                    apply(state, seat, action)
        assert repr(state) == snapshot
        assert validate(state) == []
        state = act(state, state.turn, rng.choice(legal_actions(state, state.turn)))


# --- R33: the 10 for the last trick belongs to the 8th trick ---------------------------------


def test_the_eighth_trick_and_the_running_abnat_carry_the_last_trick_ten() -> None:
    # Hokm hearts bought by seat 1, who holds every heart: he wins every trick. Each seat
    # plays its cards from the 7 up, so trick k holds the four cards of one rank.
    state = hokm(L6)
    order = ("7", "8", "9", "10", "J", "Q", "K", "A")
    suits = {1: "H", 2: "S", 3: "D", 0: "C"}
    won = []
    for rank_code in order:
        for _ in range(4):
            seat = state.turn
            state, events = act_events(state, seat, P(rank_code + suits[seat]))
            won += [e.points for e in events if e.kind is EventKind.TRICK_WON]
        if rank_code == "K":
            # Seven tricks: 0 + 0 + 14 + 40 + (20 + 2 + 2 + 2) + 12 + 16 = 108, no bonus yet.
            assert state.abnat == (0, 108)
    # 7s 0; 8s 0; 9H 14; 10s 40; JH 20 + 3 × 2; Qs 12; Ks 16; As 44, plus the 10 of the last.
    assert won == [0, 0, 14, 40, 26, 12, 16, 44 + 10]
    assert state.abnat == (0, 162)
    score = state.last_score
    assert score is not None
    assert [t.card_abnat for t in score.teams] == [0, 162]
