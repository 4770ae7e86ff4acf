"""Match records ↔ the rules core: round reveals, VerifyRecord and ReplayRecord.

* **Reveals.** When a round is over (scored or redealt) its deck order is shown in a
  ``ROUND_REVEALED`` event (to the host, or to everyone under ``reveal_hands_after_round``);
  under that flag the views also carry it while the match waits for the next deal.
* **Records.** :func:`verify` and :func:`replay_to` turn a ``MatchRecord`` into the rules
  core's :class:`~baloot_engine.rules.record.RecordedRound` values and replay them with
  :func:`baloot_engine.rules.record.replay`; the recorded scores are compared here, as the
  messages the engine would have sent.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Final, NamedTuple

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import records_pb2, rules_pb2, types_pb2
from baloot_engine.api import inbound, outbound
from baloot_engine.api.attestation import Attestor, judge_commitment
from baloot_engine.api.enums import RULE_FLAGS
from baloot_engine.api.matches import Reveal, last_reveal, round_end_index
from baloot_engine.api.refusals import (
    DEAL_NOT_COMMITTED,
    RECORD_DIVERGES,
    RECORD_FORMAT_UNKNOWN,
    RECORD_RULES_INCONSISTENT,
    RECORD_TOO_LARGE,
    REQUEST_INVALID,
    ApiError,
    Code,
)
from baloot_engine.api.state_codec import DEALING_AT_MATCH_END, DEALING_EACH_ROUND
from baloot_engine.api.views import add_views, build_view
from baloot_engine.rules import Deal, RuleError, State, game
from baloot_engine.rules.dealing import REVEALED_INDEX, completion_cards, initial_hands
from baloot_engine.rules.errors import RECORD_MISMATCH, malformed
from baloot_engine.rules.fairdeal import (
    CHAIN_ROUNDS,
    SCHEME,
    DealCheck,
    check_decks,
    earlier_key,
    key_matches,
)
from baloot_engine.rules.game import BETWEEN_ROUNDS
from baloot_engine.rules.members import MATCH_OVER, ROUND_SCORED
from baloot_engine.rules.record import (
    CLOSE_REVIEW,
    CloseReview,
    DivergenceError,
    Entry,
    RecordedRound,
    Step,
    replay,
)
from baloot_engine.rules.sawa import SearchBudgetError, search_budget
from baloot_engine.rules.state import Phase

# A match to 152 plays at most about 25 scored rounds (each adds at least 16 points) plus its
# redeals; a legal round has under 64 actions, and a random match to 152 a few hundred. The
# record RPCs need no credential, so their work is bounded whatever the record: its actions
# (about 7-14 µs of CPU each), and the positions the Sawa searches of its claims may visit
# together (about 6 µs each; a claim made with eight cards in hand can need 60,000). At the
# limits a record costs under 25 ms of CPU (bench/bench_record_cost.py), plus about 2 ms to check
# its decks against a deal commitment (200 hands, a key of round 200: docs/fair-deals.md).
MAX_RECORD_ROUNDS: Final = 200
MAX_ROUND_ACTIONS: Final = 128
MAX_RECORD_ACTIONS: Final = 1024
MAX_SAWA_POSITIONS: Final = 1500
MAX_RECORD_BYTES: Final = 1 << 18
MAX_BOARD_SET: Final = 64
MIN_BOARD_SECRET: Final = 16
MAX_BOARD_SECRET: Final = 64
BOARD_SECRET_BYTES: Final = 16  # a drawn secret: 128 random bits, 22 base64url characters
RECORD_FORMAT: Final = 1

_REVEAL_KIND: Final = types_pb2.EVENT_KIND_ROUND_REVEALED


# ---------------------------------------------------------------------------------------
# Reveals


def reveal_out(
    round_state: State, deck: Sequence[int], deal_key: tuple[int, bytes] | None = None
) -> types_pb2.RoundReveal:
    """The ``RoundReveal`` of a round: ``round_state`` is a state of that round (its dealer,
    number and contract), ``deck`` its deck order, ``deal_key`` the key of the match's
    committed chain it discloses (round, key), if any."""
    message = types_pb2.RoundReveal(
        round_number=round_state.hand_number, dealer=round_state.dealer, deck_order=deck
    )
    if deal_key is not None:
        message.deal_key.round, message.deal_key.key = deal_key
    contract = round_state.contract
    if contract is not None and len(deck) == 32:
        taker = contract.taker
        first = initial_hands(deck, round_state.dealer)
        rest = completion_cards(
            deck[REVEALED_INDEX + 1 :], round_state.dealer, taker, deck[REVEALED_INDEX]
        )
        for seat in range(4):
            cards = outbound.cards_of(first[seat] | rest[seat])
            message.hands.add(seat=seat, cards=cards)
    return message


def reveal_event(
    round_state: State, deck: Sequence[int], deal_key: tuple[int, bytes] | None = None
) -> types_pb2.Event:
    """The ``ROUND_REVEALED`` event of a round that just ended (see :func:`reveal_out`)."""
    event = types_pb2.Event(kind=_REVEAL_KIND, seat=round_state.dealer)
    event.reveal.CopyFrom(reveal_out(round_state, deck, deal_key))
    return event


def reveal_view_part(reveal: Reveal) -> bytes:
    """The encoded ``View`` part of a round's reveal, which views carry under
    ``reveal_hands_after_round`` while the match waits for the next deal (or is over)."""
    view = types_pb2.View()
    deal_key = reveal.deal_key if reveal.key_in_views else None
    view.last_round_reveal.CopyFrom(reveal_out(reveal.round, reveal.deck, deal_key))
    return view.SerializeToString()


def add_shown_reveal(response: pb.GetViewResponse, reveal: Reveal | None, host: bool) -> None:
    """Complete a GetView response with the reveal of the round that ended last
    (:meth:`~baloot_engine.api.matches.Matches.shown_reveal`): in its view when the views carry it
    (``reveal_hands_after_round``), and for the host credential in ``round_reveal``, whichever
    credential ended the round."""
    if reveal is None:
        return
    if reveal.in_views:
        response.view.MergeFromString(reveal_view_part(reveal))
    if host:
        response.round_reveal.CopyFrom(reveal_out(reveal.round, reveal.deck, reveal.deal_key))


# ---------------------------------------------------------------------------------------
# Records


def board_set_in(text: str) -> str:
    """A CreateMatch board set, checked: 1-64 printable ASCII characters (or empty)."""
    if len(text) > MAX_BOARD_SET or not all(" " <= c <= "~" for c in text):
        raise malformed(
            REQUEST_INVALID, f"board_set must be at most {MAX_BOARD_SET} printable ASCII characters"
        )
    return text


def board_set_secret_in(secret: str, board_set: str) -> str:
    """A CreateMatch board set's secret, checked; a new one drawn for a board set without."""
    if not board_set:
        if secret:
            raise malformed(REQUEST_INVALID, "board_set_secret needs a board_set")
        return ""
    if not secret:
        return secrets.token_urlsafe(BOARD_SECRET_BYTES)
    if not MIN_BOARD_SECRET <= len(secret) <= MAX_BOARD_SECRET or not all(
        "!" <= c <= "~" for c in secret
    ):
        raise malformed(
            REQUEST_INVALID,
            f"board_set_secret must be {MIN_BOARD_SECRET} to {MAX_BOARD_SECRET} printable ASCII "
            "characters other than the space",
        )
    return secret


def deal_disclosure_in(value: int) -> int:
    """A CreateMatch ``deal_disclosure``, checked, as the token's ``dealing`` value."""
    if value in (types_pb2.DEAL_DISCLOSURE_UNSPECIFIED, types_pb2.DEAL_DISCLOSURE_AT_MATCH_END):
        return DEALING_AT_MATCH_END
    if value == types_pb2.DEAL_DISCLOSURE_EACH_ROUND:
        return DEALING_EACH_ROUND
    raise malformed(REQUEST_INVALID, f"deal_disclosure {value} is not a DealDisclosure")


def commitment_out(commitment: bytes, dealing: int) -> types_pb2.DealCommitment:
    """The ``DealCommitment`` CreateMatch returns."""
    disclosure = (
        types_pb2.DEAL_DISCLOSURE_EACH_ROUND
        if dealing == DEALING_EACH_ROUND
        else types_pb2.DEAL_DISCLOSURE_AT_MATCH_END
    )
    return types_pb2.DealCommitment(
        scheme=SCHEME, commitment=commitment, rounds=CHAIN_ROUNDS, disclosure=disclosure
    )


def deal_check(record: records_pb2.MatchRecord) -> DealCheck | None:
    """What the record's disclosed key proves of its decks (docs/fair-deals.md); None for a
    record without a commitment of a scheme this server reads."""
    if not record.HasField("deal_commitment"):
        return None
    committed = record.deal_commitment
    if committed.scheme not in (0, SCHEME):
        return None
    disclosed = record.deal_key
    return check_decks(
        bytes(committed.commitment),
        disclosed.round,
        bytes(disclosed.key),
        [tuple(r.deck_order) for r in record.rounds],
        [r.HasField("score") for r in record.rounds],
    )


def check_size(record: records_pb2.MatchRecord) -> str | None:
    """Why a record is too large for VerifyRecord and ReplayRecord, or None."""
    if len(record.rounds) > MAX_RECORD_ROUNDS:
        return f"a record holds at most {MAX_RECORD_ROUNDS} rounds, got {len(record.rounds)}"
    total = 0
    for index, recorded in enumerate(record.rounds):
        if len(recorded.actions) > MAX_ROUND_ACTIONS:
            return f"round {index} holds more than {MAX_ROUND_ACTIONS} actions"
        if len(recorded.deck_order) > 32:
            return f"round {index}'s deck holds more than 32 cards"
        total += len(recorded.actions)
    if total > MAX_RECORD_ACTIONS:
        return f"a record holds at most {MAX_RECORD_ACTIONS} actions, got {total}"
    size = record.ByteSize()
    if size > MAX_RECORD_BYTES:
        return f"a record is at most {MAX_RECORD_BYTES} bytes, got {size}"
    return None


def require_size(record: records_pb2.MatchRecord) -> None:
    """Refuse a record larger than the record RPCs accept (RECORD_TOO_LARGE), of a format they
    do not read (RECORD_FORMAT_UNKNOWN), or whose preset contradicts its flags
    (RECORD_RULES_INCONSISTENT)."""
    why = check_size(record)
    if why is not None:
        raise ApiError(Code.INVALID_ARGUMENT, RECORD_TOO_LARGE, why)
    if record.format not in RECORD_FORMATS:
        raise ApiError(
            Code.INVALID_ARGUMENT,
            RECORD_FORMAT_UNKNOWN,
            f"record format {record.format} is not read here: this server reads format 1",
        )
    if record.HasField("rules"):
        flags: Any = record.rules  # flags are read by name
        label = record.rules.preset
        if label != rules_pb2.PRESET_UNSPECIFIED and all(
            flags.HasField(name) for name in RULE_FLAGS
        ):
            nearest = outbound.rules_out(inbound.rules_in(record.rules)).preset
            if nearest != label:
                raise ApiError(
                    Code.INVALID_ARGUMENT,
                    RECORD_RULES_INCONSISTENT,
                    f"the record's rules are labelled {rules_pb2.Preset.Name(label)} but their "
                    f"flags are those of {rules_pb2.Preset.Name(nearest)}",
                )


_BETWEEN_ROUNDS: Final = (*BETWEEN_ROUNDS, Phase.MATCH_OVER)
RECORD_FORMATS: Final = (0, 1)
"""The record formats this server reads (0 is read as 1)."""


def start_of(record: records_pb2.MatchRecord) -> State:
    """The state a record starts from (its rules, first dealer and starting scores).

    A malformed start raises a MALFORMED :class:`RuleError` (INVALID_ARGUMENT).
    """
    rules = inbound.rules_in(record.rules if record.HasField("rules") else None)
    scores = inbound.starting_scores_in(record.starting_scores, rules)
    dealer = inbound.seat_in(record.first_dealer)
    return game.new_match(rules, dealer, scores)


def rounds_in(record: records_pb2.MatchRecord) -> list[RecordedRound]:
    """The record's rounds as core values (an unreadable action as the error reading it)."""
    rounds: list[RecordedRound] = []
    action_in = inbound.action_in
    for recorded in record.rounds:
        actions: list[tuple[int, Entry | RuleError]] = []
        for entry in recorded.actions:
            if entry.close_review:
                if entry.HasField("action"):
                    refused = malformed(
                        REQUEST_INVALID,
                        "the close of a review is no seat's action: `action` must be unset",
                    )
                    actions.append((entry.seat, refused))
                else:
                    actions.append((entry.seat, CLOSE_REVIEW))
                continue
            try:
                actions.append((entry.seat, action_in(entry.action)))
            except RuleError as error:
                actions.append((entry.seat, error))
        rounds.append(RecordedRound(tuple(recorded.deck_order), tuple(actions)))
    return rounds


def _steps(record: records_pb2.MatchRecord, start: State) -> Iterator[Step]:
    """Every step of a record, each round's recorded score compared at its end; raises
    :class:`DivergenceError` at the first disagreement."""
    rounds = rounds_in(record)
    last_ended = -1
    for step in replay(start, rounds):
        if step.ends_round:
            _check_score(record.rounds[step.round_index], step)
            last_ended = step.round_index
        yield step
    final = len(rounds) - 1
    if final >= 0 and last_ended != final and record.rounds[final].HasField("score"):
        raise DivergenceError(
            final,
            len(rounds[final].actions),
            RECORD_MISMATCH,
            "the round has a recorded score but is not over",
        )


def _check_score(recorded: records_pb2.RecordedRound, step: Step) -> None:
    """Compare a round's recorded score with the score the step gave it."""
    scored = next((e for e in step.events if e.kind is ROUND_SCORED), None)
    at = step.action_index + 1
    if scored is None:
        if recorded.HasField("score"):
            raise DivergenceError(
                step.round_index, at, RECORD_MISMATCH, "the round was redealt, not scored"
            )
        return
    assert scored.score is not None
    state = step.state
    replayed = outbound.round_score_out(scored.score, state.hand_number, state.contract)
    if not recorded.HasField("score"):
        raise DivergenceError(step.round_index, at, RECORD_MISMATCH, "the round's score is missing")
    differs = _score_difference(recorded.score, replayed)
    if differs is not None:
        raise DivergenceError(
            step.round_index,
            at,
            RECORD_MISMATCH,
            f"the recorded score is not the engine's ({differs}): "
            f"{[t.final_points for t in recorded.score.teams]} recorded, "
            f"{[t.final_points for t in replayed.teams]} by the rules",
        )


def _score_difference(recorded: types_pb2.RoundScore, replayed: types_pb2.RoundScore) -> str | None:
    """The first field in which a recorded score differs from the engine's, or None. The
    English ``explanation`` is for people and is not compared: its wording may change between
    versions, and a record made before stays valid."""
    mine, theirs = types_pb2.RoundScore(), types_pb2.RoundScore()
    mine.CopyFrom(recorded)
    theirs.CopyFrom(replayed)
    mine.ClearField("explanation")
    theirs.ClearField("explanation")
    if mine == theirs:
        return None
    for field in types_pb2.RoundScore.DESCRIPTOR.fields:
        if getattr(mine, field.name) != getattr(theirs, field.name):
            return field.name
    return "unknown fields"


@contextmanager
def _bounded_claims() -> Iterator[None]:
    """Cap the work of judging a record's Sawa claims (RECORD_TOO_LARGE past it)."""
    try:
        with search_budget(MAX_SAWA_POSITIONS):
            yield
    except SearchBudgetError:
        raise ApiError(
            Code.INVALID_ARGUMENT,
            RECORD_TOO_LARGE,
            "judging the record's Sawa claims needs more than "
            f"{MAX_SAWA_POSITIONS} positions of search",
        ) from None


def verify(
    record: records_pb2.MatchRecord,
    attestor: Attestor | None = None,
    steps: list[Step] | None = None,
) -> pb.VerifyRecordResponse:
    """Replay a record and report whether it holds, or its first divergence, and whether
    ``attestor`` (the deployment's keys) attested its deal commitment. Given ``steps``, every
    step replayed is appended to it (the analysis reads the record's replay from there rather
    than replaying it again)."""
    start = start_of(record)
    with _bounded_claims():
        response = _verify(record, start, steps)
    judge_commitment(attestor, record, start.rules, response)
    return response


def _committed_steps(
    record: records_pb2.MatchRecord, start: State, dealt: DealCheck | None
) -> Iterator[Step]:
    """:func:`_steps`, up to the first hand whose deck is not the committed one (or before the
    first, when the disclosed key does not open the commitment): DEAL_NOT_COMMITTED there."""
    bad = None if dealt is None else dealt.bad_round
    for step in _steps(record, start):
        if bad is not None and step.round_index >= bad:
            break
        yield step
    if dealt is not None and bad is not None:
        raise DivergenceError(bad, 0, DEAL_NOT_COMMITTED, dealt.why)


def _verify(
    record: records_pb2.MatchRecord, state: State, steps: list[Step] | None = None
) -> pb.VerifyRecordResponse:
    response = pb.VerifyRecordResponse(valid=True)
    replayed = 0
    dealt = deal_check(record)
    if dealt is not None:
        response.rounds_proven = dealt.proven
        response.deals_proven = dealt.complete and dealt.bad_round is None and bool(record.rounds)
    try:
        for step in _committed_steps(record, state, dealt):
            state = step.state
            replayed += 1
            if steps is not None:
                steps.append(step)
            for event in step.events:
                if event.kind is ROUND_SCORED and event.score is not None:
                    response.sheet.append(
                        outbound.round_score_out(event.score, state.hand_number, state.contract)
                    )
    except DivergenceError as divergence:
        response.valid = False
        response.divergence.CopyFrom(
            records_pb2.RecordDivergence(
                round_index=divergence.round_index,
                action_index=divergence.action_index,
                reason=divergence.reason,
                message=divergence.message,
            )
        )
    response.actions_replayed = replayed
    response.match.CopyFrom(outbound.match_score_out(state))
    response.complete = state.phase is MATCH_OVER
    response.last_round_over = bool(record.rounds) and state.phase in _BETWEEN_ROUNDS
    return response


def _disclosed_key(
    record: records_pb2.MatchRecord, round_index: int, match_over: bool
) -> tuple[int, bytes] | None:
    """The key the match disclosed in the reveal of the scored round ``round_index``, as the
    record's key gives it: that round's at every scored round, or the last one's at the match's
    end (docs/fair-deals.md); None when the record's key does not open its commitment."""
    if not (record.HasField("deal_commitment") and record.HasField("deal_key")):
        return None
    committed = record.deal_commitment
    if committed.disclosure != types_pb2.DEAL_DISCLOSURE_EACH_ROUND and not match_over:
        return None
    round_number = sum(r.HasField("score") for r in record.rounds[: round_index + 1])
    key_round, key = record.deal_key.round, bytes(record.deal_key.key)
    if not 1 <= round_number <= key_round:
        return None
    if not key_matches(key, key_round, bytes(committed.commitment)):
        return None
    return round_number, earlier_key(key, key_round, round_number)


class Replayed(NamedTuple):
    """A record replayed to a step."""

    state: State
    step: Step | None  # the step's action (None at step 0)
    deck: tuple[int, ...]  # the deck of the step's hand (empty before the first deal)


def total_steps(record: records_pb2.MatchRecord) -> int:
    """The number of actions in a record."""
    return sum(len(r.actions) for r in record.rounds)


def replay_to(record: records_pb2.MatchRecord, step_number: int) -> Replayed:
    """The state after the record's first ``step_number`` actions; raises :class:`DivergenceError`
    when the record diverges before (a deck that is not the committed one included, as
    VerifyRecord finds it)."""
    state = start_of(record)
    if step_number == 0:
        return Replayed(state, None, ())
    with _bounded_claims():
        steps = _committed_steps(record, state, deal_check(record))
        for count, step in enumerate(steps, start=1):
            if count == step_number:
                deck = tuple(record.rounds[step.round_index].deck_order)
                return Replayed(step.state, step, deck)
    raise AssertionError("the step is within the record")  # pragma: no cover


def replay_checked(record: records_pb2.MatchRecord, step_number: int, where: str) -> Replayed:
    """:func:`replay_to`, a divergence before the step refused with RECORD_DIVERGES (its place
    and reason in the metadata); ``where`` names the step in the message."""
    try:
        return replay_to(record, step_number)
    except DivergenceError as divergence:
        raise ApiError(
            Code.FAILED_PRECONDITION,
            RECORD_DIVERGES,
            f"the record diverges before {where}: {divergence}",
            {
                "round_index": str(divergence.round_index),
                "action_index": str(divergence.action_index),
                "divergence": divergence.reason,
            },
        ) from None


def replay_response(
    record: records_pb2.MatchRecord, replayed: Replayed, step_number: int
) -> pb.ReplayRecordResponse:
    """The views and events of a record at a step."""
    state = replayed.state
    response = pb.ReplayRecordResponse(total_steps=total_steps(record))
    step = replayed.step
    deal_key = None
    if step is not None and step.ends_round and any(e.kind is ROUND_SCORED for e in step.events):
        deal_key = _disclosed_key(record, step.round_index, state.phase is MATCH_OVER)
    in_views = None if record.board_set else deal_key
    reveal = last_reveal(state, replayed.deck, in_views) if replayed.deck else None
    extra = b"" if reveal is None else reveal_view_part(reveal)
    match_id = record.match_id
    add_views(response.views, state, (0, 1, 2, 3), match_id, step_number, extra=extra)
    public = build_view(state, None, match_id, step_number, with_rules=True)
    if extra:
        public.MergeFromString(extra)
    response.public_view.CopyFrom(public)
    if step is not None:
        events = step.events
        if step.ends_round:
            end = round_end_index(events) + 1
            outbound.add_events(response.events, events[:end], state)
            response.events.append(reveal_event(step.before, replayed.deck, deal_key))
            outbound.add_events(response.events, events[end:], state)
        else:
            outbound.add_events(response.events, events, state)
        response.round_index = step.round_index
        response.action_index = step.action_index
        action = step.action
        if isinstance(action, CloseReview):
            response.action.close_review = True
            return response
        if type(action) is Deal:
            action = Deal(())  # as recorded: the round's deck is in the round
        response.action.seat = step.seat
        response.action.action.CopyFrom(outbound.action_out(action))
    return response


__all__ = [
    "MAX_RECORD_BYTES",
    "MAX_RECORD_ROUNDS",
    "MAX_ROUND_ACTIONS",
    "add_shown_reveal",
    "check_size",
    "replay_response",
    "replay_to",
    "reveal_event",
    "reveal_view_part",
    "verify",
]
