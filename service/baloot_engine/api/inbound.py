"""Requests → rules core: every conversion of a request's fields into core values.

The servicer calls these on what a request carries (seats, cards, bids, doubling calls,
declarations, card plays, rule sets, the facts of a ScoreRound request, a bot level). They
check what protobuf cannot (enum values out of range, counts, card codes) and raise
:class:`RuleError` with a MALFORMED kind, so the servicer maps them to ``INVALID_ARGUMENT``.
The opposite direction is :mod:`baloot_engine.api.outbound`; the enum naming rule both
follow is :mod:`baloot_engine.api.enums`.

Every repeated field a request may carry has a limit (:data:`REPEATED_LIMITS`), checked by
:func:`check_sizes` before anything else reads the request: a field longer than any real
request can be is refused (with the reason a wrong length of that field gets, and the
``field`` and ``limit`` metadata) at the cost of one ``len`` per field, however long it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from baloot.v1 import engine_service_pb2 as service_pb
from baloot.v1 import rules_pb2, types_pb2
from baloot_engine.api.enums import RULE_FLAGS, enum_prefix, to_core
from baloot_engine.api.refusals import REQUEST_INVALID
from baloot_engine.bots import Level
from baloot_engine.rules import (
    FEDERATION,
    KAMMELNA,
    SEEDS,
    Action,
    AwardedProject,
    Bid,
    BidKind,
    CallQayd,
    ClaimSawa,
    ContractType,
    Deal,
    Declare,
    Doubling,
    DoublingCall,
    Play,
    PlayMode,
    ProjectKind,
    QaydCategory,
    RoundFacts,
    RuleError,
    RuleSet,
    RuleSetError,
    errors,
)
from baloot_engine.rules.errors import malformed

# Proto enum number -> core member; a number that is missing (zero, unknown) pairs with none.
BID_KINDS: Final = to_core(types_pb2.BidKind, BidKind)
CALLS: Final = to_core(types_pb2.DoublingCall, DoublingCall)
MODES: Final = to_core(types_pb2.PlayMode, PlayMode)
PROJECT_KINDS: Final = to_core(types_pb2.ProjectKind, ProjectKind)
CONTRACT_TYPES: Final = to_core(types_pb2.ContractType, ContractType)
BOT_LEVELS: Final = to_core(service_pb.BotLevel, Level)
QAYD_CATEGORIES: Final = to_core(types_pb2.QaydCategory, QaydCategory)


# The longest each repeated field of a request may be, by (message name, field name), and the
# reason a field of the wrong length already gets. A real request is far shorter (a deck has
# 32 cards, a round 8 tricks of 4 cards, a team at most four scoring projects, a round at
# most one Baloot, a declaration one or two kinds, a pair of scores two numbers); each limit
# leaves room above it so that a near miss (a deck of 33 cards) is refused by the conversion
# with its precise message, while anything longer is refused before it is read.
# ``tests/api/test_inbound_limits.py`` checks that every repeated field of every request
# message is listed.
REPEATED_LIMITS: Final[dict[tuple[str, str], tuple[int, str]]] = {
    ("CreateMatchRequest", "starting_scores"): (8, REQUEST_INVALID),
    ("DealRoundRequest", "deck_order"): (64, errors.INVALID_DECK),
    ("Declaration", "kinds"): (8, errors.INVALID_ACTION),
    ("ScoreRoundRequest", "card_abnat"): (8, errors.INVALID_ROUND_FACTS),
    ("ScoreRoundRequest", "tricks_won"): (8, errors.INVALID_ROUND_FACTS),
    ("ScoreRoundRequest", "tricks"): (16, errors.INVALID_ROUND_FACTS),
    ("Trick", "cards"): (8, errors.INVALID_ROUND_FACTS),
    ("ScoreRoundRequest", "awarded_projects"): (16, errors.INVALID_ROUND_FACTS),
    ("ScoreRoundRequest", "baloot_teams"): (8, errors.INVALID_ROUND_FACTS),
    ("ScoreRoundRequest", "match_scores"): (8, REQUEST_INVALID),
    # VerifyRecord, ReplayRecord: ten times the 200 rounds records.check_size accepts (which then
    # refuses with its own message, and checks what the rounds hold).
    ("MatchRecord", "rounds"): (2000, "RECORD_TOO_LARGE"),
    ("MatchRecord", "starting_scores"): (8, REQUEST_INVALID),
    ("AnalyzeRecordRequest", "seats"): (8, "ANALYSIS_BUDGET_INVALID"),
    ("AnalyzeRecordRequest", "rounds"): (200, "ANALYSIS_BUDGET_INVALID"),
    ("FairPlayReportRequest", "records"): (100, "ANALYSIS_BUDGET_INVALID"),
    ("FairPlayReportRequest", "seats"): (8, "ANALYSIS_BUDGET_INVALID"),
}
_UNLISTED: Final = (0, REQUEST_INVALID)


def too_long(field: str, size: int, limit: int, reason: str) -> RuleError:
    """The refusal of a repeated field longer than its limit."""
    return malformed(
        reason,
        f"{field} holds {size} entries; at most {limit} are accepted",
        field=field,
        limit=str(limit),
    )


def _check_message(message: Any, path: str) -> None:
    """Check the repeated fields of ``message`` and of the messages inside it, recursively.

    Only fields that are set are visited, and a repeated message field is checked for its
    length before any of its entries is, so the work is bounded by the limits themselves.
    """
    name = message.DESCRIPTOR.name
    for field, value in message.ListFields():
        if field.is_repeated:
            limit, reason = REPEATED_LIMITS.get((name, field.name), _UNLISTED)
            if len(value) > limit:
                raise too_long(f"{path}{field.name}", len(value), limit, reason)
            if field.message_type is not None and name not in _CHECKED_BY_RECORDS:
                for index, entry in enumerate(value):
                    _check_message(entry, f"{path}{field.name}[{index}].")
        elif field.message_type is not None and field.message_type.name not in _OPAQUE:
            _check_message(value, f"{path}{field.name}.")


# A record's rounds and actions are checked by ``records.check_size`` (with its byte size, in
# C++), not entry by entry here: only the record's own lists are.
_CHECKED_BY_RECORDS: Final = frozenset({"MatchRecord"})
# Messages with no repeated field anywhere inside (skipped for speed).
_OPAQUE: Final = frozenset({"RuleSet", "Bid", "Doubling", "CardPlay"})


def check_sizes(request: Any) -> None:
    """Refuse a request with a repeated field longer than :data:`REPEATED_LIMITS` allows.

    A repeated field that no limit names may not be used at all (limit 0, REQUEST_INVALID):
    a new one must be given its limit here.
    """
    _check_message(request, "")


def _bad(reason: str, message: str) -> RuleError:
    return malformed(reason, message)


def starting_scores_in(values: Sequence[int], rules: RuleSet) -> tuple[int, int]:
    """The match scores a match starts from (CreateMatch, a record): none (0 to 0) or one per
    team, each below the target (a team at it has won)."""
    if not values:
        return (0, 0)
    if len(values) != 2:
        raise _bad(REQUEST_INVALID, "starting_scores needs one entry per team, or none")
    if max(values) >= rules.match_target:
        raise _bad(
            REQUEST_INVALID, f"starting_scores must be below the match target {rules.match_target}"
        )
    return values[0], values[1]


def suit_in(value: int, *, required: bool) -> int:
    """A proto Suit (1-4) as a core suit (0-3); -1 when unspecified and not required."""
    if value == types_pb2.SUIT_UNSPECIFIED:
        if required:
            raise _bad(errors.INVALID_ACTION, "a suit is required")
        return -1
    if not 1 <= value <= 4:
        raise _bad(errors.INVALID_ACTION, f"unknown suit value {value}")
    return value - 1


def card_in(card: int) -> int:
    """A card code from a request, checked."""
    if not 0 <= card < 32:
        raise malformed(errors.INVALID_CARD, f"a card code is 0-31, got {card}", value=str(card))
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
    elif preset == rules_pb2.PRESET_FEDERATION:
        base = FEDERATION
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
        prefix = enum_prefix(enum_type.name)
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


# ---------------------------------------------------------------------------------------
# Actions


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


def qayd_in(message: types_pb2.QaydCall) -> CallQayd:
    """A Qayd call from a proto ``QaydCall``: accused seat, trick 1-8, card, category."""
    accused = seat_in(message.accused)
    if not 1 <= message.trick <= 8:
        raise _bad(errors.INVALID_ACTION, f"a trick number is 1-8, got {message.trick}")
    card = card_in(message.card) if message.HasField("card") else -1
    category = None
    if message.category != types_pb2.QAYD_CATEGORY_UNSPECIFIED:
        category = _enum_in(QAYD_CATEGORIES, message.category, "the Qayd category")
    return CallQayd(accused, message.trick, card, category)


def deal_in(message: types_pb2.DealAction) -> Deal:
    """A core deal from a proto ``DealAction`` (its deck is checked when it is dealt)."""
    return Deal(tuple(message.deck_order))


def action_in(message: types_pb2.Action) -> Action:
    """Any core action from a proto ``Action`` (a record's, or a legal-action list's)."""
    which = message.WhichOneof("action")
    if which == "play":
        return play_in(message.play)
    if which == "bid":
        return bid_in(message.bid)
    if which == "doubling":
        return doubling_in(message.doubling)
    if which == "declaration":
        return declaration_in(message.declaration)
    if which == "deal":
        return deal_in(message.deal)
    if which == "qayd":
        return qayd_in(message.qayd)
    raise _bad(errors.INVALID_ACTION, f"the action has no kind this server knows ({which})")


# ---------------------------------------------------------------------------------------
# Round facts (ScoreRound)


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
# Bots


def bot_level_in(value: int) -> Level:
    """The bot level of a SuggestAction request; unspecified or unknown is refused."""
    level: Level | None = BOT_LEVELS.get(value)
    if level is None:
        raise _bad(REQUEST_INVALID, f"the bot level is missing or unknown (value {value})")
    return level


SCORE_LIMIT: Final = 10_000
"""Far above any match's score: both teams over the target, tied."""


def match_scores_in(scores: Sequence[int], rules: RuleSet) -> tuple[int, int] | None:
    """ScoreRound's match scores: none, or one per team of a match that goes on (R44: a match
    a team has won is over, no round follows it; both teams at the target with equal totals
    play another)."""
    if not scores:
        return None
    if (
        len(scores) != 2
        or max(scores) >= SCORE_LIMIT
        or not rules.match_goes_on((scores[0], scores[1]))
    ):
        raise malformed(
            REQUEST_INVALID,
            "match_scores needs one entry per team, of a match that goes on "
            f"(target {rules.match_target}), or none",
        )
    return scores[0], scores[1]
