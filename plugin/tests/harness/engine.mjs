// The engine's first run in the browser harness: discovery finds nothing,
// the first-run panel downloads the engine from a FAKE RELEASE SERVER (a
// local HTTP server laid out as GitHub's release downloads), checked
// against the SHA-256 compiled into a release build of main.js; a
// tampered file is refused and never run; an engine of another version is
// said plainly and updated; an engine the plugin started that is killed
// is started again.
//
// The released "engine" is a small launcher script that execs the quire
// this harness built (the real 74 MB binary would cross the page's fs
// shim as base64 at every download); it is padded to a few MB so that the
// progress bar has something to show. Everything else is real: the
// plugin's download, gunzip, SHA-256 and size checks, the files in a
// temporary home folder, and `quire serve` on a copy of sample-vault.
import { randomBytes } from "node:crypto";
import { existsSync, promises as fsp, statSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

/** makeRelease writes the fake release's engine asset into dir/<version>/ and returns its bytes. */
export async function makeRelease(dir, version, bin) {
  const padding = [];
  // Random text lines after `exec`, which the shell never reads: a 2 MB download.
  for (let i = 0; i < 28_000; i++) padding.push(`# ${randomBytes(54).toString("base64")}`);
  const script = `#!/bin/sh\n# A stand-in for the release's engine, served by the harness's fake release server.\nexec '${bin}' "$@"\n${padding.join("\n")}\n`;
  const gz = gzipSync(Buffer.from(script));
  const folder = join(dir, version);
  await fsp.mkdir(folder, { recursive: true });
  const file = `quire_${version}_linux_amd64.gz`;
  await fsp.writeFile(join(folder, file), gz);
  return { folder, file, gz };
}

/**
 * startFakeRelease serves <version>/<file> as GitHub does, to any origin
 * (the page fetches it). mode "tamper" flips one byte (same size, other
 * hash); hold() stops the transfer at 40 % until its release is called.
 */
export function startFakeRelease(version, file, gz) {
  const state = { mode: "ok", gate: null, hits: [] };
  const server = createServer(async (req, res) => {
    state.hits.push(req.url);
    const cors = { "access-control-allow-origin": "*" };
    if (req.url !== `/${version}/${file}`) {
      res.writeHead(404, { ...cors, "content-type": "text/plain" }).end("Not Found");
      return;
    }
    let data = gz;
    if (state.mode === "tamper") {
      data = Buffer.from(gz);
      data[data.length >> 1] ^= 0x55;
    }
    res.writeHead(200, { ...cors, "content-type": "application/octet-stream", "content-length": data.length });
    for (let i = 0; i < data.length && !res.destroyed; i += 64 * 1024) {
      if (state.gate && i >= data.length * 0.4) await state.gate.promise;
      if (!res.write(data.subarray(i, i + 64 * 1024))) await new Promise((r) => res.once("drain", r));
      // A steady pace, as over a real network, so that progress shows.
      await new Promise((r) => setTimeout(r, 10));
    }
    res.end();
  });
  state.hold = () => {
    let release;
    const promise = new Promise((r) => (release = r));
    state.gate = { promise };
    return () => {
      state.gate = null;
      release();
    };
  };
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, state })));
}

/** engineScenarios runs the first-run, download, refusal, mismatch and restart scenarios; h is run.mjs's toolbox. */
export async function engineScenarios(h) {
  const { tmp, bin, manifest, kids, log, scenario, expect, newPage, waitFor, shot, axeCheck, copyVault, vaultFiles, servers } = h;
  const version = manifest.version;
  const { server, state } = await startFakeRelease(version, h.release.file, h.release.gz);
  servers.push(server);
  const releaseUrl = `http://127.0.0.1:${server.address().port}`;
  const dataEngine = (home) => join(home, ".local", "share", "quire", "engines", version, "quire");
  const serveKids = () => kids.filter((k) => k.spawnargs.includes("serve"));
  const online = (page, timeout = 60_000) => waitFor(page, () => /^Quire: \d+ notes?/.test(window.harness.statusText()), undefined, timeout);
  const load = async (name, { path = "", main = "/main-release.js" } = {}) => {
    const home = join(tmp, `home-${name}`);
    await fsp.mkdir(home, { recursive: true });
    const vault = await copyVault(join(tmp, `vault-${name}`));
    const page = await newPage();
    await page.evaluate((a) => window.harness.load(a), {
      basePath: vault,
      files: vaultFiles(vault),
      settings: { binaryPath: "", stateFolder: "", releaseUrl },
      manifest,
      env: { HOME: home, PATH: path },
      main,
    });
    return { page, home, vault };
  };

  // 1. Nothing anywhere: the first-run panel, the download with its progress, the engine started from it.
  // (An engine an earlier plugin version downloaded is not this version's: it is removed once the new one serves.)
  const olderEngine = join(tmp, "home-first-run", ".local", "share", "quire", "engines", "0.0.1", "quire");
  await fsp.mkdir(join(olderEngine, ".."), { recursive: true });
  await fsp.writeFile(olderEngine, "#!/bin/sh\nexit 1\n", { mode: 0o755 });
  const first = await load("first-run");
  const { page } = first;
  await scenario("first run: no engine anywhere opens the first-run panel with the download's size and address", async () => {
    await page.waitForSelector(".quire-engine-modal", { timeout: 20_000 });
    const text = await page.textContent(".quire-engine-modal");
    expect(text.includes("was not found"), `panel: ${text}`);
    expect(text.includes(`${h.release.file}, ${(h.release.gz.length / 1e6).toFixed(1)} MB`), `no size in: ${text}`);
    expect(text.includes(`${releaseUrl}/${version}/${h.release.file}`), `no address in: ${text}`);
    expect(text.includes(join(first.home, ".local", "share", "quire")), `no data folder in: ${text}`);
    expect(serveKids().length === 0, "an engine was started");
    await shot(page, "first-run.png");
    await axeCheck(page, "first-run panel", ".quire-engine-modal");
  });
  await scenario("first run: Cancel stops the download and keeps nothing", async () => {
    const release = state.hold();
    await page.click(".quire-engine-modal button.mod-cta");
    await waitFor(page, () => Number(/\((\d+)%\)/.exec(document.querySelector(".quire-engine-progress-text")?.textContent ?? "")?.[1] ?? 0) >= 35);
    await page.click(".quire-engine-modal button:text-is('Cancel')");
    await page.waitForSelector(".quire-engine-modal button.mod-cta:text-matches('^Download')", { timeout: 10_000 });
    release();
    const dir = join(first.home, ".local", "share", "quire", "engines", version);
    const left = existsSync(dir) ? await fsp.readdir(dir) : [];
    expect(left.length === 0, `left after Cancel in ${dir}: ${left}`);
    expect(serveKids().length === 0, "an engine was started");
  });
  await scenario("first run: Download shows progress, checks the file, keeps it in the data folder and starts it with --parent-pid", async () => {
    const release = state.hold();
    await page.click(".quire-engine-modal button.mod-cta");
    // The server holds the transfer at 40 %: the shot shows a bar part way.
    await waitFor(page, () => Number(/\((\d+)%\)/.exec(document.querySelector(".quire-engine-progress-text")?.textContent ?? "")?.[1] ?? 0) >= 35);
    const progress = await page.textContent(".quire-engine-progress-text");
    log(`download progress: ${progress}`);
    expect(await page.$(".quire-engine-modal button:text-is('Cancel')"), "no Cancel button while downloading");
    await shot(page, "first-run-download.png");
    release();
    await online(page);
    const path = dataEngine(first.home);
    expect(existsSync(path) && (statSync(path).mode & 0o111) !== 0, `${path} missing or not executable`);
    expect(!existsSync(`${path}.download`), "partial file left");
    const kid = serveKids().at(-1);
    expect(kid && kid.spawnfile === path, `started ${kid?.spawnfile}`);
    const args = kid.spawnargs;
    expect(args[args.indexOf("--parent-pid") + 1] === String(process.pid), `args: ${args.join(" ")}`);
    expect(state.hits.filter((u) => u.endsWith(".gz")).length === 2, `release hits (one cancelled, one whole): ${state.hits}`);
    // The panel closes once the engine serves, and a notice says so.
    await waitFor(page, () => !document.querySelector(".quire-engine-modal"));
    const notices = await page.evaluate(() => window.harness.notices());
    expect(notices.some((n) => n.includes(`Quire's engine ${version} is installed and running.`)), `notices: ${notices}`);
    const deadline = Date.now() + 10_000;
    while (existsSync(join(olderEngine, "..")) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(!existsSync(join(olderEngine, "..")), `the older engine was not removed: ${olderEngine}`);
  });
  await scenario("an engine the plugin started that is killed is started again, and the status view says so", async () => {
    const before = serveKids().at(-1);
    before.kill("SIGKILL");
    const deadline = Date.now() + 60_000;
    while (serveKids().at(-1) === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const after = serveKids().at(-1);
    expect(after !== before && after.exitCode === null, "no new engine");
    await online(page);
    await page.evaluate(() => window.harness.command("show-status"));
    await page.waitForSelector(".modal :text('Restarts')", { timeout: 10_000 });
    const text = await page.textContent(".modal");
    log(`status after the restart: ${text.replace(/\s+/g, " ").slice(0, 400)}`);
    expect(/1 after a crash \(last: killed by SIGKILL\)/.test(text), `status: ${text}`);
    expect(text.includes("downloaded by the plugin"), `status: ${text}`);
    await shot(page, "engine-restarted.png");
    await axeCheck(page, "status view (engine)", ".modal");
    await page.evaluate(() => window.harness.closeModals());
  });
  await scenario("unload stops the engine it started with the websocket's shutdown request", async () => {
    const kid = serveKids().at(-1);
    const exited = new Promise((r) => (kid.exitCode !== null || kid.signalCode !== null ? r() : kid.once("exit", r)));
    await page.evaluate(() => window.harness.unload());
    await Promise.race([exited, new Promise((_, rej) => setTimeout(() => rej(new Error("engine still runs 10 s after unload")), 10_000))]);
    expect(kid.signalCode === null && kid.exitCode === 0, `engine ended with ${kid.signalCode ?? kid.exitCode}, not a clean exit`);
    expect(!existsSync(join(first.vault, ".quire", "sidecar.json")), "sidecar.json left behind");
  });
  await page.close();

  // 2. A tampered file: refused, thrown away, never run.
  await scenario("a download whose SHA-256 does not match is refused, kept nowhere and never run", async () => {
    const { page, home } = await load("bad-checksum");
    await page.waitForSelector(".quire-engine-modal", { timeout: 20_000 });
    state.mode = "tamper";
    const kidsBefore = kids.length;
    await page.click(".quire-engine-modal button.mod-cta");
    await page.waitForSelector(".quire-engine-error", { timeout: 30_000 });
    const msg = await page.textContent(".quire-engine-error");
    log(`refusal: ${msg}`);
    expect(msg.includes("does not match the SHA-256 this plugin was built with") && msg.includes("never run"), `error: ${msg}`);
    await shot(page, "download-bad-checksum.png");
    await axeCheck(page, "first-run panel (refused)", ".quire-engine-modal");
    const dir = join(home, ".local", "share", "quire", "engines", version);
    const left = existsSync(dir) ? await fsp.readdir(dir) : [];
    expect(left.length === 0, `left in ${dir}: ${left}`);
    expect(kids.length === kidsBefore, "a process was started after the refused download");
    expect((await page.evaluate(() => window.harness.statusText())) === "Quire: offline", "status bar");
    state.mode = "ok";
    await page.evaluate(() => window.harness.closeModals());
    await page.evaluate(() => window.harness.unload());
    await page.close();
  });

  // 3. An older engine on PATH: said plainly, never started, updated by the download.
  await scenario("an engine of another version is said plainly with Update the engine, which downloads the matching build", async () => {
    const oldDir = join(tmp, "old-engine-bin");
    await fsp.mkdir(oldDir, { recursive: true });
    const marker = join(oldDir, "started");
    await fsp.writeFile(
      join(oldDir, "quire"),
      `#!/bin/sh\n# An engine of an older release.\nif [ "$1" = version ]; then echo '{"version":"0.0.9"}'; exit 0; fi\ntouch '${marker}'\nexec '${bin}' "$@"\n`,
      { mode: 0o755 },
    );
    const { page, home } = await load("mismatch", { path: `${oldDir}:${join(tmp, "no-such-dir")}` });
    await page.waitForSelector(".quire-engine-modal", { timeout: 20_000 });
    const title = await page.textContent(".quire-engine-modal .modal-title");
    const text = await page.textContent(".quire-engine-modal .modal-content");
    expect(title === "Update Quire's engine", `title: ${title}`);
    expect(text.includes(`The engine at ${join(oldDir, "quire")} is version 0.0.9; this plugin needs version ${version}.`), `panel: ${text}`);
    const button = await page.textContent(".quire-engine-modal button.mod-cta");
    expect(button.startsWith("Update the engine"), `button: ${button}`);
    await shot(page, "engine-version-mismatch.png");
    await axeCheck(page, "update panel", ".quire-engine-modal");
    expect(!existsSync(marker) && serveKids().every((k) => k.spawnfile !== join(oldDir, "quire")), "the old engine was started");
    await page.click(".quire-engine-modal button.mod-cta");
    await online(page);
    expect(serveKids().at(-1).spawnfile === dataEngine(home), `started ${serveKids().at(-1).spawnfile}`);
    expect(!existsSync(marker), "the old engine was started");
    await page.evaluate(() => window.harness.closeModals());
    await page.evaluate(() => window.harness.unload());
    await page.close();
  });

  // 4. An engine that keeps dying: three restarts, then one notice whose Show log holds its last stderr lines.
  await scenario("after three restarts the plugin gives up with one notice; Show log holds the engine's last stderr lines", async () => {
    const home = join(tmp, "home-gave-up");
    await fsp.mkdir(join(dataEngine(home), ".."), { recursive: true });
    await fsp.writeFile(dataEngine(home), `#!/bin/sh\nexec '${bin}' "$@"\n`, { mode: 0o755 });
    const { page } = await load("gave-up");
    await online(page);
    for (let i = 0; i <= 3; i++) {
      const kid = serveKids().at(-1);
      kid.kill("SIGKILL");
      if (i === 3) break;
      const deadline = Date.now() + 60_000;
      while (serveKids().at(-1) === kid && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(serveKids().at(-1) !== kid, `no restart ${i + 1}`);
      await online(page);
    }
    const notice = '.notice:has(.quire-notice-message:text-matches("after 3 restarts")) .quire-notice-button';
    await page.waitForSelector(notice, { timeout: 20_000 });
    const count = serveKids().length;
    await page.click(notice);
    await page.waitForSelector(".modal:has(.quire-engine-log)", { timeout: 5000 });
    const logText = await page.textContent(".quire-engine-log");
    log(`Show log: ${logText.split("\n").length} lines, last: ${logText.split("\n").at(-1).slice(0, 160)}`);
    expect(logText.trim() !== "" && logText !== "(it wrote nothing)", `log: ${logText}`);
    await shot(page, "engine-gave-up.png");
    await axeCheck(page, "engine log", ".modal:has(.quire-engine-log)");
    // (That no engine starts later is lifecycle.test.ts's to show, without a wait here.)
    expect(serveKids().length === count, "an engine was started after the plugin gave up");
    expect((await page.evaluate(() => window.harness.statusText())) === "Quire: offline", "status bar");
    await page.evaluate(() => window.harness.closeModals());
    await page.evaluate(() => window.harness.unload());
    await page.close();
  });

  // 5. A development build carries no checksums: it says so and offers no download.
  await scenario("a development build (no checksums in main.js) offers no download and says why", async () => {
    const { page } = await load("dev-build", { main: "/main.js" });
    await page.waitForSelector(".quire-engine-modal", { timeout: 20_000 });
    const text = await page.textContent(".quire-engine-modal");
    expect(text.includes("development build") && text.includes("will not download"), `panel: ${text}`);
    expect((await page.$(".quire-engine-modal button.mod-cta")) === null, "a download button in a development build");
    await shot(page, "first-run-dev-build.png");
    await page.evaluate(() => window.harness.closeModals());
    await page.evaluate(() => window.harness.unload());
    await page.close();
  });
}
