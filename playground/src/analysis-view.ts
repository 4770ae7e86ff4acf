// The analysis of the last round (AnalyzeRecord, see docs/analysis.md): once a round is scored,
// the page streams the engine's analysis of that round of the match record and draws
//   * a chart of the expected card abnat of the user's team (team 0 when four bots play) at the
//     end of the round after every card, from what the seat that played it could know: the swing
//     of each decision shows as a step of the line, a mistake as a red dot (its geometry in
//     chart.ts);
//   * the key mistakes, each with the card (or call) played and the better one, and the engine's
//     sentence in the page's language.

import {
  AnalysisDepth,
  DecisionKind,
  type Action,
  type DecisionAnalysis,
  type RoundAnalysis,
} from "@baloot-engine/client";

import { chartLayout, CHART } from "./chart.js";
import { h } from "./dom.js";
import type { Table } from "./game.js";
import type { Lang } from "./i18n.js";
import { actionLabel, seatLabel } from "./render.js";

const SVG = "http://www.w3.org/2000/svg";

const TEXT = {
  en: {
    title: "Round analysis",
    working: "Analysing the round…",
    failed: "The analysis is not available",
    chart: "Your team's expected card abnat at the end of the round, after each card",
    unit: "abnat",
    mistakes: "Key mistakes",
    none: "No mistake: every decision was a best choice.",
    better: "better",
    par: "Par of the deal",
  },
  ar: {
    title: "تحليل الجولة",
    working: "جاري تحليل الجولة…",
    failed: "التحليل غير متوفر",
    chart: "أبناط الأوراق المتوقعة لفريقك في آخر الجولة، بعد كل ورقة",
    unit: "أبناط",
    mistakes: "أبرز الأخطاء",
    none: "ما فيه أخطاء: كل قرار كان من أفضل الخيارات.",
    better: "الأفضل",
    par: "أفضل نتيجة ممكنة للتوزيعة",
  },
} as const;

/** One round's analysis as it streams in. */
interface RoundState {
  status: "working" | "done" | "failed";
  decisions: DecisionAnalysis[];
  summary: RoundAnalysis | undefined;
}

const states = new WeakMap<Table, Map<number, RoundState>>();

/** The analysis of the table's last scored round: started on first ask, redrawn as it comes. */
function stateFor(table: Table): [number, RoundState] | undefined {
  const round = table.lastScoredRound;
  const match = table.match;
  if (round === undefined || match === undefined) {
    return undefined;
  }
  let rounds = states.get(table);
  if (rounds === undefined) {
    rounds = new Map();
    states.set(table, rounds);
  }
  const known = rounds.get(round.number);
  if (known !== undefined) {
    return [round.number, known];
  }
  const state: RoundState = { status: "working", decisions: [], summary: undefined };
  rounds.set(round.number, state);
  let record;
  try {
    record = match.matchRecord();
  } catch {
    state.status = "failed";
    return [round.number, state];
  }
  const index = record.rounds.length - 1;
  void (async () => {
    try {
      for await (const report of table.client.analyzeRecord(record, {
        rounds: [index],
        depth: AnalysisDepth.QUICK,
        seed: 1,
        timeoutMs: 120_000,
      })) {
        if (report.report.case === "decision") {
          state.decisions.push(report.report.value);
        } else if (report.report.case === "round") {
          state.summary = report.report.value;
        }
      }
      state.status = "done";
    } catch {
      state.status = "failed";
    }
    table.onChange();
  })();
  return [round.number, state];
}

function svg(tag: string, attributes: Record<string, string | number>, ...children: Node[]): SVGElement {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) {
    element.setAttribute(name, String(value));
  }
  element.append(...children);
  return element;
}

/**
 * The chart: the user's team's expected card abnat at the end of the round after each card, on
 * the scale of the round's abnat (0 to `total`), drawn left to right in both languages.
 */
function drawChart(lang: Lang, decisions: DecisionAnalysis[], team: number, total: number): SVGElement {
  const cards = decisions.filter((d) => d.kind === DecisionKind.CARD);
  const values = cards.map((d) => {
    const mine = d.alternatives[d.taken]?.fair?.points ?? 0;
    return d.seat % 2 === team ? mine : total - mine;
  });
  const { width, height, pad } = CHART;
  const layout = chartLayout(values, total, TEXT[lang].unit);
  const line = layout.points.map((p, i) => `${i === 0 ? "M" : "L"}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(" ");
  const label = (at: { text: string; x: number; y: number }, id: string) =>
    svg("text", { x: at.x, y: at.y, class: "axis", "text-anchor": "end", id }, document.createTextNode(at.text));
  return svg(
    "svg",
    {
      viewBox: `0 0 ${width} ${height}`,
      class: "analysis-chart",
      id: "analysis-chart",
      role: "img",
      direction: "ltr",
      "aria-label": TEXT[lang].chart,
    },
    svg("rect", { x: pad, y: pad, width: width - 2 * pad, height: height - 2 * pad, class: "frame" }),
    svg("line", { x1: pad, x2: width - pad, y1: layout.half, y2: layout.half, class: "half" }),
    ...layout.axis.map((at, i) => label(at, `analysis-axis-${i}`)),
    label(layout.unit, "analysis-unit"),
    svg("path", { d: line, class: "curve" }),
    ...cards.map((d, i) =>
      svg(
        "circle",
        {
          cx: (layout.points[i]?.x ?? 0).toFixed(1),
          cy: (layout.points[i]?.y ?? 0).toFixed(1),
          r: d.bestChoice ? 2.5 : 4,
          class: d.bestChoice ? "point" : "point mistake",
          "data-action": d.actionIndex,
        },
        svg("title", {}, document.createTextNode((lang === "ar" ? d.explanation?.ar : d.explanation?.en) ?? "")),
      ),
    ),
  );
}

function actionText(lang: Lang, action: Action | undefined): string {
  return action === undefined ? "?" : actionLabel(lang, action);
}

/** The analysis panel of the last scored round, or null before any round is scored. */
export function drawRoundAnalysis(lang: Lang, table: Table): HTMLElement | null {
  const found = stateFor(table);
  if (found === undefined) {
    return null;
  }
  const [number, state] = found;
  const t = TEXT[lang];
  const team = (table.userSeat ?? 0) % 2;
  const summary = state.summary;
  const par = summary?.par;
  const total = par === undefined || par.points.length < 2 ? 162 : (par.points[0] ?? 0) + (par.points[1] ?? 0);
  const mistakes = summary?.keyMistakes ?? [];
  return h(
    "section",
    { class: "panel analysis", id: "round-analysis", "data-status": state.status, "data-round": number },
    h("h2", {}, `${t.title}`),
    state.status === "working" ? h("div", { class: "muted" }, t.working) : null,
    state.status === "failed" ? h("div", { class: "muted" }, t.failed) : null,
    state.status === "done"
      ? [
          h("h3", {}, t.chart),
          drawChart(lang, state.decisions, team, total),
          par === undefined
            ? null
            : h("div", { class: "muted", id: "analysis-par" }, `${t.par}: ${par.score[0] ?? 0} – ${par.score[1] ?? 0}`),
          h("h3", {}, t.mistakes),
          mistakes.length === 0
            ? h("div", { class: "muted" }, t.none)
            : h(
                "ol",
                { class: "mistakes", id: "analysis-mistakes" },
                mistakes.map((d) =>
                  h(
                    "li",
                    { class: "mistake", "data-kind": d.kind },
                    h("span", { class: "who" }, seatLabel(lang, table, d.seat)),
                    " ",
                    h("span", { class: "played" }, actionText(lang, d.alternatives[d.taken]?.action)),
                    " → ",
                    h(
                      "span",
                      { class: "better" },
                      `${t.better}: ${actionText(lang, d.alternatives[d.bestFair]?.action)}`,
                    ),
                    h(
                      "div",
                      { class: "sentence", dir: lang === "ar" ? "rtl" : "ltr" },
                      lang === "ar" ? d.explanation?.ar : d.explanation?.en,
                    ),
                  ),
                ),
              ),
        ]
      : null,
  );
}
