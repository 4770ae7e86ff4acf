"""The screen's summary: counts, flags and a chart of the scores (an SVG written by hand)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import escape

from baloot_engine.screening.stats import SCREEN_THRESHOLD, THRESHOLDS

if TYPE_CHECKING:
    from baloot_engine.screening.driver import Screen


def histogram_svg(
    series: dict[str, Sequence[float]],
    lines: dict[str, float],
    *,
    title: str,
    low: float = -5.0,
    high: float = 10.0,
    bins: int = 30,
) -> str:
    """A histogram of each series of scores (counts on a log scale) with vertical lines."""
    width, height, left, bottom, top, right = 640, 340, 50, 40, 30, 150
    plot_w, plot_h = width - left - right, height - top - bottom
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2"]
    step = (high - low) / bins
    counts: dict[str, list[int]] = {}
    for name, values in series.items():
        found = [0] * bins
        for value in values:
            index = min(bins - 1, max(0, int((value - low) / step)))
            found[index] += 1
        counts[name] = found
    peak = max([1, *(c for found in counts.values() for c in found)])
    scale = math.log10(peak + 1)

    def x(value: float) -> float:
        return left + (value - low) / (high - low) * plot_w

    def y(count: int) -> float:
        return top + plot_h - (math.log10(count + 1) / scale) * plot_h

    parts = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'font-family="sans-serif" font-size="11">'
        ),
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{left}" y="18" font-size="13">{escape(title)}</text>',
        (
            f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" '
            'stroke="black"/>'
        ),
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="black"/>',
    ]
    tick = low
    while tick <= high + 1e-9:
        parts.append(
            f'<text x="{x(tick):.1f}" y="{top + plot_h + 14}" text-anchor="middle">{tick:g}</text>'
        )
        tick += 2.5 if high - low > 10 else 1.0
    parts.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 6}" text-anchor="middle">score (z)</text>'
    )
    parts.append(
        f'<text x="12" y="{top + plot_h / 2:.1f}" transform="rotate(-90 12 {top + plot_h / 2:.1f})"'
        ' text-anchor="middle">sets (log scale)</text>'
    )
    for i, (name, found) in enumerate(counts.items()):
        colour = colours[i % len(colours)]
        points = []
        for b, count in enumerate(found):
            points.append(f"{x(low + b * step):.1f},{y(count):.1f}")
            points.append(f"{x(low + (b + 1) * step):.1f},{y(count):.1f}")
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" '
            f'points="{" ".join(points)}"/>'
        )
        parts.append(
            f'<text x="{left + plot_w + 8}" y="{top + 14 * (i + 1)}" fill="{colour}">'
            f"{escape(name)} ({len(series[name])})</text>"
        )
    for j, (name, value) in enumerate(lines.items()):
        parts.append(
            f'<line x1="{x(value):.1f}" y1="{top}" x2="{x(value):.1f}" y2="{top + plot_h}" '
            'stroke="gray" stroke-dasharray="4 3"/>'
        )
        parts.append(
            f'<text x="{x(value) + 3:.1f}" y="{top + 10 + 12 * j}" fill="gray">'
            f"{escape(name)}</text>"
        )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def roc_svg(curves: dict[str, Sequence[tuple[float, float]]], *, title: str) -> str:
    """ROC curves: false-positive rate (log scale, 1e-4 to 1) against detection (0 to 1)."""
    width, height, left, bottom, top, right = 560, 380, 55, 45, 30, 170
    plot_w, plot_h = width - left - right, height - top - bottom
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
    floor = 1e-4

    def x(rate: float) -> float:
        return left + (math.log10(max(rate, floor)) - math.log10(floor)) / 4.0 * plot_w

    def y(rate: float) -> float:
        return top + plot_h - rate * plot_h

    parts = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'font-family="sans-serif" font-size="11">'
        ),
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{left}" y="18" font-size="13">{escape(title)}</text>',
        (
            f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" '
            'stroke="black"/>'
        ),
    ]
    for exponent in range(-4, 1):
        parts.append(
            f'<text x="{x(10.0**exponent):.1f}" y="{top + plot_h + 14}" text-anchor="middle">'
            f"1e{exponent}</text>"
        )
    for tenth in range(0, 11, 2):
        parts.append(
            f'<text x="{left - 6}" y="{y(tenth / 10) + 4:.1f}" text-anchor="end">'
            f"{tenth / 10:.1f}</text>"
        )
    parts.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 8}" text-anchor="middle">'
        "false-positive rate on honest sets (log; 1e-4: none seen)</text>"
    )
    parts.append(
        f'<text x="14" y="{top + plot_h / 2:.1f}" transform="rotate(-90 14 {top + plot_h / 2:.1f})"'
        ' text-anchor="middle">detection rate</text>'
    )
    for i, (name, points) in enumerate(curves.items()):
        colour = colours[i % len(colours)]
        drawn = " ".join(f"{x(fp):.1f},{y(tp):.1f}" for fp, tp in points)
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{drawn}"/>'
        )
        parts.append(
            f'<text x="{left + plot_w + 8}" y="{top + 14 * (i + 1)}" fill="{colour}">'
            f"{escape(name)}</text>"
        )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def write_summary(
    out: Path, screen: Screen, set_rows: Sequence[dict[str, Any]], executor: str
) -> None:
    """``summary.json``, ``summary.md`` and ``summary.svg`` of a screen (what the day's records
    show: the same bytes on every run) and ``last_run.json`` (what this run did)."""
    run = {
        "screened_now": screen.screened,
        "skipped_done": screen.skipped,
        "stage2_done": screen.stage2_done,
        "stage2_skipped": screen.stage2_skipped,
        "executor": executor,
    }
    (out / "last_run.json").write_text(json.dumps(run, sort_keys=True) + "\n", encoding="utf-8")
    summary = {
        "records": screen.records,
        "refused": screen.refused,
        "sets": screen.sets,
        "groups": screen.groups,
        "screen_threshold": SCREEN_THRESHOLD,
        "thresholds": THRESHOLDS,
        "flagged_stage1": [
            {k: r[k] for k in ("set", "group", "score", "card_z", "call_z")} for r in screen.flagged
        ],
        "reported": [{k: r[k] for k in ("set", "group", "score")} for r in screen.reported],
    }
    (out / "summary.json").write_text(
        json.dumps(summary, sort_keys=True, indent=1) + "\n", encoding="utf-8"
    )
    seats = [
        float(r["score"]) for r in set_rows if r["score"] is not None and "," not in r["group"]
    ]
    pairs = [float(r["score"]) for r in set_rows if r["score"] is not None and "," in r["group"]]
    (out / "summary.svg").write_text(
        histogram_svg(
            {"seats": seats, "partnerships": pairs},
            {"screen": SCREEN_THRESHOLD, "report": THRESHOLDS["seat"]},
            title="Screen scores of the day's sets",
        ),
        encoding="utf-8",
    )
    lines = [
        "# Screen summary",
        "",
        f"- records: {screen.records} ({screen.refused} refused)",
        f"- sets: {screen.sets}, groups scored: {screen.groups}",
        (
            f"- stage 1 flagged (score >= {SCREEN_THRESHOLD}): {len(screen.flagged)}; "
            f"reported (score >= {THRESHOLDS['seat']}): {len(screen.reported)}"
        ),
        "- stage 2: the evidence of each flagged set in `stage2/`",
        "",
        "| set | group | score | card z | call z |",
        "|---|---|---|---|---|",
    ]
    for r in screen.flagged:
        lines.append(
            f"| {r['set']} | {r['group']} | {r['score']} | {r['card_z']} | {r['call_z']} |"
        )
    lines.append("")
    lines.append("![scores](summary.svg)")
    (out / "summary.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


__all__ = ["histogram_svg", "roc_svg", "write_summary"]
