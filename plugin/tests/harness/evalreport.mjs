// The eval report in the browser harness: `quire eval --report` over two
// named runs of the sample vault's five questions (sample-questions.jsonl),
// the page opened from disk in headless Chromium with every request but
// the file itself refused. It must draw its pictures, log no console
// error, fetch nothing, pass axe in light and dark, and leave screenshots.
import { execFileSync } from "node:child_process";
import { promises as fsp, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** evalReportScenarios runs the report scenarios; h is run.mjs's toolbox. */
export async function evalReportScenarios(h) {
  const { tmp, bin, out, context, axeSrc, log, scenario, expect, copyVault } = h;
  const vault = await copyVault(join(tmp, "vault-eval"));
  const state = join(tmp, "state-eval");
  const report = join(tmp, "eval-report.html");
  const gold = join(here, "sample-questions.jsonl");
  const quire = (...args) => execFileSync(bin, ["eval", "--vault", vault, "--state", state, "--gold", gold, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

  await scenario("eval report: two named runs of five questions render as one offline page with its pictures, no console error, axe clean", async () => {
    quire("--channel", "bm25,hybrid", "--rerank", "off", "--name", "off");
    quire("--channel", "bm25,hybrid", "--rerank", "builtin", "--name", "builtin", "--control", "off", "--report", report);
    const size = statSync(report).size;
    log(`eval report of the sample vault: ${size} bytes`);
    const page = await context.newPage();
    const problems = [];
    const fetched = [];
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
    const url = pathToFileURL(report).href;
    // One file, no network: anything else it asks for is refused and counted.
    await page.route("**/*", (r) => {
      if (r.request().url() === url) return r.continue();
      fetched.push(r.request().url());
      return r.abort();
    });
    try {
      await page.goto(url);
      const drawn = await page.$$eval("svg", (svgs) =>
        svgs.map((s) => ({ w: s.getBoundingClientRect().width, h: s.getBoundingClientRect().height, marks: s.querySelectorAll("polyline, rect, circle").length })),
      );
      expect(drawn.length === 3, `${drawn.length} pictures, want 3 (recall at k, types, ranks)`);
      expect(drawn.every((d) => d.w > 100 && d.h > 100 && d.marks > 0), `a picture is empty: ${JSON.stringify(drawn)}`);
      const lines = await page.$$eval("svg polyline", (p) => p.length);
      expect(lines === 4, `${lines} recall lines, want 4 (bm25 and hybrid, run and control)`);
      const marks = await page.$$eval("svg circle", (c) => c.length);
      expect(marks === 10, `${marks} rank marks, want 10 (five questions, two runs)`);
      const rows = await page.$$eval("tbody tr th[scope=row]", (r) => r.map((x) => x.textContent));
      expect(rows.includes("off") && rows.includes("builtin"), `table rows ${rows}`);
      const verdict = await page.textContent(".verdict");
      expect(/Decision rule: builtin may (not )?replace off/.test(verdict), `verdict: ${verdict}`);
      await page.addScriptTag({ content: axeSrc });
      for (const scheme of ["light", "dark"]) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.screenshot({ path: join(out, `eval-report-${scheme}.png`), fullPage: true });
        const bad = await page.evaluate(async () => {
          const r = await window.axe.run(document, { resultTypes: ["violations"] });
          return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.impact} ${v.id} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
        });
        expect(bad.length === 0, `axe (${scheme}): ${bad.join("; ")}`);
      }
      expect(problems.length === 0, `console: ${problems.join("; ")}`);
      expect(fetched.length === 0, `the page fetched ${fetched.join(", ")}`);
    } finally {
      await page.close();
    }
  });
  await fsp.rm(state, { recursive: true, force: true });
}
