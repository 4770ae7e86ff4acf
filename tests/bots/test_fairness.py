"""Fair play: a bot decides from what its seat may know, never from hidden cards.

Three kinds of checks: two states that differ only in cards the seat cannot see give the same
observation (the rules core's definition of what a seat may know) and the same decision at
every level with the same seed; no bot module but the entry point that takes the observation
can reach a match state; and the card tracking never claims more than the truth (the real
hands always agree with what the tracker infers, and every sampled world agrees with what the
seat knows).
"""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from baloot_engine.bots import Level, suggest
from baloot_engine.bots.tracking import sample_hands, track
from baloot_engine.rules.cards import SUIT_MASKS
from baloot_engine.rules.observation import observe, observe_public
from baloot_engine.rules.state import Phase, State
from baloot_engine.rules.validation import validate
from tests.bots.games import RULE_SETS, SMALL, SOLVED_EXPERT, TINY_EXPERT, bot, walk

BOTS = Path(__file__).resolve().parents[2] / "service" / "baloot_engine" / "bots"


def _with_hands(state: State, hands: list[int], full: list[int], stock: tuple[int, ...]) -> State:
    dealt = (full[0], full[1], full[2], full[3])
    return state._replace(
        hands=(hands[0], hands[1], hands[2], hands[3]),
        full_hands=dealt if state.full_hands[0] else state.full_hands,
        stock=stock,
    )


def hidden_twin(state: State, seat: int, rng: random.Random) -> State | None:
    """A state that differs from ``state`` only in cards ``seat`` cannot see, or None.

    Before the play the other hands and the stock are reshuffled among themselves (hand sizes
    kept). During the play two other seats exchange cards of a suit both still hold, so that
    nothing they showed (voids, trumps) is contradicted; cards behind a declaration, the buy
    card and the trump suit are left alone.
    """
    hands = list(state.hands)
    full = list(state.full_hands)
    others = [s for s in range(4) if s != seat]
    buy = state.buy_card
    fixed = 1 << buy if buy >= 0 and state.revealed == -1 else 0
    if state.phase is Phase.BIDDING or (state.phase is Phase.DOUBLING and state.stock):
        pool = [c for s in others for c in range(32) if hands[s] >> c & 1 and not fixed >> c & 1]
        pool += list(state.stock)
        rng.shuffle(pool)
        new = list(hands)
        for s in others:
            keep = hands[s] & fixed
            size = hands[s].bit_count() - keep.bit_count()
            new[s] = keep
            for card in pool[:size]:
                new[s] |= 1 << card
            pool = pool[size:]
        twin = _with_hands(state, new, full, tuple(pool))
        return twin if twin != state else None
    if state.phase not in (Phase.DOUBLING, Phase.PLAYING):
        return None
    trump = state.trump
    blocked = fixed
    for declaration in state.declarations:
        if declaration is not None:
            for project in declaration.projects:
                blocked |= project.cards
    pairs = [(a, b) for a in others for b in others if a < b]
    rng.shuffle(pairs)
    for a, b in pairs:
        for suit in rng.sample(range(4), 4):
            if suit == trump:
                continue
            mask = SUIT_MASKS[suit] & ~blocked
            cards_a = [c for c in range(32) if (hands[a] & mask) >> c & 1]
            cards_b = [c for c in range(32) if (hands[b] & mask) >> c & 1]
            if cards_a and cards_b:
                x, y = rng.choice(cards_a), rng.choice(cards_b)
                swap = 1 << x | 1 << y
                hands[a] ^= swap
                hands[b] ^= swap
                if state.full_hands[0]:
                    full[a] ^= swap
                    full[b] ^= swap
                return _with_hands(state, hands, full, state.stock)
    return None


@pytest.mark.parametrize("rules_name", sorted(RULE_SETS))
def test_states_differing_only_in_hidden_cards_give_the_same_decision(rules_name: str) -> None:
    rng = random.Random(rules_name)
    compared = 0
    for seed in range(8):
        for state in walk(RULE_SETS[rules_name], seed, bot(Level.BASIC), max_rounds=2):
            seat = state.turn
            twin = hidden_twin(state, seat, rng)
            if twin is None:
                continue
            assert validate(twin) == []
            assert twin.hands != state.hands or twin.stock != state.stock
            assert observe(twin, seat) == observe(state, seat)
            assert observe_public(twin) == observe_public(state)
            for level in Level:
                first = suggest(state, seat, level, compared, budget=SMALL, expert=TINY_EXPERT)
                second = suggest(twin, seat, level, compared, budget=SMALL, expert=TINY_EXPERT)
                assert first == second, (level, state, twin)
            compared += 1
    assert compared > 50


@pytest.mark.parametrize(
    "worlds", ["alike", "fitted", "mixed", "resampled", "postponed", "signalled"]
)
@pytest.mark.parametrize("rules_name", sorted(RULE_SETS))
def test_whole_world_solves_decide_from_the_observation_alone(rules_name: str, worlds: str) -> None:
    # EXPERT's whole-world solves (from five cards a hand on, kept small here) and its solved
    # calls see sampled worlds only, alike or made to fit the calls, solved alone or blended
    # with play-outs, or drawn in proportion to the play model: a twin that differs in hidden
    # cards gets the same decision.
    rng = random.Random(f"solved-{rules_name}")
    expert = SOLVED_EXPERT._replace(
        weighted_sampling=worlds == "fitted", mix=0.5 if worlds == "mixed" else 0.0
    )
    if worlds == "resampled":
        expert = expert._replace(agree=0.6, resample=3)
    if worlds == "postponed":
        expert = expert._replace(postpone=True)
    if worlds == "signalled":
        expert = expert._replace(signal=True)
    compared = 0
    for seed in range(6):
        for state in walk(RULE_SETS[rules_name], seed, bot(Level.BASIC), max_rounds=2):
            if state.phase is not Phase.PLAYING or state.hands[state.turn].bit_count() > 5:
                continue
            seat = state.turn
            twin = hidden_twin(state, seat, rng)
            if twin is None:
                continue
            first = suggest(state, seat, Level.EXPERT, compared, expert=expert)
            second = suggest(twin, seat, Level.EXPERT, compared, expert=expert)
            assert first == second, (state, twin)
            compared += 1
    assert compared > 30


def test_the_observation_holds_no_hidden_card() -> None:
    for state in walk(RULE_SETS["seeds"], 11, bot(Level.BASIC), max_rounds=2):
        for seat in range(4):
            k = observe(state, seat)
            assert k.hand == state.hands[seat]
            hidden = 0
            for other in range(4):
                if other != seat:
                    hidden |= state.hands[other]
            for card in state.stock:
                hidden |= 1 << card
            public = k.played | k.hand
            for card in k.trick:
                public |= 1 << card
            if k.buy_card >= 0:
                public |= 1 << k.buy_card
            for _, project in k.shown:
                public |= project.cards
            # Every card mask the observation holds is made of cards the seat has seen.
            for mask in (k.hand, k.full_hand, k.played):
                assert mask & hidden & ~public == 0
            for project in k.own_projects:
                assert project.cards & ~k.full_hand == 0
            if k.baloot_seat >= 0 and not k.baloot_announced:
                assert k.baloot_seat == seat
        nobody = observe_public(state)
        assert (nobody.seat, nobody.hand, nobody.full_hand) == (-1, 0, 0)
        assert (nobody.own_projects, nobody.legal_actions) == ((), ())
        assert nobody.baloot_seat == (state.baloot_seat if state.baloot_announced else -1)


def test_only_the_entry_point_reads_a_match_state() -> None:
    # __init__.py takes the seat's observation of the state, demo.py drives whole matches.
    allowed = {"__init__.py", "demo.py"}
    for path in sorted(BOTS.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported |= {f"{node.module}.{alias.name}" for alias in node.names}
            elif isinstance(node, ast.Import):
                imported |= {alias.name for alias in node.names}
        reaches_state = {
            name
            for name in imported
            if name.endswith(".State") or name.startswith("baloot_engine.rules.game")
        }
        if path.name not in allowed:
            assert not reaches_state, f"{path.name} imports {reaches_state}"
        assert not any(n.startswith(("grpc", "google", "baloot.")) for n in imported), path.name


@pytest.mark.parametrize("rules_name", sorted(RULE_SETS))
def test_the_tracker_never_contradicts_the_real_hands(rules_name: str) -> None:
    rng = random.Random(3)
    checked = 0
    for seed in range(8):
        for state in walk(RULE_SETS[rules_name], seed, bot(Level.BASIC), max_rounds=3):
            if state.phase not in (Phase.DOUBLING, Phase.PLAYING):
                continue
            for seat in range(4):
                k = observe(state, seat)
                tracker = track(k)
                truth = list(state.hands)
                if state.stock or (state.phase is Phase.DOUBLING and state.revealed >= 0):
                    rest = 1 << state.revealed if state.revealed >= 0 else 0
                    for card in state.stock:
                        rest |= 1 << card
                    truth[k.taker] |= rest
                hidden = 0
                if k.taker == seat and state.stock:
                    for card in state.stock:  # still to come to this seat, unseen yet
                        hidden |= 1 << card
                for other in range(4):
                    if other == seat:
                        continue
                    hidden |= truth[other]
                    assert truth[other] & tracker.excluded[other] == 0, (seat, other, state)
                    assert tracker.known[other] & ~truth[other] == 0
                    assert tracker.sizes[other] == truth[other].bit_count()
                assert hidden == tracker.unseen
                world = sample_hands(k, tracker, rng)
                assert world[seat] & state.hands[seat] == state.hands[seat]
                coming = state.phase is Phase.DOUBLING and k.taker == seat
                assert world[seat].bit_count() == (8 if coming else state.hands[seat].bit_count())
                dealt = world[seat] & ~state.hands[seat] & ~(1 << k.buy_card)
                for other in range(4):
                    if other == seat:
                        continue
                    assert world[other] & tracker.excluded[other] == 0
                    assert tracker.known[other] & ~world[other] == 0
                    assert world[other].bit_count() == tracker.sizes[other]
                    assert dealt & world[other] == 0
                    dealt |= world[other]
                assert dealt == tracker.unseen
                checked += 1
    assert checked > 200


def test_voids_shown_in_play_are_tracked() -> None:
    found = 0
    for seed in range(10):
        for state in walk(RULE_SETS["seeds"], seed, bot(Level.BASIC), max_rounds=2):
            if state.phase is not Phase.PLAYING:
                continue
            seat = state.turn
            tracker = track(observe(state, seat))
            for record in state.tricks:
                led = record.cards[0] >> 3
                for position, card in enumerate(record.cards):
                    player = (record.leader + position) & 3
                    if player != seat and card >> 3 != led:
                        assert tracker.excluded[player] & SUIT_MASKS[led] == SUIT_MASKS[led]
                        found += 1
    assert found > 20
