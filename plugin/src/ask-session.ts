// Asking the vault, without Obsidian: the questions of this session, one
// question's life (streamed text, then the checked answer), and saving an
// answer as a note. The Ask modal draws what this reports.
import type { AskDone, AskTurn, Citation as WireCitation } from "../../proto/proto.gen";
import type { Citation } from "./hover/citation";
import { bareTag, scopeFields } from "./search-results";
import { type Client, ClientError, Latest, isSuperseded } from "./sidecar/client";

/** AskScope narrows a question's sources to one note, or to the notes under a folder or with a tag; no field means the whole vault. */
export interface AskScope {
  folder?: string;
  tag?: string;
  /** note is a vault-relative note path: only its passages are sources ("ask about this note"). */
  note?: string;
}

/** AskState is where one question stands; scope is what it was asked within, when not the whole vault. */
export type AskState =
  | { kind: "idle" }
  | { kind: "streaming"; question: string; text: string; scope?: AskScope }
  | { kind: "stopped"; question: string; text: string; scope?: AskScope }
  | { kind: "done"; question: string; askId: string; answer: AskDone; scope?: AskScope }
  | { kind: "error"; question: string; message: string; scope?: AskScope };

/** cleanScope is a scope as sent: the folder without surrounding slashes, the tag without "#", empty parts left out. */
export function cleanScope(s: AskScope | undefined): AskScope {
  const note = s?.note?.trim() ?? "";
  if (note !== "") return { note }; // one note is narrower than any folder or tag
  return scopeFields(s?.folder ?? "", s?.tag ?? "");
}

/** scopeField is a scope as a state or the view's saved state holds it: absent for the whole vault. */
export function scopeField(s: AskScope | undefined): { scope?: AskScope } {
  const c = cleanScope(s);
  return scopeKey(c) !== "vault" ? { scope: c } : {};
}

/** scopeKey names a scope, for comparing two and as the scope control's option value. */
export function scopeKey(s: AskScope | undefined): string {
  const c = cleanScope(s);
  if (c.note !== undefined) return `note:${c.note}`;
  return c.folder !== undefined ? `folder:${c.folder}` : c.tag !== undefined ? `tag:${c.tag}` : "vault";
}

/** scopeLabel says a scope in a few words: "Whole vault", "Note Sourdough starter", "Folder Kitchen/Bread", "Tag #baking". */
export function scopeLabel(s: AskScope | undefined): string {
  const c = cleanScope(s);
  if (c.note !== undefined) return `Note ${c.note.split("/").at(-1)!.replace(/\.md$/i, "")}`;
  const parts = [...(c.folder !== undefined ? [`Folder ${c.folder}`] : []), ...(c.tag !== undefined ? [`Tag #${c.tag}`] : [])];
  return parts.length > 0 ? parts.join(", ") : "Whole vault";
}

/** ScopeNote is the note the scope control offers scopes from: its path and its tags (without "#"). */
export interface ScopeNote {
  path: string;
  tags: readonly string[];
}

/**
 * scopeChoices is what the scope control offers: the whole vault, the
 * note itself, its folder and each folder above it (nearest first), its tags
 * and the tags they are nested under, and the current scope when it is
 * none of those (it was chosen from another note), so that it stays shown.
 */
export function scopeChoices(note: ScopeNote | null, current: AskScope | undefined): AskScope[] {
  const out: AskScope[] = [{}];
  if (note) {
    out.push({ note: note.path });
    const parts = note.path.split("/").slice(0, -1);
    for (let i = parts.length; i > 0; i--) out.push({ folder: parts.slice(0, i).join("/") });
    const tags: string[] = [];
    for (const t of note.tags) {
      const segs = bareTag(t).split("/");
      for (let i = segs.length; i > 0; i--) {
        const tag = segs.slice(0, i).join("/");
        if (tag !== "" && !tags.some((x) => x.toLowerCase() === tag.toLowerCase())) tags.push(tag);
      }
    }
    for (const tag of tags) out.push({ tag });
  }
  const cur = cleanScope(current);
  if (!out.some((s) => scopeKey(s) === scopeKey(cur))) out.push(cur);
  return out;
}

/** AskDeps is what an AskSession needs. */
export interface AskDeps {
  /** client returns the connection now, or null while offline. */
  client(): Pick<Client, "stream" | "request"> | null;
  /** onChange is called on every state change and every streamed piece. */
  onChange(s: AskState): void;
}

/**
 * History keeps the questions of this session, newest first, without
 * repeats; it lives in the plugin so that every Ask modal sees them.
 */
export class History {
  private items: string[] = [];
  /**
   * saved, when given, starts the history (newest first: what a previous
   * session kept); onChange is told the list after each question, to keep it.
   */
  constructor(
    private readonly max = 20,
    saved: unknown = [],
    private readonly onChange?: (list: readonly string[]) => void,
  ) {
    if (Array.isArray(saved)) {
      for (const q of saved) if (typeof q === "string" && q.trim() !== "" && !this.items.includes(q.trim())) this.items.push(q.trim());
      this.items = this.items.slice(0, max);
    }
  }

  /** add puts q first, dropping an older copy. */
  add(q: string): void {
    const t = q.trim();
    if (t === "") return;
    this.items = [t, ...this.items.filter((x) => x !== t)].slice(0, this.max);
    this.onChange?.(this.items);
  }

  /** list is the questions, newest first. */
  get list(): readonly string[] {
    return this.items;
  }
}

/**
 * HistoryCursor walks History with the up and down keys: up goes to older
 * questions, down back to newer ones and finally to what was being typed.
 */
export class HistoryCursor {
  private at = -1;
  private draft = "";
  constructor(private readonly history: History) {}

  /** up returns the next older question, or null at the oldest. */
  up(current: string): string | null {
    const list = this.history.list;
    if (this.at + 1 >= list.length) return null;
    if (this.at === -1) this.draft = current;
    this.at++;
    return list[this.at] ?? null;
  }

  /** down returns the next newer question, the draft past the newest, or null when already there. */
  down(): string | null {
    if (this.at === -1) return null;
    this.at--;
    return this.at === -1 ? this.draft : (this.history.list[this.at] ?? null);
  }

  /** reset forgets the position (after the user types or asks). */
  reset(): void {
    this.at = -1;
  }
}

/** Turn is a finished question of a conversation, as it is shown. */
export type Turn = Extract<AskState, { kind: "done" | "stopped" | "error" }>;

/** sentTurns is how many earlier turns go with a follow-up (the engine trims them further to its budget). */
const sentTurns = 8;

/**
 * Conversation is the questions asked one after another in an Ask modal
 * or the Ask sidebar view, and their answers: a follow-up is sent with
 * the earlier answered turns, so "and the vegetarian ones?" means
 * something. The sidebar's conversation lives in the plugin, so closing
 * and reopening the view keeps it, and so does its question in flight:
 * the conversation asks it (session), and the answer lands in the turns
 * whether or not a view is open to draw it.
 */
export class Conversation {
  private items: Turn[] = [];
  private asker: AskSession | null = null;
  private watcher: ((s: AskState) => void) | null = null;
  /** scope is what the next question is asked within; the sidebar's is remembered with its conversation (and in the view's state). */
  scope: AskScope = {};

  /** turns are the finished questions, oldest first. */
  get turns(): readonly Turn[] {
    return this.items;
  }

  /** add records a finished question. */
  add(t: Turn): void {
    this.items.push(t);
  }

  /** dropLast forgets the last finished turn (its answer is being asked again); it returns it, or null. */
  dropLast(): Turn | null {
    return this.items.pop() ?? null;
  }

  /** clear starts a new conversation; the question in flight is dropped. */
  clear(): void {
    this.asker?.reset();
    this.items = [];
  }

  /**
   * session is the conversation's AskSession, made on first use. A
   * finished question (answered, stopped or failed) is added to the turns
   * here, before the watcher hears of it.
   */
  session(client: AskDeps["client"], history: History): AskSession {
    this.asker ??= new AskSession(
      {
        client,
        onChange: (s) => {
          if (s.kind === "done" || s.kind === "stopped" || s.kind === "error") this.add(s);
          this.watcher?.(s);
        },
      },
      history,
    );
    return this.asker;
  }

  /** watch sends the session's state changes to fn (the panel drawing the conversation); null stops it, and the question in flight goes on. */
  watch(fn: ((s: AskState) => void) | null): void {
    this.watcher = fn;
  }

  /** history is what goes with a follow-up: the checked answers, oldest first (a stopped or failed answer was never checked, so it is left out). */
  history(): AskTurn[] {
    return this.items
      .filter((t): t is Extract<Turn, { kind: "done" }> => t.kind === "done")
      .slice(-sentTurns)
      .map((t) => ({ question: t.question, answer: t.answer.answer, passages: t.answer.passages }));
  }
}

/** SourceLine is one cited passage in the Sources list, with every number the answer cites it by. */
export interface SourceLine {
  numbers: number[];
  citation: WireCitation;
}

/**
 * sourceLines lists the cited passages once each, in order of first
 * citation: two numbers for one passage, or for passages under the same
 * heading of the same note (which would read as the same line twice),
 * share a line.
 */
export function sourceLines(citations: readonly WireCitation[]): SourceLine[] {
  const out: SourceLine[] = [];
  const byKey = new Map<string, SourceLine>();
  for (const c of citations) {
    const keys = [`id:${c.id}`, `at:${c.path}\u0000${(c.headingPath ?? []).join("\u0000")}`];
    const line = keys.map((k) => byKey.get(k)).find((l) => l !== undefined);
    if (line) {
      if (!line.numbers.includes(c.number)) line.numbers.push(c.number);
    } else {
      const l = { numbers: [c.number], citation: c };
      out.push(l);
      for (const k of keys) byKey.set(k, l);
    }
  }
  return out;
}

/** toCitation is a wire citation in the shape the hover takes. */
export function toCitation(c: WireCitation): Citation {
  return { n: c.number, id: c.id, path: c.path, start: c.start, end: c.end, title: c.title, headingPath: c.headingPath ?? [], text: c.text, hash: c.hash };
}

/** askErrorText is a short sentence for a failed question. */
export function askErrorText(err: unknown): string {
  if (err instanceof ClientError) {
    switch (err.code) {
      case "closed":
        return "Quire is offline. Start it from the status bar and ask again.";
      case "not_ready":
        return "The index is still being built. Ask again in a moment.";
      case "model_unavailable":
        return `The model did not answer: ${err.message}`;
      case "invalid_request":
        return err.message.replace(/^ask\.query: /, "");
      case "timeout":
        return "Quire took too long to answer.";
      default:
        return err.message;
    }
  }
  return err instanceof Error ? err.message : String(err);
}

/**
 * AskSession asks one question at a time: a new question supersedes the
 * one still streaming, and closing the modal cancels it (its late frames
 * are dropped).
 */
export class AskSession {
  private st: AskState = { kind: "idle" };
  private readonly latest = new Latest();

  constructor(
    private readonly deps: AskDeps,
    private readonly history: History,
  ) {}

  /** state is where the current question stands. */
  get state(): AskState {
    return this.st;
  }

  /** ask sends question, with the conversation's earlier turns for a follow-up and within scope (the engine narrows the sources before it cuts to k), and streams its answer; it resolves when the answer is done or failed. */
  async ask(question: string, history: AskTurn[] = [], scope?: AskScope): Promise<void> {
    const q = question.trim();
    if (q === "") return;
    this.history.add(q);
    const within = cleanScope(scope);
    const scoped = scopeField(within);
    const client = this.deps.client();
    if (!client) {
      this.latest.cancel();
      this.set({ kind: "error", question: q, message: "Quire is offline. Start it from the status bar and ask again.", ...scoped });
      return;
    }
    const signal = this.latest.next();
    let askId = "";
    this.set({ kind: "streaming", question: q, text: "", ...scoped });
    try {
      const answer = await client.stream(
        "ask.query",
        { question: q, ...(history.length > 0 ? { history } : {}), ...within },
        (frame) => {
          if (signal.aborted || frame.type !== "ask.delta" || this.st.kind !== "streaming") return;
          this.set({ ...this.st, text: this.st.text + frame.payload.text });
        },
        { signal, timeoutMs: 300_000, onId: (id) => (askId = id) },
      );
      if (signal.aborted) return;
      this.set({ kind: "done", question: q, askId, answer, ...scoped });
    } catch (err) {
      if (isSuperseded(err) || signal.aborted) return;
      this.set({ kind: "error", question: q, message: askErrorText(err), ...scoped });
    }
  }

  /** save writes a done answer (the current one unless askId names another) to a note through the sidecar and returns its vault path. */
  async save(askId?: string): Promise<string> {
    const s = this.st;
    const id = askId ?? (s.kind === "done" ? s.askId : "");
    if (id === "") throw new Error("no answer to save yet");
    const client = this.deps.client();
    if (!client) throw new Error("Quire is offline; the answer cannot be saved.");
    try {
      const res = await client.request("answer.save", { askId: id }, { timeoutMs: 30_000 });
      return res.path;
    } catch (err) {
      if (err instanceof ClientError && err.code === "not_found") throw new Error("Quire no longer holds this answer (it restarted or many questions followed). Ask again to save it.");
      throw new Error(askErrorText(err));
    }
  }

  /** cancel drops the question in flight (its late frames are ignored). */
  cancel(): void {
    this.latest.cancel();
  }

  /** reset drops the question in flight and forgets it: the state is idle again. */
  reset(): void {
    this.latest.cancel();
    if (this.st.kind !== "idle") this.set({ kind: "idle" });
  }

  /** stop ends the answer streaming now, keeping what came so far (the Stop button). */
  stop(): void {
    const s = this.st;
    if (s.kind !== "streaming") return;
    this.latest.cancel();
    this.set({ ...s, kind: "stopped" });
  }

  private set(s: AskState): void {
    this.st = s;
    this.deps.onChange(s);
  }
}

/**
 * answerMarkdown is a checked answer as Markdown to insert in a note or
 * copy: each [n] becomes a link to its passage's note and heading, and the
 * sources follow as a list. linkText turns a note path into what goes
 * inside [[…]].
 */
export function answerMarkdown(a: Pick<AskDone, "answer" | "citations">, linkText: (path: string) => string): string {
  const target = (c: WireCitation) => {
    const h = (c.headingPath ?? []).at(-1)?.replace(/[[\]#|^]/g, " ").replace(/\s+/g, " ").trim();
    return h ? `${linkText(c.path)}#${h}` : linkText(c.path);
  };
  const byN = new Map(a.citations.map((c) => [c.number, c]));
  const body = a.answer.trim().replace(/\[(\d{1,3})\]/g, (m, n: string) => {
    const c = byN.get(Number(n));
    return c ? `([[${target(c)}|${n}]])` : m;
  });
  if (a.citations.length === 0) return body;
  const seen = new Set<string>();
  const sources: string[] = [];
  for (const c of a.citations) {
    const t = target(c);
    if (seen.has(t)) continue;
    seen.add(t);
    sources.push(`${c.number}. [[${t}]]`);
  }
  return `${body}\n\nSources:\n${sources.join("\n")}`;
}
