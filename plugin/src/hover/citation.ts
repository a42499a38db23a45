// The citation popover: hovering a citation shows the exact cited passage
// (its stored byte range, not the whole note) with its note and heading;
// clicking jumps there. It reads notes, it never writes them. The Ask modal
// and saved answer notes attach it to their citation elements.
import { bytesBetween, headingLabel, sha256Hex, sliceBytes } from "../passage";

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
  /** text is the passage as it was when the answer was written; when set, a change is noticed. */
  text?: string;
  /** hash is the hex SHA-256 of the passage's bytes when the answer was written (saved answer notes keep this, not the text). */
  hash?: string;
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
  /** open opens a note scrolled to a byte offset. */
  open(path: string, start: number): void;
  /** doc is the document to draw in (the popout window's, when there is one). */
  doc?: Document;
  /** hideDelayMs is how long the popover stays after the pointer leaves, to let it move in. */
  hideDelayMs?: number;
}

/** CitationView is what the popover shows for a citation. */
export interface CitationView {
  title: string;
  heading: string;
  text: string;
  /** changed is set when the note no longer holds the cited text at that place. */
  changed: boolean;
}

/**
 * describeCitation reads the cited passage from the note's current text:
 * the stored byte range, compared with the stored text or hash to notice
 * that the note changed since.
 */
export async function describeCitation(c: Citation, current: string): Promise<CitationView> {
  const text = sliceBytes(current, c.start, c.end);
  let changed = c.text !== undefined && c.text !== text;
  if (!changed && c.hash) changed = (await sha256Hex(bytesBetween(current, c.start, c.end))) !== c.hash.toLowerCase();
  return {
    title: c.title || c.path.replace(/\.md$/, "").split("/").at(-1) || c.path,
    heading: headingLabel(c.headingPath ?? []),
    text,
    changed,
  };
}

/**
 * CitationHover draws one popover at a time. attach wires an element;
 * dispose removes the popover and every listener attach added.
 */
export class CitationHover {
  private pop: HTMLElement | null = null;
  private hideTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly cleanups: (() => void)[] = [];
  private shown = 0;

  constructor(private readonly deps: CitationHoverDeps) {}

  /** attach shows the popover for c while the pointer is over el and opens c on click. */
  attach(el: HTMLElement, c: Citation): () => void {
    el.addClass("quire-citation");
    const enter = () => void this.show(el, c);
    const leave = () => this.scheduleHide();
    const click = (evt: MouseEvent) => {
      evt.preventDefault();
      this.hide();
      this.deps.open(c.path, c.start);
    };
    // The keyboard gets the same: focus shows the passage, Enter opens it.
    const key = (evt: KeyboardEvent) => {
      if (evt.key !== "Enter") return;
      evt.preventDefault();
      this.hide();
      this.deps.open(c.path, c.start);
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
      view = await describeCitation(c, await this.deps.noteText(c.path));
    } catch (err) {
      view = { title: c.title ?? c.path, heading: headingLabel(c.headingPath ?? []), text: `Could not read the note: ${String(err)}`, changed: false };
    }
    if (seq !== this.shown) return null; // the pointer moved on to another citation
    this.removePopover();
    const doc = this.deps.doc ?? ("rect" in anchor ? anchor.doc : anchor.ownerDocument);
    const pop = doc.createElement("div");
    pop.className = "quire-citation-popover popover";
    const head = pop.appendChild(doc.createElement("div"));
    head.className = "quire-citation-head";
    const title = head.appendChild(doc.createElement("span"));
    title.className = "quire-citation-title";
    title.textContent = view.title;
    if (view.heading) {
      const h = head.appendChild(doc.createElement("span"));
      h.className = "quire-citation-heading";
      h.textContent = view.heading;
    }
    if (view.changed) {
      const w = pop.appendChild(doc.createElement("div"));
      w.className = "quire-citation-changed";
      w.textContent = "This note changed since the answer was written; this is the current text at that place.";
    }
    const body = pop.appendChild(doc.createElement("div"));
    body.className = "quire-citation-text";
    body.textContent = view.text;
    pop.addEventListener("mouseenter", () => this.cancelHide());
    pop.addEventListener("mouseleave", () => this.scheduleHide());
    pop.addEventListener("click", () => {
      this.hide();
      this.deps.open(c.path, c.start);
    });
    const r = "rect" in anchor ? anchor.rect : anchor.getBoundingClientRect();
    const win = doc.defaultView;
    const width = Math.min(420, (win?.innerWidth ?? 800) - 16);
    pop.style.width = `${width}px`;
    pop.style.left = `${Math.max(8, Math.min(r.left, (win?.innerWidth ?? 800) - width - 8))}px`;
    pop.style.top = `${r.bottom + 6}px`;
    doc.body.appendChild(pop);
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
    this.hideTimer = setTimeout(() => this.hide(), this.deps.hideDelayMs ?? 300);
  }

  private cancelHide(): void {
    if (this.hideTimer !== null) clearTimeout(this.hideTimer);
    this.hideTimer = null;
  }

  private removePopover(): void {
    this.pop?.remove();
    this.pop = null;
  }
}
