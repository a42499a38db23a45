import { type MarkdownPostProcessor, MarkdownRenderChild } from "obsidian";
import { type Citation, CitationHover, type CitationHoverDeps } from "./citation";
import { linkCitationMarkers } from "./markers";

/**
 * savedCitations reads a saved answer's citations from its frontmatter
 * (written by the sidecar's ask.RenderNote: quire: answer, and per
 * citation its number, note, heading path (a list, as on the wire), byte
 * range and hash). It returns null for any other note, and skips entries
 * it cannot use. notePath is the answer note's own path, whose Sources
 * section quotes each passage.
 */
export function savedCitations(frontmatter: unknown, notePath?: string): Map<number, Citation> | null {
  if (typeof frontmatter !== "object" || frontmatter === null) return null;
  const fm = frontmatter as Record<string, unknown>;
  if (fm["quire"] !== "answer" || !Array.isArray(fm["citations"])) return null;
  const out = new Map<number, Citation>();
  for (const raw of fm["citations"] as unknown[]) {
    if (typeof raw !== "object" || raw === null) continue;
    const c = raw as Record<string, unknown>;
    const n = c["number"];
    const note = c["note"];
    const start = c["start"];
    const end = c["end"];
    if (typeof n !== "number" || typeof note !== "string" || typeof start !== "number" || typeof end !== "number" || end < start) continue;
    const hs = c["headingPath"];
    const headingPath = Array.isArray(hs) ? hs.filter((h): h is string => typeof h === "string") : [];
    const cit: Citation = { n, path: note, start, end, headingPath };
    if (typeof c["hash"] === "string" && c["hash"] !== "") cit.hash = c["hash"];
    if (notePath !== undefined) cit.quotedIn = notePath;
    out.set(n, cit);
  }
  return out;
}

/**
 * answerNoteProcessor links the [n] markers of saved answer notes, in the
 * reading view, to the citation hover: it shows the stored byte range of
 * the cited note and says so when the note changed since (its hash
 * differs). It only reads notes; nothing is written into them.
 */
export function answerNoteProcessor(deps: Omit<CitationHoverDeps, "doc">): MarkdownPostProcessor {
  return (el, ctx) => {
    const cits = savedCitations(ctx.frontmatter, ctx.sourcePath);
    if (!cits || cits.size === 0) return;
    const hover = new CitationHover({ ...deps, doc: el.ownerDocument });
    const linked = linkCitationMarkers(el, new Set(cits.keys()), (marker, n) => {
      const c = cits.get(n);
      if (c) hover.attach(marker, c);
    });
    if (linked === 0) return;
    const child = new MarkdownRenderChild(el);
    child.register(() => hover.dispose());
    ctx.addChild(child);
  };
}
