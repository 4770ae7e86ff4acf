"""Players for the screen's calibration and tests only: noisy honest players and a cheater who
sees the deal only when bidding and doubling.

Never part of the service: they sit beside the benchmark (``bench/bench_screen.py``) with the
card-play cheaters of ``bench/fairplay_bots.py``; the tests import them from here.

* ``strong-noisy``: STRONG whose card, where it has a choice, is a random legal card in
  :data:`NOISE` of the decisions (a human-like player who sometimes plays without thinking);
* ``basic-mistakes``: BASIC whose action (bid, call or card) is a random legal one of the same
  kind in :data:`MISTAKES` of the decisions;
* ``strong-bidding``: STRONG at the cards, but every bid and doubling call is taken with the
  whole deal in sight (:func:`bidding_cheat`): the contract each bid leads to (the other seats
  bidding by the bots' thresholds on their real first five cards) is played out on the real
  hands by the bots' play-out policy and scored, and the bot keeps its honest bid unless
  another is better by :data:`BID_MARGIN` points; its doubling calls are STRONG's search with
  every sampled world the real deal.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from fairplay_bots import peeking_sampler, play_cheat_record

from baloot_engine.analysis.selfplay import play_record
from baloot_engine.bots import Level, suggest
from baloot_engine.bots.bidding_eval import contract_after_pass, contract_of, outbid_by_sun
from baloot_engine.bots.handeval import BASIC_STYLE
from baloot_engine.bots.search import (
    Scorer,
    deal_facts,
    first_leader,
    play_whole,
    search_doubling,
)
from baloot_engine.rules.actions import Action, Bid, BidKind, Doubling, Play
from baloot_engine.rules.contract import Contract
from baloot_engine.rules.dealing import completion_cards
from baloot_engine.rules.observation import Observation, observe
from baloot_engine.rules.record import RecordedRound
from baloot_engine.rules.state import BidStage, Phase, State

NOISE = 0.2
"""The share of card decisions with a choice where ``strong-noisy`` plays a random legal card."""
MISTAKES = 0.1
"""The share of decisions where ``basic-mistakes`` takes a random legal action of its kind."""
BID_MARGIN = 2.0
"""The game points a round another bid must gain on the real deal over the honest bid."""
HONEST_KINDS = ("basic", "strong", "expert", "learned", "strong-noisy", "basic-mistakes")
CHEATER_KINDS = ("strong-all", "strong-pair", "strong-bidding")
"""``strong-all``: seat 0 STRONG's search peeking at every hand at the cards
(``bench/fairplay_bots.py``); ``strong-pair``: seats 0 and 2 each see the other's hand at the
cards; ``strong-bidding``: seat 0 sees the deal at bids and doubling calls only."""


def cheating_seats(kind: str) -> tuple[int, ...]:
    """The seats that cheat in a match of ``kind`` (none in an honest one)."""
    if kind == "strong-pair":
        return (0, 2)
    if kind in CHEATER_KINDS:
        return (0,)
    return ()


def _random_of_kind(state: State, seat: int, chosen: Action, rng: random.Random) -> Action:
    legal = [a for a in observe(state, seat).legal_actions if type(a) is type(chosen)]
    if isinstance(chosen, Bid):
        legal = [a for a in legal if isinstance(a, Bid) and a.kind is not BidKind.KAWESH]
    return rng.choice(legal) if len(legal) >= 2 else chosen


def noisy(
    state: State, seat: int, level: Level, share: float, cards_only: bool, seed: int
) -> Action:
    """``level``'s action, replaced in ``share`` of the decisions by a random legal one of its
    kind (cards only, or every kind)."""
    chosen = suggest(state, seat, level, seed=seed)
    rng = random.Random(f"noise/{seed}")
    if rng.random() >= share or (cards_only and not isinstance(chosen, Play)):
        return chosen
    return _random_of_kind(state, seat, chosen, rng)


def _real_hands(state: State, contract: Contract) -> tuple[int, int, int, int]:
    rest = completion_cards(state.stock, state.dealer, contract.taker, state.buy_card)
    h = state.hands
    return (h[0] | rest[0], h[1] | rest[1], h[2] | rest[2], h[3] | rest[3])


def _contract_value(state: State, obs: Observation, contract: Contract | None) -> float:
    if contract is None:
        return 0.0
    hands = _real_hands(state, contract)
    rules = obs.rules
    awarded, baloot = deal_facts(hands, contract, rules, (obs.dealer + 1) & 3)
    abnat, won = play_whole(list(hands), first_leader(obs, contract), contract, rules)
    return float(Scorer(contract, rules, obs.team).value(abnat, won, awarded, baloot))


def bidding_cheat(state: State, seat: int, seed: int) -> Action:
    """STRONG, but its bids and doubling calls are taken with the real deal in sight."""
    honest = suggest(state, seat, Level.STRONG, seed=seed)
    obs = observe(state, seat)
    if state.phase is Phase.BIDDING and isinstance(honest, Bid) and len(state.stock) > 0:
        bids = [a for a in obs.legal_actions if isinstance(a, Bid) and a.kind is not BidKind.KAWESH]
        if len(bids) < 2 or honest not in bids:
            return honest
        five = list(state.hands)
        values: dict[Bid, float] = {}
        for bid in bids:
            if bid.kind is BidKind.PASS:
                contract = contract_after_pass(obs, five, BASIC_STYLE)
            else:
                contract = contract_of(obs, bid)
                if (
                    contract is not None
                    and obs.bid_stage is BidStage.LAP
                    and bid.kind is BidKind.HOKM
                ):
                    contract = outbid_by_sun(obs, five, BASIC_STYLE) or contract
            values[bid] = _contract_value(state, obs, contract)
        best = max(bids, key=lambda b: (values[b], b is honest))
        return best if values[best] > values[honest] + BID_MARGIN else honest
    if isinstance(honest, Doubling):
        calls = [a for a in obs.legal_actions if isinstance(a, Doubling)]
        if len(calls) < 2 or any((h).bit_count() != 8 for h in state.hands):
            return honest
        others = tuple(s for s in range(4) if s != seat)
        sampler = peeking_sampler(state.hands, others)
        return search_doubling(obs, calls, random.Random(seed), 1, 2.0, sampler)
    return honest


def play_kind(kind: str, seed: int) -> tuple[State, list[RecordedRound]]:
    """A seeded match of ``kind`` (:data:`HONEST_KINDS`, :data:`CHEATER_KINDS`)."""
    if kind in ("basic", "strong", "expert", "learned"):
        return play_record([Level(kind)] * 4, seed)
    if kind == "strong-noisy":
        return play_record(
            [Level.STRONG] * 4,
            seed,
            decide=lambda s, seat, d: noisy(s, seat, Level.STRONG, NOISE, True, d),
        )
    if kind == "basic-mistakes":
        return play_record(
            [Level.BASIC] * 4,
            seed,
            decide=lambda s, seat, d: noisy(s, seat, Level.BASIC, MISTAKES, False, d),
        )
    if kind == "strong-all":
        return play_cheat_record([Level.STRONG] * 4, ["all", "none", "none", "none"], seed)  # type: ignore[no-any-return]
    if kind == "strong-pair":
        return play_cheat_record(  # type: ignore[no-any-return]
            [Level.STRONG] * 4, ["partner", "none", "partner", "none"], seed
        )
    if kind == "strong-bidding":

        def decide(state: State, seat: int, decision_seed: int) -> Action:
            if seat == 0:
                return bidding_cheat(state, seat, decision_seed)
            return suggest(state, seat, Level.STRONG, seed=decision_seed)

        return play_record([Level.STRONG] * 4, seed, decide=decide)
    raise ValueError(f"unknown kind {kind!r}")


def won_by(start: State, rounds: Sequence[RecordedRound]) -> int:
    """The team that won a played match (-1 if it did not end)."""
    from baloot_engine.rules.record import replay

    last = start
    for step in replay(start, rounds):
        last = step.state
    return last.winner


__all__ = [
    "CHEATER_KINDS",
    "HONEST_KINDS",
    "bidding_cheat",
    "cheating_seats",
    "noisy",
    "play_kind",
    "won_by",
]
