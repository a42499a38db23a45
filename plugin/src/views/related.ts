import { type EventRef, type HoverParent, type HoverPopover, ItemView, type Workspace, type WorkspaceLeaf } from "obsidian";
import type { Passage, RelatedNote } from "../../../proto/proto.gen";
import { headingLabel, snippet } from "../passage";
import { ClientError, Latest, isSuperseded } from "../sidecar/client";
import type { Sidecar } from "../sidecar/lifecycle";
import { type IndexSnapshot, type StatusTracker, indexingPercent } from "../sidecar/status-tracker";

/** RELATED_VIEW is the related pages view's type. */
export const RELATED_VIEW = "quire-related";

/** RelatedState is what the related view shows. */
export type RelatedState =
  | { kind: "no-note" }
  | { kind: "offline"; reason: string; canStart: boolean }
  | { kind: "connecting" }
  | { kind: "building"; percent: number }
  | { kind: "loading"; path: string }
  | { kind: "results"; path: string; notes: RelatedNote[]; warning: string; updating: number | null }
  | { kind: "error"; path: string; message: string };

/** ActiveNote is the note the view is about: its path and, while being edited, its text. */
export interface ActiveNote {
  path: string;
}

/** RelatedDeps is what the related view needs; main.ts builds it. */
export interface RelatedDeps {
  sidecar: Pick<Sidecar, "state" | "client" | "onChange" | "start">;
  tracker: Pick<StatusTracker, "snapshot" | "onChange">;
  /** activeNote returns the note in the active (or last active) editor, or null. */
  activeNote(): ActiveNote | null;
  /** readNote returns a note's current text, for notes the index does not hold yet. */
  readNote(path: string): Promise<string>;
  /** openPassage opens a note scrolled to a byte offset; newLeaf opens it in a new tab. */
  openPassage(path: string, start: number, newLeaf: boolean, page?: number): void;
  /**
   * subscribe hooks the workspace events that mean "look again", handing
   * each to register (the view's registerEvent, so unload unhooks them).
   */
  subscribe(handlers: { noteChanged(): void; edited(path: string, text: string): void }, register: (ref: EventRef) => void): void;
  /** k is how many notes to list. */
  k?: number;
  /** mtime returns a note's modification time, or null: a note unchanged since its list was drawn shows that list again at once. */
  mtime?(path: string): number | null;
  /** linked returns the notes the note at sourcePath already links to: their rows say so. */
  linked?(sourcePath: string): readonly string[];
  /** hidden returns the notes the user hid from the list (Delete on a row); hide adds one, remembered. */
  hidden?(): readonly string[];
  hide?(path: string): void;
  /** copy puts text on the clipboard (Copy all as links). */
  copy?(text: string): Promise<void>;
  /** exclude returns the folders whose notes are never listed (the setting); the engine leaves them out before it cuts to k. */
  exclude?(): string[];
  /** typingDelayMs is how long typing must pause before the view asks again. */
  typingDelayMs?: number;
  /** linkText is what goes inside [[…]] for a note linked from sourcePath (dragging a row into a note). */
  linkText?(path: string, sourcePath: string): string;
  /** hoverLink asks Obsidian's page preview to show a note at a byte offset (the hover-link event). */
  hoverLink?(evt: MouseEvent, parent: HoverParent, targetEl: HTMLElement, path: string, start: number, sourcePath: string): void;
}

/**
 * CUTOFF hides notes scoring under this share of the best note's score.
 * Scores are comparable only within one reply, so the cut is relative to
 * the best; 0.4 keeps the close neighbours and drops the tail that shares
 * a word or two (chosen by looking at the sample vault's and the bench
 * corpus's lists, not measured).
 */
export const CUTOFF = 0.4;

/** strength words a relevance for a screen reader and the bar's title. */
export function strength(rel: number): string {
  return rel >= 0.8 ? "strong" : rel >= 0.55 ? "good" : "weak";
}

/** CACHED_NOTES is how many notes' lists the view keeps for going back. */
const CACHED_NOTES = 20;

/** MAX_QUERY_TEXT bounds the editor text sent while typing; the sidecar reads only the opening anyway. */
const MAX_QUERY_TEXT = 8000;

/**
 * RelatedView lists the notes closest to the active note with their best
 * passage. It asks again when the active note changes and, after a pause,
 * while the user types; each request supersedes the one before, so typing
 * never waits on the sidecar and a late answer never overwrites a newer one.
 */
export class RelatedView extends ItemView implements HoverParent {
  hoverPopover: HoverPopover | null = null;
  private state: RelatedState = { kind: "no-note" };
  /** pinned is the note the view stays on, or null to follow the active note. */
  private pinned: string | null = null;
  private showWeak = false;
  /** expanded holds the notes whose other passages are shown, by path. */
  private readonly expanded = new Set<string>();
  private pinEl: HTMLElement | null = null;
  private readonly latest = new Latest();
  private typingTimer: number | null = null;
  private lastStatus: unknown = null;
  private readonly k: number;
  private readonly typingDelayMs: number;
  /** cache holds the lists of recent notes by path, with the note's mtime when asked: going back is instant. */
  private readonly cache = new Map<string, { mtime: number; exclude: string; notes: RelatedNote[] }>();

  constructor(
    leaf: WorkspaceLeaf,
    private readonly deps: RelatedDeps,
  ) {
    super(leaf);
    this.k = deps.k ?? 10;
    this.typingDelayMs = deps.typingDelayMs ?? 800;
  }

  override getViewType(): string {
    return RELATED_VIEW;
  }

  override getDisplayText(): string {
    return "Related pages";
  }

  override getIcon(): string {
    return "git-fork";
  }

  /** current is the state shown, for tests. */
  get current(): RelatedState {
    return this.state;
  }

  override async onOpen(): Promise<void> {
    this.contentEl.addClass("quire-related");
    this.addAction("refresh-cw", "Refresh", () => {
      this.cache.clear();
      void this.refresh();
    });
    this.pinEl = this.addAction("pin", "Pin to this note", () => this.togglePin());
    this.addAction("copy", "Copy all as links", () => void this.copyLinks());
    this.deps.subscribe(
      {
        noteChanged: () => void this.refresh(),
        edited: (path, text) => this.edited(path, text),
      },
      (ref) => this.registerEvent(ref),
    );
    this.register(this.deps.sidecar.onChange(() => void this.refresh()));
    this.register(this.deps.tracker.onChange((s) => this.trackerChanged(s)));
    this.register(() => {
      this.latest.cancel();
      if (this.typingTimer !== null) window.clearTimeout(this.typingTimer);
    });
    this.lastStatus = this.deps.tracker.snapshot.status;
    await this.refresh();
  }

  override async onClose(): Promise<void> {
    this.latest.cancel();
    if (this.typingTimer !== null) window.clearTimeout(this.typingTimer);
    this.typingTimer = null;
  }

  /** togglePin keeps the view on the note shown now, or lets it follow the active note again. */
  togglePin(): void {
    const path = this.state.kind === "results" || this.state.kind === "loading" || this.state.kind === "error" ? this.state.path : (this.deps.activeNote()?.path ?? null);
    this.pinned = this.pinned === null ? path : null;
    this.pinEl?.toggleClass("is-active", this.pinned !== null);
    this.pinEl?.setAttr("aria-pressed", this.pinned !== null ? "true" : "false");
    this.pinEl?.setAttr("aria-label", this.pinned !== null ? "Unpin: follow the active note" : "Pin to this note");
    void this.refresh();
  }

  /** copyLinks puts a [[link]] to every note listed now on the clipboard, one per line. */
  async copyLinks(): Promise<void> {
    const s = this.state;
    if (s.kind !== "results" || !this.deps.copy) return;
    const links = this.visible(s.notes).map((n) => `[[${this.deps.linkText?.(n.path, s.path) ?? n.path.replace(/\.md$/, "")}]]`);
    if (links.length > 0) await this.deps.copy(links.join("\n"));
  }

  /** visible leaves out the notes the user hid. */
  private visible(notes: RelatedNote[]): RelatedNote[] {
    const hidden = this.deps.hidden?.() ?? [];
    return hidden.length === 0 ? notes : notes.filter((n) => !hidden.includes(n.path));
  }

  /** pinnedTo is the note the view is pinned to, or null, for tests. */
  get pinnedTo(): string | null {
    return this.pinned;
  }

  private edited(path: string, text: string): void {
    if (this.typingTimer !== null) window.clearTimeout(this.typingTimer);
    this.typingTimer = window.setTimeout(() => {
      this.typingTimer = null;
      void this.refresh(text, path);
    }, this.typingDelayMs);
  }

  private trackerChanged(s: IndexSnapshot): void {
    const statusChanged = s.status !== this.lastStatus;
    this.lastStatus = s.status;
    if (this.state.kind === "building") {
      const pct = indexingPercent(s);
      if (pct !== null && (s.status?.notes ?? 0) === 0) {
        this.show({ kind: "building", percent: pct });
        return;
      }
      void this.refresh();
      return;
    }
    // A new status follows a change to the index: the list may be stale, and so may the cached ones.
    if (statusChanged) this.cache.clear();
    if (statusChanged && s.status !== null && this.state.kind !== "loading") void this.refresh();
    else if (this.state.kind === "results") this.show({ ...this.state, updating: indexingPercent(s) });
  }

  /**
   * refresh asks the sidecar for the notes related to the active note, or
   * to text (the editor's unsaved content) when given.
   */
  async refresh(text?: string, textPath?: string): Promise<void> {
    const note = this.pinned !== null ? { path: this.pinned } : this.deps.activeNote();
    if (!note || (textPath !== undefined && textPath !== note.path)) {
      if (!note) {
        this.latest.cancel();
        this.show({ kind: "no-note" });
      }
      return;
    }
    const sc = this.deps.sidecar.state;
    if (sc.kind === "offline") {
      this.latest.cancel();
      return this.show({ kind: "offline", reason: sc.reason, canStart: sc.canStart });
    }
    const client = this.deps.sidecar.client;
    if (!client) {
      this.latest.cancel();
      return this.show({ kind: "connecting" });
    }
    const snap = this.deps.tracker.snapshot;
    const pct = indexingPercent(snap);
    if (pct !== null && (snap.status?.notes ?? 0) === 0) {
      this.latest.cancel();
      return this.show({ kind: "building", percent: pct });
    }
    const path = note.path;
    const mtime = text === undefined ? (this.deps.mtime?.(path) ?? null) : null;
    const exclude = (this.deps.exclude?.() ?? []).join("\n");
    const hit = mtime !== null ? this.cache.get(path) : undefined;
    if (hit && hit.mtime === mtime && hit.exclude === exclude) {
      this.latest.cancel();
      return this.show({ kind: "results", path, notes: hit.notes, warning: "", updating: indexingPercent(snap) });
    }
    const signal = this.latest.next();
    this.show({ kind: "loading", path });
    const opts = { signal, timeoutMs: 30_000 };
    try {
      let notes: RelatedNote[];
      let warning = "";
      let query = text;
      if (query === undefined) {
        try {
          const res = await client.request("related.query", { path, k: this.k, ...this.excludeField() }, opts);
          notes = res.notes;
          warning = res.warning ?? "";
        } catch (err) {
          // A note the index does not hold yet (just created) is asked about by its text.
          if (!(err instanceof ClientError) || err.code !== "not_found") throw err;
          query = await this.deps.readNote(path);
          if (signal.aborted) return;
          notes = [];
        }
      } else {
        notes = [];
      }
      if (query !== undefined) {
        if (query.trim() === "") {
          notes = [];
        } else {
          const res = await client.request("related.query", { text: query.slice(0, MAX_QUERY_TEXT), from: path, k: this.k + 1, ...this.excludeField() }, opts);
          notes = res.notes.filter((n) => n.path !== path).slice(0, this.k);
          warning = res.warning ?? "";
        }
      }
      if (signal.aborted) return;
      // Kept only when whole: asked by path (not by the text of a note the index lacks yet), with
      // no warning (vectors missing, keywords only) and no pass running, which could all change the list.
      if (mtime !== null && query === undefined && warning === "" && indexingPercent(this.deps.tracker.snapshot) === null) {
        this.cache.delete(path); // the newest last: the oldest goes first
        this.cache.set(path, { mtime, exclude, notes });
        if (this.cache.size > CACHED_NOTES) this.cache.delete(this.cache.keys().next().value!);
      }
      this.show({ kind: "results", path, notes, warning, updating: indexingPercent(this.deps.tracker.snapshot) });
    } catch (err) {
      if (isSuperseded(err) || signal.aborted) return;
      if (err instanceof ClientError && err.code === "not_ready") {
        return this.show({ kind: "building", percent: indexingPercent(this.deps.tracker.snapshot) ?? 0 });
      }
      if (err instanceof ClientError && err.code === "closed") return; // the state change redraws
      console.warn("quire: related.query", err);
      this.show({ kind: "error", path, message: err instanceof Error ? err.message : String(err) });
    }
  }

  private excludeField(): { exclude?: string[] } {
    const ex = this.deps.exclude?.() ?? [];
    return ex.length > 0 ? { exclude: ex } : {};
  }

  /**
   * focusList moves the keyboard into the list: its current row, or the
   * view until the rows come (the command that opens the view calls it,
   * since revealing a view leaves the focus in the editor).
   */
  focusList(): void {
    const row = this.contentEl.querySelector<HTMLElement>('.quire-related-item[tabindex="0"]');
    if (row) {
      row.focus();
      return;
    }
    this.contentEl.setAttr("tabindex", -1);
    this.contentEl.focus();
  }

  private show(s: RelatedState): void {
    const prev = this.state;
    // The keyboard stays in the list as it is redrawn.
    const hadFocus = this.contentEl.ownerDocument.activeElement === this.contentEl || (this.contentEl.contains(this.contentEl.ownerDocument.activeElement) && s.kind === "results");
    this.state = s;
    const el = this.contentEl;
    if (s.kind === "loading") {
      // Keep the list while the next one comes: no flicker as the user
      // types, and no blank panel when they move to another note (the
      // old list stays, dimmed, under a line saying which note is asked).
      el.addClass("is-loading");
      if (prev.kind === "results" || (prev.kind === "loading" && el.querySelector(".quire-related-list, .quire-related-empty"))) {
        const name = s.path.replace(/\.md$/, "").split("/").at(-1) ?? s.path;
        let line = el.querySelector<HTMLElement>(".quire-related-updating");
        if ((prev.kind === "results" && prev.path !== s.path) || (prev.kind === "loading" && line)) {
          line ??= el.createDiv({ cls: "quire-related-updating" });
          el.prepend(line);
          line.setText(`Updating for ${name}…`);
        }
        // Screen readers hear that the list is about to change (the redraw drops the attribute).
        el.querySelector(".quire-related-list")?.setAttr("aria-busy", "true");
        return;
      }
    } else {
      el.removeClass("is-loading");
    }
    el.empty();
    switch (s.kind) {
      case "no-note":
        el.createDiv({ cls: "quire-related-empty", text: "Open a note to see related pages." });
        return;
      case "connecting":
        el.createDiv({ cls: "quire-related-empty", text: "Connecting to Quire…" });
        return;
      case "offline": {
        const box = el.createDiv({ cls: "quire-related-offline" });
        box.createDiv({ cls: "quire-related-empty", text: "Quire is offline." });
        box.createDiv({ cls: "quire-related-reason", text: s.reason });
        if (s.canStart) {
          const btn = box.createEl("button", { cls: "mod-cta quire-related-start", text: "Start" });
          btn.addEventListener("click", () => void this.deps.sidecar.start());
        } else {
          box.createDiv({ cls: "quire-related-reason", text: "Set the quire program in Settings → Quire." });
        }
        return;
      }
      case "building":
        el.createDiv({ cls: "quire-related-empty", text: `Index building (${s.percent}%)…` });
        return;
      case "loading":
        el.createDiv({ cls: "quire-related-empty", text: "Finding related notes…" });
        return;
      case "error":
        el.createDiv({ cls: "quire-related-error", text: `Could not find related notes: ${s.message}` });
        return;
      case "results":
        this.renderResults(el, s);
        if (hadFocus) {
          const a = this.contentEl.ownerDocument.activeElement;
          if (a === this.contentEl || !this.contentEl.contains(a)) this.focusList();
        }
        return;
    }
  }

  private renderResults(el: HTMLElement, s: Extract<RelatedState, { kind: "results" }>): void {
    if (this.pinned !== null) el.createDiv({ cls: "quire-related-note", text: `Pinned to ${this.pinned.replace(/\.md$/, "")}` });
    if (s.updating !== null) el.createDiv({ cls: "quire-related-note", text: `Index updating (${s.updating}%)` });
    if (s.warning) el.createDiv({ cls: "quire-related-warning", text: s.warning });
    const linked = this.deps.linked?.(s.path) ?? [];
    s = { ...s, notes: this.visible(s.notes) };
    if (s.notes.length === 0) {
      // The engine leaves out notes no closer than chance (its dense floor): none left means none is close.
      el.createDiv({ cls: "quire-related-empty", text: "No close notes." });
      return;
    }
    const top = s.notes[0]?.score || 1;
    const rel = (n: RelatedNote) => Math.max(0, Math.min(1, n.score / top));
    const strong = s.notes.filter((n) => rel(n) >= CUTOFF);
    const weak = s.notes.length - strong.length;
    const shown = this.showWeak ? s.notes : strong;
    // A tree: one row per note with its best passage; a note with more matching passages expands (Right, or a click on "more") to list them under it.
    const list = el.createDiv({ cls: "quire-related-list", attr: { role: "tree", "aria-label": "Related notes" } });
    const rows: HTMLElement[] = [];
    const redraw = (focusPath: string, sub: boolean) => {
      this.show(this.state);
      const item = Array.from(this.contentEl.querySelectorAll<HTMLElement>(".quire-related-item")).find((e) => e.dataset["path"] === focusPath);
      (sub ? item?.querySelector<HTMLElement>(".quire-related-sub") : item)?.focus();
    };
    const toggle = (path: string, open: boolean) => {
      if (open) this.expanded.add(path);
      else this.expanded.delete(path);
      redraw(path, false);
    };
    const keys = (evt: KeyboardEvent, row: HTMLElement, open: (e: KeyboardEvent) => void, nav?: { path: string; expandable: boolean; expanded: boolean; child: boolean }) => {
      const i = rows.indexOf(row);
      if (nav && !nav.child && evt.key === "Delete" && this.deps.hide) {
        // Hide this note from the list, remembered; the keyboard moves to the next row.
        evt.preventDefault();
        evt.stopPropagation();
        const tops = rows.filter((r) => !r.hasClass("quire-related-sub"));
        const at = tops.indexOf(row);
        const next = (tops[at + 1] ?? tops[at - 1])?.dataset["path"] ?? "";
        this.deps.hide(nav.path);
        redraw(next, false);
        if (!this.contentEl.contains(this.contentEl.ownerDocument.activeElement)) this.focusList();
        return;
      }
      if (evt.key === "Enter" || evt.key === " ") {
        evt.preventDefault();
        evt.stopPropagation();
        open(evt);
      } else if (evt.key === "ArrowDown" || evt.key === "ArrowUp" || evt.key === "Home" || evt.key === "End") {
        evt.preventDefault();
        evt.stopPropagation();
        const to = evt.key === "Home" ? 0 : evt.key === "End" ? rows.length - 1 : Math.max(0, Math.min(rows.length - 1, i + (evt.key === "ArrowDown" ? 1 : -1)));
        this.focusRow(rows, to);
      } else if (nav && evt.key === "ArrowRight" && nav.expandable && !nav.expanded) {
        evt.preventDefault();
        evt.stopPropagation();
        toggle(nav.path, true);
      } else if (nav && evt.key === "ArrowLeft" && (nav.expanded || nav.child)) {
        evt.preventDefault();
        evt.stopPropagation();
        toggle(nav.path, false);
      }
    };
    shown.forEach((n, i) => {
      const r = rel(n);
      const more = n.more ?? [];
      const isOpen = more.length > 0 && this.expanded.has(n.path);
      const item = list.createDiv({
        cls: `quire-related-item${r < CUTOFF ? " is-weak" : ""}${isOpen ? " is-expanded" : ""}`,
        attr: { role: "treeitem", "aria-selected": "false", tabindex: i === 0 ? 0 : -1, "data-path": n.path, draggable: "true" },
      });
      if (more.length > 0) item.setAttr("aria-expanded", isOpen ? "true" : "false");
      rows.push(item);
      const head = item.createDiv({ cls: "quire-related-head" });
      head.createSpan({ cls: "quire-related-title", text: n.title || n.path });
      if (linked.includes(n.path)) head.createSpan({ cls: "quire-related-linked", text: "linked", attr: { title: "Already linked from this note" } });
      const bar = head.createSpan({ cls: "quire-related-bar", attr: { role: "img", "aria-label": `Relevance: ${strength(r)}`, title: `Relevance: ${strength(r)} (score ${n.score.toFixed(3)})` } });
      bar.createSpan({ cls: `quire-related-bar-fill is-${strength(r)}`, attr: { "data-rel": r.toFixed(2) } });
      const crumb = headingLabel(n.passage.headingPath, n.passage.page);
      if (crumb) item.createDiv({ cls: "quire-related-heading", text: crumb });
      item.createDiv({ cls: "quire-related-snippet", text: snippet(n.passage.text) });
      if (more.length > 0) {
        // Not a button inside the row (controls must not nest): the row itself expands from the keyboard, this text on a click.
        const label = isOpen ? "Fewer passages" : `${more.length} more ${more.length === 1 ? "passage" : "passages"}`;
        const t = item.createDiv({ cls: "quire-related-expand", text: `${isOpen ? "▾" : "▸"} ${label}` });
        t.addEventListener("click", (evt) => {
          evt.stopPropagation();
          toggle(n.path, !isOpen);
        });
      }
      const open = (evt: MouseEvent | KeyboardEvent) => this.deps.openPassage(n.path, n.passage.start, evt.ctrlKey || evt.metaKey, n.passage.page);
      item.addEventListener("click", open);
      item.addEventListener("keydown", (evt) => keys(evt, item, open, { path: n.path, expandable: more.length > 0, expanded: isOpen, child: false }));
      item.addEventListener("focus", () => this.focusRow(rows, rows.indexOf(item), false));
      // Dragging a row into a note drops a link to it (the editor takes text/plain).
      item.addEventListener("dragstart", (evt) => {
        const link = `[[${this.deps.linkText?.(n.path, s.path) ?? n.path.replace(/\.md$/, "")}]]`;
        evt.dataTransfer?.setData("text/plain", link);
        if (evt.dataTransfer) evt.dataTransfer.effectAllowed = "copyLink";
        item.addClass("is-dragging");
      });
      item.addEventListener("dragend", () => item.removeClass("is-dragging"));
      item.addEventListener("mouseover", (evt) => {
        if (evt.target instanceof HTMLElement && evt.target.closest(".quire-related-sub")) return;
        this.deps.hoverLink?.(evt, this, item, n.path, n.passage.start, s.path);
      });
      if (isOpen) this.renderMore(item, rows, n, more, s.path, keys);
    });
    if (weak > 0) {
      const more = el.createEl("button", {
        cls: "quire-related-more",
        text: this.showWeak ? "Hide weaker matches" : `Show ${weak} weaker ${weak === 1 ? "match" : "matches"}`,
      });
      more.addEventListener("click", () => {
        this.showWeak = !this.showWeak;
        this.show(this.state);
      });
    }
  }

  /** renderMore lists a note's other matching passages under its row, each opening the note at that passage. */
  private renderMore(
    item: HTMLElement,
    rows: HTMLElement[],
    n: RelatedNote,
    more: Passage[],
    sourcePath: string,
    keys: (evt: KeyboardEvent, row: HTMLElement, open: (e: KeyboardEvent) => void, nav?: { path: string; expandable: boolean; expanded: boolean; child: boolean }) => void,
  ): void {
    const group = item.createDiv({ cls: "quire-related-group", attr: { role: "group" } });
    for (const p of more) {
      const sub = group.createDiv({ cls: "quire-related-sub", attr: { role: "treeitem", "aria-selected": "false", tabindex: -1, "aria-level": 2 } });
      rows.push(sub);
      const crumb = headingLabel(p.headingPath, p.page);
      if (crumb) sub.createDiv({ cls: "quire-related-heading", text: crumb });
      sub.createDiv({ cls: "quire-related-snippet", text: snippet(p.text) });
      const open = (evt: MouseEvent | KeyboardEvent) => this.deps.openPassage(n.path, p.start, evt.ctrlKey || evt.metaKey, p.page);
      sub.addEventListener("click", (evt) => {
        evt.stopPropagation();
        open(evt);
      });
      sub.addEventListener("keydown", (evt) => keys(evt, sub, open, { path: n.path, expandable: false, expanded: false, child: true }));
      sub.addEventListener("focus", (evt) => {
        evt.stopPropagation();
        this.focusRow(rows, rows.indexOf(sub), false);
      });
      sub.addEventListener("mouseover", (evt) => this.deps.hoverLink?.(evt, this, sub, n.path, p.start, sourcePath));
    }
  }

  private focusRow(rows: HTMLElement[], i: number, move = true): void {
    rows.forEach((r, j) => {
      r.setAttr("tabindex", j === i ? 0 : -1);
      r.setAttr("aria-selected", j === i ? "true" : "false");
    });
    if (move) rows[i]?.focus();
  }
}


/**
 * workspaceEvents is RelatedDeps.subscribe for the app's workspace: a new
 * active note or opened file means "look again"; an edit means "look again
 * after a pause, with this text".
 */
export function workspaceEvents(workspace: Workspace): RelatedDeps["subscribe"] {
  return (h, register) => {
    register(workspace.on("active-leaf-change", () => h.noteChanged()));
    register(workspace.on("file-open", () => h.noteChanged()));
    register(
      workspace.on("editor-change", (editor, info) => {
        if (info.file) h.edited(info.file.path, editor.getValue());
      }),
    );
  };
}
