import { type App, Modal } from "obsidian";
import type { QueueItem, SkippedFile } from "../../../proto/proto.gen";
import { plainReason } from "../ingest";
import { SOURCE_TEXT } from "../sidecar/locate";
import { type EngineInfo, type EngineProblem, problemAction } from "../sidecar/lifecycle";
import { type IndexSnapshot, percent, statusBarText, timeLeft, vectorPercent, vectorsLeft } from "../sidecar/status-tracker";
import type { IngestFollower, StatusBarDeps } from "../views/status-bar";

/** StatusDeps is what the status view needs. */
export interface StatusDeps {
  tracker: StatusBarDeps["tracker"] & { refresh(): Promise<void> };
  /** rebuild asks the sidecar to rebuild the index. */
  rebuild(): Promise<void>;
  /** start starts or reconnects the sidecar. */
  start(): Promise<void>;
  /** queue lists the ingest queue (queue.list), oldest first. */
  queue?(): Promise<QueueItem[]>;
  /** ingest tells the view when items move, to list the queue again. */
  ingest?: IngestFollower;
  /** model says which language model answers, or null when unknown. */
  model?(): string | null;
  /** engine describes the engine (version, where it came from), or null before any. */
  engine?(): EngineInfo | null;
  /** problem is why no engine can start (missing, another version), or null. */
  problem?(): EngineProblem | null;
  /** setup opens the first-run panel for a problem. */
  setup?: (p: EngineProblem) => void;
}

// The system locale, as the dates beside these numbers use.
const count = new Intl.NumberFormat();
const rate = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

/**
 * StatusModal is the small status view the status bar opens: index
 * coverage, vectors, skipped files with their reasons and warnings.
 */
export class StatusModal extends Modal {
  private unsubs: (() => void)[] = [];
  private mainEl: HTMLElement | null = null;
  private queueEl: HTMLElement | null = null;
  private queueSeq = 0;

  constructor(
    app: App,
    private readonly deps: StatusDeps,
  ) {
    super(app);
  }

  override onOpen(): void {
    this.modalEl.addClass("quire-status-modal");
    this.titleEl.setText("Quire status");
    this.contentEl.addClass("quire-status-view");
    this.mainEl = this.contentEl.createDiv();
    this.queueEl = this.contentEl.createDiv({ cls: "quire-status-queue" });
    this.render(this.deps.tracker.snapshot);
    this.unsubs.push(
      this.deps.tracker.onChange((s) => {
        this.render(s);
        void this.drawQueue();
      }),
    );
    if (this.deps.ingest) this.unsubs.push(this.deps.ingest.onChange(() => void this.drawQueue()));
    void this.deps.tracker.refresh();
    void this.drawQueue();
  }

  override onClose(): void {
    for (const u of this.unsubs.splice(0)) u();
    this.queueSeq++;
    this.contentEl.empty();
  }

  /** drawQueue lists the ingest queue: what runs, what waits, what failed lately. */
  async drawQueue(): Promise<void> {
    const el = this.queueEl;
    if (!el || !this.deps.queue) return;
    const seq = ++this.queueSeq;
    let items: QueueItem[] | null = null;
    let error = "";
    if (this.deps.tracker.snapshot.state === "online") {
      try {
        items = await this.deps.queue();
      } catch (err) {
        error = err instanceof Error ? err.message : String(err);
      }
    }
    if (seq !== this.queueSeq) return;
    el.empty();
    if (items === null && error === "") return; // offline: nothing to ask
    el.createEl("h3", { text: "Ingest queue" });
    if (error) {
      el.createDiv({ cls: "quire-status-line is-error", text: `Could not list the queue: ${error}` });
      return;
    }
    const list = items ?? [];
    const open = list.filter((i) => i.state === "queued" || i.state === "running");
    const recent = list.filter((i) => i.state === "done" || i.state === "failed").slice(-5).reverse();
    if (open.length === 0 && recent.length === 0) {
      el.createDiv({ cls: "quire-status-line", text: "Empty." });
      return;
    }
    const ul = el.createEl("ul", { cls: "quire-status-files quire-queue" });
    for (const it of [...open, ...recent]) {
      const li = ul.createEl("li", { cls: `quire-queue-item is-${it.state}` });
      li.createSpan({ cls: "quire-queue-state", text: it.state });
      li.createSpan({ cls: "quire-status-path", text: ` ${it.source}` });
      if (it.state === "done" && it.note) li.createSpan({ cls: "quire-status-reason", text: ` → ${it.note}` });
      // The error chain goes to the console; the list shows its last clause, for people.
      if (it.error) li.createSpan({ cls: "quire-status-reason", text: ` — ${plainReason(it.error)}` });
      if (it.attempts > 0 && it.state !== "done") li.createSpan({ cls: "quire-status-reason", text: ` (${it.attempts} ${it.attempts === 1 ? "attempt" : "attempts"})` });
    }
  }

  /** render draws the snapshot; exported through the modal for tests. */
  render(s: IndexSnapshot): void {
    const el = this.mainEl ?? this.contentEl;
    el.empty();
    el.addClass("quire-status-view");
    const summary = el.createDiv({ cls: "quire-status-summary", text: statusBarText(s, s.state === "online" ? (this.deps.ingest?.batch ?? null) : null) });
    summary.toggleClass("is-offline", s.state === "offline");
    summary.setAttr("aria-live", "polite");
    if (s.state === "offline") {
      el.createDiv({ cls: "quire-status-line", text: s.offlineReason });
      const problem = this.deps.problem?.() ?? null;
      if (problem && this.deps.setup) {
        const setup = this.deps.setup;
        const btn = el.createEl("button", { cls: "mod-cta", text: problemAction(problem) });
        btn.addEventListener("click", () => setup(problem));
      }
      // Offer Start only when it can work; else say what would make it work.
      if (s.canStart) {
        const btn = el.createEl("button", { cls: "mod-cta", text: "Start Quire" });
        btn.addEventListener("click", () => void this.deps.start());
      } else {
        el.createDiv({ cls: "quire-status-line", text: "Set the quire program in Settings → Quire, then start it from here or with the command Quire: Start or reconnect." });
      }
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
      const left = vectorsLeft(s);
      row(
        "Vectors",
        c.vectorsTotal > 0
          ? `${count.format(c.vectorsDone)} / ${count.format(c.vectorsTotal)} passages (${v ?? percent(c.vectorsDone, c.vectorsTotal)}%)` +
              (left ? `, embedding ${rate.format(left.perSecond)} a second, ${timeLeft(left.secondsLeft)}` : "")
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
      const model = this.deps.model?.() ?? null;
      if (model !== null) row("Model", model);
      const eng = this.deps.engine?.() ?? null;
      if (eng) {
        row("Engine", `${eng.version}, ${SOURCE_TEXT[eng.source]}${eng.path ? ` (${eng.path})` : ""}${eng.pid > 0 ? `, pid ${eng.pid}` : ""}`);
        if (eng.lacking.length > 0) row("Engine features", `lacks ${eng.lacking.join(", ")}: upgrade the engine`);
        if (eng.restarts > 0) row("Restarts", `${eng.restarts} after a crash (last: ${eng.lastExit})`);
      } else {
        row("Quire", `version ${st.version}`);
      }
      if (s.progress && s.progress.done < s.progress.total) {
        row("Running", `${s.progress.phase} ${count.format(s.progress.done)} / ${count.format(s.progress.total)}`);
      }
      this.fileList(el, "Skipped files", st.skipped);
      this.fileList(el, "Indexed with warnings", st.warnings);
      const btn = el.createEl("button", { cls: "quire-status-rebuild", text: "Rebuild index" });
      btn.addEventListener("click", () => void this.deps.rebuild());
    }
    if (s.warnings.length > 0) {
      el.createEl("h3", { text: "Warnings" });
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
