// Citation markers in rendered answers: the answer's Markdown carries
// [n] after each claim, which Markdown renders as plain text. These turn
// each [n] that names a known citation into an element the hover can
// attach to, in the Ask modal and in saved answer notes alike.

/** MARKER matches one citation marker, [n]. */
const MARKER = /\[(\d{1,3})\]/g;

/** SKIP are elements whose text is not prose: code, and links the renderer made already. */
const SKIP = new Set(["CODE", "PRE", "A", "SCRIPT", "STYLE"]);

/**
 * linkCitationMarkers replaces each [n] in root's text whose n is in known
 * with a span.quire-citation-marker, and calls wire for it. It returns
 * how many markers it linked; [n] naming an unknown citation stays text.
 */
export function linkCitationMarkers(root: HTMLElement, known: ReadonlySet<number>, wire: (el: HTMLElement, n: number) => void): number {
  const doc = root.ownerDocument;
  const texts: Text[] = [];
  const walker = doc.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */, {
    acceptNode(node) {
      for (let p = node.parentElement; p && p !== root.parentElement; p = p.parentElement) {
        if (SKIP.has(p.tagName) || p.classList.contains("quire-citation-marker")) return 2; // FILTER_REJECT
      }
      return (node.nodeValue ?? "").includes("[") ? 1 : 3; // FILTER_ACCEPT : FILTER_SKIP
    },
  });
  for (let n = walker.nextNode(); n; n = walker.nextNode()) texts.push(n as Text);
  let linked = 0;
  for (const t of texts) {
    const parent = t.parentElement;
    if (!parent) continue;
    const value = t.nodeValue ?? "";
    let last = 0;
    for (const m of value.matchAll(MARKER)) {
      const n = Number(m[1]);
      if (!known.has(n)) continue;
      if (m.index > last) parent.insertBefore(doc.createTextNode(value.slice(last, m.index)), t);
      // createSpan appends; insertBefore then moves the marker to its place in the text.
      const el = parent.createSpan({
        cls: "quire-citation-marker",
        text: m[0],
        attr: { "data-citation": String(n), tabindex: 0, role: "link", "aria-label": `Citation ${n}` },
      });
      parent.insertBefore(el, t);
      wire(el, n);
      linked++;
      last = m.index + m[0].length;
    }
    if (last === 0) continue;
    if (last < value.length) t.nodeValue = value.slice(last);
    else t.remove();
  }
  return linked;
}
