// Notes of a git repository beside the vault (issue 26) in the browser
// harness: a real repository made here with git, configured as the source
// "ops" of a copy of the sample vault served by a real `quire serve`. A
// passage of it found by Search, listed by Related pages and cited by Ask
// opens read-only in Quire's view (its text rendered, its heading marked,
// the source and revision named), never as a vault file; the Sources view
// browses its table of contents and opens a note at a heading. Light and
// dark screenshots, axe on each view.
import { execFileSync } from "node:child_process";
import { promises as fsp } from "node:fs";
import { dirname, join } from "node:path";

// Each section of deploy.md is long enough to be a passage of its own.
const filler = (topic) =>
  Array.from({ length: 6 }, (_, i) => `${topic} step ${i + 1} is written down here so the crew can follow it without asking, in the order the checklist gives it.`).join(" ");
const NOTES = {
  "runbooks/deploy.md":
    "---\ntags: [ops/deploy]\n---\n# Deploy\n\nShip the fleet service on weekday mornings, never on Fridays. " + filler("Shipping") + "\n\n" +
    "## Rollback\n\nRoll the zeppelin pods back one by one with `make rollback`, watching the hangar dashboard between each. " + filler("Rolling back") + "\n\n" +
    "## After\n\nTell the crew in the ops channel. See [[dns]] when the names moved. " + filler("Telling") + "\n",
  "runbooks/dns.md": "# DNS\n\nThe hangar names live in the ops zone; a change takes an hour to spread.\n",
  "README.md": "# Ops notes\n\nRunbooks for the hangar.\n",
};
const VAULT_NOTE = "Ops/Zeppelin hangar.md";

/** git runs git in dir with a clean identity and no user configuration. */
function git(dir, ...args) {
  return execFileSync("git", ["-C", dir, "-c", "user.email=harness@example.org", "-c", "user.name=harness", ...args], {
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null" },
    encoding: "utf8",
  });
}

/** sourcesScenarios runs the git source's scenarios on a sidecar of their own; h is run.mjs's toolbox. */
export async function sourcesScenarios(h) {
  const { tmp, bin, manifest, log, scenario, expect, newPage, waitFor, shots, axeCheck, copyVault, vaultFiles, sidecars, Sidecar } = h;
  const repoDir = join(tmp, "ops-notes");
  for (const [p, body] of Object.entries(NOTES)) {
    await fsp.mkdir(dirname(join(repoDir, p)), { recursive: true });
    await fsp.writeFile(join(repoDir, p), body);
  }
  git(repoDir, "init", "-q", "-b", "main");
  git(repoDir, "add", "-A");
  git(repoDir, "commit", "-q", "-m", "ops notes");
  const head = git(repoDir, "rev-parse", "HEAD").trim();
  const vault = await copyVault(join(tmp, "vault-sources"));
  await fsp.mkdir(join(vault, "Ops"), { recursive: true });
  await fsp.writeFile(join(vault, VAULT_NOTE), "# Zeppelin hangar\n\nHow we roll the zeppelin pods back when a deploy of the fleet service goes wrong.\n");
  await fsp.mkdir(join(vault, ".quire"), { recursive: true });
  await fsp.writeFile(join(vault, ".quire", "config.yaml"), `sources:\n  git:\n    ops:\n      path: ${repoDir}\n`);
  const sc = new Sidecar(bin, vault);
  sidecars.push(sc);
  await sc.start();
  const page = await newPage();
  await page.evaluate((a) => window.harness.load(a), { basePath: vault, files: vaultFiles(vault), settings: { binaryPath: "", stateFolder: "" }, manifest });
  await waitFor(page, () => /^Quire: \d+ notes?/.test(window.harness.statusText()), undefined, 60_000);

  /** readOnly waits for the read-only view of deploy.md at heading and checks it shows the source's note, not a vault file. */
  const readOnly = async (heading) => {
    await page.waitForSelector(".quire-source-note .quire-source-note-body", { timeout: 20_000 });
    const seen = await page.evaluate(() => ({
      meta: document.querySelector(".quire-source-note-meta")?.textContent ?? "",
      target: document.querySelector(".quire-source-note-target")?.textContent ?? null,
      body: document.querySelector(".quire-source-note-body")?.textContent ?? "",
      editor: window.harness.mainNote(),
    }));
    log(`read-only view: ${seen.meta} | marked ${seen.target}`);
    expect(seen.meta === `Read-only Source ops · revision ${head.slice(0, 12)} · runbooks/deploy.md`, `the view's header: ${seen.meta}`);
    expect(seen.target === heading, `marked heading ${seen.target}, want ${heading}`);
    expect(seen.body.includes("Roll the zeppelin pods back one by one"), "the note's text is not shown");
    expect(seen.editor === null, `a vault editor opened: ${JSON.stringify(seen.editor)}`);
  };
  // The vault's note in the main tab again, where the read-only view opens next.
  const fresh = () => page.evaluate((p) => window.harness.open(p), VAULT_NOTE);

  await scenario("sources: a git source's passage found by Search opens read-only, at its heading, with the source and revision", async () => {
    await page.evaluate(() => window.harness.command("search-vault"));
    await page.waitForSelector(".quire-search-input", { timeout: 5000 });
    await page.fill(".quire-search-input", "roll zeppelin pods back");
    const row = '.quire-search-item[data-path="ops:runbooks/deploy.md"]';
    await page.waitForSelector(row, { timeout: 20_000 });
    const head = await page.$eval(row, (e) => e.textContent);
    log(`search hit: ${head.slice(0, 120)}`);
    await shots(page, "sources-search-hit");
    await axeCheck(page, "search (git source hit)", ".quire-search-modal");
    await page.click(row);
    await readOnly("Rollback");
    await shots(page, "sources-note-read-only");
    await axeCheck(page, "source note (read-only)", ".quire-source-note");
    // A link inside goes to the source's own note, not a vault note of that name.
    await page.click(".quire-source-note-body a.internal-link");
    await waitFor(page, () => /runbooks\/dns\.md$/.test(document.querySelector(".quire-source-note-meta")?.textContent ?? ""));
    const files = await page.evaluate(() => [...window.harness.app.vault.files.keys()]);
    expect(!files.includes("dns.md"), "a vault note was made for the link");
  });

  await scenario("sources: Related pages lists a git source's note, which opens read-only", async () => {
    await fresh();
    await page.evaluate(() => window.harness.command("open-related"));
    const row = '.quire-related-item[data-path="ops:runbooks/deploy.md"]';
    await page.waitForSelector(row, { timeout: 30_000 });
    log(`related to ${VAULT_NOTE}: ${(await page.evaluate(() => window.harness.relatedTitles())).join(" | ")}`);
    await shots(page, "sources-related");
    await axeCheck(page, "related (git source)", ".quire-related");
    await page.click(`${row} .quire-related-title`);
    await readOnly("Rollback");
  });

  await scenario("sources: an Ask citation of a git source's note opens read-only", async () => {
    await fresh();
    await page.evaluate(() => window.harness.command("ask-vault"));
    await page.waitForSelector(".quire-ask-modal .quire-ask-input", { timeout: 5000 });
    await page.fill(".quire-ask-modal .quire-ask-input", "How do I roll the zeppelin pods back?");
    await page.keyboard.press("Enter");
    const link = '.quire-ask-modal .quire-ask-source-link:text("Deploy")';
    await page.waitForSelector(link, { timeout: 60_000 });
    await shots(page, "sources-ask-citation");
    await axeCheck(page, "ask (git source citation)", ".quire-ask-modal");
    await page.focus(link);
    await page.keyboard.press("Enter");
    await readOnly("Rollback");
    await page.evaluate(() => window.harness.closeModals());
  });

  await scenario("sources: the Sources view browses the git source's table of contents; a heading opens read-only there", async () => {
    await fresh();
    await page.evaluate(() => window.harness.command("open-sources"));
    await page.waitForSelector(".quire-toc select.quire-toc-source", { timeout: 10_000 });
    await waitFor(page, () => document.querySelectorAll(".quire-toc select.quire-toc-source option").length === 2);
    await page.selectOption(".quire-toc select.quire-toc-source", "ops");
    await waitFor(page, () => [...document.querySelectorAll(".quire-toc .quire-toc-note-title")].some((a) => a.textContent === "Deploy"));
    const tree = await page.$eval(".quire-toc-tree", (e) => e.textContent);
    log(`ops table of contents: ${tree.slice(0, 160)}`);
    expect((await page.textContent(".quire-toc-meta")).includes(`Revision ${head.slice(0, 12)}`), "the revision is not named");
    await shots(page, "sources-toc");
    await axeCheck(page, "sources (table of contents)", ".quire-toc");
    // From the keyboard: the filter, then the Rollback heading's link.
    await page.fill(".quire-toc-filter", "rollback");
    await waitFor(page, () => document.querySelectorAll(".quire-toc .quire-toc-note-title").length === 1);
    await page.focus('.quire-toc .quire-toc-heading:text("Rollback")');
    await page.keyboard.press("Enter");
    await readOnly("Rollback");
    await shots(page, "sources-toc-opened");
  });

  await page.evaluate(() => window.harness.unload());
  await page.close();
  await sc.stop();
}
