// The README's screenshots: a match played by clicking until seat 0 is to follow a trick in
// the second round or later with some cards it may not play; one of those is tried, so the
// refusal shows, then the page is taken in English and, the card tried again, in Arabic.
//
// Run by `make playground-screenshots` (scripts/playground.py screenshots), which starts the
// stack and sets PLAYGROUND_URL, PLAYGROUND_GATEWAY and PLAYGROUND_SCREENSHOTS.

import { mkdirSync } from "node:fs";
import { join } from "node:path";

import { launch } from "./browser.mjs";
import { bodyState, userStep } from "./steps.mjs";

const url = new URL(process.env["PLAYGROUND_URL"] ?? "http://127.0.0.1:8000/");
url.searchParams.set("gateway", process.env["PLAYGROUND_GATEWAY"] ?? "http://127.0.0.1:8080");
url.searchParams.set("seat", "0");
url.searchParams.set("delay", "0");
url.searchParams.set("level", "basic");
const out = process.env["PLAYGROUND_SCREENSHOTS"] ?? "docs/images";
mkdirSync(out, { recursive: true });

const session = await launch({ width: 1400, height: 1080 });
try {
  const page = await session.context.newPage();
  await page.goto(url.toString());
  await page.waitForSelector("#table");
  const deadline = Date.now() + 240_000;
  for (;;) {
    if (Date.now() > deadline) {
      throw new Error("no fitting moment within 240 s");
    }
    const state = await bodyState(page);
    const fitting =
      state.phase === "PLAYING" &&
      state.turn === "0" &&
      (await page.locator("#sheet tbody tr.scored").count()) >= 1 &&
      (await page.locator("#trick:not(.last) .slot .card").count()) >= 2 &&
      (await page.locator("#hand .card-button.dim").count()) > 0;
    if (fitting) {
      await page.locator("#hand .card-button.dim").first().click();
      await page.waitForSelector("#refusal");
      break;
    }
    if ((await userStep(page)) === "over") {
      await page.goto(url.toString());
      await page.waitForSelector("#table");
    }
  }
  await page.mouse.move(0, 0);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(out, "playground-en.png") });
  await page.locator("#lang-toggle").click();
  await page.waitForFunction(() => document.body.dataset["lang"] === "ar");
  // The engine said why in English; the same card tried again (still the user's turn, nothing
  // changed) is refused in the page's new language.
  const refusals = (await bodyState(page)).refusals;
  await page.locator("#hand .card-button.dim").first().click();
  await page.waitForFunction((old) => document.body.dataset["refusals"] !== old, refusals);
  await page.waitForSelector('#refusal-message[data-locale="ar-SA"]');
  await page.mouse.move(0, 0);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(out, "playground-ar.png") });
  console.log(`screenshots: ${join(out, "playground-en.png")}, ${join(out, "playground-ar.png")}`);
} finally {
  await session.close();
}
