import { type App, Component, MarkdownRenderer, Modal } from "obsidian";
import type { AskDone } from "../../../proto/proto.gen";
import { type AskDeps, AskSession, type AskState, type History, HistoryCursor, answerMarkdown, toCitation } from "../ask";
import { CitationHover, type CitationHoverDeps } from "../hover/citation";
import { linkCitationMarkers } from "../hover/markers";
import { headingLabel } from "../passage";

/** AskModalDeps is what the Ask modal needs; main.ts builds it. */
export interface AskModalDeps {
  client: AskDeps["client"];
  /** history is the session's questions, shared by every Ask modal. */
  history: History;
  /** noteText returns a note's current text, for the citation hover. */
  noteText: CitationHoverDeps["noteText"];
  /** openPassage opens a note at a byte offset. */
  openPassage(path: string, start: number): void;
  /** openNote opens a note (the saved answer). */
  openNote(path: string): Promise<void>;
  /** frameMs is how often streamed text is drawn at most. */
  frameMs?: number;
  /** linkText turns a note path into what goes inside [[…]], for copying and inserting. */
  linkText?: (path: string) => string;
  /** insert puts Markdown at the cursor of the editor that was active when the modal opened; it reports whether there was one. */
  insert?(markdown: string): boolean;
  /** copy puts text on the clipboard. */
  copy?(text: string): Promise<void>;
}

/**
 * AskModal asks the vault a question. The answer streams in as plain text
 * (drawn at most once per frame, so a fast model cannot make typing lag);
 * the checked answer then replaces it, rendered as Markdown with each [n]
 * linked to its passage. A refusal and an extracted answer are shown as
 * such, never dressed up as an answer.
 */
export class AskModal extends Modal {
  private readonly session: AskSession;
  private readonly cursor: HistoryCursor;
  private readonly hover: CitationHover;
  private render = new Component();
  private inputEl!: HTMLTextAreaElement;
  private historyEl!: HTMLElement;
  private statusEl!: HTMLElement;
  private answerEl!: HTMLElement;
  private notesEl!: HTMLElement;
  private sourcesEl!: HTMLElement;
  private actionsEl!: HTMLElement;
  private streamEl: HTMLElement | null = null;
  private stopBtn!: HTMLButtonElement;
  private frameTimer: number | null = null;
  private shownDone: AskState | null = null;

  constructor(
    app: App,
    private readonly deps: AskModalDeps,
    private readonly initial = "",
  ) {
    super(app);
    this.session = new AskSession({ client: deps.client, onChange: (s) => this.changed(s) }, deps.history);
    this.cursor = new HistoryCursor(deps.history);
    this.hover = new CitationHover({
      noteText: deps.noteText,
      open: (path, start) => {
        this.close();
        deps.openPassage(path, start);
      },
      doc: document,
    });
  }

  /** state is the current question's state, for tests. */
  get state(): AskState {
    return this.session.state;
  }

  override onOpen(): void {
    this.modalEl.addClass("quire-ask-modal");
    this.titleEl.setText("Ask vault");
    this.render.load();
    const root = this.contentEl.createDiv({ cls: "quire-ask" });
    const form = root.createDiv({ cls: "quire-ask-form" });
    this.inputEl = form.createEl("textarea", { cls: "quire-ask-input", attr: { rows: 2, placeholder: "Ask a question about your notes…", "aria-label": "Question" } });
    const askBtn = form.createEl("button", { cls: "mod-cta quire-ask-submit", text: "Ask" });
    this.stopBtn = form.createEl("button", { cls: "quire-ask-stop", text: "Stop", attr: { "aria-label": "Stop the answer" } });
    this.stopBtn.toggleClass("is-hidden", true);
    this.stopBtn.addEventListener("click", () => this.session.stop());
    this.historyEl = root.createDiv({ cls: "quire-ask-history" });
    this.statusEl = root.createDiv({ cls: "quire-ask-status", attr: { "aria-live": "polite" } });
    this.answerEl = root.createDiv({ cls: "quire-ask-answer" });
    this.notesEl = root.createDiv({ cls: "quire-ask-notes" });
    this.sourcesEl = root.createDiv({ cls: "quire-ask-sources" });
    this.actionsEl = root.createDiv({ cls: "quire-ask-actions" });

    askBtn.addEventListener("click", () => void this.submit());
    this.inputEl.addEventListener("keydown", (evt) => this.key(evt));
    this.inputEl.addEventListener("input", () => this.cursor.reset());
    this.inputEl.value = this.initial;
    this.drawHistory();
    this.inputEl.focus();
  }

  override onClose(): void {
    this.session.cancel();
    this.hover.dispose();
    this.render.unload();
    if (this.frameTimer !== null) window.clearTimeout(this.frameTimer);
    this.frameTimer = null;
    this.contentEl.empty();
  }

  /** submit asks what the question field holds. */
  async submit(): Promise<void> {
    const q = this.inputEl.value.trim();
    if (q === "") return;
    this.cursor.reset();
    // The question shows once, above its answer; the field is free for the next.
    this.inputEl.value = "";
    await this.session.ask(q);
  }

  private key(evt: KeyboardEvent): void {
    if (evt.key === "Enter" && !evt.shiftKey && !evt.isComposing) {
      evt.preventDefault();
      void this.submit();
      return;
    }
    const el = this.inputEl;
    const oneLine = !el.value.includes("\n");
    if (evt.key === "ArrowUp" && (oneLine || el.selectionStart === 0)) {
      const q = this.cursor.up(el.value);
      if (q !== null) {
        evt.preventDefault();
        el.value = q;
      }
    } else if (evt.key === "ArrowDown" && (oneLine || el.selectionEnd === el.value.length)) {
      const q = this.cursor.down();
      if (q !== null) {
        evt.preventDefault();
        el.value = q;
      }
    }
  }

  private drawHistory(): void {
    const el = this.historyEl;
    el.empty();
    const list = this.deps.history.list;
    if (list.length === 0 || this.session.state.kind !== "idle") return;
    el.createSpan({ cls: "quire-ask-history-label", text: "Recent questions", attr: { id: "quire-ask-recent" } });
    const ul = el.createEl("ul", { attr: { "aria-labelledby": "quire-ask-recent" } });
    for (const q of list.slice(0, 5)) {
      // A button: Enter and Space ask it, as a click does.
      const li = ul.createEl("li");
      const b = li.createEl("button", { cls: "quire-ask-history-item", text: q, attr: { "aria-label": `Ask again: ${q}` } });
      b.addEventListener("click", () => {
        this.inputEl.value = q;
        void this.submit();
      });
    }
  }

  private changed(s: AskState): void {
    this.stopBtn.toggleClass("is-hidden", s.kind !== "streaming");
    if (s.kind === "stopped") {
      if (this.frameTimer !== null) window.clearTimeout(this.frameTimer);
      this.frameTimer = null;
      this.streamEl?.setText(s.text);
      this.statusEl.setText("Stopped. The answer above is incomplete and was not checked.");
      this.streamEl = null;
      this.shownDone = s;
      this.drawHistory();
      return;
    }
    if (s.kind === "streaming") {
      if (this.streamEl === null || this.shownDone !== null || s.text === "") this.startStream(s.question);
      // Draw at most once per frame: the text is set whole, never re-rendered as Markdown.
      if (this.frameTimer === null) {
        this.frameTimer = window.setTimeout(() => {
          this.frameTimer = null;
          const cur = this.session.state;
          if (cur.kind === "streaming" && this.streamEl) {
            this.streamEl.setText(cur.text);
            this.statusEl.setText(cur.text === "" ? "Searching your notes…" : "Writing the answer…");
          }
        }, this.deps.frameMs ?? 50);
      }
      return;
    }
    if (this.frameTimer !== null) window.clearTimeout(this.frameTimer);
    this.frameTimer = null;
    this.shownDone = s;
    this.streamEl = null;
    if (s.kind === "done") void this.drawDone(s.answer);
    else if (s.kind === "error") this.drawError(s.message);
    this.drawHistory();
  }

  private startStream(question: string): void {
    this.shownDone = null;
    this.clearAnswer();
    this.historyEl.empty();
    this.statusEl.setText("Searching your notes…");
    this.answerEl.createDiv({ cls: "quire-ask-question", text: question });
    this.streamEl = this.answerEl.createDiv({ cls: "quire-ask-stream" });
  }

  private clearAnswer(): void {
    this.hover.dispose();
    this.render.unload();
    this.render = new Component();
    this.render.load();
    this.answerEl.empty();
    this.notesEl.empty();
    this.sourcesEl.empty();
    this.actionsEl.empty();
    this.answerEl.removeClass("is-refused", "is-extracted", "is-error");
  }

  private drawError(message: string): void {
    this.clearAnswer();
    this.statusEl.setText("");
    this.answerEl.addClass("is-error");
    this.answerEl.createDiv({ cls: "quire-ask-error", text: message });
  }

  private async drawDone(a: AskDone): Promise<void> {
    const s = this.session.state;
    this.clearAnswer();
    const question = s.kind === "done" ? s.question : "";
    this.answerEl.createDiv({ cls: "quire-ask-question", text: question });
    const took = a.ms >= 1000 ? `${(a.ms / 1000).toFixed(1)} s` : `${Math.round(a.ms)} ms`;
    this.statusEl.setText(a.model ? `${a.model} · ${took}${a.remote ? " · passages sent off this machine" : ""}` : took);

    if (a.refused) {
      this.answerEl.addClass("is-refused");
      const box = this.answerEl.createDiv({ cls: "quire-ask-refusal" });
      box.createDiv({ cls: "quire-ask-refusal-label", text: "Not in your notes" });
      box.createDiv({ cls: "quire-ask-refusal-text", text: a.answer });
    } else {
      if (a.extracted) {
        this.answerEl.addClass("is-extracted");
        this.answerEl.createDiv({ cls: "quire-ask-extracted-label", text: "No model answered: these are sentences quoted from your notes." });
      }
      const body = this.answerEl.createDiv({ cls: "quire-ask-body markdown-rendered" });
      await MarkdownRenderer.render(this.app, a.answer, body, "", this.render);
      if (this.session.state !== s) return; // a newer question started while rendering
      const byN = new Map(a.citations.map((c) => [c.number, toCitation(c)]));
      linkCitationMarkers(body, new Set(byN.keys()), (el, n) => {
        const c = byN.get(n);
        if (c) this.hover.attach(el, c);
      });
    }

    // An extracted answer is labelled once above; the engine's note about it (which names its config file) is not repeated.
    if (a.warning && !(a.extracted && /extract|config\.yaml|no (language )?model/i.test(a.warning))) this.notesEl.createDiv({ cls: "quire-ask-warning", text: a.warning });
    if (a.droppedCitations > 0) {
      this.notesEl.createDiv({ cls: "quire-ask-note", text: `${a.droppedCitations} invented ${a.droppedCitations === 1 ? "citation was" : "citations were"} removed.` });
    }
    if (a.extracted) this.notesEl.createDiv({ cls: "quire-ask-note", text: "Choose a language model in Settings → Quire for written answers." });
    const doubtful = a.quotes.filter((q) => !q.verified);
    if (doubtful.length > 0) {
      const d = this.notesEl.createDiv({ cls: "quire-ask-warning" });
      d.setText(`Not found word for word in the notes: ${doubtful.map((q) => `“${q.text}”`).join(", ")}`);
    }

    if (a.citations.length > 0) {
      this.sourcesEl.createDiv({ cls: "quire-ask-sources-label", text: "Sources" });
      const ol = this.sourcesEl.createEl("ol");
      for (const wc of a.citations) {
        const c = toCitation(wc);
        const li = ol.createEl("li", { cls: "quire-ask-source" });
        li.createSpan({ cls: "quire-ask-source-n", text: `[${wc.number}]` });
        const link = li.createSpan({ cls: "quire-ask-source-link", text: wc.title || wc.path, attr: { tabindex: 0, role: "link" } });
        const crumb = headingLabel(wc.headingPath ?? []);
        if (crumb) li.createSpan({ cls: "quire-ask-source-heading", text: ` › ${crumb}` });
        this.hover.attach(link, c);
      }
    }

    if (!a.refused || a.citations.length > 0) {
      const linkText = this.deps.linkText;
      if (!a.refused && linkText) {
        const md = answerMarkdown(a, linkText);
        if (this.deps.copy) {
          const copy = this.actionsEl.createEl("button", { cls: "quire-ask-copy", text: "Copy" });
          copy.addEventListener("click", () => {
            void this.deps.copy?.(md).then(() => this.statusEl.setText("Copied, with the citations as links."));
          });
        }
        if (this.deps.insert) {
          const ins = this.actionsEl.createEl("button", { cls: "quire-ask-insert", text: "Insert at cursor" });
          ins.addEventListener("click", () => {
            if (this.deps.insert?.(md)) this.close();
            else this.statusEl.setText("No note was being edited: open one, then insert the answer.");
          });
        }
      }
      const save = this.actionsEl.createEl("button", { cls: "quire-ask-save", text: "Save as note" });
      const msg = this.actionsEl.createSpan({ cls: "quire-ask-save-status" });
      save.addEventListener("click", () => void this.save(save, msg));
    }
  }

  private async save(btn: HTMLButtonElement, msg: HTMLElement): Promise<void> {
    btn.disabled = true;
    msg.removeClass("is-error");
    msg.setText("Saving…");
    try {
      const path = await this.session.save();
      msg.setText(`Saved to ${path}`);
      this.close();
      await this.deps.openNote(path);
    } catch (err) {
      btn.disabled = false;
      msg.addClass("is-error");
      msg.setText(err instanceof Error ? err.message : String(err));
    }
  }
}
