#!/usr/bin/env node
// The browser harness: the BUILT plugin (main.js, styles.css) loaded in
// headless Chromium on a page that stands in for Obsidian (tests/
// obsidian-stub.ts, bundled), talking over real websockets to real
// `quire serve` sidecars on temporary copies of sample-vault/. It builds
// the sidecar and the plugin first, installs Debian's chromium when it is
// missing, writes screenshots to a temporary folder, and ends with the
// line `N passed, N failed`.
//
// Usage: npm --prefix plugin run harness   (HARNESS_OUT=DIR keeps the screenshots there)
import { execFileSync, spawn } from "node:child_process";
import { constants, existsSync, promises as fsp, readFileSync, readdirSync, statSync } from "node:fs";
import { createServer } from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import esbuild from "esbuild";
import { chromium } from "playwright-core";

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

function vaultFiles(dir) {
  const out = {};
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      if (name.startsWith(".")) continue;
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith(".md")) out[relative(dir, full).split("\\").join("/")] = readFileSync(full, "utf8");
    }
  };
  walk(dir);
  return out;
}

/** Sidecar is a `quire serve` the harness runs itself (the plugin attaches to it). */
class Sidecar {
  constructor(bin, vault) {
    this.bin = bin;
    this.vault = vault;
    this.proc = null;
    this.stderr = "";
  }
  async start() {
    const connFile = join(this.vault, ".quire", "sidecar.json");
    await fsp.rm(connFile, { force: true });
    this.proc = spawn(this.bin, ["serve", "--vault", this.vault], { stdio: ["ignore", "ignore", "pipe"] });
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
async function scenario(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    results.push(true);
    log(`ok   ${name} (${Date.now() - t0} ms)`);
  } catch (err) {
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
  const out = process.env.HARNESS_OUT || join(tmp, "screenshots");
  await fsp.mkdir(out, { recursive: true });
  const bin = join(tmp, "quire");
  log("building the sidecar");
  execFileSync("go", ["build", "-o", bin, "./cmd/quire"], { cwd: join(repo, "sidecar"), stdio: "inherit" });
  log("building the plugin");
  execFileSync(process.execPath, ["esbuild.config.mjs", "production"], { cwd: pluginDir, stdio: ["ignore", "ignore", "inherit"] });
  const stub = await esbuild.build({
    entryPoints: [join(pluginDir, "tests", "obsidian-stub.ts")],
    bundle: true,
    format: "iife",
    globalName: "ObsidianStub",
    target: "es2022",
    write: false,
  });
  const manifest = JSON.parse(readFileSync(join(repo, "manifest.json"), "utf8"));
  const mainJs = join(pluginDir, "main.js");
  log(`main.js is ${statSync(mainJs).size} bytes`);
  const read = (p) => () => readFileSync(p);
  const pages = await startPageServer({
    "/page.html": { type: "text/html", body: read(join(here, "page.html")) },
    "/favicon.ico": { type: "image/x-icon", body: () => "" },
    "/page.js": { type: "text/javascript", body: read(join(here, "page.js")) },
    "/theme.css": { type: "text/css", body: read(join(here, "theme.css")) },
    "/styles.css": { type: "text/css", body: read(join(repo, "styles.css")) },
    "/main.js": { type: "text/javascript", body: read(mainJs) },
    "/obsidian-stub.js": { type: "text/javascript", body: () => stub.outputFiles[0].contents },
  });
  const proxy = await startOriginProxy();
  const pageUrl = `http://127.0.0.1:${pages.address().port}/?proxy=${proxy.address().port}`;

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
  await context.exposeFunction("harnessFs", async ({ op, path, mode }) => {
    try {
      if (op === "read") return { text: await fsp.readFile(path, "utf8") };
      if (op === "stat") return { isFile: (await fsp.stat(path)).isFile() };
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
  await context.exposeFunction("harnessSpawn", (id, cmd, args) => {
    try {
      const child = spawn(cmd, args, { stdio: ["ignore", "ignore", "pipe"] });
      const page = currentPage;
      kids.set(id, child);
      pageOf.set(id, page);
      child.stderr.setEncoding("utf8");
      child.stderr.on("data", (d) => void page.evaluate(([i, d]) => window.__harnessChild(i, "stderr", d), [id, d]).catch(() => {}));
      child.on("exit", (code, signal) => {
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

  const newPage = async () => {
    const page = await context.newPage();
    page.on("pageerror", (err) => log(`page error: ${err.message}`));
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
  const waitFor = (page, fn, arg, timeout = 20_000) => page.waitForFunction(fn, arg, { timeout, polling: 100 });

  const sidecars = [];
  try {
    // 1. Attach to a running sidecar; the related panel lists neighbours.
    const vaultA = await copyVault(join(tmp, "vault-a"));
    const scA = new Sidecar(bin, vaultA);
    sidecars.push(scA);
    await scA.start();
    const page = await newPage();
    await scenario("attaches to a running sidecar and shows the index in the status bar", async () => {
      await page.evaluate((a) => window.harness.load(a), {
        basePath: vaultA,
        files: vaultFiles(vaultA),
        settings: { binaryPath: "", stateFolder: "" },
        manifest,
      });
      await waitFor(page, () => /^Quire: \d+ notes?/.test(window.harness.statusText()));
      const text = await page.evaluate(() => window.harness.statusText());
      expect(/^Quire: [1-9]\d* notes/.test(text), `status bar says ${text}`);
    });

    await scenario("the related panel lists the open note's neighbours", async () => {
      await page.evaluate(() => window.harness.command("open-related"));
      await page.waitForSelector(".quire-related .quire-related-empty", { timeout: 5000 });
      const empty = await page.textContent(".quire-related");
      expect(empty.includes("Open a note"), `no-note state says: ${empty}`);
      await page.evaluate(() => window.harness.open("Kitchen/Bread baking log.md"));
      await waitFor(page, () => window.harness.relatedTitles().length > 0);
      const titles = await page.evaluate(() => window.harness.relatedTitles());
      log(`related to Bread baking log: ${titles.join(" | ")}`);
      expect(!titles.includes("Bread baking log"), "the note itself is listed");
      expect(titles.slice(0, 3).includes("Sourdough starter"), `Sourdough starter not in the top 3: ${titles}`);
      const crumb = await page.$$eval(".quire-related-item .quire-related-snippet", (els) => els.map((e) => e.textContent));
      expect(crumb.every((s) => s.length > 0 && s.length <= 161), `snippets: ${crumb}`);
      await shot(page, "related-light.png");
      await page.evaluate(() => window.harness.theme("dark"));
      await shot(page, "related-dark.png");
      await page.evaluate(() => window.harness.theme("light"));
    });

    await scenario("clicking a related note opens it at its passage", async () => {
      const target = await page.$eval(".quire-related-item", (el) => el.getAttribute("data-path"));
      await page.click(".quire-related-item");
      await waitFor(page, (p) => window.harness.mainNote()?.path === p && window.harness.mainNote()?.line !== null, target);
      const note = await page.evaluate(() => window.harness.mainNote());
      expect(note.path === target, `opened ${note.path}, want ${target}`);
      const hl = await page.textContent(".cm-line.is-target");
      log(`opened ${note.path} at line ${note.line}: ${hl}`);
      expect(hl !== null, "no line highlighted");
      await shot(page, "related-click-opened.png");
    });

    await scenario("typing refreshes the panel after a pause", async () => {
      await page.evaluate(() => window.harness.open("Welcome.md"));
      await waitFor(page, () => window.harness.relatedTitles().length > 0);
      await page.evaluate(() =>
        window.harness.type("# Garden notes\n\nTomatoes need sun, water at the roots, and support as they grow. Repot the monstera."),
      );
      await waitFor(page, () => ["Rajčata", "Monstera care"].includes(window.harness.relatedTitles()[0]));
      const titles = await page.evaluate(() => window.harness.relatedTitles());
      log(`related while typing about the garden: ${titles.join(" | ")}`);
      await shot(page, "related-typing.png");
    });

    await scenario("the status view shows coverage and files", async () => {
      await page.click(".quire-status");
      await page.waitForSelector(".quire-status-table", { timeout: 5000 });
      const text = await page.textContent(".quire-status-view");
      expect(text.includes("Notes") && text.includes("Skipped files"), `status view: ${text}`);
      await shot(page, "status-view.png");
      await page.evaluate(() => window.harness.stub.Modal.openForTest.forEach((m) => m.close()));
    });

    await scenario("a dropped sidecar shows offline, then the plugin reconnects", async () => {
      await page.evaluate(() => window.harness.open("Kitchen/Bread baking log.md"));
      await waitFor(page, () => window.harness.relatedTitles().length > 0);
      await scA.stop();
      await waitFor(page, () => window.harness.statusText() === "Quire: offline");
      await page.waitForSelector(".quire-related-offline", { timeout: 5000 });
      await shot(page, "related-offline.png");
      await scA.start();
      await waitFor(page, () => /^Quire: \d+ notes?/.test(window.harness.statusText()), undefined, 30_000);
      await waitFor(page, () => window.harness.relatedTitles().length > 0);
    });
    await page.evaluate(() => window.harness.unload());
    await page.close();
    await scA.stop();

    // 2. No sidecar runs: the plugin starts one from the binary path, and stops it on unload.
    const vaultB = await copyVault(join(tmp, "vault-b"));
    const pageB = await newPage();
    await scenario("starts the sidecar from the binary path and stops it on unload", async () => {
      await pageB.evaluate((a) => window.harness.load(a), {
        basePath: vaultB,
        files: vaultFiles(vaultB),
        settings: { binaryPath: bin, stateFolder: "" },
        manifest,
      });
      await waitFor(pageB, () => /^Quire: \d+ notes?/.test(window.harness.statusText()), undefined, 60_000);
      await pageB.evaluate(() => window.harness.command("open-related"));
      await pageB.evaluate(() => window.harness.open("Garden/Monstera care.md"));
      await waitFor(pageB, () => window.harness.relatedTitles().length > 0);
      const kid = [...kids.values()].at(-1);
      expect(kid && kid.exitCode === null, "no sidecar process was started");
      const exited = new Promise((r) => (kid.exitCode !== null ? r() : kid.once("exit", r)));
      await pageB.evaluate(() => window.harness.unload());
      await Promise.race([exited, new Promise((_, rej) => setTimeout(() => rej(new Error("sidecar still runs 10 s after unload")), 10_000))]);
      expect(!existsSync(join(vaultB, ".quire", "sidecar.json")), "sidecar.json left behind");
    });
    await scenario("without a binary the plugin says where to set it", async () => {
      const vaultC = await copyVault(join(tmp, "vault-c"));
      const pageC = await newPage();
      await pageC.evaluate((a) => window.harness.load(a), {
        basePath: vaultC,
        files: vaultFiles(vaultC),
        settings: { binaryPath: join(tmp, "no-such-quire"), stateFolder: "" },
        manifest,
      });
      await pageC.evaluate(() => window.harness.command("open-related"));
      await pageC.evaluate(() => window.harness.open("Welcome.md"));
      await pageC.waitForSelector(".quire-related-offline", { timeout: 5000 });
      const notices = await pageC.evaluate(() => window.harness.stub.Notice.shown);
      expect(notices.some((n) => n.includes("not found") && n.includes("Settings")), `notices: ${notices}`);
      expect((await pageC.evaluate(() => window.harness.statusText())) === "Quire: offline", "status bar");
      await pageC.evaluate(() => window.harness.unload());
      await pageC.close();
    });
  } finally {
    await context.close().catch(() => {});
    for (const s of sidecars) await s.stop().catch(() => {});
    for (const k of kids.values()) if (k.exitCode === null) k.kill("SIGKILL");
    pages.close();
    proxy.close();
    log(`screenshots in ${out}`);
    if (!process.env.HARNESS_OUT && process.env.HARNESS_KEEP !== "1") {
      // Keep the screenshots, drop the vaults, the binary and the profile.
      for (const name of await fsp.readdir(tmp)) if (name !== "screenshots") await fsp.rm(join(tmp, name), { recursive: true, force: true });
    }
  }
  const passed = results.filter(Boolean).length;
  const failed = results.length - passed;
  log(`took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  process.exitCode = failed > 0 || results.length === 0 ? 1 : 0;
}

main().catch((err) => {
  log(err?.stack ?? String(err));
  process.stdout.write(`${results.filter(Boolean).length} passed, ${results.filter((r) => !r).length + 1} failed\n`);
  process.exitCode = 1;
});
