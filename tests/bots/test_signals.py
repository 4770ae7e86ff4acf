"""The discard signal between EXPERT partners (``bots/signals.py``): the thrower's test and the
reader's count agree on every throw of real games."""

from __future__ import annotations

from baloot_engine.bots import Level
from baloot_engine.bots.signals import (
    BROKEN_WEIGHT,
    _best_left,
    follows,
    is_throw,
    signal_marks,
    signal_weight,
    signalled,
)
from baloot_engine.bots.tracking import spent_by_seat
from baloot_engine.rules.cards import parse_card, parse_cards
from baloot_engine.rules.contract import partner_of
from baloot_engine.rules.observation import observe
from baloot_engine.rules.state import Phase
from tests.bots.games import RULE_SETS, bot, walk

SUN = -1
HEARTS = parse_card("7H") >> 3


def _mask(text: str) -> int:
    mask = 0
    for card in parse_cards(text):
        mask |= 1 << card
    return mask


def test_a_throw_is_a_card_off_the_suit_led_that_is_not_a_trump() -> None:
    hand = _mask("7H 8D AC")
    trick = (parse_card("KS"),)
    assert is_throw(trick, hand, parse_card("7H"), SUN)
    assert not is_throw(trick, hand, parse_card("7H"), HEARTS)  # a trump is a ruff, not a throw
    assert not is_throw((), hand, parse_card("7H"), SUN)  # a lead
    assert not is_throw(trick, hand | _mask("9S"), parse_card("7H"), SUN)  # it could follow


def test_the_convention_is_to_throw_from_a_suit_without_its_best_card_left() -> None:
    # Sun: the ace of hearts is the best heart left while it is out; once it is gone, the ten.
    assert not follows(0, _mask("AH 8H"), parse_card("7H"), SUN)
    assert follows(0, _mask("TH 8H"), parse_card("7H"), SUN)
    gone = _mask("AH")
    assert not follows(gone, _mask("TH 8H"), parse_card("7H"), SUN)
    # Throwing the best card itself leaves the next one as the best left.
    assert follows(0, _mask("8H"), parse_card("AH"), SUN)
    assert not follows(0, _mask("TH"), parse_card("AH"), SUN)


def test_the_thrower_keeps_the_convention_only_among_cards_valued_exactly_alike() -> None:
    trick = (parse_card("KS"),)
    hand = _mask("AH 7H 7D 8C")
    candidates = parse_cards("7H 7D 8C")
    # 7H breaks it (the ace of hearts stays in hand); 7D keeps it.
    assert signalled(trick, hand, 0, SUN, candidates, [5.0, 5.0, 1.0], 0) == 1
    assert signalled(trick, hand, 0, SUN, candidates, [5.0, 4.9, 1.0], 0) == 0
    # A card that keeps it stays chosen, and a card that is not a throw is not changed.
    assert signalled(trick, hand, 0, SUN, candidates, [1.0, 5.0, 5.0], 1) == 1
    assert signalled((), hand, 0, SUN, candidates, [5.0, 5.0, 5.0], 0) == 0


def test_the_reader_counts_exactly_the_throws_the_thrower_would_call_broken() -> None:
    checked = broken_seen = 0
    for rules in RULE_SETS.values():
        for seed in (3, 4):
            for state in walk(rules, seed, bot(Level.BASIC), max_rounds=2):
                if state.phase is not Phase.PLAYING:
                    continue
                obs = observe(state, state.turn)
                contract = obs.contract
                assert contract is not None
                trump = contract.trump
                partner = partner_of(obs.seat)
                full = state.hands[partner] | spent_by_seat(obs)[partner]
                hand = full
                gone = 0
                broken = 0
                sequences = [(r.leader, r.cards) for r in obs.tricks]
                sequences.append((obs.leader, obs.trick))
                for leader, cards in sequences:
                    for position, card in enumerate(cards):
                        seat = (leader + position) & 3
                        if seat == partner:
                            if is_throw(cards[:position], hand, card, trump) and not follows(
                                gone, hand ^ 1 << card, card, trump
                            ):
                                broken |= 1 << _best_left(card >> 3, gone | 1 << card, trump)
                            hand ^= 1 << card
                        gone |= 1 << card
                marks = signal_marks(obs)
                assert marks & full == broken
                world = state.hands
                weight = signal_weight(obs, marks, (world[0], world[1], world[2], world[3]))
                assert weight == BROKEN_WEIGHT ** broken.bit_count()
                checked += 1
                broken_seen += broken != 0
    assert checked >= 100
    assert broken_seen >= 5
