"""The servicer of ``baloot.v1.BalootEngineService``: thin methods over the rules core.

Every action follows the same path (:meth:`BalootEngineServicer._act`): check the request,
check the credential, open the sealed token, compare the expected version, let the rules
core apply the action, seal the next state and build the views the caller may see. Every
refusal leaves through :class:`ApiError`, the one place that maps it to a status.

With a match ledger (:mod:`baloot_engine.api.ledger`), no answer about a token leaves before
the ledger confirms it is the latest of its match: the body of a call stays synchronous and
notes what it opened and sealed in a :class:`_Claim`, and the call settles that claim with
the ledger (one round trip) before it answers, or before it reports a refusal, which could
otherwise tell something about a stale state (a false Sawa claim, a forbidden card).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import inspect
import multiprocessing
import re
import secrets
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextvars import ContextVar
from typing import Any, Final, NoReturn, Protocol, TypeVar

import grpc
import grpc.aio
from google.protobuf.internal.containers import RepeatedCompositeFieldContainer

from baloot.v1 import analysis_pb2, types_pb2
from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot_engine.api import analysis, inbound, outbound, records
from baloot_engine.api.ledger import Answer, Entry, LedgerUnavailableError, MatchLedger, Verdict
from baloot_engine.api.sealing import (
    HOST_ROLE,
    MATCH_ID_SIZE,
    SPECTATOR_ROLE,
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
    LEDGER_UNAVAILABLE,
    MATCH_UNKNOWN,
    PRESET_DECK_DISABLED,
    RECORD_DIVERGES,
    RECORD_TOO_LARGE,
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
from baloot_engine.rules.actions import Action, Deal, Event, EventKind
from baloot_engine.rules.dealing import board_deck, deck_from_seed
from baloot_engine.rules.errors import NOT_YOUR_TURN, RuleError
from baloot_engine.rules.match import winner_after
from baloot_engine.rules.record import DivergenceError
from baloot_engine.rules.ruleset import RuleSet
from baloot_engine.rules.scoring import RoundScore, score_round
from baloot_engine.rules.state import Phase, State
from baloot_engine.telemetry.logs import bind_call_fields, get_logger
from baloot_engine.telemetry.metrics import Metrics

SERVICE_NAME: Final = pb.DESCRIPTOR.services_by_name["BalootEngineService"].full_name
_MATCH_ID: Final = re.compile(r"[0-9a-f]{32}")
_SCORE_LIMIT: Final = 10_000
BOT_PROCESSES: Final = 1
"""Processes of the pool the STRONG and EXPERT bots decide in, shared by the servicers of a
process (one: each server process, or worker, adds one process, not one per core)."""
BOT_QUEUE: Final = 8
"""STRONG and EXPERT decisions a servicer lets into the pool at once; the next ones wait."""
_POOLED: Final = (Level.STRONG, Level.EXPERT)
"""The levels whose decisions run in the bot pool (the searching ones)."""
_log = get_logger("baloot_engine.api")

_Context = grpc.aio.ServicerContext[Any, Any]

_pool: ProcessPoolExecutor | None = None
_pool_lock = threading.Lock()


def bot_pool() -> ProcessPoolExecutor:
    """The process pool of the STRONG and EXPERT bots, started on first use (spawned, not
    forked: a fork of a process running grpc is unsafe). Its processes end with this one."""
    global _pool  # noqa: PLW0603 - one pool per process, shared by its servicers
    with _pool_lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(
                BOT_PROCESSES, mp_context=multiprocessing.get_context("spawn")
            )
        return _pool


class _Claim:
    """What the ledger must confirm before a call answers: the states it opened and sealed."""

    __slots__ = ("created", "events", "following", "match_id", "presented")

    def __init__(self) -> None:
        self.match_id = ""
        self.presented: Entry | None = None  # the state of the token sent
        self.following: Entry | None = None  # the state the action made
        self.created: Entry | None = None  # the first state of a new match
        self.events: Sequence[Event] = ()  # counted once the ledger has accepted them


# The claim of the call being computed; set only on a server with a ledger. Call bodies run
# without awaiting, so the claim read in a body is always its own call's.
_claims: ContextVar[_Claim | None] = ContextVar("baloot_ledger_claim", default=None)


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
        if self.role == SPECTATOR_ROLE:
            return ()
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
_Body = Callable[["BalootEngineServicer", _Request], _Response | Awaitable[_Response]]
_Handler = Callable[["BalootEngineServicer", _Request, _Context], Coroutine[Any, Any, _Response]]


def _rpc(body: _Body[_Request, _Response]) -> _Handler[_Request, _Response]:
    """Turn a synchronous RPC body into the servicer's coroutine; refusals become statuses.

    The bodies are pure computation (no I/O), so they run inline on the event loop; a body
    may instead return an awaitable of its response (a STRONG or EXPERT bot, computed in
    the bot pool), which is awaited here.
    """

    @functools.wraps(body)
    async def handler(
        self: BalootEngineServicer, request: _Request, context: _Context
    ) -> _Response:
        try:
            inbound.check_sizes(request)
            if self._ledger is None:
                result = body(self, request)
            else:
                result = await _with_ledger(self, body, request)
            if inspect.isawaitable(result):  # a body that hands its work to a pool
                result = await result
        except (ApiError, RuleError) as error:
            await _abort(context, error)
        except Exception:  # noqa: BLE001 - the last line of defence of every RPC
            # A defect, never the caller's input: log it whole, answer without internals.
            _log.exception("unexpected error", method=body.__name__)
            await context.abort(grpc.StatusCode.INTERNAL, "internal error; see the server log")
        return result

    return handler


async def _with_ledger(
    servicer: BalootEngineServicer, body: _Body[_Request, _Response], request: _Request
) -> _Response | Awaitable[_Response]:
    """Run a call's body, then settle its claim with the ledger before anything leaves.

    A body's awaitable result (a bot decision in the pool, and for ApplyBotAction the action
    it chose) is awaited first, in the call's own context, so its claim is settled with it.
    """
    claim = _Claim()
    _claims.set(claim)
    try:
        response = body(servicer, request)
        if inspect.isawaitable(response):  # a bot decision in the pool, then its action
            response = await response
    except (ApiError, RuleError):
        if claim.presented is not None:
            await servicer._settle(claim, refused=True)
        raise
    await servicer._settle(claim, refused=False)
    if claim.events:
        servicer._metrics.observe_events(claim.events)
    return response


class BalootEngineServicer(pb_grpc.BalootEngineServiceServicer):
    """Answers every RPC of the contract."""

    def __init__(
        self,
        keys: KeyRing,
        metrics: Metrics,
        *,
        allow_preset_deck: bool,
        ledger: MatchLedger | None = None,
        bots_in_processes: bool = True,
        expert_budget_ms: int = 500,
    ) -> None:
        self._keys = keys
        self._metrics = metrics
        self._allow_preset_deck = allow_preset_deck
        self._ledger = ledger
        self._sealed = metrics.tokens_sealed.labels(key_id=keys.sealing_fingerprint)
        # A STRONG or EXPERT decision is a long computation: in the pool's processes it never
        # holds the event loop (nor this process's GIL) while other calls wait. False: inline,
        # as the other levels, whose decisions take well under a millisecond.
        self._bots_in_processes = bots_in_processes
        self._bot_slots: asyncio.Semaphore | None = None
        # An unseeded EXPERT decision searches until this budget (BALOOT_BOT_EXPERT_BUDGET_MS).
        self._expert = with_seconds(DEFAULT_EXPERT_BUDGET, expert_budget_ms / 1000)
        self._decide = functools.partial(suggest, expert=self._expert)

    # -- the shared path ----------------------------------------------------------------

    async def _settle(self, claim: _Claim, *, refused: bool) -> None:
        """Confirm a call's claim with the ledger, or raise the refusal the ledger calls for.

        A new match is recorded; an action's new state replaces the one it came from
        (compare-and-set); a read, or a refused action, needs its token to be the latest.
        """
        assert self._ledger is not None
        ledger = self._ledger
        try:
            if claim.created is not None:
                await ledger.record(claim.match_id, claim.created)
                return
            if claim.presented is None:
                return  # no token in this call (ScoreRound)
            if claim.following is not None and not refused:
                answer = await ledger.advance(claim.match_id, claim.presented, claim.following)
            else:
                answer = await ledger.check(claim.match_id, claim.presented)
        except LedgerUnavailableError as error:
            self._metrics.ledger_answer("unavailable")
            _log.warning("match ledger unavailable", error=str(error))
            raise ApiError(
                grpc.StatusCode.UNAVAILABLE,
                LEDGER_UNAVAILABLE,
                "the match ledger cannot be reached; send the same request again later",
            ) from None
        self._metrics.ledger_answer(answer.verdict.value)
        if answer.verdict is not Verdict.LATEST:
            raise _ledger_refusal(answer, claim.presented)

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
            plaintext = self._keys.open(token, match_key)
            decoded = decode(plaintext)
        except TokenRefusedError as error:
            self._metrics.token_refused(error.kind)
            raise state_invalid(error.why) from None
        except StateInvalidError as error:
            self._metrics.token_refused("invalid_state")
            raise state_invalid("it holds an impossible state") from error
        bind_call_fields(state_version=decoded.version)
        claim = _claims.get()
        if claim is not None:
            claim.match_id = match_id
            claim.presented = Entry.of(decoded.version, plaintext)
        return _Opened(match_id, match_key, role, decoded)

    def _seal(self, opened: _Opened, state: State, version: int, extra: bytes = b"") -> bytes:
        """Seal the state that follows the opened one (encoded from the opened message);
        ``extra`` is an encoded ``MatchState`` part of the records' fields."""
        plaintext = encode(state, opened.seed, version, previous=opened.decoded) + extra
        claim = _claims.get()
        if claim is not None:
            claim.following = Entry.of(version, plaintext)
        self._sealed.inc()
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
        _check_version(request, opened)
        action = action_of(request, opened)
        try:
            new_state, events = game.apply(state, acting, action)
        except RuleError as error:
            self._metrics.action_rejected(error.reason)
            raise
        return self._respond(opened, action, new_state, events, response)

    def _respond(
        self,
        opened: _Opened,
        action: Action | None,
        new_state: State,
        events: Sequence[Event],
        response: _ActionResponseT,
    ) -> _ActionResponseT:
        """Seal the state that follows the opened one after ``action`` (None: the host closed a
        review) and write it, its events and the caller's views into ``response``."""
        version = opened.version + 1
        claim = _claims.get()
        if claim is None:
            self._metrics.observe_events(events)
        else:
            claim.events = events  # counted only if the ledger accepts the action
        extra, reveal = self._records_step(opened, opened.state, action, new_state, events)
        response.state = self._seal(opened, new_state, version, extra)
        response.state_version = version
        reveal_part = b""
        if reveal is None:
            outbound.add_events(response.events, events, new_state)
        else:
            # The reveal follows the event that ended the hand (before a MATCH_WON).
            flag = new_state.rules.reveal_hands_after_round
            end = records.hand_end_index(events) + 1
            outbound.add_events(response.events, events[:end], new_state)
            if flag or opened.role == HOST_ROLE:
                response.events.append(reveal)
            outbound.add_events(response.events, events[end:], new_state)
            if flag:
                reveal_part = records.reveal_view_part(new_state, reveal.reveal.deck_order)
        add_views(
            response.views,
            new_state,
            opened.visible_seats(),
            opened.match_id,
            version,
            extra=reveal_part,
        )
        return response

    # -- records: the hand's deck, board sets, reveals -------------------------------------

    def _deal_of(self, request: pb.DealRoundRequest, opened: _Opened) -> Action:
        """The deck of the next hand: a preset order, or the match's own deck."""
        if request.deck_order:
            if records.token_fields(opened.decoded.message).board_set:
                raise ApiError(
                    grpc.StatusCode.PERMISSION_DENIED,
                    PRESET_DECK_DISABLED,
                    "a board-set match is dealt its board set's decks only",
                )
            return Deal(tuple(inbound.card_in(c) for c in request.deck_order))
        return Deal(self._match_deck(opened))

    def _hand_deck(self, opened: _Opened, hand_number: int) -> tuple[int, ...]:
        """The deck hand ``hand_number`` of the opened match was (or is) dealt from."""
        kept = records.kept_deck(records.token_fields(opened.decoded.message), hand_number)
        return kept if kept is not None else deck_from_seed(opened.seed, hand_number)

    def _match_deck(self, opened: _Opened) -> tuple[int, ...]:
        """The deck of the next hand: the board set's, or the match's own keyed shuffle."""
        fields = records.token_fields(opened.decoded.message)
        state = opened.state
        if fields.board_set:
            redeals = state.hand_number - fields.scored_at_hand
            return board_deck(
                self._keys.board_key(), fields.board_set, fields.rounds_scored + 1, redeals
            )
        return deck_from_seed(opened.seed, state.hand_number + 1)

    def _records_step(
        self,
        opened: _Opened,
        before: State,
        action: Action | None,
        after: State,
        events: Sequence[Event],
    ) -> tuple[bytes, types_pb2.Event | None]:
        """The records' token fields an action changes, and the reveal of a hand it ended."""
        extra = b""
        fields = records.token_fields(opened.decoded.message)
        if type(action) is Deal and (fields.board_set or action.deck != _seed_deck(opened)):
            extra += records.fields_part(deck=action.deck, deck_hand=after.hand_number)
        if not records.ends_hand(events):
            return extra, None
        deck = self._hand_deck(opened, before.hand_number)
        if any(e.kind is EventKind.ROUND_SCORED for e in events):
            extra += records.fields_part(
                rounds_scored=fields.rounds_scored + 1, scored_at_hand=after.hand_number
            )
        return extra, records.reveal_event(before, deck)

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
        board_set = records.board_set_in(request.board_set)
        state = game.new_match(rules, dealer, (scores[0], scores[1]) if scores else (0, 0))
        match_key = secrets.token_bytes(MATCH_ID_SIZE)
        match_id = match_key.hex()
        bind_call_fields(match_id=match_id, state_version=0)
        seed = secrets.token_bytes(SEED_SIZE)
        plaintext = encode(state, seed, 0)
        if board_set:
            plaintext += records.fields_part(board_set=board_set)
        claim = _claims.get()
        if claim is not None:
            claim.match_id = match_id
            claim.created = Entry.of(0, plaintext)
        self._sealed.inc()
        token = self._keys.seal(plaintext, match_key)
        response = pb.CreateMatchResponse(
            state=token,
            state_version=0,
            match_id=match_id,
            host_credential=self._keys.credential(match_key, HOST_ROLE),
            seat_credentials=[self._keys.credential(match_key, seat_role(s)) for s in range(4)],
            spectator_credential=self._keys.credential(match_key, SPECTATOR_ROLE),
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
        return self._act(request, self._deal_of, pb.DealRoundResponse())

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
        state = opened.state
        if state.rules.reveal_hands_after_round and state.last_score is not None:
            deck = self._hand_deck(opened, state.hand_number)
            view.MergeFromString(records.reveal_view_part(state, deck))
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

    @_rpc
    def SuggestAction(
        self, request: pb.SuggestActionRequest
    ) -> pb.SuggestActionResponse | Awaitable[pb.SuggestActionResponse]:
        """One legal action for a seat, chosen by a bot that sees only what that seat may know.

        The checks run inline; a STRONG or EXPERT decision is awaited from the bot pool (at most
        ``BOT_QUEUE`` of this servicer's at once), so it never stalls the calls this process
        is serving.
        """
        opened, seat, level, seed = self._suggest_inputs(request)
        if level in _POOLED and self._bots_in_processes:
            return self._suggest_in_pool(opened, seat, level, seed)
        return _suggestion(opened, level, self._decide(opened.state, seat, level, seed))

    def _suggest_inputs(
        self, request: pb.SuggestActionRequest
    ) -> tuple[_Opened, int, Level, int | None]:
        inbound.check_sizes(request)
        opened = self._open(request.state, request.match_id, request.credential)
        seat = inbound.seat_in(request.seat)
        bind_call_fields(seat=seat)
        if opened.role != HOST_ROLE:
            raise credential_invalid("only the host credential may ask for a bot's action")
        level = inbound.bot_level_in(request.level)
        seed = request.seed if request.HasField("seed") else None
        return opened, seat, level, seed

    async def _suggest_in_pool(
        self, opened: _Opened, seat: int, level: Level, seed: int | None
    ) -> pb.SuggestActionResponse:
        action = await self._decide_in_pool(opened.state, seat, level, seed)
        return _suggestion(opened, level, action)

    async def _decide_in_pool(
        self, state: State, seat: int, level: Level, seed: int | None
    ) -> Action:
        """A bot's decision computed in the bot pool, at most ``BOT_QUEUE`` of them at once."""
        if self._bot_slots is None:
            self._bot_slots = asyncio.Semaphore(BOT_QUEUE)
        async with self._bot_slots:
            loop = asyncio.get_running_loop()
            action: Action = await loop.run_in_executor(
                bot_pool(), self._decide, state, seat, level, seed
            )
        return action

    @_rpc
    def CallQayd(self, request: pb.CallQaydRequest) -> pb.CallQaydResponse:
        """A Qayd call of a seat (table play), or the host closing the review of a round."""
        if not request.close_review:
            if not request.HasField("call"):
                raise request_invalid("a Qayd call needs `call`, or `close_review` for the host")
            return self._act(request, lambda r, _: inbound.qayd_in(r.call), pb.CallQaydResponse())
        if request.HasField("call"):
            raise request_invalid("closing the review takes no `call`")
        opened = self._open(request.state, request.match_id, request.credential)
        if opened.role != HOST_ROLE:
            raise credential_invalid("only the host credential may close the review")
        _check_version(request, opened)
        try:
            new_state, events = game.close_review(opened.state)
        except RuleError as error:
            self._metrics.action_rejected(error.reason)
            raise
        return self._respond(opened, None, new_state, events, pb.CallQaydResponse())

    @_rpc
    def ApplyBotAction(
        self, request: pb.ApplyBotActionRequest
    ) -> pb.ApplyBotActionResponse | Awaitable[pb.ApplyBotActionResponse]:
        """Apply, in one call, the action a bot chooses for the seat whose turn it is.

        As for SuggestAction, a STRONG or EXPERT decision is computed in the bot pool, so it never
        stalls the calls this process is serving; the action is then applied inline.
        """
        level = inbound.bot_level_in(request.level)
        if level in _POOLED and self._bots_in_processes:
            return self._apply_bot_in_pool(request, level)
        chosen: list[Action] = []

        def bot_action(r: pb.ApplyBotActionRequest, opened: _Opened) -> Action:
            between = self._bot_turn(r, opened)
            if between:
                chosen.append(Deal(()))
                return Deal(self._match_deck(opened))
            action = self._decide(opened.state, r.seat, level, _request_bot_seed(r, opened))
            chosen.append(action)
            return action

        response = self._act(request, bot_action, pb.ApplyBotActionResponse())
        return _bot_applied(response, request, chosen[0])

    async def _apply_bot_in_pool(
        self, request: pb.ApplyBotActionRequest, level: Level
    ) -> pb.ApplyBotActionResponse:
        opened = self._open(request.state, request.match_id, request.credential)
        action: Action
        if not self._bot_turn(request, opened):
            seed = _request_bot_seed(request, opened)
            action = await self._decide_in_pool(opened.state, request.seat, level, seed)
            shown = action
        else:
            action, shown = Deal(self._match_deck(opened)), Deal(())
        # Applied on the token the decision was made for: _act opens it again and checks the
        # credential and the version as for every action.
        response = self._act(request, lambda _r, _o: action, pb.ApplyBotActionResponse())
        return _bot_applied(response, request, shown)

    def _bot_turn(self, request: pb.ApplyBotActionRequest, opened: _Opened) -> bool:
        """Check that the host asks for the seat on turn; True between hands (the dealer deals)."""
        if opened.role != HOST_ROLE:
            raise credential_invalid("only the host credential may apply a bot's action")
        state = opened.state
        between = state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER)
        on_turn = state.dealer if between else state.turn
        if state.phase is not Phase.MATCH_OVER and request.seat != on_turn:
            raise RuleError(
                NOT_YOUR_TURN,
                f"seat {on_turn} is to act, not seat {request.seat}",
                details={"turn": str(on_turn)},
            )
        return between

    @_rpc
    def VerifyRecord(self, request: pb.VerifyRecordRequest) -> pb.VerifyRecordResponse:
        """Replay a record from scratch through the rules: valid, or its first divergence."""
        _check_record(request.record)
        bind_call_fields(record_rounds=len(request.record.rounds))
        response = records.verify(request.record)
        if not response.valid:
            bind_call_fields(divergence=response.divergence.reason)
        return response

    @_rpc
    def ReplayRecord(self, request: pb.ReplayRecordRequest) -> pb.ReplayRecordResponse:
        """The views and events of a record at one step."""
        record = request.record
        _check_record(record)
        total = records.total_steps(record)
        if request.step > total:
            raise request_invalid(f"step {request.step} is past the record's {total} actions")
        try:
            replayed = records.replay_to(record, request.step)
        except DivergenceError as divergence:
            raise ApiError(
                grpc.StatusCode.FAILED_PRECONDITION,
                RECORD_DIVERGES,
                f"the record diverges before step {request.step}: {divergence}",
                {
                    "round_index": str(divergence.round_index),
                    "action_index": str(divergence.action_index),
                    "divergence": divergence.reason,
                },
            ) from None
        return records.replay_response(record, replayed, request.step)

    async def AnalyzeRecord(
        self, request: analysis_pb2.AnalyzeRecordRequest, context: _Context
    ) -> AsyncIterator[analysis_pb2.AnalyzeRecordResponse]:
        """Stream the analysis of a match record, computed in the analysis worker process."""
        async for response in analysis.stream(request, context, _abort):
            yield response


def _check_version(request: Any, opened: _Opened) -> None:
    """Refuse an action whose ``expected_version`` is not the token's (STALE_STATE)."""
    if request.HasField("expected_version") and request.expected_version != opened.version:
        raise ApiError(
            grpc.StatusCode.FAILED_PRECONDITION,
            STALE_STATE,
            f"the state is at version {opened.version}, not {request.expected_version}",
            {"state_version": str(opened.version)},
        )


def _suggestion(opened: _Opened, level: Level, action: Action) -> pb.SuggestActionResponse:
    return pb.SuggestActionResponse(
        state_version=opened.version,
        action=outbound.action_out(action),
        level=outbound.BOT_LEVEL_NUMBERS[level],
    )


def _check_record(record: Any) -> None:
    """Refuse a record larger than VerifyRecord and ReplayRecord accept."""
    why = records.check_size(record)
    if why is not None:
        raise ApiError(grpc.StatusCode.INVALID_ARGUMENT, RECORD_TOO_LARGE, why)


def _bot_applied(
    response: pb.ApplyBotActionResponse, request: pb.ApplyBotActionRequest, action: Action
) -> pb.ApplyBotActionResponse:
    response.seat = request.seat
    response.action.CopyFrom(outbound.action_out(action))
    response.level = request.level
    return response


def _request_bot_seed(request: pb.ApplyBotActionRequest, opened: _Opened) -> int:
    return request.seed if request.HasField("seed") else _bot_seed(opened)


def _bot_seed(opened: _Opened) -> int:
    """A bot's seed derived from the match's secret seed and the state's version: the same
    request gives the same action, and nobody can predict it without the seed."""
    label = b"baloot-bot" + opened.version.to_bytes(8, "big")
    return int.from_bytes(hmac.new(opened.seed, label, hashlib.sha256).digest()[:8], "big")


def _seed_deck(opened: _Opened) -> tuple[int, ...]:
    return deck_from_seed(opened.seed, opened.state.hand_number + 1)


def _ledger_refusal(answer: Answer, presented: Entry) -> ApiError:
    if answer.verdict is Verdict.UNKNOWN:
        return ApiError(
            grpc.StatusCode.FAILED_PRECONDITION,
            MATCH_UNKNOWN,
            "the match ledger has no record of this match (expired, or created elsewhere)",
            {"state_version": str(presented.version)},
        )
    latest = "" if answer.latest_version is None else str(answer.latest_version)
    return ApiError(
        grpc.StatusCode.FAILED_PRECONDITION,
        STALE_STATE,
        f"this token is not the latest of its match (the latest is at version {latest or '?'})",
        {"state_version": str(presented.version), "latest_version": latest},
    )


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
