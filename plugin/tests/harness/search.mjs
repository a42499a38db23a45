// The Search vault modal in the browser harness: typing, marked words, the
// keyboard, a link inserted, opening at the passage; and keystroke-to-results
// on a bench corpus.
import { existsSync, promises as fsp } from "node:fs";
import { join } from "node:path";
import { stats } from "./timings.mjs";

/** searchScenarios runs on the attached session (attachScenarios). */
export async function searchScenarios(h, s) {
  const { log, scenario, expect, waitFor, shots, axeCheck } = h;
  const { page } = s;
  await scenario("search vault: typing, results with marked words, keyboard selection, a link inserted", async () => {
    await page.evaluate(() => window.harness.open("Welcome.md"));
    await page.evaluate(() => window.harness.cursorAtEnd());
    const before = await page.evaluate(() => window.harness.noteText());
    await page.evaluate(() => window.harness.command("search-vault"));
    await page.waitForSelector(".quire-search-input", { timeout: 5000 });
    await shots(page, "search-empty");
    await page.keyboard.type("sourdough sta", { delay: 40 });
    await shots(page, "search-typing");
    await page.keyboard.type("rter feeding", { delay: 40 });
    await waitFor(page, () => document.querySelector(".quire-search-results")?.getAttribute("data-query") === "sourdough starter feeding");
    const rows = await page.$$eval(".quire-search-item", (els) => els.map((e) => ({ path: e.getAttribute("data-path"), title: e.querySelector(".quire-search-title")?.textContent, marks: [...e.querySelectorAll("mark")].map((m) => m.textContent) })));
    log(`search "sourdough starter feeding": ${rows.slice(0, 4).map((r) => `${r.title} [${r.marks.join(",")}]`).join(" | ")}`);
    expect(rows.length > 0, "no results");
    expect(rows[0].path === "Kitchen/Sourdough starter.md", `first result ${rows[0].path}`);
    expect(rows.some((r) => r.marks.length > 0), "no word marked");
    // The engine says which words it matched: inflected forms are marked, stop words and look-alike prefixes are not.
    const marked = [...new Set(rows.flatMap((r) => r.marks.map((m) => m.toLowerCase())))];
    log(`search marks (from the engine's matches): ${marked.join(", ")}`);
    expect(marked.every((m) => /^(sourdough|starters?|feed\w*)$/.test(m)), `marked words outside the query's stems: ${marked}`);
    await shots(page, "search-results");
    await axeCheck(page, "search", ".quire-search-modal");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    const sel = await page.$eval(".quire-search-item.is-selected", (e) => [...e.parentElement.children].indexOf(e));
    expect(sel === 2, `selected row ${sel}`);
    const active = await page.$eval(".quire-search-input", (e) => e.getAttribute("aria-activedescendant"));
    expect(active && (await page.$(`#${active}.is-selected`)), "aria-activedescendant does not name the selected row");
    await shots(page, "search-keyboard");
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("Alt+Enter");
    await waitFor(page, () => !window.harness.modal());
    const after = await page.evaluate(() => window.harness.noteText());
    const inserted = after.slice(before.length);
    log(`Alt+Enter inserted ${inserted}`);
    expect(after.startsWith(before) && /^\[\[Sourdough starter(#[^\]]+)?\]\]$/.test(inserted), `inserted ${JSON.stringify(inserted)}`);
    await shots(page, "search-link-inserted");
    // Enter opens the note at the passage.
    await page.evaluate(() => window.harness.command("search-vault"));
    await page.waitForSelector(".quire-search-input", { timeout: 5000 });
    await page.keyboard.type("repot monstera", { delay: 20 });
    await waitFor(page, () => document.querySelector(".quire-search-results")?.getAttribute("data-query") === "repot monstera");
    const target = await page.$eval(".quire-search-item.is-selected", (e) => e.getAttribute("data-path"));
    await page.keyboard.press("Enter");
    await waitFor(page, (p) => window.harness.mainNote()?.path === p && window.harness.mainNote()?.line !== null, target);
    await shots(page, "search-opened");
  });
}

/** searchBenchScenarios times the search modal on two topic folders of shared/bench/ariostea-wiki (read-only: copied to a temp vault). */
export async function searchBenchScenarios(h) {
  const { tmp, bin, manifest, log, scenario, expect, Pending, newPage, waitFor, shots, vaultFiles, sidecars, Sidecar, repo } = h;
  // 5. Keystroke-to-results of the search modal on a bench corpus: two topic
  // folders of shared/bench/ariostea-wiki (read-only: copied to a temp vault).
  const benchRoot = [process.env.HARNESS_BENCH, join(repo, "..", "shared", "bench")].find((d) => d && existsSync(join(d, "ariostea-wiki", "corpus")));
  await scenario("search vault: keystroke-to-results on a bench corpus (hybrid)", async () => {
    if (process.env.HARNESS_BENCH === "skip") throw new Pending("HARNESS_BENCH=skip");
    if (!benchRoot) throw new Pending("no shared/bench beside the repository (HARNESS_BENCH=DIR)");
    const vaultF = join(tmp, "vault-bench");
    for (const d of ["cheese", "coffee"]) await fsp.cp(join(benchRoot, "ariostea-wiki", "corpus", d), join(vaultF, d), { recursive: true });
    const scF = new Sidecar(bin, vaultF);
    sidecars.push(scF);
    await scF.start();
    const pageF = await newPage();
    await pageF.evaluate((a) => window.harness.load(a), { basePath: vaultF, files: vaultFiles(vaultF), settings: { binaryPath: "", stateFolder: "" }, manifest });
    // On a loaded machine the first handshake may time out while the engine
    // embeds; with no program set the plugin then waits for an explicit start.
    const nudge = setInterval(() => void pageF.evaluate(() => window.harness.statusText() === "Quire: offline" && window.harness.command("start-sidecar")).catch(() => {}), 10_000);
    // Hybrid needs every vector: wait until the status bar no longer counts them.
    await waitFor(pageF, () => /^Quire: \d+ notes?$/.test(window.harness.statusText()), undefined, 300_000).catch(async (err) => {
      clearInterval(nudge);
      throw new Error(`${err.message}; status bar: ${await pageF.evaluate(() => window.harness.statusText())}`);
    });
    clearInterval(nudge);
    const status = await pageF.evaluate(() => window.harness.statusText());
    await pageF.evaluate(() => window.harness.command("search-vault"));
    await pageF.waitForSelector(".quire-search-input", { timeout: 30_000 }).catch(async (err) => {
      throw new Error(`${err.message}; status ${status}; modals ${await pageF.evaluate(() => window.harness.stub.Modal.openForTest.length)}; body ${await pageF.evaluate(() => document.body.innerText.slice(0, 300))}`);
    });
    await pageF.evaluate(() => window.harness.timeKeystrokes());
    const queries = ["how espresso is brewed", "blue cheese mould", "roasting coffee beans at home", "aged hard cheese from italy"];
    for (const q of queries) {
      await pageF.fill(".quire-search-input", "");
      // About seven keys a second, a quick typist's pace.
      await pageF.keyboard.type(q, { delay: 140 });
      await waitFor(pageF, (want) => document.querySelector(".quire-search-results")?.getAttribute("data-query") === want, q, 10_000);
    }
    const lat = stats(await pageF.evaluate(() => window.__keystrokes));
    const channel = await pageF.$eval(".quire-search-results", (e) => e.getAttribute("data-channel"));
    log(`search keystroke-to-results on ariostea-wiki cheese+coffee (${status.replace(/^Quire: /, "")}, channel ${channel}): median ${lat.median.toFixed(1)} ms, p90 ${lat.p90.toFixed(1)} ms, max ${lat.max.toFixed(1)} ms over ${lat.n} keystrokes (debounce 30 ms included)`);
    expect(channel === "hybrid", `search ran on ${channel}, not hybrid`);
    expect(lat.n >= 20, `only ${lat.n} keystrokes measured`);
    await shots(pageF, "search-bench");
    await pageF.evaluate(() => window.harness.unload());
    await pageF.close();
    await scF.stop();
  });
}
