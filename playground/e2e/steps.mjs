// Steps of a user at the table, shared by the end-to-end test and the screenshots: read the
// page's state from the body's data attributes and take the next step as seat 0 by clicking.

/** The body's data attributes: phase, turn and state version of the latest view. */
export function bodyState(page) {
  return page.evaluate(() => ({ ...document.body.dataset }));
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
export async function userStep(page) {
  const state = await bodyState(page);
  if (state.phase === "MATCH_OVER") {
    return "over";
  }
  for (const id of ["#next-round", "#deal", "#close-review"]) {
    const button = page.locator(id);
    if ((await button.count()) > 0) {
      await button.click();
      await page.waitForFunction(
        (old) => document.body.dataset["version"] !== old || document.querySelector("#next-round") === null,
        state.version,
        { timeout: 15_000 },
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
