import { ItemView, type WorkspaceLeaf } from "obsidian";
import type { SourceInfo, TOCNote, TOCResult } from "../../../proto/proto.gen";
import type { Client } from "../sidecar/client";
import { sourceOf } from "../sidecar/sourcekeys";

/** TOC_VIEW is the type of the Sources view: each source's table of contents. */
export const TOC_VIEW = "quire-toc";

/** TOCDeps is what the view needs; main.ts builds it. */
export interface TOCDeps {
  /** client is the connected engine's client, null while offline. */
  client(): Client | null;
  /**
   * open opens a note (a vault path, or another source's key) at its
   * heading, or at its top when heading is null: a vault note as
   * Obsidian opens it, another source's read-only.
   */
  open(path: string, heading: string | null, newLeaf: boolean): void;
}

/** matches says whether a note of a table of contents holds every word of filter in its path, title, tags or headings. */
export function matches(note: TOCNote, filter: string): boolean {
  const words = filter.toLowerCase().split(/\s+/).filter((w) => w !== "");
  if (words.length === 0) return true;
  const hay = [note.path, note.title, ...(note.tags ?? []).map((t) => `#${t}`), ...(note.headings ?? []).map((h) => h.text)].join("\n").toLowerCase();
  return words.every((w) => hay.includes(w));
}

/**
 * TOCView is the Sources view: a source chosen from those the engine
 * holds (the vault, git repositories and folders beside it), its table
 * of contents as the index holds it (folder → note → headings), and a
 * filter. A note or heading opens where it is: a vault note as Obsidian
 * opens it, another source's note read-only.
 */
export class TOCView extends ItemView {
  private sources: SourceInfo[] = [];
  private source = "vault";
  private toc: TOCResult | null = null;
  private filter = "";
  private error = "";
  private loading = 0;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly deps: TOCDeps,
  ) {
    super(leaf);
  }

  override getViewType(): string {
    return TOC_VIEW;
  }

  override getDisplayText(): string {
    return "Sources";
  }

  override getIcon(): string {
    return "list-tree";
  }

  override getState(): Record<string, unknown> {
    return { source: this.source };
  }

  override async setState(state: unknown, result: { history: boolean }): Promise<void> {
    const s = (state ?? {}) as { source?: unknown };
    if (typeof s.source === "string" && s.source !== "") this.source = s.source;
    await super.setState(state, result);
    await this.refresh();
  }

  override async onOpen(): Promise<void> {
    this.contentEl.addClass("quire-toc");
    this.addAction("refresh-cw", "Refresh", () => void this.refresh());
    this.draw();
    // A saved source comes in setState, just after: the vault's table,
    // which may be long to make, is asked for only when none does.
    window.setTimeout(() => {
      if (this.loading === 0) void this.refresh();
    }, 0);
  }

  /** refresh asks the engine for its sources and the chosen one's table of contents; a newer refresh wins. */
  async refresh(): Promise<void> {
    const turn = ++this.loading;
    this.error = "";
    const client = this.deps.client();
    if (!client) {
      this.error = "Quire's engine is not running.";
      this.draw();
      return;
    }
    try {
      const list = await client.request("sources.list", {}, { timeoutMs: 15_000 });
      if (turn !== this.loading) return;
      this.sources = list.sources;
      if (!this.sources.some((s) => s.id === this.source)) this.source = this.sources[0]?.id ?? "vault";
      const toc = await client.request("toc.get", { source: this.source }, { timeoutMs: 30_000 });
      if (turn !== this.loading) return;
      this.toc = toc;
    } catch (err) {
      if (turn !== this.loading) return;
      this.toc = null;
      this.error = `Quire cannot list the sources: ${err instanceof Error ? err.message : String(err)}`;
    }
    this.draw();
  }

  private draw(): void {
    const el = this.contentEl;
    el.empty();
    el.addClass("quire-toc");
    const bar = el.createDiv({ cls: "quire-toc-bar" });
    const select = bar.createEl("select", { cls: "dropdown quire-toc-source", attr: { "aria-label": "Source" } });
    for (const s of this.sources.length > 0 ? this.sources : [{ id: this.source, kind: "vault", notes: 0 } as SourceInfo]) {
      const label = s.id === "vault" ? "Vault" : `${s.id} (${s.kind})`;
      const opt = select.createEl("option", { text: `${label} · ${s.notes.toLocaleString("en-US")} notes`, attr: { value: s.id } });
      if (s.id === this.source) opt.selected = true;
    }
    select.addEventListener("change", () => {
      this.source = select.value;
      this.filter = "";
      void this.refresh();
    });
    const input = bar.createEl("input", { cls: "quire-toc-filter", attr: { type: "search", placeholder: "Filter notes", "aria-label": "Filter notes" } });
    input.value = this.filter;
    input.addEventListener("input", () => {
      this.filter = input.value;
      this.drawTree(tree);
    });
    if (this.error !== "") {
      el.createDiv({ cls: "quire-toc-error", text: this.error });
      return;
    }
    const info = this.sources.find((s) => s.id === this.source);
    const meta = el.createDiv({ cls: "quire-toc-meta" });
    if (this.toc?.revision) {
      const rev = meta.createSpan({ text: `Revision ${this.toc.revision.slice(0, 12)}` });
      rev.setAttribute("title", this.toc.revision);
    }
    if (info?.error) meta.createDiv({ cls: "quire-toc-error", text: `Last sync failed: ${info.error}` });
    if (this.toc?.withheld) meta.createSpan({ text: ` · ${this.toc.withheld} private notes withheld` });
    const tree = el.createDiv({ cls: "quire-toc-tree" });
    this.drawTree(tree);
  }

  private drawTree(tree: HTMLElement): void {
    tree.empty();
    const toc = this.toc;
    if (!toc) return;
    let shown = 0;
    for (const folder of toc.folders) {
      const notes = folder.notes.filter((n) => matches(n, this.filter));
      if (notes.length === 0) continue;
      const details = tree.createEl("details", { cls: "quire-toc-folder" });
      details.open = this.filter !== "" || toc.folders.length <= 5;
      details.createEl("summary", { text: `${folder.folder === "" ? "/" : `${folder.folder}/`} (${notes.length})` });
      const list = details.createEl("ul", { cls: "quire-toc-notes" });
      for (const n of notes) {
        shown++;
        const item = list.createEl("li", { cls: "quire-toc-note" });
        const rel = sourceOf(n.path) ? n.path.slice(n.path.indexOf(":") + 1) : n.path;
        this.link(item, n.title || rel, n.path, null, "quire-toc-note-title");
        item.createSpan({ cls: "quire-toc-note-path", text: ` ${rel.split("/").at(-1) ?? rel}` });
        if (n.tags && n.tags.length > 0) item.createSpan({ cls: "quire-toc-tags", text: ` ${n.tags.map((t) => `#${t}`).join(" ")}` });
        const heads = (n.headings ?? []).filter((h) => h.text !== n.title || h.depth > 1);
        if (heads.length > 0) {
          const hl = item.createEl("ul", { cls: "quire-toc-headings" });
          for (const h of heads) {
            const li = hl.createEl("li", { cls: `quire-toc-depth-${Math.min(h.depth, 6)}` });
            this.link(li, h.text, n.path, h.text, "quire-toc-heading");
          }
        }
      }
    }
    if (shown === 0) tree.createDiv({ cls: "quire-toc-empty", text: this.filter === "" ? "This source has no notes in the index." : "No note matches the filter." });
  }

  /** link draws a keyboard-reachable link that opens path at heading (a new tab with Ctrl/Cmd or the middle button). */
  private link(parent: HTMLElement, text: string, path: string, heading: string | null, cls: string): void {
    const a = parent.createEl("a", { cls, text, attr: { href: "#", "data-path": path } });
    a.addEventListener("click", (evt) => {
      evt.preventDefault();
      this.deps.open(path, heading, evt.ctrlKey || evt.metaKey);
    });
    a.addEventListener("auxclick", (evt) => {
      if (evt.button !== 1) return;
      evt.preventDefault();
      this.deps.open(path, heading, true);
    });
  }
}
