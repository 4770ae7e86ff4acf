"""Protobuf ↔ rules core: every conversion between the public contract and the core.

Input conversions check what protobuf cannot (enum values out of range, counts, card
codes) and raise :class:`RuleError` with a MALFORMED kind, so the servicer maps them to
``INVALID_ARGUMENT``. Output conversions never fail.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import Enum
from functools import lru_cache
from typing import Any, Final

from baloot.v1 import engine_service_pb2 as service_pb
from baloot.v1 import rules_pb2, types_pb2
from baloot_engine.api.state_codec import encode_rules
from baloot_engine.bots import Level
from baloot_engine.rules import errors
from baloot_engine.rules.actions import (
    Action,
    Bid,
    BidKind,
    ClaimSawa,
    Deal,
    Declare,
    Doubling,
    DoublingCall,
    Event,
    EventKind,
    Play,
)
from baloot_engine.rules.cards import POINTS
from baloot_engine.rules.contract import Contract, ContractType, PlayMode
from baloot_engine.rules.errors import RuleError, malformed
from baloot_engine.rules.facts import AwardedProject, RoundFacts
from baloot_engine.rules.projects import Project, ProjectKind, baloot_project
from baloot_engine.rules.ruleset import KAMMELNA, SEEDS, RuleSet, RuleSetError
from baloot_engine.rules.scoring import Outcome, RoundScore
from baloot_engine.rules.state import Phase, State, TrickRecord

# ---------------------------------------------------------------------------------------
# Enums: the proto enum value name is PREFIX + the core member name, zero is unspecified.


def _prefix(enum_name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", enum_name).upper() + "_"


def _table(
    proto_enum: Any, core_enum: type[Enum] | type[Phase]
) -> tuple[dict[int, Any], dict[Any, Any]]:
    prefix = _prefix(proto_enum.DESCRIPTOR.name)
    to_core = {proto_enum.Value(prefix + m.name): m for m in core_enum}
    return to_core, {m: n for n, m in to_core.items()}


BID_KINDS, BID_KIND_NUMBERS = _table(types_pb2.BidKind, BidKind)
CALLS, CALL_NUMBERS = _table(types_pb2.DoublingCall, DoublingCall)
MODES, MODE_NUMBERS = _table(types_pb2.PlayMode, PlayMode)
PROJECT_KINDS, PROJECT_KIND_NUMBERS = _table(types_pb2.ProjectKind, ProjectKind)
CONTRACT_TYPES, CONTRACT_TYPE_NUMBERS = _table(types_pb2.ContractType, ContractType)
PHASES, PHASE_NUMBERS = _table(types_pb2.Phase, Phase)
EVENT_KINDS, EVENT_KIND_NUMBERS = _table(types_pb2.EventKind, EventKind)

RULE_FLAGS: Final = tuple(f.name for f in rules_pb2.RuleSet.DESCRIPTOR.fields if f.name != "preset")


def _bad(reason: str, message: str) -> RuleError:
    return malformed(reason, message)


def suit_in(value: int, *, required: bool) -> int:
    """A proto Suit (1-4) as a core suit (0-3); -1 when unspecified and not required."""
    if value == types_pb2.SUIT_UNSPECIFIED:
        if required:
            raise _bad(errors.INVALID_ACTION, "a suit is required")
        return -1
    if not 1 <= value <= 4:
        raise _bad(errors.INVALID_ACTION, f"unknown suit value {value}")
    return value - 1


def suit_out(suit: int) -> types_pb2.Suit.ValueType:
    """A core suit (-1 for none) as a proto Suit."""
    return types_pb2.Suit.ValueType(suit + 1)


def card_in(card: int) -> int:
    """A card code from a request, checked."""
    if not 0 <= card < 32:
        raise _bad(errors.INVALID_CARD, f"a card code is 0-31, got {card}")
    return card


def seat_in(seat: int) -> int:
    """A seat from a request, checked."""
    if not 0 <= seat <= 3:
        raise _bad(errors.INVALID_SEAT, f"a seat is 0-3, got {seat}")
    return seat


def _enum_in(table: dict[int, Any], value: int, what: str) -> Any:
    member = table.get(value)
    if member is None:
        raise _bad(errors.INVALID_ACTION, f"{what} is missing or unknown (value {value})")
    return member


# ---------------------------------------------------------------------------------------
# Rule sets


def rules_in(proto: rules_pb2.RuleSet | None) -> RuleSet:
    """The core rule set of a proto ``RuleSet``: its preset plus the flags it sets."""
    if proto is None:
        return SEEDS
    message: Any = proto  # flags are read by name
    preset = message.preset
    if preset in (rules_pb2.PRESET_UNSPECIFIED, rules_pb2.PRESET_SEEDS):
        base = SEEDS
    elif preset == rules_pb2.PRESET_KAMMELNA:
        base = KAMMELNA
    else:
        raise _bad(errors.INVALID_RULES, f"unknown preset value {preset}")
    changes: dict[str, object] = {}
    for name in RULE_FLAGS:
        if not message.HasField(name):
            continue
        value = getattr(message, name)
        default = getattr(SEEDS, name)
        if isinstance(default, bool) or name == "match_target":
            changes[name] = value
            continue
        enum_type = message.DESCRIPTOR.fields_by_name[name].enum_type
        number_name = enum_type.values_by_number.get(value)
        prefix = _prefix(enum_type.name)
        member = None
        if number_name is not None and number_name.name.startswith(prefix):
            member = type(default).__members__.get(number_name.name[len(prefix) :])
        if member is None:
            raise _bad(errors.INVALID_RULES, f"{name}: unknown or unspecified value {value}")
        changes[name] = member
    try:
        return base.replace(**changes)
    except RuleSetError as error:
        raise _bad(errors.INVALID_RULES, str(error)) from None


@lru_cache(maxsize=256)
def rules_out(rules: RuleSet) -> rules_pb2.RuleSet:
    """The full proto ``RuleSet`` of a core rule set: the nearer preset and every flag set."""
    preset, _, _ = encode_rules(rules)
    message = rules_pb2.RuleSet(
        preset=rules_pb2.PRESET_KAMMELNA if preset == 1 else rules_pb2.PRESET_SEEDS
    )
    for name in RULE_FLAGS:
        value = getattr(rules, name)
        if isinstance(value, Enum):
            enum_type: Any = message.DESCRIPTOR.fields_by_name[name].enum_type
            value = enum_type.values_by_name[_prefix(enum_type.name) + value.name].number
        setattr(message, name, value)
    return message


# ---------------------------------------------------------------------------------------
# Actions in


def bid_in(message: types_pb2.Bid) -> Bid:
    """A core bid from a proto ``Bid``."""
    kind = _enum_in(BID_KINDS, message.kind, "the bid kind")
    return Bid(kind, suit_in(message.suit, required=False))


def doubling_in(message: types_pb2.Doubling) -> Doubling:
    """A core doubling call from a proto ``Doubling``."""
    call = _enum_in(CALLS, message.call, "the doubling call")
    mode = (
        None
        if message.mode == types_pb2.PLAY_MODE_UNSPECIFIED
        else (_enum_in(MODES, message.mode, "the play mode"))
    )
    return Doubling(call, mode)


def declaration_in(message: types_pb2.Declaration) -> Declare:
    """A core declaration from a proto ``Declaration``."""
    kinds = tuple(_enum_in(PROJECT_KINDS, k, "a project kind") for k in message.kinds)
    if not 1 <= len(kinds) <= 2:
        raise _bad(errors.INVALID_ACTION, "declare one or two project kinds")
    return Declare(kinds)


def play_in(message: types_pb2.CardPlay) -> Play | ClaimSawa:
    """A card play (or, with ``sawa``, a Sawa claim) from a proto ``CardPlay``."""
    if message.sawa:
        return ClaimSawa()
    return Play(card_in(message.card), message.akka)


# ---------------------------------------------------------------------------------------
# Output


def contract_out(contract: Contract) -> types_pb2.Contract:
    """A proto ``Contract``."""
    return types_pb2.Contract(
        type=CONTRACT_TYPE_NUMBERS[contract.type],
        trump=suit_out(contract.trump),
        buyer=contract.buyer,
        buyer_team=contract.buyer_team,
        multiplier=contract.multiplier,
        gahwa=contract.gahwa,
        mode=MODE_NUMBERS[contract.mode],
        ashkal=contract.ashkal,
        bidding_round=contract.bidding_round,
    )


def bid_out(bid: Bid) -> types_pb2.Bid:
    """A proto ``Bid``."""
    return types_pb2.Bid(kind=BID_KIND_NUMBERS[bid.kind], suit=suit_out(bid.suit))


def doubling_out(call: Doubling) -> types_pb2.Doubling:
    """A proto ``Doubling``."""
    mode = types_pb2.PLAY_MODE_UNSPECIFIED if call.mode is None else MODE_NUMBERS[call.mode]
    return types_pb2.Doubling(call=CALL_NUMBERS[call.call], mode=mode)


def action_out(action: Action) -> types_pb2.Action:
    """A proto ``Action`` (the legal-action lists)."""
    if isinstance(action, Play):
        return types_pb2.Action(play=types_pb2.CardPlay(card=action.card, akka=action.akka))
    if isinstance(action, Bid):
        return types_pb2.Action(bid=bid_out(action))
    if isinstance(action, Doubling):
        return types_pb2.Action(doubling=doubling_out(action))
    if isinstance(action, Declare):
        declaration = types_pb2.Declaration(kinds=[PROJECT_KIND_NUMBERS[k] for k in action.kinds])
        return types_pb2.Action(declaration=declaration)
    if isinstance(action, ClaimSawa):
        return types_pb2.Action(play=types_pb2.CardPlay(sawa=True))
    assert isinstance(action, Deal)
    return types_pb2.Action()


def project_out(seat: int | None, project: Project, trump: int) -> types_pb2.Project:
    """A proto ``Project`` with its cards and value."""
    return types_pb2.Project(
        seat=0 if seat is None else seat,
        team=0 if seat is None else seat & 1,
        kind=PROJECT_KIND_NUMBERS[project.kind],
        cards=cards_of(project.cards),
        abnat=project.raw,
        game_points=project.points(trump),
    )


def awarded_out(project: AwardedProject, sun: bool) -> types_pb2.Project:
    """A proto ``Project`` of an awarded project."""
    return types_pb2.Project(
        seat=0 if project.seat is None else project.seat,
        team=project.team,
        kind=PROJECT_KIND_NUMBERS[project.kind],
        cards=cards_of(project.cards),
        abnat=project.raw,
        game_points=project.points(sun),
    )


# The cards of each possible byte of a card mask, one table per suit (8 cards per byte).
_CARDS_OF_BYTE: Final = tuple(
    tuple(tuple(suit * 8 + c for c in range(8) if byte >> c & 1) for byte in range(256))
    for suit in range(4)
)


def cards_of(mask: int) -> tuple[int, ...]:
    """The card codes of a card mask, ascending.

    Four table lookups (one per suit byte) instead of testing 32 bits one by one: hands and
    project cards are listed in every view.
    """
    spades, hearts, diamonds, clubs = _CARDS_OF_BYTE
    return (
        spades[mask & 0xFF]
        + hearts[mask >> 8 & 0xFF]
        + diamonds[mask >> 16 & 0xFF]
        + clubs[mask >> 24 & 0xFF]
    )


def trick_out(
    number: int,
    leader: int,
    cards: Sequence[int],
    trump: int,
    winner: int | None = None,
    akka: bool = False,
    into: types_pb2.Trick | None = None,
) -> types_pb2.Trick:
    """A proto ``Trick``: played cards in order, the winner once complete, its abnat."""
    table = POINTS[trump + 1]
    message = types_pb2.Trick() if into is None else into
    message.number = number
    message.leader = leader
    for position, card in enumerate(cards):
        played = message.cards.add()
        played.seat = (leader + position) & 3
        played.card = card
        if akka and position == 0:
            played.akka = True
    message.abnat = sum(table[c] for c in cards)
    if winner is not None:
        message.winner = winner
    return message


_OUTCOME_REASONS: Final = {
    "game_points": types_pb2.OUTCOME_REASON_MORE_POINTS,
    "raw_points": types_pb2.OUTCOME_REASON_RAW_POINTS,
    "exact_tie": types_pb2.OUTCOME_REASON_EXACT_TIE,
    "doubled_tie": types_pb2.OUTCOME_REASON_DOUBLED_TIE,
    "kaboot": types_pb2.OUTCOME_REASON_KABOOT,
}


def round_score_out(
    score: RoundScore, round_number: int, contract: Contract | None
) -> types_pb2.RoundScore:
    """A proto ``RoundScore``: the whole explaining breakdown."""
    facts = score.facts
    sun = score.contract is ContractType.SUN
    contract_message = (
        contract_out(contract)
        if contract is not None
        else types_pb2.Contract(
            type=CONTRACT_TYPE_NUMBERS[score.contract],
            buyer_team=score.buyer_team,
            multiplier=score.multiplier,
            gahwa=score.gahwa,
        )
    )
    teams = []
    for team, detail in enumerate(score.teams):
        teams.append(
            types_pb2.TeamRoundScore(
                team=team,
                tricks=facts.tricks_won[team],
                card_abnat=detail.card_abnat,
                card_points=detail.card_points,
                project_points=detail.project_points,
                projects=[awarded_out(p, sun) for p in score.awarded if p.team == team],
                baloot_points=detail.baloot_points,
                final_points=detail.points,
            )
        )
    if score.outcome is Outcome.REVERSE_KABOOT:
        reason = types_pb2.OUTCOME_REASON_REVERSE_KABOOT
    else:
        reason = _OUTCOME_REASONS.get(score.decided_by.value, types_pb2.OUTCOME_REASON_MORE_POINTS)
        if reason == types_pb2.OUTCOME_REASON_MORE_POINTS and not score.success:
            reason = types_pb2.OUTCOME_REASON_FEWER_POINTS
    message = types_pb2.RoundScore(
        round_number=round_number,
        contract=contract_message,
        teams=teams,
        made=score.success,
        reason=reason,
        winning_team=score.buyer_team if score.success else 1 - score.buyer_team,
        explanation=score.reason,
    )
    if score.kaboot_team is not None:
        message.kaboot_team = score.kaboot_team
    return message


def match_score_out(state: State) -> types_pb2.MatchScore:
    """A proto ``MatchScore`` of a state."""
    return match_score_message(*match_score_facts(state))


def match_score_facts(state: State) -> tuple[tuple[int, int], int, int, int, bool]:
    """What a state's ``MatchScore`` shows: scores, target, rounds, winner, won by a Gahwa."""
    gahwa = state.last_score is not None and state.last_score.gahwa_winner is not None
    return state.match_scores, state.rules.match_target, state.hand_number, state.winner, gahwa


def match_score_message(
    points: tuple[int, int], target: int, rounds_played: int, winner: int, gahwa: bool
) -> types_pb2.MatchScore:
    """A proto ``MatchScore`` from :func:`match_score_facts`."""
    message = types_pb2.MatchScore(points=points, target=target, rounds_played=rounds_played)
    if winner >= 0:
        message.winner_team = winner
        message.end_reason = (
            types_pb2.MATCH_END_REASON_GAHWA if gahwa else types_pb2.MATCH_END_REASON_TARGET_REACHED
        )
    return message


def facts_in(request: service_pb.ScoreRoundRequest) -> tuple[RoundFacts, RuleSet]:
    """The facts and rules of a ScoreRound request (checked again by the scoring)."""
    rules = rules_in(request.rules if request.HasField("rules") else None)
    contract = CONTRACT_TYPES.get(request.contract_type)
    if contract is None:
        raise _bad(errors.INVALID_ROUND_FACTS, "the contract type (Sun or Hokm) is required")
    if contract is ContractType.SUN:
        if request.trump != types_pb2.SUIT_UNSPECIFIED:
            raise _bad(errors.INVALID_ROUND_FACTS, "a Sun contract has no trump")
        trump = -1
    elif 1 <= request.trump <= 4:
        trump = request.trump - 1
    else:
        raise _bad(errors.INVALID_ROUND_FACTS, "a Hokm contract needs its trump suit")
    which = request.WhichOneof("buyer")
    if which == "buyer_seat":
        buyer_team = seat_in(request.buyer_seat) & 1
    elif which == "buyer_team":
        if request.buyer_team > 1:
            raise _bad(errors.INVALID_ROUND_FACTS, "a team is 0 or 1")
        buyer_team = request.buyer_team
    else:
        raise _bad(errors.INVALID_ROUND_FACTS, "the buyer (seat or team) is required")
    awarded: list[AwardedProject] = []
    for given in request.awarded_projects:
        kind = PROJECT_KINDS.get(given.kind)
        if kind is None:
            raise _bad(errors.INVALID_ROUND_FACTS, "every awarded project needs its kind")
        awarded.append(AwardedProject(given.team, kind))
    projects = tuple(awarded)
    for project in projects:
        if project.team > 1:
            raise _bad(errors.INVALID_ROUND_FACTS, "a project's team is 0 or 1")
    common: dict[str, Any] = {
        "projects": projects,
        "baloot_teams": tuple(request.baloot_teams),
        "multiplier": request.multiplier or 1,
        "gahwa": request.gahwa,
        "reverse_kaboot": request.reverse_kaboot,
    }
    if request.tricks:
        if request.card_abnat or request.tricks_won:
            raise _bad(errors.INVALID_ROUND_FACTS, "give either the tricks or the totals")
        tricks = []
        for trick in request.tricks:
            if not trick.HasField("winner"):
                raise _bad(errors.INVALID_ROUND_FACTS, "every trick needs its winner")
            tricks.append(([card_in(c.card) for c in trick.cards], seat_in(trick.winner)))
        facts = RoundFacts.from_tricks(contract, trump, buyer_team, tricks, **common)
        return facts, rules
    if len(request.card_abnat) != 2 or len(request.tricks_won) != 2:
        raise _bad(errors.INVALID_ROUND_FACTS, "card_abnat and tricks_won need one entry per team")
    facts = RoundFacts(
        contract=contract,
        buyer_team=buyer_team,
        card_abnat=(request.card_abnat[0], request.card_abnat[1]),
        tricks_won=(request.tricks_won[0], request.tricks_won[1]),
        **common,
    )
    return facts, rules


# ---------------------------------------------------------------------------------------
# Events


def event_out(event: Event, state: State) -> types_pb2.Event:
    """A proto ``Event``. ``state`` is the state after the action (for trick numbers)."""
    cached = _cached_event(event, state)
    if cached is not None:
        return types_pb2.Event.FromString(cached)
    return _build_event(event, state)


def add_events(into: Any, events: Sequence[Event], state: State) -> None:
    """Append the proto ``Event`` of each core event to a repeated ``events`` field.

    The events of nearly every card play (the card, the trick won) are parsed in place from
    cached encodings rather than built field by field and copied into the response.
    """
    for event in events:
        cached = _cached_event(event, state)
        if cached is None:
            into.append(_build_event(event, state))
        else:
            into.add().MergeFromString(cached)


def _cached_event(event: Event, state: State) -> bytes | None:
    """The encoded event for the kinds that depend only on small values, else None.

    The kinds are compared with module constants: reading a member through its Enum class
    goes through the slow metaclass lookup of Python 3.11, and this runs for every event.
    """
    kind = event.kind
    if kind is _CARD_PLAYED:
        return _CARD_EVENTS[0][event.seat][event.card]
    if kind is _AKKA_CALLED:
        return _CARD_EVENTS[1][event.seat][event.card]
    if kind is _TRICK_WON:
        number, leader = _trick_of(state, event)
        return _trick_won_event(event.seat, number, leader, event.cards, state.trump)
    return None


_CARD_PLAYED: Final = EventKind.CARD_PLAYED
_AKKA_CALLED: Final = EventKind.AKKA_CALLED
_TRICK_WON: Final = EventKind.TRICK_WON


@lru_cache(maxsize=4096)
def _trick_won_event(
    winner: int, number: int, leader: int, cards: tuple[int, ...], trump: int
) -> bytes:
    """The encoded TRICK_WON event of a trick."""
    message = types_pb2.Event(kind=EVENT_KIND_NUMBERS[EventKind.TRICK_WON])
    if winner >= 0:
        message.seat = winner
    trick_out(number, leader, cards, trump, winner, into=message.trick)
    return message.SerializeToString()


_NO_STATE: Final = State()


def _card_event(kind: EventKind, seat: int, card: int) -> bytes:
    """The encoded CARD_PLAYED or AKKA_CALLED event (its message needs no other state)."""
    return _build_event(Event(kind, seat=seat, card=card), _NO_STATE).SerializeToString()


def _build_event(event: Event, state: State) -> types_pb2.Event:
    """A proto ``Event``, built field by field."""
    kind = event.kind
    message = types_pb2.Event(kind=EVENT_KIND_NUMBERS[kind])
    if event.seat >= 0 and kind is not EventKind.REDEAL:
        message.seat = event.seat
    trump = state.trump
    if kind is EventKind.BID_PLACED and event.bid is not None:
        message.bid.CopyFrom(bid_out(event.bid))
    elif kind in (EventKind.CONTRACT_FIXED, EventKind.DOUBLING_ENDED):
        if event.contract is not None:
            message.contract.CopyFrom(contract_out(event.contract))
    elif kind is EventKind.DOUBLING_CALLED and event.doubling is not None:
        message.doubling.CopyFrom(doubling_out(event.doubling))
    elif kind is EventKind.PROJECTS_DECLARED:
        message.declaration.seat = event.seat
        message.declaration.kinds.extend(PROJECT_KIND_NUMBERS[k] for k in event.kinds)
    elif kind is EventKind.PROJECTS_REVEALED:
        message.projects.projects.extend(project_out(s, p, trump) for s, p in event.projects)
    elif kind is EventKind.BALOOT_ANNOUNCED and trump >= 0:
        message.projects.projects.append(project_out(event.seat, baloot_project(trump), trump))
    elif kind in (EventKind.CARD_PLAYED, EventKind.AKKA_CALLED):
        message.play.seat = event.seat
        message.play.card = event.card
        message.play.akka = kind is EventKind.AKKA_CALLED
    elif kind is EventKind.TRICK_WON:
        number, leader = _trick_of(state, event)
        trick_out(number, leader, event.cards, trump, event.seat, into=message.trick)
    elif kind is EventKind.ROUND_SCORED and event.score is not None:
        message.round_score.CopyFrom(
            round_score_out(event.score, state.hand_number, state.contract)
        )
    elif kind is EventKind.MATCH_WON:
        message.match_score.CopyFrom(match_score_out(state))
    elif kind is EventKind.CARDS_DEALT:
        message.deal.round_number = state.hand_number
        message.deal.dealer = state.dealer
        message.deal.hand_sizes.extend(event.cards)
        if event.card >= 0:
            message.deal.revealed_card = event.card
    elif kind is EventKind.REDEAL:
        message.redeal.next_dealer = event.seat
        message.redeal.reason = (
            types_pb2.REDEAL_REASON_KAWESH
            if "Kawesh" in event.text
            else types_pb2.REDEAL_REASON_ALL_PASSED
        )
    return message


# Every CARD_PLAYED and AKKA_CALLED event (by Akka call, seat and card), encoded in advance:
# a table index costs less than hashing a cache key that holds an Enum member.
_CARD_EVENTS: Final = tuple(
    tuple(tuple(_card_event(kind, seat, card) for card in range(32)) for seat in range(4))
    for kind in (EventKind.CARD_PLAYED, EventKind.AKKA_CALLED)
)


def _trick_of(state: State, event: Event) -> tuple[int, int]:
    """The number and leader of the trick a TRICK_WON event closed."""
    for number, record in enumerate(state.tricks, start=1):
        if record.cards == event.cards:
            return number, record.leader
    return len(state.tricks), event.seat


def last_trick_out(state: State, into: types_pb2.Trick) -> None:
    """Write the last completed trick of the hand, if any, into ``into``."""
    if state.tricks:
        record: TrickRecord = state.tricks[-1]
        trick_out(
            len(state.tricks), record.leader, record.cards, state.trump, record.winner, into=into
        )


def add_action(actions: Any, action: Action) -> None:
    """Append a core action to a repeated proto ``Action`` field, building it in place."""
    if isinstance(action, Play):
        play = actions.add().play
        play.card = action.card
        if action.akka:
            play.akka = True
    elif not isinstance(action, Deal):
        actions.append(action_out(action))


# ---------------------------------------------------------------------------------------
# Bots

BOT_LEVELS, BOT_LEVEL_NUMBERS = _table(service_pb.BotLevel, Level)


def bot_level_in(value: int) -> Level:
    """The bot level of a SuggestAction request; unspecified or unknown is refused."""
    level: Level | None = BOT_LEVELS.get(value)
    if level is None:
        raise _bad("REQUEST_INVALID", f"the bot level is missing or unknown (value {value})")
    return level
