"""Bots in table play (R45): they never play an illegal card, and BASIC, STRONG and EXPERT call
Qayd as soon as what their seat may know proves a violation, and only then.

The hands are layout L1 of the rules tests: Hokm hearts bought by seat 1, dealer 0; seat 1
leads; team 1 is seats 1 and 3.
"""

from __future__ import annotations

import random

import pytest

from baloot_engine.bots import Level, suggest
from baloot_engine.bots.qayd import proven_call
from baloot_engine.bots.tracking import track
from baloot_engine.rules.actions import CallQayd, Deal, Play, QaydCategory
from baloot_engine.rules.cards import SUIT_MASKS, parse_card
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.game import apply, close_review, legal_actions, new_match
from baloot_engine.rules.observation import observe
from baloot_engine.rules.ruleset import SEEDS, RuleSet
from baloot_engine.rules.state import Phase, State
from tests.bots.games import SMALL, TINY_EXPERT
from tests.rules.scenario import L1, hokm, play
from tests.rules.strategies import (
    TABLE_PRESET_NAMES,
    TABLE_PRESETS,
    play_table_match,
    table_rules,
)

TABLE = SEEDS.replace(illegal_moves_allowed=True)
CALLERS = (Level.BASIC, Level.STRONG)


def card(code: str) -> int:
    return parse_card(code)


def lowest(state: State) -> State:
    """The seat on turn plays its lowest legal card."""
    plays = [a for a in legal_actions(state, state.turn) if isinstance(a, Play) and not a.akka]
    state, _ = apply(state, state.turn, plays[0])
    return state


def test_a_revoke_is_called_once_the_revoker_plays_the_suit() -> None:
    state = play(hokm(L1, TABLE), "AS", "AH")  # seat 2 revokes: it holds five spades
    expected = CallQayd(2, 1, card("AH"), QaydCategory.REVOKE)
    spades_by_2 = 0
    while state.phase is Phase.PLAYING:
        for seat in (1, 3):
            call = proven_call(observe(state, seat))
            if spades_by_2 == 0:
                assert call is None, state  # nothing proves it yet
            else:
                assert call == expected
        for seat in (0, 2):  # the revoker's own team never accuses itself
            assert proven_call(observe(state, seat)) is None
        if state.turn == 2:
            before = state.hands[2]
            state = lowest(state)
            spades_by_2 += ((before ^ state.hands[2]) & SUIT_MASKS[0]) != 0
        else:
            state = lowest(state)
        if spades_by_2:
            break
    assert spades_by_2
    for level in CALLERS:
        assert suggest(state, 3, level, seed=1, budget=SMALL) == expected
    # RANDOM never calls.
    assert not isinstance(suggest(state, state.turn, Level.RANDOM, seed=1), CallQayd)
    after, events = apply(state, 3, expected)
    assert events[0].qayd is not None
    assert events[0].qayd.correct
    assert after.phase is Phase.ROUND_OVER


def test_in_the_review_every_card_is_checked_against_the_known_hand() -> None:
    # Seat 0 is void in spades, holds trumps and throws AD: not trumping. Once it plays a trump
    # the breach is certain (it held that trump then), though not which duty it broke (a spade
    # still hidden would make it a revoke): a call naming no rule. The review, where all its
    # cards are known, names the rule.
    state = play(hokm(L1, TABLE), "AS", "QS", "QD", "AD")
    trump_shown = False
    while state.phase is Phase.PLAYING:
        for seat in (1, 3):
            call = proven_call(observe(state, seat))
            assert call == (CallQayd(0, 1, card("AD")) if trump_shown else None)
        if state.turn == 0:
            before = state.hands[0]
            state = lowest(state)
            trump_shown |= ((before ^ state.hands[0]) & SUIT_MASKS[1]) != 0
        else:
            state = lowest(state)
    assert trump_shown
    assert state.phase is Phase.ROUND_REVIEW
    expected = CallQayd(0, 1, card("AD"), QaydCategory.NO_TRUMP)
    for level in CALLERS:
        assert suggest(state, 1, level, seed=2, budget=SMALL) == expected
        assert suggest(state, 3, level, seed=2, budget=SMALL) == expected
    # The offending team has nothing to call, and says so clearly.
    with pytest.raises(RuleError, match="review"):
        suggest(state, 0, Level.BASIC, seed=2)


def test_a_false_akka_is_called_by_the_seat_holding_a_higher_card() -> None:
    rules = TABLE.replace(akka_requires_declaration=True)
    state = play(hokm(L1, rules), "KS!")  # AS and 10S are still out; seat 2 holds 10S
    expected = CallQayd(1, 1, card("KS"), QaydCategory.FALSE_AKKA)
    assert proven_call(observe(state, 2)) == expected
    assert proven_call(observe(state, 0)) is None  # seat 0 holds no spade: it cannot know
    assert suggest(state, 2, Level.BASIC, seed=3) == expected


def test_no_call_outside_table_play() -> None:
    state = play(hokm(L1), "AS", "QS")
    for seat in range(4):
        assert proven_call(observe(state, seat)) is None


@pytest.mark.parametrize("base", TABLE_PRESETS, ids=TABLE_PRESET_NAMES)
def test_bot_calls_are_always_right_and_never_depend_on_the_recorded_violations(
    base: RuleSet,
) -> None:
    rules = table_rules(base)
    calls = 0
    for seed in range(3):
        for state, _ in play_table_match(random.Random(seed), rules):
            if state.phase not in (Phase.PLAYING, Phase.ROUND_REVIEW):
                continue
            clean = state._replace(violations=())
            for seat in range(4):
                call = proven_call(observe(state, seat))
                assert call == proven_call(observe(clean, seat))
                if call is None:
                    continue
                calls += 1
                _, events = apply(state, seat, call)
                judged = [e.qayd for e in events if e.qayd is not None]
                assert len(judged) == 1
                assert judged[0].correct, (call, state.violations)
    assert calls


def test_the_least_hand_proves_breaches_the_patterns_do_not() -> None:
    # A breach is certain once the least hand the accused can have held makes the card
    # illegal: the taker kept the buy card's suit and threw another (known from the deal), a
    # seat threw a plain card and later showed a trump.
    # Such calls name no rule, and every one is judged right.
    kinds = {"known from the deal": 0, "shown later": 0}
    for index, base in enumerate(TABLE_PRESETS):
        rules = table_rules(base)
        for seed in range(4):
            for state, _ in play_table_match(random.Random(100 * index + seed), rules):
                if state.phase not in (Phase.PLAYING, Phase.ROUND_REVIEW):
                    continue
                for seat in range(4):
                    call = proven_call(observe(state, seat))
                    if call is None or call.category is not None:
                        continue
                    _, events = apply(state, seat, call)
                    assert [e.qayd.correct for e in events if e.qayd is not None] == [True]
                    later = [
                        c
                        for t in state.tricks[call.trick - 1 :]
                        for i, c in enumerate(t.cards)
                        if (t.leader + i) & 3 == call.accused and c != call.card
                    ]
                    later += [
                        c
                        for i, c in enumerate(state.trick)
                        if (state.leader + i) & 3 == call.accused
                    ]
                    kinds["shown later" if later else "known from the deal"] += 1
    assert all(kinds.values()), kinds


def test_bots_play_only_legal_cards_in_table_play() -> None:
    rules = table_rules(SEEDS)
    for seed in range(3):
        state = new_match(rules, dealer=seed)
        rng = random.Random(seed)
        for _ in range(400):
            if state.phase is Phase.MATCH_OVER:
                break
            if state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
                deck = list(range(32))
                rng.shuffle(deck)
                state, _ = apply(state, state.dealer, Deal(tuple(deck)))
                continue
            if state.phase is Phase.ROUND_REVIEW:
                state, _ = close_review(state)
                continue
            seat = state.turn
            action = suggest(state, seat, Level.BASIC, seed=seed)
            if not isinstance(action, CallQayd):
                assert action in legal_actions(state, seat)
            state, _ = apply(state, seat, action)
            assert state.violations == ()


def _table_play_states(base: RuleSet, seed: int, count: int) -> list[State]:
    """``count`` random table-play states with a seat to play a card, where half the cards
    played break a rule when they can (so revokes are common) and few are called."""
    states: list[State] = []
    rng = random.Random(f"table-{seed}")
    while len(states) < count:
        steps = play_table_match(rng, table_rules(base), cheat=0.5, call=0.02)
        states += [s for s, _ in steps if s.phase is Phase.PLAYING and s.turn >= 0]
    return states[:count]


@pytest.mark.parametrize("base", TABLE_PRESETS, ids=TABLE_PRESET_NAMES)
def test_the_tracker_takes_no_void_from_a_seat_that_may_have_revoked(base: RuleSet) -> None:
    # In table play a card off the suit led may be a revoke: the seat can still hold the suit.
    revoked = 0
    for state in _table_play_states(base, 1, 150):
        for seat in range(4):
            tracker = track(observe(state, seat))
            for other in range(4):
                if other != seat:
                    assert state.hands[other] & tracker.excluded[other] == 0, (seat, other)
        revoked += any(v.rule is QaydCategory.REVOKE for v in state.violations)
    assert revoked > 20


@pytest.mark.parametrize("base", TABLE_PRESETS, ids=TABLE_PRESET_NAMES)
def test_bots_at_every_level_act_on_every_random_table_play_state(base: RuleSet) -> None:
    for number, state in enumerate(_table_play_states(base, 2, 150)):
        for level in Level:
            action = suggest(
                state, state.turn, level, seed=number, budget=SMALL, expert=TINY_EXPERT
            )
            assert isinstance(action, CallQayd) or action in legal_actions(state, state.turn)
