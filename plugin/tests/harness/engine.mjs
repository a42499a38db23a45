// The engine's first run in the browser harness. The plugin never
// downloads or installs an engine (Obsidian's developer policies): with
// none anywhere, the first-run panel names the system and shows the one
// command that installs it there (Linux for real; macOS and Windows faked
// in the page's process and fs shims), and an engine put on PATH while
// the panel is open is noticed by itself and started. Then the pairings
// of versions: an engine older than the plugin and one newer, over their
// protocol ranges; a restart after a crash; the give-up after three.
//
// One pairing each way is a real older release: the engine and the plugin
// as they were at OLD_COMMIT (oldRelease builds them from git). The other
// "engines" are small launcher scripts that answer `version --json` as an
// engine of that release would and exec the quire this harness built for
// everything else, so `quire serve` is real.
import { execFileSync } from "node:child_process";
import { existsSync, promises as fsp } from "node:fs";
import { join } from "node:path";

/**
 * OLD_COMMIT is the older release the real pairings use: the last commit
 * before lint.run (protocol 1 with ranges, the state folder's proof), so
 * its engine lacks a request this plugin sends and its plugin predates
 * everything added since (the heading path as a list, dates in search
 * results, type-ahead).
 */
export const OLD_COMMIT = "6755b1244205ca1c5518ddf7887b1d3d39f4cbde";

/**
 * oldRelease builds an older commit's engine (OLD_COMMIT's unless told;
 * go build, cgo as usual, the Go build cache shared with this tree's: the
 * modules are the same) and its
 * plugin (esbuild with this tree's node_modules: its package-lock.json is
 * the same) into repo/tmp/old-release/<commit>/, from `git archive`, and
 * reuses them while they are there. It needs the commit in the clone's
 * history (CI's checkout fetches it all).
 */
export function oldRelease(repo, log, commit = OLD_COMMIT) {
  const dir = join(repo, "tmp", "old-release", commit.slice(0, 12));
  const bin = join(dir, "quire");
  const mainJs = join(dir, "main.js");
  const version = `0.1.0-${commit.slice(0, 7)}`;
  if (existsSync(bin) && existsSync(mainJs)) return { bin, mainJs, version };
  const started = Date.now();
  const src = join(dir, "src");
  execFileSync("rm", ["-rf", src]);
  execFileSync("mkdir", ["-p", src]);
  try {
    execFileSync("sh", ["-c", `git -C '${repo}' archive ${commit} manifest.json proto sidecar plugin/src plugin/esbuild.config.mjs | tar -x -C '${src}'`], { stdio: ["ignore", "ignore", "inherit"] });
  } catch (err) {
    throw new Error(`the older release ${commit} is not in this clone's history (fetch it all: git fetch --unshallow): ${err}`);
  }
  log(`building the older release's engine and plugin (${commit.slice(0, 12)})`);
  execFileSync("go", ["build", "-ldflags", `-X github.com/quire-app/quire/sidecar/buildinfo.version=${version}`, "-o", `${bin}.tmp`, "./cmd/quire"], { cwd: join(src, "sidecar"), env: { ...process.env, GOWORK: "off" }, stdio: "inherit" });
  execFileSync("ln", ["-sfn", join(repo, "plugin", "node_modules"), join(src, "plugin", "node_modules")]);
  execFileSync(process.execPath, [join(src, "plugin", "esbuild.config.mjs"), "production"], { cwd: join(src, "plugin"), env: { ...process.env, QUIRE_PLUGIN_OUT: mainJs }, stdio: ["ignore", "ignore", "inherit"] });
  execFileSync("mv", [`${bin}.tmp`, bin]);
  log(`older release built in ${Math.round((Date.now() - started) / 1000)} s`);
  return { bin, mainJs, version };
}

/** launcher writes dir/quire: a script that prints versionJson for `version --json` and runs bin otherwise. */
async function launcher(dir, bin, versionJson) {
  await fsp.mkdir(dir, { recursive: true });
  const path = join(dir, "quire");
  const version = versionJson ? `if [ "$1" = version ]; then echo '${versionJson}'; exit 0; fi\n` : "";
  await fsp.writeFile(path, `#!/bin/sh\n# A stand-in engine for the harness.\n${version}exec '${bin}' "$@"\n`, { mode: 0o755 });
  return path;
}

/** engineScenarios runs the first-run, per-system, pairing and restart scenarios; h is run.mjs's toolbox. */
export async function engineScenarios(h) {
  const { tmp, bin, old, mainJs, manifest, kids, log, scenario, expect, newPage, waitFor, shot, axeCheck, copyVault, vaultFiles } = h;
  const version = manifest.version;
  const serveKids = () => kids.filter((k) => k.spawnargs.includes("serve"));
  const online = (page, timeout = 60_000) => waitFor(page, () => /^Quire: \d+ notes?/.test(window.harness.statusText()), undefined, timeout);
  const load = async (name, { path = "", env = {}, main, ...system } = {}) => {
    const home = join(tmp, `home-${name}`);
    await fsp.mkdir(home, { recursive: true });
    const vault = await copyVault(join(tmp, `vault-${name}`));
    const page = await newPage();
    await page.evaluate((a) => window.harness.load(a), {
      basePath: vault,
      files: vaultFiles(vault),
      settings: { binaryPath: "", stateFolder: "" },
      manifest,
      env: { HOME: home, PATH: path, ...env },
      main,
      ...system,
    });
    return { page, home, vault };
  };
  const panelText = (page) => page.textContent(".quire-engine-modal");
  const command = (page) => page.textContent(".quire-engine-modal .quire-engine-command");
  const close = async (page) => {
    await page.evaluate(() => window.harness.closeModals());
    await page.evaluate(() => window.harness.unload());
    await page.close();
  };

  // 1. Linux, nothing anywhere: the panel with this machine's command; an engine put on PATH while it is open starts by itself.
  const pathDir = join(tmp, "first-run-bin");
  await fsp.mkdir(pathDir, { recursive: true });
  const first = await load("first-run", { path: `${pathDir}:${join(tmp, "no-such-dir")}` });
  const { page } = first;
  await scenario("first run (Linux): no engine anywhere opens the panel with this system and its one install command", async () => {
    await page.waitForSelector(".quire-engine-modal", { timeout: 20_000 });
    const text = await panelText(page);
    const cmd = await command(page);
    log(`first-run panel: ${text.replace(/\s+/g, " ").slice(0, 300)}`);
    expect(text.includes("is not on this computer yet"), `panel: ${text}`);
    // This machine is Debian: the .deb of this release.
    expect(/On Debian GNU\/Linux .* on x86-64, install it with the \.deb package:/.test(text), `panel: ${text}`);
    expect(cmd === `curl -fLO https://github.com/quire-app/quire/releases/download/${version}/quire_${version}_linux_amd64.deb && sudo apt install ./quire_${version}_linux_amd64.deb`, `command: ${cmd}`);
    expect(serveKids().length === 0, "an engine was started");
    await shot(page, "first-run-linux.png");
    await axeCheck(page, "first-run panel", ".quire-engine-modal");
  });
  await scenario("first run: Copy puts the command on the clipboard; Check again says nothing is there yet", async () => {
    await page.click(".quire-engine-modal button:text-is('Copy')");
    await waitFor(page, () => !!document.querySelector(".quire-engine-modal button.mod-cta")?.textContent?.startsWith("Copied"));
    const clip = await page.evaluate(() => window.harness.clipboard());
    expect(clip === (await command(page)), `clipboard: ${clip}`);
    await page.click(".quire-engine-modal button:text-is('Check again')");
    await waitFor(page, () => document.querySelector(".quire-engine-state")?.textContent === "No engine found yet.");
  });
  await scenario("first run: an engine put on PATH while the panel is open is noticed within seconds and started with --parent-pid", async () => {
    const put = Date.now();
    const path = await launcher(pathDir, bin);
    await online(page);
    const took = Date.now() - put;
    log(`engine put on PATH noticed and online after ${took} ms`);
    expect(took < 15_000, `took ${took} ms`);
    await waitFor(page, () => !document.querySelector(".quire-engine-modal"));
    const kid = serveKids().at(-1);
    expect(kid && kid.spawnfile === path, `started ${kid?.spawnfile}`);
    const args = kid.spawnargs;
    expect(args[args.indexOf("--parent-pid") + 1] === String(process.pid), `args: ${args.join(" ")}`);
    const notices = await page.evaluate(() => window.harness.notices());
    expect(notices.some((n) => n.includes("Quire's engine") && n.includes("is running.")), `notices: ${notices}`);
  });
  await scenario("an engine the plugin started that is killed is started again, and the status view says where it was found", async () => {
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
    expect(/1 after a crash \(last: killed by SIGKILL\)/.test(text), `status: ${text}`);
    expect(text.includes("found on PATH"), `status: ${text}`);
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

  // 2. The same panel on the other systems, faked in the page: the right command for each.
  const systems = [
    { name: "macOS with Homebrew", platform: "darwin", arch: "arm64", present: ["/opt/homebrew/bin/brew"], system: "macOS on Apple silicon", cmd: "brew install quire-app/tap/quire", shot: "first-run-macos.png" },
    {
      name: "Windows with winget",
      platform: "win32",
      arch: "x64",
      env: { LOCALAPPDATA: "C:\\Users\\ada\\AppData\\Local", USERPROFILE: "C:\\Users\\ada" },
      present: ["C:\\Users\\ada\\AppData\\Local\\Microsoft\\WindowsApps\\winget.exe"],
      system: "Windows on x86-64",
      cmd: "winget install Quire.Quire",
      shot: "first-run-windows.png",
    },
    { name: "Fedora", platform: "linux", arch: "arm64", osRelease: 'NAME="Fedora Linux"\nID=fedora\nPRETTY_NAME="Fedora Linux 41 (Workstation Edition)"\n', system: "Fedora Linux 41 (Workstation Edition) on ARM64", cmd: `sudo dnf install https://github.com/quire-app/quire/releases/download/${version}/quire_${version}_linux_arm64.rpm`, shot: "first-run-fedora.png" },
  ];
  for (const s of systems) {
    await scenario(`first run (${s.name}, faked): the panel names the system and shows ${s.cmd.split(" ").slice(0, 2).join(" ")}…`, async () => {
      const { page } = await load(`system-${s.platform}-${s.arch}`, { platform: s.platform, arch: s.arch, env: s.env ?? {}, present: s.present, osRelease: s.osRelease });
      await page.waitForSelector(".quire-engine-modal", { timeout: 20_000 });
      const text = await panelText(page);
      expect(text.includes(`On ${s.system}, install it with`), `panel: ${text}`);
      expect((await command(page)) === s.cmd, `command: ${await command(page)}`);
      await shot(page, s.shot);
      await close(page);
    });
  }

  // 3. Pairings. An engine older than the plugin whose protocol the plugin speaks: started, no complaint.
  await scenario("an older engine (from before protocol ranges: its version --json names no protocol) with this plugin: started and serving, nothing to say", async () => {
    const path = await launcher(join(tmp, "older-engine-bin"), bin, '{"version":"0.0.9","os":"linux"}');
    const { page } = await load("older-engine", { path: join(tmp, "older-engine-bin") });
    await online(page);
    expect(serveKids().at(-1).spawnfile === path, `started ${serveKids().at(-1).spawnfile}`);
    expect((await page.$(".quire-engine-modal")) === null, "a panel opened");
    const notices = await page.evaluate(() => window.harness.notices());
    expect(notices.length === 0, `notices: ${notices}`);
    await close(page);
  });
  await scenario(`a real older engine (${old.version}, built from git: it lacks lint.run) with this plugin: started and serving, and says once what it lacks, with the upgrade`, async () => {
    if (old.error) throw old.error;
    const dir = join(tmp, "real-older-engine-bin");
    // The launcher answers nothing itself: `version --json` is the older engine's own.
    const path = await launcher(dir, old.bin);
    const { page } = await load("real-older-engine", { path: dir });
    await online(page);
    expect(serveKids().at(-1).spawnfile === path, `started ${serveKids().at(-1).spawnfile}`);
    expect((await page.$(".quire-engine-modal")) === null, "a panel opened");
    await waitFor(page, () => window.harness.notices().some((n) => n.includes("lacks")));
    const notices = await page.evaluate(() => window.harness.notices());
    log(`real older engine: ${notices.join(" | ")}`);
    const lacks = notices.map((n) => new RegExp(`^Quire's engine ${old.version} is older than this plugin and lacks (.+); the rest works\\.`).exec(n)?.[1]).find(Boolean);
    expect(lacks?.split(", ").includes("lint.run"), `notices: ${notices}`);
    // The rest works: a search through it.
    await page.evaluate(() => window.harness.command("search-vault"));
    await page.waitForSelector(".quire-search-input", { timeout: 5000 });
    await page.type(".quire-search-input", "sourdough starter feeding", { delay: 20 });
    await waitFor(page, () => document.querySelector(".quire-search-results")?.getAttribute("data-query") === "sourdough starter feeding" && document.querySelectorAll(".quire-search-item").length > 0);
    const first = await page.$eval(".quire-search-item", (e) => e.getAttribute("data-path"));
    expect(/sourdough/i.test(first ?? ""), `first result: ${first}`);
    await shot(page, "engine-real-older.png");
    await close(page);
  });
  await scenario(`this engine with a real older plugin (${old.version}'s main.js, built from git): started and serving, and its search shows this engine's results`, async () => {
    if (old.error) throw old.error;
    const [older, current] = await Promise.all([fsp.readFile(old.mainJs), fsp.readFile(mainJs)]);
    expect(!older.equals(current), "the older plugin's main.js is this one's");
    const dir = join(tmp, "older-plugin-bin");
    const path = await launcher(dir, bin);
    const { page } = await load("older-plugin", { path: dir, main: "/main-old.js" });
    await online(page);
    expect(serveKids().at(-1).spawnfile === path, `started ${serveKids().at(-1).spawnfile}`);
    expect((await page.$(".quire-engine-modal")) === null, "a panel opened");
    await page.evaluate(() => window.harness.command("search-vault"));
    await page.waitForSelector(".quire-search-input", { timeout: 5000 });
    await page.type(".quire-search-input", "sourdough starter feeding", { delay: 20 });
    await waitFor(page, () => document.querySelector(".quire-search-results")?.getAttribute("data-query") === "sourdough starter feeding" && document.querySelectorAll(".quire-search-item").length > 0);
    const rows = await page.$$eval(".quire-search-item", (els) => els.map((e) => ({ path: e.getAttribute("data-path"), title: e.querySelector(".quire-search-title")?.textContent ?? "", text: e.textContent ?? "" })));
    log(`older plugin's search: ${rows.slice(0, 3).map((r) => `${r.path} "${r.text.slice(0, 80)}"`).join(" | ")}`);
    expect(/sourdough/i.test(rows[0]?.path ?? ""), `first result: ${rows[0]?.path}`);
    expect(rows.every((r) => !/undefined|\[object Object\]/.test(r.text)), `rows: ${JSON.stringify(rows.slice(0, 3))}`);
    const errors = await page.evaluate(() => window.harness.notices().filter((n) => /error|failed|could not/i.test(n)));
    expect(errors.length === 0, `notices: ${errors}`);
    await shot(page, "plugin-real-older.png");
    await close(page);
  });
  await scenario("an engine too old for the plugin (no protocol it speaks) is never started: the panel shows the upgrade, and an upgraded one is noticed", async () => {
    const dir = join(tmp, "too-old-bin");
    const marker = join(dir, "started");
    await fsp.mkdir(dir, { recursive: true });
    await fsp.writeFile(join(dir, "quire"), `#!/bin/sh\nif [ "$1" = version ]; then echo '{"version":"0.0.1","protocol":0}'; exit 0; fi\ntouch '${marker}'\nexit 1\n`, { mode: 0o755 });
    const { page } = await load("too-old", { path: dir });
    await page.waitForSelector(".quire-engine-modal", { timeout: 20_000 });
    const title = await page.textContent(".quire-engine-modal .modal-title");
    const text = await panelText(page);
    expect(title === "Upgrade Quire's engine", `title: ${title}`);
    expect(text.includes(`The Quire engine at ${join(dir, "quire")} is version 0.0.1, too old for this plugin: upgrade the engine.`), `panel: ${text}`);
    expect(text.includes("upgrade it with the .deb package"), `panel: ${text}`);
    await shot(page, "engine-too-old.png");
    await axeCheck(page, "upgrade panel", ".quire-engine-modal");
    expect(!existsSync(marker), "the old engine was started");
    // The user upgrades: the package manager puts the new engine in the same place.
    const path = await launcher(dir, bin);
    await online(page);
    await waitFor(page, () => !document.querySelector(".quire-engine-modal"));
    expect(serveKids().at(-1).spawnfile === path && !existsSync(marker), "the upgraded engine was not the one started");
    await close(page);
  });
  await scenario("an engine newer than the plugin that still speaks its protocol: started and serving", async () => {
    const path = await launcher(join(tmp, "newer-engine-bin"), bin, '{"version":"0.9.0","protocol":3,"minProtocol":1}');
    const { page } = await load("newer-engine", { path: join(tmp, "newer-engine-bin") });
    await online(page);
    expect(serveKids().at(-1).spawnfile === path, `started ${serveKids().at(-1).spawnfile}`);
    expect((await page.evaluate(() => window.harness.notices())).length === 0, "a notice");
    await close(page);
  });
  await scenario("an engine so new it no longer speaks the plugin's protocol: not started, the panel says to update the plugin", async () => {
    const dir = join(tmp, "too-new-bin");
    await launcher(dir, bin, '{"version":"9.0.0","protocol":7,"minProtocol":5}');
    const { page } = await load("too-new", { path: dir });
    await page.waitForSelector(".quire-engine-modal", { timeout: 20_000 });
    const title = await page.textContent(".quire-engine-modal .modal-title");
    const text = await panelText(page);
    expect(title === "Update the Quire plugin", `title: ${title}`);
    expect(text.includes("newer than this plugin can talk to: update the plugin"), `panel: ${text}`);
    expect((await page.$(".quire-engine-modal .quire-engine-command")) === null, "a command for the engine");
    await shot(page, "engine-too-new.png");
    expect(serveKids().every((k) => !k.spawnfile.startsWith(dir)), "the engine was started");
    await close(page);
  });

  // 4. An engine that keeps dying: three restarts, then one notice whose Show log holds its last stderr lines.
  await scenario("after three restarts the plugin gives up with one notice; Show log holds the engine's last stderr lines", async () => {
    const dir = join(tmp, "gave-up-bin");
    await launcher(dir, bin);
    const { page } = await load("gave-up", { path: dir });
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
    expect(serveKids().length === count, "an engine was started after the plugin gave up");
    expect((await page.evaluate(() => window.harness.statusText())) === "Quire: offline", "status bar");
    await close(page);
  });
}
