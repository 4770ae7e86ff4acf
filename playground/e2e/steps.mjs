// Steps of a user at the table, shared by the end-to-end test and the screenshots: read the
// page's state from the body's data attributes and take the next step as seat 0 by clicking.

/** The body's data attributes: phase, turn and state version of the latest view. */
export function bodyState(page) {
  return page.evaluate(() => ({ ...document.body.dataset }));
}

/**
 * Click `selector` until `done` (a function run in the page, given `arg`) holds. The page is
 * drawn again on every change, so the button found may be gone (or not yet there) when the
 * click comes; the click is then made again on the new button (`done` is checked first, so
 * nothing is done twice).
 */
export async function clickUntil(page, selector, done, arg, timeout = 15_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    if (await page.evaluate(done, arg)) {
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(`clicking ${selector} changed nothing within ${timeout} ms`);
    }
    await page
      .locator(selector)
      .click({ timeout: 2_000 })
      .catch(() => {});
    await page.waitForFunction(done, arg, { timeout: 1_000 }).catch(() => {});
  }
}

/** Wait until the state moves on from `state` (see bodyState) or a new refusal shows. */
export async function waitForProgress(page, state) {
  await page.waitForFunction(
    ([version, refusals]) =>
      document.body.dataset["version"] !== version || document.body.dataset["refusals"] !== refusals,
    [state.version, state.refusals],
    { timeout: 15_000 },
  );
}

/**
 * Take one step as the user (seat 0) if the page waits for the user: next round, deal, close a
 * table-play review, a legal card, or the last action button (Sun in bidding, which ends it
 * quickly). Returns what it did.
 */
export async function userStep(page, { keepRound = false } = {}) {
  const state = await bodyState(page);
  if (state.phase === "MATCH_OVER") {
    return "over";
  }
  // keepRound: leave a finished round's summary open (its verdict stays on the table).
  for (const id of keepRound ? ["#deal", "#close-review"] : ["#next-round", "#deal", "#close-review"]) {
    const button = page.locator(id);
    if ((await button.count()) > 0) {
      await clickUntil(
        page,
        id,
        ([old, selector]) => document.body.dataset["version"] !== old || document.querySelector(selector) === null,
        [state.version, id],
      );
      return id.slice(1);
    }
  }
  if (state.turn !== "0") {
    await page.waitForTimeout(20);
    return "wait";
  }
  const legal = page.locator("#hand .card-button.legal");
  if (state.phase === "PLAYING" && (await legal.count()) > 0) {
    await legal.first().click();
    await waitForProgress(page, state);
    return "card";
  }
  const actions = page.locator("#actions button.action[data-action]");
  if ((await actions.count()) > 0) {
    await actions.last().click();
    await waitForProgress(page, state);
    return "action";
  }
  await page.waitForTimeout(20);
  return "wait";
}
