// Bundles src/main.ts into plugin/main.js, the file Obsidian loads.
// `node esbuild.config.mjs production` builds once, minified; without the
// argument it watches and rebuilds with an inline source map.
//
// The bundle depends on the sources and the pinned packages alone (no
// engine, no Go, no time or path of the build), so that anyone who builds
// it gets the release's main.js byte for byte (tests/reproducible.test.ts).
// QUIRE_PLUGIN_OUT=FILE writes the bundle there instead of plugin/main.js.
import { builtinModules } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const production = process.argv[2] === "production";

const ctx = await esbuild.context({
  absWorkingDir: here,
  entryPoints: [join(here, "src/main.ts")],
  outfile: process.env.QUIRE_PLUGIN_OUT || join(here, "main.js"),
  bundle: true,
  // Obsidian provides these at run time; bundling them would load a second
  // copy of the editor and break it.
  external: [
    "obsidian",
    "electron",
    "@codemirror/*",
    "@lezer/*",
    ...builtinModules,
    ...builtinModules.map((m) => `node:${m}`),
  ],
  format: "cjs",
  platform: "browser",
  target: "es2022",
  logLevel: "info",
  sourcemap: production ? false : "inline",
  minify: production,
  treeShaking: true,
});

if (production) {
  await ctx.rebuild();
  await ctx.dispose();
} else {
  await ctx.watch();
}
