import { ItemView, type Workspace, type WorkspaceLeaf } from "obsidian";
import type { EvalResult } from "../../../proto/proto.gen";
import { type QuestionRow, type SetVault, blankRow, formatSet, missed, parseSet, problems, rankText, readSet, toWire, writeSet } from "../evalset";
import type { Client } from "../sidecar/client";
import { safeSvg } from "./svg";

/** EVALUATE_VIEW is the Evaluate search view's type. */
export const EVALUATE_VIEW = "quire-evaluate";

/** EvaluateDeps is what the view needs; main.ts builds it. */
export interface EvaluateDeps {
  /** client is the connected engine's client, null while offline. */
  client(): Client | null;
  vault: SetVault;
  /** notes lists the vault's Markdown notes, vault-relative: the note picker offers them. */
  notes(): string[];
  /** folder is the generated-notes folder now ("Quire" unless configured): the questions file's default home. */
  folder(): string;
  /** openNote opens a vault note. */
  openNote(path: string): void;
}

/** defaultSetPath is where the view keeps a vault's questions unless told another file. */
export function defaultSetPath(folder: string): string {
  const f = folder.trim().replace(/^\/+|\/+$/g, "");
  return `${f === "" ? "Quire" : f}/eval-questions.jsonl`;
}

/** openEvaluateView shows the Evaluate search view in a tab; an open one keeps its questions and result, and is shown, not opened again. */
export async function openEvaluateView(workspace: Pick<Workspace, "getLeavesOfType" | "getLeaf" | "revealLeaf">): Promise<void> {
  let leaf = workspace.getLeavesOfType(EVALUATE_VIEW)[0];
  if (!leaf) {
    leaf = workspace.getLeaf("tab");
    await leaf.setViewState({ type: EVALUATE_VIEW, active: true });
  }
  await workspace.revealLeaf(leaf);
}

/** PICTURES are the engine's three pictures, with what each shows. */
const PICTURES = [
  ["recall", "Share of questions whose answer is among the first k passages, for k from 1 to 50, per search channel (now; dashed: before, the previous run of these questions)."],
  ["types", "Answers found in the first k passages, by question type (grey: before, the previous run)."],
  ["ranks", "The rank each question's answer reached (shaded: the first k; hover a mark for its question)."],
] as const;

let views = 0;

/**
 * EvaluateView is Evaluate search: the user writes questions (the
 * question, the note that answers it, optionally the words of the answer
 * and a type), keeps them in a JSON-lines file in the vault, runs them
 * through the engine and sees the eval report's pictures of the result.
 */
export class EvaluateView extends ItemView {
  private path = "";
  private rows: QuestionRow[] = [blankRow()];
  private comments: string[] = [];
  /** loaded is the file's text as read or last written at loadedPath (null: there was none); Save checks it. */
  private loaded: string | null = null;
  private loadedPath = "";
  private result: EvalResult | null = null;
  private running = false;
  private readonly id = `quire-eval-${++views}`;
  private statusEl: HTMLElement | null = null;
  private listEl: HTMLElement | null = null;
  private resultsEl: HTMLElement | null = null;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly deps: EvaluateDeps,
  ) {
    super(leaf);
  }

  override getViewType(): string {
    return EVALUATE_VIEW;
  }

  override getDisplayText(): string {
    return "Evaluate search";
  }

  override getIcon(): string {
    return "bar-chart-2";
  }

  /** questions are the rows as the view holds them, for tests. */
  get questions(): readonly QuestionRow[] {
    return this.rows;
  }

  /** shown is the last result drawn, for tests. */
  get shown(): EvalResult | null {
    return this.result;
  }

  override async onOpen(): Promise<void> {
    this.contentEl.addClass("quire-eval");
    this.path = defaultSetPath(this.deps.folder());
    this.draw();
    await this.reload();
  }

  /** draw lays out the whole view. */
  private draw(): void {
    const el = this.contentEl;
    el.empty();
    el.createEl("p", {
      cls: "quire-eval-intro",
      text: "Write questions you would ask your vault, each with the note that answers it, and see how well search finds them. The words of the answer are optional: with them, the question counts as found only by a passage that holds them.",
    });
    const file = el.createDiv({ cls: "quire-eval-file" });
    file.createEl("label", { text: "Questions file", attr: { for: `${this.id}-path` } });
    const path = file.createEl("input", { cls: "quire-eval-path", attr: { id: `${this.id}-path`, type: "text", spellcheck: "false" } });
    path.value = this.path;
    path.addEventListener("input", () => (this.path = path.value));
    const load = file.createEl("button", { cls: "quire-eval-load", text: "Load" });
    load.addEventListener("click", () => void this.reload());
    const save = file.createEl("button", { cls: "quire-eval-save", text: "Save" });
    save.addEventListener("click", () => void this.saveSet());

    const notes = el.createEl("datalist", { attr: { id: `${this.id}-notes` } });
    for (const n of this.deps.notes()) notes.createEl("option", { attr: { value: n } });
    this.listEl = el.createDiv({ cls: "quire-eval-questions", attr: { role: "group", "aria-label": "Questions" } });
    this.drawRows();
    const bar = el.createDiv({ cls: "quire-eval-bar" });
    const add = bar.createEl("button", { cls: "quire-eval-add", text: "Add question" });
    add.addEventListener("click", () => {
      this.rows.push(blankRow());
      this.drawRows();
      this.listEl?.querySelector<HTMLInputElement>(".quire-eval-row:last-child .quire-eval-question")?.focus();
    });
    const run = bar.createEl("button", { cls: "mod-cta quire-eval-run", text: "Run" });
    run.addEventListener("click", () => void this.runSet());
    this.statusEl = el.createEl("p", { cls: "quire-eval-status", attr: { role: "status", "aria-live": "polite" } });
    this.resultsEl = el.createDiv({ cls: "quire-eval-results" });
    if (this.result) this.drawResult(this.result);
  }

  /** drawRows draws the questions, one group of fields each. */
  private drawRows(): void {
    const list = this.listEl;
    if (!list) return;
    list.empty();
    this.rows.forEach((row, i) => {
      const box = list.createEl("fieldset", { cls: "quire-eval-row" });
      box.createEl("legend", { text: `Question ${i + 1}` });
      const field = (key: "question" | "note" | "answer" | "type", label: string, placeholder: string) => {
        const id = `${this.id}-${i}-${key}`;
        const wrap = box.createDiv({ cls: `quire-eval-field quire-eval-field-${key}` });
        wrap.createEl("label", { text: label, attr: { for: id } });
        const input = wrap.createEl("input", { cls: `quire-eval-${key}`, attr: { id, type: "text", placeholder } });
        if (key === "note") input.setAttr("list", `${this.id}-notes`);
        input.value = row[key];
        input.addEventListener("input", () => (row[key] = input.value));
      };
      field("question", "Question", "How often do I feed the starter?");
      field("note", "Note that answers it", "Kitchen/Sourdough starter.md");
      field("answer", "Words of the answer (optional)", "Feed it once a day");
      field("type", "Type (optional)", "how_to");
      const remove = box.createEl("button", { cls: "quire-eval-remove", text: "Remove", attr: { "aria-label": `Remove question ${i + 1}` } });
      remove.addEventListener("click", () => {
        this.rows.splice(i, 1);
        if (this.rows.length === 0) this.rows.push(blankRow());
        this.drawRows();
        const next = list.querySelectorAll<HTMLInputElement>(".quire-eval-question")[Math.min(i, this.rows.length - 1)];
        next?.focus();
      });
    });
  }

  private say(text: string, error = false): void {
    this.statusEl?.setText(text);
    this.statusEl?.toggleClass("is-error", error);
  }

  /** load reads the questions file named in the view; a missing one starts an empty set. */
  async reload(): Promise<void> {
    let text: string | null;
    try {
      text = await readSet(this.deps.vault, this.path);
    } catch (err) {
      this.say(messageOf(err), true);
      return;
    }
    this.loadedPath = this.path;
    this.loaded = text;
    if (text === null) {
      this.rows = [blankRow()];
      this.comments = [];
      this.drawRows();
      this.say(`No questions at ${this.path} yet: write some, then Save keeps them there.`);
      return;
    }
    try {
      const set = parseSet(text);
      this.rows = set.rows.length > 0 ? set.rows : [blankRow()];
      this.comments = set.comments;
      this.drawRows();
      const n = set.rows.length;
      this.say(`Loaded ${n} ${n === 1 ? "question" : "questions"} from ${this.path}.${set.ours ? "" : " Quire did not write this file: Save keeps edits only under another name."}`);
    } catch (err) {
      // Nothing is shown that Save could write over the file with.
      this.loaded = null;
      this.rows = [blankRow()];
      this.drawRows();
      this.say(`${this.path}: ${messageOf(err)}. Mend it in another editor, then load it again.`, true);
    }
  }

  /** save writes the questions to the file named in the view (see writeSet for when it refuses). */
  async saveSet(): Promise<boolean> {
    const text = formatSet({ rows: this.rows, comments: this.comments });
    const loaded = this.path === this.loadedPath ? this.loaded : null;
    try {
      await writeSet(this.deps.vault, this.path, text, loaded);
    } catch (err) {
      this.say(messageOf(err), true);
      return false;
    }
    this.loadedPath = this.path;
    this.loaded = text;
    this.say(`Saved to ${this.path}.`);
    return true;
  }

  /** run scores the questions on the engine's index and draws the result. */
  async runSet(): Promise<void> {
    if (this.running) return;
    const known = new Set(this.deps.notes());
    const wrong = problems(this.rows, (p) => known.has(p));
    if (wrong.length > 0) {
      this.say(wrong.join(" "), true);
      return;
    }
    const client = this.deps.client();
    if (!client) {
      this.say("Quire is offline: start it (Quire: Start or reconnect), then run the questions.", true);
      return;
    }
    const questions = toWire(this.rows);
    this.running = true;
    this.say(`Searching for ${questions.length} ${questions.length === 1 ? "question" : "questions"}…`);
    try {
      this.result = await client.request("eval.run", { questions, set: this.path }, { timeoutMs: 300_000 });
    } catch (err) {
      this.say(`Quire could not run the questions: ${messageOf(err)}`, true);
      return;
    } finally {
      this.running = false;
    }
    this.say(`Ran ${questions.length} ${questions.length === 1 ? "question" : "questions"}.`);
    this.drawResult(this.result);
  }

  /** drawResult shows a run: scores per channel, the pictures, and the questions missed. */
  private drawResult(res: EvalResult): void {
    const el = this.resultsEl;
    if (!el) return;
    el.empty();
    const main = res.channels.at(-1);
    if (!main) return;
    el.createEl("h3", { text: "How well search found them" });
    el.createEl("p", {
      cls: "quire-eval-meta",
      text: res.control
        ? `k = ${res.k}. Compared with the previous run of these questions (${new Date(res.control).toLocaleString()}).`
        : `k = ${res.k}. The first run of these questions: the next run is drawn against this one.`,
    });
    if (res.warnings.length > 0) {
      const ul = el.createEl("ul", { cls: "quire-eval-warnings" });
      for (const w of res.warnings) ul.createEl("li", { text: w });
    }
    const table = el.createEl("table", { cls: "quire-eval-scores" });
    table.createEl("caption", { text: `Per search channel; the ${main.channel} channel is the one search uses.` });
    const head = table.createEl("thead").createEl("tr");
    for (const h of ["Channel", `Answer in first ${res.k}`, "Mean reciprocal rank", `Note in first ${res.k}`, "Answer in first 50", "Answers a passage holds"]) head.createEl("th", { text: h, attr: { scope: "col" } });
    const body = table.createEl("tbody");
    for (const c of res.channels) {
      const tr = body.createEl("tr");
      tr.createEl("th", { text: c.channel, attr: { scope: "row" } });
      for (const v of [c.spanRecallAtK, c.spanMRR, c.noteRecallAtK, c.recallAt50]) tr.createEl("td", { text: v.toFixed(2) });
      tr.createEl("td", { text: `${c.reachable} of ${c.ranks.length}` });
    }
    const pics = el.createDiv({ cls: "quire-eval-pictures" });
    for (const [key, caption] of PICTURES) {
      const svg = res.pictures[key] ? safeSvg(res.pictures[key], el.ownerDocument) : null;
      if (!svg) continue;
      const fig = pics.createEl("figure", { cls: `quire-eval-figure quire-eval-${key}` });
      fig.appendChild(svg);
      fig.createEl("figcaption", { text: caption.replace("the first k", `the first ${res.k}`) });
    }
    const miss = missed(main.ranks, res.k);
    el.createEl("h3", { text: `Missed: ${miss.length} of ${main.ranks.length} (${main.channel})` });
    if (miss.length === 0) {
      el.createEl("p", { text: `Every answer was among the first ${res.k} passages.` });
      return;
    }
    const mt = el.createEl("table", { cls: "quire-eval-misses" });
    const mh = mt.createEl("thead").createEl("tr");
    for (const h of ["Question", "Type", "Note", "Rank reached"]) mh.createEl("th", { text: h, attr: { scope: "col" } });
    const mb = mt.createEl("tbody");
    for (const r of miss) {
      const tr = mb.createEl("tr");
      tr.createEl("td", { text: r.question });
      tr.createEl("td", { text: r.type });
      const open = tr.createEl("td").createEl("button", { cls: "quire-eval-open", text: r.expected.replace(/\.md$/, ""), attr: { "aria-label": `Open ${r.expected}` } });
      open.addEventListener("click", () => this.deps.openNote(r.expected));
      tr.createEl("td", { text: rankText(r) });
    }
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
