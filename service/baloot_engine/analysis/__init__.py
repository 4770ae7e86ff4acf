"""Round analysis: what each decision of a match record cost, from what the seat could know
and in hindsight (:mod:`~baloot_engine.analysis.core`), in sentences people can read
(:mod:`~baloot_engine.analysis.explain`).

Pure Python like the rules core, the solver and the bots it builds on; the gRPC layer streams
it (``AnalyzeRecord``) and ``baloot-analyze`` prints it.
"""

from baloot_engine.analysis.budget import (
    BUDGETS,
    DEFAULT_DEPTH,
    MAX_WORLDS,
    Budget,
    Depth,
    budget_of,
)
from baloot_engine.analysis.core import (
    Alternative,
    AnalysisStoppedError,
    Decision,
    DecisionKind,
    MatchSummary,
    ParFigures,
    Progress,
    Report,
    RoundSummary,
    SeatFigures,
    Value,
    analyze,
    key_mistakes,
)
from baloot_engine.analysis.explain import action_name, card_name, explain

__all__ = [
    "BUDGETS",
    "DEFAULT_DEPTH",
    "MAX_WORLDS",
    "Alternative",
    "AnalysisStoppedError",
    "Budget",
    "Decision",
    "DecisionKind",
    "Depth",
    "MatchSummary",
    "ParFigures",
    "Progress",
    "Report",
    "RoundSummary",
    "SeatFigures",
    "Value",
    "action_name",
    "analyze",
    "budget_of",
    "card_name",
    "explain",
    "key_mistakes",
]
