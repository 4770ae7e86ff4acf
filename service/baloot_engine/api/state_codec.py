"""The rules core's ``State`` to and from the private ``MatchState`` message.

Everything that can be recomputed is left out of the message (the played-card mask, the
trick winners, the projects' cards, the Baloot holder, the last round's breakdown), which
keeps tokens small and means a token can never carry a value that contradicts the rules.
Decoding checks every field and then the whole state (``rules.validation.validate``); any
problem raises :class:`StateInvalidError`.

This module is the token's one owner: it writes and reads every field of the sealed state,
the records' fields (:class:`TokenFields`) included.

Every number table below is append-only: a token sealed today must open tomorrow.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from enum import Enum
from functools import lru_cache
from operator import attrgetter, gt
from typing import Final, NamedTuple

from google.protobuf.message import DecodeError

from baloot.internal.v1 import match_state_pb2 as pb
from baloot_engine.rules import (
    FEDERATION,
    KAMMELNA,
    SEEDS,
    AwardedProject,
    Bid,
    BidKind,
    Contract,
    Doubling,
    DoublingCall,
    PlayMode,
    ProjectKind,
    QaydCategory,
    QaydVerdict,
    RoundFacts,
    RoundScore,
    RuleError,
    RuleSet,
    State,
    TrickRecord,
    score_round,
    validate,
)
from baloot_engine.rules.cards import HIGHER, trick_winner_index
from baloot_engine.rules.members import (
    AWAITING_DEAL,
    BIDDING,
    CONTRACT_HOKM,
    CONTRACT_SUN,
    DOUBLING,
    MATCH_OVER,
    PLAYING,
    ROUND_OVER,
    ROUND_REVIEW,
)
from baloot_engine.rules.play import allowed_cards, broken_rule, is_boss
from baloot_engine.rules.projects import baloot_mask, projects_for_declaration
from baloot_engine.rules.qayd import penalty_score
from baloot_engine.rules.state import (
    EMPTY_DECLARATIONS,
    BidRecord,
    BidStage,
    Declaration,
    DoublingRecord,
    DoublingStep,
    Violation,
)
from baloot_engine.rules.validation import MAX_BIDS, MAX_DOUBLING_CALLS

LAYOUT: Final = 1
SEED_SIZE: Final = 16
BREACHES_SIZE: Final = 9
# The token's `dealing` (provably fair deals, docs/fair-deals.md): a token sealed before
# commitments deals as before; a committed match discloses its key at its end or at every
# scored round, or no more once a preset deck was dealt.
DEALING_UNCOMMITTED: Final = 0
DEALING_AT_MATCH_END: Final = 1
DEALING_EACH_ROUND: Final = 2
DEALING_VOID: Final = 3
MAX_VERSION: Final = 2**62
"""The highest state version a token may carry; its successor still fits the uint64 field."""
MAX_COUNT: Final = 2**31
"""The most rounds dealt or scored a token may count (far above any match): the next one still
fits the uint32 fields."""

# The longest each bytes field of a MatchState can be, checked before any of them is read:
# nothing is allocated in proportion to a forged length or value.
_BYTES_LIMITS: Final = {
    "rule_overrides": 2 * 64,
    "card_owners": 8,
    "stock": 32,
    "to_ask": 4,
    "bids": 3 * MAX_BIDS,
    "doubling_calls": 2 * MAX_DOUBLING_CALLS,
    "trick": 3,
    "tricks": 5 * 8,
    "declarations": 4 * 4,
    "board_seed": 32,
    "violations": 8 * (32 + 1),  # a breach per card played, and a false Sawa
    "breaches": BREACHES_SIZE,
}
_LAST_ROUND_LIMITS: Final = {"projects": 3 * 8, "baloot_teams": 2}
# The same limits as one C-level read of the fields (decode runs on every call).
_BYTES_FIELDS: Final = attrgetter(*_BYTES_LIMITS)
_BYTES_MAXIMA: Final = tuple(_BYTES_LIMITS.values())

PHASES: Final = (
    AWAITING_DEAL,
    BIDDING,
    DOUBLING,
    PLAYING,
    ROUND_OVER,
    MATCH_OVER,
    ROUND_REVIEW,
)
QAYD_CATEGORIES: Final = (
    QaydCategory.REVOKE,
    QaydCategory.NO_TRUMP,
    QaydCategory.NO_OVERTRUMP,
    QaydCategory.CLOSED_TRUMP_LEAD,
    QaydCategory.FALSE_AKKA,
    QaydCategory.FALSE_SAWA,
)
BID_STAGES: Final = (
    BidStage.NONE,
    BidStage.LAP,
    BidStage.REOPEN,
    BidStage.CONFIRM,
    BidStage.PRIORITY,
)
DOUBLING_STEPS: Final = (
    DoublingStep.NONE,
    DoublingStep.DOUBLE,
    DoublingStep.TRIPLE,
    DoublingStep.FOUR,
    DoublingStep.GAHWA,
    DoublingStep.CHOOSE_MODE,
)
BID_KINDS: Final = (
    BidKind.PASS,
    BidKind.HOKM,
    BidKind.SUN,
    BidKind.ASHKAL,
    BidKind.CONFIRM_HOKM,
    BidKind.SWITCH_TO_SUN,
    BidKind.CLAIM_SUN,
    BidKind.KAWESH,
)
CALLS: Final = (
    DoublingCall.DOUBLE,
    DoublingCall.TRIPLE,
    DoublingCall.FOUR,
    DoublingCall.GAHWA,
    DoublingCall.DECLINE,
    DoublingCall.CHOOSE_MODE,
)
MODES: Final = (None, PlayMode.OPEN, PlayMode.CLOSED)
PROJECT_KINDS: Final = (
    ProjectKind.SIRA,
    ProjectKind.FIFTY,
    ProjectKind.HUNDRED,
    ProjectKind.FOUR_HUNDRED,
    ProjectKind.BALOOT,
)
# Rule flags by number (match_target travels in its own field).
FLAGS: Final = tuple(f.name for f in fields(RuleSet) if f.name != "match_target")


class StateInvalidError(Exception):
    """The decoded content is not a possible state; ``problems`` says why."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


# ---------------------------------------------------------------------------------------
# Rules


def _flag_values(name: str) -> tuple[object, ...]:
    default = getattr(SEEDS, name)
    if isinstance(default, bool):
        return (False, True)
    assert isinstance(default, Enum)
    return tuple(type(default))


# By number in the token: append only.
PRESETS: Final = (SEEDS, KAMMELNA, FEDERATION)


def _overrides(rules: RuleSet, base: RuleSet) -> bytes:
    out = bytearray()
    for number, name in enumerate(FLAGS):
        value = getattr(rules, name)
        if value != getattr(base, name):
            out += bytes((number, _flag_values(name).index(value)))
    return bytes(out)


@lru_cache(maxsize=256)
def encode_rules(rules: RuleSet) -> tuple[int, bytes, int]:
    """Return (preset number, flag overrides, match target or 0): the shortest spelling."""
    spellings = [(len(o), i, o) for i, o in enumerate(_overrides(rules, p) for p in PRESETS)]
    _, preset, overrides = min(spellings)
    target = 0 if rules.match_target == SEEDS.match_target else rules.match_target
    return preset, overrides, target


@lru_cache(maxsize=256)
def decode_rules(preset: int, overrides: bytes, target: int) -> RuleSet:
    """The inverse of :func:`encode_rules`."""
    if preset >= len(PRESETS):
        raise StateInvalidError([f"unknown rule preset {preset}"])
    if len(overrides) % 2:
        raise StateInvalidError(["rule overrides are truncated"])
    changes: dict[str, object] = {}
    for i in range(0, len(overrides), 2):
        number, value = overrides[i], overrides[i + 1]
        if number >= len(FLAGS):
            raise StateInvalidError([f"unknown rule flag number {number}"])
        name = FLAGS[number]
        values = _flag_values(name)
        if value >= len(values):
            raise StateInvalidError([f"unknown value {value} of rule flag {name}"])
        changes[name] = values[value]
    if target:
        changes["match_target"] = target
    try:
        return PRESETS[preset].replace(**changes)
    except ValueError as error:
        raise StateInvalidError([f"invalid rules: {error}"]) from error


# ---------------------------------------------------------------------------------------
# Contract


def encode_contract(contract: Contract | None) -> int:
    """Pack a contract into bits (0 = none)."""
    if contract is None:
        return 0
    return (
        1
        | (contract.type is CONTRACT_HOKM) << 1
        | (contract.trump + 1) << 2
        | contract.buyer << 5
        | contract.ashkal << 7
        | (contract.bidding_round - 1) << 8
        | (contract.multiplier - 1) << 9
        | contract.gahwa << 11
        | (contract.mode is PlayMode.CLOSED) << 12
    )


@lru_cache(maxsize=1024)
def decode_contract(bits: int) -> Contract | None:
    """The inverse of :func:`encode_contract` (cached: a contract is immutable)."""
    if bits == 0:
        return None
    if bits >> 13 or not bits & 1:
        raise StateInvalidError(["contract bits out of range"])
    hokm = bool(bits >> 1 & 1)
    trump = (bits >> 2 & 7) - 1
    if not (0 <= trump <= 3 if hokm else trump == -1):
        raise StateInvalidError(["the contract's trump does not fit its type"])
    return Contract(
        type=CONTRACT_HOKM if bits >> 1 & 1 else CONTRACT_SUN,
        trump=(bits >> 2 & 7) - 1,
        buyer=bits >> 5 & 3,
        ashkal=bool(bits >> 7 & 1),
        bidding_round=(bits >> 8 & 1) + 1,
        multiplier=(bits >> 9 & 3) + 1,
        gahwa=bool(bits >> 11 & 1),
        mode=PlayMode.CLOSED if bits >> 12 & 1 else PlayMode.OPEN,
    )


# ---------------------------------------------------------------------------------------
# Whole state


class TokenFields(NamedTuple):
    """What the token keeps beside the state for records and board sets."""

    round_deck: bytes = b""  # the preset or board deck of hand ``round_deck_hand``
    round_deck_hand: int = 0
    board_set: str = ""
    rounds_scored: int = 0
    scored_at_hand: int = 0  # the round number of the last scored round (0 before)
    board_seed: bytes = b""  # the board set bound to its secret (empty in older tokens)
    dealing: int = 0  # provably fair deals: one of the DEALING_* values
    redealt_by: int = 0  # after a redeal, until the next deal: the redealt round's dealer + 1

    @property
    def committed(self) -> bool:
        """Whether the match deals from its committed chain (docs/fair-deals.md)."""
        return self.dealing != DEALING_UNCOMMITTED

    def kept_deck(self, round_number: int) -> tuple[int, ...] | None:
        """The deck the token keeps for round ``round_number``, if it keeps one."""
        if self.round_deck and self.round_deck_hand == round_number:
            return tuple(self.round_deck)
        return None


NO_FIELDS: Final = TokenFields()


def encode(
    state: State,
    seed: bytes,
    version: int,
    previous: Decoded | None = None,
    fields: TokenFields = NO_FIELDS,
) -> bytes:
    """Serialize a state, its deck seed and version, and the records' ``fields`` into
    ``MatchState`` bytes.

    The match id is not inside: the seal authenticates it as associated data.

    ``previous`` is the decoded state this one was derived from (one action earlier). Its
    message is then copied and only the fields whose values changed are written: an action
    changes a handful of the forty fields, and filling a whole fresh message costs more than
    all the rest of encoding. Both ways write each field with the same code, :func:`_write`.
    """
    if previous is None:
        message = pb.MatchState(layout=LAYOUT, seed=seed)
        _write(message, state, None)
        if fields is not NO_FIELDS:
            _write_fields(message, fields)
    else:
        message = pb.MatchState.FromString(previous.data)
        if seed != previous.seed:
            message.seed = seed
        _write(message, state, previous.state)
        if fields is not previous.fields:
            _write_fields(message, fields)
    message.version = version
    data = message.SerializeToString()
    score = state.last_score
    if score is not None and not message.HasField("last_round"):
        # Encoded messages concatenate as a merge: the last round's part is appended whole.
        data += _last_round_part(score.facts)
    return data


def _write_fields(message: pb.MatchState, fields: TokenFields) -> None:
    message.round_deck = fields.round_deck
    message.round_deck_hand = fields.round_deck_hand
    message.board_set = fields.board_set
    # rounds_scored is the state's own (State.rounds_scored, written by _write): the match
    # layer keeps fields.rounds_scored equal to it.
    message.scored_at_hand = fields.scored_at_hand
    message.board_seed = fields.board_seed
    message.dealing = fields.dealing
    message.redealt_by = fields.redealt_by


def _write(message: pb.MatchState, state: State, old: State | None) -> None:
    """Write the fields of ``state`` into ``message``: all of them, or (given the state
    ``message`` holds now) those that differ. Enums and objects are compared by identity,
    which may only cause a needless (and harmless) rewrite."""
    if old is None or state.rules is not old.rules:
        message.rule_preset, message.rule_overrides, message.match_target = encode_rules(
            state.rules
        )
    if old is None or state.phase is not old.phase:
        message.phase = PHASES.index(state.phase)
    if old is None or state.dealer != old.dealer:
        message.dealer = state.dealer
    if old is None or state.hand_number != old.hand_number:
        message.hand_number = state.hand_number
    if old is None or state.match_scores != old.match_scores:
        message.match_scores[:] = state.match_scores
    if old is None or state.turn != old.turn:
        message.turn = state.turn
    if old is None or state.revealed != old.revealed:
        message.revealed = state.revealed
    if old is None or state.buy_card != old.buy_card:
        message.buy_card = state.buy_card
    if old is None or state.bidding_round != old.bidding_round:
        message.bidding_round = state.bidding_round
    if old is None or state.bid_stage is not old.bid_stage:
        message.bid_stage = BID_STAGES.index(state.bid_stage)
    if old is None or state.to_ask != old.to_ask:
        message.to_ask = bytes(state.to_ask)
    if old is None or state.pending_seat != old.pending_seat:
        message.pending_seat = state.pending_seat
    if old is None or state.pending_suit != old.pending_suit:
        message.pending_suit = state.pending_suit
    if old is None or state.pending_ashkal != old.pending_ashkal:
        message.pending_ashkal = state.pending_ashkal
    if old is None or state.contract is not old.contract:
        message.contract = encode_contract(state.contract)
    if old is None or state.doubling_step is not old.doubling_step:
        message.doubling_step = DOUBLING_STEPS.index(state.doubling_step)
    if old is None or state.buyer_completed != old.buyer_completed:
        message.buyer_waiting = not state.buyer_completed
    if old is None or state.leader != old.leader:
        message.leader = state.leader
    if old is None or state.trick != old.trick:
        message.trick = bytes(state.trick)
    if old is None or state.akka != old.akka:
        message.akka = state.akka
    if old is None or state.project_team != old.project_team:
        message.project_team = state.project_team
    if old is None or state.baloot_announced != old.baloot_announced:
        message.baloot_announced = state.baloot_announced
    if old is None or state.sawa_seat != old.sawa_seat:
        message.sawa_seat = state.sawa_seat
    if old is None or state.winner != old.winner:
        message.winner = state.winner
    # The card owners are always written: decoding ignores what they say of cards that are
    # elsewhere, so the previous bytes are not necessarily the canonical ones.
    message.card_owners = encode_owners(state.hands) if any(state.hands) else b""
    if old is None or state.stock != old.stock:
        message.stock = bytes(state.stock)
    if old is None or state.bids != old.bids:
        message.bids = _encode_bids(state.bids)
    if old is None or state.doubling_calls != old.doubling_calls:
        message.doubling_calls = _encode_doubling_calls(state.doubling_calls)
    if old is None or state.tricks != old.tricks:
        message.tricks = _encode_tricks(state.tricks)
    if old is None or state.abnat != old.abnat:
        message.abnat[:] = state.abnat if any(state.abnat) else ()
    if old is None or state.declarations != old.declarations:
        message.declarations = _encode_declarations(state.declarations)
    if old is not None and state.last_score is not old.last_score:
        message.ClearField("last_round")  # encode appends the new one
    if _keeps_breaches(state):
        # Always written, so a token of a round in play is as long with a breach as without.
        message.breaches = _encode_breaches(state)
        if message.violations:
            message.violations = b""
    else:
        if message.breaches:
            message.breaches = b""
        if old is None or _keeps_breaches(old) or state.violations != old.violations:
            message.violations = _encode_violations(state.violations)
    if old is None or state.last_qayd is not old.last_qayd:
        message.ClearField("last_qayd")
        if state.last_qayd is not None:
            _encode_verdict(message.last_qayd, state.last_qayd)
    if old is None or state.rounds_scored != old.rounds_scored:
        # Also read as TokenFields.rounds_scored (the chain's round number of a committed match).
        message.rounds_scored = state.rounds_scored


# Table play (§A.14) keeps a round's breaches in the token until a Qayd judges them. Kept as a
# list, eight bytes each, they made a token longer by a breach (R45: nothing shows a breach to
# anyone before a verdict). A hand in play keeps them in ``breaches`` instead, nine bytes
# whatever happened: the cards played illegally, the false Akka calls, and whether the Sawa
# claim was false. The rule each broke and its evidence follow from the tricks and the hands,
# as the rules core worked them out when the card was played (``rules.play.broken_rule``).


def _keeps_breaches(state: State) -> bool:
    return state.rules.illegal_moves_allowed and (
        state.phase is PLAYING or state.phase is ROUND_REVIEW
    )


def _encode_breaches(state: State) -> bytes:
    return _breach_bytes(state.violations)


def _breach_bytes(violations: tuple[Violation, ...]) -> bytes:
    illegal = akka = 0
    false_sawa = 0
    for v in violations:
        if v.rule is QaydCategory.FALSE_SAWA:
            false_sawa = 1
        elif v.rule is QaydCategory.FALSE_AKKA:
            akka |= 1 << v.card
        else:
            illegal |= 1 << v.card
    return illegal.to_bytes(4, "little") + akka.to_bytes(4, "little") + bytes((false_sawa,))


def _decode_breaches(
    raw: bytes,
    tricks: tuple[TrickRecord, ...],
    leader: int,
    trick: tuple[int, ...],
    full_hands: tuple[int, int, int, int],
    hands: tuple[int, int, int, int],
    contract: Contract | None,
    rules: RuleSet,
    sawa_seat: int,
) -> tuple[Violation, ...]:
    """The violations :func:`_encode_breaches` kept, rebuilt in the order they happened. Each
    must be one: a card the rules allowed its player (whether or not its trick was led as an
    Akka, which a completed trick does not keep), or an Akka on the boss of its suit, is no
    breach, and a state that says so is refused."""
    if contract is None:
        raise StateInvalidError(["breaches are kept only in a round with a contract"])
    trump = contract.trump
    if len(raw) != BREACHES_SIZE:
        raise StateInvalidError([f"breaches must be {BREACHES_SIZE} bytes"])
    illegal = int.from_bytes(raw[0:4], "little")
    akka = int.from_bytes(raw[4:8], "little")
    false_sawa = raw[8]
    if illegal & akka or false_sawa > 1 or (false_sawa and sawa_seat < 0):
        raise StateInvalidError(["the breaches are malformed"])
    found: list[Violation] = []
    broken = illegal | akka
    if broken:
        played_by = [0, 0, 0, 0]
        played = 0
        rounds: list[tuple[int, tuple[int, ...]]] = [(t.leader, t.cards) for t in tricks]
        rounds.append((leader, trick))
        for number, (first, cards) in enumerate(rounds, start=1):
            for position, card in enumerate(cards):
                seat = (first + position) & 3
                if akka >> card & 1:
                    if position or trump < 0 or is_boss(card, played):
                        raise StateInvalidError(["a false Akka is a led card that is not the boss"])
                    evidence = HIGHER[0][card] & ~played
                    found.append(Violation(seat, number, card, QaydCategory.FALSE_AKKA, evidence))
                elif illegal >> card & 1:
                    hand = full_hands[seat] & ~played_by[seat]
                    prefix = cards[:position]
                    if all(
                        allowed_cards(hand, prefix, first, seat, played, led_akka, contract, rules)
                        >> card
                        & 1
                        for led_akka in (False, True)
                    ):
                        raise StateInvalidError(["a breach names a card the rules allowed"])
                    rule, evidence = broken_rule(hand, prefix, trump, card)
                    found.append(Violation(seat, number, card, rule, evidence))
                played_by[seat] |= 1 << card
            played |= _mask(cards)
            broken &= ~played
        if broken:
            raise StateInvalidError(["a breach names a card not played in this hand"])
    if false_sawa:
        opponents = hands[(sawa_seat + 1) & 3] | hands[(sawa_seat + 3) & 3]
        found.append(Violation(sawa_seat, len(tricks) + 1, -1, QaydCategory.FALSE_SAWA, opponents))
    return tuple(found)


def _mask(cards: tuple[int, ...]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def _encode_violations(violations: tuple[Violation, ...]) -> bytes:
    out = bytearray()
    for v in violations:
        out += bytes((v.seat, v.trick, v.card + 1, QAYD_CATEGORIES.index(v.rule)))
        out += v.evidence.to_bytes(4, "little")
    return bytes(out)


def _decode_violations(raw: bytes) -> tuple[Violation, ...]:
    if len(raw) % 8:
        raise StateInvalidError(["violations are truncated"])
    found = []
    for i in range(0, len(raw), 8):
        seat, trick, card, rule = raw[i : i + 4]
        if seat > 3 or not 1 <= trick <= 8 or card > 32:
            raise StateInvalidError(["a violation is out of range"])
        evidence = int.from_bytes(raw[i + 4 : i + 8], "little")
        found.append(Violation(seat, trick, card - 1, QAYD_CATEGORIES[rule], evidence))
    return tuple(found)


def _encode_verdict(out: pb.QaydRecord, verdict: QaydVerdict) -> None:
    out.caller = verdict.caller
    out.accused = verdict.accused
    out.trick = verdict.trick
    out.card = verdict.card
    category = verdict.category
    out.category = 0 if category is None else QAYD_CATEGORIES.index(category) + 1
    out.correct = verdict.correct
    out.evidence = verdict.evidence
    out.winner_team = verdict.winner_team


def _decode_verdict(record: pb.QaydRecord) -> QaydVerdict:
    if (
        not -1 <= record.caller <= 3
        or record.accused > 3
        or not 1 <= record.trick <= 8
        or not -1 <= record.card <= 31
        or record.winner_team > 1
    ):
        raise StateInvalidError(["the last Qayd verdict is out of range"])
    category = None if record.category == 0 else QAYD_CATEGORIES[record.category - 1]
    return QaydVerdict(
        record.caller,
        record.accused,
        record.trick,
        record.card,
        category,
        record.correct,
        record.evidence,
        record.winner_team,
    )


# Encoded parts that stay the same over many calls, cached by their (immutable) values.


def _encode_declarations(declarations: tuple[Declaration | None, ...]) -> bytes:
    declared = bytearray()
    for seat, declaration in enumerate(declarations):
        if declaration is not None:
            declared += bytes((seat, len(declaration.kinds)))
            declared += bytes(PROJECT_KINDS.index(k) for k in declaration.kinds)
    return bytes(declared)


@lru_cache(maxsize=4096)
def _encode_bids(bids: tuple[BidRecord, ...]) -> bytes:
    return b"".join(
        bytes((r.seat + 4 * r.bidding_round, BID_KINDS.index(r.bid.kind), r.bid.suit + 1))
        for r in bids
    )


@lru_cache(maxsize=1024)
def _encode_doubling_calls(calls: tuple[DoublingRecord, ...]) -> bytes:
    return b"".join(
        bytes((r.seat, CALLS.index(r.call.call) * 4 + MODES.index(r.call.mode))) for r in calls
    )


@lru_cache(maxsize=8192)
def _encode_tricks(tricks: tuple[TrickRecord, ...]) -> bytes:
    return b"".join(bytes((t.leader, *t.cards)) for t in tricks)


@lru_cache(maxsize=4096)
def _last_round_part(facts: RoundFacts) -> bytes:
    """A ``MatchState`` holding only the last round's facts, encoded."""
    message = pb.MatchState()
    _encode_facts(message.last_round, facts)
    return message.SerializeToString()


def _encode_facts(out: pb.LastRound, facts: RoundFacts) -> None:
    out.contract_type = 1 if facts.contract is CONTRACT_SUN else 2
    out.buyer_team = facts.buyer_team
    out.card_abnat.extend(facts.card_abnat)
    out.tricks_won.extend(facts.tricks_won)
    out.projects = b"".join(
        bytes((p.team, PROJECT_KINDS.index(p.kind), 0 if p.seat is None else p.seat + 1))
        for p in facts.projects
    )
    out.project_cards.extend(p.cards for p in facts.projects)
    out.baloot_teams = bytes(facts.baloot_teams)
    out.multiplier = facts.multiplier
    out.gahwa = facts.gahwa
    out.reverse_kaboot = facts.reverse_kaboot


class Decoded:
    """A decoded token: the core state plus the deck seed, the state version and the records'
    fields (read from the message once, when first asked for).

    ``data`` keeps the ``MatchState`` bytes the state was decoded from, from which
    :func:`encode` starts the next state's message.
    """

    __slots__ = ("_fields", "data", "message", "seed", "state", "version")

    def __init__(
        self,
        state: State,
        seed: bytes,
        version: int,
        data: bytes,
        message: pb.MatchState | None = None,
    ) -> None:
        self.state = state
        self.seed = seed
        self.version = version
        self.data = data
        self.message = message
        self._fields: TokenFields | None = None if message is not None else NO_FIELDS

    @property
    def fields(self) -> TokenFields:
        """The records' fields of the token (:class:`TokenFields`)."""
        fields = self._fields
        if fields is None:
            m = self.message
            assert m is not None
            fields = NO_FIELDS
            if (
                m.round_deck
                or m.round_deck_hand
                or m.board_set
                or m.rounds_scored
                or m.dealing
                or m.redealt_by
            ):
                fields = TokenFields(
                    bytes(m.round_deck),
                    m.round_deck_hand,
                    m.board_set,
                    m.rounds_scored,
                    m.scored_at_hand,
                    bytes(m.board_seed),
                    m.dealing,
                    m.redealt_by,
                )
            self._fields = fields
        return fields


def decode(data: bytes) -> Decoded:
    """Parse and check ``MatchState`` bytes; raise :class:`StateInvalidError` on any problem."""
    try:
        message = pb.MatchState.FromString(data)
    except DecodeError as error:
        raise StateInvalidError(["the state does not parse"]) from error
    if message.layout != LAYOUT:
        raise StateInvalidError([f"unsupported state layout {message.layout}"])
    problems = _size_problems(message)
    if problems:
        raise StateInvalidError(problems)
    try:
        decoded = _decode(message, data)
    except StateInvalidError:
        raise
    except (ValueError, IndexError, KeyError, TypeError, RuleError) as error:
        raise StateInvalidError([f"the state does not decode: {error}"]) from error
    try:
        problems = validate(decoded.state)
    except (ValueError, IndexError, KeyError, TypeError) as error:
        raise StateInvalidError([f"the state does not check: {error}"]) from error
    if problems:
        raise StateInvalidError(problems)
    return decoded


def _size_problems(m: pb.MatchState) -> list[str]:
    """The ranges :func:`_decode` relies on before it builds anything from the message.

    Every bytes and repeated field has a length limit and every number that becomes a shift
    or an index its range, so a forged value is refused here at a constant cost.
    """
    problems = []
    if any(map(gt, map(len, _BYTES_FIELDS(m)), _BYTES_MAXIMA)):
        problems = [
            f"{name} is too long"
            for name, limit in _BYTES_LIMITS.items()
            if len(getattr(m, name)) > limit
        ]
    if len(m.match_scores) > 2 or len(m.abnat) > 2:
        problems.append("match scores and abnat hold two numbers")
    if m.version > MAX_VERSION:
        problems.append(f"the state version is above {MAX_VERSION}")
    if m.hand_number > m.version:
        problems.append("every round dealt took at least one action: hand_number <= version")
    if max(m.hand_number, m.rounds_scored, m.scored_at_hand, m.round_deck_hand) > MAX_COUNT:
        # The next round dealt or scored adds one to them: it must still fit their uint32.
        problems.append(f"the round counts are at most {MAX_COUNT}")
    if not -1 <= m.revealed < 32:
        problems.append("revealed must be a card 0-31 or -1")
    if not -1 <= m.buy_card < 32:
        problems.append("buy_card must be a card 0-31 or -1")
    if m.phase >= len(PHASES) or m.bid_stage >= len(BID_STAGES):
        problems.append("the phase or bidding stage is out of range")
    if m.doubling_step >= len(DOUBLING_STEPS):
        problems.append("the doubling step is out of range")
    if m.HasField("last_round"):
        last = m.last_round
        problems += [
            f"the last round's {name} is too long"
            for name, limit in _LAST_ROUND_LIMITS.items()
            if len(getattr(last, name)) > limit
        ]
        if len(last.project_cards) > 8 or len(last.card_abnat) > 2 or len(last.tricks_won) > 2:
            problems.append("the last round's lists are too long")
        if last.contract_type not in (1, 2):
            problems.append("the last round's contract type is out of range")
    return problems


def _seat_tuple(data: bytes, name: str) -> tuple[int, ...]:
    if data and max(data) > 3:
        raise StateInvalidError([f"{name} holds a seat out of range"])
    return tuple(data)


def _cards(data: bytes, name: str) -> tuple[int, ...]:
    if data and max(data) > 31:
        raise StateInvalidError([f"{name} holds a card out of range"])
    return tuple(data)


def encode_owners(hands: tuple[int, int, int, int]) -> bytes:
    """The seat holding each card as two 32-bit planes: bit 0 of the seat, then bit 1."""
    low = hands[1] | hands[3]
    high = hands[2] | hands[3]
    return (low | high << 32).to_bytes(8, "little")


def decode_owners(data: bytes, elsewhere: int) -> tuple[int, int, int, int]:
    """The hands from :func:`encode_owners`; cards in ``elsewhere`` are in no hand."""
    if len(data) != 8:
        raise StateInvalidError(["card owners must be 8 bytes"])
    held = ~elsewhere & 0xFFFFFFFF
    planes = int.from_bytes(data, "little")
    low = planes & 0xFFFFFFFF
    high = planes >> 32
    return (
        held & ~low & ~high,
        held & low & ~high,
        held & ~low & high,
        held & low & high,
    )


def _full_hands(
    hands: tuple[int, int, int, int],
    played_by_seat: tuple[int, int, int, int],
    leader: int,
    trick: tuple[int, ...],
) -> tuple[int, int, int, int]:
    """The 8-card hands at the first lead: the hands plus every card each seat has played."""
    full = [
        hands[0] | played_by_seat[0],
        hands[1] | played_by_seat[1],
        hands[2] | played_by_seat[2],
        hands[3] | played_by_seat[3],
    ]
    for position, card in enumerate(trick):
        full[(leader + position) & 3] |= 1 << card
    return full[0], full[1], full[2], full[3]


def _pair(values: Sequence[int], name: str) -> tuple[int, int]:
    items = values[:]  # one copy out of the repeated field (iterating it is slower)
    if not items:
        return (0, 0)
    if len(items) != 2:
        raise StateInvalidError([f"{name} must hold two numbers"])
    return items[0], items[1]


def _decode(m: pb.MatchState, data: bytes) -> Decoded:
    if len(m.seed) != SEED_SIZE:
        raise StateInvalidError(["the deck seed has the wrong size"])
    rules = decode_rules(m.rule_preset, m.rule_overrides, m.match_target)
    contract = decode_contract(m.contract)
    trump = -1 if contract is None else contract.trump
    bids = _decode_bids(m.bids)
    calls = _decode_doubling_calls(m.doubling_calls)
    tricks, played, played_by_seat = _decode_tricks(m.tricks, trump)
    phase = PHASES[m.phase]
    trick = _cards(m.trick, "the trick")
    stock = _cards(m.stock, "the stock")
    elsewhere = played
    for card in (*trick, *stock):
        elsewhere |= 1 << card
    if m.revealed >= 0:
        elsewhere |= 1 << m.revealed
    hands = decode_owners(m.card_owners, elsewhere) if m.card_owners else (0, 0, 0, 0)
    full_hands = (0, 0, 0, 0)
    if phase is PLAYING or phase is ROUND_REVIEW:
        full_hands = _full_hands(hands, played_by_seat, m.leader, trick)
    declarations = EMPTY_DECLARATIONS
    if m.declarations:
        declarations = _decode_declarations(m.declarations, full_hands, trump, rules)
    baloot_seat = -1
    if trump >= 0:
        baloot = baloot_mask(trump)  # has_baloot, with the mask looked up once
        for seat in range(4):
            if full_hands[seat] & baloot == baloot:
                baloot_seat = seat
    violations: tuple[Violation, ...] = ()
    if m.breaches:
        if not rules.illegal_moves_allowed or full_hands == (0, 0, 0, 0):
            raise StateInvalidError(["only a round in table play keeps breaches"])
        violations = _decode_breaches(
            m.breaches, tricks, m.leader, trick, full_hands, hands, contract, rules, m.sawa_seat
        )
    elif m.violations:
        violations = _decode_violations(m.violations)
        if rules.illegal_moves_allowed and full_hands != (0, 0, 0, 0):
            # A token of an earlier version: its list is rebuilt as the breaches are, and so
            # checked (a breach on a legal card would make a Qayd on it right).
            violations = _decode_breaches(
                _breach_bytes(violations),
                tricks,
                m.leader,
                trick,
                full_hands,
                hands,
                contract,
                rules,
                m.sawa_seat,
            )
    last_score = None
    last_qayd = _decode_verdict(m.last_qayd) if m.HasField("last_qayd") else None
    if m.HasField("last_round"):
        rules_key = (m.rule_preset, m.rule_overrides, m.match_target)
        last_score = _score(m.last_round.SerializeToString(), rules_key, last_qayd)
    # State._make takes the values in field order: calling State(...) with 35 keywords
    # builds a keyword dictionary and binds it in Python, which cost a fifth of decoding.
    # The round-trip tests compare every decoded state with the one encoded.
    state = State._make(
        (
            rules,  # rules
            phase,  # phase
            m.dealer,  # dealer
            m.hand_number,  # hand_number
            _pair(m.match_scores, "match scores"),  # match_scores
            m.turn,  # turn
            hands,  # hands
            stock,  # stock
            m.revealed,  # revealed
            m.buy_card,  # buy_card
            m.bidding_round,  # bidding_round
            BID_STAGES[m.bid_stage],  # bid_stage
            _seat_tuple(m.to_ask, "the seats to ask"),  # to_ask
            bids,  # bids
            m.pending_seat,  # pending_seat
            m.pending_suit,  # pending_suit
            m.pending_ashkal,  # pending_ashkal
            contract,  # contract
            DOUBLING_STEPS[m.doubling_step],  # doubling_step
            calls,  # doubling_calls
            not m.buyer_waiting,  # buyer_completed
            full_hands,  # full_hands
            m.leader,  # leader
            trick,  # trick
            m.akka,  # akka
            tricks,  # tricks
            played,  # played
            _pair(m.abnat, "abnat"),  # abnat
            declarations,  # declarations
            m.project_team,  # project_team
            baloot_seat,  # baloot_seat
            m.baloot_announced,  # baloot_announced
            m.sawa_seat,  # sawa_seat
            last_score,  # last_score
            m.winner,  # winner
            violations,  # violations
            last_qayd,  # last_qayd
            m.rounds_scored,  # rounds_scored
        )
    )
    if m.board_seed and (len(m.board_seed) != 32 or not m.board_set):
        raise StateInvalidError(["the board set's seed is malformed"])
    if m.dealing > DEALING_VOID:
        raise StateInvalidError([f"dealing {m.dealing} is not one of 0 to {DEALING_VOID}"])
    if m.redealt_by > 4:
        raise StateInvalidError(["redealt_by must be a seat plus one, or 0"])
    if m.scored_at_hand > m.hand_number or m.rounds_scored > m.hand_number:
        raise StateInvalidError(["more hands scored than dealt"])
    return Decoded(state, bytes(m.seed), m.version, data, m)


# The parts of a state that stay the same over many calls (the bids and doubling calls for a
# whole round, the completed tricks for four plays) are decoded once per distinct encoding.
# The results are immutable, so sharing them between states is safe.


@lru_cache(maxsize=4096)
def _decode_bids(raw: bytes) -> tuple[BidRecord, ...]:
    if len(raw) % 3:
        raise StateInvalidError(["bids are truncated"])
    bids = []
    for i in range(0, len(raw), 3):
        seat_round, kind, suit = raw[i], raw[i + 1], raw[i + 2]
        bid = Bid(BID_KINDS[kind], suit - 1)
        if not -1 <= bid.suit <= 3 or seat_round >> 2 not in (1, 2):
            raise StateInvalidError(["a bid is out of range"])
        bids.append(BidRecord(seat_round & 3, bid, seat_round >> 2))
    return tuple(bids)


@lru_cache(maxsize=1024)
def _decode_doubling_calls(raw: bytes) -> tuple[DoublingRecord, ...]:
    if len(raw) % 2:
        raise StateInvalidError(["doubling calls are truncated"])
    calls = []
    for i in range(0, len(raw), 2):
        seat, packed = raw[i], raw[i + 1]
        if seat > 3:
            raise StateInvalidError(["a doubling call is out of range"])
        calls.append(DoublingRecord(seat, Doubling(CALLS[packed >> 2], MODES[packed & 3])))
    return tuple(calls)


@lru_cache(maxsize=8192)
def _decode_tricks(
    raw: bytes, trump: int
) -> tuple[tuple[TrickRecord, ...], int, tuple[int, int, int, int]]:
    """The completed tricks, the mask of their cards, and the cards each seat played in them."""
    if len(raw) % 5:
        raise StateInvalidError(["tricks are truncated"])
    if raw and max(raw) > 31:
        raise StateInvalidError(["a trick holds a card out of range"])
    tricks = []
    played = 0
    by_seat = [0, 0, 0, 0]
    for i in range(0, len(raw), 5):
        leader = raw[i]
        if leader > 3:
            raise StateInvalidError(["a trick leader is out of range"])
        cards = (raw[i + 1], raw[i + 2], raw[i + 3], raw[i + 4])
        # The winner of a trick leads the next one; only the last one is worked out.
        if i + 5 < len(raw):
            winner = raw[i + 5]
        else:
            winner = (leader + trick_winner_index(cards, trump)) & 3
        tricks.append(TrickRecord(leader, cards, winner))
        for position, card in enumerate(cards):
            bit = 1 << card
            played |= bit
            by_seat[(leader + position) & 3] |= bit
    return tuple(tricks), played, (by_seat[0], by_seat[1], by_seat[2], by_seat[3])


@lru_cache(maxsize=1024)
def _decode_declarations(
    raw: bytes, full_hands: tuple[int, int, int, int], trump: int, rules: RuleSet
) -> tuple[Declaration | None, ...]:
    declarations: list[Declaration | None] = list(EMPTY_DECLARATIONS)
    i = 0
    while i < len(raw):
        seat, count = raw[i], raw[i + 1]
        kinds = tuple(PROJECT_KINDS[k] for k in raw[i + 2 : i + 2 + count])
        if seat > 3 or len(kinds) != count or declarations[seat] is not None:
            raise StateInvalidError(["a declaration is malformed"])
        projects = projects_for_declaration(full_hands[seat], kinds, trump, rules)
        declarations[seat] = Declaration(kinds, projects)
        i += 2 + count
    return tuple(declarations)


@lru_cache(maxsize=4096)
def _score(
    last_round: bytes, rules_key: tuple[int, bytes, int], qayd: QaydVerdict | None = None
) -> RoundScore:
    """The last round's breakdown, recomputed from its facts (cached by their bytes)."""
    last = pb.LastRound.FromString(last_round)
    rules = decode_rules(*rules_key)
    raw = last.projects
    if len(raw) % 3 or len(raw) // 3 != len(last.project_cards):
        raise StateInvalidError(["the last round's projects are malformed"])
    projects = tuple(
        AwardedProject(
            raw[i],
            PROJECT_KINDS[raw[i + 1]],
            seat=None if raw[i + 2] == 0 else raw[i + 2] - 1,
            cards=last.project_cards[i // 3],
        )
        for i in range(0, len(raw), 3)
    )
    facts = RoundFacts(
        contract=CONTRACT_SUN if last.contract_type == 1 else CONTRACT_HOKM,
        buyer_team=last.buyer_team,
        card_abnat=_pair(last.card_abnat, "last card abnat"),
        tricks_won=_pair(last.tricks_won, "last tricks won"),
        projects=projects,
        baloot_teams=tuple(last.baloot_teams),
        multiplier=last.multiplier,
        gahwa=last.gahwa,
        reverse_kaboot=last.reverse_kaboot,
    )
    if qayd is not None:
        # A hand a verdict ended: its facts are those of the tricks played (§A.14).
        return penalty_score(facts, rules, qayd)
    return score_round(facts, rules)


CACHES: Final = {
    "rules_enc": encode_rules,
    "rules_dec": decode_rules,
    "contract_dec": decode_contract,
    "bids_enc": _encode_bids,
    "doubles_enc": _encode_doubling_calls,
    "tricks_enc": _encode_tricks,
    "last_round_enc": _last_round_part,
    "bids_dec": _decode_bids,
    "doubles_dec": _decode_doubling_calls,
    "tricks_dec": _decode_tricks,
    "declared_dec": _decode_declarations,
    "last_score": _score,
}
"""The bounded caches of this module, by their metric label (``server/caches.py``)."""
