"""Rules core → messages: every conversion of core values into the protobuf messages sent back.

Contracts, bids, doubling calls, actions, projects, tricks, round and match scores, events
and rule sets, as the responses and views carry them. The events of nearly every card play
and the card lists of hands are built from tables encoded in advance, since they are in
every response. These conversions never fail. The opposite direction is
:mod:`baloot_engine.api.inbound`; the enum naming rule both follow is
:mod:`baloot_engine.api.enums`.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from functools import lru_cache
from typing import Any, Final

from baloot.v1 import engine_service_pb2 as service_pb
from baloot.v1 import rules_pb2, types_pb2
from baloot_engine.api.enums import RULE_FLAGS, enum_prefix, to_wire
from baloot_engine.api.state_codec import encode_rules
from baloot_engine.bots import Level
from baloot_engine.rules import (
    Action,
    AwardedProject,
    Bid,
    BidKind,
    CallQayd,
    ClaimSawa,
    Contract,
    ContractType,
    Deal,
    Declare,
    Doubling,
    DoublingCall,
    Event,
    EventKind,
    Outcome,
    Phase,
    Play,
    PlayMode,
    ProjectKind,
    QaydCategory,
    QaydVerdict,
    RedealReason,
    RoundScore,
    RuleSet,
    State,
)
from baloot_engine.rules.cards import trick_points
from baloot_engine.rules.facts import TRICKS_PER_ROUND
from baloot_engine.rules.match import winner_after
from baloot_engine.rules.members import (
    AKKA_CALLED,
    CARD_PLAYED,
    CONTRACT_SUN,
    ROUND_SCORED,
    TRICK_WON,
)
from baloot_engine.rules.projects import Project, baloot_project

# Core member -> proto enum number.
BID_KIND_NUMBERS: Final = to_wire(types_pb2.BidKind, BidKind)
CALL_NUMBERS: Final = to_wire(types_pb2.DoublingCall, DoublingCall)
MODE_NUMBERS: Final = to_wire(types_pb2.PlayMode, PlayMode)
PROJECT_KIND_NUMBERS: Final = to_wire(types_pb2.ProjectKind, ProjectKind)
CONTRACT_TYPE_NUMBERS: Final = to_wire(types_pb2.ContractType, ContractType)
PHASE_NUMBERS: Final = to_wire(types_pb2.Phase, Phase)
EVENT_KIND_NUMBERS: Final = to_wire(types_pb2.EventKind, EventKind)
BOT_LEVEL_NUMBERS: Final = to_wire(service_pb.BotLevel, Level)
QAYD_CATEGORY_NUMBERS: Final = to_wire(types_pb2.QaydCategory, QaydCategory)
REDEAL_REASON_NUMBERS: Final = to_wire(types_pb2.RedealReason, RedealReason)


def suit_out(suit: int) -> types_pb2.Suit.ValueType:
    """A core suit (-1 for none) as a proto Suit."""
    return types_pb2.Suit.ValueType(suit + 1)


# ---------------------------------------------------------------------------------------
# Rule sets


# The token's preset numbers (state_codec.PRESETS) as proto presets.
_PRESET_NUMBERS: Final = (
    rules_pb2.PRESET_SEEDS,
    rules_pb2.PRESET_KAMMELNA,
    rules_pb2.PRESET_FEDERATION,
)


@lru_cache(maxsize=256)
def rules_out(rules: RuleSet) -> rules_pb2.RuleSet:
    """The full proto ``RuleSet`` of a core rule set: the nearer preset and every flag set."""
    preset, _, _ = encode_rules(rules)
    message = rules_pb2.RuleSet(preset=_PRESET_NUMBERS[preset])
    for name in RULE_FLAGS:
        value = getattr(rules, name)
        if isinstance(value, Enum):
            enum_type: Any = message.DESCRIPTOR.fields_by_name[name].enum_type
            value = enum_type.values_by_name[enum_prefix(enum_type.name) + value.name].number
        setattr(message, name, value)
    return message


# ---------------------------------------------------------------------------------------
# Actions, projects, tricks and scores


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
    if isinstance(action, CallQayd):
        return types_pb2.Action(qayd=qayd_call_out(action))
    assert isinstance(action, Deal)
    return types_pb2.Action(deal=types_pb2.DealAction(deck_order=action.deck))


def qayd_call_out(call: CallQayd) -> types_pb2.QaydCall:
    """A proto ``QaydCall``."""
    message = types_pb2.QaydCall(accused=call.accused, trick=call.trick)
    if call.card >= 0:
        message.card = call.card
    if call.category is not None:
        message.category = QAYD_CATEGORY_NUMBERS[call.category]
    return message


def qayd_verdict_out(verdict: QaydVerdict, into: types_pb2.QaydVerdict) -> None:
    """Write a verdict, with its evidence cards, into a proto ``QaydVerdict``."""
    if verdict.caller >= 0:
        into.caller = verdict.caller
    into.accused = verdict.accused
    into.trick = verdict.trick
    if verdict.card >= 0:
        into.card = verdict.card
    if verdict.category is not None:
        into.category = QAYD_CATEGORY_NUMBERS[verdict.category]
    into.correct = verdict.correct
    into.evidence.extend(cards_of(verdict.evidence))
    if verdict.winner_team >= 0:
        into.winning_team = verdict.winner_team


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
    """A proto ``Trick``: played cards in order, the winner once complete, its abnat.

    The abnat of the completed 8th trick include the 10 for the last trick (R33).
    """
    message = types_pb2.Trick() if into is None else into
    message.number = number
    message.leader = leader
    for position, card in enumerate(cards):
        played = message.cards.add()
        played.seat = (leader + position) & 3
        played.card = card
        if akka and position == 0:
            played.akka = True
    if winner is not None:
        message.winner = winner
    message.abnat = trick_points(
        cards, trump, last=winner is not None and number == TRICKS_PER_ROUND
    )
    return message


_OUTCOME_REASONS: Final = {
    "game_points": types_pb2.OUTCOME_REASON_MORE_POINTS,
    "raw_points": types_pb2.OUTCOME_REASON_RAW_POINTS,
    "exact_tie": types_pb2.OUTCOME_REASON_EXACT_TIE,
    "doubled_tie": types_pb2.OUTCOME_REASON_DOUBLED_TIE,
    "kaboot": types_pb2.OUTCOME_REASON_KABOOT,
    "qayd": types_pb2.OUTCOME_REASON_QAYD,
}


def round_score_out(
    score: RoundScore, round_number: int, contract: Contract | None
) -> types_pb2.RoundScore:
    """A proto ``RoundScore``: the whole explaining breakdown."""
    facts = score.facts
    sun = score.contract is CONTRACT_SUN
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


def match_score_facts(state: State) -> tuple[tuple[int, int], int, int, int, bool, int]:
    """What a state's ``MatchScore`` shows: scores, target, rounds dealt, winner, won by a
    Gahwa, rounds scored."""
    gahwa = state.last_score is not None and state.last_score.gahwa_winner is not None
    return (
        state.match_scores,
        state.rules.match_target,
        state.hand_number,
        state.winner,
        gahwa,
        state.rounds_scored,
    )


def match_score_message(
    points: tuple[int, int],
    target: int,
    rounds_played: int,
    winner: int,
    gahwa: bool,
    rounds_scored: int = 0,
) -> types_pb2.MatchScore:
    """A proto ``MatchScore`` from :func:`match_score_facts` (``rounds_played``: the rounds
    dealt, redeals included; ``rounds_scored``: the rounds a score sheet lists)."""
    message = types_pb2.MatchScore(
        points=points, target=target, rounds_played=rounds_played, rounds_scored=rounds_scored
    )
    if winner >= 0:
        message.winner_team = winner
        message.end_reason = (
            types_pb2.MATCH_END_REASON_GAHWA if gahwa else types_pb2.MATCH_END_REASON_TARGET_REACHED
        )
    return message


# ---------------------------------------------------------------------------------------
# Events


def match_after_out(
    before: Sequence[int], score: RoundScore, rules: RuleSet
) -> types_pb2.MatchScore:
    """The match score after a calculated round (R44), for score-keeping apps."""
    totals = (before[0] + score.points[0], before[1] + score.points[1])
    message = types_pb2.MatchScore(points=list(totals), target=rules.match_target)
    winner = winner_after(totals, score, rules)
    if winner >= 0:
        message.winner_team = winner
        message.end_reason = (
            types_pb2.MATCH_END_REASON_GAHWA
            if score.gahwa_winner is not None
            else types_pb2.MATCH_END_REASON_TARGET_REACHED
        )
    return message


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

    The kinds are compared with the constants of :mod:`baloot_engine.rules.members`: this
    runs for every event.
    """
    kind = event.kind
    if kind is CARD_PLAYED:
        return _CARD_EVENTS[0][event.seat][event.card]
    if kind is AKKA_CALLED:
        return _CARD_EVENTS[1][event.seat][event.card]
    if kind is TRICK_WON:
        number, leader = _trick_of(state, event)
        return _trick_won_event(event.seat, number, leader, event.cards, state.trump)
    return None


@lru_cache(maxsize=4096)
def _trick_won_event(
    winner: int, number: int, leader: int, cards: tuple[int, ...], trump: int
) -> bytes:
    """The encoded TRICK_WON event of a trick."""
    message = types_pb2.Event(kind=EVENT_KIND_NUMBERS[TRICK_WON])
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
    elif kind in (CARD_PLAYED, AKKA_CALLED):
        message.play.seat = event.seat
        message.play.card = event.card
        message.play.akka = kind is AKKA_CALLED
    elif kind is TRICK_WON:
        number, leader = _trick_of(state, event)
        trick_out(number, leader, event.cards, trump, event.seat, into=message.trick)
    elif kind is ROUND_SCORED and event.score is not None:
        message.round_score.CopyFrom(
            round_score_out(event.score, state.hand_number, state.contract)
        )
    elif kind is EventKind.MATCH_WON:
        message.match_score.CopyFrom(match_score_out(state))
    elif kind is EventKind.QAYD_JUDGED and event.qayd is not None:
        qayd_verdict_out(event.qayd, message.qayd)
    elif kind is EventKind.CARDS_DEALT:
        message.deal.round_number = state.hand_number
        message.deal.dealer = state.dealer
        message.deal.hand_sizes.extend(event.cards)
        if event.card >= 0:
            message.deal.revealed_card = event.card
    elif kind is EventKind.REDEAL:
        message.redeal.next_dealer = event.seat
        if event.redeal is not None:
            message.redeal.reason = REDEAL_REASON_NUMBERS[event.redeal]
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


def add_action(actions: Any, action: Action) -> None:
    """Append a core action to a repeated proto ``Action`` field, building it in place."""
    if isinstance(action, Play):
        play = actions.add().play
        play.card = action.card
        if action.akka:
            play.akka = True
    elif isinstance(action, Deal) and not action.deck:
        actions.add().deal.SetInParent()  # the dealer's deal of the match's own deck
    else:
        actions.append(action_out(action))


CACHES: Final = {"rules_out": rules_out, "trick_won_event": _trick_won_event}
"""The bounded caches of this module, by their metric label (``server/caches.py``)."""
