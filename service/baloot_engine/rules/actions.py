"""Actions a seat can take and the events applying them causes.

Actions are frozen, hashable values with a repr that evaluates back to themselves, so a
failing test prints a runnable reproduction. ``sort_key`` gives the documented order in
which :func:`baloot_engine.rules.game.legal_actions` lists them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

from baloot_engine.rules.cards import SUIT_LETTERS, format_card
from baloot_engine.rules.contract import Contract, PlayMode
from baloot_engine.rules.projects import Project, ProjectKind
from baloot_engine.rules.scoring import RoundScore


class BidKind(Enum):
    """What a player may say during bidding (R5-R12)."""

    PASS = "pass"  # بس in round 1, ولا in round 2
    HOKM = "hokm"  # حكم (round 1: revealed suit; round 2: another suit, حكم ثاني)
    SUN = "sun"  # صن
    ASHKAL = "ashkal"  # أشكل
    CONFIRM_HOKM = "confirm_hokm"  # the Hokm bidder keeps his Hokm (R6)
    SWITCH_TO_SUN = "switch_to_sun"  # the Hokm bidder turns it into Sun (R6)
    CLAIM_SUN = "claim_sun"  # «قبلك»: claim a Sun before the player who said it (R11)
    KAWESH = "kawesh"  # كوش: cancel the hand for a worthless five-card hand (R12)


class DoublingCall(Enum):
    """What a player may say in the doubling chain (R13-R15)."""

    DOUBLE = "double"  # دبل ×2
    TRIPLE = "triple"  # تربل ×3
    FOUR = "four"  # فور ×4
    GAHWA = "gahwa"  # قهوة: the round decides the match
    DECLINE = "decline"  # no raise at this step
    CHOOSE_MODE = "choose_mode"  # the buyer names open/closed (closed_chooser = buyer)


_BID_ORDER = {kind: i for i, kind in enumerate(BidKind)}
_CALL_ORDER = {call: i for i, call in enumerate(DoublingCall)}


@dataclass(frozen=True, slots=True)
class Deal:
    """Deal a round from ``deck``: 32 distinct cards in the dealing order of R4."""

    deck: tuple[int, ...]

    def sort_key(self) -> tuple[int, ...]:
        return (0,)

    def __str__(self) -> str:
        return "deal"


@dataclass(frozen=True, slots=True)
class Bid:
    """A bid; ``suit`` is the named trump of a round-2 Hokm (or its confirmation), else -1."""

    kind: BidKind
    suit: int = -1

    def sort_key(self) -> tuple[int, ...]:
        return (1, _BID_ORDER[self.kind], self.suit)

    def __str__(self) -> str:
        suit = f" {SUIT_LETTERS[self.suit]}" if self.suit >= 0 else ""
        return f"{self.kind.value}{suit}"


@dataclass(frozen=True, slots=True)
class Doubling:
    """A doubling call; ``mode`` is required with DOUBLE/FOUR (by the doubler) and CHOOSE_MODE."""

    call: DoublingCall
    mode: PlayMode | None = None

    def sort_key(self) -> tuple[int, ...]:
        mode = -1 if self.mode is None else (0 if self.mode is PlayMode.OPEN else 1)
        return (2, _CALL_ORDER[self.call], mode)

    def __str__(self) -> str:
        return self.call.value + (f" {self.mode.value}" if self.mode else "")


@dataclass(frozen=True, slots=True)
class Declare:
    """Declare project types during the first trick (R28); the engine picks the cards."""

    kinds: tuple[ProjectKind, ...]

    def sort_key(self) -> tuple[int, ...]:
        return (3, len(self.kinds), *sorted(_kind_index(k) for k in self.kinds))

    def __str__(self) -> str:
        return "declare " + "+".join(k.value for k in self.kinds)


@dataclass(frozen=True, slots=True)
class Play:
    """Play a card; ``akka`` calls the led card the boss of its suit (R20)."""

    card: int
    akka: bool = False

    def sort_key(self) -> tuple[int, ...]:
        return (4, self.card, int(self.akka))

    def __str__(self) -> str:
        return format_card(self.card) + (" akka" if self.akka else "")


@dataclass(frozen=True, slots=True)
class ClaimSawa:
    """سوا: the player on lead claims every remaining trick for his team (R46)."""

    def sort_key(self) -> tuple[int, ...]:
        return (5,)

    def __str__(self) -> str:
        return "sawa"


class QaydCategory(Enum):
    """The rule a card (or a claim) broke, as a Qayd call names it (R45, §A.14)."""

    REVOKE = "revoke"  # قاطع: did not follow the suit led (R18)
    NO_TRUMP = "no_trump"  # ما دق بحكم: did not trump while void in the suit led (R19)
    NO_OVERTRUMP = "no_overtrump"  # ما كبر بحكم: did not play a higher trump (R19, R21)
    CLOSED_TRUMP_LEAD = "closed_trump_lead"  # ربع في الدبل: led trump in a closed game (R22)
    FALSE_AKKA = "false_akka"  # أكة خاطئة: called Akka on a card that is not the boss (R20)
    FALSE_SAWA = "false_sawa"  # سوا خطأ: claimed a Sawa the team could not make (R46)


_CATEGORY_ORDER = {category: i for i, category in enumerate(QaydCategory)}


@dataclass(frozen=True, slots=True)
class CallQayd:
    """قيد: accuse ``accused`` of breaking a rule with ``card`` in trick ``trick`` (R45).

    ``trick`` is 1-based; ``card`` is -1 only for a false Sawa (a claim has no card).
    ``category`` is optional: a call that names one is right only for that rule. A call is
    never listed among the legal actions (that would tell who broke a rule).
    """

    accused: int
    trick: int
    card: int = -1
    category: QaydCategory | None = None

    def sort_key(self) -> tuple[int, ...]:
        category = -1 if self.category is None else _CATEGORY_ORDER[self.category]
        return (6, self.accused, self.trick, self.card, category)

    def __str__(self) -> str:
        card = f" {format_card(self.card)}" if self.card >= 0 else ""
        category = f" {self.category.value}" if self.category else ""
        return f"qayd seat {self.accused} trick {self.trick}{card}{category}"


class QaydVerdict(NamedTuple):
    """A judged Qayd call (or a false Sawa judged at once), public once judged.

    ``caller`` is -1 when the engine judged a false Sawa by itself (``false_sawa =
    loses_hand`` outside table play). ``category`` is the rule broken when the call is
    ``correct``, else the category the call named (None if it named none). ``evidence`` is
    the mask of the cards that prove or disprove it (the accused's cards of the suit led or
    of trump at the time, the higher cards still out for an Akka, the opponents' cards for a
    Sawa). ``winner_team`` is the team that wins the round.
    """

    caller: int
    accused: int
    trick: int
    card: int
    category: QaydCategory | None
    correct: bool
    evidence: int
    winner_team: int


Action = Deal | Bid | Doubling | Declare | Play | ClaimSawa | CallQayd


_KIND_INDEX = {kind: i for i, kind in enumerate(ProjectKind)}


def _kind_index(kind: ProjectKind) -> int:
    return _KIND_INDEX[kind]


class EventKind(Enum):
    """What happened as the result of an action."""

    CARDS_DEALT = "cards_dealt"
    BID_PLACED = "bid_placed"
    CONTRACT_FIXED = "contract_fixed"
    REDEAL = "redeal"
    DOUBLING_CALLED = "doubling_called"
    DOUBLING_ENDED = "doubling_ended"
    PROJECTS_DECLARED = "projects_declared"
    PROJECTS_REVEALED = "projects_revealed"
    CARD_PLAYED = "card_played"
    AKKA_CALLED = "akka_called"
    BALOOT_ANNOUNCED = "baloot_announced"
    TRICK_WON = "trick_won"
    SAWA_CLAIMED = "sawa_claimed"
    ROUND_SCORED = "round_scored"
    MATCH_WON = "match_won"
    # A finished hand's deck shown (records); the API adds it, since the deck order is
    # not part of the state: the core never emits it.
    ROUND_REVEALED = "round_revealed"
    QAYD_JUDGED = "qayd_judged"
    REVIEW_OPENED = "review_opened"


class RedealReason(Enum):
    """Why a round was cancelled and dealt again, carried by the REDEAL event: the one place
    that says it (the API's ``RedealEvent.reason``, the ``reason`` label of the metric
    ``baloot_redeals_total``: these values)."""

    ALL_PASSED = "all_passed"  # all four passed twice (R9)
    KAWESH = "kawesh"  # a seat called Kawesh (R12)


class Event(NamedTuple):
    """One thing an action caused. Fields not relevant to ``kind`` keep their defaults.

    A NamedTuple rather than a dataclass: events are built on the hot path of play.

    * CARDS_DEALT: ``cards`` = hand sizes after the deal step; ``card`` = revealed card.
    * BID_PLACED: ``seat``, ``bid``.  CONTRACT_FIXED: ``seat`` = buyer, ``contract``.
    * REDEAL: ``seat`` = the next dealer, ``redeal`` = why (:class:`RedealReason`; a Kawesh's
      caller is the seat of the BID_PLACED event before it).
    * DOUBLING_CALLED: ``seat``, ``doubling``.  DOUBLING_ENDED: ``contract`` (final).
    * PROJECTS_DECLARED: ``seat``, ``kinds`` (types only; cards stay hidden).
    * PROJECTS_REVEALED: ``team`` = the team whose projects score, ``projects`` (seat, project).
    * CARD_PLAYED: ``seat``, ``card``.  AKKA_CALLED: ``seat``, ``card``.
    * BALOOT_ANNOUNCED: ``seat``, ``team``.  TRICK_WON: ``seat`` = winner, ``team``,
      ``cards`` = the four cards in play order, ``points`` = abnat of the trick (the
      8th trick's include the 10 for the last trick, R33).
    * SAWA_CLAIMED: ``seat``, ``team``.  ROUND_SCORED: ``score``.  MATCH_WON: ``team``.
    * QAYD_JUDGED: ``seat`` = the caller (-1: the engine), ``team`` = the round's winner
      (-1: play goes on), ``qayd`` = the verdict.  REVIEW_OPENED: nothing (table play).
    """

    kind: EventKind
    seat: int = -1
    team: int = -1
    card: int = -1
    cards: tuple[int, ...] = ()
    points: int = 0
    bid: Bid | None = None
    doubling: Doubling | None = None
    contract: Contract | None = None
    kinds: tuple[ProjectKind, ...] = ()
    projects: tuple[tuple[int, Project], ...] = ()
    score: RoundScore | None = None
    redeal: RedealReason | None = None
    qayd: QaydVerdict | None = None
