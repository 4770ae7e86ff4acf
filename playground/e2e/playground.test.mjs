// The playground end to end, in headless Chromium: a complete match played by clicking, an
// illegal card refused with its reason (and a card out of turn, said in Arabic), the API panel,
// the rules preset and target chosen in the settings, Arabic laid out right to left with its
// table log translated, four bots
// watched to the end, table play (an illegal card accepted and judged by a Qayd call, the
// user's own Qayd call, the review closed), the dealt hands from the round reveal, and a
// screenshot kept as an artifact. Any console error, page error,
// failed request or HTTP error fails the run.
//
// Run by `make playground-test` (scripts/playground.py test), which starts the service, the
// gateway and the static server and sets PLAYGROUND_URL, PLAYGROUND_GATEWAY and
// PLAYGROUND_ARTIFACTS.

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { launch } from "./browser.mjs";
import { bodyState, clickUntil, userStep } from "./steps.mjs";

const PAGE_URL = process.env["PLAYGROUND_URL"];
const GATEWAY = process.env["PLAYGROUND_GATEWAY"];
const ARTIFACTS = process.env["PLAYGROUND_ARTIFACTS"] ?? "var/artifacts";
if (PAGE_URL === undefined || GATEWAY === undefined) {
  throw new Error("PLAYGROUND_URL and PLAYGROUND_GATEWAY must be set: run `make playground-test`");
}

/** Where a match starts: 140 to 140 of 152, so one or two rounds finish it. */
const START = "140:140";
/** The refusal reasons an illegal card can get in the middle of a trick. */
const PLAY_REASONS = new Set(["MUST_FOLLOW_SUIT", "MUST_TRUMP", "MUST_OVERTRUMP", "TRUMP_LEAD_LOCKED"]);

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

/** An element's box. The page redraws itself whole, so a box read while it redraws is null:
 * read again until one is there (at most 5 s). */
async function boxOf(locator) {
  for (let tries = 0; tries < 50; tries++) {
    const box = await locator.boundingBox();
    if (box !== null) return box;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("no box for the element");
}

/** A new page that records every console error, page error and failed request. */
async function newPage() {
  const page = await session.context.newPage();
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") {
      problems.push(`console ${message.type()}: ${message.text()}`);
    }
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("requestfailed", (request) => {
    const reason = request.failure()?.errorText ?? "";
    // A call the page itself dropped (the test closed the page or went to another one while
    // the bots were playing) is no failure of the service.
    if (reason !== "net::ERR_ABORTED") {
      problems.push(`request failed: ${request.url()} ${reason}`);
    }
  });
  page.on("response", (response) => {
    if (response.status() >= 400) {
      problems.push(`HTTP ${response.status()}: ${response.url()}`);
    }
  });
  return page;
}

describe("the playground in Chromium", () => {
  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    session = await launch({ width: 1400, height: 1000 });
  });

  after(async () => {
    await session?.close();
  });

  test("an illegal card is sent, refused, and the reason and the allowed cards are shown", async () => {
    // A match from 0 : 0, so there are rounds enough for a turn where some cards are not allowed.
    const page = await newPage();
    await page.goto(pageUrl({ seat: "0", level: "basic", delay: "0", start: "0:0", lang: "en" }));
    await page.waitForSelector("#table");
    const deadline = Date.now() + 90_000;
    for (;;) {
      assert.ok(Date.now() < deadline, "no turn with an illegal card came within 90 s");
      const state = await bodyState(page);
      assert.notEqual(state.phase, "MATCH_OVER", "the match ended before a card could be refused");
      const trickCards = await page.locator("#trick:not(.last) .slot .card").count();
      const illegal = page.locator("#hand .card-button.dim");
      if (state.phase === "PLAYING" && state.turn === "0" && trickCards > 0 && (await illegal.count()) > 0) {
        const legalCodes = await page
          .locator("#hand .card-button.legal")
          .evaluateAll((cards) => cards.map((card) => card.dataset.card));
        const tried = await illegal.first().getAttribute("data-card");
        await illegal.first().click();
        await page.waitForSelector("#refusal");
        const reason = await page.locator("#refusal-reason").textContent();
        assert.ok(PLAY_REASONS.has(reason), `unexpected reason ${reason}`);
        const message = await page.locator("#refusal-message").textContent();
        assert.ok(message.length > 0, "the refusal has no message");
        // The engine's LocalizedMessage in English, with no card code mixed in (cards are symbols).
        assert.equal(await page.locator("#refusal-message").getAttribute("data-locale"), "en");
        assert.doesNotMatch(message, /\b(10|[7-9JQKA])[SHDC]\b/, `a card code in "${message}"`);
        const allowed = (await page.locator("#refusal-allowed").getAttribute("data-allowed")).split(" ");
        assert.deepEqual([...allowed].sort(), [...legalCodes].sort(), "the allowed cards are the highlighted ones");
        assert.ok(!allowed.includes(tried), `${tried} was refused but is listed as allowed`);
        // Nothing changed: same version, the card still in the hand.
        assert.equal((await bodyState(page)).version, state.version);
        assert.equal(await page.locator(`#hand .card-button[data-card="${tried}"]`).count(), 1);
        // The API panel shows the refused call, with the token as its size only.
        const lastCall = page.locator("#api details.call").first();
        assert.equal(await lastCall.getAttribute("data-method"), "PlayCard");
        const panel = await lastCall.textContent();
        assert.match(panel, /FAILED_PRECONDITION/);
        assert.match(panel, new RegExp(reason));
        assert.match(panel, /<sealed state token: \d+ bytes>/);
        assert.match(panel, /<seat 0 credential>/);
        // Zeros are printed: a card play shows its card and its false flags, never "play": {}.
        assert.match(panel, /"akka": false/);
        assert.doesNotMatch(panel, /"play": \{\}/);
        // A legal card is then accepted and the refusal goes away.
        await page.locator("#hand .card-button.legal").first().click();
        await page.waitForFunction((old) => document.body.dataset["version"] !== old, state.version);
        assert.equal(await page.locator("#refusal").count(), 0);
        break;
      }
      await userStep(page);
    }
    await page.close();
  });

  test("a card tried out of turn is refused with NOT_YOUR_TURN, said in Arabic, while the bots go on", async () => {
    // Bots wait 2 s before each move, so the click lands while another seat is to play.
    const page = await newPage();
    await page.goto(pageUrl({ seat: "0", level: "basic", delay: "2000", start: "0:0", lang: "ar" }));
    await page.waitForSelector("#table");
    const deadline = Date.now() + 60_000;
    for (;;) {
      assert.ok(Date.now() < deadline, "no bot's turn in the play came within 60 s");
      const state = await bodyState(page);
      if (state.phase === "PLAYING" && state.turn !== "0" && (await page.locator("#hand .card-button").count()) > 0) {
        await page.locator("#hand .card-button").first().click();
        await page.waitForSelector("#refusal");
        assert.equal(await page.locator("#refusal-reason").textContent(), "NOT_YOUR_TURN");
        // The page asks its refusals in its language: the engine's Arabic.
        assert.equal(await page.locator("#refusal-message").getAttribute("data-locale"), "ar-SA");
        assert.match(await page.locator("#refusal-message").textContent(), /^مو دورك\. الدور على المقعد [1-3]\.$/);
        const refusedLine = await page.locator("#log li.refused").first().textContent();
        assert.match(refusedLine, /مرفوض/);
        // The bots go on: the next bot move is accepted.
        await page.waitForFunction((old) => document.body.dataset["version"] !== old, state.version, {
          timeout: 15_000,
        });
        break;
      }
      await userStep(page);
    }
    await page.close();
  });

  test("a button held while the bots play and the page changes still takes the click", async () => {
    // The bots move every 150 ms and every move draws the page again; a card held for a second
    // is pressed on one drawing and released on a later one unless drawing waits for the release.
    const page = await newPage();
    await page.goto(pageUrl({ seat: "0", level: "basic", delay: "150", start: "0:0", lang: "en" }));
    await page.waitForSelector("#table");
    const lastPlayCard = () =>
      page.evaluate(() =>
        Math.max(
          0,
          ...[...document.querySelectorAll('#api details.call[data-method="PlayCard"] > summary')].map((s) =>
            Number(/^#(\d+)/.exec(s.textContent ?? "")?.[1] ?? 0),
          ),
        ),
      );
    const lastCall = () =>
      page.evaluate(() =>
        Number(/^#(\d+)/.exec(document.querySelector("#api details.call > summary")?.textContent ?? "")?.[1] ?? 0),
      );
    const deadline = Date.now() + 60_000;
    for (;;) {
      assert.ok(Date.now() < deadline, "no bot's turn in the play came within 60 s");
      const state = await bodyState(page);
      if (state.phase === "PLAYING" && state.turn !== "0" && (await page.locator("#hand .card-button").count()) > 0) {
        const before = await lastPlayCard();
        const callsBefore = await lastCall();
        const box = await boxOf(page.locator("#hand .card-button").first());
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        await page.mouse.down();
        await page.waitForTimeout(1_000);
        await page.mouse.up();
        // The bots made calls while the card was held (the page had changes to draw) ...
        await page.waitForFunction(
          (old) =>
            [...document.querySelectorAll("#api details.call")].some(
              (call) =>
                call.getAttribute("data-method") !== "PlayCard" &&
                Number(/^#(\d+)/.exec(call.querySelector("summary")?.textContent ?? "")?.[1] ?? 0) > old,
            ),
          callsBefore,
          { timeout: 5_000 },
        );
        // ... and the release still played the card: a PlayCard call was made.
        await page.waitForFunction(
          (old) =>
            [...document.querySelectorAll('#api details.call[data-method="PlayCard"] > summary')].some(
              (s) => Number(/^#(\d+)/.exec(s.textContent ?? "")?.[1] ?? 0) > old,
            ),
          before,
          { timeout: 5_000 },
        );
        break;
      }
      await userStep(page);
    }
    await page.close();
  });

  test("the rules preset and the target are chosen in the settings bar", async () => {
    const page = await newPage();
    await page.goto(pageUrl({ seat: "0", level: "basic", delay: "0", start: "0:0", lang: "en" }));
    await page.waitForFunction(() => document.body.dataset["preset"] === "SEEDS");
    assert.equal(await page.evaluate(() => document.body.dataset["target"]), "152");
    await page.locator("#preset").selectOption("kammelna");
    await page.locator("#target").fill("101");
    await page.locator("#target").dispatchEvent("change");
    await page.locator("#new-match").click();
    await page.waitForFunction(
      () => document.body.dataset["preset"] === "KAMMELNA" && document.body.dataset["target"] === "101",
    );
    const url = new URL(page.url());
    assert.equal(url.searchParams.get("preset"), "kammelna");
    assert.equal(url.searchParams.get("target"), "101");
    // The URL keeps them: a reload starts the same kind of match.
    await page.reload();
    await page.waitForFunction(
      () => document.body.dataset["preset"] === "KAMMELNA" && document.body.dataset["target"] === "101",
    );
    assert.equal(await page.locator("#preset").inputValue(), "kammelna");
    // An empty target is the rules' own.
    await page.locator("#preset").selectOption("federation");
    await page.locator("#target").fill("");
    await page.locator("#target").dispatchEvent("change");
    await page.locator("#new-match").click();
    await page.waitForFunction(() => document.body.dataset["preset"] === "FEDERATION");
    assert.equal(await page.evaluate(() => document.body.dataset["target"]), "152");
    assert.equal(new URL(page.url()).searchParams.get("target"), null);
    await page.close();
  });

  describe("a match played by clicking", () => {
    let page;

    before(async () => {
      page = await newPage();
      await page.goto(pageUrl({ seat: "0", level: "basic", delay: "0", start: START, lang: "en" }));
      await page.waitForSelector("#table");
    });

    test("the match is played to its end by clicking", async () => {
      const deadline = Date.now() + 90_000;
      const done = new Map();
      for (;;) {
        assert.ok(Date.now() < deadline, `the match did not end within 90 s (${JSON.stringify([...done])})`);
        const step = await userStep(page);
        done.set(step, (done.get(step) ?? 0) + 1);
        if (step === "over") {
          break;
        }
      }
      await page.waitForSelector("#match-over");
      assert.ok((done.get("card") ?? 0) > 0, "no card was played by clicking");
      // The score sheet has the starting row and at least one scored round; the total is the
      // match score, and one team reached the target.
      const rows = await page.locator("#sheet tbody tr.scored").count();
      assert.ok(rows >= 1, "no scored round on the score sheet");
      const totals = await page.locator("#sheet tfoot th").evaluateAll((cells) => cells.map((c) => c.textContent));
      const [us, them] = [Number(totals[2]), Number(totals[3])];
      assert.ok(Math.max(us, them) >= 152, `no team reached 152: ${us} : ${them}`);
      // The last round's summary: four dealt hands of eight cards (unless a Sawa claim ended
      // the round early) and a breakdown whose points are the last row of the sheet.
      const hands = await page
        .locator("#dealt-hands .dealt-row")
        .evaluateAll((rowsFound) => rowsFound.map((row) => row.querySelectorAll(".card").length));
      assert.equal(hands.length, 4);
      const cards = hands.reduce((sum, n) => sum + n, 0);
      assert.ok(cards === 32 || hands.every((n) => n <= 8), `dealt hands of ${hands}`);
      const points = await page
        .locator("#breakdown tbody tr")
        .last()
        .locator("td")
        .evaluateAll((cells) => cells.map((cell) => Number(cell.textContent)));
      const lastRow = await page
        .locator("#sheet tbody tr.scored")
        .last()
        .locator("td")
        .evaluateAll((cells) => cells.map((cell) => cell.textContent));
      assert.deepEqual(points, [Number(lastRow[2]), Number(lastRow[3])]);
      await page.screenshot({ path: join(ARTIFACTS, "playground.png"), fullPage: true });
    });

    test("Arabic is laid out right to left, and back", async () => {
      await page.locator("#lang-toggle").click();
      await page.waitForFunction(() => document.body.dataset["lang"] === "ar");
      const arabic = await page.evaluate(() => ({
        dir: document.documentElement.dir,
        lang: document.documentElement.lang,
        side: getComputedStyle(document.querySelector(".side")).direction,
        title: document.querySelector("header h1").textContent,
        sheet: document.querySelector("#sheet h2").textContent,
      }));
      assert.deepEqual(
        { dir: arabic.dir, lang: arabic.lang, side: arabic.side },
        { dir: "rtl", lang: "ar", side: "rtl" },
      );
      assert.equal(arabic.title, "ملعب البلوت");
      assert.equal(arabic.sheet, "النشرة");
      // The table log in Arabic: event names translated, each line right to left, versions and
      // cards kept whole in left-to-right isolates, no list numbers to cut; the hand on the right.
      const log = await page.evaluate(() => ({
        lines: [...document.querySelectorAll("#log li")].map((li) => ({ text: li.textContent, dir: li.dir })),
        listStyle: getComputedStyle(document.querySelector("#log ol")).listStyleType,
        hand: getComputedStyle(document.querySelector("#hand")).justifyContent,
      }));
      assert.ok(log.lines.length > 10, "the log is nearly empty");
      assert.equal(log.listStyle, "none");
      assert.equal(log.hand, "flex-end");
      for (const line of log.lines) {
        assert.equal(line.dir, "rtl", line.text);
        assert.ok(line.text.startsWith("\u2066v"), `the version does not start the line: ${line.text}`);
        assert.doesNotMatch(line.text, /[A-Z]{2,}_[A-Z_]+/, `an untranslated name: ${line.text}`);
        // Every card (rank and suit symbol) sits inside a left-to-right isolate.
        const outside = line.text.replace(/\u2066[^\u2069]*\u2069/g, "");
        assert.doesNotMatch(outside, /[♠♥♦♣]/, `a card outside an isolate: ${line.text}`);
      }
      assert.ok(
        log.lines.some((line) => line.text.includes("حساب الجولة")),
        "no round scored in the Arabic log",
      );
      // In right-to-left the side panel sits left of the table.
      const table = await boxOf(page.locator(".play-area"));
      const side = await boxOf(page.locator(".side"));
      assert.ok(side.x < table.x, "the side panel is not on the left in Arabic");
      await page.screenshot({ path: join(ARTIFACTS, "playground-ar.png"), fullPage: true });
      await page.locator("#lang-toggle").click();
      await page.waitForFunction(() => document.body.dataset["lang"] === "en");
      assert.equal(await page.evaluate(() => document.documentElement.dir), "ltr");
      const tableEn = await boxOf(page.locator(".play-area"));
      const sideEn = await boxOf(page.locator(".side"));
      assert.ok(sideEn.x > tableEn.x, "the side panel is not on the right in English");
    });
  });

  describe("table play", () => {
    let page;

    before(async () => {
      page = await newPage();
      // A far target: the suite plays three rounds or more and its last test needs the match still
      // going, which a few doubled rounds can end at the default 152.
      const settings = { seat: "0", level: "basic", delay: "0", start: "0:0", target: "1000", lang: "en", table: "1" };
      await page.goto(pageUrl(settings));
      await page.waitForSelector("#table");
    });

    after(async () => {
      await page?.close();
    });

    test("an illegal card is accepted, a Qayd call judges it, and the hands come from the reveal", async () => {
      assert.equal(await page.locator("#table-play").isChecked(), true, "the table-play box is not ticked");
      const deadline = Date.now() + 60_000;
      let tried;
      for (;;) {
        assert.ok(Date.now() < deadline, `no Qayd verdict within 60 s (illegal card: ${tried ?? "none yet"})`);
        const state = await bodyState(page);
        assert.notEqual(state.phase, "MATCH_OVER", "the match ended first");
        if (tried !== undefined && (await page.locator("#verdict").count()) > 0) {
          break;
        }
        if (tried !== undefined && state.phase === "ROUND_OVER") {
          // The round ended before the breach could be proved (a Sawa claim ends it with cards
          // unplayed): try again in the next round.
          tried = undefined;
        }
        const trickCards = await page.locator("#trick:not(.last) .slot .card").count();
        const illegal = page.locator("#hand .card-button.dim");
        if (
          tried === undefined &&
          state.phase === "PLAYING" &&
          state.turn === "0" &&
          trickCards > 0 &&
          (await illegal.count()) > 0
        ) {
          assert.equal(await page.locator("#table-note").count(), 1, "no note that table play accepts any card");
          tried = await illegal.first().getAttribute("data-card");
          await clickUntil(
            page,
            `#hand .card-button[data-card="${tried}"]`,
            (old) => document.body.dataset["version"] !== old,
            state.version,
          );
          // Accepted, and shown as any other card: no refusal, the card left the hand.
          assert.equal(await page.locator("#refusal").count(), 0, "the illegal card was refused");
          assert.equal((await bodyState(page)).refusals, state.refusals);
          assert.equal(await page.locator(`#hand .card-button[data-card="${tried}"]`).count(), 0);
          const call = page.locator('#api details.call[data-method="PlayCard"]').first();
          assert.doesNotMatch(await call.getAttribute("class"), /refused/, "the PlayCard call was refused");
          continue;
        }
        // Once the illegal card is played, the round is not closed here: the top of the loop
        // first looks for its verdict (closing it could deal the next round before the check).
        await userStep(page, { keepRound: tried !== undefined });
      }
      // A bot of the other team proved the breach (bots call only what they can prove): a right
      // call against seat 0, with its evidence, and the hand scored by the verdict.
      const verdict = page.locator("#verdict");
      assert.equal(await verdict.getAttribute("data-correct"), "true");
      assert.equal(await verdict.getAttribute("data-accused"), "0");
      assert.ok(
        ["1", "3"].includes(await verdict.getAttribute("data-caller")),
        "the caller is not a bot of the other team",
      );
      assert.ok((await verdict.getAttribute("data-evidence")).length > 0, "the verdict shows no evidence");
      assert.match(await page.locator("#verdict-result").textContent(), /right call/);
      await page.waitForSelector("#verdict-score");
      assert.ok((await page.locator("#log li.qayd").count()) >= 1, "the verdict is not in the table log");
      assert.match(await page.locator("#round-summary .outcome").textContent(), /Qayd/);
      // The dealt hands of the round: the reveal's, eight cards a seat, the illegal card in seat 0's.
      const dealt = page.locator("#dealt-hands");
      assert.equal(await dealt.getAttribute("data-source"), "reveal");
      const hands = await dealt
        .locator(".dealt-row")
        .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll(".card")].map((card) => card.dataset.card)));
      assert.deepEqual(
        hands.map((hand) => hand.length),
        [8, 8, 8, 8],
      );
      assert.equal(new Set(hands.flat()).size, 32);
      assert.ok(hands[0].includes(tried), `${tried} is not in seat 0's dealt hand`);
    });

    test("the user calls Qayd on a card of the other team in the review, and it is judged", async () => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        assert.ok(Date.now() < deadline, "no review within 60 s");
        const state = await bodyState(page);
        assert.notEqual(state.phase, "MATCH_OVER", "the match ended first");
        if (state.phase === "ROUND_REVIEW" && (await page.locator("#close-review").count()) > 0) {
          break;
        }
        await userStep(page);
      }
      assert.equal(await page.locator("#review-note").count(), 1);
      const before = await bodyState(page);
      await clickUntil(page, "#qayd", () => document.querySelector("#qayd-picker") !== null);
      assert.equal(await page.locator("#qayd-send").isDisabled(), true, "a call can be sent before a card is picked");
      // Every trick is offered, with the two cards of the other team.
      assert.equal(await page.locator("#qayd-picker .qayd-trick").count(), 8);
      const card = page.locator("#qayd-picker .qayd-card").last();
      const [code, accused] = [await card.getAttribute("data-card"), await card.getAttribute("data-seat")];
      assert.ok(["1", "3"].includes(accused));
      await clickUntil(
        page,
        "#qayd-picker .qayd-card >> nth=-1",
        () => document.querySelector(".qayd-card.picked") !== null,
      );
      await page.locator("#qayd-category").selectOption({ label: "revoke (did not follow suit)" });
      await clickUntil(page, "#qayd-send", (old) => document.body.dataset["version"] !== old, before.version);
      // Bots never break a rule: the call is wrong and the hand goes to the other team.
      const verdict = page.locator("#verdict");
      await verdict.waitFor();
      assert.equal(await verdict.getAttribute("data-caller"), "0");
      assert.equal(await verdict.getAttribute("data-accused"), accused);
      assert.equal(await verdict.getAttribute("data-correct"), "false");
      assert.equal(await verdict.getAttribute("data-category"), "REVOKE");
      assert.match(await page.locator("#verdict-result").textContent(), /wrong call/);
      assert.ok((await page.locator("#verdict").textContent()).includes("Trick 8"));
      await page.waitForSelector("#verdict-score");
      // The newest call of the panel that is a Qayd call (the host's GetView that reads the
      // ended round's reveal for the record may follow it).
      const lastCall = page.locator('#api details.call[data-method="CallQayd"]').first();
      assert.equal(await lastCall.getAttribute("data-method"), "CallQayd");
      assert.match(await lastCall.textContent(), new RegExp(`"accused": ${accused}`));
      assert.equal(await verdict.getAttribute("data-card"), code);
      await page.screenshot({ path: join(ARTIFACTS, "playground-qayd.png"), fullPage: true });
    });

    test("the review is closed and the round scored as usual", async () => {
      const deadline = Date.now() + 60_000;
      let closed = false;
      for (;;) {
        assert.ok(Date.now() < deadline, "no review closed within 60 s");
        const state = await bodyState(page);
        assert.notEqual(state.phase, "MATCH_OVER", "the match ended first");
        if (closed && state.phase === "ROUND_OVER") {
          break;
        }
        if ((await userStep(page)) === "close-review") {
          closed = true;
        }
      }
      await page.waitForSelector("#next-round");
      assert.equal(await page.locator("#verdict").count(), 0, "a verdict is shown for a round without a call");
      assert.equal(await page.locator("#dealt-hands").getAttribute("data-source"), "reveal");
      assert.doesNotMatch(await page.locator("#round-summary .outcome").textContent(), /Qayd/);
    });
  });

  test("four bots play a match to its end while the user watches", async () => {
    const page = await newPage();
    await page.goto(pageUrl({ mode: "watch", level: "basic", delay: "0", start: START }));
    await page.waitForSelector("#match-over", { timeout: 90_000 });
    assert.equal(await page.locator("#hand").count(), 0, "a watched match shows no hand of the user");
    assert.ok((await page.locator("#sheet tbody tr.scored").count()) >= 1);
    await page.close();
  });

  test("no console error, page error or failed request", () => {
    assert.deepEqual(problems, []);
  });
});
