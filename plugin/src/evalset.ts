// The question set of the Evaluate search view: a JSON-lines gold file in
// the vault (the format `quire eval --gold` reads), parsed, checked and
// written back. It knows nothing of Obsidian's UI: the vault is passed in.
import { TFile, type Vault, normalizePath } from "obsidian";
import type { EvalQuestion, EvalRank } from "../../proto/proto.gen";

/**
 * MARK opens every questions file the view writes. `quire eval` skips
 * lines that start with "//"; the view writes over a file only when its
 * first line is this one, so a file the user or another tool wrote is
 * never replaced.
 */
export const MARK = "// Quire: the questions of the Evaluate search view. One JSON object a line: question, expected (the notes that answer it), answer (optional: its words as the note has them), type (optional). `quire eval --gold FILE` reads it too.";

/** QuestionRow is one question as the view edits it. */
export interface QuestionRow {
  question: string;
  /** note is the note that answers it, vault-relative. */
  note: string;
  /** also are further expected notes a line named after the first. */
  also: string[];
  answer: string;
  type: string;
  /** extra keeps the fields of the line the view does not edit, written back as they were. */
  extra: Record<string, unknown>;
}

/** QuestionSet is a parsed questions file. */
export interface QuestionSet {
  rows: QuestionRow[];
  /** comments are the file's "//" lines other than MARK, kept at the top when it is written. */
  comments: string[];
  /** ours is true when the file opens with MARK: the view may write over it. */
  ours: boolean;
}

/** blankRow is a question not written yet. */
export function blankRow(): QuestionRow {
  return { question: "", note: "", also: [], answer: "", type: "", extra: {} };
}

const KNOWN = new Set(["question", "query", "expected", "expected_notes", "answer", "span", "type"]);

const str = (v: unknown): string => (typeof v === "string" ? v : "");
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

/**
 * parseSet reads a questions file as `quire eval` reads JSON lines
 * (question or query; expected and expected_notes; answer or span). A
 * line that is not a JSON object is an error naming it: the view would
 * lose it on writing.
 */
export function parseSet(text: string): QuestionSet {
  const set: QuestionSet = { rows: [], comments: [], ours: false };
  const lines = text.split(/\r?\n/);
  set.ours = lines[0]?.trim() === MARK;
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || (i === 0 && set.ours)) return;
    if (line.startsWith("//")) {
      set.comments.push(line);
      return;
    }
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      throw new Error(`line ${i + 1} is not JSON`);
    }
    if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error(`line ${i + 1} is not a JSON object`);
    const o = v as Record<string, unknown>;
    const expected = [...strs(o["expected"]), ...strs(o["expected_notes"])];
    const extra: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(o)) if (!KNOWN.has(k)) extra[k] = x;
    set.rows.push({
      question: str(o["question"]) || str(o["query"]),
      note: expected[0] ?? "",
      also: expected.slice(1),
      answer: str(o["answer"]) || str(o["span"]),
      type: str(o["type"]),
      extra,
    });
  });
  return set;
}

/** isBlank reports whether a row has nothing written in it. */
export function isBlank(r: QuestionRow): boolean {
  return r.question.trim() === "" && r.note.trim() === "" && r.answer.trim() === "" && r.type.trim() === "";
}

/** formatSet writes a set as a questions file: MARK, the comments, one line per question; blank rows are left out. */
export function formatSet(set: Pick<QuestionSet, "rows" | "comments">): string {
  const lines = [MARK, ...set.comments];
  for (const r of set.rows) {
    if (isBlank(r)) continue;
    const o: Record<string, unknown> = { question: r.question.trim(), expected: [r.note.trim(), ...r.also].filter((n) => n !== "") };
    if (r.answer.trim() !== "") o["answer"] = r.answer.trim();
    if (r.type.trim() !== "") o["type"] = r.type.trim();
    lines.push(JSON.stringify({ ...o, ...r.extra }));
  }
  return lines.join("\n") + "\n";
}

/**
 * problems lists what keeps a set from running, one sentence per row at
 * fault: a question with no words, no note, or a note that is not a note
 * of the vault. Blank rows are not questions and pass.
 */
export function problems(rows: readonly QuestionRow[], isNote: (path: string) => boolean): string[] {
  const out: string[] = [];
  rows.forEach((r, i) => {
    if (isBlank(r)) return;
    const n = `Question ${i + 1}`;
    if (r.question.trim() === "") out.push(`${n} has no words.`);
    if (r.note.trim() === "") out.push(`${n} names no note that answers it.`);
    else if (!isNote(r.note.trim())) out.push(`${n}: ${r.note.trim()} is not a note of this vault.`);
  });
  if (rows.every(isBlank)) out.push("Write a question first.");
  return out;
}

/** toWire is the set as eval.run takes it: its rows that are not blank. */
export function toWire(rows: readonly QuestionRow[]): EvalQuestion[] {
  return rows
    .filter((r) => !isBlank(r))
    .map((r) => {
      const q: EvalQuestion = { question: r.question.trim(), expected: [r.note.trim(), ...r.also] };
      if (r.answer.trim() !== "") q.answer = r.answer.trim();
      if (r.type.trim() !== "") q.type = r.type.trim();
      return q;
    });
}

/** missed lists the questions whose answer did not reach the first k passages. */
export function missed(ranks: readonly EvalRank[], k: number): EvalRank[] {
  return ranks.filter((r) => r.rank === 0 || r.rank > k);
}

/** rankText says where a missed answer got to, as the eval report does. */
export function rankText(r: EvalRank): string {
  if (!r.reachable) return "Unreachable: no passage holds the answer's words whole";
  if (r.rank === 0) return "Not in the first 50";
  return `Rank ${r.rank}`;
}

/** checkPath refuses a questions file path outside the vault's own notes: it must be a .jsonl file, not in a dot folder. */
export function checkPath(path: string): string {
  const p = normalizePath(path.trim());
  if (!p.endsWith(".jsonl")) throw new Error("The questions file must end in .jsonl.");
  if (p.split("/").some((part) => part === ".." || part.startsWith("."))) throw new Error("The questions file must be in the vault, outside dot folders.");
  return p;
}

/** SetVault is the part of the vault a questions file is read and written through. */
export type SetVault = Pick<Vault, "getAbstractFileByPath" | "read" | "create" | "createFolder" | "process">;

/** readSet reads a questions file: its text, or null when there is none. */
export async function readSet(vault: SetVault, path: string): Promise<string | null> {
  const f = vault.getAbstractFileByPath(checkPath(path));
  return f instanceof TFile ? vault.read(f) : null;
}

/**
 * writeSet writes text as the questions file at path. loaded is what the
 * view read from that file, null when it found none. A new file is
 * created (with its folder) only where there was none. An existing one is
 * replaced, in one step (Vault.process), only when it opens with MARK and
 * still holds what the view read: never a file the view did not write,
 * one it did not read, nor an edit made elsewhere since.
 */
export async function writeSet(vault: SetVault, path: string, text: string, loaded: string | null): Promise<void> {
  const p = checkPath(path);
  const f = vault.getAbstractFileByPath(p);
  if (f !== null && loaded === null) throw new Error(`${p} exists: load it first, or name another file.`);
  if (f === null) {
    const dir = p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "";
    if (dir !== "" && vault.getAbstractFileByPath(dir) === null) await vault.createFolder(dir);
    await vault.create(p, text);
    return;
  }
  if (!(f instanceof TFile)) throw new Error(`${p} is a folder.`);
  await vault.process(f, (now) => {
    if (now.split(/\r?\n/)[0]?.trim() !== MARK) throw new Error(`${p} was not written by Quire: it is left as it is. Save the questions under another name.`);
    if (now !== loaded) throw new Error(`${p} changed since it was loaded: load it again before saving.`);
    return text;
  });
}
