// The round analysis in the playground, in headless Chromium: four bots play a round, the page
// streams the engine's analysis of it (AnalyzeRecord over gRPC-Web) and draws the chart of the
// user's team's expected points after each card and the key mistakes, in English and in Arabic.
// The screenshots go to PLAYGROUND_ARTIFACTS (analysis-en.png, analysis-ar.png).
//
// Run by `make playground-test` (scripts/playground.py test) with the main playground test.

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { launch } from "./browser.mjs";

const PAGE_URL = process.env["PLAYGROUND_URL"];
const GATEWAY = process.env["PLAYGROUND_GATEWAY"];
const ARTIFACTS = process.env["PLAYGROUND_ARTIFACTS"] ?? "var/artifacts";
if (PAGE_URL === undefined || GATEWAY === undefined) {
  throw new Error("PLAYGROUND_URL and PLAYGROUND_GATEWAY must be set: run `make playground-test`");
}

function pageUrl(params) {
  const url = new URL(PAGE_URL);
  url.searchParams.set("gateway", GATEWAY);
  for (const [name, value] of Object.entries(params)) {
    url.searchParams.set(name, value);
  }
  return url.toString();
}

let session;
const problems = [];

describe("the round analysis in Chromium", () => {
  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    session = await launch({ width: 1400, height: 1300 });
  });

  after(async () => {
    await session?.close();
  });

  for (const lang of ["en", "ar"]) {
    test(`the chart and the key mistakes are drawn after a round (${lang})`, async () => {
      const page = await session.context.newPage();
      page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
      page.on("console", (message) => {
        if (message.type() === "error") {
          problems.push(`console error: ${message.text()}`);
        }
      });
      // 140 : 140 of 152: the first round decides the match, and its analysis stays on the page.
      await page.goto(pageUrl({ mode: "watch", level: "basic", delay: "0", start: "140:140", lang }));
      // The match ends (one or two rounds), then the last round's analysis arrives; the page
      // then stays as it is.
      await page.waitForSelector("#match-over", { timeout: 120_000 });
      await page.waitForSelector("#round-analysis[data-status='done']", { timeout: 120_000 });
      const panel = page.locator("#round-analysis");
      const points = await panel.locator("#analysis-chart circle").count();
      assert.ok(points >= 16, `the chart has a point per card with a choice, got ${points}`);
      assert.equal(await panel.locator("#analysis-chart path.curve").count(), 1);
      const title = await panel.locator("h2").innerText();
      assert.equal(title, lang === "ar" ? "تحليل الجولة" : "Round analysis");
      // The axis labels lie inside the chart, left of its frame (x 40), in both directions of
      // the page; the caption and the unit name the abnat, the axis's scale.
      const boxes = await page.$$eval("#analysis-chart text.axis", (texts) =>
        texts.map((text) => {
          const box = text.getBBox();
          return [text.textContent, box.x, box.x + box.width];
        }),
      );
      assert.equal(boxes.length, 4);
      for (const [text, left, right] of boxes) {
        assert.ok(left >= 0 && right <= 40, `axis label ${text} spans ${left}..${right}`);
      }
      assert.match(await panel.locator("h3").first().innerText(), lang === "ar" ? /أبناط/ : /abnat/);
      assert.equal(await page.locator("#analysis-unit").textContent(), lang === "ar" ? "أبناط" : "abnat");
      // The round's score explained in the page's language.
      const explanation = await page.locator("#score-explanation").textContent();
      if (lang === "ar") {
        assert.doesNotMatch(explanation, /[A-Za-z]/, explanation);
        assert.match(explanation, /الفريق المشتري/);
      } else {
        assert.match(explanation, /team/i);
      }
      const mistakes = panel.locator("#analysis-mistakes li");
      const count = await mistakes.count();
      assert.ok(count >= 1 && count <= 5, `one to five key mistakes, got ${count}`);
      const sentence = await mistakes.first().locator(".sentence").innerText();
      assert.ok(sentence.includes(lang === "ar" ? "بدل" : "instead of"), sentence);
      assert.ok((await mistakes.first().locator(".better").innerText()).length > 0);
      // The page with the panel in view (an element screenshot of a right-to-left page can come
      // out blank or shifted in headless Chromium).
      await panel.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(ARTIFACTS, `analysis-${lang}.png`) });
      await page.close();
    });
  }

  test("no page error or console error", () => {
    assert.deepEqual(problems, []);
  });
});
