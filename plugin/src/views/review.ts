import { type FileManager, ItemView, type MetadataCache, TFile, type Vault, type Workspace, type WorkspaceLeaf } from "obsidian";

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
  /** status is "open", or "resolved" or "dismissed" once the user said so (recorded in the note). */
  status: ReviewStatus;
}

/** ReviewStatus is where a review item stands. */
export type ReviewStatus = "open" | "resolved" | "dismissed";

/** ReviewDeps is what the review view needs; main.ts builds it. */
export interface ReviewDeps {
  vault: Pick<Vault, "getMarkdownFiles" | "on" | "cachedRead">;
  metadataCache: Pick<MetadataCache, "getFileCache">;
  /** folder is the generated-notes folder now ("Quire" unless configured). */
  folder(): string;
  /** openNote opens a vault note. */
  openNote(path: string, newLeaf: boolean): void;
  /** mark records a decision in the review note's frontmatter (Quire wrote the note; the user's own notes are never touched). */
  mark?(path: string, status: Exclude<ReviewStatus, "open">): Promise<void>;
}

/** reviewFolder is where review items live for a generated-notes folder. */
export function reviewFolder(folder: string): string {
  const f = folder.trim().replace(/^\/+|\/+$/g, "");
  return `${f === "" ? "Quire" : f}/Review/`;
}

/** HASH_LINE is the frontmatter line that seals a page Quire wrote, as the engine writes and checks it (compile.seal). */
const HASH_LINE = /^quire_hash: ?"?([0-9a-f]*)"?$/m;

/** sha256 is the hex SHA-256 of text's UTF-8 bytes. */
async function sha256(text: string): Promise<string> {
  const sum = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(sum), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** unsealed is text with every quire_hash value emptied, as the engine took the hash. */
function unsealed(text: string): string {
  return text.replace(new RegExp(HASH_LINE.source, "gm"), 'quire_hash: ""');
}

/**
 * quireReview reports whether text is a review note as Quire wrote it (or
 * as markReview left it): marked generated, of kind review, and sealed by
 * a quire_hash that matches its bytes. A note that only says so proves
 * nothing; the user's notes under Review/ are neither listed nor changed.
 */
export async function quireReview(text: string): Promise<boolean> {
  const front = /^---\n([\s\S]*?)\n---\n/.exec(text)?.[1] ?? "";
  const hash = HASH_LINE.exec(front)?.[1] ?? "";
  if (!/^quire: generated$/m.test(front) || !/^quire_kind: review$/m.test(front) || hash.length !== 64) return false;
  return (await sha256(unsealed(text))) === hash;
}

/** reseal puts the quire_hash of text's bytes into it, as the engine seals a page. */
export async function reseal(text: string): Promise<string> {
  const hash = await sha256(unsealed(text));
  return text.replace(HASH_LINE, `quire_hash: ${hash}`);
}

/**
 * markReview records a decision in a review note's frontmatter (status and
 * the day) and seals it again, so that it stays provably Quire's. A note
 * that is not one of Quire's review notes is refused, unchanged.
 */
export async function markReview(
  deps: { vault: Pick<Vault, "getAbstractFileByPath" | "cachedRead" | "read" | "modify">; fileManager: Pick<FileManager, "processFrontMatter"> },
  path: string,
  status: Exclude<ReviewStatus, "open">,
): Promise<void> {
  const f = deps.vault.getAbstractFileByPath(path);
  if (!(f instanceof TFile)) throw new Error(`${path} is not in the vault`);
  if (!(await quireReview(await deps.vault.read(f)))) throw new Error(`${path} is not a review note Quire wrote`);
  await deps.fileManager.processFrontMatter(f, (fm: Record<string, unknown>) => {
    fm["status"] = status;
    fm["decided"] = new Date().toISOString().slice(0, 10);
  });
  await deps.vault.modify(f, await reseal(await deps.vault.read(f)));
}

/** listReview lists Quire's review notes under the folder (quireReview), newest name last, with their reason from the frontmatter. */
export async function listReview(deps: Pick<ReviewDeps, "vault" | "metadataCache" | "folder">): Promise<ReviewItem[]> {
  const prefix = reviewFolder(deps.folder());
  const items: ReviewItem[] = [];
  for (const f of deps.vault.getMarkdownFiles()) {
    if (!f.path.startsWith(prefix)) continue;
    let text: string;
    try {
      text = await deps.vault.cachedRead(f);
    } catch {
      continue; // gone since it was listed
    }
    if (!(await quireReview(text))) continue;
    const fm = (deps.metadataCache.getFileCache(f)?.frontmatter ?? {}) as Record<string, unknown>;
    items.push({
      path: f.path,
      title: f.basename,
      reason: typeof fm["reason"] === "string" ? fm["reason"] : "",
      about: typeof fm["about"] === "string" ? fm["about"] : "",
      status: fm["status"] === "resolved" || fm["status"] === "dismissed" ? fm["status"] : "open",
    });
  }
  return items.sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * ReviewView lists the review items: notes Quire wrote under
 * <folder>/Review/ about what it would not decide alone. Resolve and
 * Dismiss record the decision in the item's frontmatter (status); the
 * list shows open items unless asked for all, and follows the vault.
 */
export class ReviewView extends ItemView {
  private items: ReviewItem[] = [];
  private timer: number | null = null;
  /** showAll lists resolved and dismissed items too; by default only open ones show. */
  private showAll = false;
  /** seq numbers refreshes, so that only the latest draws. */
  private seq = 0;

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
    this.registerEvent(this.deps.vault.on("create", later));
    this.registerEvent(this.deps.vault.on("delete", later));
    this.registerEvent(this.deps.vault.on("rename", later));
    this.registerEvent(this.deps.vault.on("modify", later));
    this.register(() => {
      if (this.timer !== null) window.clearTimeout(this.timer);
    });
    await this.refresh();
  }

  /** refreshSoon lists again after a burst of vault events settles (metadata is parsed by then). */
  refreshSoon(): void {
    if (this.timer !== null) window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => {
      this.timer = null;
      void this.refresh();
    }, 300);
  }

  /** refresh lists the review items now; a later refresh supersedes one still reading. */
  async refresh(): Promise<void> {
    const seq = ++this.seq;
    const items = await listReview(this.deps);
    if (seq !== this.seq) return;
    this.items = items;
    this.draw();
  }

  /** draw shows the items listed. */
  private draw(): void {
    const el = this.contentEl;
    el.empty();
    const open = this.items.filter((it) => it.status === "open");
    const shown = this.showAll ? this.items : open;
    const bar = el.createDiv({ cls: "quire-review-bar" });
    bar.createSpan({ cls: "quire-review-count", text: `${open.length} open ${open.length === 1 ? "item" : "items"}`, attr: { "aria-live": "polite" } });
    if (this.items.length > open.length) {
      const toggle = bar.createEl("button", { cls: "quire-review-filter", text: this.showAll ? "Show open only" : `Show all (${this.items.length})`, attr: { "aria-pressed": String(this.showAll) } });
      toggle.addEventListener("click", () => {
        this.showAll = !this.showAll;
        this.draw();
      });
    }
    if (shown.length === 0) {
      el.createDiv({ cls: "quire-review-empty", text: `Nothing to review. Items Quire would not decide alone appear here (${reviewFolder(this.deps.folder())}).` });
      return;
    }
    const list = el.createDiv({ cls: "quire-review-list", attr: { role: "list", "aria-label": "Review items" } });
    const heads: HTMLElement[] = [];
    shown.forEach((it, i) => {
      const row = list.createDiv({ cls: `quire-review-item is-${it.status}`, attr: { role: "listitem", "data-path": it.path } });
      const title = row.createEl("button", { cls: "quire-review-title", text: it.title, attr: { tabindex: i === 0 ? 0 : -1, "aria-label": `Open ${it.title}` } });
      heads.push(title);
      if (it.reason) row.createDiv({ cls: "quire-review-reason", text: it.reason });
      if (it.about) {
        const about = row.createEl("button", { cls: "quire-review-about", text: `About ${it.about.replace(/\.md$/, "")}` });
        about.addEventListener("click", (evt) => this.deps.openNote(it.about, evt.ctrlKey || evt.metaKey));
      }
      const actions = row.createDiv({ cls: "quire-review-actions" });
      if (it.status === "open" && this.deps.mark) {
        for (const [status, label] of [
          ["resolved", "Resolve"],
          ["dismissed", "Dismiss"],
        ] as const) {
          const b = actions.createEl("button", { cls: `quire-review-${status === "resolved" ? "resolve" : "dismiss"}`, text: label, attr: { "aria-label": `${label}: ${it.title}` } });
          b.addEventListener("click", () => void this.mark(it, status, b));
        }
      } else if (it.status !== "open") {
        actions.createSpan({ cls: "quire-review-status", text: it.status === "resolved" ? "Resolved" : "Dismissed" });
      }
      title.addEventListener("click", (evt) => this.deps.openNote(it.path, evt.ctrlKey || evt.metaKey));
      title.addEventListener("keydown", (evt) => {
        if (evt.key !== "ArrowDown" && evt.key !== "ArrowUp") return;
        evt.preventDefault();
        const to = Math.max(0, Math.min(heads.length - 1, i + (evt.key === "ArrowDown" ? 1 : -1)));
        heads.forEach((h, j) => h.setAttr("tabindex", j === to ? 0 : -1));
        heads[to]?.focus();
      });
    });
  }

  private async mark(it: ReviewItem, status: Exclude<ReviewStatus, "open">, btn: HTMLButtonElement): Promise<void> {
    btn.disabled = true;
    try {
      await this.deps.mark?.(it.path, status);
      // The metadata cache learns of the change a moment later.
      this.refreshSoon();
    } catch (err) {
      btn.disabled = false;
      console.warn("quire: review", it.path, err);
    }
  }
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
