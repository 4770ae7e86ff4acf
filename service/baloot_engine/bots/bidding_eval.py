"""Bidding by simulation: every bid the seat may say, passing included, played out in sampled deals.

During the bidding a seat knows its five cards, the revealed card and the bids so far. The bot
deals the 26 cards it has not seen at random many times: five to each other seat first (the
cards they bid on), then the rest of the deal, three more to every seat and two to the one who
takes the revealed card. A deal is drawn again (a few times) when a seat that has passed would
have bought on its five cards by the hand-evaluation thresholds
(:mod:`baloot_engine.bots.handeval`): a pass says the hand is not strong.

In every deal each candidate bid gets the contract it leads to:

* a buying bid (Sun, Hokm in a suit, Ashkal, a confirmation, a switch, a «قبلك» claim) the
  contract it fixes, with the seat as buyer, unless a seat still to speak in the lap calls Sun
  over its Hokm by the thresholds;
* a pass the contract the rest of the bidding would most likely fix: the seats still to speak
  bid by the thresholds on their sampled hands (the first Sun ends the lap, a Hokm stands unless
  a later seat calls Sun over it), a Hokm or Sun already said stands when nobody outbids it,
  and when nobody buys in the first round the second round is played the same way (the seat
  itself by the thresholds too); no contract at all is a redeal, worth 0 (or, playing for the
  match, the chance to win it as the totals stand).

Each contract is played out to the end with the heuristic card policy for all four seats and
scored with the rules core's own scoring (projects, Baloot, the success test, kaboot), and the
bid with the best average score difference for the seat's team is said. The same deals serve
every candidate, so the comparison is not blurred by the luck of the deal.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Final, TypeVar

from baloot_engine.bots.handeval import Style, hokm_value, sun_value
from baloot_engine.bots.search import (
    Finisher,
    Scorer,
    deal_facts,
    first_leader,
    play_whole,
    standing_value,
)
from baloot_engine.rules.actions import Bid, BidKind
from baloot_engine.rules.bidding import lap
from baloot_engine.rules.cards import FULL_DECK
from baloot_engine.rules.contract import Contract, ContractType
from baloot_engine.rules.observation import Observation
from baloot_engine.rules.state import BidStage

REDRAWS: Final = 6
"""How many times a deal is drawn again when a seat that passed would have bought on it."""

_BUYING: Final = (
    BidKind.SUN,
    BidKind.HOKM,
    BidKind.ASHKAL,
    BidKind.CONFIRM_HOKM,
    BidKind.SWITCH_TO_SUN,
    BidKind.CLAIM_SUN,
)
_SUN_KINDS: Final = (BidKind.SUN, BidKind.ASHKAL)

K = TypeVar("K")


def over_default(default: K, values: Mapping[K, float], margin: float, *, may_pass: bool) -> K:
    """The bid of ``values`` to say when ``default`` is the thresholds' bid: the best-valued bid
    if it beats ``default`` by more than ``margin``, else ``default``. Where no pass is allowed
    (a contract must be named) the best-valued bid, ``default`` on a tie."""
    best, bar = default, values[default] + (margin if may_pass else 0.0)
    for bid, value in values.items():
        if value > bar:
            best, bar = bid, value
    return best


def threshold_bid(hand: int, revealed: int, round_: int, style: Style) -> tuple[bool, int] | None:
    """What the thresholds buy on ``hand`` (five cards, the revealed card not included):
    (True, -1) for Sun, (False, suit) for Hokm in ``suit``, None for a pass."""
    if sun_value(hand | 1 << revealed) >= style.sun:
        return True, -1
    suit = threshold_hokm(hand, revealed, round_, style)
    return None if suit < 0 else (False, suit)


def threshold_hokm(hand: int, revealed: int, round_: int, style: Style) -> int:
    """The suit the thresholds buy Hokm in on ``hand`` (the revealed card not included), -1 for
    none: the revealed suit in round 1, the best other suit in round 2."""
    if round_ == 1:
        suit, threshold = revealed >> 3, style.hokm
    else:
        suit, threshold = best_other_suit(hand, revealed), style.hokm_second
    return suit if hokm_value(hand | 1 << revealed, suit) >= threshold else -1


def contract_of(obs: Observation, bid: Bid) -> Contract | None:
    """The contract ``bid`` fixes with the seat as buyer (None for a bid that fixes none)."""
    seat = obs.seat
    revealed = obs.buy_card
    round_ = obs.bidding_round
    kind = bid.kind
    if kind in (BidKind.SUN, BidKind.SWITCH_TO_SUN, BidKind.CLAIM_SUN):
        return Contract(ContractType.SUN, -1, seat, False, round_)
    if kind is BidKind.ASHKAL:
        return Contract(ContractType.SUN, -1, seat, True, round_)
    if kind in (BidKind.HOKM, BidKind.CONFIRM_HOKM):
        suit = bid.suit
        if suit < 0:  # round 1 names the revealed suit; a later suit is the best other one
            suit = revealed >> 3 if round_ == 1 else best_other_suit(obs.hand, revealed)
        return Contract(ContractType.HOKM, suit, seat, False, round_)
    return None


def best_other_suit(hand: int, revealed: int) -> int:
    """The suit other than the revealed card's in which ``hand`` (with that card) is worth most
    as Hokm: the suit a second-round Hokm names."""
    with_card = hand | 1 << revealed
    return max((s for s in range(4) if s != revealed >> 3), key=lambda s: hokm_value(with_card, s))


class _Said:
    """What the bids of the round so far leave standing: a Hokm or a Sun not yet outbid."""

    def __init__(self, obs: Observation) -> None:
        self.hokm: tuple[int, int] | None = None  # (seat, suit; -1 if named at confirmation)
        self.sun: tuple[int, bool] | None = None  # (seat, ashkal)
        for record in obs.bids:
            if record.bidding_round != obs.bidding_round:
                continue
            kind = record.bid.kind
            if kind is BidKind.HOKM:
                self.hokm = (record.seat, record.bid.suit)
            elif kind in _SUN_KINDS:
                self.sun = (record.seat, kind is BidKind.ASHKAL)


def _passers(obs: Observation) -> list[tuple[int, int, bool]]:
    """(seat, round, whether a Hokm stood when it passed) for every pass of another seat."""
    out: list[tuple[int, int, bool]] = []
    hokm_round = 0
    for record in obs.bids:
        kind = record.bid.kind
        if kind is BidKind.HOKM:
            hokm_round = record.bidding_round
        elif kind is BidKind.PASS and record.seat != obs.seat:
            out.append((record.seat, record.bidding_round, hokm_round == record.bidding_round))
    return out


def _consistent(
    five: list[int], revealed: int, passers: list[tuple[int, int, bool]], style: Style
) -> bool:
    """No seat that passed would have bought on its sampled five cards by the thresholds."""
    for seat, round_, hokm_stood in passers:
        bought = threshold_bid(five[seat], revealed, round_, style)
        if bought is not None and (bought[0] or not hokm_stood):
            return False
    return True


def _first_buys(
    seats: tuple[int, ...], five: list[int], revealed: int, round_: int, style: Style
) -> tuple[int, tuple[int, int] | None]:
    """``seats`` speaking in turn by the thresholds: the first to call Sun (-1 if none) and the
    first to bid Hokm, as (seat, suit) (a later Sun still takes the contract over it)."""
    hokm: tuple[int, int] | None = None
    for seat in seats:
        bought = threshold_bid(five[seat], revealed, round_, style)
        if bought is None:
            continue
        if bought[0]:
            return seat, hokm
        if hokm is None:
            hokm = (seat, bought[1])
    return -1, hokm


def _later(obs: Observation) -> tuple[int, ...]:
    """The seats still to speak in the lap after the seat."""
    order = lap(obs.dealer)
    return order[order.index(obs.seat) + 1 :]


def contract_after_pass(obs: Observation, five: list[int], style: Style) -> Contract | None:
    """The contract the rest of the bidding most likely fixes if the seat passes now, every
    seat bidding by the thresholds on ``five`` (each seat's first five cards)."""
    revealed = obs.buy_card
    round_ = obs.bidding_round
    said = _Said(obs)
    stage = obs.bid_stage
    if stage is BidStage.PRIORITY and said.sun is not None:
        seat, ashkal = said.sun
        return Contract(ContractType.SUN, -1, seat, ashkal, round_)
    hokm = said.hokm
    if stage is BidStage.LAP:
        sun, later_hokm = _first_buys(_later(obs), five, revealed, round_, style)
        if sun >= 0:
            return Contract(ContractType.SUN, -1, sun, False, round_)
        hokm = hokm or later_hokm
    if hokm is not None:
        seat, suit = hokm
        if suit < 0:
            suit = best_other_suit(five[seat], revealed)
        return Contract(ContractType.HOKM, suit, seat, False, round_)
    if round_ != 1 or stage is not BidStage.LAP:
        return None
    # Nobody bought in round 1: round 2, every seat by the thresholds.
    sun, hokm = _first_buys(lap(obs.dealer), five, revealed, 2, style)
    if sun >= 0:
        return Contract(ContractType.SUN, -1, sun, False, 2)
    if hokm is not None:
        return Contract(ContractType.HOKM, hokm[1], hokm[0], False, 2)
    return None


def outbid_by_sun(obs: Observation, five: list[int], style: Style) -> Contract | None:
    """The Sun a later seat of the lap calls over the seat's Hokm (by the thresholds), if any."""
    sun, _ = _first_buys(_later(obs), five, obs.buy_card, obs.bidding_round, style)
    return Contract(ContractType.SUN, -1, sun, False, obs.bidding_round) if sun >= 0 else None


def evaluate_bids(
    obs: Observation,
    bids: list[Bid],
    rng: random.Random,
    samples: int,
    style: Style,
    *,
    match_aware: bool = False,
    finish: Finisher = play_whole,
) -> dict[Bid, float]:
    """The average score difference per round for the seat's team of every bid of ``bids``
    but Kawesh (a pass included), over the same ``samples`` sampled deals; with
    ``match_aware``, the average chance to win the match after the round instead (on the
    scale of :data:`~baloot_engine.bots.search.EQUITY_SCALE`, a redeal worth the chance as
    the totals stand). ``finish`` plays each deal out (EXPERT's solves the end)."""
    revealed = obs.buy_card
    if revealed < 0:
        return {}
    seat = obs.seat
    candidates: list[Bid] = [b for b in bids if b.kind in _BUYING or b.kind is BidKind.PASS]
    if not candidates:
        return {}
    fixed = {b: contract_of(obs, b) for b in candidates}
    # A pass, or a Hokm said in a lap (a later seat may still call Sun over it), leads to a
    # contract that depends on the other seats' hands.
    open_hokm = obs.bid_stage is BidStage.LAP
    unknown = [c for c in range(32) if (FULL_DECK & ~obs.hand & ~(1 << revealed)) >> c & 1]
    others = [s for s in range(4) if s != seat]
    passers = _passers(obs)
    match = obs.match_scores if match_aware else None
    redeal = standing_value(match, obs.team, obs.rules)
    scorers: dict[Contract, Scorer] = {}
    totals = dict.fromkeys(candidates, 0.0)
    first_seat = (obs.dealer + 1) & 3
    for _ in range(samples):
        five = [0, 0, 0, 0]
        for _attempt in range(REDRAWS):
            rng.shuffle(unknown)
            five = [0, 0, 0, 0]
            five[seat] = obs.hand
            for i, other in enumerate(others):
                five[other] = _mask(0, unknown[5 * i : 5 * i + 5])
            if _consistent(five, revealed, passers, style):
                break
        extras = unknown[15:]
        for bid in candidates:
            contract = fixed[bid]
            if bid.kind is BidKind.PASS:
                contract = contract_after_pass(obs, five, style)
            elif open_hokm and bid.kind is BidKind.HOKM:
                contract = outbid_by_sun(obs, five, style) or contract
            if contract is None:
                totals[bid] += redeal
                continue
            scorer = scorers.get(contract)
            if scorer is None:
                scorer = scorers[contract] = Scorer(contract, obs.rules, obs.team, match)
            totals[bid] += _played_out(
                contract, five, extras, revealed, scorer, first_seat, obs, finish
            )
    return {b: total / samples for b, total in totals.items()}


def _played_out(
    contract: Contract,
    five: list[int],
    extras: list[int],
    revealed: int,
    scorer: Scorer,
    first_seat: int,
    obs: Observation,
    finish: Finisher = play_whole,
) -> float:
    """The score difference of ``contract`` played out on one deal (the rest dealt from
    ``extras``: two and the revealed card to the taker, three to every other seat)."""
    taker = contract.taker
    hands = list(five)
    hands[taker] = _mask(hands[taker] | 1 << revealed, extras[0:2])
    at = 2
    for s in range(4):
        if s != taker:
            hands[s] = _mask(hands[s], extras[at : at + 3])
            at += 3
    rules = obs.rules
    awarded, baloot = deal_facts(hands, contract, rules, first_seat)
    leader = first_leader(obs, contract)
    abnat, won = finish(hands, leader, contract, rules)
    return scorer.value(abnat, won, awarded, baloot)


def _mask(base: int, cards: list[int]) -> int:
    for card in cards:
        base |= 1 << card
    return base


__all__ = [
    "best_other_suit",
    "contract_after_pass",
    "evaluate_bids",
    "over_default",
    "threshold_bid",
    "threshold_hokm",
]
