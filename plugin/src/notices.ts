// Notices for what the sidecar pushes into the open vault: notes it wrote
// (note.written) and review items (review.created), each with an Open
// button. Writes that come in a burst (an ingest writes a source note and
// several concept pages) make one notice, and a note a surface opens by
// itself (a saved answer, an ingested page) gets none.
import type { NoteWritten, ReviewCreated } from "../../proto/proto.gen";
import { followClient } from "./sidecar/follow";
import type { Sidecar } from "./sidecar/lifecycle";

/** NoticeAction is a button in a notice. */
export interface NoticeAction {
  label: string;
  run(): void;
}

/**
 * LastOffer remembers the buttons of the last notice that had any, so that
 * the command "Open what the last notice offered" reaches them from the
 * keyboard: a notice's buttons take no focus.
 */
export class LastOffer {
  private actions: NoticeAction[] = [];
  private hide: (() => void) | null = null;

  /** remember keeps a notice's buttons, and how to hide it once one is used. */
  remember(actions: NoticeAction[], hide: () => void): void {
    if (actions.length === 0) return;
    this.actions = actions;
    this.hide = hide;
  }

  /** forget drops the buttons of a notice that was used or hidden. */
  forget(): void {
    this.actions = [];
    this.hide = null;
  }

  /** run uses the first button of the last notice that offered one, once; false when none waits. */
  run(): boolean {
    const a = this.actions[0];
    if (!a) return false;
    this.hide?.();
    this.forget();
    a.run();
    return true;
  }
}

/** PushedNoticesDeps is what the pushed-event notices need. */
export interface PushedNoticesDeps {
  sidecar: Pick<Sidecar, "state" | "onChange">;
  /** show draws a notice with a message, optional lines and buttons, for timeoutMs. */
  show(message: string, lines: string[], actions: NoticeAction[], timeoutMs: number): void;
  /** openNote opens a vault note. */
  openNote(path: string): void;
  /** reviewCreated is told of each review item, for the review view. */
  reviewCreated?(r: ReviewCreated): void;
  /** settleMs is how long writes are gathered before one notice shows them. */
  settleMs?: number;
}

const KIND_WORDS: Record<string, string> = {
  source: "source note",
  concept: "concept page",
  entity: "entity page",
  answer: "answer",
  index: "index",
  log: "log",
};

/** writtenText words one written note: "Quire wrote the source note X". */
export function writtenText(w: NoteWritten): string {
  const name = w.path.replace(/\.md$/, "").split("/").at(-1) ?? w.path;
  const kind = KIND_WORDS[w.kind] ?? "note";
  return `Quire ${w.created ? "wrote" : "updated"} the ${kind} “${name}”.`;
}

/** PushedNotices follows note.written and review.created on whatever connection is open. */
export class PushedNotices {
  private readonly unfollow: () => void;
  private pending: NoteWritten[] = [];
  private timer: number | null = null;
  private readonly quiet = new Map<string, number>();

  constructor(private readonly deps: PushedNoticesDeps) {
    this.unfollow = followClient(deps.sidecar, (client) =>
      client ? [client.on("note.written", (w) => this.written(w)), client.on("review.created", (r) => this.review(r))] : undefined,
    );
  }

  /**
   * opening tells it a surface opens path itself, so its note.written
   * needs no notice (the event may come just before or just after).
   */
  opening(path: string): void {
    this.quiet.set(path, Date.now());
    this.pending = this.pending.filter((w) => w.path !== path);
  }

  /** dispose stops following and drops gathered writes. */
  dispose(): void {
    this.unfollow();
    if (this.timer !== null) window.clearTimeout(this.timer);
    this.timer = null;
    this.pending = [];
  }

  private isQuiet(path: string): boolean {
    const at = this.quiet.get(path);
    if (at === undefined) return false;
    if (Date.now() - at > 60_000) {
      this.quiet.delete(path);
      return false;
    }
    return true;
  }

  private written(w: NoteWritten): void {
    // Review items have their own notice; Quire's index and log change with every ingest.
    if (w.kind === "index" || w.kind === "log" || /\/Review\//.test(w.path)) return;
    if (this.isQuiet(w.path)) return;
    this.pending.push(w);
    if (this.timer !== null) return;
    this.timer = window.setTimeout(() => this.flush(), this.deps.settleMs ?? 500);
  }

  private flush(): void {
    this.timer = null;
    const ws = this.pending.filter((w) => !this.isQuiet(w.path));
    this.pending = [];
    if (ws.length === 0) return;
    const first = ws[0]!;
    if (ws.length === 1) {
      this.deps.show(writtenText(first), [], [{ label: "Open", run: () => this.deps.openNote(first.path) }], 8000);
      return;
    }
    const lines = ws.slice(0, 5).map((w) => w.path.replace(/\.md$/, ""));
    if (ws.length > 5) lines.push(`and ${ws.length - 5} more`);
    this.deps.show(`Quire wrote ${ws.length} notes.`, lines, [{ label: "Open", run: () => this.deps.openNote(first.path) }], 10_000);
  }

  private review(r: ReviewCreated): void {
    this.deps.reviewCreated?.(r);
    const actions: NoticeAction[] = [{ label: "Open", run: () => this.deps.openNote(r.path) }];
    this.deps.show(`Quire: something to review. ${r.reason}`, [], actions, 12_000);
  }
}
