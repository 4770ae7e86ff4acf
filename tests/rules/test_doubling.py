"""Doubling (R13-R16, §A.13 item 9): the Hokm chain, open/closed, Sun doubling, the window."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baloot_engine.rules import errors
from baloot_engine.rules.actions import Bid, BidKind, Doubling, DoublingCall, EventKind
from baloot_engine.rules.contract import PlayMode
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.game import apply, legal_actions
from baloot_engine.rules.ruleset import (
    FEDERATION,
    SEEDS,
    ClosedChooser,
    DoublingWindow,
    RuleSet,
    ScoreBoundary,
)
from baloot_engine.rules.state import DoublingStep, Phase, State
from baloot_engine.rules.validation import validate

from .scenario import (
    act,
    act_events,
    build_deck,
    buy_hokm,
    buy_sun,
    codes,
    dealt,
    decline_all,
    play,
    refuse,
    table,
)
from .strategies import doubling_rules

DOUBLE, TRIPLE, FOUR, GAHWA = (
    DoublingCall.DOUBLE,
    DoublingCall.TRIPLE,
    DoublingCall.FOUR,
    DoublingCall.GAHWA,
)

DECLINE, CHOOSE = DoublingCall.DECLINE, DoublingCall.CHOOSE_MODE
OPEN, CLOSED = PlayMode.OPEN, PlayMode.CLOSED
DEALER = 0
R, O, L, DD = table(DEALER)  # noqa: E741 - seats 1, 2, 3, 0 (DD: the dealer)
IDENTITY = tuple(range(32))
DECK = build_deck(revealed="10H")


def hokm_by(buyer: int, rules: RuleSet = SEEDS, scores: tuple[int, int] = (0, 0)) -> State:
    return buy_hokm(dealt(DECK, rules=rules, match_scores=scores), buyer)


def calls(state: State, seat: int) -> set[Doubling]:
    return {a for a in legal_actions(state, seat) if isinstance(a, Doubling)}


def call(state: State, seat: int, kind: DoublingCall, mode: PlayMode | None = None) -> State:
    return act(state, seat, Doubling(kind, mode))


def raise_options(kind: DoublingCall) -> set[Doubling]:
    return {Doubling(kind, OPEN), Doubling(kind, CLOSED), Doubling(DECLINE)}


def asked(state: State) -> tuple[int, ...]:
    return state.to_ask


# --- R13: the Hokm chain -------------------------------------------------------------------


@pytest.mark.parametrize("buyer", [R, O, L, DD])
def test_hokm_double_is_asked_of_the_defenders_in_order_after_the_buyer(buyer: int) -> None:
    state = hokm_by(buyer)
    assert state.phase is Phase.DOUBLING
    assert state.doubling_step is DoublingStep.DOUBLE
    first, second = (buyer + 1) % 4, (buyer + 3) % 4
    assert state.turn == first
    assert calls(state, first) == raise_options(DOUBLE)
    for seat in (buyer, (buyer + 2) % 4, second):
        assert calls(state, seat) == set()
        refuse(state, seat, Doubling(DOUBLE, OPEN), errors.NOT_YOUR_TURN)
    state = call(state, first, DECLINE)
    assert state.phase is Phase.DOUBLING  # one decline does not end the step
    assert state.turn == second
    assert calls(state, second) == raise_options(DOUBLE)
    state = call(state, second, DECLINE)
    assert state.phase is Phase.PLAYING
    assert state.contract is not None
    assert state.contract.multiplier == 1
    assert not state.contract.closed


def test_the_full_chain_in_order() -> None:
    state = hokm_by(R)  # defenders O, D; buyers R, L
    state = call(state, O, DOUBLE, CLOSED)
    assert state.contract is not None
    assert state.contract.multiplier == 2
    assert state.doubling_step is DoublingStep.TRIPLE
    assert asked(state) == (L, R)  # buyer team, from the seat after the doubler O
    assert calls(state, L) == {Doubling(TRIPLE), Doubling(DECLINE)}
    state = call(state, L, DECLINE)
    state = call(state, R, TRIPLE)
    assert state.contract.multiplier == 3
    assert state.doubling_step is DoublingStep.FOUR
    assert asked(state) == (O, DD)  # defenders, from the seat after R
    assert calls(state, O) == raise_options(FOUR)
    state = call(state, O, DECLINE)
    state = call(state, DD, FOUR, OPEN)
    assert state.contract.multiplier == 4
    assert state.doubling_step is DoublingStep.GAHWA
    assert asked(state) == (R, L)  # buyers, from the seat after D
    assert calls(state, R) == {Doubling(GAHWA), Doubling(DECLINE)}
    state = call(state, R, DECLINE)
    state, events = act_events(state, L, Doubling(GAHWA))
    assert state.phase is Phase.PLAYING
    assert state.contract.gahwa
    assert [e.kind for e in events if e.kind is EventKind.DOUBLING_ENDED] == [
        EventKind.DOUBLING_ENDED
    ]


def test_the_first_to_accept_raises_and_the_step_passes_to_the_other_team() -> None:
    state = call(hokm_by(R), O, DOUBLE, OPEN)
    assert DD not in asked(state)
    refuse(state, DD, Doubling(DOUBLE, OPEN), errors.NOT_YOUR_TURN)


@pytest.mark.parametrize(
    ("script", "multiplier"),
    [
        ([(O, DOUBLE, OPEN), (L, DECLINE, None), (R, DECLINE, None)], 2),
        ([(O, DOUBLE, OPEN), (L, TRIPLE, None), (DD, DECLINE, None), (O, DECLINE, None)], 3),
        (
            [
                (O, DOUBLE, OPEN),
                (L, TRIPLE, None),
                (DD, FOUR, OPEN),
                (R, DECLINE, None),
                (L, DECLINE, None),
            ],
            4,
        ),
    ],
    ids=["after double", "after triple", "after four"],
)
def test_both_declines_end_the_chain_at_every_step(
    script: list[tuple[int, DoublingCall, PlayMode | None]], multiplier: int
) -> None:
    state = hokm_by(R)
    for seat, kind, mode in script:
        assert state.phase is Phase.DOUBLING
        state = call(state, seat, kind, mode)
    assert state.phase is Phase.PLAYING
    assert state.contract is not None
    assert state.contract.multiplier == multiplier
    assert not state.contract.gahwa


def test_calls_of_the_wrong_step_are_refused() -> None:
    state = hokm_by(R)
    refuse(state, O, Doubling(TRIPLE), errors.DOUBLE_NOT_ALLOWED)
    refuse(state, O, Doubling(GAHWA), errors.DOUBLE_NOT_ALLOWED)
    refuse(state, O, Doubling(FOUR, OPEN), errors.DOUBLE_NOT_ALLOWED)
    state = call(state, O, DOUBLE, OPEN)
    refuse(state, L, Doubling(DOUBLE, OPEN), errors.DOUBLE_NOT_ALLOWED)
    refuse(state, L, Doubling(FOUR, OPEN), errors.DOUBLE_NOT_ALLOWED)
    refuse(state, L, Bid(BidKind.PASS), errors.WRONG_PHASE)


BUYER_ONLY = SEEDS.replace(buyer_steps_by_buyer_only=True)


def test_buyer_steps_by_buyer_only_asks_only_the_buyer_for_triple() -> None:
    state = call(hokm_by(R, BUYER_ONLY), O, DOUBLE, OPEN)
    assert asked(state) == (R,)  # by default L would be asked first
    refuse(state, L, Doubling(TRIPLE), errors.NOT_YOUR_TURN)
    ended = call(state, R, DECLINE)
    assert ended.phase is Phase.PLAYING
    assert ended.contract is not None
    assert ended.contract.multiplier == 2


def test_buyer_steps_by_buyer_only_asks_only_the_buyer_for_gahwa() -> None:
    state = call(hokm_by(R, BUYER_ONLY), O, DOUBLE, OPEN)
    state = call(state, R, TRIPLE)
    assert asked(state) == (O, DD)  # the defenders' step keeps both players
    state = call(state, O, FOUR, OPEN)
    assert asked(state) == (R,)
    refuse(state, L, Doubling(GAHWA), errors.NOT_YOUR_TURN)
    assert call(state, R, GAHWA).contract.gahwa  # type: ignore[union-attr]


# --- R14: open / closed ---------------------------------------------------------------------


def mode_after(script: list[tuple[int, DoublingCall, PlayMode | None]], rules: RuleSet) -> State:
    state = hokm_by(R, rules)
    for seat, kind, mode in script:
        state = call(state, seat, kind, mode)
    return decline_all(state)


@pytest.mark.parametrize("mode", [OPEN, CLOSED])
def test_the_doubler_names_the_mode(mode: PlayMode) -> None:
    state = mode_after([(O, DOUBLE, mode)], SEEDS)
    assert state.contract is not None
    assert state.contract.mode is mode


def test_double_and_four_require_a_mode() -> None:
    state = hokm_by(R)
    refuse(state, O, Doubling(DOUBLE), errors.MODE_REQUIRED)
    state = call(call(state, O, DOUBLE, OPEN), L, TRIPLE)
    refuse(state, DD, Doubling(FOUR), errors.MODE_REQUIRED)


def test_triple_keeps_the_mode() -> None:
    state = mode_after([(O, DOUBLE, CLOSED), (L, TRIPLE, None)], SEEDS)
    assert state.contract is not None
    assert state.contract.multiplier == 3
    assert state.contract.mode is CLOSED
    state = call(hokm_by(R), O, DOUBLE, CLOSED)
    with pytest.raises(RuleError):
        apply(state, L, Doubling(TRIPLE, OPEN))


@pytest.mark.parametrize(("first", "second"), [(OPEN, CLOSED), (CLOSED, OPEN)])
def test_four_names_the_mode_again(first: PlayMode, second: PlayMode) -> None:
    script = [(O, DOUBLE, first), (L, TRIPLE, None), (DD, FOUR, second)]
    state = mode_after(script, SEEDS)
    assert state.contract is not None
    assert state.contract.multiplier == 4
    assert state.contract.mode is second


GAHWA_SCRIPT: list[tuple[int, DoublingCall, PlayMode | None]] = [
    (O, DOUBLE, CLOSED),
    (L, TRIPLE, None),
    (DD, FOUR, CLOSED),
    (R, GAHWA, None),
]


def test_gahwa_is_played_open() -> None:
    state = mode_after(GAHWA_SCRIPT, SEEDS)
    assert state.phase is Phase.PLAYING
    assert state.contract is not None
    assert state.contract.gahwa
    assert state.contract.mode is OPEN


def test_gahwa_keeps_the_mode_when_gahwa_forces_open_is_off() -> None:
    state = mode_after(GAHWA_SCRIPT, SEEDS.replace(gahwa_forces_open=False))
    assert state.contract is not None
    assert state.contract.gahwa
    assert state.contract.mode is CLOSED


BUYER_CHOOSES = SEEDS.replace(closed_chooser=ClosedChooser.BUYER)


def test_closed_chooser_buyer_names_the_mode_after_the_chain() -> None:
    state = hokm_by(R, BUYER_CHOOSES)
    assert calls(state, O) == {Doubling(DOUBLE), Doubling(DECLINE)}
    state = call(state, O, DOUBLE)
    state = call(call(state, L, DECLINE), R, DECLINE)
    assert state.phase is Phase.DOUBLING
    assert state.doubling_step is DoublingStep.CHOOSE_MODE
    assert state.turn == R
    assert calls(state, R) == {Doubling(CHOOSE, OPEN), Doubling(CHOOSE, CLOSED)}
    for seat in (O, L, DD):
        refuse(state, seat, Doubling(CHOOSE, CLOSED), errors.NOT_YOUR_TURN)
    closed = call(state, R, CHOOSE, CLOSED)
    assert closed.phase is Phase.PLAYING
    assert closed.contract is not None
    assert closed.contract.mode is CLOSED
    opened = call(state, R, CHOOSE, OPEN)
    assert opened.contract is not None
    assert opened.contract.mode is OPEN


def test_closed_chooser_buyer_four_names_no_mode_either() -> None:
    state = call(call(hokm_by(R, BUYER_CHOOSES), O, DOUBLE), L, TRIPLE)
    assert asked(state) == (DD, O)  # defenders, from the seat after the tripler L
    assert calls(state, DD) == {Doubling(FOUR), Doubling(DECLINE)}
    with pytest.raises(RuleError):
        apply(state, DD, Doubling(FOUR, CLOSED))


def test_closed_chooser_buyer_nothing_to_choose_without_a_double() -> None:
    state = decline_all(hokm_by(R, BUYER_CHOOSES))
    assert state.phase is Phase.PLAYING
    assert state.contract is not None
    assert state.contract.mode is OPEN


def test_closed_chooser_buyer_nothing_to_choose_after_an_open_gahwa() -> None:
    state = hokm_by(R, BUYER_CHOOSES)
    for seat, kind in ((O, DOUBLE), (L, TRIPLE), (DD, FOUR), (R, GAHWA)):
        state = call(state, seat, kind)
    assert state.phase is Phase.PLAYING
    assert state.contract is not None
    assert state.contract.mode is OPEN


def test_closed_chooser_buyer_chooses_after_gahwa_when_not_forced_open() -> None:
    state = hokm_by(R, BUYER_CHOOSES.replace(gahwa_forces_open=False))
    for seat, kind in ((O, DOUBLE), (L, TRIPLE), (DD, FOUR), (R, GAHWA)):
        state = call(state, seat, kind)
    assert state.doubling_step is DoublingStep.CHOOSE_MODE
    assert state.turn == R
    state = call(state, R, CHOOSE, CLOSED)
    assert state.contract is not None
    assert state.contract.mode is CLOSED


# --- R15: Sun and Ashkal doubling ----------------------------------------------------------


def sun_by(
    buyer: int, buyer_score: int, defender_score: int, rules: RuleSet = SEEDS, ashkal: bool = False
) -> State:
    scores = [0, 0]
    scores[buyer % 2] = buyer_score
    scores[1 - buyer % 2] = defender_score
    state = dealt(DECK, rules=rules, match_scores=(scores[0], scores[1]))
    return buy_sun(state, buyer, ashkal=ashkal)


STRICT, INCLUSIVE = ScoreBoundary.STRICT, ScoreBoundary.INCLUSIVE
SUN_CASES = [
    # buyer score, defender score, buyer_min, defender_max, doubling allowed
    (101, 99, STRICT, STRICT, True),
    (150, 0, STRICT, STRICT, True),
    (100, 99, STRICT, STRICT, False),
    (101, 100, STRICT, STRICT, False),
    (99, 50, STRICT, STRICT, False),
    (0, 0, STRICT, STRICT, False),
    (120, 120, STRICT, STRICT, False),
    (50, 120, STRICT, STRICT, False),
    (100, 99, INCLUSIVE, STRICT, True),
    (99, 99, INCLUSIVE, STRICT, False),
    (100, 100, INCLUSIVE, STRICT, False),
    (101, 100, STRICT, INCLUSIVE, True),
    (101, 101, STRICT, INCLUSIVE, False),
    (100, 100, STRICT, INCLUSIVE, False),
    (100, 100, INCLUSIVE, INCLUSIVE, True),
    (99, 100, INCLUSIVE, INCLUSIVE, False),
    (100, 101, INCLUSIVE, INCLUSIVE, False),
]


@pytest.mark.parametrize(("buyer_score", "defender_score", "bmin", "dmax", "allowed"), SUN_CASES)
@pytest.mark.parametrize("buyer", [R, DD])
def test_sun_double_only_when_buyers_are_above_and_defenders_below_100(
    buyer: int,
    buyer_score: int,
    defender_score: int,
    bmin: ScoreBoundary,
    dmax: ScoreBoundary,
    allowed: bool,
) -> None:
    rules = SEEDS.replace(sun_double_buyer_min=bmin, sun_double_defender_max=dmax)
    state = sun_by(buyer, buyer_score, defender_score, rules)
    if not allowed:
        assert state.phase is Phase.PLAYING
        assert state.contract is not None
        assert state.contract.multiplier == 1
        return
    assert state.phase is Phase.DOUBLING
    first = (buyer + 1) % 4
    assert state.turn == first
    assert calls(state, first) == {Doubling(DOUBLE), Doubling(DECLINE)}
    assert asked(state) == (first, (buyer + 3) % 4)


def test_sun_double_is_the_only_step_and_has_no_mode() -> None:
    state = sun_by(R, 120, 40)
    with pytest.raises(RuleError):
        apply(state, O, Doubling(DOUBLE, CLOSED))
    doubled = call(state, O, DOUBLE)
    assert doubled.phase is Phase.PLAYING
    assert doubled.contract is not None
    assert doubled.contract.multiplier == 2
    assert not doubled.contract.closed
    assert not doubled.contract.gahwa
    refuse(doubled, L, Doubling(TRIPLE), errors.WRONG_PHASE)


def test_sun_double_declined_by_both() -> None:
    state = call(call(sun_by(R, 120, 40), O, DECLINE), DD, DECLINE)
    assert state.phase is Phase.PLAYING
    assert state.contract is not None
    assert state.contract.multiplier == 1


@pytest.mark.parametrize(
    ("buyer_score", "defender_score", "allowed"), [(101, 99, True), (90, 10, False)]
)
def test_ashkal_doubling_follows_the_sun_rule(
    buyer_score: int, defender_score: int, allowed: bool
) -> None:
    state = sun_by(L, buyer_score, defender_score, ashkal=True)
    assert state.contract is not None
    assert state.contract.ashkal
    assert (state.phase is Phase.DOUBLING) is allowed
    if allowed:
        assert state.turn == DD  # the first defender after the caller L
        assert calls(state, DD) == {Doubling(DOUBLE), Doubling(DECLINE)}


@pytest.mark.parametrize("scores", [(0, 0), (151, 0), (0, 151), (120, 120), (10, 140)])
def test_hokm_doubling_is_open_at_any_match_score(scores: tuple[int, int]) -> None:
    state = hokm_by(R, scores=scores)
    assert state.phase is Phase.DOUBLING
    assert calls(state, O) == raise_options(DOUBLE)


def test_a_round2_hokm_opens_the_same_chain() -> None:
    state = dealt(DECK)
    for _ in range(4):
        state = act(state, state.turn, Bid(BidKind.PASS))
    state = act(state, R, Bid(BidKind.HOKM, 0))
    for _ in range(3):
        state = act(state, state.turn, Bid(BidKind.PASS))
    state = act(state, R, Bid(BidKind.CONFIRM_HOKM, 0))
    assert state.phase is Phase.DOUBLING
    assert state.turn == O
    assert calls(state, O) == raise_options(DOUBLE)


@pytest.mark.parametrize(("scores", "doubling"), [((0, 0), False), ((50, 120), True)])
def test_a_hokm_switched_to_sun_follows_the_sun_rule(
    scores: tuple[int, int], doubling: bool
) -> None:
    state = dealt(DECK, match_scores=scores)  # R = seat 1 is in team 1
    state = act(state, R, Bid(BidKind.HOKM))
    for _ in range(3):
        state = act(state, state.turn, Bid(BidKind.PASS))
    state = act(state, R, Bid(BidKind.SWITCH_TO_SUN))
    assert state.contract is not None
    assert state.contract.is_sun
    assert (state.phase is Phase.DOUBLING) is doubling
    if doubling:
        assert calls(state, O) == {Doubling(DOUBLE), Doubling(DECLINE)}


def test_closed_chooser_buyer_has_nothing_to_choose_in_sun() -> None:
    state = call(sun_by(R, 120, 40, BUYER_CHOOSES), O, DOUBLE)
    assert state.phase is Phase.PLAYING
    assert state.contract is not None
    assert state.contract.multiplier == 2
    assert not state.contract.closed


# --- R16: the doubling window ----------------------------------------------------------------


def test_by_default_doubling_comes_after_the_deal_is_complete() -> None:
    state = buy_hokm(dealt(IDENTITY), R)
    assert state.phase is Phase.DOUBLING
    assert [h.bit_count() for h in state.hands] == [8, 8, 8, 8]
    assert state.stock == ()
    assert state.revealed == -1
    sun = sun_by(R, 120, 10)
    assert sun.phase is Phase.DOUBLING
    assert [h.bit_count() for h in sun.hands] == [8, 8, 8, 8]


def test_no_doubling_once_play_has_started() -> None:
    state = decline_all(hokm_by(R))
    assert state.phase is Phase.PLAYING
    for seat in range(4):
        assert calls(state, seat) == set()
        refuse(state, seat, Doubling(DOUBLE, OPEN), errors.WRONG_PHASE)
    first = next(iter(codes(state.hands[state.turn] & -state.hands[state.turn])))
    state = play(state, first)
    for seat in range(4):
        refuse(state, seat, Doubling(DOUBLE, CLOSED), errors.WRONG_PHASE)


EARLY = SEEDS.replace(doubling_window=DoublingWindow.BEFORE_BUYER_COMPLETION)


@pytest.mark.parametrize(
    ("buyer_pos", "late"),
    [(0, (20, 21, 22)), (1, (20, 24, 25)), (3, (20, 30, 31))],
    ids=["R buys", "O buys", "D buys"],
)
def test_before_buyer_completion_the_buyers_last_cards_wait_for_the_chain(
    buyer_pos: int, late: tuple[int, ...]
) -> None:
    buyer = table(DEALER)[buyer_pos]
    state = buy_hokm(dealt(IDENTITY, rules=EARLY), buyer)
    assert state.phase is Phase.DOUBLING
    sizes = [h.bit_count() for h in state.hands]
    assert sizes == [5 if seat == buyer else 8 for seat in range(4)]
    assert state.revealed == 20
    assert sorted(state.stock) == list(late[1:])
    assert validate(state) == []
    final = decline_all(call(state, state.turn, DOUBLE, CLOSED))
    assert final.phase is Phase.PLAYING
    assert [h.bit_count() for h in final.hands] == [8, 8, 8, 8]
    assert final.stock == ()
    assert final.revealed == -1
    assert codes(late) <= codes(final.hands[buyer])
    everyone = 0
    for hand in final.hands:
        assert everyone & hand == 0
        everyone |= hand
    assert everyone == (1 << 32) - 1


def test_before_buyer_completion_completes_at_once_when_nothing_can_be_doubled() -> None:
    state = buy_sun(dealt(IDENTITY, rules=EARLY), R)  # Sun at 0-0: no doubling
    assert state.phase is Phase.PLAYING
    assert [h.bit_count() for h in state.hands] == [8, 8, 8, 8]


# --- property ------------------------------------------------------------------------------

RAISES = {DOUBLE: 2, TRIPLE: 3, FOUR: 4}


@settings(max_examples=300, deadline=None)
@given(rules=doubling_rules, buyer=st.integers(0, 3), data=st.data())
def test_random_doubling_chains_follow_r13_r14(
    rules: RuleSet, buyer: int, data: st.DataObject
) -> None:
    state = hokm_by(buyer, rules)
    buyer_team = buyer % 2
    expected_team = 1 - buyer_team  # the team of the step being asked
    last_caller = buyer
    multiplier, mode, gahwa = 1, OPEN, False
    doubler = -1
    steps = 0
    while state.phase is Phase.DOUBLING:
        steps += 1
        assert steps <= 10
        seat = state.turn
        if state.doubling_step is DoublingStep.CHOOSE_MODE:
            assert rules.closed_chooser is ClosedChooser.BUYER
            assert seat == buyer
        else:
            assert seat % 2 == expected_team
            team_seats = [
                s for s in ((last_caller + i) % 4 for i in (1, 2, 3)) if s % 2 == expected_team
            ]
            if rules.buyer_steps_by_buyer_only and expected_team == buyer_team:
                team_seats = [buyer]
            if rules.four_by_doubler_only and state.doubling_step is DoublingStep.FOUR:
                team_seats = [doubler]  # §A.14 F8: only the seat that doubled
            assert list(state.to_ask) == team_seats[len(team_seats) - len(state.to_ask) :]
        choice = data.draw(st.sampled_from(sorted(calls(state, seat), key=Doubling.sort_key)))
        state = act(state, seat, choice)
        if choice.call in RAISES:
            multiplier = RAISES[choice.call]
            if choice.mode is not None:
                mode = choice.mode
            if choice.call is DOUBLE:
                doubler = seat
            if choice.call is TRIPLE and rules.triple_opens:
                mode = OPEN  # §A.14 F8: a Triple opens the game
            expected_team = 1 - expected_team
            last_caller = seat
        elif choice.call is GAHWA:
            gahwa = True
        elif choice.call is CHOOSE:
            assert choice.mode is not None
            mode = choice.mode
    assert state.phase is Phase.PLAYING
    contract = state.contract
    assert contract is not None
    assert contract.multiplier == multiplier
    assert contract.gahwa is gahwa
    if gahwa and rules.gahwa_forces_open:
        mode = OPEN
    assert contract.mode is mode
    assert [h.bit_count() for h in state.hands] == [8, 8, 8, 8]


# --- §A.14 F8: the FEDERATION chain ------------------------------------------------------------


def test_federation_chain_triple_by_the_buyer_opens_and_four_only_by_the_doubler() -> None:
    state = hokm_by(R, FEDERATION)  # buyer R (seat 1), partner L; defenders O, D
    assert asked(state) == (O, DD)  # Double: both defenders, as in SEEDS
    state = call(state, O, DECLINE)
    state = call(state, DD, DOUBLE, CLOSED)  # the dealer doubles, closed
    assert state.contract is not None
    assert state.contract.closed
    # Triple: only the buyer (buyer_steps_by_buyer_only), not his partner L.
    assert asked(state) == (R,)
    assert calls(state, L) == set()
    refuse(state, L, Doubling(TRIPLE), errors.NOT_YOUR_TURN)
    state = call(state, R, TRIPLE)
    assert state.contract.multiplier == 3
    assert not state.contract.closed  # triple_opens: the Triple makes the game open
    # Four: only the player who doubled (the dealer), not his partner O who declined first.
    assert asked(state) == (DD,)
    assert calls(state, DD) == raise_options(FOUR)
    assert calls(state, O) == set()
    state = call(state, DD, FOUR, CLOSED)  # the Four may close it again
    assert state.contract.multiplier == 4
    assert state.contract.closed
    assert asked(state) == (R,)  # Gahwa: the buyer only
    state = call(state, R, GAHWA)
    assert state.phase is Phase.PLAYING
    assert state.contract.gahwa
    assert not state.contract.closed  # Gahwa is open
    assert validate(state) == []


def test_federation_the_doublers_decline_of_four_ends_the_chain() -> None:
    state = hokm_by(R, FEDERATION)
    state = call(state, O, DOUBLE, OPEN)
    state = call(state, R, TRIPLE)
    assert asked(state) == (O,)
    state = call(state, O, DECLINE)  # his partner D is never asked
    assert state.phase is Phase.PLAYING
    assert state.contract is not None
    assert state.contract.multiplier == 3


def test_triple_keeps_a_closed_game_closed_without_triple_opens() -> None:
    state = hokm_by(R, SEEDS.replace(four_by_doubler_only=True))
    state = call(state, O, DOUBLE, CLOSED)
    state = call(state, L, DECLINE)
    state = call(state, R, TRIPLE)
    assert state.contract is not None
    assert state.contract.closed  # SEEDS: Triple keeps the mode
    assert asked(state) == (O,)  # four_by_doubler_only alone: the doubler O only
