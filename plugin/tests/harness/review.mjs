// The review view in the browser harness: review items in the generated
// folder, resolved and reopened.
import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";
import { join } from "node:path";

/** sealed puts the quire_hash of text's bytes (hashed with the value emptied) into it, as the engine seals a page it writes. */
function sealed(text) {
  const hash = createHash("sha256").update(text.replace(/^quire_hash: .*$/m, 'quire_hash: ""'), "utf8").digest("hex");
  return text.replace(/^quire_hash: .*$/m, `quire_hash: ${hash}`);
}

/** reviewScenarios runs on the model session (modelSession). */
export async function reviewScenarios(h, s) {
  const { scenario, expect, waitFor, shot, shots, axeCheck } = h;
  const { pageD, vaultD } = s;
  await scenario("the review view lists the review items in the generated folder", async () => {
    // A review item as ingest/compile writes one (the harness plays the sidecar here).
    await fsp.mkdir(join(vaultD, "Quire", "Review"), { recursive: true });
    await fsp.writeFile(
      join(vaultD, "Quire", "Review", "Possible contradiction - Starter care.md"),
      sealed(`---\nquire: generated\nquire_kind: review\nreason: The source Starter care may contradict Sourdough starter.\nabout: Kitchen/Sourdough starter.md\nquire_hash: ""\n---\n\n# Possible contradiction: Starter care\n`),
    );
    await pageD.evaluate(() => window.harness.command("open-review"));
    await pageD.waitForSelector(".quire-review-item", { timeout: 5000 });
    const reason = await pageD.textContent(".quire-review-reason");
    expect(reason.includes("may contradict"), `reason: ${reason}`);
    await shot(pageD, "review-view.png");
    await pageD.click(".quire-review-about");
    await waitFor(pageD, () => window.harness.mainNote()?.path === "Kitchen/Sourdough starter.md");
    // A second item, which the user resolves; the decision is recorded in the review note Quire wrote.
    const second = join(vaultD, "Quire", "Review", "Edited page - Rye.md");
    await fsp.writeFile(second, sealed(`---\nquire: generated\nquire_kind: review\nreason: You edited Rye since Quire wrote it; the new version waits here.\nabout: Kitchen/Bread baking log.md\nquire_hash: ""\n---\n\n# Edited page: Rye\n`));
    await waitFor(pageD, () => document.querySelectorAll(".quire-review-item.is-open").length === 2, undefined, 10_000);
    await shots(pageD, "review-open");
    await axeCheck(pageD, "review", ".quire-review");
    await pageD.click('.quire-review-item[data-path="Quire/Review/Edited page - Rye.md"] .quire-review-resolve');
    await waitFor(pageD, () => document.querySelectorAll(".quire-review-item").length === 1 && /^1 open item/.test(document.querySelector(".quire-review-count")?.textContent ?? ""), undefined, 10_000);
    await waitFor(pageD, () => true);
    const onDisk = await fsp.readFile(second, "utf8");
    expect(/\nstatus: resolved\n/.test(onDisk) && onDisk.includes("# Edited page: Rye"), `review note after Resolve:\n${onDisk}`);
    await shots(pageD, "review-resolved");
    await pageD.click(".quire-review-filter");
    await waitFor(pageD, () => document.querySelectorAll(".quire-review-item.is-resolved").length === 1);
    await shots(pageD, "review-all");
    await pageD.click(".quire-review-filter");
    await pageD.click(".quire-status");
    await pageD.waitForSelector(".quire-status-table", { timeout: 5000 });
    const table = await pageD.textContent(".quire-status-table");
    expect(table.includes("openai/fake"), `status lacks the model: ${table}`);
    await shot(pageD, "status-model.png");
    await pageD.evaluate(() => window.harness.closeModals());
  });
}
