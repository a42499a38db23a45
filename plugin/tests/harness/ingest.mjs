// Ingest in the browser harness: with a model (notes written, a review
// item, their notices), and from the clipboard against a local test site
// reached as example.test through the sidecar's test-only host map.
import { promises as fsp } from "node:fs";
import { join } from "node:path";

/** ingestWithModelScenarios runs on the model session (modelSession). */
export async function ingestWithModelScenarios(h, s) {
  const { log, scenario, expect, Pending, waitFor, shot, shots, pageErrors, openIngested } = h;
  const { pageD, vaultD, model, testHosts } = s;
  await scenario("with a model, ingest writes notes: a notice for the pages written and one for the review item", async () => {
    if (!testHosts) throw new Pending("quire serve has no --test-hosts flag yet");
    // A review leaf in a sidebar tab not shown yet holds a DeferredView: review.created must not throw on it.
    await pageD.evaluate(() => window.harness.deferredReviewLeaf());
    const before = model.requests.length;
    await pageD.evaluate(() => window.harness.setClipboard("http://example.test/article"));
    await pageD.evaluate(() => window.harness.ribbon("ingest"));
    await openIngested(pageD);
    await waitFor(pageD, () => window.harness.notices().some((n) => /something to review/.test(n)) && window.harness.notices().some((n) => /^Quire wrote/.test(n)), undefined, 10_000).catch(async (err) => {
      throw new Error(`${err.message}; notices: ${await pageD.evaluate(() => window.harness.notices().join(" | "))}`);
    });
    const notices = await pageD.evaluate(() => window.harness.notices());
    log(`ingest with a model: ${model.requests.length - before} model calls; notices: ${notices.slice(-4).join(" | ")}`);
    const note = await pageD.evaluate(() => window.harness.mainNote().path);
    const text = await fsp.readFile(join(vaultD, note), "utf8");
    expect(/summarised: true/.test(text), `source note not summarised:\n${text.slice(0, 400)}`);
    expect(await pageD.$(".notice .quire-notice-button"), "no Open button in the notices");
    await shot(pageD, "ingest-notices.png");
    await pageD.evaluate(() => window.harness.command("open-review"));
    await waitFor(pageD, () => document.querySelectorAll(".quire-review-item.is-open").length >= 2);
    expect(pageErrors.get(pageD).length === 0, `page errors: ${pageErrors.get(pageD).join(" | ")}`);
    await pageD.click(".notice:has(.quire-notice-message:text-matches(\"^Quire wrote\")) .quire-notice-button");
    await waitFor(pageD, (p) => window.harness.mainNote()?.path !== p, note);
    log(`Open in the notice opened ${await pageD.evaluate(() => window.harness.mainNote().path)}`);
    await shot(pageD, "review-view-after-ingest.png");
  });
  await scenario("review.created with a deferred review leaf: no error, the notice still shows", async () => {
    const notices = await pageD.evaluate(() => window.harness.notices());
    expect(notices.some((n) => /something to review/.test(n)), `notices: ${notices.join(" | ")}`);
    expect(pageErrors.get(pageD).length === 0, `page errors: ${pageErrors.get(pageD).join(" | ")}`);
    await shots(pageD, "review-deferred");
  });
}

/** ingestScenarios runs on a sidecar of its own that reaches the model session's test site. */
export async function ingestScenarios(h, s) {
  const { tmp, bin, manifest, log, scenario, expect, Pending, newPage, waitFor, shot, copyVault, vaultFiles, sidecars, Sidecar, openIngested } = h;
  const { site, testHosts, hostArgs } = s;
  // 4. Ingest: a local test site, reached as example.test through the sidecar's test-only host map.
  const vaultE = await copyVault(join(tmp, "vault-ingest"));
  const scE = new Sidecar(bin, vaultE, hostArgs);
  sidecars.push(scE);
  await scE.start();
  const pageE = await newPage();
  await pageE.evaluate((a) => window.harness.load(a), { basePath: vaultE, files: vaultFiles(vaultE), settings: { binaryPath: "", stateFolder: "" }, manifest });
  await waitFor(pageE, () => /^Quire: \d+ notes?/.test(window.harness.statusText()), undefined, 60_000);
  /** ingestAnswered fails as pending when this sidecar does not answer ingest.add yet. */
  const ingestAnswered = async () => {
    const notices = await pageE.evaluate(() => window.harness.notices());
    const no = notices.find((n) => /not answered by this sidecar|has no ingest queue/.test(n));
    if (no) throw new Pending(`the sidecar does not answer ingest.add yet (${no})`);
  };

  await scenario("ingest refuses what is not a web address, and a local address, in short sentences", async () => {
    await pageE.evaluate(() => window.harness.setClipboard("not a web address"));
    await pageE.evaluate(() => window.harness.ribbon("ingest"));
    await waitFor(pageE, () => window.harness.notices().some((n) => n.includes("does not hold a web address"))).catch(async (err) => {
      throw new Error(`${err.message}; notices: ${await pageE.evaluate(() => window.harness.notices().join(" | "))}`);
    });
    // The fetch guard allows public addresses only: the test site by its real address is refused.
    const hitsBefore = site.hits.length;
    await pageE.evaluate((u) => window.harness.setClipboard(u), `http://127.0.0.1:${site.server.address().port}/article`);
    await pageE.evaluate(() => window.harness.command("ingest-clipboard"));
    await waitFor(pageE, () => window.harness.notices().some((n) => /Address not allowed|not answered by this sidecar|has no ingest queue/.test(n)), undefined, 30_000).catch(async (err) => {
      throw new Error(`${err.message}; notices: ${await pageE.evaluate(() => window.harness.notices().join(" | "))}`);
    });
    await ingestAnswered();
    const notices = await pageE.evaluate(() => window.harness.notices());
    log(`refused: ${notices.filter((n) => /not allowed/.test(n)).at(-1)}`);
    expect(site.hits.length === hitsBefore, "the guard let the sidecar fetch a local address");
    await shot(pageE, "ingest-blocked.png");
  });

  await scenario("ingest the clipboard URL: progress, then the done notice offers the source note, which opens from it", async () => {
    if (!testHosts) throw new Pending("quire serve has no --test-hosts flag yet: the sidecar cannot reach a local test site");
    await ingestAnswered();
    await pageE.evaluate(() => window.harness.setClipboard("http://example.test/article"));
    await pageE.evaluate(() => window.harness.command("ingest-clipboard"));
    await waitFor(pageE, () => window.harness.notices().some((n) => n.includes("example.test/article")));
    let sawBusy = false;
    for (let i = 0; i < 200 && !sawBusy; i++) {
      sawBusy = /ingesting \d+\/\d+/.test(await pageE.evaluate(() => window.harness.statusText()));
      if (sawBusy) await shot(pageE, "ingest-progress.png");
      else await new Promise((r) => setTimeout(r, 10));
    }
    // The note does not open by itself (the user may be writing): the done notice offers it.
    const before = await pageE.evaluate(() => window.harness.mainNote()?.path ?? null);
    await pageE.waitForSelector('.notice:has(.quire-notice-message:text-matches("Saved")) .quire-notice-button', { timeout: 60_000 });
    expect((await pageE.evaluate(() => window.harness.mainNote()?.path ?? null)) === before, "the ingested note took over the editor");
    await shot(pageE, "ingest-done-offer.png");
    await openIngested(pageE);
    const notePath = await pageE.evaluate(() => window.harness.mainNote().path);
    const notices = await pageE.evaluate(() => window.harness.notices());
    log(`ingested as ${notePath} (status bar busy seen: ${sawBusy}); notices: ${notices.join(" | ")}`);
    // Progress shows in the status bar or, for an ingest too quick to catch there, in the item's notice.
    expect(sawBusy || notices.some((n) => /example\.test\/article — (fetching|extracting|reading|linking|writing)/.test(n)), `no progress seen: ${notices.join(" | ")}`);
    const text = await fsp.readFile(join(vaultE, notePath), "utf8");
    expect(/basil/i.test(text), `source note: ${text.slice(0, 300)}`);
    expect(site.hits.includes("/article"), "the test site was not fetched");
    expect(notices.some((n) => /Saved “/.test(n)), `no done notice: ${notices}`);
    await shot(pageE, "ingest-done.png");
  });

  await scenario("ingesting the same page again is refused as a duplicate; the status view lists the queue", async () => {
    if (!testHosts) throw new Pending("quire serve has no --test-hosts flag yet");
    await ingestAnswered();
    await pageE.evaluate(() => window.harness.setClipboard("http://example.test/article"));
    await pageE.evaluate(() => window.harness.ribbon("ingest"));
    await waitFor(pageE, () => window.harness.notices().some((n) => /Already ingested|already in the vault/.test(n)), undefined, 30_000);
    log(`duplicate: ${(await pageE.evaluate(() => window.harness.notices())).at(-1)}`);
    await shot(pageE, "ingest-duplicate.png");
    await pageE.click(".quire-status");
    await pageE.waitForSelector(".quire-queue-item", { timeout: 5000 });
    const items = await pageE.$$eval(".quire-queue-item", (els) => els.map((e) => e.textContent));
    log(`queue: ${items.join(" | ")}`);
    await shot(pageE, "status-queue.png");
    await pageE.evaluate(() => window.harness.closeModals());
  });
  await pageE.evaluate(() => window.harness.unload());
  await pageE.close();
  await scE.stop();
}
