// The Evaluate search view in the browser harness: on a copy of the
// sample vault served by a real `quire serve`, the sample's five questions
// (sample-questions.jsonl) are written into the view from the keyboard,
// saved to the vault as a JSON-lines file that `quire eval --gold` reads,
// and run through the engine twice; the view must draw the engine's three
// pictures (the second run against the first), list the misses, pass axe
// in light and dark, and leave screenshots (docs/eval-view.png is
// eval-view-results-light.png).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const SET = "Quire/eval-questions.jsonl";

/** evalViewScenarios runs the view's scenarios; h is run.mjs's toolbox. */
export async function evalViewScenarios(h) {
  const { tmp, bin, out, manifest, log, scenario, expect, newPage, waitFor, shots, axeCheck, copyVault, vaultFiles, sidecars, Sidecar } = h;
  const questions = readFileSync(join(here, "sample-questions.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l));
  const vault = await copyVault(join(tmp, "vault-evalview"));
  const sc = new Sidecar(bin, vault);
  sidecars.push(sc);
  await sc.start();
  // Every passage embedded first, so that the run has all three channels.
  const embedded = () => {
    const st = JSON.parse(execFileSync(bin, ["status", "--vault", vault, "--json"], { encoding: "utf8" }));
    return st.vectors && st.vectors.passages > 0 && st.vectors.embedded === st.vectors.passages;
  };
  for (let i = 0; i < 240 && !embedded(); i++) await new Promise((r) => setTimeout(r, 250));
  const page = await newPage();
  const figures = () => page.$$eval(".quire-eval-figure svg", (svgs) => svgs.map((s) => ({ label: s.getAttribute("aria-label"), lines: s.querySelectorAll("polyline").length, dashed: s.querySelectorAll("polyline[stroke-dasharray]").length, marks: s.querySelectorAll("circle").length, bars: s.querySelectorAll("rect").length, w: s.getBoundingClientRect().width })));

  await scenario("evaluate search: five questions written from the keyboard, saved to the vault, run through the engine, its pictures drawn, axe clean", async () => {
    await page.evaluate((a) => window.harness.load(a), { basePath: vault, files: vaultFiles(vault), settings: { binaryPath: "", stateFolder: "" }, manifest });
    await waitFor(page, () => /^Quire: \d+ notes?/.test(window.harness.statusText()), undefined, 60_000);
    await page.evaluate(() => window.harness.command("evaluate-search"));
    await page.waitForSelector(".quire-eval .quire-eval-question", { timeout: 5000 });
    const said = await page.textContent(".quire-eval-status");
    expect(said.includes("No questions at Quire/eval-questions.jsonl yet"), `status: ${said}`);

    // From the path field on, the keyboard alone: Tab to each field, Enter on Add question and Run.
    await page.focus(".quire-eval-path");
    for (const k of ["Tab", "Tab", "Tab"]) await page.keyboard.press(k);
    for (const [i, q] of questions.entries()) {
      const focused = await page.evaluate(() => document.activeElement?.className);
      expect(focused === "quire-eval-question", `question ${i + 1} starts in ${focused}`);
      for (const [n, text] of [q.question, q.expected[0], q.answer, q.type].entries()) {
        if (n > 0) await page.keyboard.press("Tab");
        await page.keyboard.type(text);
      }
      if (i < questions.length - 1) {
        await page.keyboard.press("Tab"); // Remove
        await page.keyboard.press("Tab"); // Add question
        await page.keyboard.press("Enter");
      }
    }
    // Every control is reached by Tab, in order, from the path field to Run.
    await page.focus(".quire-eval-path");
    const order = [];
    for (let i = 0; i < 3 + 5 * 5 + 2; i++) {
      order.push(await page.evaluate(() => document.activeElement?.className.replace("mod-cta ", "")));
      await page.keyboard.press("Tab");
    }
    const row = ["quire-eval-question", "quire-eval-note", "quire-eval-answer", "quire-eval-type", "quire-eval-remove"];
    const want = ["quire-eval-path", "quire-eval-load", "quire-eval-save", ...questions.flatMap(() => row), "quire-eval-add", "quire-eval-run"];
    expect(JSON.stringify(order) === JSON.stringify(want), `tab order: ${order.join(" ")}`);

    await page.focus(".quire-eval-save");
    await page.keyboard.press("Enter");
    await waitFor(page, () => /^Saved to /.test(document.querySelector(".quire-eval-status")?.textContent ?? ""));
    // The plugin's write reaches the disk; `quire eval --gold` reads it as it is (on another copy of the vault: the sidecar holds this one).
    const file = join(vault, SET);
    for (let i = 0; i < 40; i++) {
      try {
        readFileSync(file);
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const lines = readFileSync(file, "utf8").trim().split("\n");
    expect(lines[0].startsWith("// Quire: the questions of the Evaluate search view") && lines.length === 6, `saved file: ${lines.join(" | ")}`);
    const saved = lines.slice(1).map((l) => JSON.parse(l));
    expect(JSON.stringify(saved) === JSON.stringify(questions.map((q) => ({ question: q.question, expected: q.expected, answer: q.answer, type: q.type })) ), `saved ${JSON.stringify(saved)}`);
    const other = await copyVault(join(tmp, "vault-evalview-cli"));
    const cli = JSON.parse(execFileSync(bin, ["eval", "--vault", other, "--gold", file, "--json"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }));
    expect(cli.queries === 5, `quire eval --gold read ${cli.queries} questions`);

    await page.focus(".quire-eval-run");
    await page.keyboard.press("Enter");
    await page.waitForSelector(".quire-eval-figure svg", { timeout: 60_000 });
    let drawn = await figures();
    log(`evaluate search, first run: ${JSON.stringify(drawn)}`);
    expect(drawn.length === 3 && drawn.every((d) => d.w > 100), `pictures: ${JSON.stringify(drawn)}`);
    expect(drawn[0].lines === 3 && drawn[0].dashed === 0, `recall lines ${drawn[0].lines} (${drawn[0].dashed} dashed), want bm25, dense and hybrid`);
    expect(drawn[2].marks === 5, `${drawn[2].marks} rank marks, want 5`);
    const scores = await page.$$eval(".quire-eval-scores tbody th", (t) => t.map((x) => x.textContent));
    expect(scores.join(",") === "bm25,dense,hybrid", `channels ${scores}`);
    const missedHead = await page.textContent(".quire-eval-results h3:last-of-type");
    log(`evaluate search: ${missedHead}; ${await page.textContent(".quire-eval-meta")}`);

    // The second run is drawn against the first.
    await page.keyboard.press("Enter");
    await waitFor(page, () => /previous run/.test(document.querySelector(".quire-eval-meta")?.textContent ?? ""), undefined, 60_000);
    drawn = await figures();
    expect(drawn[0].lines === 6 && drawn[0].dashed === 3, `second run's recall lines: ${drawn[0].lines}, ${drawn[0].dashed} dashed; want 6, 3`);
    expect(drawn[2].marks === 10, `second run's rank marks ${drawn[2].marks}, want 10`);

    // The whole view, taller than the window, for the screenshots.
    await page.setViewportSize({ width: 1200, height: 1500 });
    await page.evaluate(() => document.querySelector(".quire-eval .quire-eval-path")?.scrollIntoView());
    await shots(page, "eval-view");
    await page.evaluate(() => document.querySelector(".quire-eval-results")?.scrollIntoView());
    await shots(page, "eval-view-results");
    await axeCheck(page, "evaluate", ".quire-eval");
    await page.setViewportSize({ width: 1200, height: 760 });
    log(`evaluate search screenshots: ${join(out, "eval-view-light.png")}`);
    await page.close();
  });
}
