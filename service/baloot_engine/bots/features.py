"""The feature vectors of the learned level's two networks, from one seat's observation alone.

Two encodings, both flat ``float32`` vectors built from an
:class:`~baloot_engine.rules.observation.Observation` (the rules core's one definition of what a
seat may know), so nothing hidden from the seat can reach a network:

* :func:`encode_play`: a card to play. :data:`PLAY_SIZE` values: :data:`PLAY_PLANES` planes of
  32 cards, then :data:`PLAY_SUIT_BLOCKS` blocks of 4 suits, then :data:`PLAY_SCALARS` single
  values (:data:`PLAY_SEGMENTS` names each run).
* :func:`encode_bid`: a bid or a doubling call. :data:`BID_SIZE` values, laid out the same way
  (:data:`BID_SEGMENTS`).

Seats are relative to the observer (0 = the seat itself, 1 = the next to play after it, 2 = its
partner, 3 = the one before it). Suits are *canonical*: in a card decision of a Hokm the trump
suit is suit 0 and the three others follow in their natural order (spades, hearts, diamonds,
clubs); in a Sun the suits keep their natural order. In a bidding decision the revealed card's
suit is suit 0. A card's canonical index is ``canonical_suit * 8 + rank``; the networks' 32
card outputs use the same indexes (:func:`suit_order` maps them back). The suits that are not
fixed this way are interchangeable: the training permutes them at random
(:func:`permutation_index`), so the networks learn the symmetry rather than a suit's name.
"""

from __future__ import annotations

from typing import Final, NamedTuple

import numpy as np
import numpy.typing as npt

from baloot_engine.rules.actions import Bid, BidKind
from baloot_engine.rules.cards import POINTS, trick_winner_index
from baloot_engine.rules.contract import PlayMode
from baloot_engine.rules.observation import Observation
from baloot_engine.rules.projects import RAW_VALUES
from baloot_engine.rules.ruleset import FEDERATION, KAMMELNA, SEEDS, PartnerWinningRule, RuleSet
from baloot_engine.rules.state import BidStage, DoublingStep, Phase

Vector = npt.NDArray[np.float32]


class Segment(NamedTuple):
    """One named run of values of a feature vector."""

    name: str
    offset: int
    size: int
    meaning: str


def _segments(layout: tuple[tuple[str, int, str], ...]) -> tuple[Segment, ...]:
    offset = 0
    found = []
    for name, size, meaning in layout:
        found.append(Segment(name, offset, size, meaning))
        offset += size
    return tuple(found)


# ---------------------------------------------------------------------------------------------
# Card play.

_PLAY_PLANE_LAYOUT: Final = (
    ("hand", "the cards the seat holds"),
    ("legal", "the cards it may play now"),
    ("played_0", "cards the seat played in completed tricks"),
    ("played_1", "cards seat 1 (next) played in completed tricks"),
    ("played_2", "cards the partner played in completed tricks"),
    ("played_3", "cards seat 3 (previous) played in completed tricks"),
    ("trick_1", "the card seat 1 played to the trick in progress"),
    ("trick_2", "the card the partner played to the trick in progress"),
    ("trick_3", "the card seat 3 played to the trick in progress"),
    ("unseen", "cards neither held by the seat nor played (held by the three others)"),
    ("known_1", "unplayed cards seat 1 is known to hold (buy card taken, shown projects)"),
    ("known_2", "unplayed cards the partner is known to hold"),
    ("known_3", "unplayed cards seat 3 is known to hold"),
    ("winning", "the card winning the trick in progress"),
)
PLAY_PLANES: Final = len(_PLAY_PLANE_LAYOUT)
PLAY_SUIT_BLOCKS: Final = 4
_PLAY_SCALAR_LAYOUT: Final = (
    ("contract_type", 2, "Sun, Hokm"),
    ("buyer", 4, "the buyer (relative seat)"),
    ("buyer_team", 1, "the seat's team bought"),
    ("multiplier", 4, "x1, x2, x3, x4"),
    ("gahwa", 1, "a Gahwa round"),
    ("closed", 1, "a closed (locked) Hokm"),
    ("trick_number", 8, "the trick in progress, 1-8"),
    ("position", 4, "cards already in the trick in progress: 0-3"),
    ("winner", 4, "the seat winning the trick in progress (all 0 when leading)"),
    ("akka", 1, "the leader of the trick in progress called Akka"),
    ("abnat", 2, "card abnat won so far, own team then other, / 162"),
    ("tricks_won", 2, "tricks won so far, own team then other, / 8"),
    ("trick_points", 1, "abnat of the cards in the trick in progress / 60"),
    ("projects", 2, "raw value of the projects declared, own team then other, / 100"),
    ("project_team", 3, "the team whose projects score: own, other, not yet compared or none"),
    ("baloot", 2, "the team known to hold the Baloot: own, other"),
    ("match_scores", 2, "match totals, own team then other, / the target (at most 1)"),
    ("preset", 4, "the rule set: SEEDS, KAMMELNA, FEDERATION, another"),
    (
        "play_rules",
        7,
        "over-trump a partner, under-trump, Akka declared; partner-winning rule (4)",
    ),
)
PLAY_SCALARS: Final = sum(size for _, size, _ in _PLAY_SCALAR_LAYOUT)
PLAY_SEGMENTS: Final = _segments(
    (
        *((name, 32, meaning) for name, meaning in _PLAY_PLANE_LAYOUT),
        ("void_1", 4, "seat 1 showed out of each suit"),
        ("void_2", 4, "the partner showed out of each suit"),
        ("void_3", 4, "seat 3 showed out of each suit"),
        ("led_suit", 4, "the suit led to the trick in progress (all 0 when leading)"),
        *_PLAY_SCALAR_LAYOUT,
    )
)
PLAY_SIZE: Final = PLAY_SEGMENTS[-1].offset + PLAY_SEGMENTS[-1].size
_PLAY_AT: Final = {segment.name: segment.offset for segment in PLAY_SEGMENTS}
_SUITS_AT: Final = PLAY_PLANES * 32

_NATURAL: Final = (0, 1, 2, 3)
_TRUMP_FIRST: Final = tuple((trump, *(s for s in _NATURAL if s != trump)) for trump in _NATURAL)
"""For each suit put first: the real suits in canonical order."""


def suit_order(first: int) -> tuple[int, int, int, int]:
    """The real suit of each canonical suit: ``first`` (the trump, the revealed card's suit)
    then the others in natural order; -1 for the natural order (a Sun's cards)."""
    order = _NATURAL if first < 0 else _TRUMP_FIRST[first]
    return order[0], order[1], order[2], order[3]


def _canonical_of(order: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    inverse = [0, 0, 0, 0]
    for canonical, real in enumerate(order):
        inverse[real] = canonical
    return inverse[0], inverse[1], inverse[2], inverse[3]


def _permute_mask(mask: int, canon: tuple[int, int, int, int]) -> int:
    """A card mask with each suit's byte moved to its canonical suit."""
    out = 0
    for suit in _NATURAL:
        byte = mask >> (8 * suit) & 0xFF
        if byte:
            out |= byte << (8 * canon[suit])
    return out


def _set_mask(values: Vector, base: int, mask: int) -> None:
    while mask:
        low = mask & -mask
        values[base + low.bit_length() - 1] = 1.0
        mask ^= low


def _preset_index(rules: RuleSet) -> int:
    if rules == SEEDS:
        return 0
    if rules == KAMMELNA:
        return 1
    if rules == FEDERATION:
        return 2
    return 3


_PARTNER_RULES: Final = tuple(PartnerWinningRule)


def encode_play(obs: Observation, legal: int) -> Vector:
    """The card-play features of ``obs`` (a seat with a card to play; ``legal`` the mask of the
    cards it may play), with canonical suits (:func:`suit_order` of the contract's trump)."""
    contract = obs.contract
    if contract is None or obs.phase is not Phase.PLAYING:
        raise ValueError("a card-play encoding needs a round in play")
    trump = contract.trump
    canon = _canonical_of(suit_order(trump))
    me = obs.seat
    values = np.zeros(PLAY_SIZE, np.float32)
    at = _PLAY_AT
    hand = obs.hand
    _set_mask(values, at["hand"], _permute_mask(hand, canon))
    _set_mask(values, at["legal"], _permute_mask(legal, canon))
    played_by = [0, 0, 0, 0]
    voids = [0, 0, 0, 0]
    for record in obs.tricks:
        cards = record.cards
        led = cards[0] >> 3
        for position, card in enumerate(cards):
            rel = (record.leader + position - me) & 3
            played_by[rel] |= 1 << card
            if card >> 3 != led:
                voids[rel] |= 1 << led
    trick = obs.trick
    in_trick = 0
    if trick:
        led = trick[0] >> 3
        for position, card in enumerate(trick):
            rel = (obs.leader + position - me) & 3
            in_trick |= 1 << card
            if rel:
                values[at[f"trick_{rel}"] + canon[card >> 3] * 8 + (card & 7)] = 1.0
            if card >> 3 != led:
                voids[rel] |= 1 << led
        best = trick[trick_winner_index(trick, trump)]
        values[at["winning"] + canon[best >> 3] * 8 + (best & 7)] = 1.0
        values[at["led_suit"] + canon[led]] = 1.0
        winner = (obs.leader + trick_winner_index(trick, trump) - me) & 3
        values[at["winner"] + winner] = 1.0
        points = POINTS[trump + 1]
        values[at["trick_points"]] = sum(points[c] for c in trick) / 60
    for rel in range(4):
        _set_mask(values, at[f"played_{rel}"], _permute_mask(played_by[rel], canon))
    gone = obs.played | in_trick
    unseen = 0xFFFFFFFF & ~hand & ~gone
    _set_mask(values, at["unseen"], _permute_mask(unseen, canon))
    known = [0, 0, 0, 0]
    if obs.buy_card >= 0 and obs.taker >= 0:
        known[(obs.taker - me) & 3] |= 1 << obs.buy_card
    for seat, project in obs.shown:
        known[(seat - me) & 3] |= project.cards
    if obs.baloot_seat >= 0 and trump >= 0:
        known[(obs.baloot_seat - me) & 3] |= 0b0110_0000 << (8 * trump)
    for rel in (1, 2, 3):
        _set_mask(values, at[f"known_{rel}"], _permute_mask(known[rel] & unseen, canon))
        void = voids[rel]
        for suit in _NATURAL:
            if void >> suit & 1:
                values[at[f"void_{rel}"] + canon[suit]] = 1.0
    own = me & 1
    values[at["contract_type"] + (trump >= 0)] = 1.0
    values[at["buyer"] + ((contract.buyer - me) & 3)] = 1.0
    values[at["buyer_team"]] = float(contract.buyer_team == own)
    values[at["multiplier"] + min(max(contract.multiplier, 1), 4) - 1] = 1.0
    values[at["gahwa"]] = float(contract.gahwa)
    values[at["closed"]] = float(contract.mode is PlayMode.CLOSED)
    values[at["trick_number"] + min(len(obs.tricks), 7)] = 1.0
    values[at["position"] + len(trick)] = 1.0
    values[at["akka"]] = float(obs.akka)
    abnat = obs.abnat
    values[at["abnat"]] = abnat[own] / 162
    values[at["abnat"] + 1] = abnat[own ^ 1] / 162
    won = [0, 0]
    for record in obs.tricks:
        won[record.winner & 1] += 1
    values[at["tricks_won"]] = won[own] / 8
    values[at["tricks_won"] + 1] = won[own ^ 1] / 8
    declared = [0, 0]
    for seat, kinds in enumerate(obs.declared):
        if kinds:
            declared[(seat & 1) ^ own] += sum(RAW_VALUES[kind] for kind in kinds)
    values[at["projects"]] = declared[0] / 100
    values[at["projects"] + 1] = declared[1] / 100
    team = obs.project_team
    values[at["project_team"] + (2 if team < 0 else (team ^ own) & 1)] = 1.0
    if obs.baloot_seat >= 0:
        values[at["baloot"] + ((obs.baloot_seat & 1) ^ own)] = 1.0
    _common(values, at["match_scores"], at["preset"], obs)
    rules = obs.rules
    flags = at["play_rules"]
    values[flags] = float(rules.overtrump_partner)
    values[flags + 1] = float(rules.undertrump_required)
    values[flags + 2] = float(rules.akka_requires_declaration)
    values[flags + 3 + _PARTNER_RULES.index(rules.partner_winning_rule)] = 1.0
    return values


def _common(values: Vector, scores_at: int, preset_at: int, obs: Observation) -> None:
    own = obs.seat & 1
    scores = obs.match_scores
    target = obs.rules.match_target
    values[scores_at] = min(scores[own] / target, 1.0)
    values[scores_at + 1] = min(scores[own ^ 1] / target, 1.0)
    values[preset_at + _preset_index(obs.rules)] = 1.0


# ---------------------------------------------------------------------------------------------
# Bidding and doubling.

_BID_KINDS: Final = tuple(BidKind)
_STAGES: Final = tuple(BidStage)
_STEPS: Final = tuple(DoublingStep)
BID_SEAT_SLOT: Final = len(_BID_KINDS) + 4
"""Per seat: the kind of its last bid, then the canonical suit it named (if any)."""
BID_PLANES: Final = 2
BID_SUIT_BLOCKS: Final = 1
_BID_SCALAR_LAYOUT: Final = (
    ("position", 4, "the seat relative to the dealer: 1 speaks first, 0 is the dealer"),
    ("bidding_round", 2, "bidding round 1 or 2"),
    ("bid_stage", len(_STAGES), "the bidding question (one-hot over the stages)"),
    ("phase", 2, "bidding, doubling"),
    (
        "bids",
        4 * BID_SEAT_SLOT,
        f"per relative seat: the kind of its last bid ({len(_BID_KINDS)}), its suit (4)",
    ),
    ("bid_count", 1, "bids said so far / 16"),
    ("contract_type", 2, "Sun, Hokm (once fixed: a doubling call)"),
    ("buyer", 4, "the buyer (relative seat)"),
    ("multiplier", 4, "x1, x2, x3, x4"),
    ("doubling_step", len(_STEPS), "the doubling question (one-hot)"),
    ("hand_size", 1, "cards in the seat's hand / 8"),
    ("match_scores", 2, "match totals, own team then other, / the target (at most 1)"),
    ("preset", 4, "the rule set: SEEDS, KAMMELNA, FEDERATION, another"),
)
BID_SEGMENTS: Final = _segments(
    (
        ("hand", 32, "the cards the seat holds"),
        ("revealed", 32, "the revealed buy card"),
        ("trump", 4, "the contract's trump suit once fixed (all 0: Sun or not yet)"),
        *_BID_SCALAR_LAYOUT,
    )
)
BID_SIZE: Final = BID_SEGMENTS[-1].offset + BID_SEGMENTS[-1].size
_BID_AT: Final = {segment.name: segment.offset for segment in BID_SEGMENTS}

CONTRACTS: Final = 5
"""The contracts of the bidding network's outputs: Sun, then Hokm in canonical suit 0-3."""
PASS_OUTPUT: Final = 4 * CONTRACTS
"""The bidding network's output of a pass: what the round is worth to the observer's team when
it passes here and the bidding goes on as the bots of the corpus bid (a redeal: 0)."""
BID_OUTPUTS: Final = PASS_OUTPUT + 1
"""The bidding network's outputs: for each relative buyer seat (0-3) and contract, the game
points the round is worth to the observer's team when that seat buys that contract; then the
worth of a pass (:data:`PASS_OUTPUT`)."""


def output_index(buyer: int, trump: int) -> int:
    """The bidding output of a relative ``buyer`` seat and a canonical ``trump`` (-1: Sun)."""
    return buyer * CONTRACTS + trump + 1


def encode_bid(obs: Observation) -> Vector:
    """The bidding features of ``obs`` (a bid or a doubling call to make), the revealed card's
    suit as canonical suit 0."""
    revealed = obs.buy_card
    if revealed < 0:
        raise ValueError("a bidding encoding needs a revealed card")
    canon = _canonical_of(suit_order(revealed >> 3))
    me = obs.seat
    values = np.zeros(BID_SIZE, np.float32)
    at = _BID_AT
    _set_mask(values, at["hand"], _permute_mask(obs.hand, canon))
    values[at["revealed"] + canon[revealed >> 3] * 8 + (revealed & 7)] = 1.0
    values[at["position"] + ((me - obs.dealer) & 3)] = 1.0
    if obs.bidding_round in (1, 2):
        values[at["bidding_round"] + obs.bidding_round - 1] = 1.0
    values[at["bid_stage"] + _STAGES.index(obs.bid_stage)] = 1.0
    values[at["phase"] + (obs.phase is Phase.DOUBLING)] = 1.0
    last: dict[int, Bid] = {}
    for record in obs.bids:
        last[(record.seat - me) & 3] = record.bid
    for rel, bid in last.items():
        base = at["bids"] + rel * BID_SEAT_SLOT
        values[base + _BID_KINDS.index(bid.kind)] = 1.0
        if bid.suit >= 0:
            values[base + len(_BID_KINDS) + canon[bid.suit]] = 1.0
    values[at["bid_count"]] = min(len(obs.bids), 16) / 16
    contract = obs.contract
    if contract is not None:
        hokm = contract.trump >= 0
        values[at["contract_type"] + hokm] = 1.0
        if hokm:
            values[at["trump"] + canon[contract.trump]] = 1.0
        values[at["buyer"] + ((contract.buyer - me) & 3)] = 1.0
        values[at["multiplier"] + min(max(contract.multiplier, 1), 4) - 1] = 1.0
    values[at["doubling_step"] + _STEPS.index(obs.doubling_step)] = 1.0
    values[at["hand_size"]] = obs.hand.bit_count() / 8
    _common(values, at["match_scores"], at["preset"], obs)
    return values


# ---------------------------------------------------------------------------------------------
# The symmetry of the interchangeable suits.


def permutation_index(
    size: int, planes: int, suit_blocks: int, order: tuple[int, ...]
) -> npt.NDArray[np.intp]:
    """Indexes that permute the canonical suits of a feature vector: ``vector[index]`` is the
    vector of the same position with canonical suit ``s`` renamed ``order[s]``, in the
    ``planes`` card planes and the ``suit_blocks`` blocks of 4 suits that follow them (the
    values after those do not name a suit). ``order`` is a permutation of 0-3."""
    index = np.arange(size, dtype=np.intp)
    for plane in range(planes):
        for suit in range(4):
            for rank in range(8):
                index[plane * 32 + order[suit] * 8 + rank] = plane * 32 + suit * 8 + rank
    base = planes * 32
    for block in range(suit_blocks):
        for suit in range(4):
            index[base + block * 4 + order[suit]] = base + block * 4 + suit
    return index


def card_permutation(order: tuple[int, ...]) -> npt.NDArray[np.intp]:
    """:func:`permutation_index` for a vector of 32 card values (the card network's output)."""
    return permutation_index(32, 1, 0, order)


def bid_output_permutation(order: tuple[int, ...]) -> npt.NDArray[np.intp]:
    """The same for the bidding network's outputs: each seat's Hokm suits are permuted."""
    index = np.arange(BID_OUTPUTS, dtype=np.intp)
    for buyer in range(4):
        for suit in range(4):
            index[output_index(buyer, order[suit])] = output_index(buyer, suit)
    return index


def play_permutation(order: tuple[int, ...]) -> npt.NDArray[np.intp]:
    """:func:`permutation_index` of the card-play features."""
    return permutation_index(PLAY_SIZE, PLAY_PLANES, PLAY_SUIT_BLOCKS, order)


def bid_permutation(order: tuple[int, ...]) -> npt.NDArray[np.intp]:
    """:func:`permutation_index` of the bidding features (its 4-suit block: the trump)."""
    return permutation_index(BID_SIZE, BID_PLANES, BID_SUIT_BLOCKS, order)


def canonical_card(card: int, order: tuple[int, int, int, int]) -> int:
    """The canonical index of a real card under :func:`suit_order`'s ``order``."""
    return order.index(card >> 3) * 8 + (card & 7)


def real_card(canonical: int, order: tuple[int, int, int, int]) -> int:
    """The real card of a canonical index (the inverse of :func:`canonical_card`)."""
    return order[canonical >> 3] * 8 + (canonical & 7)


__all__ = [
    "BID_OUTPUTS",
    "BID_PLANES",
    "BID_SEGMENTS",
    "BID_SIZE",
    "BID_SUIT_BLOCKS",
    "CONTRACTS",
    "PASS_OUTPUT",
    "PLAY_PLANES",
    "PLAY_SCALARS",
    "PLAY_SEGMENTS",
    "PLAY_SIZE",
    "PLAY_SUIT_BLOCKS",
    "Segment",
    "Vector",
    "bid_output_permutation",
    "bid_permutation",
    "canonical_card",
    "card_permutation",
    "encode_bid",
    "encode_play",
    "output_index",
    "permutation_index",
    "play_permutation",
    "real_card",
    "suit_order",
]
