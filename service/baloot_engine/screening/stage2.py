"""Stage 2 of the screen: the full fair-play statistic and the evidence on a flagged set.

For a set whose seat or partnership stage 1 flagged, the unit (:func:`stage2_unit`) runs

* the fair-play report (:func:`baloot_engine.analysis.fairplay.fair_play`, its five states of
  knowledge and its calibrated thresholds) over the set's records (at most
  :data:`~baloot_engine.analysis.fairplay.MAX_RECORDS`), for the flagged seats;
* the analysis of the flagged seats' decisions at :data:`EVIDENCE_BUDGET`, from which the
  decisions that gained most on the real deal over what the seat could know are listed
  (:data:`EVIDENCE_DECISIONS` cards and as many bids and calls), each with every alternative's
  fair and hindsight values and the round's deal (its deck order), what a referee reads;
* the minimum sample each verdict rests on, and whether the set reached it.

The output is one JSON document (keys sorted), a pure function of the set's records, the
groups, the seed and the versions (``key``: what a re-run compares to skip it).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Any, Final, NamedTuple

from baloot_engine.analysis import analyze
from baloot_engine.analysis.budget import Budget
from baloot_engine.analysis.core import Decision, DecisionKind
from baloot_engine.analysis.export import decision_dict, fairplay_rows
from baloot_engine.analysis.fairplay import (
    DEFAULT_WORLDS,
    MAX_FAIR_LOSS,
    MAX_RECORDS,
    MIN_DECISIONS,
    MIN_GAIN_DECISIONS,
    FairPlayReport,
    fair_play,
)
from baloot_engine.rules.record import RecordedRound
from baloot_engine.rules.state import State
from baloot_engine.screening.stage1 import decision_gain, stamp
from baloot_engine.screening.stats import MIN_CALLS, MIN_CARDS

EVIDENCE_BUDGET: Final = Budget(worlds=4, call_deals=16)
"""The analysis budget of the evidence (the QUICK depth)."""
EVIDENCE_DECISIONS: Final = 10
"""The decisions listed per kind (cards; bids and calls): those that gained most."""


class Stage2Job(NamedTuple):
    """A flagged set: its name, the flagged groups, its records (name, bytes), the seed and
    the fair-play worlds per decision (None: the report's default)."""

    set_name: str
    groups: tuple[str, ...]
    records: tuple[tuple[str, bytes], ...]
    seed: int
    worlds: int | None

    @property
    def key(self) -> str:
        digest = hashlib.sha256()
        for name, data in self.records:
            digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
        digest.update(",".join(self.groups).encode())
        digest.update(json.dumps(stamp(EVIDENCE_BUDGET, self.seed), sort_keys=True).encode())
        digest.update(str(self.worlds).encode())
        return digest.hexdigest()

    @property
    def file_name(self) -> str:
        return "root" if self.set_name in ("", ".") else self.set_name.replace("/", "__")


def report_dict(report: FairPlayReport) -> list[dict[str, Any]]:
    """The fair-play report's rows as plain data, every fraction to 4 digits."""
    return fairplay_rows(report, digits=4)


def _evidence(
    name: str, start: State, rounds: Sequence[RecordedRound], seats: Sequence[int], seed: int
) -> list[dict[str, Any]]:
    found = []
    for item in analyze(start, rounds, seats=seats, budget=EVIDENCE_BUDGET, seed=seed):
        if not isinstance(item, Decision):
            continue
        gained = decision_gain(item)
        if gained is None:
            continue
        entry = decision_dict(item)
        entry["record"] = name
        entry["gain"] = round(gained[0], 4)
        entry["right_only_with_hidden_knowledge"] = gained[2]
        entry["deal"] = list(rounds[item.round_index].deck)
        found.append(entry)
    return found


def stage2_unit(job: Stage2Job, load: Callable[[bytes], Any]) -> str:
    """The stage-2 document of a flagged set (JSON)."""
    seats = sorted({int(s) for group in job.groups for s in group.split(",")})
    records = [(name, *load(data)) for name, data in job.records[:MAX_RECORDS]]
    report: FairPlayReport | None = None
    for item in fair_play(
        [(start, rounds) for _, start, rounds in records],
        seats=seats,
        worlds=job.worlds or DEFAULT_WORLDS,
        seed=job.seed,
    ):
        if isinstance(item, FairPlayReport):
            report = item
    assert report is not None
    decisions: list[dict[str, Any]] = []
    for name, start, rounds in records:
        decisions.extend(_evidence(name, start, rounds, seats, job.seed))
    cards = [d for d in decisions if d["kind"] == DecisionKind.CARD.value]
    calls = [d for d in decisions if d["kind"] != DecisionKind.CARD.value]

    def top(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        items = sorted(
            items, key=lambda d: (-d["gain"], d["record"], d["round"], d["action_index"])
        )
        return items[:EVIDENCE_DECISIONS]

    document = {
        "key": job.key,
        "set": job.set_name,
        "groups": list(job.groups),
        "records": [name for name, _ in job.records],
        "records_read": len(records),
        "stamp": stamp(EVIDENCE_BUDGET, job.seed),
        "fair_play": report_dict(report),
        "evidence": {"cards": top(cards), "bids_and_calls": top(calls)},
        "minimum_sample": {
            "fair_play_telling_decisions": MIN_DECISIONS,
            "fair_play_gain_decisions": MIN_GAIN_DECISIONS,
            "fair_play_max_fair_loss": MAX_FAIR_LOSS,
            "screen_card_decisions": MIN_CARDS,
            "screen_call_decisions": MIN_CALLS,
            "card_decisions_here": {str(s): sum(1 for d in cards if d["seat"] == s) for s in seats},
            "call_decisions_here": {str(s): sum(1 for d in calls if d["seat"] == s) for s in seats},
        },
    }
    return json.dumps(document, sort_keys=True, ensure_ascii=False, indent=1) + "\n"


__all__ = ["EVIDENCE_BUDGET", "EVIDENCE_DECISIONS", "Stage2Job", "report_dict", "stage2_unit"]
