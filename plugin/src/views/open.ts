import { MarkdownView, type MetadataCache, Notice, TFile, type Vault, type Workspace, getAllTags } from "obsidian";
import { isPDF, lineAtByte } from "../passage";
import { sourceOf } from "../sidecar/sourcekeys";
import { openSourceNote } from "./source-note";

/** NoteOpener opens notes at passages and names them in links; the related view, Ask, search and citation hovers use it. */
export class NoteOpener {
  constructor(
    private readonly deps: {
      vault: Vault;
      workspace: Workspace;
      metadataCache: MetadataCache;
      /** sourceText reads another source's note from the engine (the vault's are read from the vault); absent, such a note has no text here. */
      sourceText?: (key: string) => Promise<string>;
    },
  ) {}

  /** has reports whether path is a note in the vault. */
  has(path: string): boolean {
    return this.deps.vault.getAbstractFileByPath(path) instanceof TFile;
  }

  /** tags are a note's tags without "#", from the metadata cache (none when it has no cache yet, or is no note). */
  tags(path: string): string[] {
    const f = this.deps.vault.getAbstractFileByPath(path);
    const cache = f instanceof TFile ? this.deps.metadataCache.getFileCache(f) : null;
    return cache ? (getAllTags(cache) ?? []).map((t) => t.replace(/^#/, "")) : [];
  }

  /** linkText is the text of a link to path from the note at sourcePath, as Obsidian would write it (the path without ".md" for a note it does not know). */
  linkText(path: string, sourcePath: string): string {
    const f = this.deps.vault.getAbstractFileByPath(path);
    return f instanceof TFile ? this.deps.metadataCache.fileToLinktext(f, sourcePath, true) : path.replace(/\.md$/, "");
  }

  /** read returns a note's current text from the vault (not the sidecar's copy); another source's note comes from the engine, as its index holds it. */
  async read(path: string): Promise<string> {
    if (sourceOf(path)) {
      if (!this.deps.sourceText) throw new Error(`${path} is not in the vault`);
      return this.deps.sourceText(path);
    }
    const file = this.deps.vault.getAbstractFileByPath(path);
    if (!(file instanceof TFile)) throw new Error(`${path} is not in the vault`);
    return this.deps.vault.cachedRead(file);
  }

  /**
   * openNote opens a note the sidecar just wrote. Obsidian learns of a file
   * written from outside a moment later, so it waits for it a little.
   */
  async openNote(path: string, newLeaf = false, waitMs = 5000): Promise<void> {
    const deadline = Date.now() + waitMs;
    let file = this.deps.vault.getAbstractFileByPath(path);
    while (!(file instanceof TFile) && Date.now() < deadline) {
      await new Promise((r) => window.setTimeout(r, 100));
      file = this.deps.vault.getAbstractFileByPath(path);
    }
    if (!(file instanceof TFile)) {
      new Notice(`Quire: ${path} is not in the vault (yet).`);
      return;
    }
    await this.deps.workspace.getLeaf(newLeaf ? "tab" : false).openFile(file, { active: true });
  }

  /**
   * open opens path with the line holding byte offset start at the top
   * and the cursor on it. newLeaf opens a new tab. A PDF opens at page
   * (Obsidian's PDF viewer follows "file.pdf#page=N"). Another source's
   * note opens read-only in Quire's view, never as a vault file.
   */
  async open(path: string, start: number, newLeaf = false, page?: number): Promise<void> {
    if (sourceOf(path)) {
      await openSourceNote(this.deps.workspace, path, start, newLeaf);
      return;
    }
    const file = this.deps.vault.getAbstractFileByPath(path);
    if (!(file instanceof TFile)) {
      new Notice(`Quire: ${path} is no longer in the vault.`);
      return;
    }
    if (isPDF(path)) {
      await this.deps.workspace.openLinkText(`${path}#page=${page ?? 1}`, "", newLeaf ? "tab" : false);
      return;
    }
    const line = lineAtByte(await this.deps.vault.cachedRead(file), start);
    const leaf = this.deps.workspace.getLeaf(newLeaf ? "tab" : false);
    await leaf.openFile(file, { active: true, eState: { line } });
    const view = leaf.view;
    if (view instanceof MarkdownView) {
      const pos = { line, ch: 0 };
      view.editor.setCursor(pos);
      view.editor.scrollIntoView({ from: pos, to: pos }, true);
    }
  }
}

/** openAt opens a note at a heading (its top when heading is null): a vault note as a link "path#heading" opens, another source's read-only. */
export async function openAt(workspace: Workspace, path: string, heading: string | null, newLeaf: boolean): Promise<void> {
  if (sourceOf(path)) {
    await openSourceNote(workspace, path, 0, newLeaf, heading ?? undefined);
    return;
  }
  await workspace.openLinkText(heading ? `${path}#${heading}` : path, "", newLeaf ? "tab" : false);
}

/** openSidebarView shows the view of type in the right sidebar, creating its leaf when there is none. */
export async function openSidebarView(workspace: Workspace, type: string): Promise<void> {
  let leaf = workspace.getLeavesOfType(type)[0] ?? null;
  if (!leaf) {
    leaf = workspace.getRightLeaf(false);
    if (!leaf) return;
    await leaf.setViewState({ type, active: true });
  }
  await workspace.revealLeaf(leaf);
}
