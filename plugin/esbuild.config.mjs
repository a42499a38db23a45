// Bundles src/main.ts into plugin/main.js, the file Obsidian loads.
// `node esbuild.config.mjs production` builds once, minified; without the
// argument it watches and rebuilds with an inline source map.
//
// QUIRE_ENGINE_DIR=DIR compiles into main.js the SHA-256 and size of every
// gzipped engine of this version in DIR (quire_<version>_<os>_<arch>[.exe].gz,
// as scripts/release builds them): the plugin downloads only those and
// refuses any file that does not match. Without it main.js carries no
// hashes and the plugin offers no download (a development build).
// QUIRE_PLUGIN_OUT=FILE writes the bundle there instead of plugin/main.js.
import { createHash } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const production = process.argv[2] === "production";

/** engineBuilds reads the engines in dir into the table engine.ts's RELEASE_BUILDS holds. */
function engineBuilds(dir) {
  const version = JSON.parse(readFileSync(join(here, "..", "manifest.json"), "utf8")).version;
  const esc = version.replace(/[.+-]/g, "\\$&");
  const re = new RegExp(`^quire_${esc}_((?:linux|darwin|windows)_(?:amd64|arm64))(?:\\.exe)?\\.gz$`);
  const out = {};
  for (const file of readdirSync(dir).sort()) {
    const m = re.exec(file);
    if (!m) continue;
    const data = readFileSync(join(dir, file));
    out[m[1]] = { file, sha256: createHash("sha256").update(data).digest("hex"), size: data.length };
  }
  if (Object.keys(out).length === 0) throw new Error(`esbuild.config: QUIRE_ENGINE_DIR=${dir} holds no quire_${version}_<os>_<arch>.gz engine`);
  return out;
}

const engineDir = process.env.QUIRE_ENGINE_DIR ?? "";
const engines = engineDir ? engineBuilds(engineDir) : null;
if (engines) console.error(`esbuild.config: engine hashes for ${Object.keys(engines).join(", ")}`);

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
  define: engines ? { __QUIRE_ENGINES__: JSON.stringify(engines) } : {},
});

if (production) {
  await ctx.rebuild();
  await ctx.dispose();
} else {
  await ctx.watch();
}
