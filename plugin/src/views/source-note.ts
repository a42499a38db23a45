import { Component, ItemView, type ViewStateResult, type Workspace, type WorkspaceLeaf } from "obsidian";
import type { NoteResult } from "../../../proto/proto.gen";
import { lineAtByte } from "../passage";
import type { Client } from "../sidecar/client";
import { sourceOf } from "../sidecar/sourcekeys";

/** SOURCE_NOTE_VIEW is the type of the read-only view of another source's note. */
export const SOURCE_NOTE_VIEW = "quire-source-note";

/** SourceNoteState is what the view shows, kept in the workspace layout: a note's key ("ops:runbooks/deploy.md") and a byte offset in it. */
export interface SourceNoteState {
  key: string;
  start: number;
  /** heading, when set, is the heading to show (the table of contents names one), instead of the one above start. */
  heading?: string;
}

/** SourceNoteDeps is what the view needs; main.ts builds it. */
export interface SourceNoteDeps {
  /** client is the connected engine's client, null while offline. */
  client(): Client | null;
  /** render draws Markdown as Obsidian's reading view does (MarkdownRenderer.render). */
  render(md: string, el: HTMLElement, sourcePath: string, component: Component): Promise<void>;
}

/**
 * openSourceNote shows another source's note, read-only, at the byte
 * offset start: in the current tab (a vault note opens there too) or a
 * new one. It is never opened as a file of the vault.
 */
export async function openSourceNote(workspace: Pick<Workspace, "getLeaf" | "revealLeaf">, key: string, start: number, newLeaf = false, heading?: string): Promise<void> {
  const leaf = workspace.getLeaf(newLeaf ? "tab" : false);
  const state: SourceNoteState = heading ? { key, start, heading } : { key, start };
  await leaf.setViewState({ type: SOURCE_NOTE_VIEW, active: true, state: { ...state } });
  await workspace.revealLeaf(leaf);
}

/**
 * fetchSourceNote reads another source's note from the engine, as its
 * index holds it (a git source's at the revision indexed). An engine that
 * answers without the source asked read a vault path of that name and
 * is refused: it is too old to read other sources.
 */
export async function fetchSourceNote(client: Client | null, key: string): Promise<NoteResult> {
  const source = sourceOf(key);
  if (!source) throw new Error(`${key} is not a note of another source`);
  if (!client) throw new Error("Quire's engine is not running");
  const res = await client.request("note.get", { source, path: key.slice(source.length + 1) }, { timeoutMs: 15_000 });
  if (res.source !== source) throw new Error("this engine cannot read the notes of other sources; upgrade it");
  return res;
}

/** Heading is a Markdown heading line: its depth (1-6), text, its index among the note's headings and its line. */
interface Heading {
  depth: number;
  text: string;
  index: number;
  line: number;
}

/** HeadingsAt is a heading path, outermost first, and the index of its innermost heading (-1 for none). */
interface HeadingsAt {
  path: Heading[];
  index: number;
}

/**
 * headingLines lists a note's headings as a renderer draws them: not in
 * the frontmatter, not in fenced code.
 */
function headingLines(text: string): Heading[] {
  const lines = text.split("\n");
  const out: Heading[] = [];
  let fence = "";
  let i = 0;
  if (lines[0]?.trimEnd() === "---") {
    const end = lines.findIndex((l, j) => j > 0 && /^(---|\.\.\.)\s*$/.test(l));
    if (end > 0) i = end + 1;
  }
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (fence === "") fence = f[1]!;
      else if (f[1]!.startsWith(fence)) fence = "";
      continue;
    }
    const h = fence === "" ? /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line) : null;
    if (h) out.push({ depth: h[1]!.length, text: h[2]!, index: out.length, line: i });
  }
  return out;
}

/** pathAt is the heading path above line among headings. */
function pathAt(headings: Heading[], line: number): HeadingsAt {
  const path: Heading[] = [];
  for (const h of headings) {
    if (h.line > line) break;
    while (path.length > 0 && path.at(-1)!.depth >= h.depth) path.pop();
    path.push(h);
  }
  return { path, index: path.at(-1)?.index ?? -1 };
}

/**
 * headingsAt returns the heading path above the line holding byte offset
 * start and the index of its innermost heading among all the note's
 * headings, counted as a renderer draws them.
 */
export function headingsAt(text: string, start: number): HeadingsAt {
  return pathAt(headingLines(text), lineAtByte(text, start));
}

/** headingNamed is headingsAt at the first heading whose text is heading (none when no heading is). */
export function headingNamed(text: string, heading: string): HeadingsAt {
  const all = headingLines(text);
  const h = all.find((x) => x.text === heading);
  return h ? pathAt(all, h.line) : { path: [], index: -1 };
}

/** frontmatterEnd is the offset (UTF-16) where text's body begins, after a leading YAML frontmatter. */
function frontmatterEnd(text: string): number {
  const m = /^---\r?\n[\s\S]*?\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(text);
  return m ? m[0].length : 0;
}

/**
 * SourceNoteView shows a note of a git repository or folder configured
 * beside the vault: its text rendered as Obsidian renders Markdown, the
 * heading path of the passage opened marked and scrolled to, and the
 * source's id and the revision the text is from. Nothing in it edits or
 * creates a file: a link inside it opens the source's note it names, in
 * this view, never a vault note of that name.
 */
export class SourceNoteView extends ItemView {
  private state: SourceNoteState = { key: "", start: 0 };
  private note: NoteResult | null = null;
  private render: Component | null = null;
  private shown = 0;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly deps: SourceNoteDeps,
  ) {
    super(leaf);
  }

  override getViewType(): string {
    return SOURCE_NOTE_VIEW;
  }

  override getDisplayText(): string {
    const source = sourceOf(this.state.key);
    if (!source) return "Source note";
    const name = this.state.key.slice(source.length + 1).split("/").at(-1)!.replace(/\.md$/i, "");
    return `${name} (${source})`;
  }

  override getIcon(): string {
    return "git-branch";
  }

  override getState(): Record<string, unknown> {
    return { ...this.state };
  }

  override async setState(state: unknown, result: ViewStateResult): Promise<void> {
    const s = (state ?? {}) as Partial<SourceNoteState>;
    if (typeof s.key === "string") {
      this.state = { key: s.key, start: typeof s.start === "number" ? s.start : 0 };
      if (typeof s.heading === "string" && s.heading !== "") this.state.heading = s.heading;
    }
    await super.setState(state, result);
    await this.show();
  }

  override async onOpen(): Promise<void> {
    this.contentEl.addClass("quire-source-note");
    if (this.state.key !== "") await this.show();
  }

  override async onClose(): Promise<void> {
    this.render?.unload();
    this.render = null;
  }

  /** show reads the note from the engine and draws it; a newer show wins over one still reading. */
  async show(): Promise<void> {
    const turn = ++this.shown;
    const { key, start, heading } = this.state;
    const el = this.contentEl;
    el.empty();
    el.addClass("quire-source-note");
    el.createDiv({ cls: "quire-source-note-loading", text: "Reading the note…" });
    let note: NoteResult;
    try {
      note = await fetchSourceNote(this.deps.client(), key);
    } catch (err) {
      if (turn !== this.shown) return;
      el.empty();
      el.createDiv({ cls: "quire-source-note-error", text: `Quire cannot show ${key}: ${err instanceof Error ? err.message : String(err)}` });
      return;
    }
    if (turn !== this.shown) return;
    this.note = note;
    el.empty();
    const source = sourceOf(key) ?? "";
    const rel = key.slice(source.length + 1);
    const head = el.createDiv({ cls: "quire-source-note-meta" });
    head.createSpan({ cls: "quire-source-note-badge", text: "Read-only" });
    head.createSpan({ text: ` Source ${source}` });
    if (note.revision) {
      const rev = head.createSpan({ text: ` · revision ${note.revision.slice(0, 12)}` });
      rev.setAttribute("title", note.revision);
    }
    head.createSpan({ cls: "quire-source-note-path", text: ` · ${rel}` });
    const { path, index } = heading ? headingNamed(note.text, heading) : headingsAt(note.text, start);
    if (path.length > 0) {
      el.createDiv({ cls: "quire-source-note-crumb", text: path.map((h) => h.text).join(" › ") });
    }
    const body = el.createDiv({ cls: "quire-source-note-body markdown-rendered markdown-preview-view" });
    if (this.render) this.removeChild(this.render);
    const render = (this.render = this.addChild(new Component()));
    await this.deps.render(note.text.slice(frontmatterEnd(note.text)), body, key, render);
    if (turn !== this.shown) return;
    this.keepLinksInSource(render, body, source, rel);
    const headings = Array.from(body.querySelectorAll<HTMLElement>("h1, h2, h3, h4, h5, h6"));
    const innermost = path.at(-1);
    let target = index >= 0 ? headings[index] : undefined;
    if (innermost && target?.textContent?.trim() !== innermost.text.replace(/[*_`]/g, "").trim()) {
      target = headings.find((h) => h.textContent?.trim() === innermost.text.trim());
    }
    if (target) {
      target.addClass("quire-source-note-target");
      target.setAttribute("tabindex", "-1");
      target.scrollIntoView({ block: "start" });
    }
  }

  /**
   * keepLinksInSource makes a link inside the note open the note of this
   * source it names (resolved against the note's folder, ".md" added),
   * in this view: Obsidian would otherwise open, or create, a vault note
   * of that name.
   */
  private keepLinksInSource(render: Component, body: HTMLElement, source: string, rel: string): void {
    render.registerDomEvent(
      body,
      "click",
      (evt) => {
        const a = (evt.target as HTMLElement | null)?.closest?.("a.internal-link");
        if (!a) return;
        evt.preventDefault();
        evt.stopPropagation();
        const href = (a.getAttribute("data-href") ?? a.getAttribute("href") ?? "").split("#")[0]!.trim();
        if (href === "") return;
        const dir = rel.includes("/") ? rel.slice(0, rel.lastIndexOf("/") + 1) : "";
        const target = resolveIn(dir, /\.[a-z0-9]+$/i.test(href) ? href : `${href}.md`);
        const state: SourceNoteState = { key: `${source}:${target}`, start: 0 };
        void this.leaf.setViewState({ type: SOURCE_NOTE_VIEW, active: true, state: { ...state } });
      },
      { capture: true },
    );
  }

  /** noteForTest is the note shown, for tests. */
  get noteForTest(): NoteResult | null {
    return this.note;
  }
}

/** resolveIn resolves a relative link target against dir ("a/b/"), dropping "." and ".." parts; an absolute one ("/x.md") is taken from the root. */
export function resolveIn(dir: string, href: string): string {
  const parts = (href.startsWith("/") ? href : dir + href).split("/");
  const out: string[] = [];
  for (const p of parts) {
    if (p === "" || p === ".") continue;
    if (p === "..") out.pop();
    else out.push(p);
  }
  return out.join("/");
}
