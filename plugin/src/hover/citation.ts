// The citation popover: hovering a citation shows the exact cited passage
// (its stored byte range, not the whole note) with its note and heading;
// clicking jumps there. It reads notes, it never writes them. The Ask modal
// and saved answer notes attach it to their citation elements.
import { bytesBetween, headingLabel, isPDF, sha256Hex, sliceBytes } from "../passage";

/** Citation points at a passage: a note and a byte range in it. */
export interface Citation {
  /** n is the citation's number in its answer, [n]. */
  n?: number;
  /** id is the passage id, "<path>#<n>". */
  id?: string;
  path: string;
  start: number;
  end: number;
  title?: string;
  headingPath?: string[];
  /** page is the page of a PDF the passage is on; a PDF's start and end are offsets in the text read from it, not in the file. */
  page?: number;
  /** text is the passage as it was when the answer was written; when set, a change is noticed. */
  text?: string;
  /** hash is the hex SHA-256 of the passage's bytes when the answer was written (saved answer notes keep this, not the text). */
  hash?: string;
  /** quotedIn is the saved answer note that quotes the passage (its Sources), read when text is unknown. */
  quotedIn?: string;
}

/** TextAnchor is a place on screen to show the popover at, with the document to draw in. */
export interface TextAnchor {
  rect: { left: number; top: number; bottom: number };
  doc: Document;
}

/** CitationHoverDeps is what the popover needs. */
export interface CitationHoverDeps {
  /** noteText returns a note's current text (vault read, or note.get). */
  noteText(path: string): Promise<string>;
  /** open opens a note scrolled to a byte offset, or a PDF at its page. */
  open(path: string, start: number, page?: number): void;
  /** doc is the document to draw in (the popout window's, when there is one). */
  doc?: Document;
  /** hideDelayMs is how long the popover stays after the pointer leaves, to let it move in. */
  hideDelayMs?: number;
  /** render draws Markdown as Obsidian draws a note (MarkdownRenderer); without it the passage shows as its raw text. */
  render?(markdown: string, el: HTMLElement, sourcePath: string): Promise<void>;
}

/**
 * quotedSources reads the passages a saved answer quotes under its Sources
 * heading ("[n] link" then "> " lines, as ask.RenderNote writes them), by
 * citation number: with them the hover can find a passage that moved.
 */
export function quotedSources(note: string): Map<number, string> {
  const out = new Map<number, string>();
  const i = note.search(/^## Sources\s*$/m);
  if (i < 0) return out;
  let n: number | null = null;
  let lines: string[] = [];
  const flush = () => {
    if (n !== null && lines.length > 0) out.set(n, lines.join("\n").trim());
    lines = [];
  };
  for (const line of note.slice(i).split("\n").slice(1)) {
    const head = /^\[(\d{1,3})\]\s/.exec(line);
    if (head) {
      flush();
      n = Number(head[1]);
    } else if (n !== null && /^>/.test(line)) {
      lines.push(line.replace(/^> ?/, ""));
    } else if (/^#{1,2}\s/.test(line)) {
      break;
    }
  }
  flush();
  return out;
}

/** Where is what became of a cited passage in the note's current text. */
export type Where = "same" | "moved" | "changed" | "gone";

/** CitationView is what the popover shows for a citation. */
export interface CitationView {
  title: string;
  heading: string;
  /** text is the passage as the note holds it now, or as it was cited when it is gone. */
  text: string;
  where: Where;
  /** note says in a sentence what became of the passage; empty when it is where it was. */
  note: string;
  /** start is the byte offset to open the note at: where the passage is now. */
  start: number;
}

const NOTES: Record<Where, string> = {
  same: "",
  moved: "This passage moved in the note since the answer was written; it is shown where it is now.",
  changed: "This passage was edited since the answer was written; this is the closest text in the note now.",
  gone: "This passage is no longer in the note. This is the text that was cited.",
};

/** byteOffset is the UTF-8 byte offset of UTF-16 index i in text. */
function byteOffset(text: string, i: number): number {
  return new TextEncoder().encode(text.slice(0, i)).length;
}

/** words are a text's lowercased words, for comparing a passage with its edit. */
function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * nearest finds the run of the note's blocks (paragraphs between blank
 * lines) that shares the most words with the cited text, and how much:
 * the share of the cited text's words found there, less a penalty for
 * extra words, in 0..1.
 */
export function nearest(cited: string, current: string): { text: string; index: number; score: number } | null {
  const want = words(cited);
  if (want.length === 0) return null;
  const wantSet = new Set(want);
  const blocks: { text: string; index: number }[] = [];
  const re = /[^\n](?:[\s\S]*?)(?=\n[ \t]*\n|$)/g;
  for (const m of current.matchAll(re)) blocks.push({ text: m[0].trimEnd(), index: m.index });
  let best: { text: string; index: number; score: number } | null = null;
  // A passage may span a few blocks: try runs of up to four.
  for (let i = 0; i < blocks.length; i++) {
    for (let n = 1; n <= 4 && i + n <= blocks.length; n++) {
      const first = blocks[i]!;
      const last = blocks[i + n - 1]!;
      const text = current.slice(first.index, last.index + last.text.length);
      const have = words(text);
      const haveSet = new Set(have);
      let shared = 0;
      for (const w of wantSet) if (haveSet.has(w)) shared++;
      const recall = shared / wantSet.size;
      const precision = haveSet.size === 0 ? 0 : shared / haveSet.size;
      const score = (2 * recall * precision) / (recall + precision || 1);
      if (!best || score > best.score) best = { text, index: first.index, score };
    }
  }
  return best;
}

/** NEAR_ENOUGH is the word overlap (F1) above which an edited passage counts as the same passage. */
export const NEAR_ENOUGH = 0.6;

/**
 * describeCitation finds the cited passage in the note's current text:
 * at its stored byte range when the stored text or hash still matches
 * there; elsewhere in the note when it moved (found by its text, or by
 * its hash at each line start); the closest block when it was edited; or
 * it says plainly that the passage is gone, never passing off whatever
 * bytes now sit at the old offsets as the cited text.
 */
export async function describeCitation(c: Citation, current: string): Promise<CitationView> {
  const base = {
    title: c.title || c.path.replace(/\.md$/, "").split("/").at(-1) || c.path,
    heading: headingLabel(c.headingPath ?? [], c.page),
  };
  const view = (where: Where, text: string, start: number): CitationView => ({ ...base, text, where, note: NOTES[where], start });
  const at = sliceBytes(current, c.start, c.end);
  const cited = c.text?.trim();
  if (cited !== undefined ? at.trim() === cited : c.hash ? (await sha256Hex(bytesBetween(current, c.start, c.end))) === c.hash.toLowerCase() : true) {
    return view("same", at, c.start);
  }
  if (cited) {
    const i = current.indexOf(cited);
    if (i >= 0) return view("moved", cited, byteOffset(current, i));
  } else if (c.hash) {
    const len = c.end - c.start;
    const bytes = new TextEncoder().encode(current);
    const want = c.hash.toLowerCase();
    for (let i = 0; i + len <= bytes.length; i++) {
      if (i > 0 && bytes[i - 1] !== 10) continue; // passages start at a line
      if ((await sha256Hex(bytes.subarray(i, i + len))) === want) return view("moved", sliceBytes(current, i, i + len), i);
    }
  }
  if (cited) {
    const near = nearest(cited, current);
    if (near && near.score >= NEAR_ENOUGH) return view("changed", near.text, byteOffset(current, near.index));
    return view("gone", cited, c.start);
  }
  return { ...view("gone", "", c.start), note: "This passage is no longer in the note as it was cited: it was edited or removed." };
}

/** describePDF shows a PDF's cited passage as the engine read it from its page. */
export function describePDF(c: Citation): CitationView {
  return {
    title: c.title || c.path.split("/").at(-1) || c.path,
    heading: headingLabel(c.headingPath ?? [], c.page),
    text: c.text ?? "",
    where: "same",
    note: "",
    start: c.start,
  };
}

/**
 * CitationHover draws one popover at a time. attach wires an element;
 * dispose removes the popover and every listener attach added.
 */
export class CitationHover {
  private pop: HTMLElement | null = null;
  private hideTimer: number | null = null;
  private readonly cleanups: (() => void)[] = [];
  private shown = 0;
  /** described is the element whose aria-describedby names the popover shown now. */
  private described: HTMLElement | null = null;
  /** located remembers where each citation's passage was found last, so a click opens it there. */
  private readonly located = new WeakMap<Citation, number>();

  constructor(private readonly deps: CitationHoverDeps) {}

  /** attach shows the popover for c while the pointer is over el and opens c on click. */
  attach(el: HTMLElement, c: Citation): () => void {
    el.addClass("quire-citation");
    const enter = () => void this.show(el, c);
    const leave = () => this.scheduleHide();
    const click = (evt: MouseEvent) => {
      evt.preventDefault();
      this.hide();
      this.deps.open(c.path, this.located.get(c) ?? c.start, c.page);
    };
    // The keyboard gets the same: focus shows the passage, Enter opens it.
    const key = (evt: KeyboardEvent) => {
      if (evt.key !== "Enter") return;
      evt.preventDefault();
      this.hide();
      this.deps.open(c.path, this.located.get(c) ?? c.start, c.page);
    };
    el.addEventListener("mouseenter", enter);
    el.addEventListener("mouseleave", leave);
    el.addEventListener("focus", enter);
    el.addEventListener("blur", leave);
    el.addEventListener("click", click);
    el.addEventListener("keydown", key);
    const off = () => {
      el.removeEventListener("mouseenter", enter);
      el.removeEventListener("mouseleave", leave);
      el.removeEventListener("focus", enter);
      el.removeEventListener("blur", leave);
      el.removeEventListener("click", click);
      el.removeEventListener("keydown", key);
    };
    this.cleanups.push(off);
    return off;
  }

  /**
   * show draws the popover for c under anchor: an element, or a place in
   * the editor's text (which has no element of its own).
   */
  async show(anchor: HTMLElement | TextAnchor, c: Citation): Promise<HTMLElement | null> {
    this.cancelHide();
    const seq = ++this.shown;
    let view: CitationView;
    try {
      let cited = c;
      if (c.text === undefined && c.quotedIn !== undefined && c.n !== undefined) {
        const quoted = quotedSources(await this.deps.noteText(c.quotedIn)).get(c.n);
        if (quoted) cited = { ...c, text: quoted };
      }
      // A PDF is not text to compare: its passage is shown as cited.
      view = isPDF(c.path) ? describePDF(cited) : await describeCitation(cited, await this.deps.noteText(c.path));
    } catch (err) {
      view = { title: c.title ?? c.path, heading: headingLabel(c.headingPath ?? []), text: `Could not read the note: ${String(err)}`, where: "same", note: "", start: c.start };
    }
    if (seq !== this.shown) return null; // the pointer moved on to another citation
    this.located.set(c, view.start);
    this.removePopover();
    const doc = this.deps.doc ?? ("rect" in anchor ? anchor.doc : anchor.ownerDocument);
    const pop = doc.body.createDiv({ cls: "quire-citation-popover popover", attr: { role: "tooltip", id: `quire-citation-${seq}` } });
    const head = pop.createDiv({ cls: "quire-citation-head" });
    head.createSpan({ cls: "quire-citation-title", text: view.title });
    if (view.heading) head.createSpan({ cls: "quire-citation-heading", text: view.heading });
    if (view.note) pop.createDiv({ cls: `quire-citation-changed is-${view.where}`, text: view.note });
    if (view.text && this.deps.render) {
      // As the note shows it: no raw ** or hard wraps.
      const body = pop.createDiv({ cls: "quire-citation-text markdown-rendered" });
      await this.deps.render(view.text, body, c.path);
      if (seq !== this.shown) {
        pop.remove(); // the pointer moved on while it was drawn
        return null;
      }
    } else if (view.text) pop.createDiv({ cls: "quire-citation-text", text: view.text });
    if (!("rect" in anchor)) {
      anchor.setAttr("aria-describedby", pop.id);
      this.described = anchor;
    }
    pop.addEventListener("mouseenter", () => this.cancelHide());
    pop.addEventListener("mouseleave", () => this.scheduleHide());
    pop.addEventListener("click", () => {
      this.hide();
      this.deps.open(c.path, this.located.get(c) ?? c.start, c.page);
    });
    const r = "rect" in anchor ? anchor.rect : anchor.getBoundingClientRect();
    const win = doc.defaultView;
    const width = Math.min(420, (win?.innerWidth ?? 800) - 16);
    pop.style.width = `${width}px`;
    pop.style.left = `${Math.max(8, Math.min(r.left, (win?.innerWidth ?? 800) - width - 8))}px`;
    pop.style.top = `${r.bottom + 6}px`;
    // Near the bottom of the window, show it above the citation instead.
    const h = pop.getBoundingClientRect().height;
    const winH = win?.innerHeight ?? 600;
    if (r.bottom + 6 + h > winH - 8 && r.top - 6 - h >= 8) pop.style.top = `${r.top - 6 - h}px`;
    this.pop = pop;
    return pop;
  }

  /** release hides the popover after a moment, unless the pointer moves into it. */
  release(): void {
    this.scheduleHide();
  }

  /** hide removes the popover now. */
  hide(): void {
    this.cancelHide();
    this.shown++;
    this.removePopover();
  }

  /** dispose removes the popover and all listeners attach added. */
  dispose(): void {
    this.hide();
    for (const off of this.cleanups.splice(0)) off();
  }

  private scheduleHide(): void {
    this.cancelHide();
    this.hideTimer = window.setTimeout(() => this.hide(), this.deps.hideDelayMs ?? 300);
  }

  private cancelHide(): void {
    if (this.hideTimer !== null) window.clearTimeout(this.hideTimer);
    this.hideTimer = null;
  }

  private removePopover(): void {
    this.pop?.remove();
    this.pop = null;
    this.described?.removeAttribute("aria-describedby");
    this.described = null;
  }
}
