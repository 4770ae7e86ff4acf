// The analysis of the last round (AnalyzeRecord, see docs/analysis.md): once a round is scored,
// the page streams the engine's analysis of that round of the match record and draws
//   * a chart of the expected final card points of the user's team (team 0 when four bots play)
//     after every card of the round, from what the seat that played it could know: the swing of
//     each decision shows as a step of the line, a mistake as a red dot;
//   * the key mistakes, each with the card (or call) played and the better one, and the engine's
//     sentence in the page's language.

import {
  AnalysisDepth,
  DecisionKind,
  type Action,
  type DecisionAnalysis,
  type RoundAnalysis,
} from "@baloot-engine/client";

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
    chart: "Expected final points of your team after each card",
    mistakes: "Key mistakes",
    none: "No mistake: every decision was a best choice.",
    better: "better",
    par: "Par of the deal",
  },
  ar: {
    title: "تحليل الجولة",
    working: "جاري تحليل الجولة…",
    failed: "التحليل غير متوفر",
    chart: "الأبناط المتوقعة لفريقك بعد كل ورقة",
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

/** The chart: the user's team's expected final card points after each card of the round. */
function drawChart(decisions: DecisionAnalysis[], team: number, total: number): SVGElement {
  const cards = decisions.filter((d) => d.kind === DecisionKind.CARD);
  const width = 640;
  const height = 200;
  const pad = 28;
  const x = (i: number) => pad + ((width - 2 * pad) * i) / Math.max(1, cards.length - 1);
  const y = (points: number) => height - pad - ((height - 2 * pad) * points) / total;
  const values = cards.map((d) => {
    const mine = d.alternatives[d.taken]?.fair?.points ?? 0;
    return d.seat % 2 === team ? mine : total - mine;
  });
  const line = values.map((v, i) => `${i === 0 ? "M" : "L"}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const half = total / 2;
  return svg(
    "svg",
    { viewBox: `0 0 ${width} ${height}`, class: "analysis-chart", id: "analysis-chart", role: "img" },
    svg("rect", { x: pad, y: pad, width: width - 2 * pad, height: height - 2 * pad, class: "frame" }),
    svg("line", { x1: pad, x2: width - pad, y1: y(half), y2: y(half), class: "half" }),
    svg("text", { x: 2, y: y(total) + 4, class: "axis" }, document.createTextNode(String(total))),
    svg("text", { x: 2, y: y(half) + 4, class: "axis" }, document.createTextNode(String(half))),
    svg("text", { x: 2, y: y(0) + 4, class: "axis" }, document.createTextNode("0")),
    svg("path", { d: line, class: "curve" }),
    ...cards.map((d, i) =>
      svg(
        "circle",
        {
          cx: x(i).toFixed(1),
          cy: y(values[i] ?? 0).toFixed(1),
          r: d.bestChoice ? 2.5 : 4,
          class: d.bestChoice ? "point" : "point mistake",
          "data-action": d.actionIndex,
        },
        svg("title", {}, document.createTextNode(d.explanation?.en ?? "")),
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
          drawChart(state.decisions, team, total),
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
