import { type App, Modal } from "obsidian";
import type { DateSpan, Passage } from "../../../proto/proto.gen";
import { headingLabel } from "../passage";
import { type Filter, datesLabel, filterFields, highlight, queryTerms } from "../search-results";
import { type Client, ClientError, Latest, isSuperseded } from "../sidecar/client";
import type { SidecarState } from "../sidecar/lifecycle";

/** SearchModalDeps is what the search modal needs; main.ts builds it. */
export interface SearchModalDeps {
  /** client returns the connection now, or null while offline. */
  client(): Pick<Client, "request"> | null;
  /** state is Quire's state now, to say why search cannot run. */
  state(): SidecarState;
  /** openPassage opens a note scrolled to a byte offset; newLeaf opens a new tab. */
  openPassage(path: string, start: number, newLeaf: boolean): void;
  /** insertLink puts a link to the passage at the cursor of the editor that was active; it reports whether there was one. */
  insertLink?(path: string, headingPath: readonly string[]): boolean;
  /** debounceMs is how long typing must pause before a search goes out. */
  debounceMs?: number;
  /** k is how many passages to show. */
  k?: number;
  /** indexing returns how far the first pass has read the vault (0–100) while it runs, else null. */
  indexing?(): number | null;
  /** retryMs is how often a query typed while Quire starts is tried again. */
  retryMs?: number;
  /** onResults is told each time results are drawn, with the query they answer (for the harness's timing). */
  onResults?(query: string): void;
}

/** SearchState is what the modal shows. */
export type SearchState =
  | { kind: "empty" }
  | { kind: "offline"; reason: string }
  | { kind: "waiting"; message: string }
  | { kind: "searching"; query: string }
  | { kind: "results"; query: string; passages: Passage[]; warning: string; channel: string; dates?: DateSpan }
  | { kind: "error"; query: string; message: string };

let modalSeq = 0;

/**
 * SearchModal is type-ahead search over Quire's hybrid index: one row per
 * passage with the note's title, its heading path and the query's words
 * marked. Arrows move, Enter opens the note at the passage, Mod+Enter in a
 * new tab, Alt+Enter inserts a [[Note#Heading]] link at the cursor. Each
 * keystroke supersedes the search in flight, so a late answer never
 * replaces a newer one.
 */
export class SearchModal extends Modal {
  private st: SearchState = { kind: "empty" };
  private readonly latest = new Latest();
  private timer: number | null = null;
  private selected = 0;
  private filter: Filter = { folder: "", tag: "" };
  private inputEl!: HTMLInputElement;
  private listEl!: HTMLElement;
  private statusEl!: HTMLElement;
  private readonly id = ++modalSeq;

  constructor(
    app: App,
    private readonly deps: SearchModalDeps,
  ) {
    super(app);
  }

  /** current is what the modal shows, for tests. */
  get current(): SearchState {
    return this.st;
  }

  override onOpen(): void {
    this.modalEl.addClass("quire-search-modal");
    this.titleEl.setText("Search vault");
    const root = this.contentEl.createDiv({ cls: "quire-search" });
    const listId = `quire-search-list-${this.id}`;
    this.inputEl = root.createEl("input", {
      cls: "quire-search-input",
      attr: {
        type: "search",
        placeholder: "Search your notes…",
        "aria-label": "Search your notes",
        role: "combobox",
        "aria-expanded": "false",
        "aria-controls": listId,
        "aria-autocomplete": "list",
        spellcheck: "false",
      },
    });
    const filters = root.createDiv({ cls: "quire-search-filters" });
    const folder = filters.createEl("input", { cls: "quire-search-folder", attr: { type: "text", placeholder: "Folder", "aria-label": "Only in folder" } });
    const tag = filters.createEl("input", { cls: "quire-search-tag", attr: { type: "text", placeholder: "Tag", "aria-label": "Only with tag" } });
    this.statusEl = root.createDiv({ cls: "quire-search-status", attr: { "aria-live": "polite" } });
    this.listEl = root.createEl("ul", { cls: "quire-search-results", attr: { id: listId, role: "listbox", "aria-label": "Passages" } });
    const footer = root.createDiv({ cls: "quire-search-footer" });
    for (const [key, what] of [
      ["↑↓", "move"],
      ["↵", "open"],
      ["Ctrl/⌘ ↵", "open in a new tab"],
      ["Alt ↵", "insert a link"],
      ["Esc", "close"],
    ] as const) {
      const item = footer.createSpan({ cls: "quire-search-key" });
      item.createEl("kbd", { text: key });
      item.createSpan({ text: ` ${what}` });
    }

    this.inputEl.addEventListener("input", () => this.typed());
    this.inputEl.addEventListener("keydown", (evt) => this.key(evt));
    const refilter = () => {
      this.filter = { folder: folder.value, tag: tag.value };
      this.typed(0);
    };
    folder.addEventListener("input", refilter);
    tag.addEventListener("input", refilter);
    for (const el of [folder, tag]) el.addEventListener("keydown", (evt) => this.key(evt));
    this.show(this.offlineState() ?? { kind: "empty" });
    this.inputEl.focus();
  }

  override onClose(): void {
    this.latest.cancel();
    if (this.timer !== null) window.clearTimeout(this.timer);
    this.timer = null;
    this.contentEl.empty();
  }

  /** setQuery types q into the field, as the user would (for tests and the harness). */
  setQuery(q: string): void {
    this.inputEl.value = q;
    this.typed();
  }

  private offlineState(): SearchState | null {
    const s = this.deps.state();
    if (s.kind === "online") return null;
    if (s.kind === "offline") return { kind: "offline", reason: s.reason };
    // Starting is no failure: say what is happening, and search once it is up.
    return { kind: "waiting", message: s.kind === "starting" ? "Starting Quire… results appear as soon as it is up." : "Connecting to Quire…" };
  }

  /** typed schedules a search for the field's text after a short pause. */
  private typed(delay = this.deps.debounceMs ?? 30): void {
    if (this.timer !== null) window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => {
      this.timer = null;
      void this.search(this.inputEl.value);
    }, delay);
  }

  /** search asks Quire for passages matching q and draws them. */
  async search(q: string): Promise<void> {
    const query = q.trim();
    if (query === "") {
      this.latest.cancel();
      return this.show({ kind: "empty" });
    }
    const off = this.offlineState();
    const client = this.deps.client();
    if (off || !client) {
      this.latest.cancel();
      // A query typed while Quire starts goes out once it is up.
      if (off?.kind === "waiting") this.typed(this.deps.retryMs ?? 500);
      return this.show(off ?? { kind: "offline", reason: "Quire is offline." });
    }
    const signal = this.latest.next();
    if (this.st.kind !== "results") this.show({ kind: "searching", query });
    const k = this.deps.k ?? 20;
    try {
      // The engine filters before cutting to k.
      // typing: the last word may be unfinished ("sourd"), so the engine
      // also matches the words it begins, until a space ends it.
      const res = await client.request("search.query", { query, k, typing: !/\s$/.test(q), ...filterFields(this.filter) }, { signal, timeoutMs: 15_000 });
      if (signal.aborted) return;
      const results: SearchState = { kind: "results", query, passages: res.passages, warning: res.warning ?? "", channel: res.channel };
      if (res.dates) results.dates = res.dates;
      this.show(results);
    } catch (err) {
      if (isSuperseded(err) || signal.aborted) return;
      if (err instanceof ClientError && err.code === "closed") return this.show(this.offlineState() ?? { kind: "offline", reason: "Quire went offline." });
      console.warn("quire: search.query", err);
      this.show({ kind: "error", query, message: err instanceof ClientError && err.code === "not_ready" ? "The index is still being built. Try again in a moment." : "The search failed. The developer console has the detail." });
    }
  }

  private key(evt: KeyboardEvent): void {
    const s = this.st;
    const n = s.kind === "results" ? s.passages.length : 0;
    if (evt.key === "ArrowDown" || evt.key === "ArrowUp") {
      if (n === 0) return;
      evt.preventDefault();
      this.select((this.selected + (evt.key === "ArrowDown" ? 1 : n - 1)) % n);
      return;
    }
    if (evt.key !== "Enter" || evt.isComposing || s.kind !== "results") return;
    const p = s.passages[this.selected];
    if (!p) return;
    evt.preventDefault();
    if (evt.altKey) this.insert(p);
    else this.openAt(p, evt.ctrlKey || evt.metaKey);
  }

  private openAt(p: Passage, newLeaf: boolean): void {
    this.close();
    this.deps.openPassage(p.path, p.start, newLeaf);
  }

  private insert(p: Passage): void {
    if (!this.deps.insertLink?.(p.path, p.headingPath ?? [])) {
      this.statusEl.setText("No note was being edited: open one, then insert the link.");
      return;
    }
    this.close();
  }

  private select(i: number): void {
    this.selected = i;
    const rows = this.listEl.querySelectorAll<HTMLElement>(".quire-search-item");
    rows.forEach((row, j) => {
      row.toggleClass("is-selected", j === i);
      row.setAttr("aria-selected", j === i ? "true" : "false");
    });
    const row = rows[i];
    if (row) {
      this.inputEl.setAttr("aria-activedescendant", row.id);
      // jsdom has no scrollIntoView; every browser has.
      if (typeof row.scrollIntoView === "function") row.scrollIntoView({ block: "nearest" });
    }
  }

  private show(s: SearchState): void {
    this.st = s;
    const list = this.listEl;
    const status = this.statusEl;
    this.modalEl.toggleClass("is-searching", s.kind === "searching");
    if (s.kind === "searching") return; // keep the last list while the next comes: no flicker
    list.empty();
    this.inputEl.setAttr("aria-expanded", s.kind === "results" && s.passages.length > 0 ? "true" : "false");
    this.inputEl.removeAttribute("aria-activedescendant");
    status.removeClass("is-error");
    switch (s.kind) {
      case "empty":
        status.setText("Type to search your notes by words and meaning.");
        return;
      case "offline":
        status.addClass("is-error");
        status.setText(`Search needs Quire, which is not running: ${s.reason} Start it from the status bar.`);
        return;
      case "waiting":
        status.setText(s.message);
        return;
      case "error":
        status.addClass("is-error");
        status.setText(s.message);
        return;
      case "results":
        break;
    }
    // The days the query named ("last week") come first in the results:
    // say which, so that a note from another week at the top is no surprise.
    const dated = s.dates ? datesLabel(s.dates) : "";
    const when = dated ? ` · ${dated} first` : "";
    // While the first pass reads the vault, no match yet is not "no match".
    const indexing = this.deps.indexing?.() ?? null;
    const none = indexing !== null ? `Indexing ${indexing} % — results appear as notes are read.` : "No passages match.";
    status.setText(s.passages.length === 0 ? none : `${s.passages.length} ${s.passages.length === 1 ? "passage" : "passages"}${when}${s.warning ? ` · ${s.warning}` : ""}`);
    const terms = queryTerms(s.query);
    s.passages.forEach((p, i) => {
      const row = list.createEl("li", { cls: "quire-search-item", attr: { role: "option", id: `quire-search-${this.id}-${i}`, "aria-selected": "false", "data-path": p.path } });
      const head = row.createDiv({ cls: "quire-search-head" });
      head.createSpan({ cls: "quire-search-title", text: p.title || p.path });
      const crumb = headingLabel(p.headingPath ?? []);
      if (crumb) head.createSpan({ cls: "quire-search-heading", text: crumb });
      const line = row.createDiv({ cls: "quire-search-snippet" });
      for (const piece of highlight(p.text, terms, 180, p.matches)) {
        if (piece.hit) line.createEl("mark", { text: piece.text });
        else line.createSpan({ text: piece.text });
      }
      row.addEventListener("mousemove", () => {
        if (this.selected !== i) this.select(i);
      });
      row.addEventListener("click", (evt) => {
        if (evt.altKey) this.insert(p);
        else this.openAt(p, evt.ctrlKey || evt.metaKey);
      });
    });
    this.select(Math.min(this.selected, Math.max(0, s.passages.length - 1)));
    // The query these results answer, for the harness's keystroke-to-results timing.
    list.setAttr("data-channel", s.channel);
    list.setAttr("data-query", s.query);
    this.deps.onResults?.(s.query);
  }
}
