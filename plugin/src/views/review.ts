import { type EventRef, ItemView, type MetadataCache, type Vault, type Workspace, type WorkspaceLeaf } from "obsidian";

/** REVIEW_VIEW is the review list view's type. */
export const REVIEW_VIEW = "quire-review";

/** ReviewItem is one open review note. */
export interface ReviewItem {
  path: string;
  title: string;
  /** reason says what to look at (the note's `reason` frontmatter). */
  reason: string;
  /** about is the note the item concerns, if any. */
  about: string;
}

/** ReviewDeps is what the review view needs; main.ts builds it. */
export interface ReviewDeps {
  vault: Pick<Vault, "getMarkdownFiles" | "on" | "offref">;
  metadataCache: Pick<MetadataCache, "getFileCache">;
  /** folder is the generated-notes folder now ("Quire" unless configured). */
  folder(): string;
  /** openNote opens a vault note. */
  openNote(path: string, newLeaf: boolean): void;
}

/** reviewFolder is where review items live for a generated-notes folder. */
export function reviewFolder(folder: string): string {
  const f = folder.trim().replace(/^\/+|\/+$/g, "");
  return `${f === "" ? "Quire" : f}/Review/`;
}

/** listReview lists the review notes under the folder, newest name last, with their reason from the frontmatter. */
export function listReview(deps: Pick<ReviewDeps, "vault" | "metadataCache" | "folder">): ReviewItem[] {
  const prefix = reviewFolder(deps.folder());
  return deps.vault
    .getMarkdownFiles()
    .filter((f) => f.path.startsWith(prefix))
    .map((f) => {
      const fm = (deps.metadataCache.getFileCache(f)?.frontmatter ?? {}) as Record<string, unknown>;
      return {
        path: f.path,
        title: f.basename,
        reason: typeof fm["reason"] === "string" ? fm["reason"] : "",
        about: typeof fm["about"] === "string" ? fm["about"] : "",
      };
    })
    .sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * ReviewView lists the open review items: notes the sidecar wrote under
 * <folder>/Review/ about what it would not decide alone. Deleting or
 * moving a note out of the folder closes the item; the list follows the
 * vault's events.
 */
export class ReviewView extends ItemView {
  private items: ReviewItem[] = [];
  private timer: number | null = null;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly deps: ReviewDeps,
  ) {
    super(leaf);
  }

  override getViewType(): string {
    return REVIEW_VIEW;
  }

  override getDisplayText(): string {
    return "Quire review";
  }

  override getIcon(): string {
    return "list-checks";
  }

  /** current is the list shown, for tests. */
  get current(): readonly ReviewItem[] {
    return this.items;
  }

  override async onOpen(): Promise<void> {
    this.contentEl.addClass("quire-review");
    const later = () => this.refreshSoon();
    const refs: EventRef[] = [
      this.deps.vault.on("create", later),
      this.deps.vault.on("delete", later),
      this.deps.vault.on("rename", later),
      this.deps.vault.on("modify", later),
    ];
    this.register(() => {
      for (const r of refs) this.deps.vault.offref(r);
      if (this.timer !== null) window.clearTimeout(this.timer);
    });
    this.refresh();
  }

  /** refreshSoon lists again after a burst of vault events settles (metadata is parsed by then). */
  refreshSoon(): void {
    if (this.timer !== null) window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => {
      this.timer = null;
      this.refresh();
    }, 300);
  }

  /** refresh lists the review items now. */
  refresh(): void {
    this.items = listReview(this.deps);
    const el = this.contentEl;
    el.empty();
    if (this.items.length === 0) {
      el.createDiv({ cls: "quire-review-empty", text: `Nothing to review. Items Quire would not decide alone appear here (${reviewFolder(this.deps.folder())}).` });
      return;
    }
    el.createDiv({ cls: "quire-review-count", text: `${this.items.length} open ${this.items.length === 1 ? "item" : "items"}` });
    const list = el.createDiv({ cls: "quire-review-list" });
    for (const it of this.items) {
      const row = list.createDiv({ cls: "quire-review-item" });
      row.setAttr("data-path", it.path);
      row.setAttr("tabindex", "0");
      row.createDiv({ cls: "quire-review-title", text: it.title });
      if (it.reason) row.createDiv({ cls: "quire-review-reason", text: it.reason });
      if (it.about) {
        const about = row.createDiv({ cls: "quire-review-about", text: `About ${it.about.replace(/\.md$/, "")}` });
        about.addEventListener("click", (evt) => {
          evt.stopPropagation();
          this.deps.openNote(it.about, evt.ctrlKey || evt.metaKey);
        });
      }
      const open = (evt: MouseEvent | KeyboardEvent) => this.deps.openNote(it.path, evt.ctrlKey || evt.metaKey);
      row.addEventListener("click", open);
      row.addEventListener("keydown", (evt) => {
        if (evt.key === "Enter") open(evt);
      });
    }
  }
}

/** openReviewView shows the review list in the right sidebar, creating it when needed. */
export async function openReviewView(workspace: Workspace): Promise<void> {
  let leaf = workspace.getLeavesOfType(REVIEW_VIEW)[0] ?? null;
  if (!leaf) {
    leaf = workspace.getRightLeaf(false);
    if (!leaf) return;
    await leaf.setViewState({ type: REVIEW_VIEW, active: true });
  }
  await workspace.revealLeaf(leaf);
}

/**
 * refreshReviewViews refreshes every loaded review view. A review leaf in a
 * sidebar tab not shown yet holds a DeferredView (Obsidian 1.7.2+), which
 * is no ReviewView: it lists afresh when it is first shown.
 */
export function refreshReviewViews(workspace: Pick<Workspace, "getLeavesOfType">): void {
  for (const leaf of workspace.getLeavesOfType(REVIEW_VIEW)) {
    if (leaf.view instanceof ReviewView) leaf.view.refreshSoon();
  }
}
