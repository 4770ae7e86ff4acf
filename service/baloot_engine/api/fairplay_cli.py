"""``baloot-fairplay``: the fair-play report of a set of match record files, as a table.

    baloot-fairplay records/*.json [--worlds N] [--seed S] [--seats 0,1,2,3] [--json]

Each record is the JSON form of a ``MatchRecord`` (what the clients' ``save_record`` writes):
finished matches of the same players in the same seats. Every record is verified first: one
that does not replay is refused with its divergence (exit 2). The table lists, per seat and
per partnership, the card decisions analysed, the mean fair loss, and for each hypothesis
(every hand seen, the partner's hand known, one opponent's hand known) the telling decisions,
the hits against those honest play gives, the z-score with its p-value, the mean hindsight
gain per decision with its score, the two combined into one score, and the verdict on it: a
statistic for a referee to look at, never proof (docs/fairplay.md). A progress bar runs on
standard error while it works (when it is a terminal, or with ``--progress``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from google.protobuf import json_format

from baloot.v1 import records_pb2
from baloot_engine.analysis.export import fairplay_rows
from baloot_engine.analysis.fairplay import (
    DEFAULT_WORLDS,
    MAX_FAIR_LOSS,
    MAX_RECORDS,
    MAX_WORLDS,
    MIN_DECISIONS,
    MIN_GAIN_DECISIONS,
    FairPlayReport,
    Progress,
    Row,
    fair_play,
)
from baloot_engine.api.analyze_cli import ProgressBar
from baloot_engine.api.fairplay import prepare_all
from baloot_engine.api.status import ApiError

_NAMES = {"all": "all hands", "partner": "partner's hand", "opponent": "one opponent's"}


def _who(row: Row) -> str:
    if len(row.seats) == 1:
        return f"seat {row.seats[0]}"
    return "seats " + "+".join(str(s) for s in row.seats)


def table(report: FairPlayReport) -> list[str]:
    """The report as lines of text."""
    title = (
        f"Fair play over {report.records} record(s); a verdict needs {MIN_DECISIONS} telling "
        f"decisions (z) or {MIN_GAIN_DECISIONS} decisions (gain z), and a fair loss of at most "
        f"{MAX_FAIR_LOSS:.1f} a decision."
    )
    header = (
        f"  {'who':<10} {'decisions':>9} {'fair loss':>9}  {'hypothesis':<15} {'telling':>7} "
        f"{'hits':>5} {'expected':>8} {'gain':>8} {'z':>6} {'p':>8} {'gain/dec':>8} "
        f"{'gain z':>6} {'score':>6}  verdict"
    )
    lines = [title, header]
    for row in report.rows:
        for i, found in enumerate(row.scores):
            who = _who(row) if i == 0 else ""
            decisions = f"{row.decisions:>9}" if i == 0 else " " * 9
            loss = f"{row.mean_fair_loss:>9.2f}" if i == 0 else " " * 9
            if not found.enough:
                verdict = (
                    "no verdict: play no better than chance"
                    if row.mean_fair_loss > MAX_FAIR_LOSS
                    else "too few decisions"
                )
            elif found.flagged:
                verdict = f"FLAGGED ({found.combined:.2f} >= {found.threshold:.2f})"
            else:
                verdict = "-"
            lines.append(
                f"  {who:<10} {decisions} {loss}  {_NAMES[found.hypothesis.value]:<15} "
                f"{found.telling:>7} {found.hits:>5} {found.expected:>8.1f} {found.gain:>8.1f} "
                f"{found.z:>6.2f} {found.p_value:>8.2g} {found.gain_mean:>8.2f} "
                f"{found.gain_z:>6.2f} {found.combined:>6.2f}  {verdict}"
            )
    lines.append(
        "A statistic for a referee to look at, never proof of cheating (docs/fairplay.md)."
    )
    return lines


def _as_dict(report: FairPlayReport) -> dict[str, object]:
    return {
        "records": report.records,
        "min_decisions": MIN_DECISIONS,
        "min_gain_decisions": MIN_GAIN_DECISIONS,
        "max_fair_loss": MAX_FAIR_LOSS,
        "rows": fairplay_rows(report),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Report on record files; 2 when a record is refused."""
    parser = argparse.ArgumentParser(
        prog="baloot-fairplay",
        description="Fair-play analysis of Baloot match records: play that only makes sense "
        "with hidden cards known.",
    )
    parser.add_argument("records", nargs="+", help="MatchRecord files in JSON")
    parser.add_argument(
        "--worlds", type=int, default=DEFAULT_WORLDS, help="worlds per decision and knowledge"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seats", help="the seats to report, e.g. 0,2 (default: all)")
    parser.add_argument("--json", action="store_true", help="the report as one JSON object")
    parser.add_argument("--progress", action="store_true", help="draw the bar even off a tty")
    args = parser.parse_args(argv)
    if len(args.records) > MAX_RECORDS:
        print(f"baloot-fairplay: at most {MAX_RECORDS} records at once", file=sys.stderr)
        return 2
    if not 1 <= args.worlds <= MAX_WORLDS:
        print(f"baloot-fairplay: worlds are 1-{MAX_WORLDS}", file=sys.stderr)
        return 2
    messages = []
    try:
        for name in args.records:
            text = Path(name).read_text(encoding="utf-8")
            messages.append(json_format.Parse(text, records_pb2.MatchRecord()))
        prepared = prepare_all(messages)
        seats = [int(s) for s in (args.seats or "0,1,2,3").split(",") if s.strip()]
    except (OSError, json_format.ParseError, ValueError) as error:
        print(f"baloot-fairplay: {error}", file=sys.stderr)
        return 2
    except ApiError as refused:
        print(f"baloot-fairplay: {refused.reason}: {refused.message}", file=sys.stderr)
        return 2
    bar = ProgressBar(sys.stderr, args.progress or sys.stderr.isatty())
    drawn = -1
    for report in fair_play(prepared, seats=seats, worlds=args.worlds, seed=args.seed):
        if isinstance(report, Progress):
            if report.done != drawn:  # a record's end repeats its last count
                drawn = report.done
                bar.update(report.done, report.total)
        elif args.json:
            sys.stdout.write(json.dumps(_as_dict(report)) + "\n")
        else:
            sys.stdout.write("\n".join(table(report)) + "\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
