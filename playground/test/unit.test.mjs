// Unit tests of the playground's pure modules, in Node (no browser): the analysis chart's
// geometry (chart.ts) and the round's score explained in Arabic (explain.ts). The modules are
// bundled by esbuild, as the page is. Run by `make playground-test` (`npm test`) before the
// end-to-end test in Chromium.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

import * as esbuild from "esbuild";

const here = fileURLToPath(new URL("..", import.meta.url));
let dir;
let chart;
let explain;
let client;

async function load(entry) {
  const out = join(dir, entry.replace(/\W/g, "_") + ".mjs");
  await esbuild.build({
    entryPoints: [join(here, entry)],
    bundle: true,
    format: "esm",
    platform: "node",
    outfile: out,
    logLevel: "silent",
  });
  return import(pathToFileURL(out).href);
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "playground-unit-"));
  chart = await load("src/chart.ts");
  explain = await load("src/explain.ts");
  client = await load("node_modules/@baloot-engine/client/dist/src/index.js");
});

after(() => rmSync(dir, { recursive: true, force: true }));

describe("the analysis chart", () => {
  test("its axis labels end left of the frame, inside the chart, in both languages", () => {
    const { CHART, chartLayout } = chart;
    for (const [total, unit] of [
      [162, "abnat"],
      [130, "أبناط"],
    ]) {
      const layout = chartLayout([0, 40, 81, 120, total], total, unit);
      for (const label of [...layout.axis, layout.unit]) {
        // Anchored at their end (text-anchor: end, direction: ltr): each label spans
        // [x - width, x]. At 10 px a glyph is under 7 px wide, so a label of n glyphs fits
        // when x - 7 n >= 0, and it never reaches into the frame (x < pad).
        assert.ok(label.x < CHART.pad, `${label.text} reaches into the frame`);
        assert.ok(label.x - 7 * label.text.length >= 0, `${label.text} is clipped at the left edge`);
        assert.ok(label.y > 0 && label.y < CHART.height, `${label.text} is outside the chart`);
      }
      assert.deepEqual(
        layout.axis.map((label) => label.text),
        [String(total), String(total / 2), "0"],
      );
      // The points span the frame, on the same scale as the labels.
      assert.equal(layout.points[0].x, CHART.pad);
      assert.equal(layout.points.at(-1).x, CHART.width - CHART.pad);
      assert.equal(layout.points.at(-1).y + 4, layout.axis[0].y);
      assert.equal(layout.points[0].y + 4, layout.axis[2].y);
    }
  });

  test("its caption names the scale of its axis", () => {
    const source = readFileSync(join(here, "src", "analysis-view.ts"), "utf8");
    const caption = (lang) => new RegExp(`${lang}: \\{[^}]*chart: "([^"]*)"[^}]*unit: "([^"]*)"`, "s").exec(source);
    const en = caption("en");
    const ar = caption("ar");
    assert.ok(en && ar, "the captions and units of both languages");
    assert.match(en[1], /abnat/);
    assert.equal(en[2], "abnat");
    assert.match(ar[1], /أبناط/);
    assert.equal(ar[2], "أبناط");
    assert.doesNotMatch(en[1], /\bpoints\b/); // game points are another scale
  });
});

describe("the round's score explained", () => {
  const names = (team) => (team === 0 ? "نحن" : "هم");

  function score(fields) {
    // The fields of a RoundScore the explanation reads (a plain object of the message's shape).
    return {
      explanation: "The buying team (team 1) failed the Sun: 2 game points against 24.",
      teams: [
        { team: 0, finalPoints: 26 },
        { team: 1, finalPoints: 0 },
      ],
      ...fields,
    };
  }

  test("in Arabic from the score's fields, in English the engine's words", () => {
    const { scoreExplanation } = explain;
    const { ContractType, OutcomeReason } = client;
    const failed = score({
      contract: { type: ContractType.SUN, buyerTeam: 1, multiplier: 1 },
      made: false,
      reason: OutcomeReason.FEWER_POINTS,
    });
    assert.equal(scoreExplanation("en", failed, names), failed.explanation);
    const arabic = scoreExplanation("ar", failed, names);
    assert.equal(arabic, "الفريق المشتري (هم) خسر الصن. نقاطه أقل من نقاط الفريق الثاني. نقاط الجولة: نحن 26، هم 0.");
    for (const reason of Object.values(OutcomeReason).filter((value) => typeof value === "number")) {
      if (reason === OutcomeReason.UNSPECIFIED) {
        continue;
      }
      const text = scoreExplanation(
        "ar",
        score({ contract: { type: ContractType.HOKM, buyerTeam: 0, multiplier: 2 }, made: true, reason }),
        names,
      );
      assert.doesNotMatch(text, /[A-Za-z]/, text); // no English left
      assert.match(text, /الحكم مضاعف ×2/);
    }
  });
});
