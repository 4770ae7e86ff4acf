// Build the static page into dist/: the TypeScript bundled by esbuild (one ES module for the
// browser), index.html and style.css copied. `node build.mjs --watch` rebuilds on change.
//
// The client (@baloot-engine/client, a file: dependency) is built by `make ts-build`; its own
// dependencies (Protobuf-ES, Connect) are resolved from clients/typescript/node_modules, the
// same copy the playground's code imports, so the bundle holds each library once.

import { copyFile, mkdir, rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

import * as esbuild from "esbuild";

const here = fileURLToPath(new URL(".", import.meta.url));
const dist = join(here, "dist");
const clientDir = join(here, "..", "clients", "typescript");

/** Resolve the playground's imports of the client's libraries from the client's folder. */
const clientLibraries = {
  name: "client-libraries",
  setup(build) {
    build.onResolve({ filter: /^@(bufbuild\/protobuf|connectrpc\/connect)$/ }, (args) => {
      if (args.resolveDir.startsWith(clientDir) || args.pluginData === "client") {
        return undefined;
      }
      return build.resolve(args.path, { kind: args.kind, resolveDir: clientDir, pluginData: "client" });
    });
  },
};

const options = {
  entryPoints: [join(here, "src", "main.ts")],
  outfile: join(dist, "app.js"),
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["es2023"],
  sourcemap: true,
  minify: true,
  legalComments: "linked",
  plugins: [clientLibraries],
  logLevel: "info",
};

await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });
for (const name of ["index.html", "style.css"]) {
  await copyFile(join(here, "static", name), join(dist, name));
}
if (process.argv.includes("--watch")) {
  const context = await esbuild.context(options);
  await context.watch();
} else {
  await esbuild.build(options);
}
