import { type App, Component, ItemView, MarkdownRenderer, type ViewStateResult, type WorkspaceLeaf } from "obsidian";
import type { AskDone } from "../../../proto/proto.gen";
import {
  type AskDeps,
  type AskScope,
  type AskSession,
  type AskState,
  type Conversation,
  type History,
  HistoryCursor,
  type ScopeNote,
  type Turn,
  answerMarkdown,
  cleanScope,
  scopeChoices,
  scopeField,
  scopeKey,
  scopeLabel,
  sourceLines,
  toCitation,
} from "../ask-session";
import { CitationHover, type CitationHoverDeps } from "../hover/citation";
import { linkCitationMarkers } from "../hover/markers";
import { headingLabel } from "../passage";

/** ASK_VIEW is the Ask sidebar view's type. */
export const ASK_VIEW = "quire-ask";

/** FETCHING are the elements that load their address as soon as they are drawn. */
const FETCHING = "img, picture, video, audio, source, track, iframe, embed, object, image, link, meta";

/** remoteAddress: the address leaves this machine (a scheme other than the app's own, or //); app: and blob: are the vault's files as Obsidian draws them. */
export function remoteAddress(url: string): boolean {
  const u = url.trim().toLowerCase();
  if (u.startsWith("//") || u.startsWith("\\\\")) return true;
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(u);
  return scheme !== null && !["app", "blob", "capacitor", "obsidian"].includes(scheme[1]!);
}

/**
 * keepOwnAddresses cleans a rendered model answer: every element that
 * would fetch a remote address (an image, a frame) is removed, and a link
 * to a remote address that no cited passage holds becomes its text. A
 * prompt-injected page could otherwise make an answer call its server.
 * The engine drops them first; this holds against an older one.
 */
export function keepOwnAddresses(root: HTMLElement, passages: readonly string[]): number {
  let removed = 0;
  for (const el of Array.from(root.querySelectorAll(FETCHING))) {
    const urls = ["src", "href", "srcset", "data", "poster", "content"].flatMap((k) => (el.getAttribute(k) ?? "").split(/[\s,]+/));
    if (!urls.some(remoteAddress)) continue;
    el.remove();
    removed++;
  }
  for (const a of Array.from(root.querySelectorAll("a[href]"))) {
    const href = a.getAttribute("href") ?? "";
    if (!remoteAddress(href) || passages.some((p) => p.includes(href))) continue;
    a.replaceWith(root.ownerDocument.createTextNode(a.textContent ?? ""));
    removed++;
  }
  return removed;
}

/** AskPanelDeps is what an Ask panel needs; main.ts builds it. */
export interface AskPanelDeps {
  client: AskDeps["client"];
  /** history is the session's questions, shared by every Ask panel. */
  history: History;
  /** conversation holds the panel's questions and answers; the sidebar's outlives the view. */
  conversation: Conversation;
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
  /** insert puts Markdown at the cursor of the note being edited; it reports whether there was one. */
  insert?(markdown: string): boolean;
  /** copy puts text on the clipboard. */
  copy?(text: string): Promise<void>;
  /** leave is called when an action takes the user to a note: the modal closes, the sidebar view stays. */
  leave?(): void;
  /** scopeNote is the note whose folders and tags the scope control offers (the note being edited), or null. */
  scopeNote?(): ScopeNote | null;
  /** scopeChanged is called when the user picks another scope (the sidebar view saves it in its state). */
  scopeChanged?(): void;
}

/**
 * AskPanel is a conversation with the vault, drawn in a modal or in the
 * sidebar: each question and its answer is a turn, and a follow-up is
 * sent with the earlier turns. The answer streams in as plain text (drawn
 * at most once per frame, so a fast model cannot make typing lag); the
 * checked answer then replaces it, rendered as Markdown with each [n]
 * linked to its passage. A refusal and an extracted answer are shown as
 * such, never dressed up as an answer.
 *
 * Nothing already on screen moves while an answer streams: the new turn
 * is scrolled to the top once, when it is asked, and holds at least the
 * conversation's height, so the growing answer, and its replacement by
 * the checked one (built off screen and swapped in whole), push nothing
 * and need no scrolling.
 */
export class AskPanel {
  private readonly session: AskSession;
  private readonly cursor: HistoryCursor;
  private readonly hover: CitationHover;
  private render = new Component();
  private inputEl!: HTMLTextAreaElement;
  private convEl!: HTMLElement;
  private historyEl!: HTMLElement;
  private statusEl!: HTMLElement;
  private askBtn!: HTMLButtonElement;
  private stopBtn!: HTMLButtonElement;
  private newBtn!: HTMLButtonElement;
  private scopeEl!: HTMLSelectElement;
  /** scopes are the scope control's choices, in its order. */
  private scopes: AskScope[] = [];
  /** turnEl is the turn being asked; streamEl its streamed text. */
  private turnEl: HTMLElement | null = null;
  private streamEl: HTMLElement | null = null;
  private frameTimer: number | null = null;

  constructor(
    private readonly app: App,
    private readonly deps: AskPanelDeps,
    private readonly root: HTMLElement,
  ) {
    // The conversation owns the session, so a question outlives the panel that asked it (the sidebar closed mid-answer).
    this.session = deps.conversation.session(deps.client, deps.history);
    this.cursor = new HistoryCursor(deps.history);
    this.hover = new CitationHover({
      noteText: deps.noteText,
      open: (path, start) => {
        deps.leave?.();
        deps.openPassage(path, start);
      },
      doc: document,
      render: (md, el, sourcePath) => MarkdownRenderer.render(this.app, md, el, sourcePath, this.render),
    });
  }

  /** state is the current question's state, for tests. */
  get state(): AskState {
    return this.session.state;
  }

  /** open draws the panel, with the conversation so far. */
  open(initial = ""): void {
    this.render.load();
    const root = this.root.createDiv({ cls: "quire-ask" });
    this.convEl = root.createDiv({ cls: "quire-ask-conversation", attr: { role: "log", "aria-label": "Conversation" } });
    this.historyEl = this.convEl.createEl("section", { cls: "quire-ask-history" });
    this.statusEl = root.createDiv({ cls: "quire-ask-status", attr: { "aria-live": "polite" } });
    // The scope sits above the question, always the same height: picking one moves nothing.
    const scopeRow = root.createDiv({ cls: "quire-ask-scope" });
    scopeRow.createSpan({ cls: "quire-ask-scope-label", text: "Within", attr: { "aria-hidden": "true" } });
    this.scopeEl = scopeRow.createEl("select", { cls: "dropdown quire-ask-scope-select", attr: { "aria-label": "Ask within" } });
    this.scopeEl.addEventListener("change", () => this.pickScope());
    // The note being edited may have changed since the choices were made.
    this.scopeEl.addEventListener("focus", () => this.refreshScope());
    this.refreshScope();
    const form = root.createDiv({ cls: "quire-ask-form" });
    this.inputEl = form.createEl("textarea", { cls: "quire-ask-input", attr: { rows: 2, placeholder: "Ask a question about your notes…", "aria-label": "Question" } });
    const buttons = form.createDiv({ cls: "quire-ask-buttons" });
    // Stop takes Ask's place while an answer streams, and New conversation keeps its room when hidden: the form never changes height, so the conversation above it never moves.
    const askBtn = buttons.createEl("button", { cls: "mod-cta quire-ask-submit", text: "Ask" });
    this.askBtn = askBtn;
    this.stopBtn = buttons.createEl("button", { cls: "quire-ask-stop", text: "Stop", attr: { "aria-label": "Stop the answer" } });
    this.stopBtn.toggleClass("is-hidden", true);
    this.stopBtn.addEventListener("click", () => this.session.stop());
    this.newBtn = buttons.createEl("button", { cls: "quire-ask-new", text: "New conversation", attr: { "aria-label": "Start a new conversation" } });
    this.newBtn.addEventListener("click", () => this.newConversation());

    askBtn.addEventListener("click", () => void this.submit());
    this.inputEl.addEventListener("keydown", (evt) => this.key(evt));
    this.inputEl.addEventListener("input", () => this.cursor.reset());
    this.inputEl.value = initial;
    for (const t of this.deps.conversation.turns) void this.drawTurn(this.convEl.createDiv({ cls: "quire-ask-turn" }), t);
    this.drawHistory();
    this.convEl.scrollTop = this.convEl.scrollHeight;
    this.deps.conversation.watch((s) => this.changed(s));
    // A question still streaming (asked before the view was closed) shows as it stands, with Stop.
    if (this.session.state.kind === "streaming") this.changed(this.session.state);
    this.inputEl.focus();
  }

  /** scope is what the next question is asked within. */
  get scope(): AskScope {
    return this.deps.conversation.scope;
  }

  /** refreshScope offers the scopes of the note being edited now, keeping the current one; the options are only rebuilt when they change, so an open list is not disturbed. */
  refreshScope(): void {
    const current = this.deps.conversation.scope;
    const choices = scopeChoices(this.deps.scopeNote?.() ?? null, current);
    const keys = choices.map(scopeKey);
    if (keys.join("\u0000") !== this.scopes.map(scopeKey).join("\u0000")) {
      this.scopes = choices;
      this.scopeEl.empty();
      for (const s of choices) this.scopeEl.createEl("option", { text: scopeLabel(s), attr: { value: scopeKey(s) } });
    }
    this.scopeEl.value = scopeKey(current);
  }

  /** setScope asks the next questions within s (the view's saved state, or a test). */
  setScope(s: AskScope): void {
    this.deps.conversation.scope = cleanScope(s);
    this.refreshScope();
  }

  private pickScope(): void {
    const s = this.scopes.find((x) => scopeKey(x) === this.scopeEl.value);
    if (!s) return;
    this.deps.conversation.scope = cleanScope(s);
    this.deps.scopeChanged?.();
  }

  /**
   * close removes what the panel drew. The modal's question in flight is
   * cancelled (nothing would show its answer); keepAsking leaves it
   * streaming into the conversation, for the sidebar view to show when it
   * opens again.
   */
  close(keepAsking = false): void {
    this.deps.conversation.watch(null);
    if (!keepAsking) this.session.cancel();
    this.hover.dispose();
    this.render.unload();
    if (this.frameTimer !== null) window.clearTimeout(this.frameTimer);
    this.frameTimer = null;
    this.root.empty();
  }

  /** submit asks what the question field holds, as a follow-up of the conversation. */
  async submit(): Promise<void> {
    const q = this.inputEl.value.trim();
    if (q === "") return;
    this.cursor.reset();
    // The question shows once, above its answer; the field is free for the next.
    this.inputEl.value = "";
    await this.session.ask(q, this.deps.conversation.history(), this.deps.conversation.scope);
  }

  /** newConversation forgets the turns: the next question starts afresh. */
  newConversation(): void {
    this.deps.conversation.clear();
    this.hover.dispose();
    this.render.unload();
    this.render = new Component();
    this.render.load();
    this.turnEl = null;
    this.streamEl = null;
    this.convEl.empty();
    this.historyEl = this.convEl.createEl("section", { cls: "quire-ask-history" });
    this.statusEl.setText("");
    this.stopBtn.toggleClass("is-hidden", true);
    this.askBtn.toggleClass("is-hidden", false);
    this.drawHistory();
    this.inputEl.focus();
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

  /** drawHistory offers the session's recent questions while the conversation is empty. */
  private drawHistory(): void {
    const el = this.historyEl;
    el.empty();
    this.newBtn.toggleClass("is-hidden", this.deps.conversation.turns.length === 0 && this.turnEl === null);
    const list = this.deps.history.list;
    if (list.length === 0 || this.deps.conversation.turns.length > 0 || this.turnEl !== null) return;
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
    this.askBtn.toggleClass("is-hidden", s.kind === "streaming");
    if (s.kind === "streaming") {
      if (s.text === "" || this.streamEl === null) this.startTurn(s.question, s.scope);
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
    if (s.kind === "idle") return;
    const el = this.turnEl ?? this.convEl.createDiv({ cls: "quire-ask-turn" });
    this.turnEl = null;
    this.streamEl = null;
    if (s.kind === "stopped") this.statusEl.setText("Stopped. The answer above is incomplete and was not checked.");
    else if (s.kind === "error") this.statusEl.setText("");
    else this.statusEl.setText(doneStatus(s.answer));
    void this.drawTurn(el, s);
    this.drawHistory();
  }

  /** startTurn adds the turn for a new question and scrolls it to the top, once. */
  private startTurn(question: string, scope: AskScope | undefined): void {
    this.historyEl.empty();
    // Only the newest answer can be asked for again.
    for (const b of Array.from(this.convEl.querySelectorAll(".quire-ask-regenerate"))) b.remove();
    this.newBtn.toggleClass("is-hidden", false);
    for (const old of Array.from(this.convEl.querySelectorAll(".quire-ask-turn.is-latest"))) old.removeClass("is-latest");
    const turn = this.convEl.createDiv({ cls: "quire-ask-turn is-latest" });
    // The newest turn holds at least the visible height, so that neither its growth nor the swap to the checked answer moves anything.
    turn.setCssProps({ "--quire-ask-turn-min": `${this.convEl.clientHeight}px` });
    drawQuestion(turn, question, scope);
    const answer = turn.createDiv({ cls: "quire-ask-answer" });
    this.streamEl = answer.createDiv({ cls: "quire-ask-stream" });
    turn.createDiv({ cls: "quire-ask-sources" });
    this.turnEl = turn;
    this.statusEl.setText("Searching your notes…");
    this.convEl.scrollTop = turn.offsetTop;
  }

  /** drawTurn draws a finished turn into el: built off screen, then swapped in whole. */
  private async drawTurn(el: HTMLElement, t: Turn): Promise<void> {
    const next = createFragment();
    drawQuestion(next, t.question, t.scope);
    const answerEl = next.createDiv({ cls: "quire-ask-answer" });
    if (t.kind === "stopped") {
      answerEl.addClass("is-stopped");
      // Drawn as a note is (no raw **), once: it no longer grows.
      const body = answerEl.createDiv({ cls: "quire-ask-stream markdown-rendered" });
      const render = this.render;
      await MarkdownRenderer.render(this.app, t.text, body, "", render);
      if (render !== this.render) return; // a new conversation began while rendering
      answerEl.createDiv({ cls: "quire-ask-note", text: "Stopped: incomplete, and not checked." });
    } else if (t.kind === "error") {
      answerEl.addClass("is-error");
      answerEl.createDiv({ cls: "quire-ask-error", text: t.message });
    } else {
      const drawn = await this.drawAnswer(next, answerEl, t);
      if (!drawn) return;
    }
    if (!this.convEl.contains(el)) return; // a new conversation began meanwhile
    el.replaceChildren(next);
  }

  private async drawAnswer(next: DocumentFragment, answerEl: HTMLElement, t: Extract<Turn, { kind: "done" }>): Promise<boolean> {
    const a = t.answer;
    if (a.refused) {
      answerEl.addClass("is-refused");
      const box = answerEl.createDiv({ cls: "quire-ask-refusal" });
      box.createDiv({ cls: "quire-ask-refusal-label", text: "Not in your notes" });
      box.createDiv({ cls: "quire-ask-refusal-text", text: a.answer });
    } else {
      if (a.extracted) {
        answerEl.addClass("is-extracted");
        answerEl.createDiv({ cls: "quire-ask-extracted-label", text: "No model answered: these are sentences quoted from your notes." });
      }
      const body = answerEl.createDiv({ cls: "quire-ask-body markdown-rendered" });
      const render = this.render;
      await MarkdownRenderer.render(this.app, a.answer, body, "", render);
      if (render !== this.render) return false; // a new conversation began while rendering
      keepOwnAddresses(body, a.citations.map((c) => c.text));
      const byN = new Map(a.citations.map((c) => [c.number, toCitation(c)]));
      linkCitationMarkers(body, new Set(byN.keys()), (el, n) => {
        const c = byN.get(n);
        if (c) this.hover.attach(el, c);
      });
    }

    const notes = next.createDiv({ cls: "quire-ask-notes" });
    // An extracted answer is labelled once above; the engine's note about it (which names its config file) is not repeated.
    if (a.warning && !(a.extracted && /extract|config\.yaml|no (language )?model/i.test(a.warning))) notes.createDiv({ cls: "quire-ask-warning", text: a.warning });
    if (a.droppedCitations > 0) {
      notes.createDiv({ cls: "quire-ask-note", text: `${a.droppedCitations} invented ${a.droppedCitations === 1 ? "citation was" : "citations were"} removed.` });
    }
    if (a.extracted) notes.createDiv({ cls: "quire-ask-note", text: "Choose a language model in Settings → Quire for written answers." });
    const doubtful = a.quotes.filter((q) => !q.verified);
    if (doubtful.length > 0) notes.createDiv({ cls: "quire-ask-warning", text: `Not found word for word in the notes: ${doubtful.map((q) => `“${q.text}”`).join(", ")}` });

    const sources = next.createDiv({ cls: "quire-ask-sources" });
    if (a.citations.length > 0) {
      sources.createDiv({ cls: "quire-ask-sources-label", text: "Sources" });
      const ol = sources.createEl("ol");
      for (const line of sourceLines(a.citations)) {
        const wc = line.citation;
        const li = ol.createEl("li", { cls: "quire-ask-source" });
        li.createSpan({ cls: "quire-ask-source-n", text: line.numbers.map((n) => `[${n}]`).join("") });
        const link = li.createSpan({ cls: "quire-ask-source-link", text: wc.title || wc.path, attr: { tabindex: 0, role: "link" } });
        const crumb = headingLabel(wc.headingPath ?? []);
        if (crumb) li.createSpan({ cls: "quire-ask-source-heading", text: ` › ${crumb}` });
        this.hover.attach(link, toCitation(wc));
      }
    }
    this.drawActions(next.createDiv({ cls: "quire-ask-actions" }), t);
    return true;
  }

  private drawActions(bar: HTMLElement, t: Extract<Turn, { kind: "done" }>): void {
    const a = t.answer;
    if (a.refused && a.citations.length === 0) return;
    const linkText = this.deps.linkText;
    if (!a.refused && linkText) {
      const md = answerMarkdown(a, linkText);
      if (this.deps.copy) {
        const copy = bar.createEl("button", { cls: "quire-ask-copy", text: "Copy" });
        copy.addEventListener("click", () => {
          void this.deps.copy?.(md).then(() => this.statusEl.setText("Copied, with the citations as links."));
        });
      }
      if (this.deps.insert) {
        const ins = bar.createEl("button", { cls: "quire-ask-insert", text: "Insert at cursor" });
        ins.addEventListener("click", () => {
          if (this.deps.insert?.(md)) {
            this.statusEl.setText("Inserted at the cursor, with the citations as links.");
            this.deps.leave?.();
          } else this.statusEl.setText("No note was being edited: open one, then insert the answer.");
        });
      }
    }
    const save = bar.createEl("button", { cls: "quire-ask-save", text: "Save as note" });
    const msg = bar.createSpan({ cls: "quire-ask-save-status" });
    save.addEventListener("click", () => void this.save(t.askId, save, msg));
    if (this.deps.conversation.turns.at(-1) === t) {
      // The last answer can be asked for again: it replaces this turn, with the same question and scope.
      const again = bar.createEl("button", { cls: "quire-ask-regenerate", text: "Regenerate" });
      again.addEventListener("click", () => void this.regenerate(t, again));
    }
  }

  /** regenerate asks the last question again in place of its answer. */
  async regenerate(t: Turn, btn?: HTMLElement): Promise<void> {
    if (this.deps.conversation.turns.at(-1) !== t || this.session.state.kind === "streaming") return;
    this.deps.conversation.dropLast();
    btn?.closest(".quire-ask-turn")?.remove();
    await this.session.ask(t.question, this.deps.conversation.history(), t.scope ?? this.deps.conversation.scope);
  }

  private async save(askId: string, btn: HTMLButtonElement, msg: HTMLElement): Promise<void> {
    btn.disabled = true;
    msg.removeClass("is-error");
    msg.setText("Saving…");
    try {
      const path = await this.session.save(askId);
      msg.setText(`Saved to ${path}`);
      this.deps.leave?.();
      await this.deps.openNote(path);
    } catch (err) {
      btn.disabled = false;
      msg.addClass("is-error");
      msg.setText(err instanceof Error ? err.message : String(err));
    }
  }
}

/** drawQuestion draws a turn's question, and the scope it was asked within when not the whole vault. */
function drawQuestion(parent: HTMLElement | DocumentFragment, question: string, scope: AskScope | undefined): void {
  parent.createDiv({ cls: "quire-ask-question", text: question });
  if (scopeKey(scope) !== "vault") parent.createDiv({ cls: "quire-ask-scope-badge", text: `Within ${scopeLabel(scope).replace(/^[FTN]/, (c) => c.toLowerCase())}` });
}

/** doneStatus is the status line under a checked answer: model and time. */
function doneStatus(a: AskDone): string {
  const took = a.ms >= 1000 ? `${(a.ms / 1000).toFixed(1)} s` : `${Math.round(a.ms)} ms`;
  return a.model ? `${a.model} · ${took}${a.remote ? " · passages sent off this machine" : ""}` : took;
}

/**
 * AskView is Ask vault in the sidebar: the same conversation as the modal,
 * kept while the user writes (the conversation lives in the plugin, so
 * closing and reopening the view keeps it). Citations open beside it.
 */
export class AskView extends ItemView {
  private panel: AskPanel | null = null;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly deps: AskPanelDeps,
  ) {
    super(leaf);
  }

  getViewType(): string {
    return ASK_VIEW;
  }

  getDisplayText(): string {
    return "Ask vault";
  }

  override getIcon(): string {
    return "message-square";
  }

  /** panelForTest is the view's panel. */
  get panelForTest(): AskPanel | null {
    return this.panel;
  }

  override async onOpen(): Promise<void> {
    this.contentEl.empty();
    this.contentEl.addClass("quire-ask-view");
    // A changed scope is saved with the workspace layout (getState), so the view keeps it across restarts too.
    this.panel = new AskPanel(this.app, { ...this.deps, scopeChanged: () => void this.app.workspace.requestSaveLayout() }, this.contentEl);
    this.panel.open();
    // The scope control offers the folders and tags of the note being edited: follow it.
    const refresh = () => this.panel?.refreshScope();
    this.registerEvent(this.app.workspace.on("active-leaf-change", refresh));
    this.registerEvent(this.app.workspace.on("file-open", refresh));
  }

  override getState(): Record<string, unknown> {
    return { ...super.getState(), ...scopeField(this.deps.conversation.scope) };
  }

  override async setState(state: unknown, result: ViewStateResult): Promise<void> {
    const scope = (state as { scope?: unknown } | null)?.scope;
    if (scope && typeof scope === "object") {
      const s = scope as Record<string, unknown>;
      const str = (v: unknown) => (typeof v === "string" ? v : "");
      this.deps.conversation.scope = cleanScope({ folder: str(s.folder), tag: str(s.tag), note: str(s.note) });
      this.panel?.refreshScope();
    }
    await super.setState(state, result);
  }

  override async onClose(): Promise<void> {
    // An answer still streaming goes on into the conversation: opening the view again shows it.
    this.panel?.close(true);
    this.panel = null;
  }
}

