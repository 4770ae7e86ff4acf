// Headless Chromium for the end-to-end test and the screenshots: Debian's browser
// (/usr/bin/chromium, or $CHROMIUM) driven by playwright-core, which downloads nothing.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { chromium } from "playwright-core";

/** The browser binary: $CHROMIUM, else Debian's. */
export const CHROMIUM = process.env["CHROMIUM"] ?? "/usr/bin/chromium";

/**
 * Launch a fresh headless browser context with a profile directory of its own (playwright
 * passes it as --user-data-dir); close() removes the profile.
 */
export async function launch(viewport = { width: 1400, height: 1000 }) {
  const profile = mkdtempSync(join(tmpdir(), "baloot-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    viewport,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
