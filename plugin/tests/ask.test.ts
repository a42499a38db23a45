// @vitest-environment jsdom
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AskDone } from "../../proto/proto.gen";
import { ConversationArchive, readConversations } from "../src/conversations";
import { AskSession, Conversation, History, HistoryCursor, answerMarkdown, cleanScope, scopeChoices, scopeLabel, selectionScope, sourceLines } from "../src/ask-session";
import { answerNoteProcessor, savedCitations } from "../src/hover/answer-note";
import { linkCitationMarkers } from "../src/hover/markers";
import { AskModal } from "../src/modals/ask-modal";
import { ASK_VIEW, AskView } from "../src/views/ask-panel";
import { sha256Hex } from "../src/passage";
import { type FakeLifecycle, type FakeServer, type FakeSocket, online, settle } from "./fake-sidecar";
import { App, MarkdownRenderer, Modal, Plugin, WorkspaceLeaf, parseFrontmatterForTest } from "./obsidian-stub";

const note = "# Bread\n\n## Method\n\nKnead the dough for ten minutes.\n";
const enc = new TextEncoder();
const start = enc.encode("# Bread\n\n## Method\n\n").length;
const end = start + enc.encode("Knead the dough for ten minutes.").length;

const done = (over: Partial<AskDone> = {}): AskDone => ({
  answer: "Knead it for **ten** minutes [1].",
  lang: "en",
  citations: [
    { number: 1, id: "Kitchen/Bread.md#1", path: "Kitchen/Bread.md", source: "vault", title: "Bread", headingPath: ["Method"], start, end, text: "Knead the dough for ten minutes.", hash: "" },
  ],
  quotes: [],
  grounded: true,
  refused: false,
  extracted: false,
  droppedCitations: 0,
  passages: ["Kitchen/Bread.md#1"],
  channel: "hybrid",
  model: "openai/fake",
  remote: false,
  inputTokens: 10,
  outputTokens: 5,
  ms: 1234,
  ...over,
});

/** answerAsk makes the fake sidecar stream deltas and then done for ask.query. */
function answerAsk(server: FakeServer, deltas: string[], final: AskDone | null, saved = "Quire/Answers/How long.md"): { asks: string[] } {
  const asks: string[] = [];
  server.reply = (f, s) => {
    if (f.type === "ask.query") {
      asks.push(f.id!);
      for (const d of deltas) s.push({ id: f.id!, type: "ask.delta", payload: { text: d } });
      if (final) s.push({ id: f.id!, type: "ask.done", payload: final });
    }
    if (f.type === "answer.save") {
      const askId = (f.payload as { askId: string }).askId;
      if (asks.includes(askId)) s.push({ id: f.id!, type: "answer.result", payload: { path: saved } });
      else s.push({ id: f.id!, type: "error", payload: { code: "not_found", message: "no recent answer" } });
    }
  };
  return { asks };
}

describe("History", () => {
  it("keeps questions newest first without repeats, and the cursor walks them", () => {
    const h = new History(3);
    for (const q of ["a", "b", "a", "c", "d"]) h.add(q);
    expect(h.list).toEqual(["d", "c", "a"]);
    const c = new HistoryCursor(h);
    expect(c.up("draft")).toBe("d");
    expect(c.up("d")).toBe("c");
    expect(c.up("c")).toBe("a");
    expect(c.up("a")).toBeNull();
    expect(c.down()).toBe("c");
    expect(c.down()).toBe("d");
    expect(c.down()).toBe("draft");
    expect(c.down()).toBeNull();
  });
});

describe("AskSession", () => {
  let server: FakeServer;
  let sidecar: FakeLifecycle;

  beforeEach(async () => {
    ({ server, sidecar } = await online());
  });

  it("streams deltas, ends with the checked answer, and saves it by the ask's id", async () => {
    const { asks } = answerAsk(server, ["Knead it ", "for ten minutes [1]."], done());
    const seen: string[] = [];
    const s = new AskSession({ client: () => sidecar.client, onChange: (st) => seen.push(st.kind === "streaming" ? `streaming:${st.text}` : st.kind) }, new History());
    await s.ask("  How long do I knead?  ");
    expect(seen).toEqual(["streaming:", "streaming:Knead it ", "streaming:Knead it for ten minutes [1].", "done"]);
    expect(s.state).toMatchObject({ kind: "done", question: "How long do I knead?", askId: asks[0] });
    expect(await s.save()).toBe("Quire/Answers/How long.md");
  });

  // Issue 25: Ask about the selection sends the selected text with its place; the engine keeps it from remote models when the note is private.
  it("sends a selection's text, note and byte offset with the question", async () => {
    answerAsk(server, ["It means [1]."], done());
    let sent: unknown = null;
    const reply = server.reply!;
    server.reply = (f, sock) => {
      if (f.type === "ask.query") sent = f.payload;
      reply(f, sock);
    };
    const s = new AskSession({ client: () => sidecar.client, onChange: () => {} }, new History());
    const scope = selectionScope("Notes/Café.md", "grind finer", "# Café\n\nFor moka, ");
    await s.ask("What does this mean?", [], scope);
    expect(sent).toEqual({ question: "What does this mean?", selection: { path: "Notes/Café.md", text: "grind finer", start: 19 } }); // bytes: é takes two
    expect(s.state).toMatchObject({ kind: "done", scope: { selection: { path: "Notes/Café.md" } } });
    expect(scopeLabel(scope)).toBe("Selection in Café");
  });

  it("a new question supersedes the one streaming; its late frames are dropped", async () => {
    let first: { id: string; sock: FakeSocket } | null = null;
    server.reply = (f, sock) => {
      if (f.type !== "ask.query") return;
      if (!first) {
        first = { id: f.id!, sock };
        return;
      }
      sock.push({ id: f.id!, type: "ask.done", payload: done({ answer: "second [1]." }) });
    };
    const s = new AskSession({ client: () => sidecar.client, onChange: () => {} }, new History());
    const p1 = s.ask("first");
    await s.ask("second");
    first!.sock.push({ id: first!.id, type: "ask.delta", payload: { text: "late" } });
    first!.sock.push({ id: first!.id, type: "ask.done", payload: done({ answer: "first" }) });
    await p1;
    expect(s.state).toMatchObject({ kind: "done", question: "second", answer: { answer: "second [1]." } });
  });

  it.each([
    ["offline", null, "Quire is offline. Start it from the status bar and ask again."],
    ["not ready", { code: "not_ready", message: "index" }, "The index is still being built. Ask again in a moment."],
    ["bad question", { code: "invalid_request", message: "ask.query: a question of 1 to 4096 bytes is required" }, "a question of 1 to 4096 bytes is required"],
  ])("says why a question failed: %s", async (_n, err, want) => {
    server.reply = (f, s) => s.push({ id: f.id!, type: "error", payload: err });
    const s = new AskSession({ client: () => (err === null ? null : sidecar.client), onChange: () => {} }, new History());
    await s.ask("q");
    expect(s.state).toEqual({ kind: "error", question: "q", message: want });
  });

  it("an answer the sidecar forgot cannot be saved, and says to ask again", async () => {
    answerAsk(server, [], done());
    const s = new AskSession({ client: () => sidecar.client, onChange: () => {} }, new History());
    await s.ask("q");
    (s as unknown as { st: { askId: string } }).st.askId = "999";
    await expect(s.save()).rejects.toThrow(/Ask again/);
  });
});

describe("linkCitationMarkers", () => {
  it("links known [n] in prose, leaves unknown ones, code and links alone", () => {
    const el = document.createElement("div");
    el.innerHTML = "<p>One [1] and two [2][1], not [9].</p><p><code>a[1]</code> <a>[1]</a></p>";
    const got: number[] = [];
    const n = linkCitationMarkers(el, new Set([1, 2]), (_e, k) => got.push(k));
    expect(n).toBe(3);
    expect(got).toEqual([1, 2, 1]);
    expect(el.querySelector("p")!.textContent).toBe("One [1] and two [2][1], not [9].");
    expect(el.querySelectorAll(".quire-citation-marker")).toHaveLength(3);
    expect(el.querySelector("code")!.textContent).toBe("a[1]");
    // Running again does not nest markers.
    expect(linkCitationMarkers(el, new Set([1, 2]), () => {})).toBe(0);
  });
});

describe("AskModal", () => {
  let server: FakeServer;
  let sidecar: FakeLifecycle;
  let app: App;
  let opened: string[];
  let passages: [string, number][];
  const history = new History();

  const modal = () =>
    new AskModal(app as never, {
      client: () => sidecar.client,
      history,
      noteText: async () => note,
      openPassage: (p, s) => passages.push([p, s]),
      openNote: async (p) => void opened.push(p),
      frameMs: 0,
    });

  beforeEach(async () => {
    ({ server, sidecar } = await online());
    app = new App({ files: { "Kitchen/Bread.md": note } });
    opened = [];
    passages = [];
  });
  afterEach(() => {
    for (const m of [...Modal.openForTest]) m.close();
    document.body.replaceChildren();
  });

  it("streams as text, renders the answer once as Markdown, links [1] to a hover, and saves then opens the note", async () => {
    answerAsk(server, ["Knead it ", "for ten minutes [1]."], done());
    const m = modal();
    m.open();
    const before = MarkdownRenderer.renderedForTest;
    m.contentEl.querySelector<HTMLTextAreaElement>(".quire-ask-input")!.value = "How long do I knead?";
    await m.submit();
    await settle();
    expect(MarkdownRenderer.renderedForTest - before).toBe(1);
    const body = m.contentEl.querySelector(".quire-ask-body")!;
    expect(body.querySelector("strong")?.textContent).toBe("ten");
    const marker = body.querySelector<HTMLElement>(".quire-citation-marker")!;
    expect(marker.textContent).toBe("[1]");
    marker.dispatchEvent(new MouseEvent("mouseenter"));
    await settle();
    const pop = document.querySelector(".quire-citation-popover")!;
    expect(pop.querySelector(".quire-citation-text")!.textContent).toBe("Knead the dough for ten minutes.");
    expect(pop.querySelector(".quire-citation-changed")).toBeNull();
    expect(m.contentEl.querySelector(".quire-ask-source")!.textContent).toBe("[1]Bread › Method");
    expect(m.contentEl.querySelector(".quire-ask-status")!.textContent).toBe("openai/fake · 1.2 s");

    m.contentEl.querySelector<HTMLButtonElement>(".quire-ask-save")!.click();
    await settle();
    expect(opened).toEqual(["Quire/Answers/How long.md"]);
    expect(Modal.openForTest).not.toContain(m);
  });

  it("draws no remote image of the answer, and keeps only the links its cited passages hold", async () => {
    const cited = done().citations[0]!;
    answerAsk(server, ["Knead it [1]."], done({
      answer: "Knead it [1]. ![p](https://evil.example/p.png?q=knead) See [more](https://evil.example/m), [the method](https://bread.example/method) and ![d](app://local/dough.png).",
      citations: [{ ...cited, text: "Knead the dough for ten minutes (https://bread.example/method)." }],
    }));
    const m = modal();
    m.open();
    m.contentEl.querySelector<HTMLTextAreaElement>(".quire-ask-input")!.value = "How long do I knead?";
    await m.submit();
    await settle();
    const body = m.contentEl.querySelector(".quire-ask-body")!;
    expect(Array.from(body.querySelectorAll("img")).map((i) => i.getAttribute("src"))).toEqual(["app://local/dough.png"]);
    expect(Array.from(body.querySelectorAll("a[href]")).map((a) => a.getAttribute("href"))).toEqual(["https://bread.example/method"]);
    expect(body.textContent).toContain("See more,");
    expect(body.innerHTML).not.toContain("evil.example");
  });

  // Issue 25: the streamed answer showed raw **.
  it("draws the streamed answer as Markdown, re-rendering only the block still growing", async () => {
    let push: ((d: string | null) => void) | null = null;
    server.reply = (f, s) => {
      if (f.type !== "ask.query") return;
      push = (d) =>
        d === null ? s.push({ id: f.id!, type: "ask.done", payload: done() }) : s.push({ id: f.id!, type: "ask.delta", payload: { text: d } });
    };
    const m = modal();
    m.open();
    const before = MarkdownRenderer.renderedForTest;
    m.contentEl.querySelector<HTMLTextAreaElement>(".quire-ask-input")!.value = "q";
    const asked = m.submit();
    await settle();
    push!("Knead it for **ten** minutes.\n\n```\nnot ** bold\n\nstill code\n");
    for (let i = 0; i < 20; i++) push!(`w${i} `);
    await settle();
    const stream = m.contentEl.querySelector(".quire-ask-stream")!;
    expect(stream.querySelector("strong")?.textContent).toBe("ten");
    expect(stream.textContent).not.toContain("**ten**");
    expect(stream.textContent).toContain("w19");
    // One frame: the finished paragraph and the growing tail (the open code block stays in it), not one render per delta.
    expect(MarkdownRenderer.renderedForTest - before).toBe(2);
    push!("more");
    await settle();
    expect(MarkdownRenderer.renderedForTest - before).toBe(3); // the tail alone
    push!(null);
    await asked;
    await settle();
    expect(MarkdownRenderer.renderedForTest - before).toBe(4);
  });

  // Issue 25: Copilot's Regenerate on the last answer.
  it("Regenerate asks the last question again in place of its answer, with the same scope", async () => {
    const { asks } = answerAsk(server, [], done());
    const sent: unknown[] = [];
    const reply = server.reply!;
    server.reply = (f, s) => {
      if (f.type === "ask.query") sent.push(f.payload);
      reply(f, s);
    };
    const m = modal();
    m.open();
    m.contentEl.querySelector<HTMLTextAreaElement>(".quire-ask-input")!.value = "How long do I knead?";
    await m.submit();
    await settle();
    m.contentEl.querySelector<HTMLTextAreaElement>(".quire-ask-input")!.value = "And at what heat?";
    await m.submit();
    await settle();
    // Only the newest answer offers it.
    expect(m.contentEl.querySelectorAll(".quire-ask-regenerate")).toHaveLength(1);
    m.contentEl.querySelector<HTMLButtonElement>(".quire-ask-regenerate")!.click();
    await settle();
    expect(asks).toHaveLength(3);
    expect(sent.at(-1)).toMatchObject({ question: "And at what heat?" });
    // The first turn goes with it as history; the replaced one does not.
    expect((sent.at(-1) as { history?: { question: string }[] }).history?.map((h) => h.question)).toEqual(["How long do I knead?"]);
    expect(m.contentEl.querySelectorAll(".quire-ask-turn")).toHaveLength(2);
  });

  // Issue 25: conversations were lost on restart.
  it("keeps a conversation across a restart and reopens it from Past conversations, to follow it up", async () => {
    let data: unknown = undefined;
    const restart = () => new ConversationArchive(JSON.parse(JSON.stringify(data ?? null)), (list) => (data = list));
    const { asks } = answerAsk(server, [], done());
    const sent: unknown[] = [];
    const reply = server.reply!;
    server.reply = (f, s) => {
      if (f.type === "ask.query") sent.push(f.payload);
      reply(f, s);
    };
    const withArchive = (archive: ConversationArchive) =>
      new AskModal(app as never, { client: () => sidecar.client, history, archive, noteText: async () => note, openPassage: () => {}, openNote: async () => {}, frameMs: 0 });
    const first = withArchive(restart());
    first.open();
    first.contentEl.querySelector<HTMLTextAreaElement>(".quire-ask-input")!.value = "How long do I knead?";
    await first.submit();
    await settle();
    first.close();
    expect(data).toMatchObject([{ title: "How long do I knead?", turns: [{ kind: "done", question: "How long do I knead?" }] }]);

    // The plugin loads again: a new archive from data.json, a new modal.
    const again = withArchive(restart());
    again.open();
    const past = [...again.contentEl.querySelectorAll<HTMLButtonElement>(".quire-ask-past-item")];
    expect(past.map((b) => b.querySelector(".quire-ask-past-title")?.textContent)).toEqual(["How long do I knead?"]);
    expect(past[0]!.getAttribute("title")).toBe("Reopen the conversation: How long do I knead? (1 question)");
    past[0]!.click();
    await settle();
    expect(again.contentEl.querySelectorAll(".quire-ask-turn")).toHaveLength(1);
    expect(again.contentEl.querySelector(".quire-ask-turn strong")?.textContent).toBe("ten");
    expect(again.contentEl.querySelector(".quire-ask-past-item")).toBeNull();
    again.contentEl.querySelector<HTMLTextAreaElement>(".quire-ask-input")!.value = "And at what heat?";
    await again.submit();
    await settle();
    expect(asks).toHaveLength(2);
    expect((sent.at(-1) as { history?: { question: string }[] }).history?.map((h) => h.question)).toEqual(["How long do I knead?"]);
    expect(data).toHaveLength(1);
    expect((data as { turns: unknown[] }[])[0]!.turns).toHaveLength(2);
    // A new conversation is kept beside it, newest first.
    again.contentEl.querySelector<HTMLButtonElement>(".quire-ask-new")!.click();
    again.contentEl.querySelector<HTMLTextAreaElement>(".quire-ask-input")!.value = "Where is the kiln?";
    await again.submit();
    await settle();
    expect((data as { title: string }[]).map((c) => c.title)).toEqual(["Where is the kiln?", "How long do I knead?"]);
  });

  // Issue 25: a stopped answer showed its raw **.
  it("draws a stopped answer as Markdown, once", async () => {
    let push: ((d: string) => void) | null = null;
    server.reply = (f, s) => {
      if (f.type !== "ask.query") return;
      push = (d) => s.push({ id: f.id!, type: "ask.delta", payload: { text: d } });
    };
    const m = modal();
    m.open();
    m.contentEl.querySelector<HTMLTextAreaElement>(".quire-ask-input")!.value = "q";
    const asked = m.submit();
    await settle();
    push!("Knead it for **ten** min");
    await settle();
    const before = MarkdownRenderer.renderedForTest;
    m.contentEl.querySelector<HTMLButtonElement>(".quire-ask-stop")!.click();
    await asked;
    await settle();
    expect(MarkdownRenderer.renderedForTest).toBe(before + 1);
    const stopped = m.contentEl.querySelector(".quire-ask-answer.is-stopped .quire-ask-stream")!;
    expect(stopped.querySelector("strong")?.textContent).toBe("ten");
    expect(stopped.textContent).not.toContain("**");
  });

  it("shows a refusal as a refusal, and extracted answers and warnings as such", async () => {
    answerAsk(server, [], done({ refused: true, grounded: false, answer: "Your notes do not say.", citations: [] }));
    const m = modal();
    m.open();
    m.contentEl.querySelector<HTMLTextAreaElement>(".quire-ask-input")!.value = "Who won in 1930?";
    await m.submit();
    await settle();
    expect(m.contentEl.querySelector(".quire-ask-answer")!.classList.contains("is-refused")).toBe(true);
    expect(m.contentEl.querySelector(".quire-ask-refusal")!.textContent).toBe("Not in your notesYour notes do not say.");
    expect(m.contentEl.querySelector(".quire-ask-save")).toBeNull();

    answerAsk(server, [], done({ extracted: true, model: "", warning: "no model configured", droppedCitations: 2 }));
    // Asking cleared the field (the question shows once, above its answer): ask again.
    expect(m.contentEl.querySelector<HTMLTextAreaElement>(".quire-ask-input")!.value).toBe("");
    m.contentEl.querySelector<HTMLTextAreaElement>(".quire-ask-input")!.value = "Who won in 1930?";
    await m.submit();
    await settle();
    // The second question is a second turn of the conversation, below the first.
    const turns = m.contentEl.querySelectorAll(".quire-ask-turn");
    expect(turns).toHaveLength(2);
    const last = turns[1]!;
    expect(last.querySelector(".quire-ask-answer")!.classList.contains("is-extracted")).toBe(true);
    expect(last.querySelector(".quire-ask-extracted-label")).not.toBeNull();
    // The label says it once; the engine's own note about it is not repeated, and the way out is the settings tab.
    expect(last.querySelector(".quire-ask-warning")).toBeNull();
    expect(last.querySelector(".quire-ask-notes")!.textContent).toContain("Settings → Quire");
    expect(last.querySelector(".quire-ask-note")!.textContent).toBe("2 invented citations were removed.");
  });

  it("keeps the session's questions: listed when it opens, and up recalls them", async () => {
    answerAsk(server, [], done());
    const m = modal();
    m.open();
    const items = [...m.contentEl.querySelectorAll(".quire-ask-history-item")].map((e) => e.textContent);
    expect(items).toContain("How long do I knead?");
    const input = m.contentEl.querySelector<HTMLTextAreaElement>(".quire-ask-input")!;
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowUp" }));
    expect(input.value).toBe(history.list[0]);
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowDown" }));
    expect(input.value).toBe("");
  });

  it("closing the modal while it streams drops the answer", async () => {
    server.reply = () => {};
    const m = modal();
    m.open();
    m.contentEl.querySelector<HTMLTextAreaElement>(".quire-ask-input")!.value = "q";
    const asked = m.submit();
    m.close();
    await asked;
    expect(m.state.kind).toBe("streaming");
  });
});

describe("a conversation", () => {
  let server: FakeServer;
  let sidecar: FakeLifecycle;
  let app: App;
  beforeEach(async () => {
    ({ server, sidecar } = await online());
    app = new App({ files: { "Kitchen/Bread.md": note } });
  });
  afterEach(() => {
    for (const m of [...Modal.openForTest]) m.close();
    document.body.replaceChildren();
  });

  /** asked records the payloads of ask.query and answers each with done(). */
  const asked = () => {
    const payloads: { question: string; history?: { question: string; answer: string }[] }[] = [];
    server.reply = (f, s) => {
      if (f.type !== "ask.query") return;
      const p = f.payload as (typeof payloads)[number];
      payloads.push(p);
      s.push({ id: f.id!, type: "ask.delta", payload: { text: "Some " } });
      s.push({ id: f.id!, type: "ask.done", payload: done({ answer: `Answer to ${p.question} [1].` }) });
    };
    return payloads;
  };
  const deps = (conversation: Conversation) => ({
    client: () => sidecar.client,
    history: new History(),
    conversation,
    noteText: async () => note,
    openPassage: () => {},
    openNote: async () => {},
    frameMs: 0,
  });
  const ask = async (root: HTMLElement, panel: { submit(): Promise<void> }, q: string) => {
    root.querySelector<HTMLTextAreaElement>(".quire-ask-input")!.value = q;
    await panel.submit();
    await settle();
  };

  it("sends a follow-up with the earlier questions and answers, keeps earlier turns as they were drawn, and starts afresh on New conversation", async () => {
    const payloads = asked();
    const m = new AskModal(app as never, { client: () => sidecar.client, history: new History(), noteText: async () => note, openPassage: () => {}, openNote: async () => {}, frameMs: 0 });
    m.open();
    await ask(m.contentEl, m, "How long do I knead?");
    const first = m.contentEl.querySelector(".quire-ask-turn .quire-ask-sources")!;
    await ask(m.contentEl, m, "And then?");
    expect(payloads[0]!.history).toBeUndefined();
    expect(payloads[1]!.history).toEqual([{ question: "How long do I knead?", answer: "Answer to How long do I knead? [1].", passages: ["Kitchen/Bread.md#1"] }]);
    // The first turn was not drawn again: its sources are the same element.
    expect(m.contentEl.querySelector(".quire-ask-turn .quire-ask-sources")).toBe(first);
    const questions = [...m.contentEl.querySelectorAll(".quire-ask-question")].map((e) => e.textContent);
    expect(questions).toEqual(["How long do I knead?", "And then?"]);
    m.contentEl.querySelector<HTMLButtonElement>(".quire-ask-new")!.click();
    expect(m.contentEl.querySelectorAll(".quire-ask-turn")).toHaveLength(0);
    await ask(m.contentEl, m, "Fresh question?");
    expect(payloads[2]!.history).toBeUndefined();
  });

  it("leaves a stopped answer out of what a follow-up sends", async () => {
    const c = new Conversation();
    c.add({ kind: "stopped", question: "a?", text: "half" });
    c.add({ kind: "done", question: "b?", askId: "2", answer: done({ answer: "B [1]." }) });
    c.add({ kind: "error", question: "c?", message: "offline" });
    // The passages go too: with a remote model and private folders, the engine sends an earlier answer only when none of them is private.
    expect(c.history()).toEqual([{ question: "b?", answer: "B [1].", passages: ["Kitchen/Bread.md#1"] }]);
  });

  it("the sidebar view keeps its conversation when it is closed and opened again; Insert at cursor leaves it open", async () => {
    const payloads = asked();
    const conversation = new Conversation();
    const inserted: string[] = [];
    const viewDeps = { ...deps(conversation), linkText: (p: string) => p.replace(/\.md$/, ""), insert: (md: string) => (inserted.push(md), true) };
    app.viewRegistryForTest.set(ASK_VIEW, (leaf: WorkspaceLeaf) => new AskView(leaf as never, viewDeps) as never);
    const leaf = app.workspace.getRightLeaf(false)!;
    await leaf.setViewState({ type: ASK_VIEW });
    const view = leaf.view as unknown as AskView;
    await ask(view.contentEl, view.panelForTest!, "How long do I knead?");
    view.contentEl.querySelector<HTMLButtonElement>(".quire-ask-insert")!.click();
    expect(inserted[0]).toContain("[[Kitchen/Bread#Method|1]]");
    expect(leaf.view).toBe(view);
    expect(view.contentEl.querySelector(".quire-ask-status")!.textContent).toMatch(/^Inserted/);
    leaf.detach();

    const again = app.workspace.getRightLeaf(false)!;
    await again.setViewState({ type: ASK_VIEW });
    const v2 = again.view as unknown as AskView;
    await settle();
    expect([...v2.contentEl.querySelectorAll(".quire-ask-question")].map((e) => e.textContent)).toEqual(["How long do I knead?"]);
    expect(v2.contentEl.querySelector(".quire-ask-body")!.textContent).toContain("Answer to How long do I knead?");
    await ask(v2.contentEl, v2.panelForTest!, "And then?");
    expect(payloads[1]!.history).toHaveLength(1);
    again.detach();
  });
});

describe("the sidebar closed while an answer streams", () => {
  let server: FakeServer;
  let sidecar: FakeLifecycle;
  let app: App;
  beforeEach(async () => {
    ({ server, sidecar } = await online());
    app = new App({ files: { "Kitchen/Bread.md": note } });
  });
  afterEach(() => {
    document.body.replaceChildren();
  });

  /** held answers ask.query with one delta and keeps the rest for the test to send (finish). */
  const held = () => {
    const open: { id: string; s: FakeSocket }[] = [];
    server.reply = (f, s) => {
      if (f.type !== "ask.query") return;
      open.push({ id: f.id!, s });
      s.push({ id: f.id!, type: "ask.delta", payload: { text: "Knead it " } });
    };
    return {
      asked: () => open.length,
      delta: (text: string) => open.at(-1)!.s.push({ id: open.at(-1)!.id, type: "ask.delta", payload: { text } }),
      finish: () => open.at(-1)!.s.push({ id: open.at(-1)!.id, type: "ask.done", payload: done({ answer: "Knead it for ten minutes [1]." }) }),
    };
  };
  const openView = async () => {
    const leaf = app.workspace.getRightLeaf(false)!;
    await leaf.setViewState({ type: ASK_VIEW });
    await settle();
    return { leaf, view: leaf.view as unknown as AskView };
  };

  it("keeps the answer: it finishes into the conversation, and opening the view again shows it, or shows it still streaming", async () => {
    const conversation = new Conversation();
    const deps = { client: () => sidecar.client, history: new History(), conversation, noteText: async () => note, openPassage: () => {}, openNote: async () => {}, frameMs: 0 };
    app.viewRegistryForTest.set(ASK_VIEW, (leaf: WorkspaceLeaf) => new AskView(leaf as never, deps) as never);
    const fake = held();

    // Closed mid-answer, the answer finishes while no view is open.
    let { leaf, view } = await openView();
    view.contentEl.querySelector<HTMLTextAreaElement>(".quire-ask-input")!.value = "How long do I knead?";
    const asked = view.panelForTest!.submit();
    await vi.waitFor(() => expect(fake.asked()).toBe(1));
    await vi.waitFor(() => expect(view.contentEl.querySelector(".quire-ask-stream")!.textContent).toBe("Knead it "));
    leaf.detach();
    fake.finish();
    await asked;
    expect(conversation.turns.map((t) => t.kind)).toEqual(["done"]);
    ({ leaf, view } = await openView());
    await vi.waitFor(() => expect(view.contentEl.querySelector(".quire-ask-body")?.textContent).toContain("Knead it for ten minutes"));
    expect([...view.contentEl.querySelectorAll(".quire-ask-question")].map((e) => e.textContent)).toEqual(["How long do I knead?"]);
    expect(view.contentEl.querySelector(".quire-ask-source")).not.toBeNull();

    // Closed mid-answer and opened again before it ends: the stream shows as it stands, with Stop, and goes on to the checked answer.
    view.contentEl.querySelector<HTMLTextAreaElement>(".quire-ask-input")!.value = "And then?";
    const second = view.panelForTest!.submit();
    await vi.waitFor(() => expect(fake.asked()).toBe(2));
    leaf.detach();
    fake.delta("for ten ");
    ({ leaf, view } = await openView());
    await vi.waitFor(() => expect(view.contentEl.querySelector(".quire-ask-turn.is-latest .quire-ask-stream")?.textContent).toBe("Knead it for ten "));
    expect(view.contentEl.querySelector(".quire-ask-stop")!.classList.contains("is-hidden")).toBe(false);
    expect(view.contentEl.querySelector(".quire-ask-submit")!.classList.contains("is-hidden")).toBe(true);
    fake.delta("minutes.");
    fake.finish();
    await second;
    await vi.waitFor(() => expect(view.contentEl.querySelectorAll(".quire-ask-body")).toHaveLength(2));
    expect([...view.contentEl.querySelectorAll(".quire-ask-question")].map((e) => e.textContent)).toEqual(["How long do I knead?", "And then?"]);
    expect(view.contentEl.querySelector(".quire-ask-stop")!.classList.contains("is-hidden")).toBe(true);
    expect(conversation.turns.map((t) => t.kind)).toEqual(["done", "done"]);

    // New conversation while one streams drops it: opening the view again shows no phantom turn.
    view.contentEl.querySelector<HTMLTextAreaElement>(".quire-ask-input")!.value = "Third?";
    const third = view.panelForTest!.submit();
    await vi.waitFor(() => expect(fake.asked()).toBe(3));
    view.contentEl.querySelector<HTMLButtonElement>(".quire-ask-new")!.click();
    await third;
    leaf.detach();
    ({ leaf, view } = await openView());
    expect(view.contentEl.querySelectorAll(".quire-ask-turn")).toHaveLength(0);
    expect(conversation.turns).toHaveLength(0);
    leaf.detach();
  });
});

describe("ask within a folder or a tag", () => {
  let server: FakeServer;
  let sidecar: FakeLifecycle;
  let app: App;
  beforeEach(async () => {
    ({ server, sidecar } = await online());
    app = new App({ files: { "Kitchen/Bread/Sourdough.md": note } });
  });
  afterEach(() => {
    document.body.replaceChildren();
  });

  it("offers the whole vault, the note itself, its folders nearest first, its tags and their parents, and keeps a scope chosen elsewhere", () => {
    const note = { path: "Kitchen/Bread/Sourdough.md", tags: ["baking/bread", "Baking", "starter"] };
    expect(scopeChoices(note, {}).map(scopeLabel)).toEqual([
      "Whole vault",
      "Note Sourdough",
      "Folder Kitchen/Bread",
      "Folder Kitchen",
      "Tag #baking/bread",
      "Tag #baking",
      "Tag #starter",
    ]);
    expect(scopeChoices(null, { folder: "/Garden/" }).map(scopeLabel)).toEqual(["Whole vault", "Folder Garden"]);
    expect(scopeChoices({ path: "Top.md", tags: [] }, { tag: "#garden" }).map(scopeLabel)).toEqual(["Whole vault", "Note Top", "Tag #garden"]);
    // A note scope stands alone, and a scope chosen from another note stays offered.
    expect(cleanScope({ note: " Kitchen/Bread/Sourdough.md ", folder: "Kitchen" })).toEqual({ note: "Kitchen/Bread/Sourdough.md" });
    expect(scopeChoices({ path: "Top.md", tags: [] }, { note: "Garden/Beds.md" }).map(scopeLabel)).toEqual(["Whole vault", "Note Top", "Note Beds"]);
  });

  it("the sidebar's scope control sends the scope with the question, shows it on the turn, and is remembered when the view closes and in the view's state", async () => {
    const payloads: Record<string, unknown>[] = [];
    server.reply = (f, s) => {
      if (f.type !== "ask.query") return;
      payloads.push(f.payload as Record<string, unknown>);
      s.push({ id: f.id!, type: "ask.done", payload: done() });
    };
    const conversation = new Conversation();
    const viewDeps = {
      client: () => sidecar.client,
      history: new History(),
      conversation,
      noteText: async () => note,
      openPassage: () => {},
      openNote: async () => {},
      frameMs: 0,
      scopeNote: () => ({ path: "Kitchen/Bread/Sourdough.md", tags: ["baking"] }),
    };
    app.viewRegistryForTest.set(ASK_VIEW, (leaf: WorkspaceLeaf) => new AskView(leaf as never, viewDeps) as never);
    const leaf = app.workspace.getRightLeaf(false)!;
    await leaf.setViewState({ type: ASK_VIEW });
    const view = leaf.view as unknown as AskView;
    const select = view.contentEl.querySelector<HTMLSelectElement>("select.quire-ask-scope-select")!;
    // A native select, named for screen readers: Tab reaches it, the arrow keys choose.
    expect(select.getAttribute("aria-label")).toBe("Ask within");
    expect(select.tabIndex).toBe(0);
    expect([...select.options].map((o) => o.text)).toEqual(["Whole vault", "Note Sourdough", "Folder Kitchen/Bread", "Folder Kitchen", "Tag #baking"]);
    expect(select.value).toBe("vault");

    const askQ = async (v: AskView, q: string) => {
      v.contentEl.querySelector<HTMLTextAreaElement>(".quire-ask-input")!.value = q;
      await v.panelForTest!.submit();
      await settle();
    };
    await askQ(view, "Whole vault?");
    select.value = "folder:Kitchen";
    select.dispatchEvent(new Event("change"));
    expect(app.workspace.layoutSavesForTest).toBe(1);
    await askQ(view, "Only the kitchen?");
    expect(payloads[0]).toEqual({ question: "Whole vault?" });
    expect(payloads[1]).toMatchObject({ question: "Only the kitchen?", folder: "Kitchen" });
    expect(payloads[1]).not.toHaveProperty("tag");
    expect([...view.contentEl.querySelectorAll(".quire-ask-scope-badge")].map((e) => e.textContent)).toEqual(["Within folder Kitchen"]);
    expect(leaf.getViewState().state).toEqual({ scope: { folder: "Kitchen" } });

    // Closed and opened again: the same scope, and the badge on the turn asked within it.
    leaf.detach();
    const again = app.workspace.getRightLeaf(false)!;
    await again.setViewState({ type: ASK_VIEW });
    const v2 = again.view as unknown as AskView;
    await settle();
    expect(v2.contentEl.querySelector<HTMLSelectElement>("select.quire-ask-scope-select")!.value).toBe("folder:Kitchen");
    expect([...v2.contentEl.querySelectorAll(".quire-ask-scope-badge")].map((e) => e.textContent)).toEqual(["Within folder Kitchen"]);
    again.detach();

    // A restart: a new conversation, and the layout gives the view its saved state.
    conversation.scope = {};
    const restored = app.workspace.getRightLeaf(false)!;
    await restored.setViewState({ type: ASK_VIEW, state: { scope: { tag: "#garden" } } });
    const v3 = restored.view as unknown as AskView;
    const sel3 = v3.contentEl.querySelector<HTMLSelectElement>("select.quire-ask-scope-select")!;
    expect(sel3.value).toBe("tag:garden");
    expect(sel3.selectedOptions[0]!.text).toBe("Tag #garden");
    await askQ(v3, "In the garden?");
    expect(payloads[2]).toMatchObject({ question: "In the garden?", tag: "garden" });

    // About this note: only its passages are asked for, and the turn says so.
    sel3.value = "note:Kitchen/Bread/Sourdough.md";
    sel3.dispatchEvent(new Event("change"));
    await askQ(v3, "What does this note say?");
    expect(payloads[3]).toEqual({ question: "What does this note say?", note: "Kitchen/Bread/Sourdough.md", history: expect.anything() });
    expect([...v3.contentEl.querySelectorAll(".quire-ask-scope-badge")].map((e) => e.textContent).at(-1)).toBe("Within note Sourdough");
    expect(restored.getViewState().state).toEqual({ scope: { note: "Kitchen/Bread/Sourdough.md" } });
    restored.detach();
  });
});

describe("sourceLines", () => {
  it("lists each passage once, with every number citing it; the same heading of the same note shares a line", () => {
    const c = (number: number, id: string, path: string, headingPath: string[]) => ({ number, id, path, source: "vault", start: 0, end: 1, title: "", headingPath, text: "", hash: "" });
    const lines = sourceLines([c(1, "a#1", "a.md", ["H"]), c(2, "b#1", "b.md", []), c(3, "a#1", "a.md", ["H"]), c(4, "a#2", "a.md", ["H"]), c(5, "a#3", "a.md", ["Other"])]);
    expect(lines.map((l) => [l.numbers, l.citation.id])).toEqual([
      [[1, 3, 4], "a#1"],
      [[2], "b#1"],
      [[5], "a#3"],
    ]);
  });
});

describe("answerMarkdown", () => {
  it("turns each [n] into a link to its note and heading and lists the sources once", () => {
    const c = (number: number, path: string, headingPath: string[]) => ({ number, id: `${path}#0`, path, source: "vault", start: 0, end: 1, title: "", headingPath, text: "", hash: "" });
    const md = answerMarkdown(
      { answer: "Knead ten minutes [1]. Rest it [2][1]. Not a citation [9].", citations: [c(1, "Kitchen/Bread.md", ["Bread", "Method"]), c(2, "Kitchen/Rye.md", [])] },
      (p) => p.replace(/\.md$/, "").split("/").at(-1)!,
    );
    expect(md).toBe("Knead ten minutes ([[Bread#Method|1]]). Rest it ([[Rye|2]])([[Bread#Method|1]]). Not a citation [9].\n\nSources:\n1. [[Bread#Method]]\n2. [[Rye]]");
  });

  it("links a PDF's passage to its page", () => {
    const md = answerMarkdown(
      { answer: "Descale monthly [1].", citations: [{ number: 1, id: "Docs/manual.pdf#4", path: "Docs/manual.pdf", source: "vault", start: 0, end: 1, title: "manual", headingPath: ["Care"], page: 12, text: "", hash: "" }] },
      (p) => p.split("/").at(-1)!,
    );
    expect(md).toBe("Descale monthly ([[manual.pdf#page=12|1]]).\n\nSources:\n1. [[manual.pdf#page=12]]");
  });
});

describe("saved answer notes", () => {
  const savedNote = async (hash: string) => `---
quire: answer
question: How long do I knead?
asked: "2026-11-30T17:00:00Z"
model: openai/fake
grounded: true
lang: en
citations:
    - number: 1
      note: Kitchen/Bread.md
      headingPath:
        - Method
      start: ${start}
      end: ${end}
      hash: ${hash}
---

# How long do I knead?

Knead it for ten minutes [1].

## Sources

[1] [[Kitchen/Bread#Method|Bread › Method]]
> Knead the dough for ten minutes.
`;

  it("reads citations from the frontmatter the sidecar writes, and nothing from other notes", async () => {
    const text = await savedNote("abc");
    const fm = parseFrontmatterForTest(text);
    expect(savedCitations(fm)?.get(1)).toEqual({ n: 1, path: "Kitchen/Bread.md", start, end, headingPath: ["Method"], hash: "abc" });
    expect(savedCitations({ title: "x" })).toBeNull();
    expect(savedCitations({ quire: "answer", citations: [{ number: "1" }] })?.size).toBe(0);
  });

  const moved = note.replace("## Method\n", "## Method\n\nA line the user added.\n");
  it.each([
    ["unchanged", note, "", "Knead the dough for ten minutes.", start],
    // The bytes at the old offsets are not the passage any more: it is found where it went.
    ["moved down by a new line", moved, "is-moved", "Knead the dough for ten minutes.", start + enc.encode("\nA line the user added.\n").length],
    ["edited since", note.replace("ten", "twelve"), "is-changed", "Knead the dough for twelve minutes.", start],
    ["removed", note.replace("Knead the dough for ten minutes.", "Bake at once."), "is-gone", "Knead the dough for ten minutes.", start],
  ])("the reading view finds the cited passage: %s", async (_n, current, where, shown, at) => {
    const hash = await sha256Hex(enc.encode("Knead the dough for ten minutes."));
    const text = await savedNote(hash);
    const app = new App({ files: { "Kitchen/Bread.md": current } });
    const plugin = new Plugin(app, { id: "quire", name: "Quire", version: "0", minAppVersion: "0", description: "", author: "" });
    const opened: [string, number][] = [];
    const noteText = async (p: string) => (p === "Kitchen/Bread.md" ? current : text);
    plugin.registerMarkdownPostProcessor(answerNoteProcessor({ noteText, open: (p, s) => opened.push([p, s]) }) as never);
    const el = document.body.createDiv();
    const body = text.slice(text.indexOf("---\n", 4) + 4);
    const children = await plugin.renderForTest("Quire/Answers/How long.md", body, parseFrontmatterForTest(text), el);
    const markers = el.querySelectorAll<HTMLElement>(".quire-citation-marker");
    expect(markers).toHaveLength(2); // in the answer and in Sources
    markers[0]!.dispatchEvent(new MouseEvent("mouseenter"));
    await settle();
    const pop = document.querySelector(".quire-citation-popover")!;
    expect(pop.querySelector(".quire-citation-text")!.textContent).toBe(shown);
    const said = pop.querySelector(".quire-citation-changed");
    expect(said ? [...said.classList].find((c) => c.startsWith("is-")) : "").toBe(where);
    expect(pop.querySelector(".quire-citation-heading")!.textContent).toBe("Method");
    markers[0]!.click();
    expect(opened).toEqual([["Kitchen/Bread.md", at]]);
    for (const c of children) c.unload();
    expect(document.querySelector(".quire-citation-popover")).toBeNull();
    plugin.unload();
    el.remove();
  });
});

describe("saved answer notes written by the sidecar (proto/testdata/notes)", () => {
  // Written by the sidecar's ask.RenderNote (sidecar/ask/golden_test.go):
  // a saved answer citing a passage whose title and heading hold " › ".
  const golden = (name: string) => readFileSync(join(import.meta.dirname, "../../proto/testdata/notes", name), "utf8");
  const answerPath = "Quire/Answers/How do I turn on vault sync.md";
  const saved = golden(answerPath);
  const cited = golden("Devices/Sync.md");
  const passage = cited.slice(cited.indexOf("# Setup")).trim();
  const at = enc.encode(cited.slice(0, cited.indexOf("# Setup"))).length;

  it("reads the heading list from the frontmatter, ' › ' inside a heading and the title included", () => {
    const fm = parseFrontmatterForTest(saved);
    expect(savedCitations(fm)?.get(1)).toEqual({
      n: 1, path: "Devices/Sync.md", start: at, end: at + enc.encode(passage).length,
      headingPath: ["Setup", "Settings › Sync"], hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it("the hover shows the saved heading list and the passage", async () => {
    const current = cited;
    const app = new App({ files: { "Devices/Sync.md": current } });
    const plugin = new Plugin(app, { id: "quire", name: "Quire", version: "0", minAppVersion: "0", description: "", author: "" });
    const opened: [string, number][] = [];
    const noteText = async (p: string) => (p === "Devices/Sync.md" ? current : saved);
    plugin.registerMarkdownPostProcessor(answerNoteProcessor({ noteText, open: (p, s) => opened.push([p, s]) }) as never);
    const el = document.body.createDiv();
    const body = saved.slice(saved.indexOf("---\n", 4) + 4);
    const children = await plugin.renderForTest(answerPath, body, parseFrontmatterForTest(saved), el);
    const markers = el.querySelectorAll<HTMLElement>(".quire-citation-marker");
    expect(markers).toHaveLength(2); // in the answer and in Sources
    markers[0]!.dispatchEvent(new MouseEvent("mouseenter"));
    await settle();
    const pop = document.querySelector(".quire-citation-popover")!;
    expect(pop.querySelector(".quire-citation-text")!.textContent).toBe(passage);
    expect(pop.querySelector(".quire-citation-changed")).toBeNull();
    // The heading list as the sidecar saved it: " › " inside a heading is not a level.
    expect(pop.querySelector(".quire-citation-heading")!.textContent).toBe("Setup › Settings › Sync");
    markers[0]!.click();
    expect(opened).toEqual([["Devices/Sync.md", at]]);
    for (const c of children) c.unload();
    expect(document.querySelector(".quire-citation-popover")).toBeNull();
    plugin.unload();
    el.remove();
  });
});

describe("citation hover from the keyboard", () => {
  it("focus shows the passage and Enter opens it", async () => {
    const { CitationHover } = await import("../src/hover/citation");
    const opened: [string, number][] = [];
    const hover = new CitationHover({ noteText: async () => note, open: (p, s) => opened.push([p, s]) });
    const el = document.body.createSpan({ text: "[1]" });
    hover.attach(el, { n: 1, path: "Kitchen/Bread.md", start, end });
    el.dispatchEvent(new FocusEvent("focus"));
    await settle();
    expect(document.querySelector(".quire-citation-popover .quire-citation-text")!.textContent).toBe("Knead the dough for ten minutes.");
    el.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    expect(opened).toEqual([["Kitchen/Bread.md", start]]);
    expect(document.querySelector(".quire-citation-popover")).toBeNull();
    hover.dispose();
    el.remove();
  });
});

describe("saved answers in the editor", () => {
  it.each([
    ["on the marker", "It is so [12] here.", 10, { n: 12, from: 9, to: 13 }],
    ["on its bracket", "It is so [12] here.", 9, { n: 12, from: 9, to: 13 }],
    ["just after it", "It is so [12] here.", 13, null],
    ["second of two", "a [1][2]", 6, { n: 2, from: 5, to: 8 }],
    ["not a marker", "[[link]] and [x]", 1, null],
  ])("markerAt %s", async (_n, line, ch, want) => {
    const { markerAt } = await import("../src/hover/editor");
    expect(markerAt(line, ch)).toEqual(want);
  });

  it("hovering [n] in an answer note's editor shows the passage; Ctrl-click opens it; other notes get nothing", async () => {
    const { EditorState } = await import("@codemirror/state");
    const { EditorView } = await import("@codemirror/view");
    const { answerEditorHover } = await import("../src/hover/editor");
    const { TFile, editorInfoField } = await import("./obsidian-stub");
    const hash = await sha256Hex(enc.encode("Knead the dough for ten minutes."));
    const doc = `---\nquire: answer\ncitations:\n    - number: 1\n      note: Kitchen/Bread.md\n      start: ${start}\n      end: ${end}\n      hash: ${hash}\n---\n\nKnead it for ten minutes [1].\n`;
    const app = new App({ files: { "Quire/Answers/Q.md": doc, "Kitchen/Bread.md": note, "Other.md": doc.replace("quire: answer", "quire: other") } });
    const shown: { n: number | undefined; path: string }[] = [];
    let released = 0;
    const opened: [string, number][] = [];
    const hover = {
      show: async (_a: unknown, c: { n?: number; path: string }) => {
        shown.push({ n: c.n, path: c.path });
        return null;
      },
      release: () => released++,
      hide: () => {},
    };
    const make = (path: string) => {
      const view = new EditorView({
        state: EditorState.create({
          doc: app.vault.files.get(path)!,
          extensions: [editorInfoField.init(() => ({ file: new TFile(path) })), answerEditorHover({ metadataCache: app.metadataCache as never, hover: hover as never, open: (p, s) => opened.push([p, s]) })],
        }),
        parent: document.body,
      });
      // jsdom has no layout: the pointer's position in the text is set by hand.
      let at = 0;
      view.posAtCoords = () => at;
      view.coordsAtPos = () => ({ left: 1, right: 2, top: 3, bottom: 4 });
      const move = (pos: number, init: MouseEventInit = {}) => {
        at = pos;
        view.contentDOM.dispatchEvent(new MouseEvent("mousemove", { bubbles: true, ...init }));
      };
      return { view, move, text: app.vault.files.get(path)! };
    };
    const a = make("Quire/Answers/Q.md");
    const marker = a.text.indexOf("[1]");
    a.move(marker + 1);
    a.move(marker + 2); // the same marker: not shown again
    expect(shown).toEqual([{ n: 1, path: "Kitchen/Bread.md" }]);
    a.move(marker - 3);
    expect(released).toBe(1);
    a.move(marker + 1);
    a.view.contentDOM.dispatchEvent(new MouseEvent("mousedown", { bubbles: true, ctrlKey: true }));
    expect(opened).toEqual([["Kitchen/Bread.md", start]]);
    a.view.destroy();

    const o = make("Other.md");
    o.move(o.text.indexOf("[1]") + 1);
    expect(shown).toHaveLength(2);
    o.view.destroy();
  });
});

describe("History kept", () => {
  it("starts from what a previous session kept and tells each change", () => {
    const kept: (readonly string[])[] = [];
    const h = new History(3, ["b", "", "a", "b", 7], (l) => kept.push([...l]));
    expect(h.list).toEqual(["b", "a"]);
    h.add("c");
    h.add("d");
    expect(h.list).toEqual(["d", "c", "b"]);
    expect(kept).toEqual([["c", "b", "a"], ["d", "c", "b"]]);
  });
});

describe("ConversationArchive", () => {
  it("reads only whole conversations from data.json and keeps at most twenty", () => {
    const turn = { kind: "error", question: "q", message: "offline" };
    const kept = [
      { id: "a", title: "q", updated: 1, turns: [turn] },
      { id: "b", title: "q", updated: 1, turns: [] },
      { id: "c", title: 3, updated: 1, turns: [turn] },
      "junk",
      ...Array.from({ length: 30 }, (_, i) => ({ id: `x${i}`, title: "q", updated: i, turns: [turn, { kind: "weird", question: "q" }] })),
    ];
    const got = readConversations(kept);
    expect(got[0]!.id).toBe("a");
    expect(got).toHaveLength(20);
    expect(got[1]!.turns).toHaveLength(1);
    expect(readConversations({})).toEqual([]);
  });
});
