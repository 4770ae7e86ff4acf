"""Views: an observation encoded for the wire.

What a seat (or anyone) may see is defined once, by the rules core's observation
(:mod:`baloot_engine.rules.observation`), and the views are encoded from it and from nothing
else: the public part from ``observe_public(state)``, each seat's part from its own fields of
``observe(state, seat)`` (:func:`~baloot_engine.rules.observation.seat_fields`, the same fields
without copying the public ones into a whole observation per seat). A view never holds another
seat's hand, the stock or the deck order. :func:`encode_observation` is the readable
field-by-field encoding of an observation into a ``View``, the definition of what a view holds.

Views are built on the path of every action, once per seat the caller may see (four for the
host), so they are assembled from encoded pieces rather than field by field. Protobuf parses
the concatenated encodings of a message as one message (singular fields merge, repeated fields
append in order), so each piece is the encoding of a ``View`` that holds only some fields:

* the *public* part (everything but the seat, its hand and its legal actions) is built once
  per response and shared by every seat's view;
* pieces that depend only on small immutable values that recur from call to call (the match
  score, the contract, the bids, a trick, a legal action) are cached by those values: with the
  upb backend, building small sub-messages one by one and copying them is what costs most,
  while a cached encoding costs one dictionary lookup;
* the response's views are then parsed in place (:func:`add_views`).

``tests/api/test_views.py`` checks that for every state of random matches and every seat (and
the public view) the pieces give exactly the view :func:`encode_observation` makes of the
observation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Final, Generic, TypeVar

from google.protobuf.internal.containers import RepeatedCompositeFieldContainer

from baloot.v1 import types_pb2
from baloot_engine.api import outbound
from baloot_engine.rules import (
    LIVE_PHASES,
    Action,
    Contract,
    Observation,
    Phase,
    Play,
    RuleSet,
    State,
    tricks_won,
)
from baloot_engine.rules.members import CONTRACT_SUN, PLAYING
from baloot_engine.rules.observation import SeatFields, observe_public, seat_fields
from baloot_engine.rules.projects import baloot_project
from baloot_engine.rules.state import BidRecord, DoublingRecord

_IN_PLAY: Final = (Phase.PLAYING, Phase.ROUND_REVIEW)
_Value = TypeVar("_Value")
_NO_DECLARATIONS: Final = 4  # declarations holds one entry per seat, None when not declared


def encode_observation(
    observation: Observation, match_id: str, version: int, *, with_rules: bool = False
) -> types_pb2.View:
    """The view of an observation, built the plain way: one field and one sub-message at a time.

    This is what a view holds; :func:`build_view` and :func:`add_views` make the same message
    faster. ``with_rules`` adds the rule set (see :func:`build_view`).
    """
    obs = observation
    phase = obs.phase
    score = obs.last_score
    view = types_pb2.View(
        match_id=match_id,
        state_version=version,
        phase=outbound.PHASE_NUMBERS[phase],
        round_number=obs.hand_number,
        dealer=obs.dealer,
        match_score=outbound.match_score_message(
            obs.match_scores,
            obs.rules.match_target,
            obs.hand_number,
            obs.winner,
            score is not None and score.gahwa_winner is not None,
            obs.rounds_scored,
        ),
    )
    if with_rules:
        view.rules.CopyFrom(outbound.rules_out(obs.rules))
    if obs.seat >= 0:
        view.seat = obs.seat
    if obs.turn >= 0:
        view.turn = obs.turn
    if obs.contract is not None:
        view.contract.CopyFrom(outbound.contract_out(obs.contract))
    if obs.buy_card >= 0:
        view.revealed_card = obs.buy_card
    for record in obs.bids:
        view.bids.add(
            seat=record.seat, bid=outbound.bid_out(record.bid), bidding_round=record.bidding_round
        )
    for call in obs.doubling_calls:
        view.doubling_calls.add(seat=call.seat, doubling=outbound.doubling_out(call.call))
    trump = obs.trump
    tricks = obs.tricks
    if phase is PLAYING:
        outbound.trick_out(
            len(tricks) + 1, obs.leader, obs.trick, trump, akka=obs.akka, into=view.current_trick
        )
    if tricks:
        last = tricks[-1]
        outbound.trick_out(
            len(tricks), last.leader, last.cards, trump, last.winner, into=view.last_trick
        )
    view.tricks_won.extend(obs.tricks_won)
    view.abnat_won.extend(obs.abnat)
    for declarer, kinds in enumerate(obs.declared):
        if kinds is not None:
            view.declared_projects.add(
                seat=declarer, kinds=[outbound.PROJECT_KIND_NUMBERS[k] for k in kinds]
            )
    for declarer, project in obs.shown:
        view.revealed_projects.append(outbound.project_out(declarer, project, trump))
    if obs.baloot_announced and phase in _IN_PLAY:
        view.revealed_projects.append(
            outbound.project_out(obs.baloot_seat, baloot_project(trump), trump)
        )
    if score is not None and phase not in LIVE_PHASES:
        view.round_score.CopyFrom(outbound.round_score_out(score, obs.hand_number, obs.contract))
        sun = score.contract is CONTRACT_SUN
        view.revealed_projects.extend(outbound.awarded_out(p, sun) for p in score.awarded)
        holder = obs.scored_baloot_seat
        if holder >= 0:
            view.revealed_projects.append(
                outbound.project_out(holder, baloot_project(trump), trump)
            )
    if phase in LIVE_PHASES:
        view.hand_sizes.extend(obs.hand_sizes)
    if obs.seat >= 0:
        view.hand.extend(outbound.cards_of(obs.hand))
        for action in obs.legal_actions:
            outbound.add_action(view.legal_actions, action)
    return view


def build_view(
    state: State, seat: int | None, match_id: str, version: int, *, with_rules: bool = False
) -> types_pb2.View:
    """The view of ``seat`` (its hand and legal actions included), or the public view.

    ``with_rules`` adds the rule set, which never changes during a match (CreateMatch and
    GetView send it; action responses leave it out to stay small).
    """
    public = observe_public(state)
    data = public_view_bytes(public, match_id, version, with_rules=with_rules)
    if seat is not None:
        data += seat_view_bytes(seat_fields(state, seat, public))
    return types_pb2.View.FromString(data)


def add_views(
    into: RepeatedCompositeFieldContainer[types_pb2.View],
    state: State,
    seats: Sequence[int],
    match_id: str,
    version: int,
    *,
    with_rules: bool = False,
    extra: bytes = b"",
) -> None:
    """Append the view of each of ``seats`` to a response's repeated ``views`` field.

    The public part is encoded once for all the seats; each view is parsed in place from it
    and the seat's own part, with no intermediate message to copy. ``extra`` is an encoded
    ``View`` part every view also gets (a finished round's reveal, see ``api/records.py``).
    """
    observed = observe_public(state)
    public = public_view_bytes(observed, match_id, version, with_rules=with_rules) + extra
    for seat in seats:
        into.add().MergeFromString(public + seat_view_bytes(seat_fields(state, seat, observed)))


def public_view_bytes(
    obs: Observation, match_id: str, version: int, *, with_rules: bool = False
) -> bytes:
    """The encoded ``View`` of a public observation (no seat, hand or actions)."""
    # Unpacked whole: cheaper than reading a NamedTuple's fields by name one at a time.
    (
        rules,
        phase,
        dealer,
        round_number,
        rounds_scored,
        match_scores,
        winner,
        score,
        turn,
        buy_card,
        _taker,
        hand_sizes,
        _bidding_round,
        _bid_stage,
        bids,
        contract,
        _doubling_step,
        calls,
        leader,
        trick,
        akka,
        tricks,
        _played,
        abnat,
        declared,
        _project_team,
        _shown,
        announced,
        _baloot_seat,
        _scored_baloot_seat,
        _seat,
        _hand,
        _full_hand,
        _own_projects,
        _legal_actions,
    ) = obs
    header = types_pb2.View(
        match_id=match_id,
        state_version=version,
        phase=outbound.PHASE_NUMBERS[phase],
        round_number=round_number,
        dealer=dealer,
    )
    if turn >= 0:
        header.turn = turn
    if buy_card >= 0:
        header.revealed_card = buy_card
    parts = [
        header.SerializeToString(),
        _tricks_won_part(*tricks_won(tricks)),
        _abnat_part(abnat),
        _match_score_part(
            match_scores,
            rules.match_target,
            round_number,
            winner,
            score is not None and score.gahwa_winner is not None,
            rounds_scored,
        ),
    ]
    live = phase in LIVE_PHASES
    if live:
        parts.append(_hand_sizes_part(hand_sizes))
    if with_rules:
        parts.append(_rules_part(rules))
    if contract is not None:
        parts.append(_contract_piece(contract))
    if bids:
        parts.append(_bids_piece(bids))
    if calls:
        parts.append(_doubling_calls_piece(calls))
    trump = -1 if contract is None else contract.trump
    if phase is PLAYING:
        parts.append(_trick_part(False, len(tricks) + 1, leader, trick, trump, -1, akka))
    if tricks:
        last = tricks[-1]
        parts.append(_trick_part(True, len(tricks), last.leader, last.cards, trump, last.winner))
    if declared.count(None) != _NO_DECLARATIONS or announced or (score is not None and not live):
        parts.append(_projects_and_score_part(obs))
    return b"".join(parts)


def seat_view_bytes(fields: SeatFields) -> bytes:
    """The encoded ``View`` fields of a seat's own observation fields (see
    :func:`~baloot_engine.rules.observation.seat_fields`): the seat, its hand, its actions."""
    _baloot_seat, _scored_baloot_seat, seat, hand, _full_hand, _own_projects, legal = fields
    parts = [
        _SEAT_PIECES[seat],
        _HAND_PIECES[0][hand & 0xFF],
        _HAND_PIECES[1][hand >> 8 & 0xFF],
        _HAND_PIECES[2][hand >> 16 & 0xFF],
        _HAND_PIECES[3][hand >> 24 & 0xFF],
    ]
    for action in legal:
        if type(action) is Play:
            parts.append(_PLAY_PIECES[action.akka][action.card])
        else:
            parts.append(_legal_action_part(action))
    return b"".join(parts)


# ---------------------------------------------------------------------------------------
# Cached pieces: each is the encoding of a View holding only the fields it names.


def _encode_legal_action(action: Action) -> bytes:
    view = types_pb2.View()
    outbound.add_action(view.legal_actions, action)
    return view.SerializeToString()


_SEAT_PIECES: Final = tuple(types_pb2.View(seat=seat).SerializeToString() for seat in range(4))
# A hand in four pieces, one per suit byte of its mask. A packed repeated field may arrive in
# several runs, which a parser joins in order, so the four runs read as one ascending list.
_HAND_PIECES: Final = tuple(
    tuple(
        types_pb2.View(hand=[suit * 8 + c for c in range(8) if byte >> c & 1]).SerializeToString()
        for byte in range(256)
    )
    for suit in range(4)
)


# The legal card plays (most legal actions) by Akka call and card, encoded in advance.
_PLAY_PIECES: Final = tuple(
    tuple(_encode_legal_action(Play(card, akka)) for card in range(32)) for akka in (False, True)
)


@lru_cache(maxsize=128)
def _tricks_won_part(team_0: int, team_1: int) -> bytes:
    return types_pb2.View(tricks_won=(team_0, team_1)).SerializeToString()


@lru_cache(maxsize=4096)
def _abnat_part(abnat: tuple[int, int]) -> bytes:
    return types_pb2.View(abnat_won=abnat).SerializeToString()


@lru_cache(maxsize=1024)
def _hand_sizes_part(sizes: tuple[int, int, int, int]) -> bytes:
    return types_pb2.View(hand_sizes=sizes).SerializeToString()


@lru_cache(maxsize=1024)
def _match_score_part(
    points: tuple[int, int],
    target: int,
    rounds_played: int,
    winner: int,
    gahwa: bool,
    rounds_scored: int,
) -> bytes:
    score = outbound.match_score_message(
        points, target, rounds_played, winner, gahwa, rounds_scored
    )
    return types_pb2.View(match_score=score).SerializeToString()


@lru_cache(maxsize=64)
def _rules_part(rules: RuleSet) -> bytes:
    return types_pb2.View(rules=outbound.rules_out(rules)).SerializeToString()


class _ByIdentity(Generic[_Value]):
    """An encoding function remembered by the identity of its (immutable) argument.

    The contract, the bids and the doubling calls of a state are the very objects the state
    codec's caches handed out, shared by every state decoded from the same bytes, so their
    identity recurs from call to call. Looking an object up by its ``id`` skips hashing it as
    a cache key, which for a tuple of records holding Enum members (whose hash is Python code)
    costs more than the rest of the view's public part. Each entry keeps its object alive, so
    an ``id`` cannot be reused for another object while its entry exists; a different object
    with an equal value still gets the same bytes from ``encode``'s own cache.
    """

    __slots__ = ("_encode", "_entries", "_size")

    def __init__(self, encode: Callable[[_Value], bytes], size: int) -> None:
        self._encode = encode
        self._size = size
        self._entries: dict[int, tuple[_Value, bytes]] = {}

    @property
    def entries(self) -> dict[int, tuple[_Value, bytes]]:
        """The cache itself (for its fill and sizes: ``server/caches.py``)."""
        return self._entries

    @property
    def size(self) -> int:
        """The most entries it holds."""
        return self._size

    def __call__(self, value: _Value) -> bytes:
        entry = self._entries.get(id(value))
        if entry is not None and entry[0] is value:
            return entry[1]
        data = self._encode(value)
        if len(self._entries) >= self._size:
            self._entries.clear()  # rare (a bounded working set); refilled from encode's cache
        self._entries[id(value)] = (value, data)
        return data


@lru_cache(maxsize=1024)
def _contract_part(contract: Contract) -> bytes:
    return types_pb2.View(contract=outbound.contract_out(contract)).SerializeToString()


@lru_cache(maxsize=4096)
def _bids_part(bids: tuple[BidRecord, ...]) -> bytes:
    view = types_pb2.View()
    for record in bids:
        view.bids.add(
            seat=record.seat, bid=outbound.bid_out(record.bid), bidding_round=record.bidding_round
        )
    return view.SerializeToString()


@lru_cache(maxsize=1024)
def _doubling_calls_part(calls: tuple[DoublingRecord, ...]) -> bytes:
    view = types_pb2.View()
    for call in calls:
        view.doubling_calls.add(seat=call.seat, doubling=outbound.doubling_out(call.call))
    return view.SerializeToString()


_contract_piece: Final = _ByIdentity(_contract_part, 1024)
_bids_piece: Final = _ByIdentity(_bids_part, 4096)
_doubling_calls_piece: Final = _ByIdentity(_doubling_calls_part, 1024)


@lru_cache(maxsize=8192)
def _trick_part(
    completed: bool,
    number: int,
    leader: int,
    cards: tuple[int, ...],
    trump: int,
    winner: int,
    akka: bool = False,
) -> bytes:
    """The last completed trick (``completed``) or the trick in progress."""
    view = types_pb2.View()
    into = view.last_trick if completed else view.current_trick
    outbound.trick_out(
        number, leader, cards, trump, winner if completed else None, akka=akka, into=into
    )
    return view.SerializeToString()


@lru_cache(maxsize=1024)
def _legal_action_part(action: Action) -> bytes:
    return _encode_legal_action(action)


def _projects_and_score_part(obs: Observation) -> bytes:
    """Declared and revealed projects and the round score (a few calls per round)."""
    view = types_pb2.View()
    trump = obs.trump
    phase = obs.phase
    for declarer, kinds in enumerate(obs.declared):
        if kinds is not None:
            view.declared_projects.add(
                seat=declarer, kinds=[outbound.PROJECT_KIND_NUMBERS[k] for k in kinds]
            )
    for declarer, project in obs.shown:
        view.revealed_projects.append(outbound.project_out(declarer, project, trump))
    if obs.baloot_announced and phase in _IN_PLAY:
        holder = obs.baloot_seat
        view.revealed_projects.append(outbound.project_out(holder, baloot_project(trump), trump))
    score = obs.last_score
    if score is not None and phase not in LIVE_PHASES:
        view.round_score.CopyFrom(outbound.round_score_out(score, obs.hand_number, obs.contract))
        sun = score.contract is CONTRACT_SUN
        view.revealed_projects.extend(outbound.awarded_out(p, sun) for p in score.awarded)
        holder = obs.scored_baloot_seat
        if holder >= 0:
            view.revealed_projects.append(
                outbound.project_out(holder, baloot_project(trump), trump)
            )
    return view.SerializeToString()


def last_round_out(state: State) -> types_pb2.RoundScore:
    """The breakdown of ``state.last_score`` (which must be set)."""
    score = state.last_score
    assert score is not None
    if state.phase in LIVE_PHASES:  # a new round is under way: the score is of the one before
        return outbound.round_score_out(score, max(state.hand_number - 1, 0), None)
    return outbound.round_score_out(score, state.hand_number, state.contract)


CACHES: Final = {
    "view_tricks_won": _tricks_won_part,
    "view_abnat": _abnat_part,
    "view_hand_sizes": _hand_sizes_part,
    "view_match": _match_score_part,
    "view_rules": _rules_part,
    "view_contract": _contract_part,
    "view_bids": _bids_part,
    "view_doubles": _doubling_calls_part,
    "view_trick": _trick_part,
    "view_legal": _legal_action_part,
}
"""The bounded caches of this module, by their metric label (``server/caches.py``)."""
PIECES: Final = {
    "view_contract_id": _contract_piece,
    "view_bids_id": _bids_piece,
    "view_doubles_id": _doubling_calls_piece,
}
"""Its caches by identity (:class:`Piece`), by their metric label."""
