"""The pure rules core: cards, rule variants, match state, legality, scoring.

Nothing in this package imports gRPC, protobuf, structlog or prometheus. The names below are
its public face: a match is created with :func:`new_match`, a seat's choices are
:func:`legal_actions`, :func:`apply` plays one of them and returns the next :class:`State`
with its :class:`Event` values, :func:`observe` is what a seat may know, and
:func:`score_round` scores a finished round from its :class:`RoundFacts`. Refusals are
:class:`RuleError` values with a stable reason (:mod:`~baloot_engine.rules.errors`). The
modules beside this one hold the details (card tables, the phase machine, the validator).
"""

from __future__ import annotations

from baloot_engine.rules.actions import (
    Action,
    Bid,
    BidKind,
    CallQayd,
    ClaimSawa,
    Deal,
    Declare,
    Doubling,
    DoublingCall,
    Event,
    EventKind,
    Play,
    QaydCategory,
    QaydVerdict,
    RedealReason,
)
from baloot_engine.rules.contract import Contract, ContractType, PlayMode
from baloot_engine.rules.errors import ErrorKind, RuleError
from baloot_engine.rules.facts import AwardedProject, RoundFacts
from baloot_engine.rules.game import (
    BETWEEN_ROUNDS,
    apply,
    bot_turn,
    close_review,
    legal_actions,
    new_match,
)
from baloot_engine.rules.observation import Observation, observe
from baloot_engine.rules.projects import ProjectKind
from baloot_engine.rules.ruleset import FEDERATION, KAMMELNA, SEEDS, RuleSet, RuleSetError
from baloot_engine.rules.scoring import Outcome, RoundScore, score_round
from baloot_engine.rules.state import LIVE_PHASES, Phase, State, TrickRecord, tricks_won
from baloot_engine.rules.validation import validate

__all__ = [
    "BETWEEN_ROUNDS",
    "FEDERATION",
    "KAMMELNA",
    "LIVE_PHASES",
    "SEEDS",
    "Action",
    "AwardedProject",
    "Bid",
    "BidKind",
    "CallQayd",
    "ClaimSawa",
    "Contract",
    "ContractType",
    "Deal",
    "Declare",
    "Doubling",
    "DoublingCall",
    "ErrorKind",
    "Event",
    "EventKind",
    "Observation",
    "Outcome",
    "Phase",
    "Play",
    "PlayMode",
    "ProjectKind",
    "QaydCategory",
    "QaydVerdict",
    "RedealReason",
    "RoundFacts",
    "RoundScore",
    "RuleError",
    "RuleSet",
    "RuleSetError",
    "State",
    "TrickRecord",
    "apply",
    "bot_turn",
    "close_review",
    "legal_actions",
    "new_match",
    "observe",
    "score_round",
    "tricks_won",
    "validate",
]
