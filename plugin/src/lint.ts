// The command "Check the generated notes" (shown as "Quire: Check the
// generated notes"; Obsidian's rules keep the plugin's name out of a
// command's): the engine's lint.run, told in a notice,
// with the report note opened when there is something to look at.
import type { LintResult } from "../../proto/proto.gen";
import type { Client } from "./sidecar/client";

/** LintDeps is what the command needs; main.ts builds it. */
export interface LintDeps {
  /** client is the connected engine's client, null while offline. */
  client: () => Client | null;
  notice: (message: string, ms: number) => void;
  /** openNote opens a note Quire wrote (the report). */
  openNote: (path: string) => void;
  /** reviewChanged refreshes the review views, which list lint's items beside ingest's. */
  reviewChanged: () => void;
  log: (what: string, err: unknown) => void;
}

/** lintText says what a check found, in one sentence or two. */
export function lintText(res: LintResult): string {
  const notes = `${res.notes} ${res.notes === 1 ? "note" : "notes"}`;
  if (res.defects.length === 0) return `Quire checked ${notes} it wrote: nothing to mend.`;
  const n = res.defects.length;
  let s = `Quire checked ${notes} it wrote: ${n} ${n === 1 ? "thing" : "things"} to look at`;
  const decide = res.defects.filter((d) => d.review).length;
  if (decide > 0) s += `, ${decide} of them in Review`;
  s += ".";
  if (res.warning) s += ` ${res.warning}.`;
  return s;
}

/** checkNotes runs the check and reports it; the report opens when it lists anything. */
export async function checkNotes(deps: LintDeps): Promise<void> {
  const client = deps.client();
  if (!client) {
    deps.notice("Quire is offline: start it (Quire: Start or reconnect), then check its notes.", 8000);
    return;
  }
  let res: LintResult;
  try {
    res = await client.request("lint.run", {}, { timeoutMs: 120_000 });
  } catch (err) {
    deps.log("lint.run", err);
    deps.notice("Quire: its notes could not be checked. The developer console has the detail.", 8000);
    return;
  }
  deps.notice(lintText(res), 8000);
  if (res.review.length > 0) deps.reviewChanged();
  if (res.defects.length > 0 && res.report) deps.openNote(res.report);
}
