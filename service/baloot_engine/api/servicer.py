"""The servicer of ``baloot.v1.BalootEngineService``: thin methods over the rules core.

Every action follows the same path (:meth:`BalootEngineServicer._act`): check the request,
check the credential, open the sealed token, compare the expected version, let the rules
core apply the action, seal the next state and build the views the caller may see. Every
refusal leaves through :class:`ApiError`, the one place that maps it to a status.
"""

from __future__ import annotations

import asyncio
import functools
import re
import secrets
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final, NoReturn, Protocol, TypeVar

import grpc
import grpc.aio
from google.protobuf.internal.containers import RepeatedCompositeFieldContainer

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot.v1 import types_pb2
from baloot_engine.api import inbound, outbound
from baloot_engine.api.sealing import (
    HOST_ROLE,
    MATCH_ID_SIZE,
    KeyRing,
    TokenRefusedError,
    seat_role,
)
from baloot_engine.api.state_codec import (
    SEED_SIZE,
    Decoded,
    StateInvalidError,
    decode,
    encode,
)
from baloot_engine.api.status import (
    PRESET_DECK_DISABLED,
    STALE_STATE,
    ApiError,
    credential_invalid,
    request_invalid,
    state_invalid,
)
from baloot_engine.api.views import add_views, build_view, last_round_out
from baloot_engine.bots import Level, suggest
from baloot_engine.bots.expert import DEFAULT_EXPERT_BUDGET, with_seconds
from baloot_engine.rules import game
from baloot_engine.rules.actions import Action, Deal
from baloot_engine.rules.dealing import deck_from_seed
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.match import winner_after
from baloot_engine.rules.ruleset import RuleSet
from baloot_engine.rules.scoring import RoundScore, score_round
from baloot_engine.rules.state import State
from baloot_engine.telemetry.logs import bind_call_fields, get_logger
from baloot_engine.telemetry.metrics import Metrics

SERVICE_NAME: Final = pb.DESCRIPTOR.services_by_name["BalootEngineService"].full_name
_MATCH_ID: Final = re.compile(r"[0-9a-f]{32}")
_SCORE_LIMIT: Final = 10_000
_log = get_logger("baloot_engine.api")
EXPERT_THREADS: Final = 2
"""EXPERT suggestions searching at once per process (the others wait for a thread)."""

_Context = grpc.aio.ServicerContext[Any, Any]


class _Opened:
    """A request's match, opened: who is calling and the state they sent."""

    __slots__ = ("decoded", "match_id", "match_key", "role", "seed", "state", "version")

    def __init__(self, match_id: str, match_key: bytes, role: str, decoded: Decoded) -> None:
        self.match_id = match_id
        self.match_key = match_key
        self.role = role
        self.decoded = decoded
        self.state = decoded.state
        self.seed = decoded.seed
        self.version = decoded.version

    def may_act_for(self, seat: int) -> bool:
        return self.role in (HOST_ROLE, seat_role(seat))

    def visible_seats(self) -> Sequence[int]:
        """The seats whose private views the caller may see."""
        if self.role == HOST_ROLE:
            return (0, 1, 2, 3)
        return (int(self.role[-1]),)


class _ActionResponse(Protocol):
    """What the responses of the actions share: the next token, its version, events, views."""

    state: bytes
    state_version: int

    @property
    def events(self) -> RepeatedCompositeFieldContainer[types_pb2.Event]: ...

    @property
    def views(self) -> RepeatedCompositeFieldContainer[types_pb2.View]: ...


_ActionResponseT = TypeVar("_ActionResponseT", bound=_ActionResponse)
_Request = TypeVar("_Request")
_Response = TypeVar("_Response")
_Body = Callable[["BalootEngineServicer", _Request], _Response]
_Handler = Callable[["BalootEngineServicer", _Request, _Context], Coroutine[Any, Any, _Response]]
_AsyncBody = Callable[["BalootEngineServicer", _Request], Coroutine[Any, Any, _Response]]


def _rpc(body: _Body[_Request, _Response]) -> _Handler[_Request, _Response]:
    """Turn a synchronous RPC body into the servicer's coroutine; refusals become statuses.

    The bodies are pure computation (no I/O), so they run inline on the event loop.
    """

    @functools.wraps(body)
    async def handler(
        self: BalootEngineServicer, request: _Request, context: _Context
    ) -> _Response:
        try:
            return body(self, request)
        except (ApiError, RuleError) as error:
            await _abort(context, error)
        except Exception:  # noqa: BLE001 - the last line of defence of every RPC
            # A defect, never the caller's input: log it whole, answer without internals.
            _log.exception("unexpected error", method=body.__name__)
            await context.abort(grpc.StatusCode.INTERNAL, "internal error; see the server log")

    return handler


def _async_rpc(body: _AsyncBody[_Request, _Response]) -> _Handler[_Request, _Response]:
    """:func:`_rpc` for a body that awaits work it runs off the event loop."""

    @functools.wraps(body)
    async def handler(
        self: BalootEngineServicer, request: _Request, context: _Context
    ) -> _Response:
        try:
            return await body(self, request)
        except (ApiError, RuleError) as error:
            await _abort(context, error)
        except Exception:  # noqa: BLE001 - the last line of defence of every RPC
            _log.exception("unexpected error", method=body.__name__)
            await context.abort(grpc.StatusCode.INTERNAL, "internal error; see the server log")

    return handler


class BalootEngineServicer(pb_grpc.BalootEngineServiceServicer):
    """Answers every RPC of the contract."""

    def __init__(
        self,
        keys: KeyRing,
        metrics: Metrics,
        *,
        allow_preset_deck: bool,
        expert_budget_ms: int = 500,
    ) -> None:
        self._keys = keys
        self._metrics = metrics
        self._allow_preset_deck = allow_preset_deck
        self._expert = with_seconds(DEFAULT_EXPERT_BUDGET, expert_budget_ms / 1000)
        self._expert_pool = ThreadPoolExecutor(EXPERT_THREADS, thread_name_prefix="bot-expert")

    # -- the shared path ----------------------------------------------------------------

    def _open(self, token: bytes, match_id: str, credential: str) -> _Opened:
        if not _MATCH_ID.fullmatch(match_id):
            raise request_invalid(
                "match_id must be the 32 lower-case hex digits CreateMatch returned"
            )
        match_key = bytes.fromhex(match_id)
        bind_call_fields(match_id=match_id)
        role = self._keys.role_of(match_key, credential)
        if role is None:
            raise credential_invalid("the credential is not valid for this match")
        try:
            decoded = decode(self._keys.open(token, match_key))
        except TokenRefusedError as error:
            self._metrics.token_refused(error.kind)
            raise state_invalid(error.why) from None
        except StateInvalidError as error:
            self._metrics.token_refused("invalid_state")
            raise state_invalid("it holds an impossible state") from error
        bind_call_fields(state_version=decoded.version)
        return _Opened(match_id, match_key, role, decoded)

    def _seal(self, opened: _Opened, state: State, version: int) -> bytes:
        """Seal the state that follows the opened one (encoded from the opened message)."""
        plaintext = encode(state, opened.seed, version, previous=opened.decoded)
        return self._keys.seal(plaintext, opened.match_key)

    def _act(
        self,
        request: Any,
        action_of: Callable[[Any, _Opened], Action],
        response: _ActionResponseT,
        *,
        seat: int | None = None,
    ) -> _ActionResponseT:
        """Apply the request's action and fill ``response`` (an empty response message).

        The events and views are written into the response in place rather than built as
        messages and copied in.
        """
        opened = self._open(request.state, request.match_id, request.credential)
        state = opened.state
        acting = inbound.seat_in(request.seat) if seat is None else seat
        bind_call_fields(seat=acting)
        if not opened.may_act_for(acting):
            raise credential_invalid(f"the credential may not act for seat {acting}")
        if request.HasField("expected_version") and request.expected_version != opened.version:
            raise ApiError(
                grpc.StatusCode.FAILED_PRECONDITION,
                STALE_STATE,
                f"the state is at version {opened.version}, not {request.expected_version}",
                {"state_version": str(opened.version)},
            )
        action = action_of(request, opened)
        try:
            new_state, events = game.apply(state, acting, action)
        except RuleError as error:
            self._metrics.action_rejected(error.reason)
            raise
        version = opened.version + 1
        self._metrics.observe_events(events)
        response.state = self._seal(opened, new_state, version)
        response.state_version = version
        outbound.add_events(response.events, events, new_state)
        add_views(response.views, new_state, opened.visible_seats(), opened.match_id, version)
        return response

    # -- RPCs ---------------------------------------------------------------------------

    @_rpc
    def CreateMatch(self, request: pb.CreateMatchRequest) -> pb.CreateMatchResponse:
        """Create a match and hand out its credentials."""
        rules = inbound.rules_in(request.rules if request.HasField("rules") else None)
        if request.HasField("first_dealer"):
            dealer = inbound.seat_in(request.first_dealer)
        else:
            dealer = secrets.randbelow(4)
        scores = tuple(request.starting_scores)
        if scores and len(scores) != 2:
            raise request_invalid("starting_scores needs one entry per team, or none")
        if any(score >= rules.match_target for score in scores):
            raise request_invalid(
                f"starting_scores must be below the match target {rules.match_target}"
            )
        state = game.new_match(rules, dealer, (scores[0], scores[1]) if scores else (0, 0))
        match_key = secrets.token_bytes(MATCH_ID_SIZE)
        match_id = match_key.hex()
        bind_call_fields(match_id=match_id, state_version=0)
        seed = secrets.token_bytes(SEED_SIZE)
        token = self._keys.seal(encode(state, seed, 0), match_key)
        response = pb.CreateMatchResponse(
            state=token,
            state_version=0,
            match_id=match_id,
            host_credential=self._keys.credential(match_key, HOST_ROLE),
            seat_credentials=[self._keys.credential(match_key, seat_role(s)) for s in range(4)],
        )
        add_views(response.views, state, (0, 1, 2, 3), match_id, 0, with_rules=True)
        return response

    @_rpc
    def DealRound(self, request: pb.DealRoundRequest) -> pb.DealRoundResponse:
        """Deal the next round from the match's own shuffle (or an allowed preset deck)."""
        if request.deck_order and not self._allow_preset_deck:
            raise ApiError(
                grpc.StatusCode.PERMISSION_DENIED,
                PRESET_DECK_DISABLED,
                "this server does not accept preset decks (BALOOT_ALLOW_PRESET_DECK)",
            )
        return self._act(request, _deal_of, pb.DealRoundResponse())

    @_rpc
    def PlaceBid(self, request: pb.PlaceBidRequest) -> pb.PlaceBidResponse:
        """Apply one bid."""
        return self._act(request, lambda r, _: inbound.bid_in(r.bid), pb.PlaceBidResponse())

    @_rpc
    def CallDouble(self, request: pb.CallDoubleRequest) -> pb.CallDoubleResponse:
        """Apply one doubling call."""
        return self._act(
            request, lambda r, _: inbound.doubling_in(r.doubling), pb.CallDoubleResponse()
        )

    @_rpc
    def DeclareProjects(self, request: pb.DeclareProjectsRequest) -> pb.DeclareProjectsResponse:
        """Declare project types in the first trick."""
        return self._act(
            request,
            lambda r, _: inbound.declaration_in(r.declaration),
            pb.DeclareProjectsResponse(),
        )

    @_rpc
    def PlayCard(self, request: pb.PlayCardRequest) -> pb.PlayCardResponse:
        """Play a card (or claim Sawa)."""
        return self._act(request, lambda r, _: inbound.play_in(r.play), pb.PlayCardResponse())

    @_rpc
    def GetScore(self, request: pb.GetScoreRequest) -> pb.GetScoreResponse:
        """The breakdown of the last scored round and the match score."""
        opened = self._open(request.state, request.match_id, request.credential)
        state = opened.state
        response = pb.GetScoreResponse(
            state_version=opened.version, match=outbound.match_score_out(state)
        )
        if state.last_score is not None:
            response.last_round.CopyFrom(last_round_out(state))
        return response

    @_rpc
    def GetView(self, request: pb.GetViewRequest) -> pb.GetViewResponse:
        """A seat's view (with its hand) for an entitled caller, or the public view."""
        opened = self._open(request.state, request.match_id, request.credential)
        seat = None
        if request.HasField("seat"):
            seat = inbound.seat_in(request.seat)
            if not opened.may_act_for(seat):
                raise credential_invalid(f"the credential may not see seat {seat}'s hand")
        view = build_view(opened.state, seat, opened.match_id, opened.version, with_rules=True)
        return pb.GetViewResponse(view=view)

    @_rpc
    def ListLegalActions(self, request: pb.ListLegalActionsRequest) -> pb.ListLegalActionsResponse:
        """The actions a seat may take now."""
        opened = self._open(request.state, request.match_id, request.credential)
        seat = inbound.seat_in(request.seat)
        if not opened.may_act_for(seat):
            raise credential_invalid(f"the credential may not see seat {seat}'s actions")
        response = pb.ListLegalActionsResponse(state_version=opened.version)
        for action in game.legal_actions(opened.state, seat):
            outbound.add_action(response.actions, action)
        return response

    @_rpc
    def ScoreRound(self, request: pb.ScoreRoundRequest) -> pb.ScoreRoundResponse:
        """Score a finished round from its facts, with no match and no token."""
        facts, rules = inbound.facts_in(request)
        score = score_round(facts, rules)
        response = pb.ScoreRoundResponse(score=outbound.round_score_out(score, 0, None))
        response.score.contract.trump = request.trump
        if request.match_scores:
            if len(request.match_scores) != 2 or max(request.match_scores) >= _SCORE_LIMIT:
                raise request_invalid(
                    f"match_scores needs one entry per team, each below {_SCORE_LIMIT}, or none"
                )
            response.match.CopyFrom(_match_after(request.match_scores, score, rules))
        return response

    @_async_rpc
    async def SuggestAction(self, request: pb.SuggestActionRequest) -> pb.SuggestActionResponse:
        """One legal action for a seat, chosen by a bot that sees only what that seat may know.

        An EXPERT search (up to its time budget) runs in a small thread pool, off the event loop.
        """
        opened = self._open(request.state, request.match_id, request.credential)
        seat = inbound.seat_in(request.seat)
        bind_call_fields(seat=seat)
        if opened.role != HOST_ROLE:
            raise credential_invalid("only the host credential may ask for a bot's action")
        level = inbound.bot_level_in(request.level)
        seed = request.seed if request.HasField("seed") else None
        if level is Level.EXPERT:
            call = functools.partial(suggest, opened.state, seat, level, seed, expert=self._expert)
            loop = asyncio.get_running_loop()
            action = await loop.run_in_executor(self._expert_pool, call)
        else:
            action = suggest(opened.state, seat, level, seed)
        return pb.SuggestActionResponse(
            state_version=opened.version,
            action=outbound.action_out(action),
            level=outbound.BOT_LEVEL_NUMBERS[level],
        )


def _deal_of(request: pb.DealRoundRequest, opened: _Opened) -> Action:
    """The deck of the next hand: a preset order, or the match's own keyed shuffle."""
    if request.deck_order:
        return Deal(tuple(inbound.card_in(c) for c in request.deck_order))
    return Deal(deck_from_seed(opened.seed, opened.state.hand_number + 1))


def _match_after(before: Sequence[int], score: RoundScore, rules: RuleSet) -> types_pb2.MatchScore:
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


async def _abort(context: _Context, error: ApiError | RuleError) -> NoReturn:
    refusal = error if isinstance(error, ApiError) else ApiError.from_rule_error(error)
    bind_call_fields(reason=refusal.reason)
    status = refusal.to_status()
    # Keep what the interceptors already put in the trailers (the request id).
    trailers = (*tuple(context.trailing_metadata() or ()), *status.trailing_metadata)
    await context.abort(status.code, status.details, trailing_metadata=trailers)
    raise AssertionError("abort_with_status returned")  # pragma: no cover


__all__ = ["SERVICE_NAME", "BalootEngineServicer"]
