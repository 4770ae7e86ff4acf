"""The servicer of ``baloot.v1.BalootEngineService``.

This version publishes the contract and the server around it; the RPCs are not served yet and
each answers ``UNIMPLEMENTED`` with a message naming the method, so that clients can be written
and tested against the real server while the rules are connected.
"""

from __future__ import annotations

from typing import Any, Final, NoReturn

import grpc
import grpc.aio

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc

SERVICE_NAME: Final = pb.DESCRIPTOR.services_by_name["BalootEngineService"].full_name

_Context = grpc.aio.ServicerContext[Any, Any]


async def _not_implemented(context: _Context, method: str) -> NoReturn:
    await context.abort(
        grpc.StatusCode.UNIMPLEMENTED,
        f"{SERVICE_NAME}/{method} is not implemented by this server version yet",
    )


class BalootEngineServicer(pb_grpc.BalootEngineServiceServicer):
    """Answers every RPC of the contract; each one is UNIMPLEMENTED in this version."""

    async def CreateMatch(
        self, request: pb.CreateMatchRequest, context: _Context
    ) -> pb.CreateMatchResponse:
        """Create a match (not implemented yet)."""
        await _not_implemented(context, "CreateMatch")

    async def DealRound(
        self, request: pb.DealRoundRequest, context: _Context
    ) -> pb.DealRoundResponse:
        """Deal the next round (not implemented yet)."""
        await _not_implemented(context, "DealRound")

    async def PlaceBid(self, request: pb.PlaceBidRequest, context: _Context) -> pb.PlaceBidResponse:
        """Apply a bid (not implemented yet)."""
        await _not_implemented(context, "PlaceBid")

    async def CallDouble(
        self, request: pb.CallDoubleRequest, context: _Context
    ) -> pb.CallDoubleResponse:
        """Apply a doubling call (not implemented yet)."""
        await _not_implemented(context, "CallDouble")

    async def DeclareProjects(
        self, request: pb.DeclareProjectsRequest, context: _Context
    ) -> pb.DeclareProjectsResponse:
        """Declare projects (not implemented yet)."""
        await _not_implemented(context, "DeclareProjects")

    async def PlayCard(self, request: pb.PlayCardRequest, context: _Context) -> pb.PlayCardResponse:
        """Play a card (not implemented yet)."""
        await _not_implemented(context, "PlayCard")

    async def GetScore(self, request: pb.GetScoreRequest, context: _Context) -> pb.GetScoreResponse:
        """Return the scores (not implemented yet)."""
        await _not_implemented(context, "GetScore")

    async def GetView(self, request: pb.GetViewRequest, context: _Context) -> pb.GetViewResponse:
        """Return a view (not implemented yet)."""
        await _not_implemented(context, "GetView")

    async def ListLegalActions(
        self, request: pb.ListLegalActionsRequest, context: _Context
    ) -> pb.ListLegalActionsResponse:
        """List a seat's legal actions (not implemented yet)."""
        await _not_implemented(context, "ListLegalActions")

    async def ScoreRound(
        self, request: pb.ScoreRoundRequest, context: _Context
    ) -> pb.ScoreRoundResponse:
        """Score a finished round (not implemented yet)."""
        await _not_implemented(context, "ScoreRound")
