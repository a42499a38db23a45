// Issue 25's figures, measured in the browser harness on generated vaults
// (sidecar/internal/vaultgen): keystroke-to-results in the search modal on
// a 1,000-note vault, with this engine and with the engine of the commit
// before type-ahead (prefix and typo matching) was added, the same plugin
// and keystrokes; and the time from switching notes to a full Related
// list on a 953-note vault, the plugin's cache cold and warm. Run by
// HARNESS_ONLY=timings (scripts/bench-surfaces), never in the full run:
// indexing the vaults takes minutes. Each figure is one `timing:` line.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { oldRelease } from "./engine.mjs";

/** BEFORE_TYPEAHEAD is the commit before 8721a5a (search, bm25, plugin: type-ahead), whose engine has no prefix or typo matching. */
export const BEFORE_TYPEAHEAD = "94212634848fdcf5b3ddbadcc7a6362d7de065f6";

/** stats is the median, p90 and max of a list of milliseconds. */
export function stats(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
  const median = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return { n: s.length, median, p90: at(0.9), max: s.at(-1) };
}

const fmt = (s) => `median ${s.median.toFixed(0)} ms, p90 ${s.p90.toFixed(0)} ms, max ${s.max.toFixed(0)} ms over ${s.n}`;

/** timingScenarios measures the search modal and the Related panel; h is run.mjs's toolbox. */
export async function timingScenarios(h) {
  const { tmp, bin, repo, manifest, log, scenario, expect, newPage, waitFor, vaultFiles, sidecars, Sidecar } = h;
  const searchNotes = Number(process.env.TIMINGS_NOTES ?? 1000);
  const relatedNotes = Number(process.env.TIMINGS_RELATED_NOTES ?? 953);
  // TIMINGS_DIR keeps the generated and indexed vaults for the next run (the engines bring their index up to date as they open it).
  const base = process.env.TIMINGS_DIR || tmp;
  const genvault = (n, dir, queries) => {
    if (existsSync(join(dir, ".quire"))) return;
    execFileSync("go", ["run", "./internal/vaultgen/genvault", "-notes", String(n), ...(queries ? ["-queries", queries] : []), dir], { cwd: join(repo, "sidecar"), stdio: ["ignore", "ignore", "inherit"] });
  };
  const index = (quire, vault) => {
    const t0 = Date.now();
    execFileSync(quire, ["index", "--vault", vault], { stdio: ["ignore", "ignore", "pipe"] });
    log(`indexed ${vault} with ${quire} in ${Math.round((Date.now() - t0) / 1000)} s`);
  };
  /** session starts a sidecar on vault and loads this plugin attached to it, once every passage has its vector. */
  const session = async (quire, vault) => {
    const sc = new Sidecar(quire, vault);
    sidecars.push(sc);
    await sc.start();
    const page = await newPage();
    await page.evaluate((a) => window.harness.load(a), { basePath: vault, files: vaultFiles(vault), settings: { binaryPath: "", stateFolder: "" }, manifest });
    await waitFor(page, () => /^Quire: [\d,]+ notes?$/.test(window.harness.statusText()), undefined, 120_000);
    return {
      page,
      status: await page.evaluate(() => window.harness.statusText()),
      async close() {
        await page.evaluate(() => window.harness.unload());
        await page.close();
        await sc.stop();
      },
    };
  };

  await scenario(`timings: keystroke-to-results in the search modal on a ${searchNotes}-note vault, before and after type-ahead`, async () => {
    const now = join(base, `search-${searchNotes}-now`);
    const queriesFile = join(base, `search-${searchNotes}-queries.jsonl`);
    genvault(searchNotes, now, queriesFile);
    const before = join(base, `search-${searchNotes}-before`);
    genvault(searchNotes, before);
    const old = oldRelease(repo, log, BEFORE_TYPEAHEAD);
    index(bin, now);
    index(old.bin, before);
    // Twelve of the generated queries (a few words of one note each), typed a key at a time.
    const queries = readFileSync(queriesFile, "utf8").trim().split("\n").slice(0, 12).map((l) => JSON.parse(l).query);
    const type = async (page) => {
      await page.evaluate(() => window.harness.command("search-vault"));
      await page.waitForSelector(".quire-search-input", { timeout: 30_000 });
      await page.evaluate(() => window.harness.timeKeystrokes());
      for (const q of queries) {
        await page.fill(".quire-search-input", "");
        // About seven keys a second, a quick typist's pace.
        await page.keyboard.type(q, { delay: 140 });
        await waitFor(page, (want) => document.querySelector(".quire-search-results")?.getAttribute("data-query") === want, q, 15_000);
      }
      const lat = await page.evaluate(() => window.__keystrokes);
      const channel = await page.$eval(".quire-search-results", (e) => e.getAttribute("data-channel"));
      await page.evaluate(() => window.harness.closeModals());
      return { lat, channel };
    };
    // Two runs of each, alternating, so that both see the machine's load alike; then both runs of each pooled.
    const all = { before: [], after: [] };
    const what = { before: `engine ${BEFORE_TYPEAHEAD.slice(0, 7)}, no prefix or typo matching`, after: "this engine, prefix and typo matching" };
    let status = "";
    for (const [name, quire, vault] of [["before", old.bin, before], ["after", bin, now], ["before", old.bin, before], ["after", bin, now]]) {
      const s = await session(quire, vault);
      const { lat, channel } = await type(s.page);
      await s.close();
      status = s.status.replace(/^Quire: /, "");
      all[name].push(...lat);
      log(`search keystroke-to-results, one run ${name} (${what[name]}; ${status}, channel ${channel}): ${fmt(stats(lat))} keystrokes`);
      expect(channel === "hybrid", `${name}: search ran on ${channel}, not hybrid`);
      expect(lat.length >= 100, `${name}: only ${lat.length} keystrokes measured`);
    }
    for (const name of ["before", "after"]) log(`timing: search keystroke-to-results, ${name} (${what[name]}; ${status}, hybrid): ${fmt(stats(all[name]))} keystrokes (30 ms debounce included)`);
    const after = stats(all.after);
    expect(after.median < 80, `after: median ${after.median.toFixed(0)} ms, not under 80 ms`);
  });

  await scenario(`timings: from switching notes to a full Related list on a ${relatedNotes}-note vault, the cache cold and warm`, async () => {
    const vault = join(base, `related-${relatedNotes}`);
    genvault(relatedNotes, vault);
    index(bin, vault);
    const s = await session(bin, vault);
    const { page } = s;
    const notes = Object.keys(vaultFiles(vault)).filter((p) => p.endsWith(".md")).sort();
    // Twenty notes spread over the vault: the plugin keeps twenty lists, so the second round finds each cached.
    const picked = Array.from({ length: 20 }, (_, i) => notes[Math.floor((i * notes.length) / 20)]);
    await page.evaluate(() => window.harness.command("open-related"));
    /** switchTo opens a note and resolves with the milliseconds until the panel shows that note's list (rows, or "No close notes"). */
    const switchTo = (path) =>
      page.evaluate(async (p) => {
        const view = window.harness.app.workspace.getLeavesOfType("quire-related")[0].view;
        const done = () => view.current.kind === "results" && view.current.path === p;
        const t0 = performance.now();
        const shown = new Promise((resolve) => {
          const check = () => {
            if (!done()) return false;
            obs.disconnect();
            resolve(performance.now() - t0);
            return true;
          };
          const obs = new MutationObserver(check);
          obs.observe(view.contentEl, { childList: true, subtree: true, attributes: true });
          queueMicrotask(check);
        });
        await window.harness.open(p);
        return shown;
      }, path);
    const rows = [];
    const round = async (name) => {
      const ms = [];
      for (const p of picked) {
        ms.push(await switchTo(p));
        rows.push(await page.evaluate(() => document.querySelectorAll(".quire-related-item").length));
      }
      const st = stats(ms);
      // How many lists the panel keeps after the round (its cache, which a new status from the engine empties).
      const kept = await page.evaluate(() => window.harness.app.workspace.getLeavesOfType("quire-related")[0].view.cache.size);
      log(`timing: Related switch to a full list, cache ${name} (${s.status.replace(/^Quire: /, "")}): ${fmt(st)} switches; ${kept} lists kept after it`);
      return st;
    };
    const cold = await round("cold");
    const warm = await round("warm");
    log(`timing: Related rows per list: ${stats(rows).median} median, ${rows.filter((n) => n === 0).length} of ${rows.length} lists "No close notes"`);
    expect(warm.median < cold.median, `warm ${warm.median} ms is not below cold ${cold.median} ms`);
    await s.close();
  });
}
