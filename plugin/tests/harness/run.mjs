#!/usr/bin/env node
// The browser harness: the BUILT plugin (main.js, styles.css) loaded in
// headless Chromium on a page that stands in for Obsidian (tests/
// obsidian-stub.ts, bundled), talking over real websockets to real
// `quire serve` sidecars on temporary copies of sample-vault/. It builds
// the sidecar and the plugin first (and, once, an older release's engine
// and plugin from git into tmp/old-release: engine.mjs), installs
// Debian's chromium when it is missing, writes screenshots to a temporary
// folder, and ends with the line `N passed, N failed`. This file is the
// toolbox (page, sidecars, screenshots, axe) and the order of the sessions;
// each surface's scenarios live in a file of their own (lifecycle.mjs,
// related.mjs, search.mjs, ask.mjs, settings.mjs, review.mjs, ingest.mjs,
// engine.mjs, evalreport.mjs, evalview.mjs) and get the toolbox as h.
//
// Usage: npm --prefix plugin run harness
//   HARNESS_OUT=DIR     screenshots there (default: the repository's tmp/harness-screenshots, gitignored)
//   HARNESS_QUIRE=PATH  use this quire binary instead of building sidecar/ (with
//                       the quiretest tag, for serve's --test-hosts; without it,
//                       the scenarios that ingest from a local site are pending)
//   HARNESS_KEEP=1      keep the temporary vaults and profile
//   HARNESS_ONLY=engine run only the engine's first-run scenarios (engine.mjs)
//   HARNESS_ONLY=eval   run only the eval report's scenarios (evalreport.mjs)
//   HARNESS_ONLY=evalview run only the Evaluate search view's scenarios (evalview.mjs)
//   HARNESS_ONLY=surfaces run only the attached session and issue 25's surfaces (surfaces.mjs)
//   HARNESS_ONLY=sources run only the git source's scenarios (sources.mjs)
//   HARNESS_ONLY=timings run only issue 25's timings on generated vaults (timings.mjs; scripts/bench-surfaces)
import { execFileSync, spawn } from "node:child_process";
import { constants, existsSync, promises as fsp, readFileSync, readdirSync, statSync } from "node:fs";
import { createServer } from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import esbuild from "esbuild";
import { chromium } from "playwright-core";
import { engineScenarios, oldRelease } from "./engine.mjs";
import { evalReportScenarios } from "./evalreport.mjs";
import { evalViewScenarios } from "./evalview.mjs";
import { askScenarios, modelSession } from "./ask.mjs";
import { ingestScenarios, ingestWithModelScenarios } from "./ingest.mjs";
import { attachScenarios, reconnectScenarios, startScenarios, statusViewScenarios } from "./lifecycle.mjs";
import { relatedScenarios } from "./related.mjs";
import { reviewScenarios } from "./review.mjs";
import { searchBenchScenarios, searchScenarios } from "./search.mjs";
import { surfacesScenarios } from "./surfaces.mjs";
import { sourcesScenarios } from "./sources.mjs";
import { timingScenarios } from "./timings.mjs";
import { settingsScenarios } from "./settings.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const pluginDir = join(here, "..", "..");
const repo = join(pluginDir, "..");
const CHROMIUM = "/usr/bin/chromium";
const started = Date.now();

function log(msg) {
  process.stderr.write(`harness: ${msg}\n`);
}

function ensureChromium() {
  if (existsSync(CHROMIUM)) return;
  log("installing Debian's chromium");
  const sudo = process.getuid?.() === 0 ? [] : ["sudo"];
  const run = (args) => execFileSync(sudo[0] ?? args[0], sudo.length ? args : args.slice(1), { stdio: "inherit" });
  run(["apt-get", "update"]);
  run(["apt-get", "install", "-y", "--no-install-recommends", "chromium"]);
}

/** startOriginProxy forwards ws://127.0.0.1:PROXY/<port>/path to 127.0.0.1:<port>/path with Obsidian's Origin. */
function startOriginProxy() {
  const server = net.createServer((client) => {
    let head = Buffer.alloc(0);
    const onData = (chunk) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      client.off("data", onData);
      const lines = head.subarray(0, end).toString("latin1").split("\r\n");
      const m = /^GET \/(\d+)(\/\S*) (HTTP\/1\.1)$/.exec(lines[0] ?? "");
      if (!m) return client.destroy();
      const port = Number(m[1]);
      const out = [`GET ${m[2]} ${m[3]}`];
      for (const l of lines.slice(1)) {
        if (/^origin:/i.test(l)) out.push("Origin: app://obsidian.md");
        else if (/^host:/i.test(l)) out.push(`Host: 127.0.0.1:${port}`);
        else out.push(l);
      }
      const upstream = net.connect(port, "127.0.0.1", () => {
        upstream.write(out.join("\r\n") + "\r\n\r\n");
        upstream.write(head.subarray(end + 4));
        client.pipe(upstream).pipe(client);
      });
      upstream.on("error", () => client.destroy());
      client.on("error", () => upstream.destroy());
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    };
    client.on("data", onData);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

function startPageServer(files) {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const f = files[path === "/" ? "/page.html" : path];
    if (!f) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": f.type, "cache-control": "no-store" }).end(f.body());
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

async function copyVault(dest) {
  await fsp.cp(join(repo, "sample-vault"), dest, { recursive: true });
  return dest;
}

/** walkVault calls each(path, full, stat) for the vault's files Obsidian lists: notes, .jsonl (the Evaluate search view's questions) and PDFs (Obsidian's viewer opens them). */
function walkVault(dir, each) {
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      if (name.startsWith(".")) continue;
      const full = join(d, name);
      const st = statSync(full);
      if (st.isDirectory()) walk(full);
      else if (name.endsWith(".md") || name.endsWith(".jsonl") || name.endsWith(".pdf")) each(relative(dir, full).split("\\").join("/"), full, st);
    }
  };
  walk(dir);
}

function vaultFiles(dir) {
  const out = {};
  walkVault(dir, (p, full) => (out[p] = readFileSync(full, "utf8")));
  return out;
}

/** vaultStamps is each vault file's modification time and size: the page's watch reads only the files whose stamp changed. */
function vaultStamps(dir) {
  const out = {};
  walkVault(dir, (p, _full, st) => (out[p] = `${st.mtimeMs}:${st.size}`));
  return out;
}

/** Sidecar is a `quire serve` the harness runs itself (the plugin attaches to it). */
class Sidecar {
  constructor(bin, vault, extraArgs = []) {
    this.bin = bin;
    this.vault = vault;
    this.extraArgs = extraArgs;
    this.proc = null;
    this.stderr = "";
  }
  async start() {
    const connFile = join(this.vault, ".quire", "sidecar.json");
    await fsp.rm(connFile, { force: true });
    this.proc = spawn(this.bin, ["serve", "--vault", this.vault, ...this.extraArgs], { stdio: ["ignore", "ignore", "pipe"] });
    this.proc.stderr.on("data", (d) => (this.stderr += d));
    const exited = new Promise((r) => this.proc.once("exit", r));
    this.exited = exited;
    for (let i = 0; i < 400; i++) {
      if (existsSync(connFile)) return;
      if (this.proc.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`quire serve did not start: ${this.stderr.slice(-500)}`);
  }
  async stop() {
    if (!this.proc || this.proc.exitCode !== null) return;
    this.proc.kill("SIGTERM");
    await this.exited;
  }
}

const results = [];
/** Pending marks a scenario that cannot run against this sidecar yet; it is counted apart, never as passed. */
class Pending extends Error {}
async function scenario(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    results.push(true);
    log(`ok   ${name} (${Date.now() - t0} ms)`);
  } catch (err) {
    if (err instanceof Pending) {
      results.push(null);
      log(`PENDING ${name}: ${err.message}`);
      return;
    }
    results.push(false);
    log(`FAIL ${name}: ${err?.stack ?? err}`);
  }
}

function expect(cond, message) {
  if (!cond) throw new Error(message);
}

async function main() {
  ensureChromium();
  const tmp = await fsp.mkdtemp(join(tmpdir(), "quire-harness-"));
  // Screenshots go to the repository's tmp/ (gitignored) unless HARNESS_OUT says otherwise.
  const out = process.env.HARNESS_OUT || join(repo, "tmp", "harness-screenshots");
  await fsp.mkdir(out, { recursive: true });
  // HARNESS_QUIRE=PATH runs a quire built elsewhere (e.g. from a clean checkout) instead of building this tree's.
  let bin = process.env.HARNESS_QUIRE || "";
  if (bin === "") {
    bin = join(tmp, "quire");
    log("building the sidecar");
    execFileSync("go", ["build", "-tags", "quiretest", "-o", bin, "./cmd/quire"], { cwd: join(repo, "sidecar"), stdio: "inherit" });
  }
  log("building the plugin");
  execFileSync(process.execPath, ["esbuild.config.mjs", "production"], { cwd: pluginDir, stdio: ["ignore", "ignore", "inherit"] });
  const stub = await esbuild.build({
    entryPoints: [join(pluginDir, "tests", "obsidian-stub.ts")],
    bundle: true,
    // One CodeMirror for the stub and the plugin: page.html's require hands out codemirror.js's.
    external: ["@codemirror/*"],
    format: "iife",
    globalName: "ObsidianStub",
    target: "es2022",
    write: false,
  });
  // The CodeMirror modules Obsidian provides to plugins (main.js leaves them external).
  const codemirror = await esbuild.build({
    stdin: { contents: 'export * as view from "@codemirror/view"; export * as state from "@codemirror/state";', resolveDir: pluginDir },
    bundle: true,
    format: "iife",
    globalName: "QuireCodeMirror",
    target: "es2022",
    write: false,
  });
  const manifest = JSON.parse(readFileSync(join(repo, "manifest.json"), "utf8"));
  const mainJs = join(pluginDir, "main.js");
  log(`main.js is ${statSync(mainJs).size} bytes`);
  // The older release of the real pairings (engine.mjs), built once into tmp/old-release.
  const only = process.env.HARNESS_ONLY;
  // A failed build fails the two scenarios that need it, not the whole run.
  let old = null;
  if (only !== "eval" && only !== "evalview" && only !== "surfaces" && only !== "sources" && only !== "timings") {
    try {
      old = oldRelease(repo, log);
    } catch (err) {
      log(`the older release could not be built: ${err.message}`);
      old = { error: err, version: "(not built)", bin: "", mainJs: "" };
    }
  }
  const read = (p) => () => readFileSync(p);
  const pages = await startPageServer({
    "/page.html": { type: "text/html", body: read(join(here, "page.html")) },
    "/favicon.ico": { type: "image/x-icon", body: () => "" },
    "/page.js": { type: "text/javascript", body: read(join(here, "page.js")) },
    "/theme.css": { type: "text/css", body: read(join(here, "theme.css")) },
    "/styles.css": { type: "text/css", body: read(join(repo, "styles.css")) },
    "/main.js": { type: "text/javascript", body: read(mainJs) },
    "/main-old.js": { type: "text/javascript", body: () => (old?.mainJs ? readFileSync(old.mainJs) : "") },
    "/obsidian-stub.js": { type: "text/javascript", body: () => stub.outputFiles[0].contents },
    "/codemirror.js": {
      type: "text/javascript",
      body: () =>
        `${codemirror.outputFiles[0].text}\nwindow.require = (n) => ({ "@codemirror/view": QuireCodeMirror.view, "@codemirror/state": QuireCodeMirror.state })[n];\n`,
    },
  });
  const proxy = await startOriginProxy();
  const pageUrl = `http://127.0.0.1:${pages.address().port}/?proxy=${proxy.address().port}&pid=${process.pid}`;

  const context = await chromium.launchPersistentContext(join(tmp, "profile"), {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1200, height: 760 },
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

  // What the page's fs and child_process shims forward to.
  const pageOf = new Map();
  const kids = new Map();
  // Every process the pages started, in order (kids is keyed by a page's own counter, which each page starts at 1).
  const allKids = [];
  await context.exposeFunction("harnessFs", async ({ op, path, mode, text }) => {
    try {
      if (op === "read") return { text: await fsp.readFile(path, "utf8") };
      if (op === "stat") {
        const st = await fsp.stat(path);
        return { isFile: st.isFile(), mode: st.mode };
      }
      if (op === "realpath") return { path: await fsp.realpath(path) };
      if (op === "stamps") return { stamps: vaultStamps(path) };
      if (op === "write") {
        await fsp.mkdir(dirname(path), { recursive: true });
        await fsp.writeFile(path, text);
        return {};
      }
      if (op === "access") {
        await fsp.access(path, mode ?? constants.F_OK);
        return {};
      }
      return { error: "EINVAL" };
    } catch (err) {
      return { error: err.code ?? "EIO" };
    }
  });
  let currentPage = null;
  await context.exposeFunction("harnessSpawn", (id, cmd, args, stdio) => {
    try {
      // The plugin's stdio choice is kept: the engine gets a stdin pipe from this process, as from Obsidian's.
      const child = spawn(cmd, args, { stdio: stdio ?? ["ignore", "ignore", "pipe"] });
      const page = currentPage;
      kids.set(id, child);
      allKids.push(child);
      pageOf.set(id, page);
      child.stderr?.setEncoding("utf8");
      child.stderr?.on("data", (d) => void page.evaluate(([i, d]) => window.__harnessChild(i, "stderr", d), [id, d]).catch(() => {}));
      child.stdout?.setEncoding("utf8");
      child.stdout?.on("data", (d) => void page.evaluate(([i, d]) => window.__harnessChild(i, "stdout", d), [id, d]).catch(() => {}));
      // close, not exit: it comes after the last stdout and stderr data, as the page must see them.
      child.on("close", (code, signal) => {
        void page.evaluate(([i, c, s]) => window.__harnessChild(i, "exit", c, s), [id, code, signal]).catch(() => {});
      });
      return new Promise((resolve) => {
        child.once("spawn", () => resolve({ pid: child.pid }));
        child.once("error", (err) => resolve({ error: err.message }));
      });
    } catch (err) {
      return { error: String(err) };
    }
  });
  await context.exposeFunction("harnessKill", (id, signal) => {
    kids.get(id)?.kill(signal);
  });

  const pageErrors = new Map();
  // axe-core (npm) runs inside the page on each surface, in both themes; the
  // summary per surface closes the run, and a serious or critical violation
  // fails the scenario that showed the surface.
  const axeSrc = readFileSync(join(pluginDir, "node_modules", "axe-core", "axe.min.js"), "utf8");
  const axeSummary = new Map();
  const axeCheck = async (page, surface, selector) => {
    if (!(await page.evaluate(() => typeof window.axe === "object"))) await page.addScriptTag({ content: axeSrc });
    const found = [];
    for (const theme of ["light", "dark"]) {
      await page.evaluate((t) => window.harness.theme(t), theme);
      const v = await page.evaluate(async (sel) => {
        const r = await window.axe.run({ include: [sel] }, { resultTypes: ["violations"] });
        // Obsidian's own accent button (.mod-cta) takes its colours from the app's theme, not from Quire.
        const ours = (x) => x.nodes.filter((n) => !(x.id === "color-contrast" && /\.mod-cta\b/.test(n.target.join(" "))));
        return r.violations
          .map((x) => ({ id: x.id, impact: x.impact, nodes: ours(x).length, target: ours(x).map((n) => n.target.join(" ")).join(", ") }))
          .filter((x) => x.nodes > 0);
      }, selector);
      for (const x of v) found.push({ ...x, theme });
    }
    await page.evaluate(() => window.harness.theme("light"));
    const prev = axeSummary.get(surface) ?? [];
    axeSummary.set(surface, [...prev, ...found]);
    const bad = found.filter((x) => x.impact === "serious" || x.impact === "critical");
    expect(bad.length === 0, `axe on ${surface}: ${bad.map((x) => `${x.impact} ${x.id} (${x.theme}) at ${x.target}`).join("; ")}`);
  };
  const newPage = async () => {
    const page = await context.newPage();
    pageErrors.set(page, []);
    page.on("pageerror", (err) => {
      pageErrors.get(page).push(err.message);
      log(`page error: ${err.message}`);
    });
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") log(`console ${m.type()}: ${m.text()}`);
    });
    await page.goto(pageUrl);
    currentPage = page;
    return page;
  };
  const shot = async (page, name) => {
    await page.screenshot({ path: join(out, name) });
  };
  /** shots takes a light and a dark screenshot, name-light.png and name-dark.png, and leaves the light theme on. */
  const shots = async (page, name) => {
    await page.evaluate(() => window.harness.theme("light"));
    await shot(page, `${name}-light.png`);
    await page.evaluate(() => window.harness.theme("dark"));
    await shot(page, `${name}-dark.png`);
    await page.evaluate(() => window.harness.theme("light"));
  };
  const waitFor = (page, fn, arg, timeout = 20_000) => page.waitForFunction(fn, arg, { timeout, polling: 100 });
  /** openIngested clicks Open in the notice of a finished ingest and waits for the source note. */
  const openIngested = async (page) => {
    await page.click('.notice:has(.quire-notice-message:text-matches("Saved")) .quire-notice-button', { timeout: 60_000 });
    await waitFor(page, () => /^Quire\/Sources\/.+\.md$/.test(window.harness.mainNote()?.path ?? ""), undefined, 10_000);
  };

  const sidecars = [];
  const servers = [];
  try {
    // Issue 25's figures alone: they index generated vaults for minutes.
    if (only === "timings") await timingScenarios({ tmp, bin, repo, manifest, log, scenario, expect, newPage, waitFor, vaultFiles, sidecars, Sidecar });
    else {
    // 0. The engine's first run: discovery, the first-run panel per system, pairings of versions.
    if (only !== "eval" && only !== "evalview" && only !== "surfaces" && only !== "sources") await engineScenarios({ tmp, bin, old, mainJs, manifest, kids: allKids, log, scenario, expect, newPage, waitFor, shot, axeCheck, copyVault, vaultFiles });
    // The eval report, a page of its own opened from disk.
    if (only !== "engine" && only !== "evalview" && only !== "surfaces" && only !== "sources") await evalReportScenarios({ tmp, bin, out, context, axeSrc, log, scenario, expect, copyVault });
    // The Evaluate search view, on a sidecar of its own.
    // A git source beside the vault, on a sidecar of its own.
    if (!only || only === "sources") await sourcesScenarios({ tmp, bin, manifest, log, scenario, expect, newPage, waitFor, shots, axeCheck, copyVault, vaultFiles, sidecars, Sidecar });
    if (only !== "engine" && only !== "eval" && only !== "surfaces" && only !== "sources") await evalViewScenarios({ tmp, bin, out, manifest, log, scenario, expect, newPage, waitFor, shots, axeCheck, copyVault, vaultFiles, sidecars, Sidecar });
    // The surfaces, one file each, over the sessions they share.
    if (only !== "engine" && only !== "eval" && only !== "evalview" && only !== "sources") {
    const h = { tmp, bin, old, mainJs, manifest, out, context, axeSrc, kids: allKids, log, scenario, expect, Pending, newPage, waitFor, shot, shots, axeCheck, copyVault, vaultFiles, pageErrors, sidecars, servers, Sidecar, openIngested, repo };
    // 1. Attach to a running sidecar: the related panel, the status view, search, a reconnect.
    const a = await attachScenarios(h);
    await relatedScenarios(h, a);
    await statusViewScenarios(h, a);
    await searchScenarios(h, a);
    await surfacesScenarios(h, a);
    if (only !== "surfaces") {
    await reconnectScenarios(h, a);
    await startScenarios(h);
    // 3. A sidecar whose model is the harness's fake OpenAI-compatible server.
    const d = await modelSession(h);
    await askScenarios(h, d);
    await settingsScenarios(h, d);
    await reviewScenarios(h, d);
    await ingestWithModelScenarios(h, d);
    await d.pageD.evaluate(() => window.harness.unload());
    await d.pageD.close();
    await d.scD.stop();
    // 4. Ingest from the clipboard: a local test site, reached as example.test through the sidecar's test-only host map.
    await ingestScenarios(h, d);
    // 5. Keystroke-to-results of the search modal on a bench corpus.
    await searchBenchScenarios(h);
    }
    }
    }
  } finally {
    await context.close().catch(() => {});
    for (const s of sidecars) await s.stop().catch(() => {});
    for (const k of kids.values()) if (k.exitCode === null) k.kill("SIGKILL");
    pages.close();
    proxy.close();
    for (const s of servers) {
      s.closeAllConnections?.();
      s.close();
    }
    for (const [surface, found] of axeSummary) {
      const by = (i) => found.filter((x) => x.impact === i).length;
      const rules = [...new Set(found.map((x) => `${x.id}(${x.impact})`))].join(", ");
      log(`axe ${surface}: ${by("critical")} critical, ${by("serious")} serious, ${by("moderate")} moderate, ${by("minor")} minor (light and dark)${rules ? `: ${rules}` : ""}`);
    }
    log(`screenshots in ${out}`);
    if (process.env.HARNESS_KEEP !== "1") {
      // Drop the vaults, the binary and the profile; the screenshots live elsewhere.
      await fsp.rm(tmp, { recursive: true, force: true });
    }
  }
  const passed = results.filter((r) => r === true).length;
  const failed = results.filter((r) => r === false).length;
  const pending = results.filter((r) => r === null).length;
  log(`took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.stdout.write(`${passed} passed, ${failed} failed${pending ? `, ${pending} pending` : ""}\n`);
  process.exitCode = failed > 0 || results.length === 0 ? 1 : 0;
}

main().catch((err) => {
  log(err?.stack ?? String(err));
  process.stdout.write(`${results.filter((r) => r === true).length} passed, ${results.filter((r) => r === false).length + 1} failed\n`);
  process.exitCode = 1;
});
