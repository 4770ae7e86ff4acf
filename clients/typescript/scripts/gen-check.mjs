// `npm run gen:check`: fail when src/gen differs from what `npm run gen` makes of ../../proto
// today (a proto changed without regenerating, or the generator was upgraded).

import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

const committed = "src/gen";
const scratch = mkdtempSync(join(tmpdir(), "baloot-ts-gen-"));

function files(root) {
  const found = new Map();
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(path);
      } else {
        found.set(relative(root, path), readFileSync(path, "utf8"));
      }
    }
  };
  walk(root);
  return found;
}

try {
  execFileSync("buf", ["generate", "--output", scratch], { stdio: "inherit" });
  const fresh = files(join(scratch, committed));
  const current = files(committed);
  const stale = [...new Set([...fresh.keys(), ...current.keys()])]
    .sort()
    .filter((path) => fresh.get(path) !== current.get(path));
  if (stale.length > 0) {
    console.error(`the generated code in ${committed} is stale; run \`npm run gen\` (or \`make ts-gen\`):`);
    for (const path of stale) {
      const state = !current.has(path) ? "missing" : !fresh.has(path) ? "left over" : "differs";
      console.error(`  ${join(committed, path)} (${state})`);
    }
    process.exitCode = 1;
  } else {
    console.log(`${committed} is up to date with the proto files (${fresh.size} files)`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
