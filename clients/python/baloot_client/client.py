"""A thin typed client of ``baloot.v1.BalootEngineService``.

:class:`EngineClient` wraps the generated stub: refusals come back as :class:`EngineError`
(its ``reason`` is the stable code of ``google.rpc.ErrorInfo``), and :class:`Match` keeps the
latest token, version and credentials of one match so a caller only names the seat and the
action.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from baloot.v1 import analysis_pb2, records_pb2, rules_pb2, types_pb2
from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot_client.records import RecordBuilder, ends_round
from baloot_client.retry import channel_options

_Response = TypeVar("_Response")


class EngineError(Exception):
    """A request the engine refused: gRPC code, stable reason, message and facts.

    ``localized`` is the refusal for people, ``(locale, message)``, in the language the client
    asked for (``EngineClient(..., language="ar")``; English by default), or None from a server
    that sends none.
    """

    def __init__(
        self,
        code: grpc.StatusCode,
        reason: str,
        message: str,
        metadata: dict[str, str],
        localized: tuple[str, str] | None = None,
    ) -> None:
        super().__init__(f"{code.name} {reason}: {message}")
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata = metadata
        self.localized = localized

    def metadata_list(self, key: str) -> list[str]:
        """A list-valued metadata key (``allowed``, ``declared``, ``held``) as its entries."""
        value = self.metadata.get(key, "")
        return value.split(",") if value else []

    @property
    def allowed(self) -> list[str]:
        """The legal alternatives, one code each (``10S``, ``hokm:S``, ``sira``); [] if none."""
        return self.metadata_list("allowed")

    @property
    def card(self) -> str | None:
        """The card the refusal names, as its code (``KH``), or None."""
        return self.metadata.get("card")

    @classmethod
    def from_rpc_error(cls, error: grpc.RpcError) -> EngineError:
        """Read the ``ErrorInfo`` out of a failed call."""
        call: Any = error
        reason, metadata = "", {}
        localized = None
        status = rpc_status.from_call(call)
        if status is not None:
            for detail in status.details:
                info = error_details_pb2.ErrorInfo()
                text = error_details_pb2.LocalizedMessage()
                if detail.Unpack(info):
                    reason, metadata = info.reason, dict(info.metadata)
                elif detail.Unpack(text):
                    localized = (text.locale, text.message)
        return cls(call.code(), reason, call.details() or "", metadata, localized)


class IllegalActionError(EngineError):
    """FAILED_PRECONDITION: the rules forbid the action now (not your turn, must follow…)."""


class InvalidRequestError(EngineError):
    """INVALID_ARGUMENT: a malformed request or a token that does not open."""


class PermissionDeniedError(EngineError):
    """PERMISSION_DENIED: the credential does not allow it, or preset decks are off."""


_ERROR_TYPES: dict[grpc.StatusCode, type[EngineError]] = {
    grpc.StatusCode.FAILED_PRECONDITION: IllegalActionError,
    grpc.StatusCode.INVALID_ARGUMENT: InvalidRequestError,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDeniedError,
}


def _typed(error: grpc.RpcError) -> EngineError:
    generic = EngineError.from_rpc_error(error)
    kind = _ERROR_TYPES.get(generic.code, EngineError)
    return kind(generic.code, generic.reason, generic.message, generic.metadata, generic.localized)


class EngineClient:
    """The service over one channel, with typed errors."""

    def __init__(
        self, channel: grpc.Channel, *, timeout: float = 10.0, language: str | None = None
    ) -> None:
        self.stub = pb_grpc.BalootEngineServiceStub(channel)
        self.timeout = timeout
        # The language of the refusals' localized messages ("ar", "en"): accept-language.
        self.language = language

    @classmethod
    def connect(
        cls,
        target: str = "localhost:50051",
        *,
        service_config: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> EngineClient:
        """A client over a new insecure channel to ``target``.

        The channel applies ``service_config``, by default :data:`baloot_client.SERVICE_CONFIG`
        (UNAVAILABLE retried with exponential backoff; every RPC is safe to retry).
        """
        channel = grpc.insecure_channel(target, options=channel_options(service_config))
        return cls(channel, **kwargs)

    def call(self, method: Callable[..., _Response], request: Any) -> _Response:
        """Call one stub method; a refusal raises the matching :class:`EngineError`."""
        metadata = () if self.language is None else (("accept-language", self.language),)
        try:
            return method(request, timeout=self.timeout, metadata=metadata)
        except grpc.RpcError as error:
            raise _typed(error) from None

    def create_match(
        self,
        rules: rules_pb2.RuleSet | None = None,
        *,
        first_dealer: int | None = None,
        starting_scores: Sequence[int] = (),
        board_set: str = "",
        board_set_secret: str = "",
        deal_disclosure: types_pb2.DealDisclosure.ValueType = (
            types_pb2.DEAL_DISCLOSURE_UNSPECIFIED
        ),
    ) -> Match:
        """Create a match and return its handle (``board_set``: duplicate boards, dealt from
        the set bound to ``board_set_secret``; without one the server draws it, see
        :attr:`Match.board_set_secret`; ``deal_disclosure``: when the key of the committed
        decks is disclosed, at the match's end by default). The match's record holds the
        commitment to its decks and the key once disclosed (docs/fair-deals.md)."""
        request = pb.CreateMatchRequest(
            starting_scores=list(starting_scores),
            board_set=board_set,
            board_set_secret=board_set_secret,
            deal_disclosure=deal_disclosure,
        )
        if rules is not None:
            request.rules.CopyFrom(rules)
        if first_dealer is not None:
            request.first_dealer = first_dealer
        response = self.call(self.stub.CreateMatch, request)
        return Match(
            client=self,
            match_id=response.match_id,
            host_credential=response.host_credential,
            seat_credentials=tuple(response.seat_credentials),
            state=response.state,
            version=response.state_version,
            views=list(response.views),
            spectator_credential=response.spectator_credential,
            board_set_secret=response.board_set_secret,
            recorder=RecordBuilder(
                response.match_id,
                response.views[0],
                board_set,
                response.deal_commitment if response.HasField("deal_commitment") else None,
            ),
        )

    def verify_record(self, record: records_pb2.MatchRecord) -> pb.VerifyRecordResponse:
        """Replay a record through the rules: valid, or its first divergence."""
        return self.call(self.stub.VerifyRecord, pb.VerifyRecordRequest(record=record))

    def replay_record(self, record: records_pb2.MatchRecord, step: int) -> pb.ReplayRecordResponse:
        """The views and events of a record after its first ``step`` actions."""
        return self.call(self.stub.ReplayRecord, pb.ReplayRecordRequest(record=record, step=step))

    def score_round(self, request: pb.ScoreRoundRequest) -> pb.ScoreRoundResponse:
        """The stateless round-score calculator."""
        return self.call(self.stub.ScoreRound, request)

    def analyze_record(
        self,
        record: records_pb2.MatchRecord,
        *,
        seats: Sequence[int] = (),
        rounds: Sequence[int] = (),
        depth: analysis_pb2.AnalysisDepth.ValueType = analysis_pb2.ANALYSIS_DEPTH_UNSPECIFIED,
        worlds: int = 0,
        seed: int | None = None,
        deadline_ms: int = 0,
        timeout: float | None = None,
    ) -> Iterator[analysis_pb2.AnalyzeRecordResponse]:
        """Stream the analysis of a record (AnalyzeRecord): progress, decisions, rounds, match.

        ``timeout`` is the call's deadline (default: none beyond ``deadline_ms``); a refusal,
        or the end of the deadline, raises the matching :class:`EngineError`. Leaving the loop
        early cancels the call, which stops the server's work.
        """
        request = analysis_pb2.AnalyzeRecordRequest(
            record=record,
            seats=list(seats),
            rounds=list(rounds),
            depth=depth,
            worlds=worlds,
            deadline_ms=deadline_ms,
        )
        if seed is not None:
            request.seed = seed
        yield from _streamed(self.stub.AnalyzeRecord(request, timeout=timeout))

    def fair_play_report(
        self,
        records: Sequence[records_pb2.MatchRecord],
        *,
        seats: Sequence[int] = (),
        worlds: int = 0,
        seed: int | None = None,
        deadline_ms: int = 0,
        timeout: float | None = None,
    ) -> Iterator[analysis_pb2.FairPlayReportResponse]:
        """Stream the fair-play report of a set of records (FairPlayReport): progress, then the
        summary. Refusals and the deadline raise the matching :class:`EngineError`; leaving the
        loop early cancels the call."""
        request = analysis_pb2.FairPlayReportRequest(
            records=list(records), seats=list(seats), worlds=worlds, deadline_ms=deadline_ms
        )
        if seed is not None:
            request.seed = seed
        yield from _streamed(self.stub.FairPlayReport(request, timeout=timeout))


def _streamed(responses: Any) -> Iterator[Any]:
    """The messages of a server stream; a refusal raises the matching :class:`EngineError`,
    and leaving the loop early cancels the call (which stops the server's work)."""
    try:
        yield from responses
    except grpc.RpcError as error:
        raise _typed(error) from None
    finally:
        responses.cancel()


@dataclass
class Match:
    """One match: the latest token and version, and the credentials handed out for it.

    Actions use the host credential unless ``credential`` is given. Each accepted action
    replaces ``state``, ``version`` and ``views`` and returns the events it caused, and is
    added to :attr:`record`, complete with each hand's deck: only the host receives the
    ``ROUND_REVEALED`` events without the reveal rule flag, so when a seat's credential ends a
    round the match asks the host's GetView for its reveal (one more call per such round).
    """

    client: EngineClient
    match_id: str
    host_credential: str
    seat_credentials: tuple[str, ...]
    state: bytes
    version: int
    views: list[types_pb2.View] = field(default_factory=list)
    spectator_credential: str = ""
    recorder: RecordBuilder | None = None
    board_set_secret: str = ""  # the board set's secret: give it to its other tables only

    @property
    def record(self) -> records_pb2.MatchRecord:
        """The match's record so far (see :mod:`baloot_client.records` to write it)."""
        if self.recorder is None:
            raise ValueError("this match was not created by this client: it has no record")
        return self.recorder.record

    def _send(
        self,
        method: Callable[..., Any],
        request: Any,
        credential: str | None,
        action: types_pb2.Action | None = None,
        *,
        record: bool = True,
    ) -> Any:
        request.state = self.state
        request.match_id = self.match_id
        request.credential = credential or self.host_credential
        request.expected_version = self.version
        response = self.client.call(method, request)
        self.state, self.version = response.state, response.state_version
        self.views = list(response.views)
        if self.recorder is not None and record:
            applied = response.action if action is None else action
            self.recorder.add(request.seat, applied, response.events)
            self._complete_record(request.credential, response.events)
        return response

    def _complete_record(self, credential: str, events: Any) -> None:
        """A seat's own action ended the round: its response has no reveal (or, in a board-set
        match under the reveal flag, one without the deal key). Take the round's deck and the
        key it discloses from the host's GetView."""
        if self.recorder is None or credential == self.host_credential:
            return
        if ends_round(events):
            request = pb.GetViewRequest(
                state=self.state, match_id=self.match_id, credential=self.host_credential
            )
            shown = self.client.call(self.client.stub.GetView, request)
            if shown.HasField("round_reveal"):
                self.recorder.add_reveal(shown.round_reveal)

    def deal(self, seat: int, deck: Iterable[int] = (), credential: str | None = None) -> Any:
        """Deal the next round (``deck``: a preset order, if the server allows it)."""
        request = pb.DealRoundRequest(seat=seat, deck_order=list(deck))
        action = types_pb2.Action(deal=types_pb2.DealAction(deck_order=request.deck_order))
        return self._send(self.client.stub.DealRound, request, credential, action).events

    def bid(self, seat: int, bid: types_pb2.Bid, credential: str | None = None) -> Any:
        """Place a bid."""
        request = pb.PlaceBidRequest(seat=seat, bid=bid)
        action = types_pb2.Action(bid=bid)
        return self._send(self.client.stub.PlaceBid, request, credential, action).events

    def double(self, seat: int, call: types_pb2.Doubling, credential: str | None = None) -> Any:
        """Make a doubling call."""
        request = pb.CallDoubleRequest(seat=seat, doubling=call)
        action = types_pb2.Action(doubling=call)
        return self._send(self.client.stub.CallDouble, request, credential, action).events

    def declare(
        self, seat: int, declaration: types_pb2.Declaration, credential: str | None = None
    ) -> Any:
        """Declare projects."""
        request = pb.DeclareProjectsRequest(seat=seat, declaration=declaration)
        action = types_pb2.Action(declaration=declaration)
        return self._send(self.client.stub.DeclareProjects, request, credential, action).events

    def play(self, seat: int, play: types_pb2.CardPlay, credential: str | None = None) -> Any:
        """Play a card (or claim Sawa)."""
        request = pb.PlayCardRequest(seat=seat, play=play)
        action = types_pb2.Action(play=play)
        return self._send(self.client.stub.PlayCard, request, credential, action).events

    def bot_act(
        self, seat: int, level: pb.BotLevel.ValueType = pb.BOT_LEVEL_BASIC, seed: int | None = None
    ) -> pb.ApplyBotActionResponse:
        """Apply a bot's action for the seat on turn in one call (host credential): for
        timeouts and disconnected players. The response names the action applied."""
        request = pb.ApplyBotActionRequest(seat=seat, level=level)
        if seed is not None:
            request.seed = seed
        response: pb.ApplyBotActionResponse = self._send(
            self.client.stub.ApplyBotAction, request, None
        )
        return response

    def call_qayd(self, seat: int, call: types_pb2.QaydCall, credential: str | None = None) -> Any:
        """Call Qayd (table play): ``seat`` accuses a seat of the other team of a broken rule."""
        request = pb.CallQaydRequest(seat=seat, call=call)
        action = types_pb2.Action(qayd=call)
        return self._send(self.client.stub.CallQayd, request, credential, action).events

    def close_review(self) -> Any:
        """Close the review of a table-play round and score it (host credential).

        The record holds the close as an entry of its own (``close_review``, no seat), so the
        record of a table-play match replays and verifies.
        """
        request = pb.CallQaydRequest(close_review=True)
        response = self._send(self.client.stub.CallQayd, request, None, record=False)
        if self.recorder is not None:
            self.recorder.add_close_review(response.events)
        return response.events

    def act(self, seat: int, action: types_pb2.Action, credential: str | None = None) -> Any:
        """Apply any action of a legal-action list (the dealer's deal included), or a Qayd call."""
        which = action.WhichOneof("action")
        if which == "deal":
            return self.deal(seat, action.deal.deck_order, credential)
        if which == "bid":
            return self.bid(seat, action.bid, credential)
        if which == "doubling":
            return self.double(seat, action.doubling, credential)
        if which == "declaration":
            return self.declare(seat, action.declaration, credential)
        if which == "play":
            return self.play(seat, action.play, credential)
        if which == "qayd":
            return self.call_qayd(seat, action.qayd, credential)
        raise ValueError(f"not an action: {action}")

    def view(self, seat: int | None = None, credential: str | None = None) -> types_pb2.View:
        """A seat's view, or the public view."""
        request = pb.GetViewRequest(
            state=self.state, match_id=self.match_id, credential=credential or self.host_credential
        )
        if seat is not None:
            request.seat = seat
        return self.client.call(self.client.stub.GetView, request).view

    def suggest(
        self, seat: int, level: pb.BotLevel.ValueType = pb.BOT_LEVEL_BASIC, seed: int | None = None
    ) -> types_pb2.Action:
        """A bot's legal action for ``seat`` (host credential): apply it with :meth:`act`."""
        request = pb.SuggestActionRequest(
            state=self.state,
            match_id=self.match_id,
            credential=self.host_credential,
            seat=seat,
            level=level,
        )
        if seed is not None:
            request.seed = seed
        return self.client.call(self.client.stub.SuggestAction, request).action

    def score(self) -> pb.GetScoreResponse:
        """The last round's breakdown and the match score."""
        request = pb.GetScoreRequest(
            state=self.state, match_id=self.match_id, credential=self.host_credential
        )
        return self.client.call(self.client.stub.GetScore, request)
