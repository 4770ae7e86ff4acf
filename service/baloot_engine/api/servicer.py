"""The servicer of ``baloot.v1.BalootEngineService``: messages in, a match-layer call, messages out.

Each method reads its request into core values (:mod:`~baloot_engine.api.inbound`), awaits the
match layer (:mod:`~baloot_engine.api.matches`: open the token, apply the action, seal the next
state, hand heavy work to its lane) or the work layers (:mod:`~baloot_engine.api.solving`,
:mod:`~baloot_engine.api.analysis`, :mod:`~baloot_engine.api.fairplay`), and writes the result
into its response (:mod:`~baloot_engine.api.responses`, ``views``, ``records``). Every refusal
leaves through :mod:`~baloot_engine.api.calls`, the one place that maps it to a status.
"""

from __future__ import annotations

import functools
import secrets
from collections.abc import AsyncIterator, Callable
from typing import Any, Final

from baloot.v1 import analysis_pb2
from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot_engine.api import (
    analysis,
    attestation,
    fairplay,
    inbound,
    records,
    responses,
    solving,
)
from baloot_engine.api.calls import Context, caller_of, rpc, streamed
from baloot_engine.api.ledger import MatchLedger
from baloot_engine.api.matches import Acted, Matches, Opened
from baloot_engine.api.refusals import credential_invalid, request_invalid
from baloot_engine.api.sealing import KeyRing
from baloot_engine.api.views import build_view, last_round_out
from baloot_engine.lanes import Lanes
from baloot_engine.rules import Action, game, score_round
from baloot_engine.rules.facts import validate_facts_at_scores
from baloot_engine.telemetry.logs import bind_call_fields
from baloot_engine.telemetry.metrics import Metrics

SERVICE_NAME: Final = pb.DESCRIPTOR.services_by_name["BalootEngineService"].full_name


class BalootEngineServicer(pb_grpc.BalootEngineServiceServicer):
    """Answers every RPC of the contract."""

    def __init__(
        self,
        keys: KeyRing,
        metrics: Metrics,
        *,
        allow_preset_deck: bool,
        ledger: MatchLedger | None = None,
        lanes: Lanes | None = None,
        expert_budget_ms: int = 500,
        attestor: attestation.Attestor | None = None,
    ) -> None:
        self.matches = Matches(
            keys,
            metrics,
            allow_preset_deck=allow_preset_deck,
            ledger=ledger,
            lanes=lanes,
            expert_budget_ms=expert_budget_ms,
        )
        self._lanes = self.matches.lanes
        self._caller = functools.partial(caller_of, sources=self._lanes.sources)
        self._attestor = attestor  # signs the deal commitments (None: they are not attested)

    def _open(self, request: Any) -> Opened:
        return self.matches.open(request.state, request.match_id, request.credential)

    async def _act(
        self, request: Any, action_of: Callable[[Opened], Action], context: Context | None = None
    ) -> Acted:
        """Open the request's token and apply its seat's action (``action_of``'s, once checked)."""
        seat, expected = inbound.seat_in(request.seat), _expected(request)
        caller = self._caller(context)
        return await self.matches.act(self._open(request), seat, expected, action_of, caller)

    # -- RPCs ---------------------------------------------------------------------------

    @rpc
    async def CreateMatch(
        self, request: pb.CreateMatchRequest, context: Context
    ) -> pb.CreateMatchResponse:
        """Create a match and hand out its credentials."""
        rules = inbound.rules_in(request.rules if request.HasField("rules") else None)
        has_dealer = request.HasField("first_dealer")
        dealer = inbound.seat_in(request.first_dealer) if has_dealer else secrets.randbelow(4)
        start = inbound.starting_scores_in(request.starting_scores, rules)
        board_set = records.board_set_in(request.board_set)
        secret = records.board_set_secret_in(request.board_set_secret, board_set)
        disclosure = records.deal_disclosure_in(request.deal_disclosure)
        created = self.matches.create(rules, dealer, start, board_set, secret, disclosure)
        response = responses.created(created, secret, disclosure)
        attestation.attest_commitment(
            self._attestor, response.deal_commitment, created.match_id, rules
        )
        return response

    @rpc
    async def DealRound(
        self, request: pb.DealRoundRequest, context: Context
    ) -> pb.DealRoundResponse:
        """Deal the next round from the match's own shuffle (or an allowed preset deck)."""
        order = request.deck_order
        deck = tuple(inbound.card_in(c) for c in order) if order else None
        acted = await self._act(request, self.matches.deal_of(deck))
        return responses.respond(acted, pb.DealRoundResponse())

    @rpc
    async def PlaceBid(self, request: pb.PlaceBidRequest, context: Context) -> pb.PlaceBidResponse:
        """Apply one bid."""
        acted = await self._act(request, lambda _: inbound.bid_in(request.bid))
        return responses.respond(acted, pb.PlaceBidResponse())

    @rpc
    async def CallDouble(
        self, request: pb.CallDoubleRequest, context: Context
    ) -> pb.CallDoubleResponse:
        """Apply one doubling call."""
        acted = await self._act(request, lambda _: inbound.doubling_in(request.doubling))
        return responses.respond(acted, pb.CallDoubleResponse())

    @rpc
    async def DeclareProjects(
        self, request: pb.DeclareProjectsRequest, context: Context
    ) -> pb.DeclareProjectsResponse:
        """Declare project types in the first trick."""
        acted = await self._act(request, lambda _: inbound.declaration_in(request.declaration))
        return responses.respond(acted, pb.DeclareProjectsResponse())

    @rpc
    async def PlayCard(self, request: pb.PlayCardRequest, context: Context) -> pb.PlayCardResponse:
        """Play a card, or claim Sawa (judged in the judge lane, answered at a fixed time)."""
        if request.play.sawa:
            self.matches.judge_room(self._caller(context))
        acted = await self._act(request, lambda _: inbound.play_in(request.play), context)
        return responses.respond(acted, pb.PlayCardResponse())

    @rpc
    async def GetScore(self, request: pb.GetScoreRequest, context: Context) -> pb.GetScoreResponse:
        """The breakdown of the last scored round and the match score."""
        opened = self._open(request)
        state = opened.state
        response = pb.GetScoreResponse(
            state_version=opened.version, match=responses.match_score_out(state)
        )
        if state.last_score is not None:
            response.last_round.CopyFrom(last_round_out(state))
        return response

    @rpc
    async def GetView(self, request: pb.GetViewRequest, context: Context) -> pb.GetViewResponse:
        """A seat's view (with its hand) for an entitled caller, or the public view."""
        opened = self._open(request)
        seat = None
        if request.HasField("seat"):
            seat = inbound.seat_in(request.seat)
            if not opened.may_act_for(seat):
                raise credential_invalid(f"the credential may not see seat {seat}'s hand")
        view = build_view(opened.state, seat, opened.match_id, opened.version, with_rules=True)
        response = pb.GetViewResponse(view=view)
        records.add_shown_reveal(response, self.matches.shown_reveal(opened), opened.is_host)
        return response

    @rpc
    async def ListLegalActions(
        self, request: pb.ListLegalActionsRequest, context: Context
    ) -> pb.ListLegalActionsResponse:
        """The actions a seat may take now."""
        opened = self._open(request)
        seat = inbound.seat_in(request.seat)
        if not opened.may_act_for(seat):
            raise credential_invalid(f"the credential may not see seat {seat}'s actions")
        return responses.legal_actions(opened.version, game.legal_actions(opened.state, seat))

    @rpc
    async def ScoreRound(
        self, request: pb.ScoreRoundRequest, context: Context
    ) -> pb.ScoreRoundResponse:
        """Score a finished round from its facts, with no match and no token."""
        facts, rules = inbound.facts_in(request)
        scores = inbound.match_scores_in(request.match_scores, rules)
        if scores is not None:
            validate_facts_at_scores(facts, rules, scores)
        return responses.scored(request, score_round(facts, rules), rules)

    @rpc
    async def SuggestAction(
        self, request: pb.SuggestActionRequest, context: Context
    ) -> pb.SuggestActionResponse:
        """One legal action for a seat, chosen by a bot that sees only what that seat may know
        (a STRONG or EXPERT decision in the bots lane, paid for by the caller's client)."""
        opened = self._open(request)
        seat, level = inbound.seat_in(request.seat), inbound.bot_level_in(request.level)
        seed = request.seed if request.HasField("seed") else None
        action = await self.matches.suggest(opened, seat, level, seed, self._caller(context))
        return responses.suggestion(opened, level, action)

    @rpc
    async def CallQayd(self, request: pb.CallQaydRequest, context: Context) -> pb.CallQaydResponse:
        """A Qayd call of a seat (table play, judged in the judge's lane), or the host closing
        the review of a round."""
        if request.close_review:
            if request.HasField("call"):
                raise request_invalid("closing the review takes no `call`")
            acted = await self.matches.close_review(self._open(request), _expected(request))
            return responses.respond(acted, pb.CallQaydResponse())
        if not request.HasField("call"):
            raise request_invalid("a Qayd call needs `call`, or `close_review` for the host")
        acted = await self._act(request, lambda _: inbound.qayd_in(request.call), context)
        return responses.respond(acted, pb.CallQaydResponse())

    @rpc
    async def ApplyBotAction(
        self, request: pb.ApplyBotActionRequest, context: Context
    ) -> pb.ApplyBotActionResponse:
        """Apply, in one call, the action a bot chooses for the seat whose turn it is (a
        STRONG or EXPERT decision in the bots lane). Between rounds the bot's action is the
        deal, shown without its deck."""
        level = inbound.bot_level_in(request.level)
        opened = self._open(request)
        seed = request.seed if request.HasField("seed") else None
        acted, shown = await self.matches.bot_act(
            opened, request.seat, _expected(request), level, seed, self._caller(context)
        )
        response = responses.respond(acted, pb.ApplyBotActionResponse())
        return responses.bot_applied(response, request, shown)

    @rpc
    async def SolveDeal(
        self, request: pb.SolveDealRequest, context: Context
    ) -> pb.SolveDealResponse:
        """Every legal card of a position valued with all hands known, and the round's par
        (solved in the solve lane, paid for by the caller's client)."""
        job = solving.job_of(self.matches, request)
        answer = await solving.solve(self._lanes, job, self._caller(context))
        return solving.response_of(answer, job)

    @rpc
    async def VerifyRecord(
        self, request: pb.VerifyRecordRequest, context: Context
    ) -> pb.VerifyRecordResponse:
        """Replay a record from scratch through the rules: valid, or its first divergence."""
        records.require_size(request.record)
        bind_call_fields(record_rounds=len(request.record.rounds))
        response = records.verify(request.record, self._attestor)
        if not response.valid:
            bind_call_fields(divergence=response.divergence.reason)
        return response

    @rpc
    async def ReplayRecord(
        self, request: pb.ReplayRecordRequest, context: Context
    ) -> pb.ReplayRecordResponse:
        """The views and events of a record at one step."""
        record = request.record
        records.require_size(record)
        total = records.total_steps(record)
        if request.step > total:
            raise request_invalid(f"step {request.step} is past the record's {total} actions")
        replayed = records.replay_checked(record, request.step, f"step {request.step}")
        return records.replay_response(record, replayed, request.step)

    @rpc
    async def GetAttestationKeys(
        self, request: pb.GetAttestationKeysRequest, context: Context
    ) -> pb.GetAttestationKeysResponse:
        """The public keys this deployment signs, and accepts, deal commitments with."""
        return attestation.keys_out(self._attestor)

    @streamed
    async def AnalyzeRecord(
        self, request: analysis_pb2.AnalyzeRecordRequest, context: Context
    ) -> AsyncIterator[analysis_pb2.AnalyzeRecordResponse]:
        """Stream the analysis of a match record, computed in the analysis lane."""
        caller = self._caller(context)
        job = analysis.job_of(request, caller.deadline)
        async for response in analysis.stream(self._lanes, job, caller):
            yield response

    @streamed
    async def FairPlayReport(
        self, request: analysis_pb2.FairPlayReportRequest, context: Context
    ) -> AsyncIterator[analysis_pb2.FairPlayReportResponse]:
        """Stream the fair-play report of a set of records, computed in the analysis lane."""
        caller = self._caller(context)
        job = fairplay.job_of(request, caller.deadline)
        async for response in fairplay.stream(self._lanes, job, caller):
            yield response


def _expected(request: Any) -> int | None:
    return request.expected_version if request.HasField("expected_version") else None


__all__ = ["SERVICE_NAME", "BalootEngineServicer"]
