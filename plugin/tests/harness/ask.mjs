// Ask in the browser harness, against a sidecar whose model is a fake
// OpenAI-compatible server: streaming, citations and their hover, saving,
// refusals, Stop, follow-ups, the sidebar view and its scope.
import { spawnSync } from "node:child_process";
import { promises as fsp } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";

/**
 * startFakeModel is an OpenAI-compatible chat server, as sidecar/llm/llmtest
 * speaks it: POST /v1/chat/completions answers with SSE chunks whose text,
 * put together, is the JSON reply sidecar/ask expects ({answer, citations,
 * quotes, notFound}). It cites passage 1 and names its note; a question
 * about Mars gets notFound, which the sidecar turns into a refusal.
 */
function startFakeModel() {
  const requests = [];
  // A question with "patient" in it streams its first piece and then waits for release(): the harness closes a view mid-answer.
  const held = [];
  const model = { requests, finished: 0, release: () => held.splice(0).forEach((r) => r()) };
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", async () => {
      if (req.method !== "POST" || !req.url.endsWith("/chat/completions")) {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `no ${req.url}` } }));
        return;
      }
      const json = JSON.parse(body);
      requests.push(json);
      const user = json.messages.filter((m) => m.role === "user").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");
      const system = json.messages.filter((m) => m.role === "system").map((m) => m.content).join("\n");
      const ingestReply = ingestModelReply(system, user);
      const question = (/<question>\s*([\s\S]*?)\s*<\/question>/.exec(user)?.[1] ?? "").trim();
      const first = /<passage id="(\d+)" note="([^"]*)"/.exec(user);
      let reply;
      if (ingestReply) {
        reply = ingestReply;
      } else if (!first || /mars/i.test(question)) {
        reply = { answer: "", citations: [], quotes: [], notFound: true };
      } else {
        const note = first[2].replace(/\.md$/, "").split("/").at(-1);
        // A follow-up comes with the earlier turns; the reply says which question it follows.
        const earlier = [...user.matchAll(/<asked>\s*([\s\S]*?)\s*<\/asked>/g)].map((m) => m[1]);
        const follows = earlier.length > 0 ? `Following up on your earlier question (${earlier.length} turn${earlier.length === 1 ? "" : "s"} before this one): ` : "";
        reply = {
          answer: `${follows}Your notes answer this in **${note}**: keep to the routine it describes and check on it daily [${first[1]}].`,
          citations: [Number(first[1])],
          quotes: [],
          notFound: false,
        };
      }
      const text = JSON.stringify(reply);
      const created = Math.floor(Date.now() / 1000);
      const chunk = (delta, finish) => ({ id: "chatcmpl-harness", object: "chat.completion.chunk", created, model: json.model, choices: [{ index: 0, delta, finish_reason: finish }] });
      if (!json.stream) {
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({ id: "chatcmpl-harness", object: "chat.completion", created, model: json.model, choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: text } }], usage: { prompt_tokens: 100, completion_tokens: 30, total_tokens: 130 } }),
        );
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const send = (data) => res.write(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
      send(chunk({ role: "assistant", content: "" }, null));
      // Small pieces with a pause between them, so that the plugin visibly streams.
      for (let i = 0; i < text.length; i += 12) {
        send(chunk({ content: text.slice(i, i + 12) }, null));
        await new Promise((r) => setTimeout(r, 60));
        if (i === 0 && /\bpatient\b/i.test(question)) await new Promise((r) => held.push(r));
      }
      send(chunk({}, "stop"));
      if (json.stream_options?.include_usage) send({ id: "chatcmpl-harness", object: "chat.completion.chunk", created, model: json.model, choices: [], usage: { prompt_tokens: 100, completion_tokens: 30, total_tokens: 130 } });
      send("[DONE]");
      res.end();
      model.finished++;
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(Object.assign(model, { server }))));
}

/**
 * ingestModelReply answers the sidecar's ingest prompts (ingest/compile:
 * read a part, merge notes, plan the source note) for the test site's
 * basil article, with names and quotes the source really holds and one
 * contradiction with the first existing page offered, which the sidecar
 * turns into a review item. It returns null for any other prompt.
 */
function ingestModelReply(system, user) {
  const notes = {
    points: ["Basil needs six hours of sun and warm nights.", "Pinching above a pair of leaves makes the plant bushy."],
    terms: [{ term: "downy mildew", definition: "A disease that shows as yellow patches between the veins." }],
    quotes: ["Once basil flowers, its leaves turn bitter."],
    entities: [{ name: "Ada Gardener", kind: "person", description: "The author of the article." }],
    relations: [],
  };
  if (system.startsWith("Task: take notes on one part")) return notes;
  if (system.startsWith("Task: merge")) return notes;
  if (!system.startsWith("Task: plan")) return null;
  const page = /<page title="([^"]*)"/.exec(user)?.[1];
  return {
    title: "Growing basil on a windowsill",
    oneLiner: "How to grow and harvest basil on a sunny windowsill.",
    summary: "Basil wants sun, warmth and water at its base.\n\nPinching the stems keeps it bushy and delays flowering.",
    keyIdeas: ["Six hours of sun a day.", "Water at the base when the top soil is dry.", "Pinch off flower buds."],
    tags: ["gardening", "herbs"],
    concepts: [{ name: "downy mildew", description: "A disease that shows as yellow patches between the veins." }],
    entities: [{ name: "Ada Gardener", kind: "person", description: "The author of the article." }],
    connections: page ? [{ page, reason: "Another plant kept indoors." }] : [],
    contradictions: page ? [{ page, claim: "Water basil at the base when the top centimetre of soil is dry.", explanation: "The page waters on a fixed schedule instead." }] : [],
  };
}

/** startTestSite serves one article page, as a small blog would, for the ingest scenario. */
function startTestSite() {
  const article = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Growing basil on a windowsill</title>
<meta name="author" content="Ada Gardener"></head><body><header><nav><a href="/">Home</a> · <a href="/about">About</a></nav></header>
<main><article><h1>Growing basil on a windowsill</h1><p class="byline">By Ada Gardener</p>
<p>Basil wants six hours of sun a day and warm nights. A south-facing windowsill gives it both from late spring to early autumn, and a pot with drainage holes keeps its roots from rotting.</p>
<p>Water basil at the base when the top centimetre of soil is dry. Wet leaves in a cool room invite downy mildew, which shows first as yellow patches between the veins.</p>
<h2>Harvesting</h2><p>Pinch the stem just above a pair of leaves. Two new shoots grow from that node, so regular pinching makes a bushy plant instead of a tall one that flowers early.</p>
<p>Once basil flowers, its leaves turn bitter. Pinch off flower buds as soon as they appear to keep the harvest going through the summer.</p>
</article></main><footer>© 2026 Windowsill Gardening</footer></body></html>`;
  const hits = [];
  const server = createServer((req, res) => {
    hits.push(req.url);
    if (req.url === "/article") res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(article);
    else res.writeHead(404, { "content-type": "text/plain" }).end("not found");
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, hits })));
}

/** supportsTestHosts reports whether this quire build has the hidden --test-hosts flag of `serve`. */
function supportsTestHosts(bin) {
  const r = spawnSync(bin, ["serve", "--test-hosts", "probe.test=127.0.0.1:1", "-h"], { encoding: "utf8" });
  return !/flag provided but not defined: -test-hosts/.test(`${r.stderr}${r.stdout}`);
}
/** modelSession starts the fake model and the test site, and a sidecar whose model is the fake; the ask, settings, review and ingest scenarios share it. */
export async function modelSession(h) {
  const { tmp, bin, manifest, newPage, waitFor, copyVault, vaultFiles, sidecars, servers, Sidecar } = h;
  // 3. Ask: a sidecar whose model is the harness's fake OpenAI-compatible server.
  const model = await startFakeModel();
  servers.push(model.server);
  const site = await startTestSite();
  servers.push(site.server);
  const testHosts = supportsTestHosts(bin);
  const hostArgs = testHosts ? ["--test-hosts", `example.test=127.0.0.1:${site.server.address().port}`] : [];
  const vaultD = await copyVault(join(tmp, "vault-ask"));
  await fsp.mkdir(join(vaultD, ".quire"), { recursive: true });
  await fsp.writeFile(
    join(vaultD, ".quire", "config.yaml"),
    `model:\n  provider: openai\n  endpoint: http://127.0.0.1:${model.server.address().port}\n  model: fake\n  api_key: harness-key\n  timeout: 30s\n`,
  );
  const scD = new Sidecar(bin, vaultD, hostArgs);
  sidecars.push(scD);
  await scD.start();
  const pageD = await newPage();
  await pageD.evaluate((a) => window.harness.load(a), { basePath: vaultD, files: vaultFiles(vaultD), settings: { binaryPath: "", stateFolder: "" }, manifest });
  await waitFor(pageD, () => /^Quire: \d+ notes?/.test(window.harness.statusText()), undefined, 60_000);
  return { pageD, vaultD, scD, model, site, testHosts, hostArgs };
}

/** askScenarios runs on the model session (modelSession). */
export async function askScenarios(h, s) {
  const { log, scenario, expect, waitFor, shot, shots, axeCheck } = h;
  const { pageD, vaultD, model } = s;
  let savedAnswer = "";
  let cited = null;
  await scenario("ask streams an answer from the model, with a citation whose hover shows the passage", async () => {
    await pageD.evaluate(() => window.harness.command("ask-vault"));
    await pageD.waitForSelector(".quire-ask-input", { timeout: 5000 });
    await pageD.fill(".quire-ask-input", "How do I keep my sourdough starter alive?");
    await pageD.click(".quire-ask-submit");
    await waitFor(pageD, () => (document.querySelector(".quire-ask-stream")?.textContent ?? "").length > 10);
    const partial = await pageD.textContent(".quire-ask-stream");
    await shot(pageD, "ask-streaming.png");
    await pageD.waitForSelector(".quire-ask-body .quire-citation-marker", { timeout: 30_000 });
    const answer = await pageD.textContent(".quire-ask-body");
    log(`streamed "${partial.slice(0, 40)}…", answered: ${answer}`);
    expect(partial.length < answer.length || !answer.startsWith(partial), "the stream did not show partial text");
    expect(/\[1\]/.test(answer), `answer without [1]: ${answer}`);
    expect((await pageD.$$(".quire-ask-body strong")).length === 1, "the answer's Markdown was not rendered");
    const source = await pageD.textContent(".quire-ask-source");
    cited = source.replace(/^\[1\]/, "").split(" › ")[0];
    await shots(pageD, "ask-answer");
    await axeCheck(pageD, "ask", ".quire-ask-modal");
    await pageD.hover(".quire-ask-body .quire-citation-marker");
    await pageD.waitForSelector(".quire-citation-popover .quire-citation-text", { timeout: 5000 });
    const pop = await pageD.textContent(".quire-citation-popover .quire-citation-text");
    const title = await pageD.textContent(".quire-citation-popover .quire-citation-title");
    log(`hover on [1]: ${title}: ${pop.slice(0, 80)}…`);
    expect(pop.trim().length > 20, `popover text: ${pop}`);
    expect(title === cited, `popover names ${title}, the source list ${cited}`);
    expect(!(await pageD.$(".quire-citation-popover .quire-citation-changed")), "an unchanged note is said to have changed");
    await shot(pageD, "ask-citation-hover.png");
    expect(model.requests.length >= 1, "the fake model was not asked");
  });

  await scenario("save as note writes Quire/Answers/ and opens it", async () => {
    await pageD.mouse.move(5, 5);
    await pageD.click(".quire-ask-save");
    await waitFor(pageD, () => /^Quire\/Answers\/.+\.md$/.test(window.harness.mainNote()?.path ?? ""), undefined, 10_000);
    savedAnswer = await pageD.evaluate(() => window.harness.mainNote().path);
    const text = await fsp.readFile(join(vaultD, savedAnswer), "utf8");
    expect(text.startsWith("---\nquire: answer\n") && /\n {4}- number: 1\n/.test(text), `saved note: ${text.slice(0, 300)}`);
    expect(!(await pageD.evaluate(() => window.harness.modal())), "the modal stayed open");
    await shot(pageD, "answer-saved-opened.png");
  });

  await scenario("a saved answer's citation hover shows the stored range and says when the note changed", async () => {
    expect(savedAnswer, "no saved answer");
    await pageD.evaluate((p) => window.harness.reading(p), savedAnswer);
    await pageD.waitForSelector(".markdown-reading-view .quire-citation-marker", { timeout: 5000 });
    await pageD.hover(".markdown-reading-view .quire-citation-marker");
    await pageD.waitForSelector(".quire-citation-popover .quire-citation-text", { timeout: 5000 });
    const before = await pageD.textContent(".quire-citation-popover .quire-citation-text");
    expect(!(await pageD.$(".quire-citation-popover .quire-citation-changed")), "fresh answer marked changed");
    await shot(pageD, "answer-note-hover.png");
    // The user edits the cited note: a line above the passage shifts its bytes.
    const fm = await fsp.readFile(join(vaultD, savedAnswer), "utf8");
    const notePath = /\n {6}note: (.+)\n/.exec(fm)[1].replace(/^"|"$/g, "");
    const full = join(vaultD, notePath);
    const start = Number(/\n {6}start: (\d+)\n/.exec(fm)[1]);
    const orig = await fsp.readFile(full);
    await fsp.writeFile(full, Buffer.concat([orig.subarray(0, start), Buffer.from("Edited by the user today.\n\n"), orig.subarray(start)]));
    await waitFor(pageD, (p) => window.harness.app.vault.files.get(p)?.includes("Edited by the user today."), notePath);
    await pageD.mouse.move(5, 5);
    await pageD.waitForSelector(".quire-citation-popover", { state: "detached", timeout: 5000 });
    await pageD.hover(".markdown-reading-view .quire-citation-marker");
    // The passage moved down by a line: the popover finds it by its text and says so,
    // instead of showing whatever bytes now sit at the old offsets.
    await pageD.waitForSelector(".quire-citation-popover .quire-citation-changed.is-moved", { timeout: 5000 });
    const after = await pageD.textContent(".quire-citation-popover .quire-citation-text");
    expect(after.trim() === before.trim(), `the moved passage shows ${JSON.stringify(after.slice(0, 80))}, want ${JSON.stringify(before.slice(0, 80))}`);
    expect(!after.includes("Edited by the user today."), "the popover shows the inserted line as the passage");
    await shots(pageD, "ask-citation-moved");
    await pageD.click(".quire-citation-popover");
    await waitFor(pageD, (p) => window.harness.mainNote()?.path === p && window.harness.mainNote()?.line !== null, notePath);
    const opened = await pageD.evaluate(() => window.harness.mainNote());
    // The passage's bytes moved down by the inserted line (the popover shows it rendered, not as its raw first line).
    const movedLine = (await fsp.readFile(full)).subarray(0, start + Buffer.byteLength("Edited by the user today.\n\n")).toString("utf8").split("\n").length - 1;
    expect(opened.line === movedLine, `opened at line ${opened.line}, the passage is now at line ${movedLine}`);
    const orig2 = await fsp.readFile(join(vaultD, savedAnswer), "utf8");
    expect(orig2 === fm, "the answer note was modified");
  });

  await scenario("in the editor, hovering a saved answer's [1] shows the passage and Ctrl-click opens it", async () => {
    expect(savedAnswer, "no saved answer");
    await pageD.evaluate((p) => window.harness.editor(p), savedAnswer);
    const at = await pageD.evaluate(() => window.harness.editorCoords("[1]"));
    await pageD.mouse.move(at.x, at.y);
    await pageD.waitForSelector(".quire-citation-popover .quire-citation-text", { timeout: 5000 });
    const title = await pageD.textContent(".quire-citation-popover .quire-citation-title");
    expect(title.length > 0, "popover without a title");
    await shot(pageD, "answer-editor-hover.png");
    await pageD.keyboard.down("Control");
    await pageD.mouse.down();
    await pageD.mouse.up();
    await pageD.keyboard.up("Control");
    await waitFor(pageD, () => !/^Quire\/Answers\//.test(window.harness.mainNote()?.path ?? "Quire/Answers/"), undefined, 5000);
    log(`Ctrl-click on [1] in the editor opened ${await pageD.evaluate(() => window.harness.mainNote().path)}`);
  });

  await scenario("a question the notes cannot answer is shown as a refusal", async () => {
    await pageD.evaluate(() => window.harness.command("ask-vault"));
    await pageD.waitForSelector(".quire-ask-history-item", { timeout: 5000 });
    const recent = await pageD.$$eval(".quire-ask-history-item", (els) => els.map((e) => e.textContent));
    expect(recent.includes("How do I keep my sourdough starter alive?"), `recent questions: ${recent}`);
    await pageD.fill(".quire-ask-input", "What is the capital of Mars?");
    await pageD.press(".quire-ask-input", "Enter");
    await pageD.waitForSelector(".quire-ask-answer.is-refused .quire-ask-refusal", { timeout: 30_000 });
    const text = await pageD.textContent(".quire-ask-refusal");
    log(`refusal: ${text}`);
    await pageD.evaluate(() => window.harness.theme("dark"));
    await shot(pageD, "ask-refusal-dark.png");
    await pageD.evaluate(() => window.harness.theme("light"));
    await pageD.evaluate(() => window.harness.closeModals());
  });

  await scenario("ask: Stop keeps what streamed; a follow-up answer is inserted at the cursor with its citations as links", async () => {
    await pageD.evaluate(() => window.harness.open("Welcome.md"));
    await pageD.evaluate(() => window.harness.cursorAtEnd());
    const before = await pageD.evaluate(() => window.harness.noteText());
    await pageD.evaluate(() => window.harness.command("ask-vault"));
    await pageD.waitForSelector(".quire-ask-input", { timeout: 5000 });
    await pageD.fill(".quire-ask-input", "How do I keep my sourdough starter alive?");
    await pageD.press(".quire-ask-input", "Enter");
    await waitFor(pageD, () => (document.querySelector(".quire-ask-stream")?.textContent ?? "").length > 10);
    await pageD.click(".quire-ask-stop");
    await waitFor(pageD, () => /^Stopped/.test(document.querySelector(".quire-ask-status")?.textContent ?? ""));
    expect(!(await pageD.$(".quire-ask-body")), "a stopped answer was rendered as checked");
    await shots(pageD, "ask-stop");
    // A stopped answer was never checked, so it does not go with a follow-up; a finished one does.
    await pageD.fill(".quire-ask-input", "How do I keep my sourdough starter alive?");
    await pageD.press(".quire-ask-input", "Enter");
    await pageD.waitForSelector(".quire-ask-turn:nth-of-type(2) .quire-ask-insert", { timeout: 30_000 });
    const asked = model.requests.length;
    await pageD.fill(".quire-ask-input", "How often do I feed it?");
    await pageD.press(".quire-ask-input", "Enter");
    await pageD.waitForSelector(".quire-ask-turn:nth-of-type(3) .quire-ask-insert", { timeout: 30_000 });
    const sent = model.requests.slice(asked).map((r) => r.messages.filter((m) => m.role === "user").map((m) => m.content).join("\n")).at(-1) ?? "";
    const conversation = /<conversation>[\s\S]*<\/conversation>/.exec(sent)?.[0] ?? "";
    log(`follow-up prompt's conversation: ${conversation.replace(/\n/g, " ").slice(0, 240)}`);
    expect(/<asked>\s*How do I keep my sourdough starter alive\?\s*<\/asked>/.test(conversation), `the follow-up did not carry the earlier question: ${conversation || sent.slice(0, 200)}`);
    expect((conversation.match(/<asked>/g) ?? []).length === 1, "the stopped answer went with the follow-up");
    const followUp = await pageD.textContent(".quire-ask-turn:nth-of-type(3) .quire-ask-body");
    expect(/^Following up on/.test(followUp), `follow-up answer: ${followUp}`);
    const questions = await pageD.$$eval(".quire-ask-question", (els) => els.map((e) => e.textContent));
    expect(questions.length === 3 && questions.at(-1) === "How often do I feed it?", `questions shown: ${JSON.stringify(questions)}`);
    await shots(pageD, "ask-follow-up-answer");
    await pageD.$eval(".quire-ask-conversation", (el) => (el.scrollTop = 0));
    await shots(pageD, "ask-follow-up-conversation");
    await pageD.$eval(".quire-ask-conversation", (el) => (el.scrollTop = el.scrollHeight));
    await pageD.click(".quire-ask-turn:nth-of-type(3) .quire-ask-insert");
    await waitFor(pageD, () => !window.harness.modal());
    const inserted = (await pageD.evaluate(() => window.harness.noteText())).slice(before.length);
    log(`inserted answer: ${inserted.replace(/\n/g, " / ")}`);
    expect(/\(\[\[[^\]]+\|1\]\]\)/.test(inserted) && /Sources:\n1\. \[\[/.test(inserted), `inserted ${JSON.stringify(inserted)}`);
    await shots(pageD, "ask-insert-at-cursor");
  });

  await scenario("ask in the sidebar: a follow-up streams without moving anything on screen, and the conversation outlives the view", async () => {
    await pageD.evaluate(() => window.harness.open("Welcome.md"));
    await pageD.evaluate(() => window.harness.command("open-ask-view"));
    await pageD.waitForSelector(".quire-ask-view .quire-ask-input", { timeout: 5000 });
    await pageD.fill(".quire-ask-view .quire-ask-input", "How do I keep my sourdough starter alive?");
    await pageD.press(".quire-ask-view .quire-ask-input", "Enter");
    await pageD.waitForSelector(".quire-ask-view .quire-ask-turn .quire-ask-body", { timeout: 30_000 });
    await shots(pageD, "ask-sidebar-view");
    await axeCheck(pageD, "ask-sidebar", ".quire-ask-view");
    // The reader keeps the first answer's sources in view and asks a follow-up: sample the layout on every frame while it streams.
    await pageD.evaluate(() => {
      const conv = document.querySelector(".quire-ask-view .quire-ask-conversation");
      const samples = [];
      window.layoutSamples = samples;
      const take = () => {
        const turns = conv.querySelectorAll(".quire-ask-turn");
        const first = turns[0].querySelector(".quire-ask-sources").getBoundingClientRect();
        const last = turns[turns.length - 1];
        samples.push({
          turns: turns.length,
          scrollTop: conv.scrollTop,
          firstSourcesTop: first.top,
          firstSourcesHeight: first.height,
          question: last.querySelector(".quire-ask-question")?.getBoundingClientRect().top ?? null,
          height: last.getBoundingClientRect().height,
          streaming: !!last.querySelector(".quire-ask-stream") && !last.querySelector(".quire-ask-body"),
          done: !!last.querySelector(".quire-ask-body") && turns.length === 2,
        });
        if (!window.layoutStop) requestAnimationFrame(take);
      };
      window.layoutStop = false;
      requestAnimationFrame(take);
    });
    await pageD.fill(".quire-ask-view .quire-ask-input", "How often do I feed it?");
    await pageD.press(".quire-ask-view .quire-ask-input", "Enter");
    await pageD.waitForSelector(".quire-ask-view .quire-ask-turn:nth-of-type(2) .quire-ask-body", { timeout: 30_000 });
    await pageD.waitForTimeout(300);
    const samples = await pageD.evaluate(() => {
      window.layoutStop = true;
      return window.layoutSamples;
    });
    // From the first frame that shows the follow-up's turn to the last after its checked answer replaced the stream.
    const during = samples.filter((x) => x.turns === 2);
    const streamed = during.filter((x) => x.streaming).length;
    const spread = (k) => Math.max(...during.map((x) => x[k])) - Math.min(...during.map((x) => x[k]));
    let shrank = 0;
    for (let i = 1; i < during.length; i++) shrank = Math.max(shrank, during[i - 1].height - during[i].height);
    log(`ask layout while a follow-up streamed: ${during.length} frames (${streamed} streaming, ${during.filter((x) => x.done).length} after the answer was checked); scrollTop moved ${spread("scrollTop")} px, the follow-up's question ${spread("question")} px, the first answer's sources ${spread("firstSourcesTop")} px (height ${spread("firstSourcesHeight")} px); the new turn shrank by at most ${shrank} px`);
    expect(streamed >= 3 && during.some((x) => x.done), `too few frames sampled: ${streamed} streaming`);
    for (const k of ["scrollTop", "question", "firstSourcesTop", "firstSourcesHeight"]) expect(spread(k) <= 1, `${k} moved by ${spread(k)} px while the answer streamed`);
    expect(shrank <= 1, `the answer's turn shrank by ${shrank} px when the checked answer replaced the stream`);
    await shots(pageD, "ask-sidebar-follow-up");
    // Insert at cursor writes into the note and keeps the view and its conversation.
    await pageD.evaluate(() => window.harness.cursorAtEnd());
    const before = await pageD.evaluate(() => window.harness.noteText());
    await pageD.click(".quire-ask-view .quire-ask-turn:nth-of-type(2) .quire-ask-insert");
    const inserted = (await pageD.evaluate(() => window.harness.noteText())).slice(before.length);
    expect(/\(\[\[[^\]]+\|1\]\]\)/.test(inserted), `inserted from the sidebar: ${JSON.stringify(inserted.slice(0, 120))}`);
    expect(await pageD.$(".quire-ask-view .quire-ask-turn:nth-of-type(2)"), "the sidebar lost its conversation on insert");
    // Closing the view and opening it again keeps the conversation.
    await pageD.evaluate(() => window.harness.closeView("quire-ask"));
    expect(!(await pageD.$(".quire-ask-view")), "the view did not close");
    await pageD.evaluate(() => window.harness.command("open-ask-view"));
    await pageD.waitForSelector(".quire-ask-view .quire-ask-turn:nth-of-type(2) .quire-ask-body", { timeout: 5000 });
    const kept = await pageD.$$eval(".quire-ask-view .quire-ask-question", (els) => els.map((e) => e.textContent));
    expect(kept.length === 2, `after reopening, the sidebar shows ${JSON.stringify(kept)}`);
    await shots(pageD, "ask-sidebar-reopened");
    // Closing the view while an answer streams keeps that answer: the fake model holds it after its first piece, the view closes, then it ends.
    const ended = model.finished;
    await pageD.fill(".quire-ask-view .quire-ask-input", "Be patient: how warm should the starter be?");
    await pageD.press(".quire-ask-view .quire-ask-input", "Enter");
    await waitFor(pageD, () => (document.querySelector(".quire-ask-view .quire-ask-turn.is-latest .quire-ask-stream")?.textContent ?? "") !== "");
    await pageD.evaluate(() => window.harness.closeView("quire-ask"));
    expect(model.finished === ended, "the held answer ended before the view closed");
    model.release();
    for (const deadline = Date.now() + 20_000; model.finished === ended; ) {
      expect(Date.now() < deadline, "the held answer never ended");
      await new Promise((r) => setTimeout(r, 50));
    }
    await pageD.evaluate(() => window.harness.command("open-ask-view"));
    await pageD.waitForSelector(".quire-ask-view .quire-ask-turn:nth-of-type(3) .quire-ask-body", { timeout: 20_000 });
    const third = await pageD.$eval(".quire-ask-view .quire-ask-turn:nth-of-type(3)", (el) => ({
      question: el.querySelector(".quire-ask-question")?.textContent ?? "",
      body: el.querySelector(".quire-ask-body")?.textContent ?? "",
      sources: el.querySelectorAll(".quire-ask-source").length,
    }));
    log(`answer that streamed while the sidebar was closed: ${JSON.stringify(third).slice(0, 240)}`);
    expect(third.question.includes("Be patient") && third.body.includes("2 turns before this one") && third.sources > 0, `after closing mid-answer: ${JSON.stringify(third)}`);
    await shots(pageD, "ask-sidebar-closed-mid-answer");
    // Asked within a folder: the scope control offers the edited note's folder, and the model is given only its passages.
    await pageD.evaluate(() => window.harness.open("Garden/Monstera care.md"));
    const scopeSel = ".quire-ask-view .quire-ask-scope-select";
    await waitFor(pageD, (sel) => [...(document.querySelector(sel)?.options ?? [])].some((o) => o.value === "folder:Garden"), scopeSel);
    const offered = await pageD.$$eval(`${scopeSel} option`, (els) => els.map((e) => e.textContent));
    log(`scope choices beside Garden/Monstera care: ${offered.join(" | ")}`);
    expect(offered.includes("Folder Garden") && offered.includes("Tag #plants"), `scope choices: ${offered}`);
    await pageD.selectOption(scopeSel, "folder:Garden");
    const sentBefore = model.requests.length;
    await pageD.fill(".quire-ask-view .quire-ask-input", "How do I keep it alive, and how often do I water it?");
    await pageD.press(".quire-ask-view .quire-ask-input", "Enter");
    await waitFor(pageD, () => !!document.querySelector(".quire-ask-view .quire-ask-turn:nth-of-type(4) :is(.quire-ask-body, .quire-ask-refusal)"), undefined, 30_000);
    const given = model.requests
      .slice(sentBefore)
      .flatMap((r) => r.messages.filter((m) => m.role === "user").flatMap((m) => [...String(m.content).matchAll(/<passage id="\d+" note="([^"]*)"/g)].map((x) => x[1])));
    const badge = await pageD.$eval(".quire-ask-view .quire-ask-turn:nth-of-type(4)", (el) => el.querySelector(".quire-ask-scope-badge")?.textContent ?? "");
    log(`asked within folder Garden: the model was given ${given.join(" | ") || "nothing"}; the turn says "${badge}"`);
    expect(given.length > 0 && given.every((n) => n.startsWith("Garden/")), `the model was given passages outside Garden/: ${given}`);
    expect(badge === "Within folder Garden", `scope badge: ${badge}`);
    await shots(pageD, "ask-sidebar-scoped");
    await axeCheck(pageD, "ask-sidebar-scoped", ".quire-ask-view");
    await pageD.selectOption(scopeSel, "vault");
  });
}
