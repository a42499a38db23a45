// Ingest from the clipboard, without Obsidian: checking what the clipboard
// holds, following the sidecar's ingest events, and wording progress and
// failures. The ribbon button and command in main.ts run IngestRunner.
import type { IngestDone, IngestFailed, IngestProgress, QueueItem } from "../../proto/proto.gen";
import { type Client, ClientError } from "./sidecar/client";
import { followClient } from "./sidecar/follow";
import type { Sidecar } from "./sidecar/lifecycle";
import type { MarkdownPostProcessor } from "obsidian";
import type { NoticeAction } from "./notices";

/** ClipboardUrl is the clipboard checked: a URL to ingest, or why not. */
export type ClipboardUrl = { ok: true; url: string } | { ok: false; message: string };

/** parseClipboardUrl accepts one http(s) URL, trimmed; anything else gets a short sentence. */
export function parseClipboardUrl(text: string): ClipboardUrl {
  const t = text.trim();
  if (t === "") return { ok: false, message: "The clipboard is empty. Copy a web address first." };
  if (/\s/.test(t)) {
    const many = t.split(/\s+/).every((w) => /^https?:\/\/\S+$/i.test(w));
    return { ok: false, message: many ? "The clipboard holds more than one web address. Copy one." : "The clipboard does not hold a web address." };
  }
  let u: URL;
  try {
    u = new URL(t);
  } catch {
    return { ok: false, message: "The clipboard does not hold a web address." };
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    return { ok: false, message: `Only http and https addresses can be ingested, not ${u.protocol.replace(/:$/, "")}.` };
  }
  if (u.hostname === "") return { ok: false, message: "The web address has no host." };
  return { ok: true, url: u.href };
}

/** stepText is the Notice wording for where an item stands: "reading 3/8". */
export function stepText(p: Pick<IngestProgress, "step" | "index" | "total">): string {
  switch (p.step) {
    case "queued":
      return "queued";
    case "fetching":
      return "fetching…";
    case "extracting":
      return "extracting the text…";
    case "reading":
      return p.total > 0 ? `reading ${p.index}/${p.total}` : "reading…";
    case "planning":
      return "planning the notes…";
    case "linking":
      return "linking to your pages…";
    case "writing":
      return "writing…";
  }
}

/**
 * plainReason is the part of an error chain for people: its last clause
 * ("fetch URL: refused: 127.0.0.1 is a loopback address" becomes "127.0.0.1
 * is this computer's own address"), without a final period.
 */
export function plainReason(detail: string): string {
  return (detail.split(": ").at(-1) ?? "")
    .trim()
    .replace(/\.$/, "")
    .replace(/ is a loopback address$/, " is this computer's own address")
    .replace(/ is a private address$/, " is on a private network")
    .replace(/ is a link-local address$/, " is a local network address");
}

/** failureText is the short sentence for a failed ingest; detail is the sidecar's own sentence. */
export function failureText(code: string, detail: string): string {
  // A detail may be an error chain ("fetch URL: refused: 127.0.0.1 is a
  // loopback address"); its last clause is the sentence for people (the
  // whole chain goes to the console).
  const d = plainReason(detail);
  switch (code) {
    case "duplicate":
      if (/^already /i.test(d)) return `${d[0]!.toUpperCase()}${d.slice(1)}.`;
      return d ? `Already ingested: ${d}.` : "This page is already in the vault.";
    case "blocked":
      return d ? `Address not allowed: ${d}.` : "That address is not allowed.";
    case "fetch_failed":
      return d ? `Could not fetch the page: ${d}.` : "Could not fetch the page.";
    case "extract_failed":
      return d ? `Could not read the page: ${d}.` : "Could not read the page.";
    case "model_unavailable":
      return d ? `The model did not answer: ${d}. Try again later.` : "The model did not answer. Try again later.";
    default:
      return d ? `Ingest failed: ${d}.` : "Ingest failed. The developer console has the detail.";
  }
}

/** doneText is the Notice wording for a finished ingest. */
export function doneText(d: IngestDone): string {
  const parts = [`Saved “${d.title || d.note}”.`];
  if (!d.summarised) parts.push("No model read it: the note holds the clean text.");
  else if (d.unread > 0) parts.push(`${Math.round(d.unread * 100)}% was not read.`);
  const review = d.review?.length ?? 0;
  if (review > 0) parts.push(`${review} ${review === 1 ? "item" : "items"} to review.`);
  return parts.join(" ");
}

/** ItemState is one queue item as the events tell it. */
export type ItemState =
  | { id: number; source: string; kind: "running"; progress: IngestProgress | null }
  | { id: number; source: string; kind: "done"; done: IngestDone }
  | { id: number; source: string; kind: "failed"; failed: IngestFailed };

/** Batch counts the items of the current run of ingests: "ingesting index/total". */
export interface Batch {
  /** index is the item being worked on, counting from 1. */
  index: number;
  total: number;
  /** step words where the item being worked on stands ("reading 3/8"), or "" while all wait. */
  step: string;
}

/**
 * IngestTracker follows the ingest events of whatever connection is open,
 * for every item (the plugin's, another window's, the CLI's, the inbox's),
 * and counts the current batch for the status bar. A batch starts when an
 * item appears while none runs and ends when the last one finishes.
 */
export class IngestTracker {
  private readonly items = new Map<number, ItemState>();
  private finishedInBatch = 0;
  private readonly listeners = new Set<(s: ItemState | null) => void>();
  private client: Client | null = null;
  private readonly unfollow: () => void;

  constructor(sidecar: Pick<Sidecar, "state" | "onChange">) {
    this.unfollow = followClient(sidecar, (client) => this.follow(client));
  }

  /** item is what is known of id, or undefined. */
  item(id: number): ItemState | undefined {
    return this.items.get(id);
  }

  /** batch is the current batch, or null when nothing is being ingested. */
  get batch(): Batch | null {
    const active = this.active();
    if (active === 0) return null;
    let step = "";
    for (const it of this.items.values()) {
      if (it.kind === "running" && it.progress && it.progress.step !== "queued") step = stepText(it.progress);
    }
    return { index: this.finishedInBatch + 1, total: this.finishedInBatch + active, step };
  }

  /** onChange calls cb with the item that changed (null when the whole picture did); it returns the unsubscribe. */
  onChange(cb: (s: ItemState | null) => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  /** queue asks the sidecar for the queue's items, oldest first. */
  async queue(): Promise<QueueItem[]> {
    if (!this.client) throw new ClientError("closed", "queue.list: not connected");
    return (await this.client.request("queue.list", {}, { timeoutMs: 10_000 })).items ?? [];
  }

  /** expect records an item the plugin just queued, so the batch counts it before its first event. */
  expect(id: number, source: string): void {
    if (this.items.has(id)) return;
    this.begin();
    this.set({ id, source, kind: "running", progress: null });
  }

  /** dispose stops following the sidecar. */
  dispose(): void {
    this.unfollow();
    this.listeners.clear();
  }

  private follow(client: Client | null): (() => void)[] | void {
    this.client = client;
    if (!client) return;
    const unsubs = [
      client.on("ingest.progress", (p) => {
        const cur = this.items.get(p.id);
        if (cur && cur.kind !== "running") return;
        if (!cur) this.begin();
        this.set({ id: p.id, source: p.source, kind: "running", progress: p });
      }),
      client.on("ingest.done", (d) => this.finish({ id: d.id, source: d.source, kind: "done", done: d })),
      client.on("ingest.failed", (f) => this.finish({ id: f.id, source: f.source, kind: "failed", failed: f })),
    ];
    void this.seed(client);
    return unsubs;
  }

  /** seed picks up the items a sidecar was already working on when the plugin connected. */
  private async seed(client: Client): Promise<void> {
    let items: QueueItem[];
    try {
      items = (await client.request("queue.list", {}, { timeoutMs: 10_000 })).items ?? [];
    } catch {
      return; // an older sidecar, or the connection went: nothing to pick up
    }
    if (client !== this.client) return;
    for (const it of items) {
      const cur = this.items.get(it.id);
      if ((it.state === "queued" || it.state === "running") && !cur) {
        this.begin();
        this.items.set(it.id, { id: it.id, source: it.source, kind: "running", progress: null });
      } else if (cur?.kind === "running" && it.state === "done") {
        // It finished while the plugin was not connected: the queue has what the event would have said.
        const done: IngestDone = { id: it.id, source: it.source, note: it.note ?? "", title: "", written: it.note ? [it.note] : [], review: [], dropped: [], summarised: true, unread: 0 };
        this.finish({ id: it.id, source: it.source, kind: "done", done });
      } else if (cur?.kind === "running" && it.state === "failed") {
        this.finish({ id: it.id, source: it.source, kind: "failed", failed: { id: it.id, source: it.source, code: "internal", message: it.error ?? "" } });
      }
    }
    this.emit(null);
  }

  private active(): number {
    let n = 0;
    for (const it of this.items.values()) if (it.kind === "running") n++;
    return n;
  }

  /** begin starts a new batch when none runs. */
  private begin(): void {
    if (this.active() === 0) this.finishedInBatch = 0;
  }

  private finish(s: ItemState): void {
    const cur = this.items.get(s.id);
    if (cur && cur.kind !== "running") return;
    if (cur) this.finishedInBatch++;
    else this.begin();
    this.set(s);
    if (this.active() === 0) this.finishedInBatch = 0;
    this.prune();
  }

  /** prune forgets finished items beyond the last few, so a long session stays small. */
  private prune(): void {
    const finished = [...this.items.values()].filter((i) => i.kind !== "running");
    for (const it of finished.slice(0, Math.max(0, finished.length - 50))) this.items.delete(it.id);
  }

  private set(s: ItemState): void {
    this.items.set(s.id, s);
    this.emit(s);
  }

  private emit(s: ItemState | null): void {
    for (const cb of [...this.listeners]) cb(s);
  }
}

/** NoticeHandle is a notice that can be reworded in place (an Obsidian Notice in the app). */
export interface NoticeHandle {
  setText(text: string): void;
  hide(): void;
  /** offer rewords the notice and adds buttons. */
  offer(text: string, actions: NoticeAction[]): void;
}

/** IngestRunnerDeps is what the ingest command needs. */
export interface IngestRunnerDeps {
  sidecar: Pick<Sidecar, "client">;
  tracker: IngestTracker;
  /** readClipboard returns the clipboard's text. */
  readClipboard(): Promise<string>;
  /** notice shows a notice that stays until hidden (timeoutMs 0) or for timeoutMs. */
  notice(text: string, timeoutMs: number): NoticeHandle;
  /** openNote opens a vault note. */
  openNote(path: string): Promise<void>;
  log(message: string, ...detail: unknown[]): void;
}

/**
 * IngestRunner ingests the URL on the clipboard: it checks it, queues it,
 * keeps one notice per item reworded as the item moves on, and offers to open the
 * source note when it is written.
 */
export class IngestRunner {
  private readonly unsubs = new Map<number, () => void>();
  /** live holds the notices of items still being followed, hidden on dispose. */
  private readonly live = new Set<NoticeHandle>();

  constructor(private readonly deps: IngestRunnerDeps) {}

  /** fromClipboard ingests the clipboard's URL; it resolves once the item is queued (or refused). */
  async fromClipboard(): Promise<number | null> {
    let text: string;
    try {
      text = await this.deps.readClipboard();
    } catch (err) {
      this.deps.log("read clipboard", err);
      this.deps.notice("Quire: could not read the clipboard.", 6000);
      return null;
    }
    const parsed = parseClipboardUrl(text);
    if (!parsed.ok) {
      this.deps.notice(`Quire: ${parsed.message}`, 6000);
      return null;
    }
    return this.ingest(parsed.url);
  }

  /**
   * ingest queues url and follows it to the end. With resummarise, a
   * source saved earlier without a summary is read again by the model,
   * from its saved original.
   */
  async ingest(url: string, resummarise = false): Promise<number | null> {
    const client = this.deps.sidecar.client;
    if (!client) {
      this.deps.notice("Quire is offline. Start it from the status bar, then try again.", 8000);
      return null;
    }
    const n = this.deps.notice(`Quire: ${shortUrl(url)} — queued`, 0);
    let id: number;
    try {
      const res = await client.request("ingest.add", resummarise ? { source: url, resummarise } : { source: url }, { timeoutMs: 30_000 });
      id = res.id;
      if (res.position > 0) n.setText(`Quire: ${shortUrl(url)} — queued (${res.position} ahead)`);
    } catch (err) {
      this.deps.log("ingest.add", url, err);
      const code = err instanceof ClientError ? err.code : "internal";
      const msg = err instanceof ClientError && code !== "closed" ? err.message : "";
      n.setText(`Quire: ${code === "closed" ? "Quire went offline before the page was queued." : failureText(code, msg)}`);
      window.setTimeout(() => n.hide(), 10_000);
      return null;
    }
    this.deps.tracker.expect(id, url);
    this.live.add(n);
    const follow = (s: ItemState | undefined) => {
      if (!s) return false;
      if (s.kind === "running") {
        if (s.progress) n.setText(`Quire: ${shortUrl(url)} — ${stepText(s.progress)}`);
        return false;
      }
      this.unsubs.get(id)?.();
      this.unsubs.delete(id);
      this.live.delete(n);
      if (s.kind === "done") {
        // The note opens only when asked: the ingest may end minutes after
        // the click, while the user writes something else.
        const note = s.done.note;
        if (note) n.offer(`Quire: ${doneText(s.done)}`, [{ label: "Open", run: () => void this.deps.openNote(note) }]);
        else n.setText(`Quire: ${doneText(s.done)}`);
        window.setTimeout(() => n.hide(), 15_000);
      } else {
        this.deps.log("ingest failed", s.failed);
        n.setText(`Quire: ${failureText(s.failed.code, s.failed.message)}`);
        window.setTimeout(() => n.hide(), 12_000);
      }
      return true;
    };
    // Events may have come before the reply: start from what is known.
    if (follow(this.deps.tracker.item(id))) return id;
    this.unsubs.set(
      id,
      this.deps.tracker.onChange((s) => {
        if (s === null || s.id === id) follow(this.deps.tracker.item(id));
      }),
    );
    return id;
  }

  /** dispose stops following items and takes their notices down (the sidecar carries on with them). */
  dispose(): void {
    for (const u of this.unsubs.values()) u();
    this.unsubs.clear();
    for (const n of this.live) n.hide();
    this.live.clear();
  }
}

/** shortUrl is a URL without its scheme, cut to fit a notice. */
export function shortUrl(url: string, max = 60): string {
  const s = url.replace(/^https?:\/\//, "").replace(/\/$/, "");
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

/**
 * resummarisable is the source a Quire source note was made from when the
 * model did not read all of it (saved without a summary, or partly read),
 * else null: what "Summarise again" sends back to the engine.
 */
export function resummarisable(frontmatter: unknown): string | null {
  if (!frontmatter || typeof frontmatter !== "object") return null;
  const f = frontmatter as Record<string, unknown>;
  if (typeof f.quire !== "string" || f.quire_kind !== "source" || typeof f.source !== "string" || f.source.trim() === "") return null;
  const unread = typeof f.unread === "number" && f.unread > 0;
  return f.summarised === false || unread ? f.source : null;
}

/** calloutTitles are the titles of the callouts Quire writes above a source the model did not read whole. */
const calloutTitles = new Set(["Not summarised", "Partly read"]);

/**
 * resummariseButtons adds a "Summarise again" button, in the reading view,
 * to the callout of a source note the model did not read whole; run queues
 * it again (see IngestRunner.ingest). The note itself is not touched.
 */
export function resummariseButtons(run: (source: string) => void): MarkdownPostProcessor {
  return (el, ctx) => {
    const source = resummarisable(ctx.frontmatter);
    if (!source) return;
    for (const callout of Array.from(el.querySelectorAll<HTMLElement>('.callout[data-callout="warning"]'))) {
      const title = callout.querySelector(".callout-title-inner")?.textContent?.trim() ?? "";
      if (!calloutTitles.has(title)) continue;
      const content = callout.querySelector<HTMLElement>(".callout-content") ?? callout;
      const button = content.createEl("button", { text: "Summarise again", cls: "quire-resummarise" });
      button.setAttribute("aria-label", `Summarise ${source} again with the model`);
      button.addEventListener("click", () => {
        button.disabled = true;
        run(source);
      });
    }
  };
}
