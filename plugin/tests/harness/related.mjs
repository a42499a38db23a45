// The Related pages panel in the browser harness: neighbours of the open
// note, hover preview, drag to link, more passages, pinning, a folder left
// out, opening at the passage, refreshing while typing.

/** relatedScenarios runs on the attached session (attachScenarios). */
export async function relatedScenarios(h, s) {
  const { log, scenario, expect, waitFor, shot, shots, axeCheck } = h;
  const { page } = s;
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
    await shots(page, "related-one-row-per-note");
    await axeCheck(page, "related", ".quire-related");
    const weak = await page.$eval(".quire-related", (el) => el.querySelector(".quire-related-more")?.textContent ?? "none hidden");
    log(`related cut-off: ${await page.$$eval(".quire-related-item", (els) => els.length)} shown, ${weak}`);
    // Hovering a row asks Obsidian's page preview for the note at the passage's line (the hover-link event).
    await page.evaluate(() => {
      window.__hover = null;
      window.harness.app.workspace.on("hover-link", (e) => (window.__hover = { linktext: e.linktext, source: e.source, line: e.state?.scroll ?? null }));
    });
    const first = await page.$eval(".quire-related-item", (el) => el.getAttribute("data-path"));
    await page.hover(".quire-related-item");
    await waitFor(page, () => window.__hover !== null);
    const hover = await page.evaluate(() => window.__hover);
    expect(hover.linktext === first && hover.source === "quire-related" && Number.isInteger(hover.line), `hover-link: ${JSON.stringify(hover)}`);
    await shots(page, "related-preview");
    // Dragging a row carries a link; the editor (Obsidian's, played here by the stub) inserts what is dropped.
    const link = await page.evaluate(() => {
      const dt = new DataTransfer();
      const row = document.querySelector(".quire-related-item");
      row.dispatchEvent(new DragEvent("dragstart", { dataTransfer: dt, bubbles: true }));
      return dt.getData("text/plain");
    });
    expect(/^\[\[[^\]]+\]\]$/.test(link), `dragged ${link}`);
    await shots(page, "related-dragging");
    await page.evaluate((l) => {
      window.harness.cursorAtEnd();
      window.harness.app.workspace.getActiveViewOfType(window.harness.stub.MarkdownView).editor.replaceSelection(`\n${l}`);
      document.querySelector(".quire-related-item").dispatchEvent(new DragEvent("dragend", { bubbles: true }));
    }, link);
    await shots(page, "related-drag-to-link");
    // A note with more matching passages expands to list them under its row; one opens the note at that passage.
    const expandable = await page.$$eval(".quire-related-item[aria-expanded]", (els) => els.map((e) => e.getAttribute("data-path")));
    log(`related notes with more passages: ${expandable.join(" | ") || "none"}`);
    expect(expandable.length > 0, "no related note offers more passages");
    const row = `.quire-related-item[data-path="${expandable[0]}"]`;
    await page.click(`${row} .quire-related-expand`);
    await page.waitForSelector(`${row}[aria-expanded="true"] .quire-related-sub`, { timeout: 5000 });
    const subs = await page.$$eval(`${row} .quire-related-sub`, (els) => els.map((e) => e.textContent));
    log(`expanded ${expandable[0]}: ${subs.length} more passages: ${subs.map((t) => t.slice(0, 50)).join(" | ")}`);
    expect(subs.length >= 1 && subs.length <= 3, `more passages: ${subs.length}`);
    expect((await page.$$(".quire-related-item")).length === (await page.$$(".quire-related-item")).length, "rows changed");
    await shots(page, "related-expanded");
    await axeCheck(page, "related-expanded", ".quire-related");
    await page.focus(`${row} .quire-related-sub`);
    await page.keyboard.press("Enter");
    await waitFor(page, (p) => window.harness.mainNote()?.path === p && window.harness.mainNote()?.line !== null, expandable[0]);
    log(`a further passage opened ${expandable[0]} at line ${await page.evaluate(() => window.harness.mainNote().line)}`);
    await page.evaluate(() => window.harness.open("Kitchen/Bread baking log.md"));
    await waitFor(page, () => window.harness.relatedTitles().length > 0 && !document.querySelector(".quire-related.is-loading"));
    // Folded again from the keyboard, for the scenarios that follow.
    const again = `.quire-related-item[data-path="${expandable[0]}"]`;
    if (await page.$(`${again}[aria-expanded="true"]`)) {
      await page.focus(again);
      await page.keyboard.press("ArrowLeft");
      await page.waitForSelector(`${again}[aria-expanded="false"]`, { timeout: 5000 });
    }
    // Pinned, the panel stays on its note while another opens.
    const settled = () => waitFor(page, () => window.harness.relatedTitles().length > 0 && !document.querySelector(".quire-related.is-loading"));
    await page.click(".view-action.quire-icon-pin");
    try {
      await settled();
      const before = await page.evaluate(() => window.harness.relatedTitles());
      await page.evaluate(() => window.harness.open("Garden/Monstera care.md"));
      await new Promise((r) => setTimeout(r, 1500));
      await settled();
      const pinned = await page.evaluate(() => window.harness.relatedTitles());
      expect(JSON.stringify(pinned) === JSON.stringify(before), `pinned panel changed: ${pinned} (was ${before})`);
      await shots(page, "related-pinned");
    } finally {
      await page.click(".view-action.quire-icon-pin");
      await page.evaluate(() => window.harness.open("Kitchen/Bread baking log.md"));
      await settled();
    }
  });

  await scenario("related: a folder left out in the settings never shows, and the panel lists notes from elsewhere", async () => {
    const paths = () => page.$$eval(".quire-related-item", (els) => els.map((e) => e.getAttribute("data-path")));
    const before = await paths();
    const kitchen = before.filter((p) => p.startsWith("Kitchen/")).length;
    expect(kitchen > 0, `no Kitchen note among the related notes of the bread log: ${before}`);
    const leaveOut = async (text) => {
      await page.evaluate(() => window.harness.settings());
      const area = `.setting-item:has(.setting-item-name:text-is("Leave out folders")) textarea`;
      await page.fill(area, text);
      await page.dispatchEvent(area, "blur");
      await page.evaluate(() => window.harness.closeSettings());
    };
    await leaveOut("Kitchen/");
    await waitFor(page, () => {
      const rows = [...document.querySelectorAll(".quire-related-item")].map((e) => e.getAttribute("data-path"));
      return rows.length > 0 && rows.every((p) => !p.startsWith("Kitchen/")) && !document.querySelector(".quire-related.is-loading");
    });
    const after = await paths();
    log(`related to the bread log with Kitchen/ left out: ${after.join(" | ")} (before: ${before.join(" | ")})`);
    await shots(page, "related-left-out-folder");
    await leaveOut("");
    await waitFor(page, () => [...document.querySelectorAll(".quire-related-item")].some((e) => e.getAttribute("data-path").startsWith("Kitchen/")));
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
}
