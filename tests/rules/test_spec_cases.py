"""Worked cases of the rules reference, each computed by hand from its text.

Seats as in the reference's examples (dealer South): E = 0 (dealer's right), N = 1, W = 2,
S = 3; team 0 is East-West, team 1 North-South. Every expected number is worked out in the
comment beside the case, from the rule or table row it cites, not from the engine.
"""

from __future__ import annotations

import random

import pytest

from baloot_engine.rules import errors
from baloot_engine.rules.actions import (
    Bid,
    BidKind,
    Declare,
    Doubling,
    DoublingCall,
    EventKind,
    Play,
)
from baloot_engine.rules.cards import format_card, parse_card, parse_cards
from baloot_engine.rules.contract import ContractType, PlayMode
from baloot_engine.rules.game import legal_actions
from baloot_engine.rules.ruleset import FEDERATION, SEEDS, RuleSet
from baloot_engine.rules.scoring import score_round
from baloot_engine.rules.state import Phase, State

from .builders import EW, FIFTY, HUNDRED, NS, SIRA, SUN, facts
from .scenario import (
    L1,
    L6,
    act,
    act_events,
    bid,
    build_deck,
    buy_hokm,
    buy_sun,
    dealt,
    first_legal_play,
    hokm,
    hokm_hand,
    pass_rest,
    pass_until,
    play_out,
    refuse,
    sun_hand,
    table,
)

# The worked cases that are facts and expected values (F1-F6, F9, F11's Baloot absorption,
# F11 + F1, F12, KAMMELNA's Baloot on failure, §B.1 CV1, CV2 and CP1) are data in
# tests/golden/rule_cases.json, checked by tests/golden/test_rule_cases.py. The cases here
# are a property over every abnat, or a game driven move by move.


# --- F3: only the defenders' card points are converted (through score_round) --------------


def test_f3_sun_defenders_points_are_even_and_buyer_keeps_the_rest() -> None:
    # F3: "the defenders' Sun GP is always even"; buyer + defenders = 26 on every success.
    for defenders in (d for d in range(66) if d != 1):  # 1 abnat: no set of cards
        tricks = (7, 1) if defenders <= 28 else (4, 4)  # one trick holds at most 28
        score = score_round(
            facts(SUN, (130 - defenders, defenders), buyer=EW, tricks=tricks), FEDERATION
        )
        assert score.points[NS] % 2 == 0, defenders
        assert sum(score.points) == 26, defenders


# --- F11: Baloot against four Kings/Queens and runs, through play ---------------------------


def _deal_around(holder_hand: str) -> dict[int, str]:
    # Seat 1 holds ``holder_hand``; the other 24 cards go to seats 2, 3 and 0 in order.
    held = set(parse_cards(holder_hand))
    rest = [format_card(c) for c in range(32) if c not in held]
    hands = {1: holder_hand}
    for index, seat in enumerate((2, 3, 0)):
        hands[seat] = " ".join(rest[index * 8 : index * 8 + 8])
    return hands


@pytest.mark.parametrize(
    ("holder_hand", "rules", "baloot"),
    [
        # Four Kings (with KH of trump): FEDERATION does not count the Baloot; SEEDS does.
        ("KS KH KD KC QH 7S 8S 7D", FEDERATION, 0),
        ("KS KH KD KC QH 7S 8S 7D", SEEDS, 2),
        # A run Hundred 9H-KH holding K+Q of trump: FEDERATION counts it; SEEDS absorbs it.
        ("9H 10H JH QH KH 7S 8S 7D", FEDERATION, 2),
        ("9H 10H JH QH KH 7S 8S 7D", SEEDS, 0),
    ],
)
def test_f11_baloot_with_a_declared_hundred_in_play(
    holder_hand: str, rules: RuleSet, baloot: int
) -> None:
    # §A.14 F11 / R31 through play: seat 1 (R) buys Hokm hearts on KH, declares a Hundred
    # in trick 1 (nobody else declares, so it scores), and the hand is played out. The
    # Baloot points of both teams together are 2 when it counts, 0 when it is taken in.
    state = hokm_hand(_deal_around(holder_hand), "KH", buyer=1, rules=rules)
    state = act(state, 1, Declare((HUNDRED,)))
    state = play_out(state, random.Random(7))
    assert state.last_score is not None
    assert sum(t.baloot_points for t in state.last_score.teams) == baloot


# --- game-level cases: dealer seat 0, so R = 1, O = 2, L = 3, D = 0 ------------------------

R, O, L, D = table(0)  # noqa: E741 - the rules name these seats
DOUBLE, TRIPLE, FOUR, GAHWA, DECLINE = (
    DoublingCall.DOUBLE,
    DoublingCall.TRIPLE,
    DoublingCall.FOUR,
    DoublingCall.GAHWA,
    DoublingCall.DECLINE,
)
OPEN, CLOSED = PlayMode.OPEN, PlayMode.CLOSED


def _bids(state: State, seat: int) -> set[BidKind]:
    return {a.kind for a in legal_actions(state, seat) if isinstance(a, Bid)}


def _calls(state: State, seat: int) -> set[Doubling]:
    return {a for a in legal_actions(state, seat) if isinstance(a, Doubling)}


def _any_double_offered(state: State) -> bool:
    return state.phase is Phase.DOUBLING and any(
        a.call is DOUBLE for seat in range(4) for a in _calls(state, seat)
    )


# --- F7: Sun double at 100 or less --------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "scores", "offered"),
    [
        # Buyer R (team 1) 101 > 100, defenders (team 0) exactly 100: FEDERATION "100 or
        # less" allows it, SEEDS "below 100" does not (R15).
        (FEDERATION, (100, 101), True),
        (SEEDS, (100, 101), False),
        # Defenders 101 > 100: never.
        (FEDERATION, (101, 120), False),
        # Buyer exactly 100: F7 "the buyer's side more than 100" -> not allowed.
        (FEDERATION, (50, 100), False),
        # Plain case, buyer 120 and defenders 50: both.
        (FEDERATION, (50, 120), True),
        (SEEDS, (50, 120), True),
    ],
)
def test_f7_sun_double_boundaries(rules: RuleSet, scores: tuple[int, int], offered: bool) -> None:
    # §A.14 F7 (7-1, 7-2): the doubling side has 100 or less, the buyer's side more than 100.
    state = buy_sun(dealt(build_deck(revealed="10H"), rules=rules, match_scores=scores), R)
    assert _any_double_offered(state) is offered


def test_f7_sun_double_only_no_triple() -> None:
    # F7 (7-1, 7-2) "Double only": buyer R (team 1) 120, defenders 90; O doubles the Sun
    # (a Sun double names no mode, R15); the buyer is offered no Triple and play starts x2.
    state = buy_sun(dealt(build_deck(revealed="10H"), rules=FEDERATION, match_scores=(90, 120)), R)
    state = act(state, state.turn, Doubling(DOUBLE))
    assert all(TRIPLE not in {a.call for a in _calls(state, seat)} for seat in range(4))
    if state.phase is Phase.DOUBLING:  # any remaining question can only be declined
        state = act(state, state.turn, Doubling(DECLINE))
    assert state.phase is Phase.PLAYING
    assert state.contract is not None
    assert state.contract.multiplier == 2


# --- F8: the Hokm chain ---------------------------------------------------------------------


def _hokm_by_r(rules: RuleSet = FEDERATION) -> State:
    return buy_hokm(dealt(build_deck(revealed="10H"), rules=rules), R)


def test_f8_double_may_be_open_or_closed() -> None:
    # F8 (7-5): "Double open unless the doubler names closed": the first defender (O) may
    # double open or closed.
    state = _hokm_by_r()
    assert state.turn == O
    assert {Doubling(DOUBLE, OPEN), Doubling(DOUBLE, CLOSED)} <= _calls(state, O)


def test_f8_a_double_naming_no_mode_is_open() -> None:
    # F8 (7-5): "Double open unless the doubler names closed": a Double with no mode named
    # is an open Double (x2, not closed).
    state = act(_hokm_by_r(), O, Doubling(DOUBLE))
    assert state.contract is not None
    assert state.contract.multiplier == 2
    assert not state.contract.closed
    # ... and it is recorded as the open Double it is.
    assert state.doubling_calls[-1].call == Doubling(DOUBLE, OPEN)


def test_f8_the_double_without_a_mode_is_federation_only() -> None:
    # R14 outside FEDERATION: a Double must name closed or open (MODE_REQUIRED); the same
    # call is an open Double only with double_open_by_default (F8).
    refuse(_hokm_by_r(SEEDS), O, Doubling(DOUBLE), errors.MODE_REQUIRED)
    rules = SEEDS.replace(double_open_by_default=True)
    state = act(_hokm_by_r(rules), O, Doubling(DOUBLE))
    assert state.contract is not None
    assert (state.contract.multiplier, state.contract.closed) == (2, False)
    # Outside it a Four must name its mode too (R14).
    state = act(
        _hokm_by_r(SEEDS.replace(buyer_steps_by_buyer_only=True)), O, Doubling(DOUBLE, CLOSED)
    )
    state = act(state, R, Doubling(TRIPLE))
    refuse(state, O, Doubling(FOUR), errors.MODE_REQUIRED)


def test_f8_a_four_without_a_mode_is_open_under_federation() -> None:
    # §A.15: under double_open_by_default "a Double or Four that names no mode is open"; a
    # Four that names closed still closes the game again.
    state = act(_hokm_by_r(), O, Doubling(DOUBLE, CLOSED))
    state = act(state, R, Doubling(TRIPLE))
    opened = act(state, O, Doubling(FOUR))
    assert opened.contract is not None
    assert (opened.contract.multiplier, opened.contract.closed) == (4, False)
    assert opened.doubling_calls[-1].call == Doubling(FOUR, OPEN)
    closed = act(state, O, Doubling(FOUR, CLOSED))
    assert closed.contract is not None
    assert (closed.contract.multiplier, closed.contract.closed) == (4, True)


def test_a_bare_four_opens_a_closed_game_under_double_open_by_default() -> None:
    # The flag alone, on SEEDS (whose Triple keeps a closed game closed): after a closed
    # Double and a Triple the game is still closed, and a Four naming no mode opens it.
    state = act(_hokm_by_r(SEEDS.replace(double_open_by_default=True)), O, Doubling(DOUBLE, CLOSED))
    state = act(state, state.turn, Doubling(TRIPLE))
    assert state.contract is not None
    assert state.contract.closed
    assert state.turn % 2 != R % 2  # a defender answers the Triple
    opened = act(state, state.turn, Doubling(FOUR))
    assert opened.contract is not None
    assert (opened.contract.multiplier, opened.contract.closed) == (4, False)
    assert opened.doubling_calls[-1].call == Doubling(FOUR, OPEN)


def test_f8_triple_only_by_the_buyer_and_it_opens_the_game() -> None:
    # F8: Triple only by the buyer (R), never by his partner L; after a closed Double the
    # Triple makes the game open.
    state = act(_hokm_by_r(), O, Doubling(DOUBLE, CLOSED))
    assert state.contract is not None
    assert state.contract.closed
    assert _calls(state, L) == set()
    assert Doubling(TRIPLE) in _calls(state, R)
    refuse(state, L, Doubling(TRIPLE), errors.NOT_YOUR_TURN)
    state = act(state, R, Doubling(TRIPLE))
    assert state.contract is not None
    assert state.contract.multiplier == 3
    assert not state.contract.closed


def test_f8_four_only_by_the_doubler_then_gahwa_by_the_buyer_open() -> None:
    # F8: Four only by the player who doubled (D here, after O declined), open or closed;
    # his partner O is not asked. Gahwa by the buyer, played open.
    state = act(_hokm_by_r(), O, Doubling(DECLINE))
    state = act(state, D, Doubling(DOUBLE, OPEN))
    state = act(state, R, Doubling(TRIPLE))
    assert _calls(state, O) == set()
    assert {Doubling(FOUR, OPEN), Doubling(FOUR, CLOSED)} <= _calls(state, D)
    state = act(state, D, Doubling(FOUR, CLOSED))
    assert state.contract is not None
    assert state.contract.closed
    assert _calls(state, L) == set()
    state = act(state, R, Doubling(GAHWA))
    assert state.phase is Phase.PLAYING
    assert state.contract is not None
    assert state.contract.gahwa
    assert not state.contract.closed


# --- F13: Ashkal only over a pending Hokm -------------------------------------------------


def test_f13_no_ashkal_without_a_pending_hokm() -> None:
    # F13 (8-1, 8-2, 9): only over a Hokm already bid in that lap. R and O pass: L may not
    # say Ashkal under FEDERATION; under SEEDS (R7) he may.
    for rules, allowed in ((FEDERATION, False), (SEEDS, True)):
        state = pass_until(dealt(build_deck(revealed="10H"), rules=rules), L)
        assert (BidKind.ASHKAL in _bids(state, L)) is allowed
    state = pass_until(dealt(build_deck(revealed="10H"), rules=FEDERATION), L)
    refused = refuse(state, L, Bid(BidKind.ASHKAL), errors.ASHKAL_NOT_ALLOWED)
    assert "only over a Hokm" in refused.message
    # A seat that may never say it is told so, not that a Hokm is missing.
    early = dealt(build_deck(revealed="10H"), rules=FEDERATION)
    refused = refuse(early, early.turn, Bid(BidKind.ASHKAL), errors.ASHKAL_NOT_ALLOWED)
    assert "only for the dealer and his left" in refused.message


def test_f13_ashkal_over_a_pending_hokm_in_round_one() -> None:
    # F13: R bids Hokm, O passes: L may say Ashkal; it is a Sun of L's team, caller = buyer.
    state = dealt(build_deck(revealed="10H"), rules=FEDERATION)
    state = bid(state, R, BidKind.HOKM)
    state = bid(state, O, BidKind.PASS)
    assert BidKind.ASHKAL in _bids(state, L)
    state = bid(state, L, BidKind.ASHKAL)
    assert state.contract is not None
    assert state.contract.type is ContractType.SUN
    assert state.contract.ashkal
    assert state.contract.buyer == L


def test_f13_ashkal_in_round_two_over_a_second_hokm() -> None:
    # F13: ashkal_in_round2 = true. Round 1 all pass; round 2: R Wala, O Hokm in spades
    # (not the revealed hearts), L Wala, D: Ashkal over the pending Hokm.
    state = pass_rest(dealt(build_deck(revealed="10H"), rules=FEDERATION))
    assert state.bidding_round == 2
    state = bid(state, R, BidKind.PASS)
    state = bid(state, O, BidKind.HOKM, 0)
    state = bid(state, L, BidKind.PASS)
    assert BidKind.ASHKAL in _bids(state, D)
    state = bid(state, D, BidKind.ASHKAL)
    assert state.contract is not None
    assert state.contract.ashkal
    assert state.contract.buyer == D


def test_f13_no_ashkal_in_round_two_after_saying_wala() -> None:
    # F13: "allowed in round 2 unless the caller said Wala". Round 2: R, O and L say Wala,
    # D bids Hokm in spades; L said Wala and gets no new chance (R8), and D's own Hokm
    # goes straight to his confirmation (R6: the dealer bid it).
    state = pass_rest(dealt(build_deck(revealed="10H"), rules=FEDERATION))
    for seat in (R, O, L):
        state = bid(state, seat, BidKind.PASS)
    state = bid(state, D, BidKind.HOKM, 0)
    assert state.turn == D
    assert _bids(state, L) == set()
    assert BidKind.ASHKAL not in _bids(state, D)
    assert BidKind.CONFIRM_HOKM in _bids(state, D)


# --- F14: the switch to Sun on an Ace, by the dealer's right only ----------------------------


@pytest.mark.parametrize(
    ("rules", "revealed", "bidder", "switch"),
    [
        (FEDERATION, "AH", R, True),  # the dealer's right may switch on an Ace
        (FEDERATION, "AH", O, False),  # F14: anyone else may not
        (FEDERATION, "AH", D, False),
        (FEDERATION, "10H", O, True),  # not an Ace: R6 as usual
        (SEEDS, "AH", O, True),  # SEEDS: R6 for everyone
    ],
)
def test_f14_ace_switch(rules: RuleSet, revealed: str, bidder: int, switch: bool) -> None:
    # §A.14 F14 (4-1): a round-1 Hokm on an Ace may be switched to Sun only by R.
    state = pass_until(dealt(build_deck(revealed=revealed), rules=rules), bidder)
    state = bid(state, bidder, BidKind.HOKM)
    state = pass_rest(state)
    assert state.turn == bidder
    options = _bids(state, bidder)
    assert BidKind.CONFIRM_HOKM in options
    assert (BidKind.SWITCH_TO_SUN in options) is switch


def test_f14_a_second_hokm_with_an_ace_revealed_may_be_switched_by_anyone() -> None:
    # F14 speaks of "a Hokm on it" (on the revealed Ace), i.e. a round-1 Hokm in the
    # revealed suit. A round-2 Hokm is in another suit, so R6 applies as usual: O bids
    # Hokm spades in round 2 with AH revealed and may still switch to Sun.
    state = pass_rest(dealt(build_deck(revealed="AH"), rules=FEDERATION))
    state = bid(state, R, BidKind.PASS)
    state = bid(state, O, BidKind.HOKM, 0)
    state = pass_rest(state)
    assert state.turn == O
    assert BidKind.SWITCH_TO_SUN in _bids(state, O)


# --- §A.14 rulings ---------------------------------------------------------------------------


def test_ruling_r33_the_last_tricks_ten_is_in_the_eighth_trick() -> None:
    # R33 ruling: the 10 of the last trick belongs to the 8th trick's event and to the
    # running abnat. Layout L6 (Hokm hearts, seat 1 holds every heart and leads). Seat 1
    # leads AH..7H; seats 2, 3, 0 follow with their spades, diamonds, clubs from A to 7.
    # Trick 1: AH 11 + AS 11 + AD 11 + AC 11 = 44; trick 8: 7H 0 + 7s 0 + 10 = 10.
    # Totals: hearts 62 + three suits 3 x 30 + 10 = 162, all to team 1.
    state = hokm(L6)
    order = ["A", "K", "Q", "J", "10", "9", "8", "7"]
    trick_points = []
    for rank in order:
        for suit in "HSDC":
            state, events = act_events(state, state.turn, Play(parse_card(rank + suit)))
            trick_points += [e.points for e in events if e.kind is EventKind.TRICK_WON]
            if len(trick_points) == 7 and suit == "C":
                assert state.abnat == (0, 152)
    # Hearts in Hokm: A 11, K 4, Q 3, J 20, 10 10, 9 14, 8 0, 7 0; others A 11, K 4, Q 3,
    # J 2, 10 10, 9 0, 8 0, 7 0.
    assert trick_points == [44, 16, 12, 26, 40, 14, 0, 10]
    assert state.last_score is not None
    assert state.last_score.teams[1].card_abnat == 162


def test_ruling_r27_a_sira_inside_a_longer_run_may_be_declared_and_compares_as_declared() -> None:
    # R27 ruling: seat 1 holds 7S-JS (a run of five) and declares only a Sira; seat 0 holds
    # 9D-QD and declares a Fifty. The comparison uses what was declared: Fifty > Sira, so
    # team 0 scores the projects (had seat 1 declared the Hundred, team 1 would).
    hands = {
        1: "7D 7S 8S 9S 10S JS 7H 8H",
        2: "QS AS JH KH AH KD AD 7C",
        3: "KS QH 10H 8D 9C JC KC AC",
        0: "9D 10D JD QD 9H 8C 10C QC",
    }
    for declared, team in (((HUNDRED,), 1), ((SIRA,), 0)):
        state = sun_hand(hands, "7D", buyer=1)
        # Declaring in trick 1 before one's own turn stays allowed (§A.14): seat 0 plays
        # fourth but declares while seat 1 is on turn.
        assert state.turn == 1
        state = act(state, 0, Declare((FIFTY,)))
        state = act(state, 1, Declare(declared))
        for card in ("7S", "AS", "KS", "8C"):
            state = act(state, state.turn, Play(parse_card(card)))
        state, _ = first_legal_play(state)  # compared at the first card of trick 2 (R28)
        assert state.project_team == team, declared


def test_ruling_r27_a_declared_sira_takes_the_best_sira_of_the_run() -> None:
    # R27 ruling + A.13 item 6 ("the engine assigns his best matching cards"): seat 1
    # holds 7S-JS and declares a Sira: its best Sira is 9S-10S-JS (top J). Seat 0 declares
    # a Sira 8D-9D-10D (top 10). Equal kind, higher top card (R29 step 4): team 1 scores.
    hands = {
        1: "7D 7S 8S 9S 10S JS 7H 8H",
        2: "QS AS JH KH AH KD AD 7C",
        3: "KS QH 10H JD 9C JC KC AC",
        0: "8D 9D 10D QD 9H 8C 10C QC",
    }
    state = sun_hand(hands, "7D", buyer=1)
    state = act(state, 0, Declare((SIRA,)))
    state = act(state, 1, Declare((SIRA,)))
    for card in ("7S", "AS", "KS", "8C"):
        state = act(state, state.turn, Play(parse_card(card)))
    state, _ = first_legal_play(state)  # compared at the first card of trick 2 (R28)
    assert state.project_team == 1


def test_ruling_r28_no_declaring_after_ones_first_card() -> None:
    # §A.14: R28 fixes only "before one's first card": once seat 1 has led, his own
    # declaration is closed (the earlier declaration before one's turn is the R27 case).
    state = hokm(L1)
    state = act(state, 1, Play(parse_card("AS")))
    refuse(state, 1, Declare((SIRA,)), errors.DECLARATION_CLOSED)


def test_ruling_r20_akka_not_offered_and_refused_without_declaration() -> None:
    # R20 ruling: with akka_requires_declaration off (SEEDS) no Akka play is offered and a
    # play that carries it is refused with AKKA_NOT_ALLOWED. Layout L1: seat 1 leads.
    state = hokm(L1)
    assert not SEEDS.akka_requires_declaration
    assert not any(isinstance(a, Play) and a.akka for a in legal_actions(state, 1))
    for card in ("AS", "KS", "10D"):
        refuse(state, 1, Play(parse_card(card), True), errors.AKKA_NOT_ALLOWED)
