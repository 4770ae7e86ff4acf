"""From the research environments to the service: views in, actions out.

An agent trained in :mod:`~baloot_engine.research.pettingzoo_env` (or the OpenSpiel game, or
the Gymnasium wrapper) reads a tensor and a mask and answers with an action index. To play the
same agent through the service (``baloot.v1.BalootEngineService``), only the contract's
messages are needed:

* :class:`ViewReader` turns the ``View`` messages one seat receives into the very
  observation the environments give (``{"observation": float32[2350], "action_mask":
  int8[105]}``), or into the rules core's
  :class:`~baloot_engine.rules.observation.Observation` (:meth:`ViewReader.observation`);
* :func:`action_to_message` turns an action index into the contract's ``Action`` message (to
  send with ``PlaceBid``, ``CallDouble``, ``DeclareProjects`` or ``PlayCard``, or
  ``baloot_client.Match.act``), and :func:`action_from_message` an ``Action`` of a view's
  legal actions (or of an event, a record, a bot's suggestion) into its index;
* :func:`rules_to_message` and :func:`rules_from_message` carry a rule set between the
  environments' constructors and the contract's ``RuleSet``, so a match is created with the
  rules the agent was trained under.

What a view lacks, the reader keeps or works out from what the seat saw, never from anything
hidden: a view shows the last completed trick and the trick in progress, so the reader keeps
the completed tricks of the round from the views it is given (feed it every view of the seat,
or at least one view at each of the seat's turns: a seat plays once per trick, so the view of
its next turn shows the trick it last played to as the last completed one). The question the
bidding or the doubling is asking (which the tensor encodes) is found by replaying the
public bids and calls in the rules core; the cards behind the seat's own declaration, from its
hand and the types it declared. A view that leaves a completed trick unseen raises
:class:`MissedTrickError` rather than give a tensor with a hole in it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import Enum
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from baloot.v1 import rules_pb2, types_pb2
from baloot_engine.research.core import make_rules
from baloot_engine.research.encoding import (
    ACTION_INDEX,
    ACTIONS,
    NUM_ACTIONS,
    Encoder,
)
from baloot_engine.rules.actions import (
    Action,
    Bid,
    BidKind,
    CallQayd,
    ClaimSawa,
    Deal,
    Declare,
    Doubling,
    DoublingCall,
    Play,
    QaydCategory,
)
from baloot_engine.rules.cards import SUIT_MASKS
from baloot_engine.rules.contract import Contract, ContractType, PlayMode
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.game import apply, new_match
from baloot_engine.rules.observation import Observation
from baloot_engine.rules.projects import (
    Project,
    ProjectKind,
    has_baloot,
    projects_for_declaration,
)
from baloot_engine.rules.ruleset import (
    FEDERATION,
    KAMMELNA,
    SEEDS,
    Preset,
    RuleSet,
    RuleSetError,
)
from baloot_engine.rules.state import (
    LIVE_PHASES,
    BidRecord,
    BidStage,
    DoublingRecord,
    DoublingStep,
    Phase,
    State,
    TrickRecord,
)

Observed = dict[str, npt.NDArray[Any]]


class MissedTrickError(ValueError):
    """The views given to a :class:`ViewReader` left a completed trick of the round unseen."""


# ---------------------------------------------------------------------------------------------
# Enumerations: a proto enum value is named after the core member (``BidKind.SUN`` is
# ``BID_KIND_SUN``); zero is ``…_UNSPECIFIED`` and pairs with no member.


def _prefix(enum_name: str) -> str:
    """``BidKind`` gives ``BID_KIND_``."""
    out = []
    for i, char in enumerate(enum_name):
        if char.isupper() and i:
            out.append("_")
        out.append(char.upper())
    return "".join(out) + "_"


def _pairs(proto_enum: Any, core_enum: type[Enum]) -> dict[int, Any]:
    prefix = _prefix(proto_enum.DESCRIPTOR.name)
    return {proto_enum.Value(prefix + member.name): member for member in core_enum}


_PHASES: Final = _pairs(types_pb2.Phase, Phase)
_BID_KINDS: Final = _pairs(types_pb2.BidKind, BidKind)
_CALLS: Final = _pairs(types_pb2.DoublingCall, DoublingCall)
_MODES: Final = _pairs(types_pb2.PlayMode, PlayMode)
_PROJECT_KINDS: Final = _pairs(types_pb2.ProjectKind, ProjectKind)
_CONTRACT_TYPES: Final = _pairs(types_pb2.ContractType, ContractType)
_QAYD_CATEGORIES: Final = _pairs(types_pb2.QaydCategory, QaydCategory)
# Core member -> proto number, typed Any: each number is of its own proto enum's ValueType.
_BID_KIND_NUMBERS: Final[dict[Any, Any]] = {m: n for n, m in _BID_KINDS.items()}
_CALL_NUMBERS: Final[dict[Any, Any]] = {m: n for n, m in _CALLS.items()}
_MODE_NUMBERS: Final[dict[Any, Any]] = {m: n for n, m in _MODES.items()}
_PROJECT_KIND_NUMBERS: Final[dict[Any, Any]] = {m: n for n, m in _PROJECT_KINDS.items()}
_SUIT_NUMBERS: Final[tuple[Any, ...]] = tuple(range(5))  # a core suit (-1 for none) plus one


def _member(table: Mapping[int, Any], number: int, what: str) -> Any:
    member = table.get(number)
    if member is None:
        raise ValueError(f"{what} is unspecified or unknown (value {number})")
    return member


# ---------------------------------------------------------------------------------------------
# Actions.


def _action_core(message: types_pb2.Action) -> Action:
    """The rules-core action of a contract ``Action`` (any kind, a deal or a Qayd call too)."""
    which = message.WhichOneof("action")
    if which == "play":
        play = message.play
        if play.sawa:
            return ClaimSawa()
        if not 0 <= play.card < 32:
            raise ValueError(f"not a card: {play.card}")
        return Play(play.card, play.akka)
    if which == "bid":
        kind = _member(_BID_KINDS, message.bid.kind, "the bid kind")
        return Bid(kind, message.bid.suit - 1)
    if which == "doubling":
        return _doubling(message.doubling)
    if which == "declaration":
        kinds = message.declaration.kinds
        return Declare(tuple(_member(_PROJECT_KINDS, k, "a project kind") for k in kinds))
    if which == "deal":
        return Deal(tuple(message.deal.deck_order))
    if which == "qayd":
        qayd = message.qayd
        card = qayd.card if qayd.HasField("card") else -1
        category = None if qayd.category == 0 else _QAYD_CATEGORIES.get(qayd.category)
        return CallQayd(qayd.accused, qayd.trick, card, category)
    raise ValueError("the Action message holds no action")


def _doubling(message: types_pb2.Doubling) -> Doubling:
    call = _member(_CALLS, message.call, "the doubling call")
    mode = None if message.mode == 0 else _member(_MODES, message.mode, "the play mode")
    return Doubling(call, mode)


def action_from_message(message: types_pb2.Action) -> int:
    """The action index (of :data:`~baloot_engine.research.encoding.ACTIONS`) of a contract
    ``Action``: one of a view's ``legal_actions``, an event's or a record's action.

    A Sawa claim is index 104 whatever card its ``CardPlay`` names. Raises ValueError for the
    actions that are not in the table: a deal (the environments deal themselves) and a Qayd
    call (table play is not offered).
    """
    action = _action_core(message)
    index = ACTION_INDEX.get(action)
    if index is None:
        raise ValueError(f"{action} is not in the research action table (deals and Qayd calls)")
    return index


def action_to_message(index: int) -> types_pb2.Action:
    """The contract ``Action`` of an action index: the message to send for it (its ``bid``,
    ``doubling``, ``declaration`` or ``play``, as ``PlaceBid``, ``CallDouble``,
    ``DeclareProjects`` or ``PlayCard`` take it; ``baloot_client.Match.act`` sends any)."""
    if not 0 <= index < NUM_ACTIONS:
        raise IndexError(f"an action index is 0-{NUM_ACTIONS - 1}, got {index}")
    action = ACTIONS[index]
    if type(action) is Play:
        return types_pb2.Action(play=types_pb2.CardPlay(card=action.card, akka=action.akka))
    if type(action) is ClaimSawa:
        return types_pb2.Action(play=types_pb2.CardPlay(sawa=True))
    if type(action) is Bid:
        bid = types_pb2.Bid(
            kind=_BID_KIND_NUMBERS[action.kind], suit=_SUIT_NUMBERS[action.suit + 1]
        )
        return types_pb2.Action(bid=bid)
    if type(action) is Doubling:
        mode = _MODE_NUMBERS.get(action.mode, 0)
        return types_pb2.Action(
            doubling=types_pb2.Doubling(call=_CALL_NUMBERS[action.call], mode=mode)
        )
    assert type(action) is Declare
    kinds = [_PROJECT_KIND_NUMBERS[kind] for kind in action.kinds]
    return types_pb2.Action(declaration=types_pb2.Declaration(kinds=kinds))


def legal_mask_of(actions: Iterable[types_pb2.Action]) -> npt.NDArray[np.int8]:
    """The 0/1 mask of :data:`~baloot_engine.research.encoding.NUM_ACTIONS` values of a
    view's ``legal_actions`` (a deal, listed for the dealer between rounds, is left out)."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    for message in actions:
        index = ACTION_INDEX.get(_action_core(message))
        if index is not None:
            mask[index] = 1
    return mask


# ---------------------------------------------------------------------------------------------
# Rule sets.

_PRESETS: Final = {
    rules_pb2.PRESET_UNSPECIFIED: SEEDS,
    rules_pb2.PRESET_SEEDS: SEEDS,
    rules_pb2.PRESET_KAMMELNA: KAMMELNA,
    rules_pb2.PRESET_FEDERATION: FEDERATION,
}
_FLAGS: Final = tuple(f.name for f in rules_pb2.RuleSet.DESCRIPTOR.fields if f.name != "preset")


def rules_from_message(message: rules_pb2.RuleSet) -> RuleSet:
    """The rule set of a contract ``RuleSet`` (a view's ``rules``): its preset and the flags
    it sets, as the service reads it."""
    proto: Any = message  # flags are read by name
    base = _PRESETS.get(proto.preset)
    if base is None:
        raise ValueError(f"unknown preset value {proto.preset}")
    changes: dict[str, object] = {}
    for name in _FLAGS:
        if not proto.HasField(name):
            continue
        value = getattr(proto, name)
        default = getattr(SEEDS, name)
        if not isinstance(default, Enum):
            changes[name] = value
            continue
        enum_type: Any = proto.DESCRIPTOR.fields_by_name[name].enum_type
        number = enum_type.values_by_number.get(value)
        prefix = _prefix(enum_type.name)
        member = None
        if number is not None and number.name.startswith(prefix):
            member = type(default).__members__.get(number.name[len(prefix) :])
        if member is None:
            raise ValueError(f"{name}: unknown or unspecified value {value}")
        changes[name] = member
    try:
        return base.replace(**changes)
    except RuleSetError as error:
        raise ValueError(str(error)) from None


def rules_to_message(
    preset: str | Preset | RuleSet = Preset.SEEDS, flags: Mapping[str, object] | None = None
) -> rules_pb2.RuleSet:
    """The contract ``RuleSet`` of an environment's rules (a preset name or a
    :class:`RuleSet`, and single flags, as the environments take them), every flag set: the
    ``rules`` of a ``CreateMatchRequest`` for a match under exactly those rules."""
    rules = preset if isinstance(preset, RuleSet) and not flags else make_rules(preset, flags)
    message = rules_pb2.RuleSet(preset=rules_pb2.PRESET_SEEDS)
    for name in _FLAGS:
        value = getattr(rules, name)
        if isinstance(value, Enum):
            enum_type: Any = message.DESCRIPTOR.fields_by_name[name].enum_type
            value = enum_type.values_by_name[_prefix(enum_type.name) + value.name].number
        setattr(message, name, value)
    return message


# ---------------------------------------------------------------------------------------------
# Views.


def _mask(cards: Iterable[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def _contract(message: types_pb2.Contract) -> Contract:
    return Contract(
        type=_member(_CONTRACT_TYPES, message.type, "the contract type"),
        trump=message.trump - 1,
        buyer=message.buyer,
        ashkal=message.ashkal,
        bidding_round=message.bidding_round,
        multiplier=message.multiplier,
        gahwa=message.gahwa,
        mode=_member(_MODES, message.mode, "the play mode"),
    )


def _project(message: types_pb2.Project) -> Project:
    kind = _member(_PROJECT_KINDS, message.kind, "a project kind")
    cards = _mask(message.cards)
    sequence = kind is not ProjectKind.BALOOT and any(cards & ~m == 0 for m in SUIT_MASKS)
    return Project(kind, cards, sequence)


class _Replay:
    """The bidding and doubling of a round replayed in the rules core from their public
    records, to read the questions they ask (which no view states)."""

    def __init__(self, rules: RuleSet, view: types_pb2.View) -> None:
        scores = tuple(view.match_score.points)
        state = new_match(rules, view.dealer, (scores[0], scores[1]))
        revealed = view.revealed_card
        deck = [card for card in range(32) if card != revealed]
        deck.insert(20, revealed)  # the deck order's buy card (R4); the hands do not matter
        self.state: State = apply(state, view.dealer, Deal(tuple(deck)))[0]
        self.bids = 0
        self.calls = 0

    def advance(self, bids: tuple[BidRecord, ...], calls: tuple[DoublingRecord, ...]) -> State:
        state = self.state
        try:
            for record in bids[self.bids :]:
                state = apply(state, record.seat, record.bid)[0]
            for call in calls[self.calls :]:
                state = apply(state, call.seat, call.call)[0]
        except RuleError as error:
            raise ValueError(
                f"the view's bids and calls do not follow these rules ({error}): "
                "give the reader the match's rules"
            ) from None
        self.state, self.bids, self.calls = state, len(bids), len(calls)
        return state


class ViewReader:
    """The research observation of one seat, from the service's views of that seat.

    One reader per seat and match: ``reader(view)`` gives the environments' observation
    dictionary (``{"observation": float32[2350], "action_mask": int8[105]}``), and
    :meth:`observation` the rules core's observation it encodes. Give it every view of the
    seat you receive (a response's view of the seat, a ``GetView`` of it), in order, or at
    least one at each of the seat's turns; see the module's documentation.

    ``rules`` (a preset name or a :class:`RuleSet`, with ``flags``, as the environments take
    them) may be left out when the first view given carries the match's rules (the views of
    ``CreateMatch`` and ``GetView`` do); when both are there they must agree.
    """

    def __init__(
        self,
        rules: str | Preset | RuleSet | None = None,
        flags: Mapping[str, object] | None = None,
    ) -> None:
        self.rules: RuleSet | None = None if rules is None else _any_rules(rules, flags)
        self._round = -1
        self._seat = -1
        self._match = ""
        self._tricks: dict[int, TrickRecord] = {}
        self._replay: _Replay | None = None
        self._encode = Encoder()

    def __call__(self, view: types_pb2.View) -> Observed:
        """The observation dictionary of the environments for ``view``: the tensor of the
        seat's observation and the mask of its legal actions."""
        observation = self.observation(view)
        return {
            "observation": self._encode(observation),
            "action_mask": legal_mask_of(view.legal_actions),
        }

    def observation(self, view: types_pb2.View) -> Observation:
        """The rules core's observation of the seat at ``view``.

        Every field is the one ``observe(state, seat)`` gives (tests/research/test_bridge.py
        checks it over every state of whole matches), but ``last_score``: None, a view
        carrying the last round's score between rounds only, as a ``RoundScore`` message.
        Outside bidding, doubling and play, where views list no hand sizes, the hand sizes are
        read as 0 (the hands are empty then, a table-play review aside).
        """
        rules = self._rules_of(view)
        if not view.HasField("seat"):
            raise ValueError("the public view has no seat: read the views of one seat")
        seat = view.seat
        if self._seat < 0:
            self._seat, self._match = seat, view.match_id
        elif (seat, view.match_id) != (self._seat, self._match):
            raise ValueError(
                f"this reader reads seat {self._seat}'s views of match {self._match}: "
                "use one reader per seat and match"
            )
        phase = _member(_PHASES, view.phase, "the phase")
        if view.round_number != self._round:
            self._round = view.round_number
            self._tricks = {}
            self._replay = None
        contract = _contract(view.contract) if view.HasField("contract") else None
        trump = -1 if contract is None else contract.trump
        tricks = self._completed_tricks(view)
        played = 0
        spent = 0  # the cards the seat itself played this round
        for record in tricks:
            for position, card in enumerate(record.cards):
                played |= 1 << card
                if (record.leader + position) & 3 == seat:
                    spent |= 1 << card
        live = phase in LIVE_PHASES
        leader, akka = -1, False
        trick: tuple[int, ...] = ()
        if phase is Phase.PLAYING:
            current = view.current_trick
            leader = current.leader
            trick = tuple(played_card.card for played_card in current.cards)
            akka = bool(current.cards) and current.cards[0].akka
            for position, card in enumerate(trick):
                if (leader + position) & 3 == seat:
                    spent |= 1 << card
        hand = _mask(view.hand)
        declared: list[tuple[ProjectKind, ...] | None] = [None, None, None, None]
        for declaration in view.declared_projects:
            declared[declaration.seat] = tuple(
                _member(_PROJECT_KINDS, kind, "a project kind") for kind in declaration.kinds
            )
        shown: list[tuple[int, Project]] = []
        announced_by = -1
        scored_baloot = -1
        for message in view.revealed_projects:
            project = _project(message)
            if project.kind is ProjectKind.BALOOT:
                if live:
                    announced_by = message.seat
                else:
                    scored_baloot = message.seat
            elif live:
                shown.append((message.seat, project))
        shown.sort(key=lambda pair: pair[0])
        bids = tuple(
            BidRecord(
                record.seat,
                Bid(_member(_BID_KINDS, record.bid.kind, "the bid kind"), record.bid.suit - 1),
                record.bidding_round,
            )
            for record in view.bids
        )
        calls = tuple(
            DoublingRecord(record.seat, _doubling(record.doubling))
            for record in view.doubling_calls
        )
        bidding_round, bid_stage, doubling_step = self._questions(rules, view, bids, calls, live)
        full_hand = hand | spent if phase is Phase.PLAYING else 0
        own_kinds = declared[seat]
        own_projects: tuple[Project, ...] = ()
        if own_kinds and phase is Phase.PLAYING:
            own_projects = projects_for_declaration(full_hand, own_kinds, trump, rules)
        if announced_by >= 0:
            baloot_seat = announced_by
        elif phase is Phase.PLAYING and has_baloot(full_hand, trump):
            baloot_seat = seat
        else:
            baloot_seat = -1
        score = view.match_score
        sizes = tuple(view.hand_sizes) if live else (0, 0, 0, 0)
        return Observation(
            rules=rules,
            phase=phase,
            dealer=view.dealer,
            hand_number=view.round_number,
            rounds_scored=score.rounds_scored,
            match_scores=(score.points[0], score.points[1]),
            winner=score.winner_team if score.HasField("winner_team") else -1,
            last_score=None,
            turn=view.turn if view.HasField("turn") else -1,
            buy_card=view.revealed_card if view.HasField("revealed_card") else -1,
            taker=-1 if contract is None or not view.HasField("revealed_card") else contract.taker,
            hand_sizes=(sizes[0], sizes[1], sizes[2], sizes[3]),
            bidding_round=bidding_round,
            bid_stage=bid_stage,
            bids=bids,
            contract=contract,
            doubling_step=doubling_step,
            doubling_calls=calls,
            leader=leader,
            trick=trick,
            akka=akka,
            tricks=tricks,
            played=played,
            abnat=(view.abnat_won[0], view.abnat_won[1]),
            declared=tuple(declared),
            project_team=shown[0][0] & 1 if shown else -1,
            shown=tuple(shown),
            baloot_announced=announced_by >= 0,
            baloot_seat=baloot_seat,
            scored_baloot_seat=scored_baloot,
            seat=seat,
            hand=hand,
            full_hand=full_hand,
            own_projects=own_projects,
            legal_actions=tuple(_action_core(message) for message in view.legal_actions),
        )

    # ---- helpers -------------------------------------------------------------------------

    def _rules_of(self, view: types_pb2.View) -> RuleSet:
        if view.HasField("rules"):
            carried = rules_from_message(view.rules)
            if self.rules is None:
                self.rules = carried
            elif carried != self.rules:
                raise ValueError("the view's rules are not the rules this reader was given")
        if self.rules is None:
            raise ValueError(
                "the reader needs the match's rules: give them to ViewReader(...), or give it "
                "first a view that carries them (CreateMatch's or GetView's)"
            )
        return self.rules

    def _completed_tricks(self, view: types_pb2.View) -> tuple[TrickRecord, ...]:
        """The completed tricks of the round: those kept, and the view's last one."""
        kept = self._tricks
        if view.HasField("last_trick"):
            last = view.last_trick
            if not last.HasField("winner") or len(last.cards) != 4:
                raise ValueError("a view's last trick is a completed trick")
            record = TrickRecord(
                last.leader,
                (last.cards[0].card, last.cards[1].card, last.cards[2].card, last.cards[3].card),
                last.winner,
            )
            seen = kept.setdefault(last.number, record)
            if seen != record:
                raise ValueError(f"trick {last.number} differs from the one seen before")
        count = sum(view.tricks_won)
        missing = [number for number in range(1, count + 1) if number not in kept]
        if missing:
            raise MissedTrickError(
                f"tricks {missing} of round {view.round_number} were never the last trick of a "
                "view given to this reader: give it every view of the seat, or one at each of "
                "its turns"
            )
        return tuple(kept[number] for number in range(1, count + 1))

    def _questions(
        self,
        rules: RuleSet,
        view: types_pb2.View,
        bids: tuple[BidRecord, ...],
        calls: tuple[DoublingRecord, ...],
        live: bool,
    ) -> tuple[int, BidStage, DoublingStep]:
        """The bidding round, the bidding's question and the doubling's question."""
        if not live:
            return 0, BidStage.NONE, DoublingStep.NONE
        replay = self._replay
        if replay is None or len(bids) < replay.bids or len(calls) < replay.calls:
            replay = self._replay = _Replay(rules, view)
        state = replay.advance(bids, calls)
        turn = view.turn if view.HasField("turn") else -1
        if state.turn != turn and state.phase is not Phase.PLAYING:
            raise ValueError("the view's bids and calls do not lead to its turn under these rules")
        return state.bidding_round, state.bid_stage, state.doubling_step


def _any_rules(rules: str | Preset | RuleSet, flags: Mapping[str, object] | None) -> RuleSet:
    if isinstance(rules, RuleSet) and not flags:
        return rules
    return make_rules(rules, flags)


__all__ = [
    "MissedTrickError",
    "ViewReader",
    "action_from_message",
    "action_to_message",
    "legal_mask_of",
    "rules_from_message",
    "rules_to_message",
]
