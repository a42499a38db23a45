// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { RelatedNote, StatusResult } from "../../proto/proto.gen";
import { CitationHover, describeCitation } from "../src/hover/citation";
import { NoteOpener } from "../src/views/open";
import { headingLabel, lineAtByte, sha256Hex, sliceBytes, snippet } from "../src/passage";
import { Client } from "../src/sidecar/client";
import type { SidecarState } from "../src/sidecar/lifecycle";
import { type IndexSnapshot, statusBarText, timeLeft } from "../src/sidecar/status-tracker";
import { RelatedView } from "../src/views/related";
import { App, MarkdownRenderer, WorkspaceLeaf } from "./obsidian-stub";
import { FakeServer, type FakeSocket } from "./fake-sidecar";

const status = (over: Partial<StatusResult> = {}): StatusResult => ({
  version: "0.1.0",
  notes: 9876,
  chunks: 20000,
  skipped: [],
  warnings: [],
  languages: {},
  coverage: { vectorsDone: 12400, vectorsTotal: 20000 },
  indexing: false,
  fingerprint: { embedder: "use-lite", dims: 512, chunking: "md" },
  ...over,
});
const snap = (over: Partial<IndexSnapshot> = {}): IndexSnapshot => ({
  state: "online",
  offlineReason: "",
  canStart: false,
  status: status(),
  progress: null,
  warnings: [],
  ...over,
});

describe("statusBarText", () => {
  it.each<[string, IndexSnapshot, string]>([
    ["offline", snap({ state: "offline", status: null }), "Quire: offline"],
    ["starting", snap({ state: "starting", status: null }), "Quire: starting…"],
    ["connected, no status yet", snap({ status: null }), "Quire: connected"],
    ["notes and vectors", snap(), "Quire: 9,876 notes · vectors 62%"],
    ["vectors complete", snap({ status: status({ coverage: { vectorsDone: 5, vectorsTotal: 5 } }) }), "Quire: 9,876 notes"],
    ["no embedder", snap({ status: status({ coverage: { vectorsDone: 0, vectorsTotal: 0 } }) }), "Quire: 9,876 notes"],
    ["one note", snap({ status: status({ notes: 1, coverage: { vectorsDone: 0, vectorsTotal: 0 } }) }), "Quire: 1 note"],
    ["embedding in progress", snap({ progress: { phase: "embed", done: 30, total: 120 } }), "Quire: 9,876 notes · vectors 25%"],
    [
      "embedding with a rate",
      snap({ progress: { phase: "embed", done: 30, total: 120, perSecond: 0.2, secondsLeft: 450 } }),
      "Quire: 9,876 notes · vectors 25%, about 8 min left",
    ],
    [
      "embedding, as status says it",
      snap({ status: status({ coverage: { vectorsDone: 12400, vectorsTotal: 20000, perSecond: 40, secondsLeft: 190 } }) }),
      "Quire: 9,876 notes · vectors 62%, about 3 min left",
    ],
    [
      "a rate left in the status once the vectors are done",
      snap({ status: status({ coverage: { vectorsDone: 5, vectorsTotal: 5, perSecond: 40, secondsLeft: 0 } }) }),
      "Quire: 9,876 notes",
    ],
    ["first scan", snap({ status: status({ notes: 0, indexing: true }), progress: { phase: "index", done: 40, total: 100 } }), "Quire: indexing 40%"],
  ])("%s", (_name, s, want) => {
    expect(statusBarText(s)).toBe(want);
  });
});

describe("timeLeft", () => {
  it.each<[number, string]>([
    [0.3, "almost done"],
    [40.4, "about 40 s left"],
    [59.6, "about 1 min left"],
    [7 * 60 + 20, "about 7 min left"],
    [59 * 60 + 50, "about 1 h left"],
    [2 * 3600 + 5 * 60 + 10, "about 2 h 5 min left"],
  ])("%s s", (seconds, want) => {
    expect(timeLeft(seconds)).toBe(want);
  });
});

describe("passages", () => {
  const text = "# Tomatoes\n\nRajčata potřebují slunce.\n## Zálivka\nVoda ke kořenům.\n";
  const bytes = new TextEncoder().encode(text);
  const at = (s: string) => new TextEncoder().encode(text.slice(0, text.indexOf(s))).length;

  it("maps byte offsets past multi-byte characters to lines", () => {
    expect(lineAtByte(text, 0)).toBe(0);
    expect(lineAtByte(text, at("Rajčata"))).toBe(2);
    expect(lineAtByte(text, at("## Zálivka"))).toBe(3);
    expect(lineAtByte(text, at("Voda"))).toBe(4);
    expect(lineAtByte(text, bytes.length + 50)).toBe(5);
  });

  it("slices by bytes, not UTF-16 units", () => {
    const s = at("## Zálivka");
    const e = at("Voda");
    expect(sliceBytes(text, s, e)).toBe("## Zálivka\n");
  });

  it.each([
    ["drops headings and markers", "## Method\n- **Mix** the [[Sourdough starter|starter]]\n- add `salt`", "Mix the starter add salt"],
  ])("snippet %s", (_n, input, want) => {
    expect(snippet(input)).toBe(want);
  });

  it("snippet cuts long text at a word", () => {
    const got = snippet("word ".repeat(50));
    expect(got.endsWith("word…")).toBe(true);
    expect(got.length).toBeLessThanOrEqual(161);
  });

  it("labels heading paths", () => {
    expect(headingLabel(["Method", "Proofing"])).toBe("Method › Proofing");
    expect(headingLabel([])).toBe("");
    expect(headingLabel(["Care"], 3)).toBe("Care, page 3");
    expect(headingLabel([], 3)).toBe("Page 3");
  });
});

describe("citations", () => {
  const note = "# A\n\nFirst passage.\n\n## B\n\nSecond passage.\n";
  const start = new TextEncoder().encode("# A\n\n").length;
  const end = start + "First passage.".length;

  it("shows the cited bytes and notices a change", async () => {
    const c = { path: "Notes/A.md", start, end, headingPath: ["A"], text: "First passage." };
    expect(await describeCitation(c, note)).toEqual({ title: "A", heading: "A", text: "First passage.", where: "same", note: "", start });
    const moved = note.replace("# A\n\n", "# A\n\nNew line.\n\n");
    expect(await describeCitation(c, moved)).toMatchObject({ where: "moved", text: "First passage.", start: start + "New line.\n\n".length });
    const edited = note.replace("First passage.", "The first passage, edited.");
    expect(await describeCitation(c, edited)).toMatchObject({ where: "changed", text: "The first passage, edited." });
    const gone = note.replace("First passage.", "Something else entirely.");
    expect(await describeCitation(c, gone)).toMatchObject({ where: "gone", text: "First passage." });
    // Only a hash (a saved answer without its quote): found again at a line start, or said to be gone.
    const hash = await sha256Hex(new TextEncoder().encode("First passage."));
    const h = { path: "Notes/A.md", start, end, hash };
    expect(await describeCitation(h, moved)).toMatchObject({ where: "moved", text: "First passage." });
    expect(await describeCitation(h, gone)).toMatchObject({ where: "gone", text: "" });
  });

  // Issue 25: the hover showed raw Markdown with its hard wraps.
  it("hover draws the passage as Obsidian draws the note when it can render", async () => {
    const md = "# A\n\nKnead for **ten**\nminutes.\n";
    const enc = new TextEncoder();
    const s = enc.encode("# A\n\n").length;
    const e = s + enc.encode("Knead for **ten**\nminutes.").length;
    const rendered: string[] = [];
    const hover = new CitationHover({
      noteText: async () => md,
      open: () => {},
      render: async (text, el, source) => {
        rendered.push(source);
        await MarkdownRenderer.render(new App() as never, text, el, source, null as never);
      },
    });
    const el = document.body.createSpan({ text: "[1]" });
    const pop = await hover.show(el, { n: 1, path: "Notes/A.md", start: s, end: e, headingPath: ["A"] });
    expect(rendered).toEqual(["Notes/A.md"]);
    expect(pop?.querySelector(".quire-citation-text strong")?.textContent).toBe("ten");
    expect(pop?.querySelector(".quire-citation-text")?.textContent).not.toContain("**");
    hover.dispose();
    el.remove();
  });

  // Issue 25: PDFs in the vault are cited by page; their bytes are no text to compare.
  it("hover shows a PDF's passage as cited, with its page, and opens the PDF at it", async () => {
    const opened: [string, number, number | undefined][] = [];
    const hover = new CitationHover({
      noteText: async () => {
        throw new Error("a PDF is not read as text");
      },
      open: (p, s, page) => opened.push([p, s, page]),
    });
    const el = document.body.createSpan({ text: "[1]" });
    const c = { n: 1, path: "Docs/manual.pdf", start: 40, end: 90, title: "manual", headingPath: ["Care"], page: 3, text: "Descale **monthly** with citric acid." };
    hover.attach(el, c);
    const pop = await hover.show(el, c);
    expect(pop?.querySelector(".quire-citation-heading")?.textContent).toBe("Care, page 3");
    expect(pop?.querySelector(".quire-citation-text")?.textContent).toContain("citric acid");
    expect(pop?.querySelector(".quire-citation-changed")).toBeNull();
    el.click();
    expect(opened).toEqual([["Docs/manual.pdf", 40, 3]]);
    hover.dispose();
    el.remove();
  });

  it("NoteOpener opens a PDF at its page and a note at its line", async () => {
    const app = new App();
    app.vault.files.set("Docs/manual.pdf", "%PDF-1.7 binary");
    app.vault.files.set("Notes/A.md", "# A\n\nFirst.\n\nSecond.\n");
    const opener = new NoteOpener({ vault: app.vault as never, workspace: app.workspace as never, metadataCache: app.metadataCache as never });
    await opener.open("Docs/manual.pdf", 120, false, 7);
    expect(app.workspace.linksOpenedForTest).toEqual(["Docs/manual.pdf#page=7"]);
    expect(app.workspace.getLeaf(false).containerEl.querySelector(".pdf-viewer-for-test")?.getAttribute("data-subpath")).toBe("#page=7");
    HTMLElement.prototype.scrollIntoView ??= () => {}; // jsdom has none
    await opener.open("Notes/A.md", "# A\n\nFirst.\n\n".length);
    expect(app.workspace.linksOpenedForTest).toHaveLength(1);
    expect(app.workspace.getLeaf(false).openStateForTest).toMatchObject({ eState: { line: 4 } });
  });

  it("hover draws a popover with the passage; click opens it; dispose cleans up", async () => {
    const opened: [string, number][] = [];
    const hover = new CitationHover({ noteText: async () => note, open: (p, s) => opened.push([p, s]) });
    const el = document.body.createSpan({ text: "[1]" });
    hover.attach(el, { n: 1, path: "Notes/A.md", start, end, headingPath: ["A"] });
    const pop = await hover.show(el, { n: 1, path: "Notes/A.md", start, end, headingPath: ["A"] });
    expect(pop?.querySelector(".quire-citation-text")?.textContent).toBe("First passage.");
    expect(document.querySelectorAll(".quire-citation-popover")).toHaveLength(1);
    el.click();
    expect(opened).toEqual([["Notes/A.md", start]]);
    expect(document.querySelectorAll(".quire-citation-popover")).toHaveLength(0);
    hover.dispose();
    el.click();
    expect(opened).toHaveLength(1);
  });
});

// The related view against a fake sidecar.
const relNote = (path: string, score: number): RelatedNote => ({
  source: "vault",
  path,
  title: path.replace(/\.md$/, ""),
  score,
  passage: { id: `${path}#0`, path, source: "vault", title: path, headingPath: ["Intro"], start: 10, end: 40, text: "Some text about it.", score },
});

describe("RelatedView", () => {
  let server: FakeServer;
  let sock: FakeSocket;
  let client: Client;
  let state: SidecarState;
  let snapshot: IndexSnapshot;
  let active: string | null;
  const stateCbs = new Set<(s: SidecarState) => void>();
  const trackerCbs = new Set<(s: IndexSnapshot) => void>();
  let handlers: { noteChanged(): void; edited(path: string, text: string): void } | null;
  let opened: [string, number, boolean][];
  let starts: number;
  let excluded: string[];
  let mtimes: Record<string, number>;
  let hidden: string[];
  let copied: string[];

  beforeEach(async () => {
    mtimes = {};
    hidden = [];
    copied = [];
    server = new FakeServer();
    client = await Client.connect({ url: "ws://x/", token: "secret", clientName: "t", socket: server.factory });
    sock = server.last;
    state = { kind: "online", client };
    snapshot = snap();
    active = null;
    handlers = null;
    opened = [];
    starts = 0;
    excluded = [];
    stateCbs.clear();
    trackerCbs.clear();
  });
  afterEach(() => vi.useRealTimers());

  async function openView(): Promise<RelatedView> {
    const app = new App();
    const leaf = new WorkspaceLeaf(app, document.body);
    const view = new RelatedView(leaf as never, {
      sidecar: {
        get state() {
          return state;
        },
        get client() {
          return state.kind === "online" ? state.client : null;
        },
        onChange: (cb) => (stateCbs.add(cb), () => stateCbs.delete(cb)),
        start: async () => void starts++,
      },
      tracker: {
        get snapshot() {
          return snapshot;
        },
        onChange: (cb) => (trackerCbs.add(cb), () => trackerCbs.delete(cb)),
      },
      activeNote: () => (active ? { path: active } : null),
      readNote: async () => "new note text",
      openPassage: (p, s, n) => opened.push([p, s, n]),
      subscribe: (h, register) => {
        handlers = h;
        // As workspace.on's ref: the view's registerEvent unhooks it on unload.
        register({ owner: { offref: () => (handlers = null) } } as never);
      },
      linkText: (p) => p.replace(/\.md$/, ""),
      exclude: () => excluded,
      mtime: (p) => mtimes[p] ?? null,
      linked: (src) => (src === "a.md" ? ["c.md"] : []),
      hidden: () => hidden,
      hide: (p) => void hidden.push(p),
      copy: async (t) => void copied.push(t),
      typingDelayMs: 300,
    });
    view.load();
    void view.onOpen(); // it resolves once the first answer is in
    await Promise.resolve();
    return view;
  }
  const requests = () => sock.sent.filter((f) => f.type === "related.query");
  const answer = (i: number, notes: RelatedNote[]) =>
    sock.push({ id: requests()[i]!.id!, type: "related.result", payload: { notes } });
  const flush = () => new Promise((r) => setTimeout(r, 0));

  it("says to open a note when none is open", async () => {
    const view = await openView();
    expect(view.current.kind).toBe("no-note");
    expect(view.contentEl.textContent).toContain("Open a note");
  });

  it("offers Start when the sidecar is offline and a binary is set", async () => {
    active = "a.md";
    state = { kind: "offline", reason: "Connection lost.", canStart: true };
    const view = await openView();
    expect(view.current.kind).toBe("offline");
    const btn = view.contentEl.querySelector("button");
    expect(btn?.textContent).toBe("Start");
    btn!.click();
    expect(starts).toBe(1);
  });

  it("shows index building with its percentage", async () => {
    active = "a.md";
    snapshot = snap({ status: status({ notes: 0, indexing: true }), progress: { phase: "index", done: 3, total: 12 } });
    const view = await openView();
    expect(view.contentEl.textContent).toBe("Index building (25%)…");
    snapshot = snap({ status: status({ notes: 0, indexing: true }), progress: { phase: "index", done: 6, total: 12 } });
    for (const cb of trackerCbs) cb(snapshot);
    expect(view.contentEl.textContent).toBe("Index building (50%)…");
  });

  it("lists related notes; clicking one opens it at its passage", async () => {
    active = "a.md";
    const view = await openView();
    expect(requests()[0]!.payload).toEqual({ path: "a.md", k: 10 });
    answer(0, [relNote("b.md", 0.3), relNote("c.md", 0.2), relNote("d.md", 0.1)]);
    await flush();
    expect(view.current.kind).toBe("results");
    const items = view.contentEl.querySelectorAll<HTMLElement>(".quire-related-item");
    // d scores a third of the best: under the cut-off, hidden behind a button.
    expect([...items].map((i) => i.querySelector(".quire-related-title")?.textContent)).toEqual(["b", "c"]);
    expect(items[0]!.querySelector(".quire-related-heading")?.textContent).toBe("Intro");
    expect(items[0]!.querySelector(".quire-related-bar")?.getAttribute("aria-label")).toBe("Relevance: strong");
    expect(view.contentEl.textContent).not.toMatch(/0\.\d{3}/); // no raw scores
    items[1]!.click();
    expect(opened).toEqual([["c.md", 10, false]]);
    const more = view.contentEl.querySelector<HTMLButtonElement>(".quire-related-more")!;
    expect(more.textContent).toBe("Show 1 weaker match");
    more.click();
    expect(view.contentEl.querySelectorAll(".quire-related-item")).toHaveLength(3);
  });

  // Issue 25: the command revealed the view but left the keyboard in the
  // editor; the bar said "strong" with no score to judge it by.
  it("focusList moves the keyboard into the list, before and after the rows come; the bar's tooltip gives the score", async () => {
    active = "a.md";
    const view = await openView();
    document.body.appendChild(view.containerEl);
    view.focusList(); // no rows yet: the view holds the focus until they come
    expect(document.activeElement).toBe(view.contentEl);
    answer(0, [relNote("b.md", 0.3), relNote("c.md", 0.25)]);
    await flush();
    const items = view.contentEl.querySelectorAll<HTMLElement>(".quire-related-item");
    expect(document.activeElement).toBe(items[0]);
    items[0]!.blur();
    view.focusList();
    expect(document.activeElement).toBe(items[0]);
    expect(items[0]!.querySelector(".quire-related-bar")!.getAttribute("title")).toBe("Relevance: strong (score 0.300)");
    view.containerEl.remove();
  });

  // Issue 25: the list blanked on every note switch (median 523 ms).
  it("keeps the previous list dimmed under Updating for the new note, and going back to an unchanged note is instant", async () => {
    mtimes = { "a.md": 1, "b.md": 1 };
    active = "a.md";
    const view = await openView();
    answer(0, [relNote("c.md", 0.3)]);
    await flush();
    active = "b.md";
    handlers!.noteChanged();
    await flush();
    expect(view.contentEl.classList.contains("is-loading")).toBe(true);
    expect(view.contentEl.querySelector(".quire-related-updating")!.textContent).toBe("Updating for b…");
    expect([...view.contentEl.querySelectorAll<HTMLElement>(".quire-related-item")].map((e) => e.dataset["path"])).toEqual(["c.md"]);
    answer(1, [relNote("d.md", 0.3)]);
    await flush();
    expect(view.contentEl.querySelector(".quire-related-updating")).toBeNull();
    expect([...view.contentEl.querySelectorAll<HTMLElement>(".quire-related-item")].map((e) => e.dataset["path"])).toEqual(["d.md"]);
    // Back to a: no request, its list at once.
    active = "a.md";
    handlers!.noteChanged();
    expect(requests()).toHaveLength(2);
    expect([...view.contentEl.querySelectorAll<HTMLElement>(".quire-related-item")].map((e) => e.dataset["path"])).toEqual(["c.md"]);
    // Changed since: asked again.
    mtimes["a.md"] = 2;
    handlers!.noteChanged();
    await flush();
    expect(requests()).toHaveLength(3);
  });

  // Issue 25: what Smart Connections users rely on.
  it("marks notes already linked, hides a note with Delete (remembered), copies all as links", async () => {
    active = "a.md";
    const view = await openView();
    document.body.appendChild(view.containerEl);
    answer(0, [relNote("b.md", 0.3), relNote("c.md", 0.28), relNote("d.md", 0.27)]);
    await flush();
    const row = (p: string) => view.contentEl.querySelector<HTMLElement>(`.quire-related-item[data-path="${p}"]`);
    expect(row("c.md")!.querySelector(".quire-related-linked")?.textContent).toBe("linked");
    expect(row("b.md")!.querySelector(".quire-related-linked")).toBeNull();
    row("b.md")!.focus();
    row("b.md")!.dispatchEvent(new KeyboardEvent("keydown", { key: "Delete", bubbles: true }));
    expect(hidden).toEqual(["b.md"]);
    expect(row("b.md")).toBeNull();
    expect(document.activeElement).toBe(row("c.md"));
    await view.copyLinks();
    expect(copied).toEqual(["[[c]]\n[[d]]"]);
    // Remembered: the next answer for any note leaves it out too.
    active = "e.md";
    handlers!.noteChanged();
    answer(1, [relNote("b.md", 0.3), relNote("d.md", 0.3)]);
    await flush();
    expect([...view.contentEl.querySelectorAll<HTMLElement>(".quire-related-item")].map((e) => e.dataset["path"])).toEqual(["d.md"]);
    view.containerEl.remove();
  });

  it("keeps no list asked by the text of a note the index lacks yet, nor one with a warning", async () => {
    mtimes = { "a.md": 1 };
    active = "a.md";
    const view = await openView();
    sock.push({ id: requests()[0]!.id!, type: "error", payload: { code: "not_found", message: "note not indexed: a.md" } });
    await flush();
    await flush();
    answer(1, [relNote("c.md", 0.3)]);
    await flush();
    expect(view.current.kind).toBe("results");
    handlers!.noteChanged();
    await flush();
    expect(requests()).toHaveLength(3); // asked again: the index may hold it now
    sock.push({ id: requests()[2]!.id!, type: "related.result", payload: { notes: [relNote("c.md", 0.3)], warning: "vectors cover 3 of 9 passages" } });
    await flush();
    handlers!.noteChanged();
    await flush();
    expect(requests()).toHaveLength(4); // a partial list is not kept either
  });

  it("says No close notes when the engine finds none above its floor", async () => {
    active = "a.md";
    const view = await openView();
    answer(0, []);
    await flush();
    expect(view.contentEl.querySelector(".quire-related-empty")!.textContent).toBe("No close notes.");
  });

  it("rows work from the keyboard: arrows move, Enter and Space open; a row drags as a link", async () => {
    active = "a.md";
    const view = await openView();
    answer(0, [relNote("b.md", 0.3), relNote("c.md", 0.25)]);
    await flush();
    const items = view.contentEl.querySelectorAll<HTMLElement>(".quire-related-item");
    expect(view.contentEl.querySelector(".quire-related-list")!.getAttribute("role")).toBe("tree");
    expect([...items].map((i) => i.getAttribute("tabindex"))).toEqual(["0", "-1"]);
    items[0]!.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowDown" }));
    expect([...items].map((i) => i.getAttribute("tabindex"))).toEqual(["-1", "0"]);
    expect(items[1]!.getAttribute("aria-selected")).toBe("true");
    items[1]!.dispatchEvent(new KeyboardEvent("keydown", { key: " " }));
    items[1]!.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", ctrlKey: true }));
    expect(opened).toEqual([["c.md", 10, false], ["c.md", 10, true]]);
    const data = new Map<string, string>();
    const drag = new Event("dragstart") as DragEvent;
    Object.defineProperty(drag, "dataTransfer", { value: { setData: (k: string, v: string) => data.set(k, v), effectAllowed: "" } });
    items[0]!.dispatchEvent(drag);
    expect(data.get("text/plain")).toBe("[[b]]");
  });

  it("a note with more matching passages expands to list them, from the keyboard or a click; each opens the note at its passage", async () => {
    active = "a.md";
    const view = await openView();
    const sub = (start: number, heading: string) => ({ id: `b.md#${start}`, path: "b.md", source: "vault", title: "b", headingPath: [heading], start, end: start + 20, text: `More about ${heading}.`, score: 0.1 });
    answer(0, [{ ...relNote("b.md", 0.3), more: [sub(100, "Later"), sub(200, "Last")] }, relNote("c.md", 0.25)]);
    await flush();
    const rowOf = (p: string) => [...view.contentEl.querySelectorAll<HTMLElement>(".quire-related-item")].find((e) => e.dataset["path"] === p)!;
    expect(view.contentEl.querySelectorAll(".quire-related-item")).toHaveLength(2); // one row per note
    expect(rowOf("b.md").getAttribute("aria-expanded")).toBe("false");
    expect(rowOf("c.md").hasAttribute("aria-expanded")).toBe(false);
    expect(rowOf("b.md").querySelector(".quire-related-expand")!.textContent).toBe("▸ 2 more passages");
    expect(view.contentEl.querySelector(".quire-related-sub")).toBeNull();

    rowOf("b.md").dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight", bubbles: true }));
    expect(rowOf("b.md").getAttribute("aria-expanded")).toBe("true");
    const subs = [...rowOf("b.md").querySelectorAll<HTMLElement>(".quire-related-sub")];
    expect(subs.map((e) => e.querySelector(".quire-related-heading")!.textContent)).toEqual(["Later", "Last"]);
    // Down walks into the passages, then on to the next note.
    rowOf("b.md").dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowDown", bubbles: true }));
    expect(subs[0]!.getAttribute("tabindex")).toBe("0");
    subs[0]!.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    expect(opened).toEqual([["b.md", 100, false]]);
    subs[1]!.click();
    expect(opened.at(-1)).toEqual(["b.md", 200, false]);
    subs[1]!.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowDown", bubbles: true }));
    expect(rowOf("c.md").getAttribute("tabindex")).toBe("0");
    // Left on a passage folds its note; a click on "more" unfolds it again.
    [...rowOf("b.md").querySelectorAll<HTMLElement>(".quire-related-sub")][0]!.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowLeft", bubbles: true }));
    expect(rowOf("b.md").getAttribute("aria-expanded")).toBe("false");
    rowOf("b.md").querySelector<HTMLElement>(".quire-related-expand")!.click();
    expect(rowOf("b.md").querySelectorAll(".quire-related-sub")).toHaveLength(2);
    expect(opened).toHaveLength(2); // the click on "more" opened nothing
  });

  it("pinned, it stays on its note when another becomes active", async () => {
    active = "a.md";
    const view = await openView();
    answer(0, [relNote("b.md", 0.3)]);
    await flush();
    view.togglePin();
    expect(view.pinnedTo).toBe("a.md");
    active = "z.md";
    handlers!.noteChanged();
    expect(requests().map((r) => (r.payload as { path?: string }).path)).not.toContain("z.md");
    view.togglePin();
    expect(view.pinnedTo).toBeNull();
    expect(requests().at(-1)!.payload).toMatchObject({ path: "z.md" });
  });

  it("a newer request supersedes an older one whose answer comes late", async () => {
    active = "a.md";
    const view = await openView();
    active = "b.md";
    handlers!.noteChanged();
    expect(requests()).toHaveLength(2);
    answer(1, [relNote("for-b.md", 0.2)]);
    await flush();
    answer(0, [relNote("for-a.md", 0.2)]); // late: dropped
    await flush();
    expect(view.current).toMatchObject({ kind: "results", path: "b.md" });
    expect(view.contentEl.textContent).toContain("for-b");
    expect(view.contentEl.textContent).not.toContain("for-a");
  });

  it("asks again with the editor's text once typing pauses, naming the note it was typed in (a private one is searched locally) and leaving it out", async () => {
    vi.useFakeTimers();
    active = "a.md";
    await openView();
    answer(0, [relNote("b.md", 0.3)]);
    handlers!.edited("a.md", "draft 1");
    await vi.advanceTimersByTimeAsync(100);
    handlers!.edited("a.md", "draft 2");
    await vi.advanceTimersByTimeAsync(299);
    expect(requests()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(requests()).toHaveLength(2);
    expect(requests()[1]!.payload).toEqual({ text: "draft 2", from: "a.md", k: 11 });
  });

  it("sends the left-out folders with the note and with the typed text", async () => {
    vi.useFakeTimers();
    excluded = ["Archive", "Daily/2024"];
    active = "a.md";
    const view = await openView();
    expect(requests()[0]!.payload).toEqual({ path: "a.md", k: 10, exclude: ["Archive", "Daily/2024"] });
    answer(0, [relNote("b.md", 0.3), relNote("Daily/2025.md", 0.3)]);
    await vi.advanceTimersByTimeAsync(0);
    expect(view.current).toMatchObject({ kind: "results", notes: [{ path: "b.md" }, { path: "Daily/2025.md" }] });
    handlers!.edited("a.md", "draft");
    await vi.advanceTimersByTimeAsync(300);
    expect(requests()[1]!.payload).toEqual({ text: "draft", from: "a.md", k: 11, exclude: ["Archive", "Daily/2024"] });
  });

  it("asks by text for a note the index does not hold yet", async () => {
    active = "new.md";
    const view = await openView();
    sock.push({ id: requests()[0]!.id!, type: "error", payload: { code: "not_found", message: "note not indexed: new.md" } });
    await flush();
    await flush();
    expect(requests()[1]!.payload).toEqual({ text: "new note text", from: "new.md", k: 11 });
    answer(1, [relNote("new.md", 0.9), relNote("b.md", 0.3)]);
    await flush();
    expect(view.current).toMatchObject({ kind: "results", notes: [{ path: "b.md" }] });
  });

  it("closing the view drops its workspace handlers", async () => {
    active = "a.md";
    const view = await openView();
    expect(handlers).not.toBeNull();
    view.unload();
    expect(handlers).toBeNull();
    expect(stateCbs.size).toBe(0);
    expect(trackerCbs.size).toBe(0);
  });
});
