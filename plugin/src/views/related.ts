import { type EventRef, ItemView, type Workspace, type WorkspaceLeaf } from "obsidian";
import type { RelatedNote } from "../../../proto/proto.gen";
import { headingLabel, snippet } from "../passage";
import { ClientError, Latest, isSuperseded } from "../sidecar/client";
import type { Sidecar } from "../sidecar/lifecycle";
import { type IndexSnapshot, type StatusTracker, indexingPercent } from "../sidecar/status";

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
  openPassage(path: string, start: number, newLeaf: boolean): void;
  /** subscribe registers the workspace events that mean "look again"; it returns the unsubscribe. */
  subscribe(handlers: { noteChanged(): void; edited(path: string, text: string): void }): () => void;
  /** k is how many notes to list. */
  k?: number;
  /** typingDelayMs is how long typing must pause before the view asks again. */
  typingDelayMs?: number;
}

/** MAX_QUERY_TEXT bounds the editor text sent while typing; the sidecar reads only the opening anyway. */
const MAX_QUERY_TEXT = 8000;

/**
 * RelatedView lists the notes closest to the active note with their best
 * passage. It asks again when the active note changes and, after a pause,
 * while the user types; each request supersedes the one before, so typing
 * never waits on the sidecar and a late answer never overwrites a newer one.
 */
export class RelatedView extends ItemView {
  private state: RelatedState = { kind: "no-note" };
  private readonly latest = new Latest();
  private typingTimer: number | null = null;
  private lastStatus: unknown = null;
  private readonly k: number;
  private readonly typingDelayMs: number;

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
    this.register(
      this.deps.subscribe({
        noteChanged: () => void this.refresh(),
        edited: (path, text) => this.edited(path, text),
      }),
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
    // A new status follows a change to the index: the list may be stale.
    if (statusChanged && s.status !== null && this.state.kind !== "loading") void this.refresh();
    else if (this.state.kind === "results") this.show({ ...this.state, updating: indexingPercent(s) });
  }

  /**
   * refresh asks the sidecar for the notes related to the active note, or
   * to text (the editor's unsaved content) when given.
   */
  async refresh(text?: string, textPath?: string): Promise<void> {
    const note = this.deps.activeNote();
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
    const signal = this.latest.next();
    const path = note.path;
    this.show({ kind: "loading", path });
    const opts = { signal, timeoutMs: 30_000 };
    try {
      let notes: RelatedNote[];
      let warning = "";
      let query = text;
      if (query === undefined) {
        try {
          const res = await client.request("related.query", { path, k: this.k }, opts);
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
          const res = await client.request("related.query", { text: query.slice(0, MAX_QUERY_TEXT), k: this.k + 1 }, opts);
          notes = res.notes.filter((n) => n.path !== path).slice(0, this.k);
          warning = res.warning ?? "";
        }
      }
      if (signal.aborted) return;
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

  private show(s: RelatedState): void {
    const prev = this.state;
    this.state = s;
    const el = this.contentEl;
    if (s.kind === "loading") {
      // Keep the list while the next one comes: no flicker as the user types.
      el.addClass("is-loading");
      if (prev.kind === "results" && prev.path === s.path) return;
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
        return;
    }
  }

  private renderResults(el: HTMLElement, s: Extract<RelatedState, { kind: "results" }>): void {
    if (s.updating !== null) el.createDiv({ cls: "quire-related-note", text: `Index updating (${s.updating}%)` });
    if (s.warning) el.createDiv({ cls: "quire-related-warning", text: s.warning });
    if (s.notes.length === 0) {
      el.createDiv({ cls: "quire-related-empty", text: "No related notes found." });
      return;
    }
    const top = s.notes[0]?.score || 1;
    const list = el.createDiv({ cls: "quire-related-list" });
    for (const n of s.notes) {
      const item = list.createDiv({ cls: "quire-related-item" });
      item.setAttr("data-path", n.path);
      item.setAttr("tabindex", "0");
      const head = item.createDiv({ cls: "quire-related-head" });
      head.createSpan({ cls: "quire-related-title", text: n.title || n.path });
      const score = head.createSpan({ cls: "quire-related-score", text: n.score.toFixed(3) });
      score.setAttr("title", "Relevance score (higher is closer)");
      score.style.setProperty("--quire-score", String(Math.max(0, Math.min(1, n.score / top))));
      const crumb = headingLabel(n.passage.headingPath);
      if (crumb) item.createDiv({ cls: "quire-related-heading", text: crumb });
      item.createDiv({ cls: "quire-related-snippet", text: snippet(n.passage.text) });
      const open = (evt: MouseEvent | KeyboardEvent) =>
        this.deps.openPassage(n.path, n.passage.start, evt.ctrlKey || evt.metaKey);
      item.addEventListener("click", open);
      item.addEventListener("keydown", (evt) => {
        if (evt.key === "Enter") open(evt);
      });
    }
  }
}

/** openRelatedView shows the related pages view in the right sidebar, creating it when needed. */
export async function openRelatedView(workspace: Workspace): Promise<void> {
  let leaf = workspace.getLeavesOfType(RELATED_VIEW)[0] ?? null;
  if (!leaf) {
    leaf = workspace.getRightLeaf(false);
    if (!leaf) return;
    await leaf.setViewState({ type: RELATED_VIEW, active: true });
  }
  await workspace.revealLeaf(leaf);
}

/**
 * workspaceEvents is RelatedDeps.subscribe for the app's workspace: a new
 * active note or opened file means "look again"; an edit means "look again
 * after a pause, with this text".
 */
export function workspaceEvents(workspace: Workspace): RelatedDeps["subscribe"] {
  return (h) => {
    const refs: EventRef[] = [
      workspace.on("active-leaf-change", () => h.noteChanged()),
      workspace.on("file-open", () => h.noteChanged()),
      workspace.on("editor-change", (editor, info) => {
        if (info.file) h.edited(info.file.path, editor.getValue());
      }),
    ];
    return () => {
      for (const r of refs) workspace.offref(r);
    };
  };
}
