"""R46 Sawa (سوا): a claim of every remaining trick, checked against every play of the others."""

from __future__ import annotations

import random

import pytest

from baloot_engine.rules import errors
from baloot_engine.rules.actions import (
    Bid,
    BidKind,
    ClaimSawa,
    Deal,
    Declare,
)
from baloot_engine.rules.cards import parse_cards
from baloot_engine.rules.contract import Contract, ContractType
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.game import apply, legal_actions, new_match
from baloot_engine.rules.projects import ProjectKind
from baloot_engine.rules.ruleset import KAMMELNA, SEEDS, RuleSet
from baloot_engine.rules.sawa import SawaSearch, cashes, claim_holds
from baloot_engine.rules.scoring import Outcome
from baloot_engine.rules.state import Phase, State

from .scenario import L1, L6, act, hokm, play, refuse, rules_with
from .strategies import choose

SAWA = SEEDS.replace(sawa=True)


def _deck(
    dealer: int, first: dict[int, list[int]], revealed: int, rest: dict[int, list[int]]
) -> tuple[int, ...]:
    order = [(dealer + i) & 3 for i in (1, 2, 3, 4)]
    deck = [c for s in order for c in first[s][:3]] + [c for s in order for c in first[s][3:]]
    deck.append(revealed)
    deck += [c for s in order for c in rest[s]]
    assert sorted(deck) == list(range(32))
    return tuple(deck)


def _sun_for_seat0(top: str, completion: str, seed: int = 3) -> State:
    """Dealer 3, so seat 0 speaks and leads first; seat 0 buys Sun holding ``top``."""
    mine = parse_cards(top)
    extra = parse_cards(completion)
    revealed, extra = extra[0], extra[1:]
    pool = [c for c in range(32) if c not in mine and c not in extra and c != revealed]
    random.Random(seed).shuffle(pool)
    first = {0: mine, 1: pool[0:5], 2: pool[5:10], 3: pool[10:15]}
    rest = {0: extra, 1: pool[15:18], 2: pool[18:21], 3: pool[21:24]}
    state = new_match(SAWA, dealer=3)
    state, _ = apply(state, 3, Deal(_deck(3, first, revealed, rest)))
    state, _ = apply(state, 0, Bid(BidKind.SUN))
    assert state.phase is Phase.PLAYING
    assert state.turn == 0
    return state


def test_a_claim_with_every_top_card_ends_the_hand_as_a_kaboot() -> None:
    state = _sun_for_seat0("AS 10S KS QS AH", "10H KH QH")
    new, events = apply(state, 0, ClaimSawa())
    assert events[0].kind.value == "sawa_claimed"
    assert new.phase is Phase.ROUND_OVER
    assert new.last_score is not None
    assert new.last_score.outcome is Outcome.KABOOT
    assert new.last_score.points == (44, 0)


def test_a_claim_the_others_can_break_is_refused_and_changes_nothing() -> None:
    # Seat 0 holds K of spades under someone's Ace: a trick can be lost.
    state = _sun_for_seat0("KS QS JS AH 10H", "KH QH JH")
    with pytest.raises(RuleError) as refused:
        apply(state, 0, ClaimSawa())
    assert refused.value.reason == errors.SAWA_INVALID
    assert state.phase is Phase.PLAYING  # the old state is untouched and still playable
    assert legal_actions(state, 0)


def test_sawa_is_off_by_default_and_only_for_the_player_on_lead() -> None:
    state = _sun_for_seat0("AS 10S KS QS AH", "10H KH QH")
    plain = state._replace(rules=SEEDS)
    with pytest.raises(RuleError) as off:
        apply(plain, 0, ClaimSawa())
    assert off.value.reason == errors.SAWA_NOT_ALLOWED
    with pytest.raises(RuleError) as not_lead:
        apply(state, 1, ClaimSawa())
    assert not_lead.value.reason == errors.SAWA_NOT_ALLOWED
    assert ClaimSawa() in legal_actions(state, 0)
    assert ClaimSawa() not in legal_actions(plain, 0)


def test_a_claim_in_the_first_trick_still_compares_the_declared_projects() -> None:
    # Seat 0 holds A-K-Q (a Sira) and the 10 of spades and of hearts: two Siras, and the
    # top four cards of both suits. He declares both, then claims before playing a card.
    state = _sun_for_seat0("AS 10S KS QS AH", "10H KH QH")
    state, _ = apply(state, 0, Declare((ProjectKind.SIRA, ProjectKind.SIRA)))
    new, events = apply(state, 0, ClaimSawa())
    assert any(e.kind.value == "projects_revealed" for e in events)
    score = new.last_score
    assert score is not None
    assert score.teams[0].project_points == 8  # two Siras of 4 game points in Sun
    assert score.points == (44 + 8, 0)


def _late_states(count: int, tricks: int = 4, seed: int = 77) -> list[State]:
    """Random positions with ``8 - tricks`` or fewer cards per hand, Sawa allowed, on a lead."""
    rng = random.Random(seed)
    found: list[State] = []
    while len(found) < count:
        state = new_match(SAWA, dealer=rng.randrange(4))
        deck = list(range(32))
        rng.shuffle(deck)
        state, _ = apply(state, state.dealer, Deal(tuple(deck)))
        while state.phase in (Phase.BIDDING, Phase.DOUBLING, Phase.PLAYING):
            if state.phase is Phase.PLAYING and not state.trick and len(state.tricks) >= tricks:
                found.append(state)
                break
            seat, action = choose(rng, state)
            state, _ = apply(state, seat, action)
    return found


def test_merging_equivalent_cards_never_changes_the_verdict() -> None:
    agreed = {True: 0, False: 0}
    for state in _late_states(120):
        seat = state.turn
        team = seat & 1
        exact = SawaSearch(state, team, merge_equivalent=False).holds(state.hands, seat)
        fast = SawaSearch(state, team).holds(state.hands, seat)
        assert fast == exact
        assert state.contract is not None
        if cashes(state.hands, seat, state.contract.trump, state.contract.closed):
            assert exact, "the shortcut proved a claim the full search refutes"
        agreed[exact] += 1
    assert agreed[True], agreed
    assert agreed[False], agreed


def _plain_search(state: State) -> bool:
    """The verdict of the search with every shortcut off: every card, every position."""
    seat = state.turn
    search = SawaSearch(state, seat & 1, merge_equivalent=False, canonical=False, shortcut=False)
    return search.holds(state.hands, seat)


@pytest.mark.parametrize("tricks", [3, 4, 5])
def test_the_shortcuts_of_the_search_never_change_the_verdict(tricks: int) -> None:
    """Positions up to what cannot change a winner, cashing, ordering: the same verdicts."""
    verdicts = {True: 0, False: 0}
    rules = [SAWA, KAMMELNA.replace(sawa=True), AKKA_CALLED]
    for index, state in enumerate(_late_states(60, tricks, seed=tricks)):
        state = state._replace(rules=rules[index % 3])
        exact = _plain_search(state)
        assert claim_holds(state.hands, state.turn, state.contract, state.rules) == exact
        if cashes(state.hands, state.turn, state.trump, state.contract.closed):
            assert exact, "cashing proved a claim the full search refutes"
        fixed = SawaSearch(state, state.turn & 1).beats_fixed_defence(state.hands, state.turn)
        if not fixed:
            assert not exact, "the fixed defence refuted a claim the full search proves"
        verdicts[exact] += 1
    assert verdicts[True], verdicts
    assert verdicts[False], verdicts


AKKA_CALLED = SAWA.replace(akka_requires_declaration=True)


def _mask(cards: str) -> int:
    return sum(1 << card for card in parse_cards(cards))


def _claim(hands: tuple[str, str, str, str], claimer: int, rules: RuleSet) -> bool:
    spades = parse_cards("7S")[0] >> 3
    contract = Contract(ContractType.HOKM, spades, claimer)
    masks = (_mask(hands[0]), _mask(hands[1]), _mask(hands[2]), _mask(hands[3]))
    return claim_holds(masks, claimer, contract, rules)


def test_with_akka_called_the_claimer_may_leave_his_boss_card_bare() -> None:
    # Spades trump, the 10 of hearts gone. Seat 0 cashes AH, then leads KH, the boss: with
    # Akka his void partner is free and the right opponent must trump with 7S and take the
    # trick; without it the partner must trump (JS), the right opponent under-trumps, and
    # the partner's 9D takes the last trick. The claim holds because the call is his choice.
    hands = ("KH AH 7D", "8C 10C AC", "JS 9H 9D", "7S 8H KC")
    assert _claim(hands, 0, AKKA_CALLED)


def test_with_akka_called_a_claim_that_needs_the_partner_s_akka_is_false() -> None:
    # Spades trump. When the claimer's partner leads his boss 10C without Akka the claimer,
    # void, must trump with QS, and the left opponent's KD later takes a trick: the partner
    # is not assumed to call Akka for the claim (§A.15).
    hands = ("9S QD KD 9C", "JS KH 9D 10C", "KS 10D JD 8C", "10S QS 7H 9H")
    assert not _claim(hands, 3, AKKA_CALLED)
    # Where the boss card frees the void player by itself, the same claim holds.
    assert _claim(hands, 3, SAWA)


# --- Sawa (R46): a flag that changes what the leader may do ---------------------------------------


def test_no_sawa_unless_the_flag_is_on() -> None:
    state = hokm(L6)
    assert ClaimSawa() not in legal_actions(state, 1)
    refuse(state, 1, ClaimSawa(), errors.SAWA_NOT_ALLOWED)


def test_sawa_only_for_the_player_on_lead() -> None:
    rules = rules_with(sawa=True)
    state = hokm(L6, rules)
    assert ClaimSawa() in legal_actions(state, 1)
    assert all(ClaimSawa() not in legal_actions(state, seat) for seat in (0, 2, 3))
    refuse(state, 2, ClaimSawa(), errors.SAWA_NOT_ALLOWED)
    state = play(state, "JH")
    assert ClaimSawa() not in legal_actions(state, 2)


def test_a_valid_sawa_takes_every_remaining_trick() -> None:
    state = hokm(L6, rules_with(sawa=True))  # seat 1 holds all eight trumps
    state = act(state, 1, ClaimSawa())
    assert state.phase is Phase.ROUND_OVER
    assert state.abnat == (0, 162)  # the claim takes the 10 for the last trick too (R33)


def test_a_false_sawa_is_refused() -> None:
    state = hokm(L1, rules_with(sawa=True))
    refuse(state, 1, ClaimSawa(), errors.SAWA_INVALID)
