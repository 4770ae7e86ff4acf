"""Fixtures and helpers of the API tests: real servers in this process over real channels.

The servers are the in-process servers of the server tests (``tests/server/conftest.py``),
started with known state keys so that a test can open a token itself and compare the views
with the hidden truth. :class:`Table` plays matches through the public contract only: it
reads each seat's legal actions from the views, acts with the host credential or with the
acting seat's own, and checks after every step what every response must keep.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import random
import threading
from collections.abc import Callable, Coroutine, Iterator, Sequence
from typing import Any, TypeVar

import grpc
import pytest
from baloot_client import EngineClient, IllegalActionError, Match
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot.v1 import rules_pb2, types_pb2
from baloot_engine.api.attestation import Attestor, load_attestor
from baloot_engine.api.sealing import KeyRing
from baloot_engine.api.servicer import BalootEngineServicer
from baloot_engine.api.state_codec import Decoded, decode
from baloot_engine.lanes import Lanes, LanesConfig
from baloot_engine.telemetry.metrics import Metrics
from tests.server.conftest import (  # noqa: F401 - the session fixture routes the server logs
    InProcessServer,
    _logs_through_pytest,
    make_settings,
)

# State keys of the test servers, written as BALOOT_STATE_KEYS takes them (64 hex digits).
KEY_A = "a1" * 32
KEY_B = "b2" * 32

_T = TypeVar("_T")
DOMAIN = "baloot.v1"
SEATS = (0, 1, 2, 3)
LIVE = (types_pb2.PHASE_BIDDING, types_pb2.PHASE_DOUBLING, types_pb2.PHASE_PLAYING)
BETWEEN = (types_pb2.PHASE_AWAITING_DEAL, types_pb2.PHASE_ROUND_OVER)
PASS = types_pb2.BID_KIND_PASS
SEEDS = rules_pb2.RuleSet(preset=rules_pb2.PRESET_SEEDS)
KAMMELNA = rules_pb2.RuleSet(preset=rules_pb2.PRESET_KAMMELNA)
FEDERATION = rules_pb2.RuleSet(preset=rules_pb2.PRESET_FEDERATION)
# A rule set far from both presets: Sawa claims, projects declared by the engine, Kawesh
# redeals, the «قبلك» claim, the buyer naming open or closed and leading, a short match.
CUSTOM = rules_pb2.RuleSet(
    preset=rules_pb2.PRESET_SEEDS,
    sawa=True,
    auto_declare_projects=True,
    kawesh=rules_pb2.KAWESH_NO_COURT_CARDS,
    sun_priority_claim=rules_pb2.SUN_PRIORITY_CLAIM_HIGHER_PRIORITY,
    closed_chooser=rules_pb2.CLOSED_CHOOSER_BUYER,
    first_leader=rules_pb2.FIRST_LEADER_BUYER,
    round1_hokm_reopens_to_all=True,
    match_target=101,
)


def mask_cards(mask: int) -> list[int]:
    """The card codes of a core hand mask, ascending."""
    return [c for c in range(32) if mask >> c & 1]


# ---------------------------------------------------------------------------------------
# Servers, channels, clients


@pytest.fixture(scope="module")
def engine() -> Iterator[InProcessServer]:
    """The module's server: sealed with key A, preset decks allowed."""
    with InProcessServer(make_settings(allow_preset_deck=True, state_keys=(KEY_A,))) as running:
        yield running


class ServicerServer:
    """A gRPC server in this process serving one servicer built by the test (the servers of
    :func:`engine` build theirs from settings): on its own event loop in a thread."""

    def __init__(self, servicer: BalootEngineServicer) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._server: grpc.aio.Server | None = None
        self.port = self._run(self._start(servicer))

    def _run(self, coroutine: Coroutine[Any, Any, _T]) -> _T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(30)

    async def _start(self, servicer: BalootEngineServicer) -> int:
        self._server = grpc.aio.server()
        pb_grpc.add_BalootEngineServiceServicer_to_server(servicer, self._server)
        port = self._server.add_insecure_port("127.0.0.1:0")
        await self._server.start()
        return port

    @property
    def target(self) -> str:
        """The address a client dials."""
        return f"127.0.0.1:{self.port}"

    def stop(self) -> None:
        """Stop the server and end its loop thread."""
        if self._server is not None:
            self._run(self._server.stop(None))
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()


# The attestation key of :func:`attested_engine` (an Ed25519 seed, as BALOOT_ATTESTATION_KEY
# takes it).
ATTESTATION_KEY = "c3" * 32


@pytest.fixture(scope="module")
def attestor() -> Attestor:
    """The attestation keys of :func:`attested_engine`."""
    return load_attestor(ATTESTATION_KEY)[0]


@pytest.fixture(scope="module")
def attested_engine(attestor: Attestor) -> Iterator[ServicerServer]:
    """A server that attests its deal commitments (keys as :func:`engine`, preset decks
    allowed, bots in this process)."""
    servicer = BalootEngineServicer(
        KeyRing.from_texts((KEY_A,)),
        Metrics(),
        allow_preset_deck=True,
        lanes=Lanes(LanesConfig().inline()),
        attestor=attestor,
    )
    running = ServicerServer(servicer)
    yield running
    running.stop()


@pytest.fixture(scope="module")
def attested_client(attested_engine: ServicerServer) -> Iterator[EngineClient]:
    """The typed client of :func:`attested_engine`."""
    with grpc.insecure_channel(attested_engine.target) as open_channel:
        yield EngineClient(open_channel)


@pytest.fixture(scope="module")
def keys() -> KeyRing:
    """The key ring of :func:`engine`, to open its tokens inside a test."""
    return KeyRing.from_texts((KEY_A,))


@pytest.fixture(scope="module")
def channel(engine: InProcessServer) -> Iterator[grpc.Channel]:
    """A channel to the module's server."""
    with grpc.insecure_channel(engine.target) as open_channel:
        yield open_channel


@pytest.fixture(scope="module")
def client(channel: grpc.Channel) -> EngineClient:
    """The typed client over the module's channel."""
    return EngineClient(channel)


@pytest.fixture(scope="module")
def stub(channel: grpc.Channel) -> pb_grpc.BalootEngineServiceStub:
    """The generated stub over the module's channel (for hand-made, broken requests)."""
    return pb_grpc.BalootEngineServiceStub(channel)


@pytest.fixture
def servers() -> Iterator[Callable[..., InProcessServer]]:
    """Start more servers with changed settings; each is stopped after the test."""
    started: list[InProcessServer] = []

    def start(**changes: Any) -> InProcessServer:
        running = InProcessServer(make_settings(**changes)).__enter__()
        started.append(running)
        return running

    yield start
    for running in started:
        running.stop()


@pytest.fixture
def dial() -> Iterator[Callable[[InProcessServer], EngineClient]]:
    """Open clients to other servers; their channels are closed after the test."""
    with contextlib.ExitStack() as stack:

        def connect(server: InProcessServer) -> EngineClient:
            return EngineClient(stack.enter_context(grpc.insecure_channel(server.target)))

        yield connect


def open_token(keys: KeyRing, match_id: str, token: bytes) -> Decoded:
    """Open a token with the server's keys: the hidden truth behind the views."""
    return decode(keys.open(token, bytes.fromhex(match_id)))


# ---------------------------------------------------------------------------------------
# Refusals


@dataclasses.dataclass(frozen=True)
class Refusal:
    """A refused call: its status code and the ``ErrorInfo`` it carried."""

    code: grpc.StatusCode
    reason: str
    message: str
    metadata: dict[str, str]


def dealt(stub: pb_grpc.BalootEngineServiceStub) -> tuple[pb.CreateMatchResponse, bytes, int]:
    """A new match (first dealer 0) dealt its first round by the host: the match, its token
    and the seat to bid."""
    created = stub.CreateMatch(pb.CreateMatchRequest(first_dealer=0))
    round_dealt = stub.DealRound(
        pb.DealRoundRequest(
            state=created.state,
            match_id=created.match_id,
            credential=created.host_credential,
            seat=0,
        )
    )
    return created, round_dealt.state, round_dealt.views[0].turn


def read_refusal(error: grpc.RpcError) -> Refusal:
    """Read a refusal, checking what every refusal must carry.

    Never UNKNOWN or INTERNAL; exactly one ``ErrorInfo``, in the ``baloot.v1`` domain, with
    a reason; a message for people.
    """
    call: Any = error
    code = call.code()
    assert code not in (grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL), (
        f"{code.name}: {call.details()}"
    )
    status = rpc_status.from_call(call)
    assert status is not None, f"{code.name} without a rich status: {call.details()}"
    infos = []
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            infos.append(info)
    assert len(infos) == 1, f"expected one ErrorInfo, got {infos}"
    (info,) = infos
    assert info.domain == DOMAIN
    assert info.reason
    assert call.details()
    return Refusal(code, info.reason, call.details(), dict(info.metadata))


def refusal(method: Callable[..., Any], request: Any) -> Refusal:
    """Call ``method`` and return its refusal; fail if it was accepted."""
    try:
        method(request, timeout=10)
    except grpc.RpcError as error:
        return read_refusal(error)
    pytest.fail(f"accepted: {type(request).__name__}")


def expect_refusal(
    method: Callable[..., Any], request: Any, code: grpc.StatusCode, reason: str
) -> Refusal:
    """Call ``method`` and check it is refused with ``code`` and ``reason``."""
    refused = refusal(method, request)
    assert (refused.code, refused.reason) == (code, reason), refused
    return refused


# ---------------------------------------------------------------------------------------
# Hand-made requests


def action_call(
    stub: pb_grpc.BalootEngineServiceStub,
    match: Match,
    seat: int,
    action: types_pb2.Action | None,
    *,
    deck: Sequence[int] = (),
    credential: str | None = None,
    state: bytes | None = None,
    match_id: str | None = None,
    expected_version: int | None = None,
) -> tuple[Callable[..., Any], Any]:
    """The stub method and request of one action (``None``: a deal) on a match's latest token."""
    if action is None:
        method: Callable[..., Any] = stub.DealRound
        request: Any = pb.DealRoundRequest(deck_order=list(deck))
    else:
        which = action.WhichOneof("action")
        if which == "bid":
            method, request = stub.PlaceBid, pb.PlaceBidRequest(bid=action.bid)
        elif which == "doubling":
            method, request = stub.CallDouble, pb.CallDoubleRequest(doubling=action.doubling)
        elif which == "declaration":
            method = stub.DeclareProjects
            request = pb.DeclareProjectsRequest(declaration=action.declaration)
        else:
            method, request = stub.PlayCard, pb.PlayCardRequest(play=action.play)
    request.seat = seat
    request.state = match.state if state is None else state
    request.match_id = match.match_id if match_id is None else match_id
    request.credential = match.host_credential if credential is None else credential
    if expected_version is not None:
        request.expected_version = expected_version
    return method, request


def read_calls(
    stub: pb_grpc.BalootEngineServiceStub, match: Match, seat: int
) -> list[tuple[Callable[..., Any], Any]]:
    """The read-only calls on a match's latest token, with the host credential."""
    common = {
        "state": match.state,
        "match_id": match.match_id,
        "credential": match.host_credential,
    }
    return [
        (stub.GetView, pb.GetViewRequest(seat=seat, **common)),
        (stub.GetView, pb.GetViewRequest(**common)),
        (stub.ListLegalActions, pb.ListLegalActionsRequest(seat=seat, **common)),
        (stub.GetScore, pb.GetScoreRequest(**common)),
    ]


def bid(kind: int, suit: int = types_pb2.SUIT_UNSPECIFIED) -> types_pb2.Action:
    """A bid action."""
    return types_pb2.Action(bid=types_pb2.Bid(kind=kind, suit=suit))


def play(card: int, **flags: bool) -> types_pb2.Action:
    """A card-play action."""
    return types_pb2.Action(play=types_pb2.CardPlay(card=card, **flags))


def doubling(call: int, mode: int = types_pb2.PLAY_MODE_UNSPECIFIED) -> types_pb2.Action:
    """A doubling action."""
    return types_pb2.Action(doubling=types_pb2.Doubling(call=call, mode=mode))


# A round from the deck in the order dealt (0, 1, … 31) with seat 0 dealing. Hands: seat 0
# 8H 9H 10H 9D 10D QC KC AC; seat 1 7S 8S 9S JH QH JD QD KD; seat 2 10S JS QS KH AH AD 7C 8C;
# seat 3 KS AS 7H 7D 8D 9C 10C JC. Seat 1 buys a Hokm in diamonds (the revealed JD), nobody
# doubles, and trick 1 is 7S 10S AS 9D.
IN_ORDER_HOKM: list[tuple[int, types_pb2.Action | None]] = [
    (0, None),
    (1, bid(types_pb2.BID_KIND_HOKM)),
    (2, bid(PASS)),
    (3, bid(PASS)),
    (0, bid(PASS)),
    (1, bid(types_pb2.BID_KIND_CONFIRM_HOKM, types_pb2.SUIT_DIAMONDS)),
    (2, doubling(types_pb2.DOUBLING_CALL_DECLINE)),
    (0, doubling(types_pb2.DOUBLING_CALL_DECLINE)),
    (1, play(0)),
    (2, play(3)),
    (3, play(7)),
    (0, play(18)),
]

# ---------------------------------------------------------------------------------------
# Playing matches


@dataclasses.dataclass
class Step:
    """One accepted action: who acted, what, with whose credential, and what it caused."""

    seat: int
    action: types_pb2.Action | None  # None: a deal
    deck: tuple[int, ...]
    role: str  # "host" or "seat"
    version: int
    events: list[types_pb2.Event]


class Table:
    """Plays a match with random legal actions taken from the views.

    Each action uses the host credential, or (with probability ``seat_share``) the acting
    seat's own. After every accepted action it checks that the version went up by one and
    that the views are exactly the ones the credential entitles to; ``on_step`` may check
    more. A Sawa claim the rules refuse is counted and another action chosen. Bidders pass
    more often than a uniform choice would (``pass_share``), or nearly every contract would be
    a Sun and Hokm doubling and redeals would be rare.
    """

    def __init__(
        self,
        match: Match,
        rng: random.Random,
        *,
        seat_share: float = 0.25,
        pass_share: float = 0.6,
        on_step: Callable[[Table, Step], None] | None = None,
    ) -> None:
        self.match = match
        self.rng = rng
        self.seat_share = seat_share
        self.pass_share = pass_share
        self.on_step = on_step
        self.views: dict[int, types_pb2.View] = {}
        self.steps: list[Step] = []
        self.refused_claims = 0
        self._take_views(match.views, "host", None)

    # -- views --------------------------------------------------------------------------

    @property
    def latest(self) -> types_pb2.View:
        """A view of the latest state (the seat it belongs to does not matter)."""
        for view in self.views.values():
            if view.state_version == self.match.version:
                return view
        raise AssertionError("no view of the latest state")

    def seat_view(self, seat: int) -> types_pb2.View:
        """The latest view of ``seat``, asked with its own credential when not at hand."""
        view = self.views.get(seat)
        if view is None or view.state_version != self.match.version:
            view = self.match.view(seat, credential=self.match.seat_credentials[seat])
            assert view.seat == seat
            assert view.state_version == self.match.version
            self.views[seat] = view
        return view

    def _take_views(self, views: Sequence[types_pb2.View], role: str, seat: int | None) -> None:
        if role == "host":
            assert [v.seat for v in views] == list(SEATS)
        else:
            assert [v.seat for v in views] == [seat]
        for view in views:
            assert view.HasField("seat")
            assert view.match_id == self.match.match_id
            assert view.state_version == self.match.version
            if view.phase in LIVE:
                assert len(view.hand) == view.hand_sizes[view.seat]
            else:
                assert not view.hand
            self.views[view.seat] = view
        if role == "host":
            held = [set(v.hand) for v in views]
            assert sum(map(len, held)) == len(set().union(*held)), "a card in two hands"

    # -- acting -------------------------------------------------------------------------

    def credential(self, seat: int) -> tuple[str, str]:
        """The role and credential used for the next action of ``seat``."""
        if self.rng.random() < self.seat_share:
            return "seat", self.match.seat_credentials[seat]
        return "host", self.match.host_credential

    def act(self, seat: int, action: types_pb2.Action | None, deck: Sequence[int] = ()) -> Step:
        """Send one action (``None``: the deal) and check the response."""
        role, credential = self.credential(seat)
        before = self.match.version
        if action is None:
            events = self.match.deal(seat, deck, credential=credential)
        else:
            events = self.match.act(seat, action, credential=credential)
        assert self.match.version == before + 1
        self._take_views(self.match.views, role, seat)
        step = Step(seat, action, tuple(deck), role, self.match.version, list(events))
        self.steps.append(step)
        if self.on_step is not None:
            self.on_step(self, step)
        return step

    def choose(self, options: Sequence[types_pb2.Action]) -> types_pb2.Action:
        """A random legal action; a pass with probability ``pass_share`` when one is allowed."""
        passes = [a for a in options if a.HasField("bid") and a.bid.kind == PASS]
        if passes and self.rng.random() < self.pass_share:
            return passes[0]
        return self.rng.choice(options)

    def step(self, deck: Sequence[int] = ()) -> Step:
        """Take the next action of the match: the deal, or a random legal action."""
        view = self.latest
        if view.phase in BETWEEN:
            return self.act(view.dealer, None, deck)
        assert view.HasField("turn"), "a live phase without a seat on turn"
        seat = view.turn
        options = list(self.seat_view(seat).legal_actions)
        assert options, f"seat {seat} is on turn without a legal action"
        while True:
            action = self.choose(options)
            try:
                return self.act(seat, action)
            except IllegalActionError as error:
                # A Sawa claim is offered to the leader; the engine then checks it holds
                # (with the ledger, only the seat's first claim of the hand).
                if not (action.HasField("play") and action.play.sawa):
                    raise
                assert error.reason in ("SAWA_INVALID", "SAWA_NOT_ALLOWED"), error
                self.refused_claims += 1
                options.remove(action)

    def play(
        self,
        until: Callable[[types_pb2.View], bool] = lambda v: v.phase == types_pb2.PHASE_MATCH_OVER,
        *,
        decks: Callable[[int], Sequence[int]] | None = None,
        max_steps: int = 5000,
    ) -> list[Step]:
        """Play until ``until`` holds for the latest view; ``decks`` gives each deal's order."""
        taken: list[Step] = []
        deals = 0
        while not until(self.latest):
            assert len(taken) < max_steps, "the match does not end"
            deck: Sequence[int] = ()
            if self.latest.phase in BETWEEN:
                deck = () if decks is None else decks(deals)
                deals += 1
            taken.append(self.step(deck))
        return taken

    # -- transcript ---------------------------------------------------------------------

    def events(self, kind: int | None = None) -> list[types_pb2.Event]:
        """Every event so far, in order (only those of ``kind`` when given)."""
        return [e for s in self.steps for e in s.events if kind is None or e.kind == kind]


def mid_round(client: EngineClient, rng: random.Random, tricks: int = 4) -> Table:
    """A match of the default rules paused in its first round, ``tricks`` tricks played."""
    table = Table(client.create_match(SEEDS), rng, seat_share=0)
    table.play(
        lambda v: v.phase == types_pb2.PHASE_PLAYING and sum(v.tricks_won) == tricks,
    )
    return table
