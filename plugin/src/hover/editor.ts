import type { Extension } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { type MetadataCache, editorInfoField } from "obsidian";
import { savedCitations } from "./answer-note";
import type { Citation, CitationHover } from "./citation";

/** Marker is one [n] in a line of text: its number and its character range. */
export interface Marker {
  n: number;
  from: number;
  to: number;
}

/** markerAt finds the [n] that covers character ch of line, or null. */
export function markerAt(line: string, ch: number): Marker | null {
  for (const m of line.matchAll(/\[(\d{1,3})\]/g)) {
    const from = m.index;
    const to = from + m[0].length;
    if (ch >= from && ch < to) return { n: Number(m[1]), from, to };
    if (from > ch) break;
  }
  return null;
}

/** AnswerEditorDeps is what the editor hover needs. */
export interface AnswerEditorDeps {
  metadataCache: Pick<MetadataCache, "getFileCache">;
  hover: Pick<CitationHover, "show" | "release" | "hide">;
  /** open opens a cited note at a byte offset. */
  open(path: string, start: number, page?: number): void;
}

/**
 * answerEditorHover gives saved answer notes the citation hover in the
 * editor (Live Preview and source mode), where the reading view's post
 * processor does not run: hovering an [n] that the note's frontmatter
 * lists shows the passage; Ctrl/Cmd-click opens it (a plain click still
 * places the cursor). It reads the note, never changes it.
 */
export function answerEditorHover(deps: AnswerEditorDeps): Extension {
  let shown: string | null = null;
  const citationAt = (evt: MouseEvent, view: EditorView): { c: Citation; from: number; to: number } | null => {
    const file = view.state.field(editorInfoField, false)?.file;
    if (!file) return null;
    const cits = savedCitations(deps.metadataCache.getFileCache(file)?.frontmatter, file.path);
    if (!cits) return null;
    const pos = view.posAtCoords({ x: evt.clientX, y: evt.clientY });
    if (pos === null) return null;
    const line = view.state.doc.lineAt(pos);
    const m = markerAt(line.text, pos - line.from);
    const c = m ? cits.get(m.n) : undefined;
    return m && c ? { c, from: line.from + m.from, to: line.from + m.to } : null;
  };
  return EditorView.domEventHandlers({
    mousemove(evt, view) {
      const hit = citationAt(evt, view);
      const key = hit ? `${hit.from}` : null;
      if (key === shown) return false;
      shown = key;
      if (!hit) {
        deps.hover.release();
        return false;
      }
      const a = view.coordsAtPos(hit.from);
      const b = view.coordsAtPos(hit.to, -1);
      if (!a) return false;
      void deps.hover.show({ rect: { left: a.left, top: a.top, bottom: Math.max(a.bottom, b?.bottom ?? a.bottom) }, doc: view.dom.ownerDocument }, hit.c);
      return false;
    },
    mouseleave() {
      if (shown !== null) deps.hover.release();
      shown = null;
      return false;
    },
    mousedown(evt, view) {
      if (!(evt.ctrlKey || evt.metaKey)) return false;
      const hit = citationAt(evt, view);
      if (!hit) return false;
      evt.preventDefault();
      deps.hover.hide();
      shown = null;
      deps.open(hit.c.path, hit.c.start, hit.c.page);
      return true;
    },
  });
}
