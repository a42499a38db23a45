// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { IngestDone } from "../../proto/proto.gen";
import { IngestRunner, IngestTracker, doneText, failureText, parseClipboardUrl, resummarisable, resummariseButtons, shortUrl, stepText } from "../src/ingest";
import { type IndexSnapshot, statusBarText } from "../src/sidecar/status-tracker";
import { StatusModal } from "../src/modals/status-modal";
import { StatusBar } from "../src/views/status-bar";
import { type FakeLifecycle, type FakeServer, type FakeSocket, online, settle } from "./fake-sidecar";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { App, Plugin, parseFrontmatterForTest } from "./obsidian-stub";

describe("parseClipboardUrl", () => {
  it.each([
    ["https url", "  https://example.org/a?b=1 \n", { ok: true, url: "https://example.org/a?b=1" }],
    ["http url", "http://example.org", { ok: true, url: "http://example.org/" }],
    ["empty", "   ", { ok: false, message: "The clipboard is empty. Copy a web address first." }],
    ["text", "bread recipe", { ok: false, message: "The clipboard does not hold a web address." }],
    ["two urls", "https://a.test/ https://b.test/", { ok: false, message: "The clipboard holds more than one web address. Copy one." }],
    ["not a url", "bread", { ok: false, message: "The clipboard does not hold a web address." }],
    ["file url", "file:///etc/passwd", { ok: false, message: "Only http and https addresses can be ingested, not file." }],
    ["javascript", "javascript:alert(1)", { ok: false, message: "Only http and https addresses can be ingested, not javascript." }],
  ])("%s", (_n, input, want) => {
    expect(parseClipboardUrl(input)).toEqual(want);
  });
});

describe("wording", () => {
  it.each([
    [{ step: "queued", index: 0, total: 0 }, "queued"],
    [{ step: "fetching", index: 0, total: 0 }, "fetching…"],
    [{ step: "reading", index: 3, total: 8 }, "reading 3/8"],
    [{ step: "writing", index: 0, total: 0 }, "writing…"],
  ] as const)("step %o", (p, want) => {
    expect(stepText(p)).toBe(want);
  });

  it.each([
    ["duplicate", "already ingested as Quire/Sources/A.md (the same address as https://a.test/)", "Already ingested as Quire/Sources/A.md (the same address as https://a.test/)."],
    ["duplicate", "same text as Quire/Sources/A.md", "Already ingested: same text as Quire/Sources/A.md."],
    ["blocked", "example.com resolves to a private address (10.0.0.5)", "Address not allowed: example.com resolves to a private address (10.0.0.5)."],
    ["fetch_failed", "HTTP 404", "Could not fetch the page: HTTP 404."],
    ["blocked", "fetch http://127.0.0.1:1/a: refused: 127.0.0.1 is a loopback address", "Address not allowed: 127.0.0.1 is this computer's own address."],
    ["fetch_failed", "", "Could not fetch the page."],
    ["something_new", "boom", "Ingest failed: boom."],
  ])("failure %s", (code, detail, want) => {
    expect(failureText(code, detail)).toBe(want);
  });

  it("done says what was saved and what is left", () => {
    const d: IngestDone = { id: 1, source: "u", note: "Quire/Sources/A.md", title: "A", written: [], review: ["r"], dropped: [], summarised: false, unread: 0 };
    expect(doneText(d)).toBe("Saved “A”. No model read it: the note holds the clean text. 1 item to review.");
    expect(doneText({ ...d, summarised: true, unread: 0.25, review: [] })).toBe("Saved “A”. 25% was not read.");
    expect(shortUrl("https://example.test/" + "a".repeat(80))).toHaveLength(60);
  });
});

const snap = (): IndexSnapshot => ({
  state: "online",
  offlineReason: "",
  canStart: false,
  status: { version: "0", notes: 12, chunks: 40, skipped: [], warnings: [], languages: {}, coverage: { vectorsDone: 0, vectorsTotal: 0 }, indexing: false, fingerprint: { embedder: "", dims: 0, chunking: "" } },
  progress: null,
  warnings: [],
});

describe("IngestTracker", () => {
  let sock: FakeSocket;
  let sidecar: FakeLifecycle;
  let server: FakeServer;

  beforeEach(async () => {
    ({ sock, sidecar, server } = await online());
  });

  const progress = (id: number, step: string, index = 0, total = 0) =>
    sock.push({ type: "ingest.progress", payload: { id, source: `u${id}`, step, index, total } });
  const finish = (id: number) =>
    sock.push({ type: "ingest.done", payload: { id, source: `u${id}`, note: `N${id}.md`, title: `T${id}`, written: [], review: [], dropped: [], summarised: false, unread: 0 } });

  it("counts a batch: ingesting 1/3, 2/3, 3/3, then nothing; the status bar says so", () => {
    const t = new IngestTracker(sidecar);
    const el = document.createElement("div");
    const bar = new StatusBar({ el, tracker: { snapshot: snap(), onChange: () => () => {} }, ingest: t });
    const off = bar.bind();
    expect(el.textContent).toBe("Quire: 12 notes");
    progress(1, "fetching");
    progress(2, "queued");
    progress(3, "queued");
    expect(t.batch).toEqual({ index: 1, total: 3, step: "fetching…" });
    expect(el.textContent).toBe("Quire: ingesting 1/3 · fetching…");
    expect(el.classList.contains("is-busy")).toBe(true);
    finish(1);
    expect(el.textContent).toBe("Quire: ingesting 2/3");
    sock.push({ type: "ingest.failed", payload: { id: 2, source: "u2", code: "fetch_failed", message: "HTTP 500" } });
    progress(3, "reading", 1, 4);
    expect(el.textContent).toBe("Quire: ingesting 3/3 · reading 1/4");
    finish(3);
    expect(t.batch).toBeNull();
    expect(el.textContent).toBe("Quire: 12 notes");
    progress(4, "queued");
    expect(t.batch).toEqual({ index: 1, total: 1, step: "" });
    off();
  });

  it("picks up the queue's running items on connect and forgets the old connection", async () => {
    const fresh = await online();
    fresh.server.reply = (f, s) => {
      if (f.type === "queue.list") {
        s.push({ id: f.id!, type: "queue.result", payload: { items: [{ id: 7, source: "a", state: "running", attempts: 0, added: "" }, { id: 8, source: "b", state: "done", attempts: 0, added: "" }] } });
      }
    };
    const t = new IngestTracker(sidecar);
    sidecar.set(fresh.sidecar.state);
    await settle();
    expect(t.batch).toEqual({ index: 1, total: 1, step: "" });
    progress(9, "queued"); // the old connection's events are no longer followed
    expect(t.item(9)).toBeUndefined();
    void server;
  });

  it("an item that finished while the plugin was away is finished from the queue on reconnect", async () => {
    const t = new IngestTracker(sidecar);
    progress(3, "reading", 2, 5);
    expect(t.batch).toEqual({ index: 1, total: 1, step: "reading 2/5" });
    const back = await online();
    back.server.reply = (f, s) => {
      if (f.type === "queue.list") s.push({ id: f.id!, type: "queue.result", payload: { items: [{ id: 3, source: "u3", state: "done", attempts: 0, note: "Quire/Sources/T3.md", added: "" }] } });
    };
    sidecar.set({ kind: "offline", reason: "restart", canStart: false });
    sidecar.set(back.sidecar.state);
    await settle();
    expect(t.batch).toBeNull();
    expect(t.item(3)).toMatchObject({ kind: "done", done: { note: "Quire/Sources/T3.md" } });
  });
});

describe("IngestRunner", () => {
  let sock: FakeSocket;
  let server: FakeServer;
  let sidecar: FakeLifecycle;
  let notices: { text: string; hidden: boolean; actions: { label: string; run(): void }[] }[];
  let opened: string[];
  let clipboard: string;

  const runner = (tracker = new IngestTracker(sidecar)) =>
    new IngestRunner({
      sidecar,
      tracker,
      readClipboard: async () => clipboard,
      notice: (text) => {
        const n = { text, hidden: false, actions: [] as { label: string; run(): void }[] };
        notices.push(n);
        return {
          setText: (t) => (n.text = t),
          hide: () => (n.hidden = true),
          offer: (t, actions) => {
            n.text = t;
            n.actions = actions;
          },
        };
      },
      openNote: async (p) => void opened.push(p),
      log: () => {},
    });

  beforeEach(async () => {
    ({ sock, server, sidecar } = await online());
    notices = [];
    opened = [];
    clipboard = "https://example.test/article";
  });
  afterEach(() => vi.useRealTimers());

  it("queues the clipboard URL, rewords one notice as it moves, and offers to open the note when done", async () => {
    const sent: unknown[] = [];
    server.reply = (f, s) => {
      if (f.type !== "ingest.add") return;
      sent.push(f.payload);
      // An event may beat the reply.
      s.push({ type: "ingest.progress", payload: { id: 5, source: "https://example.test/article", step: "queued", index: 0, total: 0 } });
      s.push({ id: f.id!, type: "ingest.result", payload: { id: 5, source: "https://example.test/article", position: 0 } });
    };
    const r = runner();
    expect(await r.fromClipboard()).toBe(5);
    expect(sent).toEqual([{ source: "https://example.test/article" }]);
    expect(notices).toHaveLength(1);
    sock.push({ type: "ingest.progress", payload: { id: 6, source: "other", step: "fetching", index: 0, total: 0 } });
    expect(notices[0]!.text).toBe("Quire: example.test/article — queued");
    sock.push({ type: "ingest.progress", payload: { id: 5, source: "x", step: "reading", index: 3, total: 8 } });
    expect(notices[0]!.text).toBe("Quire: example.test/article — reading 3/8");
    sock.push({ type: "ingest.done", payload: { id: 5, source: "x", note: "Quire/Sources/Article.md", title: "Article", written: [], review: [], dropped: [], summarised: true, unread: 0 } });
    await settle();
    expect(notices[0]!.text).toBe("Quire: Saved “Article”.");
    // The note does not take over the editor when the ingest ends: the notice's Open does it.
    expect(opened).toEqual([]);
    expect(notices[0]!.actions.map((a) => a.label)).toEqual(["Open"]);
    notices[0]!.actions[0]!.run();
    expect(opened).toEqual(["Quire/Sources/Article.md"]);
    expect(notices).toHaveLength(1);
  });

  it("asks the engine to summarise a saved source again", async () => {
    const sent: unknown[] = [];
    server.reply = (f, s) => {
      if (f.type !== "ingest.add") return;
      sent.push(f.payload);
      s.push({ id: f.id!, type: "ingest.result", payload: { id: 7, source: "https://example.test/article", position: 0 } });
    };
    expect(await runner().ingest("https://example.test/article", true)).toBe(7);
    expect(sent).toEqual([{ source: "https://example.test/article", resummarise: true }]);
  });

  it.each([
    ["blocked", "10.0.0.5 is a private address", "Quire: Address not allowed: 10.0.0.5 is on a private network."],
    ["fetch_failed", "HTTP 404 Not Found", "Quire: Could not fetch the page: HTTP 404 Not Found."],
  ])("says why an item failed: %s", async (code, message, want) => {
    server.reply = (f, s) => {
      if (f.type === "ingest.add") s.push({ id: f.id!, type: "ingest.result", payload: { id: 9, source: "u", position: 2 } });
    };
    await runner().fromClipboard();
    expect(notices[0]!.text).toBe("Quire: example.test/article — queued (2 ahead)");
    sock.push({ type: "ingest.failed", payload: { id: 9, source: "u", code, message } });
    expect(notices[0]!.text).toBe(want);
    expect(opened).toEqual([]);
  });

  it("unloading takes down the notices of items still running", async () => {
    server.reply = (f, s) => {
      if (f.type === "ingest.add") s.push({ id: f.id!, type: "ingest.result", payload: { id: 11, source: "u", position: 0 } });
    };
    const r = runner();
    await r.fromClipboard();
    expect(notices[0]!.hidden).toBe(false);
    r.dispose();
    expect(notices[0]!.hidden).toBe(true);
    sock.push({ type: "ingest.done", payload: { id: 11, source: "u", note: "N.md", title: "N", written: [], review: [], dropped: [], summarised: true, unread: 0 } });
    await settle();
    expect(opened).toEqual([]);
  });

  it("a duplicate refused by ingest.add is a short sentence", async () => {
    server.reply = (f, s) => s.push({ id: f.id!, type: "error", payload: { code: "duplicate", message: "already ingested as Quire/Sources/Article.md" } });
    expect(await runner().fromClipboard()).toBeNull();
    expect(notices[0]!.text).toBe("Quire: Already ingested as Quire/Sources/Article.md.");
  });

  it.each([
    ["not a URL", "bread", "Quire: The clipboard does not hold a web address."],
    ["a file URL", "file:///etc/passwd", "Quire: Only http and https addresses can be ingested, not file."],
  ])("refuses %s without asking the sidecar", async (_n, clip, want) => {
    clipboard = clip;
    let asked = false;
    server.reply = (f) => void (f.type === "ingest.add" && (asked = true));
    expect(await runner().fromClipboard()).toBeNull();
    expect(notices.map((n) => n.text)).toEqual([want]);
    expect(asked).toBe(false);
  });

  it("offline, it says to start the sidecar", async () => {
    sidecar.set({ kind: "offline", reason: "x", canStart: true });
    await runner().fromClipboard();
    expect(notices[0]!.text).toMatch(/offline/);
  });
});

describe("status view queue", () => {
  it("lists running and waiting items, then the last finished ones", async () => {
    const app = new App();
    const m = new StatusModal(app as never, {
      tracker: { snapshot: snap(), onChange: () => () => {}, refresh: async () => {} },
      rebuild: async () => {},
      start: async () => {},
      model: () => "openai/fake (key held)",
      queue: async () => [
        { id: 1, source: "https://a.test/", state: "done", attempts: 0, note: "Quire/Sources/A.md", added: "" },
        { id: 2, source: "https://b.test/", state: "failed", attempts: 3, error: "HTTP 500", added: "" },
        { id: 3, source: "https://c.test/", state: "running", attempts: 0, added: "" },
      ],
    });
    m.open();
    await settle();
    const items = [...m.contentEl.querySelectorAll(".quire-queue-item")].map((e) => e.textContent);
    expect(items).toEqual(["running https://c.test/", "failed https://b.test/ — HTTP 500 (3 attempts)", "done https://a.test/ → Quire/Sources/A.md"]);
    const rows = [...m.contentEl.querySelectorAll(".quire-status-table tr")].map((tr) => tr.textContent);
    expect(rows).toContain("Modelopenai/fake (key held)");
    m.close();
    expect(statusBarText(snap(), { index: 2, total: 5, step: "" })).toBe("Quire: ingesting 2/5");
  });
});

describe("Summarise again", () => {
  const source = { quire: "quire", quire_kind: "source", source: "https://example.test/article", summarised: false, unread: 0 };

  it.each([
    ["not summarised", source, "https://example.test/article"],
    ["partly read", { ...source, summarised: true, unread: 0.4 }, "https://example.test/article"],
    ["read whole", { ...source, summarised: true }, null],
    ["the user's own note", { source: "https://example.test/article", summarised: false }, null],
    ["a saved answer", { ...source, quire_kind: "answer" }, null],
    ["no source", { ...source, source: " " }, null],
    ["no frontmatter", undefined, null],
  ])("%s", (_n, fm, want) => {
    expect(resummarisable(fm)).toBe(want);
  });

  it("puts a button in the callout of a source the model did not read, and nowhere else", async () => {
    const app = new App({ files: {} });
    const plugin = new Plugin(app, { id: "quire", name: "Quire", version: "0", minAppVersion: "0", description: "", author: "" });
    const asked: string[] = [];
    plugin.registerMarkdownPostProcessor(resummariseButtons((s) => asked.push(s)) as never);
    const body = "# Article\n\n> [!warning] Not summarised\n> No model is set, so this note holds the source's clean text.\n\n> [!note] Aside\n> Not this one.\n\nThe text.\n";
    const el = document.body.createDiv();
    await plugin.renderForTest("Quire/Sources/Article.md", body, source, el);
    const buttons = el.querySelectorAll<HTMLButtonElement>("button.quire-resummarise");
    expect(buttons).toHaveLength(1);
    expect(buttons[0]!.closest(".callout")!.getAttribute("data-callout")).toBe("warning");
    expect(buttons[0]!.getAttribute("aria-label")).toBe("Summarise https://example.test/article again with the model");
    buttons[0]!.click();
    buttons[0]!.click();
    expect(asked).toEqual(["https://example.test/article"]);
    expect(buttons[0]!.disabled).toBe(true);

    const read = document.body.createDiv();
    await plugin.renderForTest("Quire/Sources/Article.md", body, { ...source, summarised: true }, read);
    expect(read.querySelector("button.quire-resummarise")).toBeNull();
    plugin.unload();
    el.remove();
    read.remove();
  });
});

describe("source notes written by the sidecar (proto/testdata/notes)", () => {
  // Written by the sidecar's compile.renderSource with no model
  // (sidecar/ingest/compile/golden_test.go): its frontmatter keys and its
  // callout are what Summarise again looks for.
  const path = "Quire/Sources/Growing basil on a windowsill.md";
  const note = readFileSync(join(import.meta.dirname, "../../proto/testdata/notes", path), "utf8");
  const fm = parseFrontmatterForTest(note);

  it("offers Summarise again in the note's Not summarised callout", async () => {
    expect(resummarisable(fm)).toBe("https://example.test/basil");
    const app = new App({ files: {} });
    const plugin = new Plugin(app, { id: "quire", name: "Quire", version: "0", minAppVersion: "0", description: "", author: "" });
    const asked: string[] = [];
    plugin.registerMarkdownPostProcessor(resummariseButtons((s) => asked.push(s)) as never);
    const el = document.body.createDiv();
    await plugin.renderForTest(path, note.slice(note.indexOf("\n---\n") + 5), fm, el);
    const buttons = el.querySelectorAll<HTMLButtonElement>("button.quire-resummarise");
    expect(buttons).toHaveLength(1);
    buttons[0]!.click();
    expect(asked).toEqual(["https://example.test/basil"]);
    plugin.unload();
    el.remove();
  });
});
