import { type App, Modal } from "obsidian";
import type { SkippedFile } from "../../../proto/proto.gen";
import { type IndexSnapshot, indexingPercent, percent, statusBarText, vectorPercent } from "../sidecar/status";

/** StatusBarDeps is what the status bar item needs. */
export interface StatusBarDeps {
  el: HTMLElement;
  tracker: { readonly snapshot: IndexSnapshot; onChange(cb: (s: IndexSnapshot) => void): () => void };
}

/**
 * StatusBar keeps the status bar item's text in step with the sidecar. It
 * returns its unsubscribe from bind, for the plugin to register.
 */
export class StatusBar {
  constructor(private readonly deps: StatusBarDeps) {
    deps.el.addClass("quire-status");
    deps.el.setAttr("aria-label", "Quire status: click for details");
  }

  /** bind draws now and on every change; it returns the unsubscribe. */
  bind(): () => void {
    this.draw(this.deps.tracker.snapshot);
    return this.deps.tracker.onChange((s) => this.draw(s));
  }

  private draw(s: IndexSnapshot): void {
    const el = this.deps.el;
    el.setText(statusBarText(s));
    el.toggleClass("is-offline", s.state === "offline");
    el.toggleClass("is-busy", s.state === "online" && indexingPercent(s) !== null);
  }
}

/** StatusDeps is what the status view needs. */
export interface StatusDeps {
  tracker: StatusBarDeps["tracker"] & { refresh(): Promise<void> };
  /** rebuild asks the sidecar to rebuild the index. */
  rebuild(): Promise<void>;
  /** start starts or reconnects the sidecar. */
  start(): Promise<void>;
}

const count = new Intl.NumberFormat("en-US");

/**
 * StatusModal is the small status view the status bar opens: index
 * coverage, vectors, skipped files with their reasons and warnings.
 */
export class StatusModal extends Modal {
  private unsub: (() => void) | null = null;

  constructor(
    app: App,
    private readonly deps: StatusDeps,
  ) {
    super(app);
  }

  override onOpen(): void {
    this.modalEl.addClass("quire-status-modal");
    this.titleEl.setText("Quire status");
    this.render(this.deps.tracker.snapshot);
    this.unsub = this.deps.tracker.onChange((s) => this.render(s));
    void this.deps.tracker.refresh();
  }

  override onClose(): void {
    this.unsub?.();
    this.unsub = null;
    this.contentEl.empty();
  }

  /** render draws the snapshot; exported through the modal for tests. */
  render(s: IndexSnapshot): void {
    const el = this.contentEl;
    el.empty();
    el.addClass("quire-status-view");
    const summary = el.createDiv({ cls: "quire-status-summary", text: statusBarText(s) });
    summary.toggleClass("is-offline", s.state === "offline");
    if (s.state === "offline") {
      el.createDiv({ cls: "quire-status-line", text: s.offlineReason });
      const btn = el.createEl("button", { cls: "mod-cta", text: "Start sidecar" });
      btn.addEventListener("click", () => void this.deps.start());
    }
    const st = s.status;
    if (st) {
      const table = el.createEl("table", { cls: "quire-status-table" });
      const row = (k: string, v: string) => {
        const tr = table.createEl("tr");
        tr.createEl("th", { text: k });
        tr.createEl("td", { text: v });
      };
      row("Notes", count.format(st.notes));
      row("Passages", count.format(st.chunks));
      const c = st.coverage;
      const v = vectorPercent(s);
      row(
        "Vectors",
        c.vectorsTotal > 0
          ? `${count.format(c.vectorsDone)} / ${count.format(c.vectorsTotal)} passages (${v ?? percent(c.vectorsDone, c.vectorsTotal)}%)`
          : "no embedder: keyword search only",
      );
      if (st.fingerprint.embedder) row("Embedder", st.fingerprint.dims > 0 ? `${st.fingerprint.embedder} (${st.fingerprint.dims} dims)` : st.fingerprint.embedder);
      row("Chunking", st.fingerprint.chunking);
      const langs = Object.entries(st.languages)
        .filter((e): e is [string, number] => typeof e[1] === "number")
        .sort((a, b) => b[1] - a[1])
        .map(([l, n]) => `${l} ${count.format(n)}`)
        .join(", ");
      if (langs) row("Languages", langs);
      row("Last indexed", st.lastIndexed ? new Date(st.lastIndexed).toLocaleString() : "not yet");
      row("Sidecar", `version ${st.version}`);
      if (s.progress && s.progress.done < s.progress.total) {
        row("Running", `${s.progress.phase} ${count.format(s.progress.done)} / ${count.format(s.progress.total)}`);
      }
      this.fileList(el, "Skipped files", st.skipped);
      this.fileList(el, "Indexed with warnings", st.warnings);
      const btn = el.createEl("button", { cls: "quire-status-rebuild", text: "Rebuild index" });
      btn.addEventListener("click", () => void this.deps.rebuild());
    }
    if (s.warnings.length > 0) {
      el.createEl("h3", { text: "Sidecar warnings" });
      const ul = el.createEl("ul", { cls: "quire-status-warnings" });
      for (const w of [...s.warnings].reverse()) ul.createEl("li", { text: w.message });
    }
  }

  private fileList(el: HTMLElement, title: string, files: readonly SkippedFile[] | null | undefined): void {
    const list = files ?? [];
    el.createEl("h3", { text: `${title} (${list.length})` });
    if (list.length === 0) {
      el.createDiv({ cls: "quire-status-line", text: "None." });
      return;
    }
    const ul = el.createEl("ul", { cls: "quire-status-files" });
    for (const f of list) {
      const li = ul.createEl("li");
      li.createSpan({ cls: "quire-status-path", text: f.path });
      li.createSpan({ cls: "quire-status-reason", text: ` — ${f.reason}` });
    }
  }
}
