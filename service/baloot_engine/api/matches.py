"""The match layer: what a call does to a match, with no gRPC in it.

Opening and checking a token (the credential's role, the sealed state, the expected version),
applying an action through the rules core, sealing the next state, the decks of a match
(its keyed shuffle, a preset deck, a board set's), the reveal of a round that ended, and the
claims the optional match ledger must confirm. Everything here takes and returns plain values
(core states, actions and events, bytes), so a test calls it without a server; the servicer
(:mod:`baloot_engine.api.servicer`) only translates messages to these calls and back.

With a match ledger (:mod:`baloot_engine.api.ledger`), no answer about a token leaves before
the ledger confirms it is the latest of its match: the body of a call stays synchronous and
notes what it opened and sealed in a :class:`Claim`, and :meth:`Matches.settled` settles that
claim with the ledger (one round trip) before the call answers, or before it reports a refusal,
which could otherwise tell something about a stale state (a false Sawa claim, a forbidden card).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import re
import secrets
from collections.abc import Awaitable, Callable, Sequence
from contextvars import ContextVar
from typing import Final, NamedTuple, TypeVar

from baloot_engine.api.judging import JudgeClock, cost_of
from baloot_engine.api.ledger import Answer, Entry, LedgerUnavailableError, MatchLedger, Verdict
from baloot_engine.api.refusals import (
    LEDGER_UNAVAILABLE,
    MATCH_UNKNOWN,
    ApiError,
    Code,
    bot_call_refused,
    credential_invalid,
    preset_deck_disabled,
    request_invalid,
    stale_state,
    state_invalid,
)
from baloot_engine.api.reveals import ended_round, was_redealt
from baloot_engine.api.sealing import (
    HOST_ROLE,
    MATCH_ID_SIZE,
    SPECTATOR_ROLE,
    KeyRing,
    TokenRefusedError,
    seat_role,
)
from baloot_engine.api.state_codec import (
    DEALING_AT_MATCH_END,
    DEALING_EACH_ROUND,
    DEALING_VOID,
    SEED_SIZE,
    Decoded,
    StateInvalidError,
    TokenFields,
    decode,
    encode,
)
from baloot_engine.bots import suggest
from baloot_engine.bots.expert import DEFAULT_EXPERT_BUDGET, with_seconds
from baloot_engine.bots.policies import Level
from baloot_engine.lanes import Call, Lanes, LanesConfig
from baloot_engine.rules import (
    Action,
    CallQayd,
    ClaimSawa,
    Deal,
    Event,
    EventKind,
    Phase,
    RuleError,
    RuleSet,
    State,
    game,
)
from baloot_engine.rules.dealing import (
    board_deck,
    board_set_seed,
    deck_from_seed,
    seeded_board_deck,
)
from baloot_engine.rules.errors import SAWA_NOT_ALLOWED
from baloot_engine.rules.fairdeal import (
    CHAIN_ROUNDS,
    commitment,
    committed_deck,
    dealing_secret,
    round_key,
)
from baloot_engine.telemetry.logs import bind_call_fields, get_logger
from baloot_engine.telemetry.metrics import Metrics

_MATCH_ID: Final = re.compile(r"[0-9a-f]{32}")
_ALL_SEATS: Final = (0, 1, 2, 3)
_ROUND_ENDS: Final = (EventKind.ROUND_SCORED, EventKind.REDEAL)
_BETWEEN: Final = (Phase.ROUND_OVER, Phase.MATCH_OVER)
_log = get_logger("baloot_engine.api")
_Result = TypeVar("_Result")


class Claim:
    """What the ledger must confirm before a call answers: the states it opened and sealed."""

    __slots__ = ("created", "events", "following", "match_id", "presented", "sawa")

    def __init__(self) -> None:
        self.match_id = ""
        self.presented: Entry | None = None  # the state of the token sent
        self.following: Entry | None = None  # the state the action made
        self.created: Entry | None = None  # the first state of a new match
        self.events: Sequence[Event] = ()  # counted once the ledger has accepted them
        self.sawa: tuple[int, int] | None = None  # a Sawa claim's (hand, seat): judged once


# The claim of the call being computed; set only on a server with a ledger. A context variable
# is its task's own, so the claim read in a body (awaiting a judged call included) is always
# its own call's.
_claims: ContextVar[Claim | None] = ContextVar("baloot_ledger_claim", default=None)
SEARCHING_LEVELS: Final = (Level.STRONG, Level.EXPERT)
"""The bot levels whose decisions search (milliseconds to seconds): they run in the bots
lane, paid for by a client; the others decide inline in well under a millisecond."""


class Caller(NamedTuple):
    """Who is calling, for the work a call may hand to a lane: the API key presented ('' for
    none), the call's deadline (a ``time.monotonic()`` instant, None for none) and its source
    (the address it came from, :mod:`~baloot_engine.lanes.sources`; '' where unknown)."""

    key: str = ""
    deadline: float | None = None
    source: str = ""


NO_CALLER: Final = Caller()
judged_call: ContextVar[bool] = ContextVar("baloot_judged_call", default=False)
"""Set when a call reaches the judgement of a Sawa claim or a Qayd call, which searches the
hidden hands: the servicer then holds the whole answer until its fixed time
(:meth:`~baloot_engine.api.judging.JudgeClock.hold`)."""


def as_before(before: State, after: State) -> State:
    """``after`` (come back from another process, every field a new object) with each field
    equal to ``before``'s as ``before``'s own object: the token encoder keeps an unchanged
    field's bytes in place by identity, so the token is then byte for byte the one the same
    call applied in this process gives (the ledger keys a state on its bytes)."""
    return State._make(
        mine if mine is theirs or mine == theirs else theirs
        for mine, theirs in zip(before, after, strict=True)
    )


class Opened:
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

    @property
    def is_host(self) -> bool:
        return self.role == HOST_ROLE

    def may_act_for(self, seat: int) -> bool:
        return self.role in (HOST_ROLE, seat_role(seat))

    def visible_seats(self) -> Sequence[int]:
        """The seats whose private views the caller may see."""
        if self.role == HOST_ROLE:
            return _ALL_SEATS
        if self.role == SPECTATOR_ROLE:
            return ()
        return (int(self.role[-1]),)


class Reveal(NamedTuple):
    """The reveal of a round that ended: a state of that round (its number, dealer and
    contract), its deck order, whether the views carry it too (``reveal_hands_after_round``),
    and the key of the match's committed chain it discloses (round, key), if any."""

    round: State
    deck: tuple[int, ...]
    in_views: bool
    deal_key: tuple[int, bytes] | None = None
    key_in_views: bool = True  # False in a board set: views are forwarded to the seats


class Acted(NamedTuple):
    """An accepted action: the next state, its version and sealed token, the events, and the
    reveal of the round it ended when the caller may see it (placed after event ``reveal_at``)."""

    opened: Opened
    state: State
    version: int
    token: bytes
    events: Sequence[Event]
    reveal: Reveal | None
    reveal_at: int


class Created(NamedTuple):
    """A new match: its id, first state and token, its credentials, and the commitment to its
    decks (key[0] of its chain, docs/fair-deals.md)."""

    match_id: str
    state: State
    token: bytes
    host_credential: str
    seat_credentials: list[str]
    spectator_credential: str
    commitment: bytes


def round_end_index(events: Sequence[Event]) -> int:
    """The index of the event that ended the round (scored, or cancelled for a redeal), or -1."""
    for index, event in enumerate(events):
        if event.kind in _ROUND_ENDS:
            return index
    return -1


class Matches:
    """The match layer of one server: its keys, its counters, its preset-deck switch and its
    optional ledger."""

    def __init__(
        self,
        keys: KeyRing,
        metrics: Metrics,
        *,
        allow_preset_deck: bool,
        ledger: MatchLedger | None = None,
        lanes: Lanes | None = None,
        expert_budget_ms: int = 500,
    ) -> None:
        self.keys = keys
        self.metrics = metrics
        self.allow_preset_deck = allow_preset_deck
        self.ledger = ledger
        self.lanes = lanes if lanes is not None else Lanes(LanesConfig())
        # When each judged answer leaves, and how many judged calls the judge lane answers
        # in time (docs/security.md, *Time*).
        judge = self.lanes.judge.config
        self.judge_clock = JudgeClock(judge.processes, judge.queue, judge.per_source)
        self._sealed = metrics.tokens_sealed.labels(key_id=keys.sealing_fingerprint)
        # An unseeded EXPERT decision searches until this budget (BALOOT_BOT_EXPERT_BUDGET_MS).
        expert = with_seconds(DEFAULT_EXPERT_BUDGET, expert_budget_ms / 1000)
        self.decide_inline = functools.partial(suggest, expert=expert)

    # -- creating, opening, sealing -----------------------------------------------------

    def create(
        self,
        rules: RuleSet,
        dealer: int,
        scores: tuple[int, int],
        board_set: str = "",
        board_secret: str = "",
        disclosure: int = DEALING_AT_MATCH_END,
    ) -> Created:
        """A new match: a fresh id and deck seed, the first state sealed, the credentials, the
        commitment to its decks (``disclosure``: when their key is disclosed).

        A board set deals from its name bound to ``board_secret`` (which it needs)."""
        assert disclosure in (DEALING_AT_MATCH_END, DEALING_EACH_ROUND)
        state = game.new_match(rules, dealer, scores)
        match_key = secrets.token_bytes(MATCH_ID_SIZE)
        match_id = match_key.hex()
        bind_call_fields(match_id=match_id, state_version=0)
        seed = secrets.token_bytes(SEED_SIZE)
        fields = TokenFields(dealing=disclosure)
        if board_set:
            assert board_secret, "a board set needs its secret"
            board_seed = board_set_seed(self.keys.board_key(), board_set, board_secret)
            fields = fields._replace(board_set=board_set, board_seed=board_seed)
        committed = _chain_key(dealing_secret(_dealing_seed(seed, fields)), 0)
        plaintext = encode(state, seed, 0, fields=fields)
        claim = _claims.get()
        if claim is not None:
            claim.match_id = match_id
            claim.created = Entry.of(0, plaintext)
        self._sealed.inc()
        keys = self.keys
        return Created(
            match_id,
            state,
            keys.seal(plaintext, match_key),
            keys.credential(match_key, HOST_ROLE),
            [keys.credential(match_key, seat_role(s)) for s in _ALL_SEATS],
            keys.credential(match_key, SPECTATOR_ROLE),
            committed,
        )

    def open(self, token: bytes, match_id: str, credential: str) -> Opened:
        """Check the match id and the credential's role, then open and check the token."""
        if not _MATCH_ID.fullmatch(match_id):
            raise request_invalid(
                "match_id must be the 32 lower-case hex digits CreateMatch returned"
            )
        match_key = bytes.fromhex(match_id)
        bind_call_fields(match_id=match_id)
        role = self.keys.role_of(match_key, credential)
        if role is None:
            raise credential_invalid("the credential is not valid for this match")
        try:
            plaintext = self.keys.open(token, match_key)
            decoded = decode(plaintext)
        except TokenRefusedError as error:
            self.metrics.token_refused(error.kind)
            raise state_invalid(error.why) from None
        except StateInvalidError as error:
            self.metrics.token_refused("invalid_state")
            raise state_invalid("it holds an impossible state") from error
        bind_call_fields(state_version=decoded.version)
        claim = _claims.get()
        if claim is not None:
            claim.match_id = match_id
            claim.presented = Entry.of(decoded.version, plaintext)
        return Opened(match_id, match_key, role, decoded)

    def _seal(self, opened: Opened, state: State, version: int, fields: TokenFields) -> bytes:
        """Seal the state that follows the opened one (encoded from the opened message)."""
        plaintext = encode(state, opened.seed, version, opened.decoded, fields)
        claim = _claims.get()
        if claim is not None:
            claim.following = Entry.of(version, plaintext)
        self._sealed.inc()
        return self.keys.seal(plaintext, opened.match_key)

    # -- acting ---------------------------------------------------------------------------

    async def act(
        self,
        opened: Opened,
        seat: int,
        expected_version: int | None,
        action_of: Callable[[Opened], Action],
        caller: Caller = NO_CALLER,
    ) -> Acted:
        """Check that the caller may act for ``seat`` at this version, then apply the action
        ``action_of`` gives (converted only after those checks) and seal the next state.

        A Sawa claim or a Qayd call searches the hidden hands: it is applied in the judge's
        lane (its own process), so that the search's length shows in no other call's time."""
        bind_call_fields(seat=seat)
        if not opened.may_act_for(seat):
            raise credential_invalid(f"the credential may not act for seat {seat}")
        check_version(opened, expected_version)
        action = action_of(opened)
        try:
            if type(action) in (ClaimSawa, CallQayd):
                new_state, events = await self._judged(opened, seat, action, caller)
            else:
                new_state, events = game.apply(opened.state, seat, action)
        except RuleError as error:
            self.metrics.action_rejected(error.reason)
            raise
        return self._acted(opened, action, new_state, events)

    def judge_room(self, caller: Caller) -> None:
        """Refuse a Sawa claim or a Qayd call at once, before its token is opened, when the
        judge lane has no room for it (LANE_FULL), or its caller's source has its share of the
        lane already (QUOTA_EXCEEDED): neither tells anything of any match."""
        lanes = self.lanes
        client = lanes.client(caller.key, caller.source)
        lanes.judge.check(client)
        self.judge_clock.check_room(client)

    async def _judged(
        self, opened: Opened, seat: int, action: Action, caller: Caller
    ) -> tuple[State, Sequence[Event]]:
        """A judged call applied in the judge's lane (its share of the lane is its caller's),
        its new state made field for field the one the same call applied here gives."""
        lanes = self.lanes
        client = lanes.client(caller.key, caller.source)
        # A full judge lane refuses before the judgement: the refusal tells nothing of the
        # hands. The call counts in the lane until its answer has left, at its fixed time (the
        # task's end), so that no more calls are inside than the lane judges in that time.
        lanes.judge.check(client)
        leave = self.judge_clock.enter(client, cost_of(action))
        task = asyncio.current_task()
        if task is None:  # pragma: no cover - a call always runs in a task
            leave()
        else:
            task.add_done_callback(leave)
        judged_call.set(True)
        if type(action) is ClaimSawa:
            claim = _claims.get()
            if claim is not None:
                claim.sawa = (opened.state.hand_number, seat)
        job = Call(game.apply, (opened.state, seat, action))
        judged = await lanes.judge.call(client, job, caller.deadline)
        new_state, events = judged
        return as_before(opened.state, new_state), events

    async def close_review(self, opened: Opened, expected_version: int | None) -> Acted:
        """The host closes the review of a round under table play."""
        if not opened.is_host:
            raise credential_invalid("only the host credential may close the review")
        check_version(opened, expected_version)
        try:
            new_state, events = game.close_review(opened.state)
        except RuleError as error:
            self.metrics.action_rejected(error.reason)
            raise
        return self._acted(opened, None, new_state, events)

    def _acted(
        self, opened: Opened, action: Action | None, new_state: State, events: Sequence[Event]
    ) -> Acted:
        """Seal the state ``action`` made (None: the host closed a review), with the records'
        fields it changes, and the reveal of a round it ended."""
        version = opened.version + 1
        claim = _claims.get()
        if claim is None:
            self.metrics.observe_events(events)
        else:
            claim.events = events  # counted only if the ledger accepts the action
        before = opened.state
        fields = opened.decoded.fields
        if type(action) is Deal:
            if fields.committed:
                if fields.dealing != DEALING_VOID and action.deck != self.next_deck(opened):
                    fields = fields._replace(dealing=DEALING_VOID)  # a preset deck: not provable
                keep = True  # a committed deck derives from the chain's round, not the round number
            else:
                keep = bool(fields.board_set) or action.deck != self._seed_deck(opened)
            if keep:
                fields = fields._replace(
                    round_deck=bytes(action.deck), round_deck_hand=new_state.hand_number
                )
            if fields.redealt_by:
                fields = fields._replace(redealt_by=0)
        reveal = None
        end = round_end_index(events)
        if end >= 0:
            deal_key = None
            if events[end].kind is EventKind.ROUND_SCORED:
                fields = fields._replace(
                    rounds_scored=fields.rounds_scored + 1, scored_at_hand=new_state.hand_number
                )
                deal_key = self._disclosed_key(opened, fields, new_state)
            else:  # a redeal: the host's GetView shows its reveal, with its dealer, until the deal
                fields = fields._replace(redealt_by=before.dealer + 1)
            flag = new_state.rules.reveal_hands_after_round
            if flag or opened.is_host:
                deck = self.round_deck(opened, before.hand_number)
                reveal = Reveal(before, deck, flag, deal_key, not fields.board_set)
        token = self._seal(opened, new_state, version, fields)
        return Acted(opened, new_state, version, token, events, reveal, end)

    # -- decks ----------------------------------------------------------------------------

    def check_preset_allowed(self, opened: Opened | None = None) -> None:
        """Refuse a preset deck on a server that does not accept them, or in a board-set match
        (given the opened match)."""
        if not self.allow_preset_deck:
            raise preset_deck_disabled(
                "this server does not accept preset decks (BALOOT_ALLOW_PRESET_DECK)"
            )
        if opened is not None and opened.decoded.fields.board_set:
            raise preset_deck_disabled("a board-set match is dealt its board set's decks only")

    def deal_of(self, deck: tuple[int, ...] | None) -> Callable[[Opened], Action]:
        """The deal of a DealRound: the match's next deck, or a preset ``deck`` where this
        server and the match accept one (refused before the token is opened otherwise)."""
        if deck is None:
            return lambda opened: Deal(self.next_deck(opened))
        self.check_preset_allowed()

        def preset(opened: Opened) -> Action:
            self.check_preset_allowed(opened)
            return Deal(deck)

        return preset

    def round_deck(self, opened: Opened, round_number: int) -> tuple[int, ...]:
        """The deck round ``round_number`` of the opened match was (or is) dealt from."""
        kept = opened.decoded.fields.kept_deck(round_number)
        return kept if kept is not None else deck_from_seed(opened.seed, round_number)

    def next_deck(self, opened: Opened) -> tuple[int, ...]:
        """The deck of the next round: the committed chain's (docs/fair-deals.md), or in a
        match created before commitments the board set's or the match's own keyed shuffle."""
        fields = opened.decoded.fields
        round_number = fields.rounds_scored + 1
        if fields.committed and round_number <= CHAIN_ROUNDS:
            redeals = opened.state.hand_number - fields.scored_at_hand
            secret = dealing_secret(_dealing_seed(opened.seed, fields))
            return committed_deck(_chain_key(secret, round_number), redeals)
        # Before commitments, and past the chain's last round (no record that long verifies).
        if fields.board_set:
            redeals = opened.state.hand_number - fields.scored_at_hand
            if fields.board_seed:
                return seeded_board_deck(fields.board_seed, fields.rounds_scored + 1, redeals)
            return board_deck(  # a match created before board sets had secrets
                self.keys.board_key(), fields.board_set, fields.rounds_scored + 1, redeals
            )
        return self._seed_deck(opened)

    @staticmethod
    def _seed_deck(opened: Opened) -> tuple[int, ...]:
        return deck_from_seed(opened.seed, opened.state.hand_number + 1)

    def shown_reveal(self, opened: Opened) -> Reveal | None:
        """The reveal of the round that ended last, while the match waits for the next deal:
        the host's whichever credential ended the round (scored or redealt), with the key it
        discloses, as the host's ROUND_REVEALED event gave it; ``in_views`` when the views carry
        it too (see :func:`last_reveal`), and to the other credentials only then."""
        state = opened.state
        in_views = shows_last_reveal(state)
        if not (in_views or opened.is_host):
            return None
        fields = opened.decoded.fields
        ended = ended_round(state, fields.redealt_by)
        if ended is None:
            return None
        deal_key = None if was_redealt(state) else self._disclosed_key(opened, fields, state)
        deck = self.round_deck(opened, state.hand_number)
        return Reveal(ended, deck, in_views, deal_key, not fields.board_set)

    @staticmethod
    def _disclosed_key(
        opened: Opened, fields: TokenFields, state: State
    ) -> tuple[int, bytes] | None:
        """The key a committed match discloses once ``fields.rounds_scored`` rounds are over in
        ``state``: the last scored round's, at every scored round or at the match's end. Never
        a later round's; in a board-set match to the host only, in its ROUND_REVEALED event and
        never in the views (other tables of the set may still be playing the same boards);
        never after a preset deck."""
        round_number = fields.rounds_scored
        if not 1 <= round_number <= CHAIN_ROUNDS:
            return None
        if fields.dealing == DEALING_EACH_ROUND:
            pass
        elif fields.dealing != DEALING_AT_MATCH_END or state.phase is not Phase.MATCH_OVER:
            return None
        if fields.board_set and not opened.is_host:
            return None
        secret = dealing_secret(_dealing_seed(opened.seed, fields))
        return round_number, _chain_key(secret, round_number)

    # -- bots -----------------------------------------------------------------------------

    async def suggest(
        self, opened: Opened, seat: int, level: Level, seed: int | None, caller: Caller
    ) -> Action:
        """The action a bot of ``level`` chooses for ``seat`` (the host's question only)."""
        bind_call_fields(seat=seat)
        if not opened.is_host:
            raise bot_call_refused()
        return await self._decide(opened, seat, level, seed, caller)

    async def bot_act(
        self,
        opened: Opened,
        seat: int,
        expected_version: int | None,
        level: Level,
        seed: int | None,
        caller: Caller,
    ) -> tuple[Acted, Action]:
        """Apply the action a bot of ``level`` chooses for the seat whose turn it is (the
        deal between rounds); the action as it may be shown (a deal without its deck)."""
        check_version(opened, expected_version)
        if self.bot_turn(opened, seat):
            acted = await self.act(opened, seat, expected_version, self._next_deal, caller)
            return acted, Deal(())
        action = await self._decide(opened, seat, level, self.bot_seed(opened, seed), caller)
        acted = await self.act(opened, seat, expected_version, lambda _: action, caller)
        return acted, action

    @staticmethod
    def bot_turn(opened: Opened, seat: int) -> bool:
        """Check that the host asks for the seat whose action the match waits for; True
        between rounds, where that seat deals."""
        if not opened.is_host:
            raise bot_call_refused()
        return game.bot_turn(opened.state, seat)

    def _next_deal(self, opened: Opened) -> Action:
        return Deal(self.next_deck(opened))

    async def _decide(
        self, opened: Opened, seat: int, level: Level, seed: int | None, caller: Caller
    ) -> Action:
        """A searching level's decision in the bots lane, paid for by the caller's client;
        another level's inline."""
        if level not in SEARCHING_LEVELS:
            return self.decide_inline(opened.state, seat, level, seed)
        lanes = self.lanes
        client = lanes.payer(caller.key, lanes.bots, caller.source)
        job = Call(self.decide_inline, (opened.state, seat, level, seed))
        action: Action = await lanes.bots.call(client, job, caller.deadline)
        return action

    @staticmethod
    def bot_seed(opened: Opened, seed: int | None = None) -> int:
        """``seed``, or a bot's seed derived from the match's secret seed and the state's
        version: the same request gives the same action, and nobody can predict it without
        the match seed."""
        if seed is not None:
            return seed
        label = b"baloot-bot" + opened.version.to_bytes(8, "big")
        return int.from_bytes(hmac.new(opened.seed, label, hashlib.sha256).digest()[:8], "big")

    # -- the ledger -----------------------------------------------------------------------

    async def settled(self, body: Callable[[], Awaitable[_Result]]) -> _Result:
        """Run a call's body, then settle its claim with the ledger before anything leaves.

        The body runs in the call's own context, so the claim it notes (the tokens it opened
        and sealed) is its own call's. Without a ledger the body runs alone.
        """
        if self.ledger is None:
            return await body()
        claim = Claim()
        _claims.set(claim)
        try:
            response = await body()
        except (ApiError, RuleError):
            if claim.presented is not None:
                await self.settle(claim, refused=True)
            raise
        await self.settle(claim, refused=False)
        if claim.events:
            self.metrics.observe_events(claim.events)
        return response

    async def _judged_once(self, claim: Claim, *, refused: bool) -> bool:
        """Whether a Sawa claim may be answered: its token is the latest (else the check
        refuses it as stale) and it is its seat's first claim of the round, or the same claim
        on the same state again."""
        assert self.ledger is not None
        assert claim.sawa is not None
        presented = claim.presented
        assert presented is not None
        answer = await self.ledger.check(claim.match_id, presented)
        if answer.lost:
            return True  # a lost match stays lost: settle's next call refuses it
        if answer.verdict is not Verdict.LATEST:
            self.metrics.ledger_answer(answer.verdict.value)
            raise _ledger_refusal(answer, presented)
        following = claim.following
        if refused or following is None:
            outcome = b"refused:" + presented.encode()
        else:
            outcome = b"held:" + following.encode()
        hand, seat = claim.sawa
        return await self.ledger.judge_once(claim.match_id, hand, seat, outcome)

    async def settle(self, claim: Claim, *, refused: bool) -> None:
        """Confirm a call's claim with the ledger, or raise the refusal the ledger calls for.

        A new match is recorded; an action's new state replaces the one it came from
        (compare-and-set); a read, or a refused action, needs its token to be the latest.
        """
        assert self.ledger is not None
        ledger = self.ledger
        try:
            if claim.created is not None:
                await ledger.record(claim.match_id, claim.created)
                return
            if claim.presented is None:
                return  # no token in this call (ScoreRound)
            if claim.sawa is not None and not await self._judged_once(claim, refused=refused):
                self.metrics.action_rejected(SAWA_NOT_ALLOWED)
                raise RuleError(
                    SAWA_NOT_ALLOWED,
                    f"seat {claim.sawa[1]} had its Sawa claim of this hand judged already: "
                    "with the match ledger a seat's claim is judged once per hand",
                    details={"seat": str(claim.sawa[1])},
                )
            if claim.following is not None and not refused:
                answer = await ledger.advance(claim.match_id, claim.presented, claim.following)
            else:
                answer = await ledger.check(claim.match_id, claim.presented)
        except LedgerUnavailableError as error:
            self.metrics.ledger_answer("unavailable")
            _log.warning("match ledger unavailable", error=str(error))
            raise ApiError(
                Code.UNAVAILABLE,
                LEDGER_UNAVAILABLE,
                "the match ledger cannot be reached; send the same request again later",
            ) from None
        if answer.lost:
            # A sealed token above the ledger's version, although its Redis keeps what it
            # acknowledges (BALOOT_LEDGER_DURABILITY checked or trusted): that promise was
            # broken. The match is refused from now on, whatever token comes.
            _log.error(
                "match ledger was behind a sealed token although its Redis should keep every "
                "acknowledged write; the match is refused from now on",
                match_id=claim.match_id,
                state_version=claim.presented.version,
            )
            self.metrics.ledger_answer("lost")
            raise ApiError(
                Code.FAILED_PRECONDITION,
                MATCH_UNKNOWN,
                "the match ledger lost the latest state of this match: it cannot go on",
                {"state_version": str(claim.presented.version)},
            )
        if answer.recovered:
            # BALOOT_LEDGER_DURABILITY=lossy: a sealed token above the ledger's version, the
            # ledger lost writes (Redis restarted without them). It now holds this state, so
            # every older token of the match is refused from now on.
            _log.warning(
                "match ledger was behind a sealed token (lost writes); older tokens refused",
                match_id=claim.match_id,
                state_version=claim.presented.version,
            )
            self.metrics.ledger_answer("recovered")
        else:
            self.metrics.ledger_answer(answer.verdict.value)
        if answer.verdict is not Verdict.LATEST:
            raise _ledger_refusal(answer, claim.presented)


def shows_last_reveal(state: State) -> bool:
    """Whether the views carry the reveal of the last scored round: under
    ``reveal_hands_after_round``, while the match waits for the next deal (or is over)."""
    return (
        state.rules.reveal_hands_after_round
        and state.phase in _BETWEEN
        and state.last_score is not None
    )


def last_reveal(
    state: State, deck: tuple[int, ...], deal_key: tuple[int, bytes] | None = None
) -> Reveal | None:
    """The reveal of the round a between-rounds ``state`` last scored, dealt from ``deck``
    (with the key of the match's chain it discloses, if any), when the views carry it
    (:func:`shows_last_reveal`)."""
    if not shows_last_reveal(state):
        return None
    return Reveal(state._replace(dealer=(state.dealer - 1) & 3), deck, True, deal_key)


def _dealing_seed(seed: bytes, fields: TokenFields) -> bytes:
    """The seed a committed match's dealing secret derives from: its board set's (bound to
    the organiser's secret), so every match of the set has the same chain, else its own."""
    return fields.board_seed if fields.board_set else seed


def _chain_key(secret: bytes, round_number: int) -> bytes:
    """key[round_number] of a dealing secret's chain: 256 - round_number hashes, about 0.1 ms,
    computed every time (a cache's hits would time the other tables of a board set)."""
    return commitment(secret) if round_number == 0 else round_key(secret, round_number)


def check_version(opened: Opened, expected: int | None) -> None:
    """Refuse an action whose expected version is not the token's (STALE_STATE)."""
    if expected is not None and expected != opened.version:
        raise stale_state(
            opened.version, f"the state is at version {opened.version}, not {expected}"
        )


def _ledger_refusal(answer: Answer, presented: Entry) -> ApiError:
    if answer.verdict is Verdict.UNKNOWN:
        return ApiError(
            Code.FAILED_PRECONDITION,
            MATCH_UNKNOWN,
            "the match ledger has no record of this match (expired, or created elsewhere)",
            {"state_version": str(presented.version)},
        )
    latest = "" if answer.latest_version is None else str(answer.latest_version)
    return stale_state(
        presented.version,
        f"this token is not the latest of its match (the latest is at version {latest or '?'})",
        latest,
    )


__all__ = [
    "NO_CALLER",
    "SEARCHING_LEVELS",
    "Acted",
    "Caller",
    "Claim",
    "Created",
    "Matches",
    "Opened",
    "Reveal",
    "as_before",
    "check_version",
    "last_reveal",
    "round_end_index",
]
