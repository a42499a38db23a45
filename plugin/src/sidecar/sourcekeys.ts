/**
 * Notes of other sources than the vault (git repositories and folders
 * configured beside it) come over the wire as { source, path }, path
 * inside that source. The plugin keeps one string per note, as the
 * engine does: the vault's notes by their path, another source's by
 * "<source>:<path>", which no vault file has (Obsidian refuses ":" in
 * names), so such a note can never be taken for, or opened as, a file
 * of the vault.
 */

/** SOURCE_KEY matches a key of another source's note: "<id>:<path>". */
const SOURCE_KEY = /^([a-z0-9][a-z0-9_-]{1,63}):(.*)$/;

/** keyPaths rewrites, in place, the path of every object under v that names another source than the vault as "<source>:<path>". */
export function keyPaths(v: unknown): void {
  if (Array.isArray(v)) {
    for (const x of v) keyPaths(x);
    return;
  }
  if (v === null || typeof v !== "object") return;
  const o = v as Record<string, unknown>;
  if (typeof o.source === "string" && typeof o.path === "string" && o.source !== "" && o.source !== "vault" && !o.path.startsWith(`${o.source}:`)) {
    o.path = `${o.source}:${o.path}`;
  }
  for (const x of Object.values(o)) if (x !== null && typeof x === "object") keyPaths(x);
}

/** sourceOf returns the source id of a key of another source's note, or null for a vault path. */
export function sourceOf(key: string): string | null {
  const m = SOURCE_KEY.exec(key);
  return m && !m[1]!.includes("/") ? m[1]! : null;
}
