"""An analysis as plain data (dicts of numbers and strings), for JSON output and comparisons."""

from __future__ import annotations

from typing import Any

from baloot_engine.analysis.core import (
    Decision,
    MatchSummary,
    ParFigures,
    Progress,
    Report,
    RoundSummary,
    SeatFigures,
    Value,
)
from baloot_engine.analysis.explain import LANGUAGES, action_name, explain
from baloot_engine.analysis.fairplay import FairPlayReport
from baloot_engine.rules.actions import Action, Bid, Doubling, Play


def action_dict(action: Action) -> dict[str, Any]:
    """An action by its kind and fields (a card by its index, 0-31)."""
    if isinstance(action, Play):
        return {"card": action.card, "akka": action.akka}
    if isinstance(action, Bid):
        return {"bid": action.kind.value, "suit": action.suit}
    if isinstance(action, Doubling):
        return {
            "call": action.call.value,
            "mode": None if action.mode is None else action.mode.value,
        }
    return {"action": type(action).__name__}


def _value(value: Value | None) -> dict[str, Any] | None:
    if value is None:
        return None
    return {"score": value.score, "points": value.points, "match_chance": value.match_chance}


def decision_dict(decision: Decision) -> dict[str, Any]:
    """A decision with its alternatives, losses and sentences."""
    return {
        "round": decision.round_index,
        "action_index": decision.action_index,
        "seat": decision.seat,
        "kind": decision.kind.value,
        "taken": decision.taken,
        "best_fair": decision.best_fair,
        "best_hindsight": decision.best_hindsight,
        "is_best": decision.is_best,
        "fair_loss": decision.fair_loss,
        "fair_loss_points": decision.fair_loss_points,
        "hindsight_loss": decision.hindsight_loss,
        "hindsight_loss_points": decision.hindsight_loss_points,
        "worlds": decision.worlds,
        "worse_in": decision.worse_in,
        "alternatives": [
            {
                "action": action_dict(a.action),
                "name": {lang: action_name(a.action, lang) for lang in LANGUAGES},
                "fair": _value(a.fair),
                "hindsight": _value(a.hindsight),
            }
            for a in decision.alternatives
        ],
        "explanation": {lang: explain(decision, lang) for lang in LANGUAGES},
    }


def _seats(seats: tuple[SeatFigures, ...]) -> list[dict[str, Any]]:
    return [
        {
            "seat": s.seat,
            "decisions": s.decisions,
            "best_choices": s.best_choices,
            "accuracy": round(s.accuracy, 4),
            "mean_fair_loss": s.mean_fair_loss,
            "mean_fair_loss_points": s.mean_fair_loss_points,
            "mean_hindsight_loss": s.mean_hindsight_loss,
        }
        for s in seats
    ]


def _par(par: ParFigures | None) -> dict[str, Any] | None:
    if par is None:
        return None
    return {
        "score": list(par.score),
        "points": list(par.points),
        "tricks": list(par.tricks),
        "actual": list(par.actual),
    }


def report_dict(report: Report) -> dict[str, Any]:
    """Any report of :func:`~baloot_engine.analysis.core.analyze` as plain data, with its type."""
    if isinstance(report, Progress):
        return {"type": "progress", "done": report.done, "total": report.total}
    if isinstance(report, Decision):
        return {"type": "decision", **decision_dict(report)}
    if isinstance(report, RoundSummary):
        contract = report.contract
        return {
            "type": "round",
            "round": report.round_index,
            "contract": None
            if contract is None
            else {
                "type": contract.type.value,
                "trump": contract.trump,
                "buyer": contract.buyer,
                "multiplier": contract.multiplier,
                "gahwa": contract.gahwa,
            },
            "key_mistakes": [decision_dict(d) for d in report.key_mistakes],
            "seats": _seats(report.seats),
            "par": _par(report.par),
        }
    assert isinstance(report, MatchSummary)
    return {
        "type": "match",
        "rounds": report.rounds,
        "key_mistakes": [decision_dict(d) for d in report.key_mistakes],
        "seats": _seats(report.seats),
    }


def fairplay_rows(report: FairPlayReport, digits: int | None = None) -> list[dict[str, Any]]:
    """A fair-play report's rows (per seat or partnership, every hypothesis's score); with
    ``digits``, every fraction rounded to that many (bytes that do not move with the last bits
    of a float sum)."""

    def number(value: float) -> float:
        return value if digits is None else round(value, digits)

    return [
        {
            "seats": list(row.seats),
            "decisions": row.decisions,
            "mean_fair_loss": number(row.mean_fair_loss),
            "scores": [
                {
                    "hypothesis": s.hypothesis.value,
                    "telling": s.telling,
                    "hits": s.hits,
                    "expected_hits": number(s.expected),
                    "gain": number(s.gain),
                    "z_score": number(s.z),
                    "p_value": number(s.p_value),
                    "enough": s.enough,
                    "flagged": s.flagged,
                    "score": number(s.combined),
                    "threshold": s.threshold,
                    "gain_decisions": s.gain_decisions,
                    "gain_mean": number(s.gain_mean),
                    "gain_z": number(s.gain_z),
                }
                for s in row.scores
            ],
        }
        for row in report.rows
    ]


__all__ = ["action_dict", "decision_dict", "fairplay_rows", "report_dict"]
