"""LEARNED: the bot level that plays by the networks trained on the solved-deal corpus.

No search at play time. A card is the legal card whose value the card-play network rates
highest (:func:`learned_card`): the network was trained to predict, from the seat's
observation alone, what each card is worth on the true deal when everyone then plays perfectly
(:mod:`baloot_engine.learning.corpus`), so it estimates in one forward pass what EXPERT
estimates by solving dozens of sampled worlds. A bid or a doubling call comes from the bidding
network's contract table, the predicted worth to the seat's team of each contract each seat
could buy (:func:`learned_bid`, :func:`learned_call`). Declarations, Sawa claims and Qayd calls
are the other levels' (:mod:`baloot_engine.bots.policies`, :mod:`baloot_engine.bots.qayd`).

Legal-action masking: only the seat's legal actions are ever rated, and a card only among the
cards the rules allow (never an illegal one, even where a rule set lets a seat try one).
Every choice is a pure function of the observation (ties go to the lowest index), so a seeded
decision repeats exactly, and the networks read nothing but the observation.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from baloot_engine.bots.features import (
    PASS_OUTPUT,
    canonical_card,
    encode_bid,
    encode_play,
    output_index,
    suit_order,
)
from baloot_engine.bots.network import Array, Model, shipped
from baloot_engine.rules.actions import Bid, BidKind, Doubling, DoublingCall, Play
from baloot_engine.rules.contract import PlayMode
from baloot_engine.rules.observation import Observation
from baloot_engine.rules.play import allowed_cards
from baloot_engine.rules.state import BidStage, DoublingStep


class LearnedStyle(NamedTuple):
    """The margins of the learned level's calls, in the networks' unit (26 game points a
    round, :data:`~baloot_engine.learning.corpus.UNIT`).

    A buying bid is said when its predicted worth beats the pass's by ``buy``; a doubling
    call when the contract's predicted worth to the seat's team, at the stakes it would
    raise, beats ``double`` (``triple``, ``four``, ``gahwa`` for the later steps; a Gahwa
    decides the match, so it asks far more)."""

    buy: float = 0.0
    double: float = 0.5
    triple: float = 0.6
    four: float = 0.75
    gahwa: float = 1.5


DEFAULT_STYLE: Final = LearnedStyle()


def lawful_cards(obs: Observation) -> int:
    """The mask of the cards the rules allow the seat to play now."""
    contract = obs.contract
    if contract is None:
        return 0
    return allowed_cards(
        obs.hand, obs.trick, obs.leader, obs.seat, obs.played, obs.akka, contract, obs.rules
    )


def card_values(obs: Observation, options: int, model: Model | None = None) -> dict[int, float]:
    """The card-play network's value of each card of ``options`` (a mask), by real card."""
    model = model or shipped()
    contract = obs.contract
    assert contract is not None
    order = suit_order(contract.trump)
    values = model.play(encode_play(obs, options))
    found: dict[int, float] = {}
    mask = options
    while mask:
        low = mask & -mask
        card = low.bit_length() - 1
        mask ^= low
        found[card] = float(values[canonical_card(card, order)])
    return found


def learned_card(plays: list[Play], obs: Observation, model: Model | None = None) -> Play:
    """The legal play whose card the network values most (its Akka call where one fits)."""
    options = 0
    for play in plays:
        options |= 1 << play.card
    lawful = options & lawful_cards(obs)
    if lawful:
        options = lawful
    values = card_values(obs, options, model)
    best = max(values, key=lambda card: (values[card], -card))
    akka = Play(best, True)
    return akka if akka in plays else Play(best)


def contract_values(obs: Observation, model: Model | None = None) -> Array:
    """The bidding network's outputs for the seat: the contract table (4 relative buyers ×
    (Sun, Hokm in canonical suits 0-3), the worth of each to the seat's team), then the worth
    of a pass (:data:`~baloot_engine.bots.features.PASS_OUTPUT`)."""
    model = model or shipped()
    return model.bid(encode_bid(obs))


def learned_bid(
    bids: list[Bid],
    obs: Observation,
    style: LearnedStyle = DEFAULT_STYLE,
    model: Model | None = None,
) -> Bid:
    """The legal bid the bidding network rates highest (a buy must beat the pass's predicted
    worth by ``style.buy``)."""
    if any(b.kind is BidKind.KAWESH for b in bids):
        return Bid(BidKind.KAWESH)
    table = contract_values(obs, model)
    order = suit_order(obs.buy_card >> 3)
    revealed_suit = obs.buy_card >> 3

    def worth(bid: Bid) -> float:
        kind = bid.kind
        if kind is BidKind.PASS:
            return float(table[PASS_OUTPUT]) + style.buy
        if kind in (BidKind.SUN, BidKind.SWITCH_TO_SUN, BidKind.CLAIM_SUN):
            return float(table[output_index(0, -1)])
        if kind is BidKind.ASHKAL:
            return float(table[output_index(2, -1)])
        if kind in (BidKind.HOKM, BidKind.CONFIRM_HOKM):
            if bid.suit >= 0:
                return float(table[output_index(0, order.index(bid.suit))])
            if obs.bidding_round == 1 and obs.bid_stage is not BidStage.CONFIRM:
                return float(table[output_index(0, 0)])
            # A Hokm whose suit is named at the confirmation: the best suit it may name.
            return max(
                float(table[output_index(0, order.index(s))])
                for s in range(4)
                if s != revealed_suit
            )
        return -1e9

    best = bids[0]
    best_worth = worth(best)
    for bid in bids[1:]:
        value = worth(bid)
        if value > best_worth:
            best, best_worth = bid, value
    return best


_STEP_CALLS: Final = {
    DoublingStep.DOUBLE: (DoublingCall.DOUBLE, 2),
    DoublingStep.TRIPLE: (DoublingCall.TRIPLE, 3),
    DoublingStep.FOUR: (DoublingCall.FOUR, 4),
    DoublingStep.GAHWA: (DoublingCall.GAHWA, 0),
}


def learned_call(
    calls: list[Doubling],
    obs: Observation,
    style: LearnedStyle = DEFAULT_STYLE,
    model: Model | None = None,
) -> Doubling:
    """A doubling call from the contract's predicted worth to the seat's team."""
    contract = obs.contract
    assert contract is not None
    step = obs.doubling_step
    declines = [c for c in calls if c.call is DoublingCall.DECLINE]
    fallback = declines[0] if declines else calls[0]
    if step is DoublingStep.CHOOSE_MODE:
        wanted = PlayMode.OPEN if obs.team == contract.buyer_team else PlayMode.CLOSED
        chosen = [c for c in calls if c.mode is wanted]
        return chosen[0] if chosen else calls[0]
    if step not in _STEP_CALLS:
        return fallback
    call, _ = _STEP_CALLS[step]
    table = contract_values(obs, model)
    order = suit_order(obs.buy_card >> 3)
    trump = -1 if contract.trump < 0 else order.index(contract.trump)
    worth = float(table[output_index((contract.buyer - obs.seat) & 3, trump)])
    bar = {
        DoublingStep.DOUBLE: style.double,
        DoublingStep.TRIPLE: style.triple,
        DoublingStep.FOUR: style.four,
        DoublingStep.GAHWA: style.gahwa,
    }[step]
    if worth <= bar:
        return fallback
    same = [c for c in calls if c.call is call]
    if not same:
        return fallback
    for candidate in same:  # a defender's double locks a Hokm where it may
        if candidate.mode is PlayMode.CLOSED:
            return candidate
    return same[0]


__all__ = [
    "DEFAULT_STYLE",
    "LearnedStyle",
    "card_values",
    "contract_values",
    "lawful_cards",
    "learned_bid",
    "learned_call",
    "learned_card",
]
