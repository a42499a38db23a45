// Searching the vault without Obsidian: the words of a query, a passage's
// line with those words marked, the folder and tag filters, and the link a
// result inserts. The search modal draws what these return.
import type { DateSpan } from "../../proto/proto.gen";
import { snippet } from "./passage";

/** Piece is a run of a highlighted line: hit marks a query word. */
export interface Piece {
  text: string;
  hit: boolean;
}

/** fold lowercases and strips accents, so that "cafe" marks "Café". */
function fold(s: string): string {
  return s.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

/** queryTerms are the words of a query worth marking: two letters or more, folded, without repeats. */
export function queryTerms(query: string): string[] {
  const out: string[] = [];
  for (const w of query.match(/[\p{L}\p{N}]+/gu) ?? []) {
    const f = fold(w);
    if (f.length >= 2 && !out.includes(f)) out.push(f);
  }
  return out;
}

/**
 * highlight cuts a passage to one line of about max characters around its
 * first query word and splits it into pieces, marking the words the engine
 * says the query matched (matched: the passage's words, as search.result
 * gives them, stemmed and translated as the search was), or, from an
 * engine that does not say, every word that starts with a query term or
 * its crude stem.
 */
export function highlight(text: string, terms: readonly string[], max = 180, matched?: readonly string[]): Piece[] {
  const line = snippet(text, 100_000);
  const words = [...line.matchAll(/[\p{L}\p{N}]+/gu)];
  let isHit: (w: string) => boolean;
  if (matched !== undefined) {
    const set = new Set(matched.map(fold));
    isHit = (w) => set.has(fold(w));
  } else {
    // A term marks words that start with it or with its stem ("feeding" marks "Feed").
    const stems = terms.map((t) => (t.length > 5 ? t.replace(/(ing|ed|es|s)$/, "") : t));
    isHit = (w) => {
      const f = fold(w);
      return stems.some((t) => f.startsWith(t));
    };
  }
  const first = words.find((m) => isHit(m[0]));
  let from = 0;
  if (first && first.index > max / 3) {
    const cut = line.lastIndexOf(" ", first.index - Math.floor(max / 4));
    from = cut > 0 ? cut + 1 : 0;
  }
  let to = Math.min(line.length, from + max);
  if (to < line.length) {
    const cut = line.lastIndexOf(" ", to);
    if (cut > from + max / 2) to = cut;
  }
  const pieces: Piece[] = [];
  const push = (t: string, hit: boolean) => {
    if (t === "") return;
    const last = pieces.at(-1);
    if (last && last.hit === hit) last.text += t;
    else pieces.push({ text: t, hit });
  };
  if (from > 0) push("…", false);
  let at = from;
  for (const m of words) {
    if (m.index < from || m.index + m[0].length > to) continue;
    if (!isHit(m[0])) continue;
    push(line.slice(at, m.index), false);
    push(m[0], true);
    at = m.index + m[0].length;
  }
  push(line.slice(at, to), false);
  if (to < line.length) push("…", false);
  return pieces;
}

/** Filter narrows results to a folder and a tag; empty strings mean no filter. */
export interface Filter {
  folder: string;
  tag: string;
}

/** bareTag is a tag as typed ("#Garden", "Garden/") without its "#" and trailing slashes: "Garden". */
export function bareTag(tag: string): string {
  return tag.trim().replace(/^#+/, "").replace(/\/+$/, "");
}

/** normalizeTag is a tag as typed ("#Garden", "garden/") in the form compared: "garden". */
export function normalizeTag(tag: string): string {
  return bareTag(tag).toLowerCase();
}

/** scopeFields are a folder and a tag as the engine takes them (search.query's filter, ask.query's scope): the folder without surrounding slashes, the tag bare, empty parts left out. */
export function scopeFields(folder: string, tag: string): { folder?: string; tag?: string } {
  const f = folder.trim().replace(/^\/+|\/+$/g, "");
  const t = bareTag(tag);
  return { ...(f !== "" ? { folder: f } : {}), ...(t !== "" ? { tag: t } : {}) };
}

/**
 * filterFields are the filter as search.query sends it: the engine filters
 * before it cuts to k, so k passages inside the filter come back whenever
 * k exist. Empty parts are left out.
 */
export function filterFields(f: Filter): { folder?: string; tag?: string } {
  return scopeFields(f.folder, normalizeTag(f.tag));
}

/** wikiLink is the link a result inserts: [[target#Heading]], the innermost heading when the passage has one. */
export function wikiLink(target: string, headingPath: readonly string[]): string {
  const h = headingPath.at(-1);
  // Obsidian link syntax cannot hold these in a heading reference.
  const clean = h?.replace(/[[\]#|^]/g, " ").replace(/\s+/g, " ").trim();
  return clean ? `[[${target}#${clean}]]` : `[[${target}]]`;
}

/**
 * datesLabel says which days a query asked about, as the engine read them
 * ("last week", "in March 2024"): "notes from March 2024", "notes from
 * 2024", "notes from 23 Nov 2026 to 29 Nov 2026", in the app's language.
 */
export function datesLabel(d: DateSpan, locale?: string): string {
  const day = (s: string) => new Date(`${s}T00:00:00Z`);
  const from = day(d.from);
  const through = day(d.through);
  if (Number.isNaN(from.getTime()) || Number.isNaN(through.getTime())) return "";
  const fmt = (t: Date, o: Intl.DateTimeFormatOptions) => t.toLocaleDateString(locale, { ...o, timeZone: "UTC" });
  const next = new Date(through.getTime() + 86_400_000);
  const firstOfMonth = from.getUTCDate() === 1 && next.getUTCDate() === 1;
  if (firstOfMonth && from.getUTCMonth() === 0 && next.getUTCMonth() === 0 && next.getUTCFullYear() === from.getUTCFullYear() + 1) {
    return `notes from ${from.getUTCFullYear()}`;
  }
  if (firstOfMonth && next.getTime() === Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 1)) {
    return `notes from ${fmt(from, { month: "long", year: "numeric" })}`;
  }
  const long = { day: "numeric", month: "short", year: "numeric" } as const;
  if (d.from === d.through) return `notes from ${fmt(from, long)}`;
  return `notes from ${fmt(from, long)} to ${fmt(through, long)}`;
}
