"""The servicer of ``baloot.v1.BalootEngineService``: messages in, a match-layer call, messages out.

Each method reads its request into core values (:mod:`~baloot_engine.api.inbound`), calls the
match layer (:mod:`~baloot_engine.api.matches`: open the token, apply the action, seal the
next state) or the rules core, and writes the result into its response
(:mod:`~baloot_engine.api.outbound`, :mod:`~baloot_engine.api.views`,
:mod:`~baloot_engine.api.records`). Every refusal leaves through :func:`_abort`, the one place
that maps it to a status.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import math
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Final, NoReturn, TypeVar

import grpc
import grpc.aio

from baloot.v1 import analysis_pb2
from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot_engine.api import (
    analysis,
    attestation,
    fairplay,
    inbound,
    judging,
    outbound,
    records,
    responses,
    solving,
)
from baloot_engine.api.ledger import MatchLedger
from baloot_engine.api.matches import Acted, Judge, Matches, Opened, judged_call
from baloot_engine.api.refusals import (
    ApiError,
    bot_call_refused,
    credential_invalid,
    request_invalid,
    worker_stopped,
)
from baloot_engine.api.sealing import KeyRing
from baloot_engine.api.views import add_views, build_view, last_round_out
from baloot_engine.bots import Level
from baloot_engine.bots.pool import BotPool
from baloot_engine.rules import Action, Deal, RuleError, game, score_round
from baloot_engine.rules.facts import validate_facts_at_scores
from baloot_engine.telemetry.logs import bind_call_fields, get_logger
from baloot_engine.telemetry.metrics import Metrics

SERVICE_NAME: Final = pb.DESCRIPTOR.services_by_name["BalootEngineService"].full_name
_SCORE_LIMIT: Final = 10_000  # far above any match: both teams over the target, tied
_ALL_SEATS: Final = (0, 1, 2, 3)
_log = get_logger("baloot_engine.api")
JUDGED_ANSWER_STEP: Final = 0.1
"""Seconds: a Sawa claim's or a Qayd call's answer, accepted or refused, leaves on a whole
number of these after the call began (:func:`_to_the_step`), once the call reached the
judgement (``matches.judged_call``; a refusal before it, a bad token say, searched nothing).
Their verdicts search the hidden hands, and how long
a search takes depends on them: the quick proof of a claim, a refutation by a fixed defence
and the full search take from microseconds to tens of milliseconds, which a claimer could
time. A claim's check takes 0.14 ms at the median and 99 ms at most over 599 random positions
(docs/server.md), so nearly every answer leaves at one step, and a rare longer one at the
next, which tells only that the position was hard."""

_Context = grpc.aio.ServicerContext[Any, Any]


_Request = TypeVar("_Request")
_T = TypeVar("_T")
_U = TypeVar("_U")
_Response = TypeVar("_Response")
_Body = Callable[["BalootEngineServicer", _Request], _Response | Awaitable[_Response]]
_Handler = Callable[["BalootEngineServicer", _Request, _Context], Coroutine[Any, Any, _Response]]


def _rpc(body: _Body[_Request, _Response]) -> _Handler[_Request, _Response]:
    """Turn a synchronous RPC body into the servicer's coroutine; refusals become statuses.

    The bodies are pure computation (no I/O), so they run inline on the event loop; a body
    may instead return an awaitable of its response (a STRONG or EXPERT bot, computed in
    the bot pool), which is awaited here. With a match ledger the match layer settles the
    call's claim before anything leaves (:meth:`Matches.settled`).
    """

    @functools.wraps(body)
    async def handler(
        self: BalootEngineServicer, request: _Request, context: _Context
    ) -> _Response:
        began = time.monotonic()
        try:
            try:
                inbound.check_sizes(request)
                if self._matches.ledger is None:
                    result = body(self, request)
                else:
                    result = await self._matches.settled(lambda: body(self, request))
                if inspect.isawaitable(result):  # a body that hands its work to a pool
                    result = await result
            finally:
                if judged_call.get():  # the answer, or the refusal, waits for its step
                    await _to_the_step(began)
        except (ApiError, RuleError) as error:
            await _abort(context, error)
        except BrokenProcessPool:  # a pool's process died twice in a row (run_in_pool)
            _log.warning("a worker process stopped", method=body.__name__)
            await _abort(context, worker_stopped("the process computing the answer stopped"))
        except Exception:  # noqa: BLE001 - the last line of defence of every RPC
            # A defect, never the caller's input: log it whole, answer without internals.
            _log.exception("unexpected error", method=body.__name__)
            await context.abort(grpc.StatusCode.INTERNAL, "internal error; see the server log")
        return result

    return handler


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
        attestor: attestation.Attestor | None = None,
    ) -> None:
        self._matches = Matches(keys, metrics, allow_preset_deck=allow_preset_deck, ledger=ledger)
        self._attestor = attestor  # signs the deal commitments (None: they are not attested)
        self._bots = BotPool(in_processes=bots_in_processes, expert_budget_ms=expert_budget_ms)

    def _open(self, request: Any) -> Opened:
        return self._matches.open(request.state, request.match_id, request.credential)

    def _act(
        self,
        request: Any,
        action_of: Callable[[Opened], Action],
        response: responses.ActionResponseT,
        *,
        seat: int | None = None,
    ) -> responses.ActionResponseT:
        """Apply the request's action and fill ``response`` (an empty response message)."""
        acted = self._acted(request, action_of, seat, judge=None)
        assert isinstance(acted, Acted)
        return responses.respond(acted, response)

    def _act_judged(
        self,
        request: Any,
        action_of: Callable[[Opened], Action],
        response: responses.ActionResponseT,
    ) -> responses.ActionResponseT | Awaitable[responses.ActionResponseT]:
        """As :meth:`_act` for a call that may be judged (a Sawa claim, a Qayd call): that one
        is applied in the judge's process (:mod:`~baloot_engine.api.judging`), and its response is
        awaitable."""
        judge = judging.judge if self._bots.in_processes else None
        return _then(
            self._acted(request, action_of, None, judge),
            lambda acted: responses.respond(acted, response),
        )

    def _acted(
        self,
        request: Any,
        action_of: Callable[[Opened], Action],
        seat: int | None,
        judge: Judge | None,
    ) -> Acted | Awaitable[Acted]:
        opened = self._open(request)
        acting = inbound.seat_in(request.seat) if seat is None else seat
        return self._matches.act(opened, acting, _expected(request), action_of, judge)

    # -- RPCs ---------------------------------------------------------------------------

    @_rpc
    def CreateMatch(self, request: pb.CreateMatchRequest) -> pb.CreateMatchResponse:
        """Create a match and hand out its credentials."""
        rules = inbound.rules_in(request.rules if request.HasField("rules") else None)
        if request.HasField("first_dealer"):
            dealer = inbound.seat_in(request.first_dealer)
        else:
            dealer = secrets.randbelow(4)
        start = inbound.starting_scores_in(request.starting_scores, rules)
        board_set = records.board_set_in(request.board_set)
        secret = records.board_set_secret_in(request.board_set_secret, board_set)
        disclosure = records.deal_disclosure_in(request.deal_disclosure)
        created = self._matches.create(rules, dealer, start, board_set, secret, disclosure)
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
        attestation.attest_commitment(
            self._attestor, response.deal_commitment, created.match_id, rules
        )
        add_views(response.views, created.state, _ALL_SEATS, created.match_id, 0, with_rules=True)
        return response

    @_rpc
    def DealRound(self, request: pb.DealRoundRequest) -> pb.DealRoundResponse:
        """Deal the next round from the match's own shuffle (or an allowed preset deck)."""
        if request.deck_order:
            self._matches.check_preset_allowed()

        def deal_of(opened: Opened) -> Action:
            if not request.deck_order:
                return Deal(self._matches.next_deck(opened))
            self._matches.check_preset_allowed(opened)
            return Deal(tuple(inbound.card_in(c) for c in request.deck_order))

        return self._act(request, deal_of, pb.DealRoundResponse())

    @_rpc
    def PlaceBid(self, request: pb.PlaceBidRequest) -> pb.PlaceBidResponse:
        """Apply one bid."""
        return self._act(request, lambda _: inbound.bid_in(request.bid), pb.PlaceBidResponse())

    @_rpc
    def CallDouble(self, request: pb.CallDoubleRequest) -> pb.CallDoubleResponse:
        """Apply one doubling call."""
        return self._act(
            request, lambda _: inbound.doubling_in(request.doubling), pb.CallDoubleResponse()
        )

    @_rpc
    def DeclareProjects(self, request: pb.DeclareProjectsRequest) -> pb.DeclareProjectsResponse:
        """Declare project types in the first trick."""
        return self._act(
            request,
            lambda _: inbound.declaration_in(request.declaration),
            pb.DeclareProjectsResponse(),
        )

    @_rpc
    def PlayCard(
        self, request: pb.PlayCardRequest
    ) -> pb.PlayCardResponse | Awaitable[pb.PlayCardResponse]:
        """Play a card (or claim Sawa: judged in the judge's process, its answer leaves on
        :data:`JUDGED_ANSWER_STEP`)."""
        return self._act_judged(
            request, lambda _: inbound.play_in(request.play), pb.PlayCardResponse()
        )

    @_rpc
    def GetScore(self, request: pb.GetScoreRequest) -> pb.GetScoreResponse:
        """The breakdown of the last scored round and the match score."""
        opened = self._open(request)
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
        opened = self._open(request)
        seat = None
        if request.HasField("seat"):
            seat = inbound.seat_in(request.seat)
            if not opened.may_act_for(seat):
                raise credential_invalid(f"the credential may not see seat {seat}'s hand")
        view = build_view(opened.state, seat, opened.match_id, opened.version, with_rules=True)
        response = pb.GetViewResponse(view=view)
        records.add_shown_reveal(response, self._matches.shown_reveal(opened), opened.is_host)
        return response

    @_rpc
    def ListLegalActions(self, request: pb.ListLegalActionsRequest) -> pb.ListLegalActionsResponse:
        """The actions a seat may take now."""
        opened = self._open(request)
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
        scores = tuple(request.match_scores)
        if scores:
            if (
                len(scores) != 2
                or max(scores) >= _SCORE_LIMIT
                or not rules.match_goes_on((scores[0], scores[1]))
            ):
                # R44: a match a team has won is over; no round follows it (both teams at the
                # target with equal totals play another).
                raise request_invalid(
                    "match_scores needs one entry per team, of a match that goes on "
                    f"(target {rules.match_target}), or none"
                )
            validate_facts_at_scores(facts, rules, (scores[0], scores[1]))
        score = score_round(facts, rules)
        response = pb.ScoreRoundResponse(score=outbound.round_score_out(score, 0, None))
        response.score.contract.trump = request.trump
        if scores:
            response.match.CopyFrom(outbound.match_after_out(request.match_scores, score, rules))
        return response

    @_rpc
    def SuggestAction(
        self, request: pb.SuggestActionRequest
    ) -> pb.SuggestActionResponse | Awaitable[pb.SuggestActionResponse]:
        """One legal action for a seat, chosen by a bot that sees only what that seat may know.

        The checks run inline; a STRONG or EXPERT decision is awaited from the bot pool, so it
        never stalls the calls this process is serving.
        """
        opened = self._open(request)
        seat = inbound.seat_in(request.seat)
        bind_call_fields(seat=seat)
        if not opened.is_host:
            raise bot_call_refused()
        level = inbound.bot_level_in(request.level)
        seed = request.seed if request.HasField("seed") else None
        if self._bots.pooled(level):
            return self._suggest_in_pool(opened, seat, level, seed)
        return responses.suggestion(
            opened, level, self._bots.decide_inline(opened.state, seat, level, seed)
        )

    async def _suggest_in_pool(
        self, opened: Opened, seat: int, level: Level, seed: int | None
    ) -> pb.SuggestActionResponse:
        action = await self._bots.decide(opened.state, seat, level, seed)
        return responses.suggestion(opened, level, action)

    @_rpc
    def CallQayd(
        self, request: pb.CallQaydRequest
    ) -> pb.CallQaydResponse | Awaitable[pb.CallQaydResponse]:
        """A Qayd call of a seat (table play), or the host closing the review of a round."""
        if not request.close_review:
            if not request.HasField("call"):
                raise request_invalid("a Qayd call needs `call`, or `close_review` for the host")
            return self._act_judged(
                request, lambda _: inbound.qayd_in(request.call), pb.CallQaydResponse()
            )
        if request.HasField("call"):
            raise request_invalid("closing the review takes no `call`")
        acted = self._matches.close_review(self._open(request), _expected(request))
        return responses.respond(acted, pb.CallQaydResponse())

    @_rpc
    def ApplyBotAction(
        self, request: pb.ApplyBotActionRequest
    ) -> pb.ApplyBotActionResponse | Awaitable[pb.ApplyBotActionResponse]:
        """Apply, in one call, the action a bot chooses for the seat whose turn it is.

        As for SuggestAction, a STRONG or EXPERT decision is computed in the bot pool; the action
        is then applied inline. Between rounds the bot's action is the deal, shown without its deck.
        """
        level = inbound.bot_level_in(request.level)
        if self._bots.pooled(level):
            return self._apply_bot_in_pool(request, level)
        if not self._open(request).is_host:  # before the seat's check in _act_judged
            raise bot_call_refused()
        matches = self._matches
        chosen: list[Action] = []

        def bot_action(opened: Opened) -> Action:
            if matches.bot_turn(opened, request.seat):
                chosen.append(Deal(()))
                return Deal(matches.next_deck(opened))
            seed = matches.bot_seed(opened, _seed(request))
            action = self._bots.decide_inline(opened.state, request.seat, level, seed)
            chosen.append(action)
            return action

        return _then(
            self._act_judged(request, bot_action, pb.ApplyBotActionResponse()),
            lambda response: responses.bot_applied(response, request, chosen[0]),
        )

    async def _apply_bot_in_pool(
        self, request: pb.ApplyBotActionRequest, level: Level
    ) -> pb.ApplyBotActionResponse:
        matches = self._matches
        opened = self._open(request)
        action: Action
        if not matches.bot_turn(opened, request.seat):
            seed = matches.bot_seed(opened, _seed(request))
            action = await self._bots.decide(opened.state, request.seat, level, seed)
            shown = action
        else:
            action, shown = Deal(matches.next_deck(opened)), Deal(())
        # Applied on the token the decision was made for: _act opens it again and checks the
        # credential and the version as for every action.
        response = self._act_judged(request, lambda _: action, pb.ApplyBotActionResponse())
        if inspect.isawaitable(response):
            response = await response
        return responses.bot_applied(response, request, shown)

    @_rpc
    def SolveDeal(
        self, request: pb.SolveDealRequest
    ) -> pb.SolveDealResponse | Awaitable[pb.SolveDealResponse]:
        """Every legal card of a position valued with all hands known, and the round's par."""
        return solving.solved(self._bots, solving.job_of(self._matches, request))

    @_rpc
    def VerifyRecord(self, request: pb.VerifyRecordRequest) -> pb.VerifyRecordResponse:
        """Replay a record from scratch through the rules: valid, or its first divergence."""
        records.require_size(request.record)
        bind_call_fields(record_rounds=len(request.record.rounds))
        response = records.verify(request.record, self._attestor)
        if not response.valid:
            bind_call_fields(divergence=response.divergence.reason)
        return response

    @_rpc
    def ReplayRecord(self, request: pb.ReplayRecordRequest) -> pb.ReplayRecordResponse:
        """The views and events of a record at one step."""
        record = request.record
        records.require_size(record)
        total = records.total_steps(record)
        if request.step > total:
            raise request_invalid(f"step {request.step} is past the record's {total} actions")
        replayed = records.replay_checked(record, request.step, f"step {request.step}")
        return records.replay_response(record, replayed, request.step)

    @_rpc
    def GetAttestationKeys(
        self, request: pb.GetAttestationKeysRequest
    ) -> pb.GetAttestationKeysResponse:
        """The public keys this deployment attests its deal commitments with."""
        return attestation.keys_out(self._attestor)

    async def AnalyzeRecord(
        self, request: analysis_pb2.AnalyzeRecordRequest, context: _Context
    ) -> AsyncIterator[analysis_pb2.AnalyzeRecordResponse]:
        """Stream the analysis of a match record, computed in the analysis worker process."""
        async for response in analysis.stream(request, context, _abort):
            yield response

    async def FairPlayReport(
        self, request: analysis_pb2.FairPlayReportRequest, context: _Context
    ) -> AsyncIterator[analysis_pb2.FairPlayReportResponse]:
        """Stream the fair-play report of a set of records, computed in the analysis worker."""
        async for response in fairplay.stream(request, context, _abort):
            yield response


def _expected(request: Any) -> int | None:
    return request.expected_version if request.HasField("expected_version") else None


def _seed(request: Any) -> int | None:
    return request.seed if request.HasField("seed") else None


def _then(result: _T | Awaitable[_T], then: Callable[[_T], _U]) -> _U | Awaitable[_U]:
    """``then(result)``, awaited first when ``result`` is awaitable."""
    if not inspect.isawaitable(result):
        return then(result)
    pending = result

    async def later() -> _U:
        return then(await pending)

    return later()


async def _to_the_step(began: float) -> None:
    """Wait until a whole number of :data:`JUDGED_ANSWER_STEP` has passed since ``began`` (at
    least one): a judged call's answer leaves then, whatever its search of the hidden hands
    (and, with the match ledger, the settling of the call) took."""
    spent = time.monotonic() - began
    steps = max(1, math.ceil(spent / JUDGED_ANSWER_STEP))
    await asyncio.sleep(steps * JUDGED_ANSWER_STEP - spent)


async def _abort(context: _Context, error: ApiError | RuleError) -> NoReturn:
    refusal = error if isinstance(error, ApiError) else ApiError.from_rule_error(error)
    bind_call_fields(reason=refusal.reason)
    status = refusal.to_status()
    # Keep what the interceptors already put in the trailers (the request id).
    trailers = (*tuple(context.trailing_metadata() or ()), *status.trailing_metadata)
    await context.abort(status.code, status.details, trailing_metadata=trailers)
    raise AssertionError("abort_with_status returned")  # pragma: no cover


__all__ = ["SERVICE_NAME", "BalootEngineServicer"]
