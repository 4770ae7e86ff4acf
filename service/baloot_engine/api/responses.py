"""The action responses written from the match layer's results: the next token, the events
(with a round's reveal in its place), the views the caller may see, and the bots' actions."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Protocol, TypeVar

from google.protobuf.internal.containers import RepeatedCompositeFieldContainer

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import types_pb2
from baloot_engine.api import outbound, records
from baloot_engine.api.matches import Acted, Created, Opened
from baloot_engine.api.views import add_views
from baloot_engine.bots import Level
from baloot_engine.rules import Action, RoundScore, RuleSet, State

_ALL_SEATS: Final = (0, 1, 2, 3)


class ActionResponse(Protocol):
    """What the responses of the actions share: the next token, its version, events, views."""

    state: bytes
    state_version: int

    @property
    def events(self) -> RepeatedCompositeFieldContainer[types_pb2.Event]: ...

    @property
    def views(self) -> RepeatedCompositeFieldContainer[types_pb2.View]: ...


ActionResponseT = TypeVar("ActionResponseT", bound=ActionResponse)


def respond(acted: Acted, response: ActionResponseT) -> ActionResponseT:
    """Write an accepted action's token, events (with the reveal of a round it ended, right
    after the event that ended it) and the caller's views into ``response``, in place."""
    state = acted.state
    response.state = acted.token
    response.state_version = acted.version
    reveal = acted.reveal
    reveal_part = b""
    if reveal is None:
        outbound.add_events(response.events, acted.events, state)
    else:
        end = acted.reveal_at + 1
        outbound.add_events(response.events, acted.events[:end], state)
        response.events.append(records.reveal_event(reveal.round, reveal.deck, reveal.deal_key))
        outbound.add_events(response.events, acted.events[end:], state)
        if reveal.in_views:
            reveal_part = records.reveal_view_part(reveal)
    opened = acted.opened
    seats = opened.visible_seats()
    add_views(response.views, state, seats, opened.match_id, acted.version, extra=reveal_part)
    return response


def created(created: Created, secret: str, disclosure: int) -> pb.CreateMatchResponse:
    """The CreateMatch response of a new match: its token, credentials, commitment, views."""
    response = pb.CreateMatchResponse(
        state=created.token,
        state_version=0,
        match_id=created.match_id,
        host_credential=created.host_credential,
        seat_credentials=created.seat_credentials,
        spectator_credential=created.spectator_credential,
        board_set_secret=secret,
    )
    response.deal_commitment.CopyFrom(records.commitment_out(created.commitment, disclosure))
    add_views(response.views, created.state, _ALL_SEATS, created.match_id, 0, with_rules=True)
    return response


def suggestion(opened: Opened, level: Level, action: Action) -> pb.SuggestActionResponse:
    """The SuggestAction response of a bot's decision."""
    return pb.SuggestActionResponse(
        state_version=opened.version,
        action=outbound.action_out(action),
        level=outbound.BOT_LEVEL_NUMBERS[level],
    )


def bot_applied(
    response: pb.ApplyBotActionResponse, request: pb.ApplyBotActionRequest, action: Action
) -> pb.ApplyBotActionResponse:
    """Complete an ApplyBotAction response with the seat, the action shown and the level."""
    response.seat = request.seat
    response.action.CopyFrom(outbound.action_out(action))
    response.level = request.level
    return response


def legal_actions(version: int, actions: Iterable[Action]) -> pb.ListLegalActionsResponse:
    """The ListLegalActions response of a seat's legal actions."""
    response = pb.ListLegalActionsResponse(state_version=version)
    for action in actions:
        outbound.add_action(response.actions, action)
    return response


def scored(
    request: pb.ScoreRoundRequest, score: RoundScore, rules: RuleSet
) -> pb.ScoreRoundResponse:
    """The ScoreRound response of a round's score (and the match's, given its scores)."""
    response = pb.ScoreRoundResponse(score=outbound.round_score_out(score, 0, None))
    response.score.contract.trump = request.trump
    if request.match_scores:
        response.match.CopyFrom(outbound.match_after_out(request.match_scores, score, rules))
    return response


def match_score_out(state: State) -> types_pb2.MatchScore:
    """The match score of a state."""
    return outbound.match_score_out(state)


__all__ = [
    "ActionResponse",
    "ActionResponseT",
    "bot_applied",
    "created",
    "legal_actions",
    "match_score_out",
    "respond",
    "scored",
    "suggestion",
]
