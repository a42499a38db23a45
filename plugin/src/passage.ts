// Passages are byte ranges of a note's raw Markdown (see proto.Passage).
// Editors count lines and UTF-16 units, so these turn one into the other.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** lineAtByte is the zero-based line on which byte offset lies in text's UTF-8 encoding. */
export function lineAtByte(text: string, offset: number): number {
  const bytes = encoder.encode(text);
  const end = Math.max(0, Math.min(offset, bytes.length));
  let line = 0;
  for (let i = 0; i < end; i++) if (bytes[i] === 10) line++;
  return line;
}

/** sliceBytes returns the text between two UTF-8 byte offsets of text, clamped to it. */
export function sliceBytes(text: string, start: number, end: number): string {
  const bytes = encoder.encode(text);
  const s = Math.max(0, Math.min(start, bytes.length));
  const e = Math.max(s, Math.min(end, bytes.length));
  return decoder.decode(bytes.subarray(s, e));
}

/** headingLabel is a passage's breadcrumb, "Method › Proofing", or "" above the first heading; a PDF's passage adds its page. */
export function headingLabel(headingPath: readonly string[], page?: number): string {
  const crumb = headingPath.join(" › ");
  if (!page) return crumb;
  return crumb ? `${crumb}, page ${page}` : `Page ${page}`;
}

/** isPDF says whether a vault path is a PDF, whose passages the engine reads from its pages (they carry a page, not lines). */
export function isPDF(path: string): boolean {
  return /\.pdf$/i.test(path);
}

/**
 * snippet is a short plain line from a passage for a list: heading lines
 * and Markdown markers dropped, whitespace folded, cut at a word near max.
 */
export function snippet(text: string, max = 160): string {
  const body = text
    .split("\n")
    .filter((l) => !/^\s*#{1,6}\s/.test(l) && !/^\s*(---|```|~~~)/.test(l))
    .map((l) => l.replace(/^\s*(?:[-+*]|\d+[.)])\s+(?:\[[ xX]\]\s+)?/, ""))
    .join(" ")
    .replace(/!?\[\[([^\]|]*)\|?([^\]]*)\]\]/g, (_m, target: string, alias: string) => alias || target)
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[*_`>]+/g, "")
    .replace(/\s+/g, " ")
    .trim();
  if (body.length <= max) return body;
  const cut = body.lastIndexOf(" ", max);
  return body.slice(0, cut > max / 2 ? cut : max).trimEnd() + "…";
}

/**
 * bytesBetween returns the UTF-8 bytes of text between two byte offsets,
 * clamped, for hashing exactly what a citation stored.
 */
export function bytesBetween(text: string, start: number, end: number): Uint8Array {
  const bytes = encoder.encode(text);
  const s = Math.max(0, Math.min(start, bytes.length));
  const e = Math.max(s, Math.min(end, bytes.length));
  return bytes.subarray(s, e);
}

/** sha256Hex is the lowercase hex SHA-256 of bytes, as the sidecar stores citation hashes. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
