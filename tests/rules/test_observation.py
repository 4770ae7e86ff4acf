"""The observation: what a seat may know, copied out of a state and nothing more.

A seat's observation differs from the public one only in the seat's own part; it does not
change when cards the seat cannot see move between the other hands and the stock; the cards
it names are the seat's own or cards that were laid on the table; and the projects and the
Baloot it shows are the ones the rules show (R28-R29, the Baloot once announced or scored).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.rules.strategies import PLAYING_PHASES, play_match, random_deck

from baloot_engine.rules.actions import Bid, BidKind, ClaimSawa, Deal
from baloot_engine.rules.cards import KING, QUEEN
from baloot_engine.rules.game import apply, legal_actions, new_match
from baloot_engine.rules.observation import PUBLIC, observe, observe_public, scored_baloot_seat
from baloot_engine.rules.ruleset import KAMMELNA, SEEDS, RuleSet
from baloot_engine.rules.state import LIVE_PHASES, Phase, State, shown_projects

VARIANTS = [SEEDS, KAMMELNA, SEEDS.replace(sawa=True, auto_declare_projects=True)]
SUN_BIDS = (BidKind.SUN, BidKind.ASHKAL, BidKind.SWITCH_TO_SUN, BidKind.CLAIM_SUN)


def match_states(rules: RuleSet, seed: int) -> list[State]:
    """Every state of a match played with random legal actions, buying Hokm rather than Sun.

    Random bidders end up in Sun most of the time, which has no Baloot; leaving the Sun bids
    out where another bid is legal makes most rounds Hokm.
    """
    rng = random.Random(seed)
    state = new_match(rules, dealer=rng.randrange(4))
    states = [state]
    while state.phase is not Phase.MATCH_OVER:
        if state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
            state, _ = apply(state, state.dealer, Deal(random_deck(rng)))
        else:
            seat = state.turn
            options = [a for a in legal_actions(state, seat) if not isinstance(a, ClaimSawa)]
            hokm = [a for a in options if not (isinstance(a, Bid) and a.kind in SUN_BIDS)]
            state, _ = apply(state, seat, rng.choice(hokm or options))
        states.append(state)
    return states


def cards(mask: int) -> list[int]:
    """The cards of a mask, ascending."""
    return [c for c in range(32) if mask >> c & 1]


def test_a_seat_outside_0_to_3_is_refused() -> None:
    state = match_states(SEEDS, 1)[3]
    for seat in (-1, 4, PUBLIC):
        with pytest.raises(ValueError, match="a seat is 0-3"):
            observe(state, seat)


@pytest.mark.parametrize("rules", VARIANTS, ids=["seeds", "kammelna", "custom"])
def test_a_seat_sees_the_public_observation_plus_its_own_part(rules: RuleSet) -> None:
    own_baloots = 0
    for seed in range(3):
        for state in match_states(rules, seed):
            public = observe_public(state)
            assert public.seat == PUBLIC
            assert (public.hand, public.full_hand, public.own_projects) == (0, 0, ())
            assert public.legal_actions == ()
            assert public.baloot_seat == (state.baloot_seat if state.baloot_announced else -1)
            for seat in range(4):
                mine = observe(state, seat)
                assert mine.seat == seat
                assert mine.hand == state.hands[seat]
                assert mine.full_hand == state.full_hands[seat]
                own = state.declarations[seat]
                assert mine.own_projects == (() if own is None else own.projects)
                assert mine.legal_actions == tuple(legal_actions(state, seat))
                # The Baloot: known to all once announced, to its holder from the start.
                if state.baloot_announced or state.baloot_seat == seat:
                    assert mine.baloot_seat == state.baloot_seat
                else:
                    assert mine.baloot_seat == -1
                own_baloots += state.baloot_seat == seat and not state.baloot_announced
                blanked = mine._replace(
                    seat=PUBLIC,
                    hand=0,
                    full_hand=0,
                    own_projects=(),
                    legal_actions=(),
                    baloot_seat=public.baloot_seat,
                )
                assert blanked == public
    assert own_baloots > 0


def swap_hidden(state: State, seat: int, rng: random.Random) -> State | None:
    """``state`` with one card exchanged between two hands ``seat`` cannot see (or between a
    hand and the stock), or None when there is nothing to exchange."""
    hands = list(state.hands)
    full = list(state.full_hands)
    pools = [s for s in range(4) if s != seat and hands[s]]
    stock = list(state.stock)
    if len(pools) < 2 and not stock:
        return None
    a = rng.choice(pools)
    x = rng.choice(cards(hands[a]))
    if stock and rng.random() < 0.5:
        i = rng.randrange(len(stock))
        y, stock[i] = stock[i], x
        hands[a] ^= 1 << x | 1 << y
        if full[a]:
            full[a] ^= 1 << x | 1 << y
    else:
        b = rng.choice([s for s in pools if s != a])
        y = rng.choice(cards(hands[b]))
        for masks in (hands, full) if full[a] else (hands,):
            masks[a] ^= 1 << x | 1 << y
            masks[b] ^= 1 << x | 1 << y
    return state._replace(
        hands=(hands[0], hands[1], hands[2], hands[3]),
        full_hands=(full[0], full[1], full[2], full[3]),
        stock=tuple(stock),
    )


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rules=st.sampled_from(VARIANTS))
def test_cards_a_seat_cannot_see_do_not_change_its_observation(seed: int, rules: RuleSet) -> None:
    rng = random.Random(seed)
    states = play_match(rng, rules) if rng.random() < 0.5 else match_states(rules, seed)
    live = [s for s in states if s.phase in PLAYING_PHASES]
    for state in rng.sample(live, min(40, len(live))):
        seat = rng.randrange(4)
        twin = swap_hidden(state, seat, rng)
        if twin is None:
            continue
        assert twin.hands != state.hands
        assert observe(twin, seat) == observe(state, seat)
        assert observe_public(twin) == observe_public(state)


@pytest.mark.parametrize("rules", VARIANTS, ids=["seeds", "kammelna", "custom"])
def test_no_card_of_another_hand_or_the_stock_is_named(rules: RuleSet) -> None:
    # Apart from the buy card (it lay face up) and the projects shown by the rules (R29).
    for seed in range(3):
        for state in match_states(rules, seed):
            for seat in (PUBLIC, 0, 1, 2, 3):
                obs = observe_public(state) if seat == PUBLIC else observe(state, seat)
                hidden = 0
                for other in range(4):
                    if other != seat:
                        hidden |= state.hands[other]
                for card in state.stock:
                    hidden |= 1 << card
                table = 0
                for record in obs.tricks:
                    for card in record.cards:
                        table |= 1 << card
                assert obs.played == table
                named = obs.hand | obs.full_hand | table
                for card in obs.trick:
                    named |= 1 << card
                for project in obs.own_projects:
                    named |= project.cards
                for action in obs.legal_actions:
                    card = getattr(action, "card", None)
                    if card is not None:
                        assert obs.hand >> card & 1
                assert named & hidden == 0
                assert obs.hand_sizes == tuple(h.bit_count() for h in state.hands)


@pytest.mark.parametrize("rules", VARIANTS, ids=["seeds", "kammelna", "custom"])
def test_projects_are_shown_once_compared_and_only_the_winning_teams(rules: RuleSet) -> None:
    shown_states = 0
    for seed in range(3):
        for state in match_states(rules, seed):
            obs = observe_public(state)
            assert obs.declared == tuple(None if d is None else d.kinds for d in state.declarations)
            if state.project_team < 0:
                assert obs.shown == ()
                continue
            expected = [
                (declarer, project)
                for declarer, declaration in enumerate(state.declarations)
                if declaration is not None and declarer & 1 == state.project_team
                for project in declaration.projects
            ]
            assert list(obs.shown) == expected
            assert all(declarer & 1 == state.project_team for declarer, _ in obs.shown)
            shown_states += bool(expected)
    assert shown_states > 0


def test_a_scored_baloot_names_its_holder_after_the_round() -> None:
    scored = 0
    for rules in VARIANTS:
        for seed in range(12):
            states = match_states(rules, seed)
            for before, after in zip(states, states[1:], strict=False):
                if after.phase in PLAYING_PHASES:
                    assert observe_public(after).scored_baloot_seat == -1
                    continue
                if before.phase is not Phase.PLAYING:
                    continue
                score = after.last_score
                assert score is not None
                holder = before.baloot_seat
                trump = before.trump
                both = 0
                if trump >= 0:
                    both = 1 << trump * 8 + KING | 1 << trump * 8 + QUEEN
                laid = 0
                for record in after.tricks:
                    for card in record.cards:
                        laid |= 1 << card
                # Named when it scored and both its cards were played (a Sawa may end the
                # round before they are).
                expected = holder if score.facts.baloot_teams and laid & both == both else -1
                for seat in (0, 1, 2, 3):
                    assert observe(after, seat).scored_baloot_seat == expected
                assert observe_public(after).scored_baloot_seat == expected
                scored += expected >= 0
    assert scored > 0


def test_the_public_fields_are_the_states_and_a_new_state_is_observed_anew() -> None:
    """observe_public reads the state by position and remembers the last state it observed:
    each public field is the state's own (or follows from it as documented), and a state equal
    but for one field is observed afresh, never answered from the previous one."""
    for state in match_states(SEEDS, 5):
        public = observe_public(state)
        for name in public._fields:
            if name in State._fields and name not in ("baloot_seat", "hand", "full_hand"):
                assert getattr(public, name) == getattr(state, name), name
        taker = state.contract.taker if state.contract and state.buy_card >= 0 else -1
        assert public.taker == taker
        assert public.hand_sizes == tuple(h.bit_count() for h in state.hands)
        kinds = tuple(None if d is None else d.kinds for d in state.declarations)
        assert public.declared == kinds
        assert public.shown == shown_projects(state)
        live = state.phase in LIVE_PHASES
        assert public.scored_baloot_seat == (-1 if live else scored_baloot_seat(state))
        moved = state._replace(turn=(state.turn + 1) % 4)
        assert observe_public(moved).turn == moved.turn
        assert observe(moved, 0).turn == moved.turn
        assert observe_public(state) == public
