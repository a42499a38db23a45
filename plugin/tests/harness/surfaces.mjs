// Issue 25's surfaces in the browser harness: a PDF in the vault found by
// search and opened at its page, and Ask about the selection. Each runs on
// the attached session (attachScenarios), with screenshots in light and
// dark and axe on what it shows.
import { promises as fsp } from "node:fs";
import { join } from "node:path";

/**
 * textPDF writes a real PDF, one page per string, in Helvetica: objects
 * and a cross-reference table with their true offsets, so MuPDF reads it
 * without repairing anything.
 */
export function textPDF(pages) {
  const objs = [];
  const add = (s) => objs.push(s) && objs.length;
  const catalog = add("");
  const tree = add("");
  const font = add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  const kids = [];
  for (const text of pages) {
    const esc = text.replace(/[\\()]/g, (c) => `\\${c}`);
    const stream = `BT /F1 12 Tf 72 720 Td (${esc}) Tj ET`;
    const content = add(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
    kids.push(add(`<< /Type /Page /Parent ${tree} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${content} 0 R >>`));
  }
  objs[catalog - 1] = `<< /Type /Catalog /Pages ${tree} 0 R >>`;
  objs[tree - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(" ")}] /Count ${kids.length} >>`;
  let out = "%PDF-1.4\n";
  const offsets = [];
  objs.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  out += `trailer\n<< /Size ${objs.length + 1} /Root ${catalog} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return out;
}

/** surfacesScenarios runs on the attached session (attachScenarios). */
export async function surfacesScenarios(h, s) {
  const { log, scenario, expect, waitFor, shots, axeCheck, manifest, vaultFiles } = h;
  const { page, vaultA } = s;

  await scenario("search vault: a PDF in the vault is found and opened at its page", async () => {
    await fsp.mkdir(join(vaultA, "Manuals"), { recursive: true });
    await fsp.writeFile(
      join(vaultA, "Manuals", "Espresso machine.pdf"),
      textPDF(["Unpacking: keep the box for transport.", "Descaling: run citric acid through the boiler every month."]),
      "latin1",
    );
    await page.evaluate(() => window.harness.command("search-vault"));
    await page.waitForSelector(".quire-search-input", { timeout: 5000 });
    // The engine's watch reads the new PDF within a few seconds: type again until it is found.
    let found = false;
    for (let i = 0; i < 40 && !found; i++) {
      await page.fill(".quire-search-input", i % 2 ? "descaling citric acid boiler" : "descaling citric acid");
      await page.waitForTimeout(500);
      found = await page.evaluate(() => document.querySelector(".quire-search-item")?.getAttribute("data-path") === "Manuals/Espresso machine.pdf");
    }
    expect(found, "the PDF's page never came first");
    const head = await page.$eval(".quire-search-item", (e) => e.querySelector(".quire-search-head")?.textContent);
    log(`PDF hit: ${head}`);
    expect(/page 2/i.test(head ?? ""), `the hit does not name its page: ${head}`);
    await shots(page, "search-pdf-hit");
    await axeCheck(page, "search (PDF hit)", ".quire-search-modal");
    await page.keyboard.press("Enter");
    await waitFor(page, () => document.querySelector(".pdf-viewer-for-test")?.getAttribute("data-subpath") === "#page=2");
    await shots(page, "search-pdf-opened");
  });

  await scenario("ask about the selection: asked within the selected text, the answer rendered", async () => {
    await page.evaluate(() => window.harness.open("Kitchen/Sourdough starter.md"));
    const picked = await page.evaluate(() => window.harness.selectFirstLine());
    log(`selected: ${JSON.stringify(picked)}`);
    expect(picked && picked.length > 10, "nothing to select in the note");
    await page.evaluate(() => window.harness.command("ask-selection"));
    await page.waitForSelector(".quire-ask-modal .quire-ask-scope-select", { timeout: 5000 });
    const scope = await page.$eval(".quire-ask-modal .quire-ask-scope-select", (e) => e.selectedOptions[0]?.textContent);
    expect(scope === "Selection in Sourdough starter", `scope ${scope}`);
    await page.fill(".quire-ask-modal .quire-ask-input", "What does this say about feeding?");
    await page.keyboard.press("Enter");
    await waitFor(page, () => document.querySelector(".quire-ask-modal .quire-ask-body") !== null, undefined, 60_000);
    const first = await page.$eval(".quire-ask-modal .quire-ask-source", (e) => e.textContent);
    log(`first source: ${first}`);
    expect(/Sourdough starter/.test(first ?? ""), `the first source is ${first}`);
    const raw = await page.$eval(".quire-ask-modal .quire-ask-body", (e) => e.textContent);
    expect(!/\*\*/.test(raw ?? ""), "the answer shows raw **");
    await shots(page, "ask-selection");
    await axeCheck(page, "ask (selection)", ".quire-ask-modal");
    await page.keyboard.press("Escape");
  });

  await scenario("ask: a past conversation is reopened after a restart", async () => {
    const data = await page.evaluate(() => window.harness.savedData());
    const kept = data?.askConversations ?? [];
    log(`data.json keeps ${kept.length} conversation(s): ${kept.map((c) => c.title).join(" | ")}`);
    expect(kept.length > 0, "no conversation kept in the plugin's data");
    // Obsidian restarts: the plugin unloads, then loads with the data it saved.
    await page.evaluate(() => window.harness.unload());
    await page.evaluate((a) => window.harness.load(a), { basePath: vaultA, files: vaultFiles(vaultA), settings: data, manifest });
    await waitFor(page, () => /^Quire: \d+ notes?/.test(window.harness.statusText()), undefined, 60_000);
    await page.evaluate(() => window.harness.command("open-ask-view"));
    await page.waitForSelector(".quire-ask-view .quire-ask-past-item", { timeout: 10_000 });
    await shots(page, "ask-past-conversations");
    await axeCheck(page, "ask-sidebar (past conversations)", ".quire-ask-view");
    await page.focus(".quire-ask-view .quire-ask-past-item");
    await page.keyboard.press("Enter");
    await waitFor(page, () => document.querySelectorAll(".quire-ask-view .quire-ask-turn").length === 1);
    const q = await page.$eval(".quire-ask-view .quire-ask-turn", (e) => e.textContent);
    expect(q.includes("What does this say about feeding?"), `reopened turn: ${q.slice(0, 120)}`);
    await shots(page, "ask-past-reopened");
    await axeCheck(page, "ask-sidebar (reopened)", ".quire-ask-view");
    // Obsidian restores its layout on restart; the stub does not, so the
    // Related panel the later scenarios of this session use is opened again.
    await page.evaluate(() => window.harness.command("open-related"));
  });
}
