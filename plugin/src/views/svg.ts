// The eval report's pictures, which the engine draws as SVG text, shown
// without inserting markup: the text is parsed as XML apart from the page
// and rebuilt from a closed list of elements and attributes, so nothing
// the pictures carry (a question's words, in <title>) can become a script,
// an event handler or a link, whatever the engine sent.

const SVG_NS = "http://www.w3.org/2000/svg";

/** ELEMENTS are the elements the engine's charts use (sidecar/eval/svg.go). */
const ELEMENTS = new Set(["svg", "g", "title", "line", "polyline", "rect", "circle", "text"]);

/**
 * ATTRIBUTES are the presentation and geometry attributes they use;
 * anything else (an event handler, href, style) is dropped, and so is a
 * value that names a resource (url()), which could fetch.
 */
const ATTRIBUTES = new Set([
  "viewBox", "width", "height", "role", "aria-label", "class",
  "x", "y", "x1", "x2", "y1", "y2", "cx", "cy", "r", "points",
  "fill", "fill-opacity", "stroke", "stroke-width", "stroke-dasharray", "text-anchor",
]);

/**
 * safeSvg rebuilds the SVG document in markup from known elements and
 * attributes, in doc; it returns null when markup is not one SVG
 * document. Text is copied as text.
 */
export function safeSvg(markup: string, doc: Document): SVGSVGElement | null {
  const parsed = new DOMParser().parseFromString(markup, "image/svg+xml");
  const root = parsed.documentElement;
  if (root.namespaceURI !== SVG_NS || root.localName !== "svg" || parsed.getElementsByTagName("parsererror").length > 0) return null;
  return copy(root, doc) as SVGSVGElement;
}

function copy(from: Element, doc: Document): Element {
  const el = doc.createElementNS(SVG_NS, from.localName);
  for (const a of Array.from(from.attributes)) {
    if (a.namespaceURI === null && ATTRIBUTES.has(a.name) && !/url\(/i.test(a.value)) el.setAttribute(a.name, a.value);
  }
  for (const n of Array.from(from.childNodes)) {
    if (n.nodeType === 3) el.appendChild(doc.createTextNode(n.textContent ?? ""));
    else if (n.nodeType === 1) {
      const child = n as Element;
      if (child.namespaceURI === SVG_NS && ELEMENTS.has(child.localName) && child.localName !== "svg") el.appendChild(copy(child, doc));
    }
  }
  return el;
}
