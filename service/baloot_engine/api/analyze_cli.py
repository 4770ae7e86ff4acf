"""``baloot-analyze``: the round analysis of a match record file, as a table.

    baloot-analyze record.json [--depth quick|standard|deep] [--worlds N] [--seed S]
                               [--seats 0,1,2,3] [--rounds 0,2] [--lang en|ar] [--json]

The record is the JSON form of a ``MatchRecord`` (what the clients' ``save_record`` writes).
It is verified first: a record that does not replay is refused with its divergence (exit 2).
The report lists, per round, its contract, its par and its key mistakes with the better
choice, then each seat's decisions, accuracy and mean losses over the match, in English or in
Arabic (``--lang ar``: every word of the report). Rounds are numbered from 1, as a score sheet
numbers them (``--rounds 1,3`` analyses the first and the third; the JSON lines keep the
record's indexes, from 0, as AnalyzeRecord does). A progress bar runs on standard error while
the analysis works (when it is a terminal, or with ``--progress``). ``--json`` prints every
report as one JSON object a line instead.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final, TextIO

from google.protobuf import json_format

from baloot.v1 import records_pb2
from baloot_engine.analysis import (
    Decision,
    Depth,
    MatchSummary,
    Progress,
    RoundSummary,
    SeatFigures,
    action_name,
    analyze,
    budget_of,
    explain,
)
from baloot_engine.analysis.explain import Language
from baloot_engine.analysis.export import report_dict
from baloot_engine.api.analysis import RecordRefusedError, prepare
from baloot_engine.rules import Contract
from baloot_engine.rules.cards import SUIT_SYMBOLS

_BAR = 30

# The report's words, by language: the Arabic is the table's (docs/rules.md's glossary): نقطة for
# a game point, بنط for a card point (abnat), قيد، صن، حكم.
_WORDS: Final[dict[Language, dict[str, str]]] = {
    "en": {
        "round": "Round",
        "scored": "scored",
        "par": "par",
        "seat": "seat",
        "action": "action",
        "fair": "fair",
        "hindsight": "hindsight",
        "match": "Match: {rounds} rounds analysed; key mistakes:",
        "sun": "Sun",
        "hokm": "Hokm",
        "table": "  seat  decisions  accuracy  mean fair loss  (card points)  mean hindsight loss",
        "decisions": "decisions",
    },
    "ar": {
        "round": "الجولة",
        "scored": "النتيجة",
        "par": "أفضل نتيجة ممكنة",
        "seat": "المقعد",
        "action": "الحركة",
        "fair": "العادلة",
        "hindsight": "بالأوراق المكشوفة",
        "match": "الصكة: الجولات المحللة {rounds}؛ أبرز الأخطاء:",
        "sun": "صن",
        "hokm": "حكم",
        "seat_line": (
            "  المقعد {seat}: القرارات {decisions}، الدقة {accuracy:.0%}، متوسط الخسارة العادلة "
            "{fair:.2f} نقطة ({points:.2f} بنط)، وبالأوراق المكشوفة {hindsight:.2f} نقطة"
        ),
        "decisions": "قرار",
    },
}


def _numbers(text: str | None) -> list[int] | None:
    if text is None:
        return None
    return [int(part) for part in text.split(",") if part.strip()]


class ProgressBar:
    """A one-line bar on a stream, redrawn at most ten times a second."""

    def __init__(self, stream: TextIO, shown: bool, unit: str = "decisions") -> None:
        self.stream = stream
        self.shown = shown
        self.unit = unit
        self.started = time.monotonic()
        self.drawn = 0.0

    def update(self, done: int, total: int) -> None:
        now = time.monotonic()
        if not self.shown or (now - self.drawn < 0.1 and done < total):
            return
        self.drawn = now
        filled = _BAR * done // total if total else _BAR
        elapsed = now - self.started
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (_BAR - filled)}] {done}/{total} {self.unit} {elapsed:5.1f}s"
        )
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


def _contract_text(contract: Contract | None, language: Language) -> str:
    if contract is None:
        return "-"
    words = _WORDS[language]
    if contract.trump < 0:
        name = words["sun"]
    else:
        name = f"{words['hokm']} {SUIT_SYMBOLS[contract.trump]}"
    sign = "×" if language == "ar" else "x"
    times = f" {sign}{contract.multiplier}" if contract.multiplier > 1 else ""
    return f"{name}{times} ({words['seat']} {contract.buyer})"


def _mistake_rows(mistakes: Sequence[Decision], language: Language) -> list[str]:
    words = _WORDS[language]
    rows = []
    for rank, decision in enumerate(mistakes, start=1):
        taken = action_name(decision.action, language)
        better = action_name(decision.best_action, language)
        hindsight = "-" if decision.hindsight_loss is None else f"{decision.hindsight_loss:.1f}"
        rows.append(
            f"  {rank}. {words['seat']} {decision.seat}  {words['action']} "
            f"{decision.action_index:>2}  {taken:<14} -> {better:<14} "
            f"{words['fair']} -{decision.fair_loss:<6.1f} {words['hindsight']} -{hindsight}"
        )
        rows.append(f"     {explain(decision, language)}")
    return rows


def _seat_table(seats: Sequence[SeatFigures], language: Language) -> list[str]:
    words = _WORDS[language]
    if language == "ar":  # a sentence a seat: columns do not line up in a right-to-left line
        return [
            words["seat_line"].format(
                seat=s.seat,
                decisions=s.decisions,
                accuracy=s.accuracy,
                fair=s.mean_fair_loss,
                points=s.mean_fair_loss_points,
                hindsight=s.mean_hindsight_loss,
            )
            for s in seats
        ]
    rows = [words["table"]]
    for s in seats:
        rows.append(
            f"  {s.seat:>4}  {s.decisions:>9}  {s.accuracy:>7.0%}  {s.mean_fair_loss:>14.2f}  "
            f"{s.mean_fair_loss_points:>13.2f}  {s.mean_hindsight_loss:>19.2f}"
        )
    return rows


def _round_numbers(text: str | None) -> list[int] | None:
    """``--rounds``: round numbers from 1, as the report shows them, as the record's indexes."""
    numbers = _numbers(text)
    if numbers is None:
        return None
    if any(number < 1 for number in numbers):
        raise ValueError("--rounds numbers the rounds from 1, as the report does")
    return [number - 1 for number in numbers]


def main(argv: Sequence[str] | None = None) -> int:
    """Analyse a record file and print its report; 2 when the record is refused."""
    parser = argparse.ArgumentParser(
        prog="baloot-analyze", description="What each decision of a Baloot match record cost."
    )
    parser.add_argument("record", help="a MatchRecord in JSON")
    parser.add_argument("--depth", choices=[d.value for d in Depth], default="standard")
    parser.add_argument("--worlds", type=int, default=0, help="worlds per card decision")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seats", help="the seats to analyse, e.g. 0,2 (default: all)")
    parser.add_argument(
        "--rounds", help="the rounds to analyse, numbered from 1 as in the report (default: all)"
    )
    parser.add_argument("--lang", choices=["en", "ar"], default="en")
    parser.add_argument("--json", action="store_true", help="one JSON report a line")
    parser.add_argument("--progress", action="store_true", help="draw the bar even off a tty")
    args = parser.parse_args(argv)
    language: Language = "ar" if args.lang == "ar" else "en"
    try:
        text = Path(args.record).read_text(encoding="utf-8")
        record = json_format.Parse(text, records_pb2.MatchRecord())
        budget = budget_of(Depth(args.depth), args.worlds)
        round_indices = _round_numbers(args.rounds)
        start, rounds = prepare(record)
    except (OSError, json_format.ParseError, ValueError) as error:
        print(f"baloot-analyze: {error}", file=sys.stderr)
        return 2
    except RecordRefusedError as refused:
        print(f"baloot-analyze: {refused.reason}: {refused.message}", file=sys.stderr)
        return 2
    seats = _numbers(args.seats) or [0, 1, 2, 3]
    shown = args.progress or sys.stderr.isatty()
    bar = ProgressBar(sys.stderr, shown, _WORDS[language]["decisions"])
    out = sys.stdout
    words = _WORDS[language]
    reports = analyze(
        start,
        rounds,
        seats=seats,
        round_indices=round_indices,
        budget=budget,
        seed=args.seed,
    )
    for report in reports:
        if args.json and not isinstance(report, Progress):
            out.write(json.dumps(report_dict(report), ensure_ascii=False) + "\n")
        if isinstance(report, Progress):
            bar.update(report.done, report.total)
        elif args.json:
            continue
        elif isinstance(report, RoundSummary):
            par = report.par
            par_text = "-" if par is None else f"{par.score[0]}-{par.score[1]}"
            actual = "-" if par is None else f"{par.actual[0]}-{par.actual[1]}"
            out.write(
                f"{words['round']} {report.round_index + 1}: "
                f"{_contract_text(report.contract, language)}  "
                f"{words['scored']} {actual}  {words['par']} {par_text}\n"
            )
            out.write("\n".join(_mistake_rows(report.key_mistakes, language) or ["  -"]) + "\n")
        elif isinstance(report, MatchSummary):
            out.write("\n" + words["match"].format(rounds=report.rounds) + "\n")
            out.write("\n".join(_mistake_rows(report.key_mistakes, language) or ["  -"]) + "\n")
            out.write("\n".join(_seat_table(report.seats, language)) + "\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
