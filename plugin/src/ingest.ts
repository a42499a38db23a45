// Ingest from the clipboard, the parts that need no protocol yet: checking
// what the clipboard holds and wording progress. The ribbon button and
// command are wired when the ingest messages land in proto/ (IngestBackend
// below is the shape they will fill).

/** ClipboardUrl is the clipboard checked: a URL to ingest, or why not. */
export type ClipboardUrl = { ok: true; url: string } | { ok: false; message: string };

/** parseClipboardUrl accepts one http(s) URL, trimmed; anything else gets a short sentence. */
export function parseClipboardUrl(text: string): ClipboardUrl {
  const t = text.trim();
  if (t === "") return { ok: false, message: "The clipboard is empty. Copy a web address first." };
  if (/\s/.test(t)) return { ok: false, message: "The clipboard holds more than one web address." };
  let u: URL;
  try {
    u = new URL(t);
  } catch {
    return { ok: false, message: "The clipboard does not hold a web address." };
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    return { ok: false, message: `Only http and https addresses can be ingested, not ${u.protocol.replace(/:$/, "")}.` };
  }
  if (u.hostname === "") return { ok: false, message: "The web address has no host." };
  return { ok: true, url: u.href };
}

/** IngestStage is where an ingest stands, as the sidecar will report it. */
export type IngestStage =
  | { stage: "queued" }
  | { stage: "fetching" }
  | { stage: "reading"; done: number; total: number }
  | { stage: "writing" }
  | { stage: "done"; path: string }
  | { stage: "failed"; message: string };

/** ingestProgressText is the Notice and status bar wording for a stage. */
export function ingestProgressText(s: IngestStage): string {
  switch (s.stage) {
    case "queued":
      return "Quire: queued";
    case "fetching":
      return "Quire: fetching…";
    case "reading":
      return `Quire: reading ${s.done}/${s.total}`;
    case "writing":
      return "Quire: writing the note…";
    case "done":
      return `Quire: saved ${s.path}`;
    case "failed":
      return `Quire: ${s.message}`;
  }
}

/** IngestBackend is what the ingest command needs from the sidecar client. */
export interface IngestBackend {
  /** ingest queues url and reports each stage until done or failed. */
  ingest(url: string, onStage: (s: IngestStage) => void, signal?: AbortSignal): Promise<IngestStage>;
}
