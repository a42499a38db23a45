// The plugin and the engine it talks to, in the browser harness: attaching
// to a running `quire serve`, the status bar and the status view, a dropped
// sidecar and the reconnect, starting the engine from the binary path and
// stopping it on unload, and what the plugin says without one.
import { existsSync } from "node:fs";
import { join } from "node:path";

/** attachScenarios starts a sidecar on a copy of the sample vault and loads the plugin, which attaches to it; it returns the session the related, status and search scenarios share. */
export async function attachScenarios(h) {
  const { tmp, bin, manifest, scenario, expect, newPage, waitFor, copyVault, vaultFiles, sidecars, Sidecar } = h;
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
  return { page, vaultA, scA };
}

/** statusViewScenarios opens the status view from the status bar. */
export async function statusViewScenarios(h, s) {
  const { scenario, expect, shot, axeCheck } = h;
  const { page } = s;
  await scenario("the status view shows coverage and files", async () => {
    await page.click(".quire-status");
    await page.waitForSelector(".quire-status-table", { timeout: 5000 });
    const text = await page.textContent(".quire-status-view");
    expect(text.includes("Notes") && text.includes("Skipped files"), `status view: ${text}`);
    await shot(page, "status-view.png");
    await axeCheck(page, "status", ".quire-status-modal");
    await page.evaluate(() => window.harness.stub.Modal.openForTest.forEach((m) => m.close()));
  });
}

/** reconnectScenarios drops the sidecar under the plugin, starts it again, then closes the session. */
export async function reconnectScenarios(h, s) {
  const { scenario, waitFor, shot } = h;
  const { page, scA } = s;
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
}

/** startScenarios runs no sidecar: the plugin starts one from the binary path, or says where to set one. */
export async function startScenarios(h) {
  const { tmp, bin, manifest, log, scenario, expect, newPage, waitFor, shots, copyVault, vaultFiles, kids: allKids } = h;
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
    const kid = allKids.filter((k) => k.spawnargs.includes("serve")).at(-1);
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
    // The first automatic start opens the first-run panel, which names the path that holds nothing.
    await pageC.waitForSelector(".quire-engine-modal", { timeout: 20_000 });
    const panel = await pageC.textContent(".quire-engine-modal");
    expect(panel.includes(`not found at ${join(tmp, "no-such-quire")}`), `panel: ${panel}`);
    await pageC.evaluate(() => window.harness.closeModals());
    await pageC.evaluate(() => window.harness.command("open-related"));
    await pageC.evaluate(() => window.harness.open("Welcome.md"));
    await pageC.waitForSelector(".quire-related-offline", { timeout: 5000 });
    expect((await pageC.evaluate(() => window.harness.statusText())) === "Quire: offline", "status bar");
    // Typing a program path letter by letter: nothing is saved or started until the field is left.
    const noticesBefore = (await pageC.evaluate(() => window.harness.notices())).length;
    await pageC.evaluate(() => window.harness.settings());
    const binField = `.setting-item:has(.setting-item-name:text-is("Quire program")) input`;
    await pageC.fill(binField, "");
    await pageC.type(binField, "/usr/local/bin/quire-typed", { delay: 15 });
    await shots(pageC, "settings-typing-path");
    const whileTyping = (await pageC.evaluate(() => window.harness.notices())).slice(noticesBefore);
    const savedWhileTyping = await pageC.evaluate(() => window.harness.plugin.savedData.length);
    expect(whileTyping.length === 0 && savedWhileTyping === 0, `while typing: ${whileTyping.length} notices, ${savedWhileTyping} saves`);
    await pageC.press(binField, "Enter");
    await waitFor(pageC, () => window.harness.plugin.savedData.length === 1);
    await waitFor(pageC, (n) => window.harness.notices().length > n, noticesBefore);
    const after = (await pageC.evaluate(() => window.harness.notices())).slice(noticesBefore);
    log(`after Enter: ${after.join(" | ")}`);
    expect(after.length === 1 && after[0].includes("/usr/local/bin/quire-typed"), `notices after Enter: ${after.join(" | ")}`);
    await pageC.evaluate(() => window.harness.closeSettings());
    await pageC.evaluate(() => window.harness.command("search-vault"));
    await pageC.keyboard.type("bread", { delay: 10 });
    await waitFor(pageC, () => /not running/.test(document.querySelector(".quire-search-status")?.textContent ?? ""));
    await shots(pageC, "search-offline");
    await pageC.evaluate(() => window.harness.closeModals());
    await pageC.evaluate(() => window.harness.unload());
    await pageC.close();
  });
}
