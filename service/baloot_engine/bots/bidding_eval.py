"""Bidding by simulation: each contract the seat may buy, played out in sampled deals.

During the bidding a seat knows its five cards and the revealed card; the other 26 cards are
anywhere (three more to each other seat, two to the buyer besides the revealed card). For each
bid that fixes a contract (Sun, Hokm in a suit, Ashkal, a confirmation or a switch), the bot
deals the unknown cards at random many times, completes the buyer's hand with the revealed
card, plays the whole hand out with the heuristic card policy for all four seats and scores it
with the rules core's scoring (projects and Baloot included). The same deals serve every
candidate. The bot's hand-evaluation thresholds (:mod:`baloot_engine.bots.handeval`) still
decide whether to buy at all, since passing has no value a play-out can measure (another seat
may buy); the simulation chooses *which* contract, and buys one the thresholds would not when
its average result is clearly good.
"""

from __future__ import annotations

import random
from typing import Final

from baloot_engine.bots.search import _Scorer, play_out
from baloot_engine.rules.actions import Bid, BidKind
from baloot_engine.rules.cards import FULL_DECK
from baloot_engine.rules.contract import Contract, ContractType, partner_of
from baloot_engine.rules.facts import award_projects
from baloot_engine.rules.observation import Observation
from baloot_engine.rules.projects import best_projects
from baloot_engine.rules.ruleset import FirstLeader

SURE_MARGIN: Final = 25.0
"""The average score difference per round above which a contract is bought regardless of the
thresholds (a contract that clearly wins)."""

_BUYING: Final = (
    BidKind.SUN,
    BidKind.HOKM,
    BidKind.ASHKAL,
    BidKind.CONFIRM_HOKM,
    BidKind.SWITCH_TO_SUN,
    BidKind.CLAIM_SUN,
)


def _contract_of(obs: Observation, bid: Bid) -> Contract | None:
    """The contract ``bid`` would fix with the seat as buyer (None for a pass)."""
    seat = obs.seat
    revealed = obs.buy_card
    round_ = obs.bidding_round
    kind = bid.kind
    if kind in (BidKind.SUN, BidKind.SWITCH_TO_SUN, BidKind.CLAIM_SUN):
        return Contract(ContractType.SUN, -1, seat, False, round_)
    if kind is BidKind.ASHKAL:
        return Contract(ContractType.SUN, -1, seat, True, round_)
    if kind in (BidKind.HOKM, BidKind.CONFIRM_HOKM):
        suit = bid.suit if bid.suit >= 0 else revealed >> 3
        return Contract(ContractType.HOKM, suit, seat, False, round_)
    return None


def evaluate_bids(
    obs: Observation, bids: list[Bid], rng: random.Random, samples: int
) -> dict[Bid, float]:
    """The average score difference per round of every buying bid of ``bids`` (same deals)."""
    candidates = [(b, c) for b in bids if b.kind in _BUYING for c in (_contract_of(obs, b),) if c]
    if not candidates or obs.buy_card < 0:
        return {}
    seat = obs.seat
    revealed = obs.buy_card
    unknown = [c for c in range(32) if (FULL_DECK & ~obs.hand & ~(1 << revealed)) >> c & 1]
    first_seat = (obs.dealer + 1) & 3
    totals = dict.fromkeys((b for b, _ in candidates), 0.0)
    scorers = {b: _Scorer(c, obs.rules, obs.team) for b, c in candidates}
    partner = partner_of(seat)
    opponents = [s for s in range(4) if s & 1 != seat & 1]
    for _ in range(samples):
        rng.shuffle(unknown)
        for b, contract in candidates:
            hands = [0, 0, 0, 0]
            if contract.ashkal:  # the partner takes the revealed card and seven more
                hands[seat] = _mask(obs.hand, unknown[0:3])
                hands[partner] = _mask(1 << revealed, unknown[3:10])
            else:
                hands[seat] = _mask(obs.hand | 1 << revealed, unknown[0:2])
                hands[partner] = _mask(0, unknown[2:10])
            hands[opponents[0]] = _mask(0, unknown[10:18])
            hands[opponents[1]] = _mask(0, unknown[18:26])
            leader = contract.buyer if obs.rules.first_leader is FirstLeader.BUYER else first_seat
            declared = [best_projects(hands[s], contract.trump, obs.rules) for s in range(4)]
            awarded = award_projects(declared, first_seat)
            baloot: tuple[int, ...] = ()
            if contract.trump >= 0:
                kq = (3 << 5) << (8 * contract.trump)
                for s in range(4):
                    if hands[s] & kq == kq:
                        baloot = (s & 1,)
            abnat, won = play_out(hands, [], leader, 0, [0, 0], [0, 0], False, contract, obs.rules)
            totals[b] += scorers[b].value(abnat, won, awarded, baloot)
    return {b: total / samples for b, total in totals.items()}


def _mask(base: int, cards: list[int]) -> int:
    for card in cards:
        base |= 1 << card
    return base


__all__ = ["SURE_MARGIN", "evaluate_bids"]
