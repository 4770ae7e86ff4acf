"""The research encodings: the fixed action table and the tensor of one seat's observation.

Both frameworks (:mod:`~baloot_engine.research.pettingzoo_env` and
:mod:`~baloot_engine.research.openspiel_game`) speak through this module, so an action index or
a tensor plane means the same thing in each. docs/research.md lists every index and plane; a
test checks that page against :data:`ACTIONS` and :data:`SEGMENTS`.

* Actions: :data:`ACTIONS` is one table of :data:`NUM_ACTIONS` rules-core actions. Index
  ``card`` (0-31) plays that card, ``32 + card`` plays it with an Akka call, then the bids, the
  doubling calls, the project declarations and the Sawa claim. Deals and Qayd calls are not in
  it: the environments deal themselves, and table play (Qayd) is not offered.
* Observations: :func:`encode` turns an
  :class:`~baloot_engine.rules.observation.Observation` (the rules core's one definition of
  what a seat may know) into a flat ``float32`` vector of :data:`OBSERVATION_SIZE` values, in
  the segments of :data:`SEGMENTS`. Seats in it are relative to the observer (0 = the seat
  itself, 1 = the next to play after it, 2 = its partner, 3 = the one before it), and teams
  are "own" then "other". Nothing else is read, so nothing hidden from the seat can leak in.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from typing import Final, NamedTuple

import numpy as np
import numpy.typing as npt

from baloot_engine.rules.actions import (
    Action,
    Bid,
    BidKind,
    ClaimSawa,
    Declare,
    Doubling,
    DoublingCall,
    Play,
)
from baloot_engine.rules.cards import SUIT_LETTERS, format_card, format_mask
from baloot_engine.rules.contract import ContractType, PlayMode
from baloot_engine.rules.observation import Observation
from baloot_engine.rules.projects import ProjectKind
from baloot_engine.rules.state import BidStage, DoublingStep, Phase

# ---------------------------------------------------------------------------------------------
# Actions.

_SUITS = (0, 1, 2, 3)
BIDS: Final[tuple[Bid, ...]] = (
    Bid(BidKind.PASS),
    Bid(BidKind.HOKM),  # a round-2 Hokm whose suit is named at the confirmation
    *(Bid(BidKind.HOKM, suit) for suit in _SUITS),
    Bid(BidKind.SUN),
    Bid(BidKind.ASHKAL),
    *(Bid(BidKind.CONFIRM_HOKM, suit) for suit in _SUITS),
    Bid(BidKind.SWITCH_TO_SUN),
    Bid(BidKind.CLAIM_SUN),
    Bid(BidKind.KAWESH),
)
"""Every bid a seat can say, in the order of their indexes."""

_OPEN, _CLOSED = PlayMode.OPEN, PlayMode.CLOSED
CALLS: Final[tuple[Doubling, ...]] = (
    Doubling(DoublingCall.DOUBLE),
    Doubling(DoublingCall.DOUBLE, _OPEN),
    Doubling(DoublingCall.DOUBLE, _CLOSED),
    Doubling(DoublingCall.TRIPLE),
    Doubling(DoublingCall.FOUR),
    Doubling(DoublingCall.FOUR, _OPEN),
    Doubling(DoublingCall.FOUR, _CLOSED),
    Doubling(DoublingCall.GAHWA),
    Doubling(DoublingCall.DECLINE),
    Doubling(DoublingCall.CHOOSE_MODE, _OPEN),
    Doubling(DoublingCall.CHOOSE_MODE, _CLOSED),
)
"""Every doubling call, in the order of their indexes."""

_DECLARABLE = (ProjectKind.SIRA, ProjectKind.FIFTY, ProjectKind.HUNDRED, ProjectKind.FOUR_HUNDRED)
DECLARATIONS: Final[tuple[Declare, ...]] = (
    *(Declare((kind,)) for kind in _DECLARABLE),
    *(
        Declare((first, second))
        for i, first in enumerate(_DECLARABLE)
        for second in _DECLARABLE[i:]
    ),
)
"""Every declaration of one or two project types (two of a kind included), in index order."""

PLAY_BASE: Final = 0
AKKA_BASE: Final = 32
BID_BASE: Final = 64
CALL_BASE: Final = BID_BASE + len(BIDS)
DECLARE_BASE: Final = CALL_BASE + len(CALLS)
SAWA_INDEX: Final = DECLARE_BASE + len(DECLARATIONS)

ACTIONS: Final[tuple[Action, ...]] = (
    *(Play(card) for card in range(32)),
    *(Play(card, akka=True) for card in range(32)),
    *BIDS,
    *CALLS,
    *DECLARATIONS,
    ClaimSawa(),
)
"""The action table: ``ACTIONS[index]`` is the rules-core action of an index."""
NUM_ACTIONS: Final = len(ACTIONS)
ACTION_INDEX: Final[dict[Action, int]] = {action: i for i, action in enumerate(ACTIONS)}
assert SAWA_INDEX == NUM_ACTIONS - 1


def action_index(action: Action) -> int:
    """The index of a rules-core action (KeyError for a deal or a Qayd call)."""
    return ACTION_INDEX[action]


def action_of(index: int) -> Action:
    """The rules-core action of an index (IndexError outside ``0 … NUM_ACTIONS - 1``)."""
    if not 0 <= index < NUM_ACTIONS:
        raise IndexError(f"an action index is 0-{NUM_ACTIONS - 1}, got {index}")
    return ACTIONS[index]


def action_name(index: int) -> str:
    """A short name of an action index: ``"10H"``, ``"AS akka"``, ``"hokm H"``, ``"sawa"``."""
    return str(action_of(index))


def legal_indices(actions: Iterable[Action]) -> list[int]:
    """The indexes of legal actions, ascending."""
    index = ACTION_INDEX
    return sorted(index[action] for action in actions)


def legal_mask(actions: Iterable[Action]) -> npt.NDArray[np.int8]:
    """A 0/1 vector of :data:`NUM_ACTIONS` values: 1 at each legal action's index."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    index = ACTION_INDEX
    mask[[index[action] for action in actions]] = 1
    return mask


# ---------------------------------------------------------------------------------------------
# The observation tensor.

MAX_BIDS: Final = 24
"""Bid slots of the tensor; no bidding under any rule set says more (a test checks it)."""
MAX_CALLS: Final = 10
"""Doubling-call slots of the tensor; no doubling chain has more calls (a test checks it)."""

_BID_SLOT = 4 + 2 + len(BIDS)
_CALL_SLOT = 4 + len(CALLS)
_TRICK_SLOT = 4 + 4 * 32 + 4


class Segment(NamedTuple):
    """One named run of values of the observation tensor."""

    name: str
    offset: int
    size: int
    meaning: str


_LAYOUT: Final[tuple[tuple[str, int, str], ...]] = (
    ("hand", 32, "the cards the seat holds now (1 at each card index)"),
    ("own_projects", 32, "the cards behind the seat's own declaration"),
    ("buy_card", 32, "the revealed buy card of the round"),
    ("taker", 4, "the seat that takes the buy card, once the contract is fixed"),
    (
        "phase",
        7,
        (
            "one-hot phase: awaiting deal, bidding, doubling, playing, round over, "
            "match over, round review"
        ),
    ),
    ("dealer", 4, "the dealer"),
    ("turn", 4, "the seat to act (all 0 when nobody is)"),
    ("bidding_round", 2, "bidding round 1 or 2"),
    ("bid_stage", 5, "the bidding question: none, lap, reopen, confirm, priority"),
    (
        "bids",
        MAX_BIDS * _BID_SLOT,
        (
            f"{MAX_BIDS} slots in bidding order, each: seat (4), "
            f"bidding round (2), bid (one-hot over the {len(BIDS)} bids)"
        ),
    ),
    ("contract_type", 2, "Sun, Hokm"),
    ("trump", 4, "the trump suit S H D C (all 0 in Sun)"),
    ("buyer", 4, "the buyer"),
    ("contract_flags", 4, "Ashkal, bought in round 2, Gahwa, closed"),
    ("multiplier", 4, "x1, x2, x3, x4"),
    ("doubling_step", 6, "the doubling question: none, double, triple, four, gahwa, choose mode"),
    (
        "doubling_calls",
        MAX_CALLS * _CALL_SLOT,
        f"{MAX_CALLS} slots in order, each: seat (4), call (one-hot over the {len(CALLS)} calls)",
    ),
    ("trick_leader", 4, "the leader of the trick in progress"),
    ("trick_akka", 1, "the leader of the trick in progress called Akka"),
    ("trick_cards", 4 * 32, "the cards of the trick in progress, by the seat that played them"),
    (
        "tricks",
        8 * _TRICK_SLOT,
        (
            "the completed tricks, in order, each: leader (4), the card "
            "of each seat (4 x 32), winner (4)"
        ),
    ),
    (
        "played_by",
        4 * 32,
        "every card each seat has played this round (the trick in progress included)",
    ),
    (
        "declared",
        4 * len(DECLARATIONS),
        (
            "each seat's declaration (the types said aloud), "
            f"one-hot over the {len(DECLARATIONS)} declarations (all 0: none)"
        ),
    ),
    ("project_team", 2, "the team whose projects score once compared: own, other"),
    ("shown", 4 * 32, "the cards of each seat's shown projects"),
    ("baloot", 5, "the Baloot was announced (1), its holder (4) once known"),
    ("abnat", 2, "card abnat won so far, own team then other, / 162"),
    ("tricks_won", 2, "tricks won so far, own team then other, / 8"),
    ("match_scores", 2, "match totals, own team then other, / the match target (at most 1)"),
    ("hand_sizes", 4, "cards in each seat's hand / 8"),
)


def _segments() -> tuple[Segment, ...]:
    offset = 0
    segments = []
    for name, size, meaning in _LAYOUT:
        segments.append(Segment(name, offset, size, meaning))
        offset += size
    return tuple(segments)


SEGMENTS: Final = _segments()
"""The segments of the observation tensor, in order; seats are relative to the observer."""
OBSERVATION_SIZE: Final = SEGMENTS[-1].offset + SEGMENTS[-1].size
_AT: Final = {segment.name: segment.offset for segment in SEGMENTS}

_HAND = _AT["hand"]
_OWN_PROJECTS = _AT["own_projects"]
_BUY = _AT["buy_card"]
_TAKER = _AT["taker"]
_PHASE = _AT["phase"]
_DEALER = _AT["dealer"]
_TURN = _AT["turn"]
_BIDDING_ROUND = _AT["bidding_round"]
_BID_STAGE = _AT["bid_stage"]
_BIDS = _AT["bids"]
_CONTRACT_TYPE = _AT["contract_type"]
_TRUMP = _AT["trump"]
_BUYER = _AT["buyer"]
_CONTRACT_FLAGS = _AT["contract_flags"]
_MULTIPLIER = _AT["multiplier"]
_DOUBLING_STEP = _AT["doubling_step"]
_CALLS = _AT["doubling_calls"]
_TRICK_LEADER = _AT["trick_leader"]
_TRICK_AKKA = _AT["trick_akka"]
_TRICK_CARDS = _AT["trick_cards"]
_TRICKS = _AT["tricks"]
_PLAYED_BY = _AT["played_by"]
_DECLARED = _AT["declared"]
_PROJECT_TEAM = _AT["project_team"]
_SHOWN = _AT["shown"]
_BALOOT = _AT["baloot"]
_SCALARS = _AT["abnat"]
_SCALAR_COUNT = OBSERVATION_SIZE - _SCALARS
_ZEROS: Final = array("f", bytes(4 * OBSERVATION_SIZE))

_PHASE_INDEX: Final = {phase: i for i, phase in enumerate(Phase)}
_STAGE_INDEX: Final = {stage: i for i, stage in enumerate(BidStage)}
_STEP_INDEX: Final = {step: i for i, step in enumerate(DoublingStep)}
_BID_INDEX: Final = {bid: i for i, bid in enumerate(BIDS)}
_CALL_INDEX: Final = {call: i for i, call in enumerate(CALLS)}
# A declaration's types in either order (an automatic declaration lists them as it found them).
_DECLARATION_INDEX: Final = {
    kinds: i for i, d in enumerate(DECLARATIONS) for kinds in (d.kinds, d.kinds[::-1])
}
_BYTE_BITS: Final = tuple(tuple(r for r in range(8) if byte >> r & 1) for byte in range(256))


def _card_bits(ones: list[int], base: int, mask: int) -> None:
    """Append ``base + card`` for each card of ``mask``."""
    for shift in (0, 8, 16, 24):
        byte = mask >> shift & 0xFF
        if byte:
            start = base + shift
            ones.extend([start + r for r in _BYTE_BITS[byte]])


def encode(observation: Observation, perspective: int | None = None) -> npt.NDArray[np.float32]:
    """The tensor of an observation, seen from ``perspective`` (default: its own seat).

    A public observation (no seat) needs a ``perspective``; its hand and own projects are 0.
    """
    me = _perspective(observation, perspective)
    values = array("f", _ZEROS)
    for index in _history(observation, me):
        values[index] = 1.0
    for index in _slow(observation, me):
        values[index] = 1.0
    return _finish(values, observation, me)


class Encoder:
    """:func:`encode` with a cache: the same tensors, built faster along an episode.

    The history of a round (bids, doubling calls, completed tricks) only grows, by one record
    at a time, while an environment encodes an observation at every step. The encoder keeps,
    per perspective, the part of the tensor the history fills and adds only the records that
    are new since that perspective's last tensor (the rules core's states share the records,
    so a grown history starts with the very objects seen before); anything else rebuilds it.
    It also keeps the indexes of what changes a few times a round (the phase, the contract,
    the projects…) while everything they are computed from is equal.
    """

    def __init__(self) -> None:
        self._kept: dict[int, _Kept] = {}

    def __call__(
        self, observation: Observation, perspective: int | None = None
    ) -> npt.NDArray[np.float32]:
        me = _perspective(observation, perspective)
        bids, calls, tricks = observation.bids, observation.doubling_calls, observation.tricks
        key = _slow_key(observation)
        kept = self._kept.get(me)
        if (
            kept is None
            or not _starts_with(bids, kept.bids)
            or not _starts_with(calls, kept.calls)
            or not _starts_with(tricks, kept.tricks)
        ):
            values = array("f", _ZEROS)
            for index in _history(observation, me):
                values[index] = 1.0
            slow = _slow(observation, me)
            for index in slow:
                values[index] = 1.0
        else:
            values = kept.values
            if bids is not kept.bids or calls is not kept.calls or tricks is not kept.tricks:
                old = len(kept.bids), len(kept.calls), len(kept.tricks)
                for index in _history(observation, me, *old):
                    values[index] = 1.0
            slow = kept.slow
            if key != kept.key:
                for index in slow:
                    values[index] = 0.0
                slow = _slow(observation, me)
                for index in slow:
                    values[index] = 1.0
        self._kept[me] = _Kept(bids, calls, tricks, key, slow, values)
        return _finish(array("f", values), observation, me)


class _Kept(NamedTuple):
    """What an :class:`Encoder` keeps for one perspective: the history and the slowly changing
    part it last encoded, and the values they set (disjoint parts of the tensor)."""

    bids: tuple[object, ...]
    calls: tuple[object, ...]
    tricks: tuple[object, ...]
    key: tuple[object, ...]
    slow: list[int]
    values: array[float]


def _starts_with(new: tuple[object, ...], old: tuple[object, ...]) -> bool:
    """``new`` is ``old`` with records added (the same record objects first)."""
    if new is old:
        return True
    count = len(old)
    return len(new) >= count and (not count or new[count - 1] is old[-1])


def _perspective(observation: Observation, perspective: int | None) -> int:
    me = observation.seat if perspective is None else perspective
    if not 0 <= me <= 3:
        raise ValueError(f"a perspective is a seat 0-3, got {me}")
    return me


def _history(
    observation: Observation, me: int, bids_from: int = 0, calls_from: int = 0, tricks_from: int = 0
) -> list[int]:
    """The indexes set to 1 by the bids, the doubling calls and the completed tricks (from the
    given numbers of each on)."""
    ones: list[int] = []
    add = ones.append
    bids = observation.bids
    if len(bids) > MAX_BIDS:
        raise ValueError(f"{len(bids)} bids do not fit the {MAX_BIDS} slots of the tensor")
    for slot in range(bids_from, len(bids)):
        record = bids[slot]
        base = _BIDS + slot * _BID_SLOT
        add(base + ((record.seat - me) & 3))
        add(base + 4 + (record.bidding_round == 2))
        add(base + 6 + _BID_INDEX[record.bid])
    calls = observation.doubling_calls
    if len(calls) > MAX_CALLS:
        raise ValueError(f"{len(calls)} calls do not fit the {MAX_CALLS} slots of the tensor")
    for slot in range(calls_from, len(calls)):
        call = calls[slot]
        base = _CALLS + slot * _CALL_SLOT
        add(base + ((call.seat - me) & 3))
        add(base + 4 + _CALL_INDEX[call.call])
    tricks = observation.tricks
    for number in range(tricks_from, min(len(tricks), 8)):
        trick = tricks[number]
        base = _TRICKS + number * _TRICK_SLOT
        first = (trick.leader - me) & 3
        add(base + first)
        for position, card in enumerate(trick.cards):
            seat = (first + position) & 3
            add(base + 4 + seat * 32 + card)
            add(_PLAYED_BY + seat * 32 + card)
        add(base + 4 + 128 + ((trick.winner - me) & 3))
    return ones


def _slow_key(observation: Observation) -> tuple[object, ...]:
    """Everything :func:`_slow` reads: while it is equal, so are the indexes it gives."""
    return (
        observation.own_projects,
        observation.buy_card,
        observation.taker,
        observation.phase,
        observation.dealer,
        observation.bidding_round,
        observation.bid_stage,
        observation.contract,
        observation.doubling_step,
        observation.declared,
        observation.project_team,
        observation.shown,
        observation.baloot_announced,
        observation.baloot_seat,
    )


def _slow(observation: Observation, me: int) -> list[int]:
    """The indexes set to 1 by what changes a few times a round: the phase, the questions
    asked, the contract, the projects, the Baloot."""
    ones: list[int] = []
    add = ones.append
    for project in observation.own_projects:
        _card_bits(ones, _OWN_PROJECTS, project.cards)
    if observation.buy_card >= 0:
        add(_BUY + observation.buy_card)
    if observation.taker >= 0:
        add(_TAKER + ((observation.taker - me) & 3))
    add(_PHASE + _PHASE_INDEX[observation.phase])
    add(_DEALER + ((observation.dealer - me) & 3))
    if observation.bidding_round in (1, 2):
        add(_BIDDING_ROUND + observation.bidding_round - 1)
    add(_BID_STAGE + _STAGE_INDEX[observation.bid_stage])
    contract = observation.contract
    if contract is not None:
        hokm = contract.type is ContractType.HOKM
        add(_CONTRACT_TYPE + hokm)
        if hokm:
            add(_TRUMP + contract.trump)
        add(_BUYER + ((contract.buyer - me) & 3))
        if contract.ashkal:
            add(_CONTRACT_FLAGS)
        if contract.bidding_round == 2:
            add(_CONTRACT_FLAGS + 1)
        if contract.gahwa:
            add(_CONTRACT_FLAGS + 2)
        if contract.mode is _CLOSED:
            add(_CONTRACT_FLAGS + 3)
        add(_MULTIPLIER + min(max(contract.multiplier, 1), 4) - 1)
    add(_DOUBLING_STEP + _STEP_INDEX[observation.doubling_step])
    for seat, kinds in enumerate(observation.declared):
        if kinds:
            add(_DECLARED + ((seat - me) & 3) * len(DECLARATIONS) + _DECLARATION_INDEX[kinds])
    if observation.project_team >= 0:
        add(_PROJECT_TEAM + ((observation.project_team ^ me) & 1))
    for seat, project in observation.shown:
        _card_bits(ones, _SHOWN + ((seat - me) & 3) * 32, project.cards)
    if observation.baloot_announced:
        add(_BALOOT)
    if observation.baloot_seat >= 0:
        add(_BALOOT + 1 + ((observation.baloot_seat - me) & 3))
    return ones


def _finish(values: array[float], observation: Observation, me: int) -> npt.NDArray[np.float32]:
    """Set what changes at every step (the hand, the turn, the trick in progress, the counts)
    on values that hold the rest, and hand them to numpy."""
    ones: list[int] = []
    add = ones.append
    _card_bits(ones, _HAND, observation.hand)
    if observation.turn >= 0:
        add(_TURN + ((observation.turn - me) & 3))
    trick = observation.trick
    leader = observation.leader
    if trick or (observation.phase is Phase.PLAYING and leader >= 0):
        add(_TRICK_LEADER + ((leader - me) & 3))
    if observation.akka:
        add(_TRICK_AKKA)
    for position, card in enumerate(trick):
        seat = (leader + position - me) & 3
        add(_TRICK_CARDS + seat * 32 + card)
        add(_PLAYED_BY + seat * 32 + card)
    own = me & 1
    abnat = observation.abnat
    scores = observation.match_scores
    target = observation.rules.match_target
    sizes = observation.hand_sizes
    team_1 = 0
    for record in observation.tricks:
        team_1 += record.winner & 1
    won = (len(observation.tricks) - team_1, team_1)
    for index in ones:
        values[index] = 1.0
    at = _SCALARS
    values[at] = abnat[own] / 162
    values[at + 1] = abnat[own ^ 1] / 162
    values[at + 2] = won[own] / 8
    values[at + 3] = won[own ^ 1] / 8
    values[at + 4] = min(scores[own] / target, 1.0)
    values[at + 5] = min(scores[own ^ 1] / target, 1.0)
    values[at + 6] = sizes[me] / 8
    values[at + 7] = sizes[(me + 1) & 3] / 8
    values[at + 8] = sizes[(me + 2) & 3] / 8
    values[at + 9] = sizes[(me + 3) & 3] / 8
    # The values are written in a Python array (much quicker per value than numpy's items)
    # and handed to numpy without a copy; each tensor has an array of its own.
    return np.frombuffer(values, np.float32)


assert _SCALAR_COUNT == 10


def describe(observation: Observation, perspective: int | None = None) -> str:
    """The observation as one line of text (seats absolute), for the frameworks' strings.

    It names everything the tensor holds, so two observations with equal tensors from the same
    seat give equal strings and the other way round.
    """
    me = observation.seat if perspective is None else perspective
    parts = [
        f"seat {me}",
        observation.phase.value,
        f"dealer {observation.dealer}",
        f"turn {observation.turn}",
        f"hand [{format_mask(observation.hand)}]",
    ]
    if observation.own_projects:
        own = " ".join(format_mask(p.cards) for p in observation.own_projects)
        parts.append(f"own projects [{own}]")
    if observation.buy_card >= 0:
        parts.append(f"buy {format_card(observation.buy_card)} taker {observation.taker}")
    if observation.bids:
        bids = ", ".join(f"{r.seat}:{r.bid}/{r.bidding_round}" for r in observation.bids)
        parts.append(f"bids [{bids}] round {observation.bidding_round}")
    parts.append(f"stage {observation.bid_stage.value}")
    contract = observation.contract
    if contract is not None:
        trump = SUIT_LETTERS[contract.trump] if contract.trump >= 0 else "-"
        parts.append(
            f"contract {contract.type.value} {trump} buyer {contract.buyer}"
            f" x{contract.multiplier}{' gahwa' if contract.gahwa else ''}"
            f"{' ashkal' if contract.ashkal else ''} round {contract.bidding_round}"
            f" {contract.mode.value}"
        )
    if observation.doubling_calls:
        calls = ", ".join(f"{r.seat}:{r.call}" for r in observation.doubling_calls)
        parts.append(f"calls [{calls}]")
    parts.append(f"step {observation.doubling_step.value}")
    for record in observation.tricks:
        cards = " ".join(format_card(c) for c in record.cards)
        parts.append(f"trick {record.leader}:[{cards}]>{record.winner}")
    if observation.trick or observation.phase is Phase.PLAYING:
        cards = " ".join(format_card(c) for c in observation.trick)
        akka = " akka" if observation.akka else ""
        parts.append(f"current {observation.leader}:[{cards}]{akka}")
    declared = [
        f"{seat}:{'+'.join(k.value for k in kinds)}"
        for seat, kinds in enumerate(observation.declared)
        if kinds
    ]
    if declared:
        parts.append(f"declared [{' '.join(declared)}]")
    if observation.project_team >= 0:
        shown = " ".join(f"{seat}:{format_mask(p.cards)}" for seat, p in observation.shown)
        parts.append(f"projects team {observation.project_team} [{shown}]")
    if observation.baloot_announced or observation.baloot_seat >= 0:
        announced = " announced" if observation.baloot_announced else ""
        parts.append(f"baloot {observation.baloot_seat}{announced}")
    parts.append(f"abnat {observation.abnat[0]}-{observation.abnat[1]}")
    parts.append(f"match {observation.match_scores[0]}-{observation.match_scores[1]}")
    parts.append("sizes " + "".join(str(size) for size in observation.hand_sizes))
    return " | ".join(parts)
