"""Bidding by simulation: every bid is valued (passing too), the choice is legal, a seed repeats
it, and the model of the rest of the bidding follows the thresholds and the bids already said."""

from __future__ import annotations

import random

import pytest

from baloot_engine.bots import Level, bidding_eval
from baloot_engine.bots.bidding_eval import contract_after_pass, evaluate_bids, threshold_bid
from baloot_engine.bots.policies import BASIC_STYLE, choose_bid_evaluated
from baloot_engine.bots.search import EQUITY_SCALE, standing_value
from baloot_engine.rules.actions import Bid, BidKind
from baloot_engine.rules.cards import parse_card
from baloot_engine.rules.contract import ContractType
from baloot_engine.rules.observation import Observation, observe
from baloot_engine.rules.state import BidRecord, BidStage, Phase, State
from tests.bots.games import RULE_SETS, bot, record_scorer_matches, walk


def _bidding_states(rules_name: str) -> list[State]:
    return [
        s
        for seed in range(6)
        for s in walk(RULE_SETS[rules_name], seed, bot(Level.BASIC), max_rounds=2)
        if s.phase is Phase.BIDDING
    ]


def _mask(names: str) -> int:
    hand = 0
    for name in names.split():
        hand |= 1 << parse_card(name)
    return hand


def test_every_bid_but_kawesh_is_valued_and_the_choice_is_legal() -> None:
    checked = 0
    for rules_name in sorted(RULE_SETS):
        for state in _bidding_states(rules_name):
            obs = observe(state, state.turn)
            bids = [a for a in obs.legal_actions if isinstance(a, Bid)]
            values = evaluate_bids(obs, bids, random.Random(1), 4, BASIC_STYLE)
            assert set(values) == {b for b in bids if b.kind is not BidKind.KAWESH}
            assert values == evaluate_bids(obs, bids, random.Random(1), 4, BASIC_STYLE)
            chosen = choose_bid_evaluated(obs, bids, BASIC_STYLE, random.Random(2), 4)
            assert chosen in bids
            checked += 1
    assert checked > 50


def _first_turn() -> Observation:
    """The dealer's right to speak first in round 1 (SEEDS rules)."""
    for state in _bidding_states("seeds"):
        obs = observe(state, state.turn)
        if obs.bidding_round == 1 and not obs.bids and Bid(BidKind.SUN) in obs.legal_actions:
            return obs
    raise AssertionError("no first bid found")


def test_a_strong_sun_hand_buys_and_a_weak_one_passes() -> None:
    obs = _first_turn()
    revealed = obs.buy_card
    strong = [n for n in ("AS", "AH", "AD", "AC", "10S", "10H") if parse_card(n) != revealed][:5]
    weak = [c for c in range(32) if c & 7 in (0, 1, 2) and c != revealed][:5]
    bids = [a for a in obs.legal_actions if isinstance(a, Bid)]
    sun, passing = Bid(BidKind.SUN), Bid(BidKind.PASS)
    values = evaluate_bids(
        obs._replace(hand=_mask(" ".join(strong))), bids, random.Random(3), 48, BASIC_STYLE
    )
    assert values[sun] > values[passing] + 10
    weak_hand = 0
    for card in weak:
        weak_hand |= 1 << card
    values = evaluate_bids(obs._replace(hand=weak_hand), bids, random.Random(3), 48, BASIC_STYLE)
    assert values[passing] > values[sun] + 10
    chosen = choose_bid_evaluated(
        obs._replace(hand=weak_hand), bids, BASIC_STYLE, random.Random(4), 48
    )
    assert chosen.kind is not BidKind.SUN


def test_the_thresholds_name_sun_before_hokm() -> None:
    revealed = parse_card("7S")
    assert threshold_bid(_mask("AS AH AD 10H 10D"), revealed, 1, BASIC_STYLE) == (True, -1)
    spades, hearts = revealed >> 3, parse_card("JH") >> 3
    assert threshold_bid(_mask("JS 9S AS 8H 7D"), revealed, 1, BASIC_STYLE) == (False, spades)
    assert threshold_bid(_mask("JH 9H AH 10H 7D"), revealed, 2, BASIC_STYLE) == (False, hearts)
    assert threshold_bid(_mask("7H 8H 7D 8D 9C"), revealed, 1, BASIC_STYLE) is None


def test_after_a_pass_the_rest_of_the_bidding_follows_the_thresholds() -> None:
    obs = _first_turn()._replace(buy_card=parse_card("7S"), hand=_mask("8H 7D 8D 9C 7C"))
    seat = obs.seat
    order = [(obs.dealer + k) & 3 for k in (1, 2, 3, 4)]
    assert order[0] == seat
    weak = [_mask("8S 9H 7H QD 8C"), _mask("9S 10H QH 9D KC"), _mask("KS KH JD JC QC")]
    five = [0, 0, 0, 0]
    five[seat] = obs.hand
    for other, hand in zip(order[1:], weak, strict=True):
        five[other] = hand
    # Nobody buys on these hands in either round: a redeal.
    assert contract_after_pass(obs, five, BASIC_STYLE) is None
    # The last speaker holds a Hokm in the revealed suit: he buys it in round 1.
    five[order[3]] = _mask("JS 9S AS 10S QS")
    contract = contract_after_pass(obs, five, BASIC_STYLE)
    assert contract is not None
    assert (contract.type, contract.buyer) == (ContractType.HOKM, order[3])
    assert contract.trump == obs.buy_card >> 3
    # A Sun hand speaking before him takes the round with Sun.
    five[order[1]] = _mask("AH AD AC 10C 10D")
    contract = contract_after_pass(obs, five, BASIC_STYLE)
    assert contract is not None
    assert (contract.type, contract.buyer) == (ContractType.SUN, order[1])


def test_a_standing_hokm_is_kept_when_nobody_outbids_it() -> None:
    obs = _first_turn()
    first = obs.seat
    second = (first + 1) & 3
    hokm = Bid(BidKind.HOKM, obs.buy_card >> 3)
    later = obs._replace(
        seat=second,
        turn=second,
        hand=0,
        bids=(BidRecord(first, hokm, 1),),
        bid_stage=BidStage.LAP,
    )
    five = [0, 0, 0, 0]
    contract = contract_after_pass(later, five, BASIC_STYLE)
    assert contract is not None
    assert (contract.type, contract.buyer) == (ContractType.HOKM, first)
    assert contract.trump == obs.buy_card >> 3


def test_playing_for_the_match_values_every_bid_by_the_chance_to_win_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen = record_scorer_matches(monkeypatch, bidding_eval)
    obs = _first_turn()._replace(match_scores=(120, 130))
    bids = [a for a in obs.legal_actions if isinstance(a, Bid)]
    plain = evaluate_bids(obs, bids, random.Random(1), 8, BASIC_STYLE)
    assert set(seen) == {None}
    aware = evaluate_bids(obs, bids, random.Random(1), 8, BASIC_STYLE, match_aware=True)
    assert set(seen) == {None, (120, 130)}
    assert set(aware) == set(plain)
    assert all(-EQUITY_SCALE <= value <= EQUITY_SCALE for value in aware.values())
    # When passing leads to a redeal, the pass is worth the totals as they stand, not 0.
    monkeypatch.setattr(bidding_eval, "contract_after_pass", lambda *_: None)
    passing = Bid(BidKind.PASS)
    assert evaluate_bids(obs, bids, random.Random(1), 8, BASIC_STYLE)[passing] == 0.0
    redeal = evaluate_bids(obs, bids, random.Random(1), 8, BASIC_STYLE, match_aware=True)[passing]
    assert redeal == pytest.approx(standing_value((120, 130), obs.team, obs.rules))
    assert redeal != 0.0
