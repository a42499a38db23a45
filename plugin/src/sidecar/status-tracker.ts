// What the sidecar says about its index, kept current from status.get
// replies and pushed events, and the few words the status bar shows.
import type { IndexProgress, SidecarWarning, StatusResult } from "../../../proto/proto.gen";
import type { Batch } from "../ingest";
import type { Client } from "./client";
import { followClient } from "./follow";
import type { Sidecar, SidecarState } from "./lifecycle";

/** IndexSnapshot is what the status bar, the status view and the related view read. */
export interface IndexSnapshot {
  state: SidecarState["kind"];
  /** offlineReason says why the sidecar is offline, when it is. */
  offlineReason: string;
  /** canStart says whether starting can help while offline (a program is set and was found). */
  canStart: boolean;
  /** status is the last status.get reply from this connection, null before it. */
  status: StatusResult | null;
  /** progress is the last index.progress event of a pass still running. */
  progress: IndexProgress | null;
  /** warnings are the sidecar.warning events of this session, newest last. */
  warnings: SidecarWarning[];
}

const MAX_WARNINGS = 20;

/**
 * StatusTracker follows the sidecar: it asks for the status when a
 * connection opens and after the index changes, and records progress and
 * warnings from events. It is throttled so that a burst of events costs one
 * status request.
 */
export class StatusTracker {
  private snap: IndexSnapshot = { state: "offline", offlineReason: "", canStart: false, status: null, progress: null, warnings: [] };
  private readonly listeners = new Set<(s: IndexSnapshot) => void>();
  private readonly unsubs: (() => void)[] = [];
  private refreshTimer: number | null = null;
  private client: Client | null = null;

  constructor(
    sidecar: Pick<Sidecar, "state" | "onChange">,
    private readonly refreshDelayMs = 500,
  ) {
    // Follow the client first, so that snapshot listeners hearing "online" find the new client in place.
    this.unsubs.push(followClient(sidecar, (client) => this.follow(client)));
    this.unsubs.push(sidecar.onChange((s) => this.onState(s)));
    this.onState(sidecar.state);
  }

  /** snapshot is the current picture. */
  get snapshot(): IndexSnapshot {
    return this.snap;
  }

  /** onChange calls cb whenever the snapshot changes; it returns the unsubscribe. */
  onChange(cb: (s: IndexSnapshot) => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  /** refresh asks for the status now. */
  async refresh(): Promise<void> {
    const c = this.client;
    if (!c) return;
    try {
      const status = await c.request("status.get", {}, { timeoutMs: 10_000 });
      if (c !== this.client) return;
      const progress = status.indexing ? this.snap.progress : null;
      this.update({ status, progress });
    } catch {
      // The connection's state change reports the failure.
    }
  }

  /** dispose stops following the sidecar. */
  dispose(): void {
    for (const u of this.unsubs.splice(0)) u();
    this.listeners.clear();
  }

  private follow(client: Client | null): (() => void)[] | void {
    this.client = client;
    if (!client) return;
    const unsubs = [
      client.on("index.progress", (p) => {
        this.update({ progress: p });
        if (p.done >= p.total) this.scheduleRefresh();
      }),
      client.on("index.changed", () => this.scheduleRefresh()),
      client.on("sidecar.warning", (w) => this.update({ warnings: [...this.snap.warnings, w].slice(-MAX_WARNINGS) })),
      // A refresh pending for this client is moot once it goes.
      () => this.cancelRefresh(),
    ];
    void this.refresh();
    return unsubs;
  }

  private onState(s: SidecarState): void {
    this.update({
      state: s.kind,
      offlineReason: s.kind === "offline" ? s.reason : "",
      canStart: s.kind === "offline" && s.canStart,
      ...(s.kind === "online" ? {} : { status: null, progress: null }),
    });
  }

  private cancelRefresh(): void {
    if (this.refreshTimer !== null) window.clearTimeout(this.refreshTimer);
    this.refreshTimer = null;
  }

  private scheduleRefresh(): void {
    if (this.refreshTimer !== null) return;
    this.refreshTimer = window.setTimeout(() => {
      this.refreshTimer = null;
      void this.refresh();
    }, this.refreshDelayMs);
  }

  private update(change: Partial<IndexSnapshot>): void {
    this.snap = { ...this.snap, ...change };
    for (const cb of [...this.listeners]) cb(this.snap);
  }
}

// The system locale, as the dates beside these numbers use.
const count = new Intl.NumberFormat();

/** percent rounds done/total down to a whole percent, so 100% means finished. */
export function percent(done: number, total: number): number {
  if (total <= 0) return 100;
  return Math.min(100, Math.floor((done / total) * 100));
}

/**
 * indexingPercent is how far the current pass has come, or null when no
 * scan or index pass runs (vector embedding alone does not count: search
 * already works then).
 */
export function indexingPercent(s: IndexSnapshot): number | null {
  const p = s.progress;
  if (p && p.phase !== "embed" && p.done < p.total) return percent(p.done, p.total);
  if (s.status?.indexing && s.status.notes === 0) return p && p.phase !== "embed" ? percent(p.done, p.total) : 0;
  return null;
}

/** vectorPercent is the share of passages that have a vector, or null when there is no embedder. */
export function vectorPercent(s: IndexSnapshot): number | null {
  const p = s.progress;
  if (p && p.phase === "embed" && p.total > 0 && p.done < p.total) return percent(p.done, p.total);
  const c = s.status?.coverage;
  if (!c || c.vectorsTotal === 0 || !s.status?.fingerprint.embedder) return null;
  return percent(c.vectorsDone, c.vectorsTotal);
}

/**
 * vectorsLeft is the sidecar's estimate of the time until every passage
 * has a vector, with the rate it comes from, or null while no passages are
 * being embedded or before the first batch gives a rate.
 */
export function vectorsLeft(s: IndexSnapshot): { perSecond: number; secondsLeft: number } | null {
  const p = s.progress;
  const live = p && p.phase === "embed" && p.done < p.total ? p : null;
  const c = s.status?.coverage;
  const from = live ?? (c && c.vectorsDone < c.vectorsTotal ? c : null);
  if (!from?.perSecond || from.secondsLeft === undefined) return null;
  return { perSecond: from.perSecond, secondsLeft: from.secondsLeft };
}

/** timeLeft words an estimate in seconds as a person would say it: "about 40 s left", "about 7 min left", "about 2 h 5 min left". */
export function timeLeft(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 1) return "almost done";
  if (s < 60) return `about ${s} s left`;
  const m = Math.round(seconds / 60);
  if (m < 60) return `about ${m} min left`;
  const h = Math.floor(m / 60);
  return m % 60 === 0 ? `about ${h} h left` : `about ${h} h ${m % 60} min left`;
}

/**
 * statusBarText is the status bar's few words, e.g. "Quire: 9,876 notes ·
 * vectors 62%, about 7 min left", or "Quire: ingesting 1/3 · reading 3/8" while a batch of
 * ingests runs.
 */
export function statusBarText(s: IndexSnapshot, ingest: Batch | null = null): string {
  switch (s.state) {
    case "offline":
      return "Quire: offline";
    case "connecting":
      return "Quire: connecting…";
    case "starting":
      return "Quire: starting…";
    case "online":
      break;
  }
  if (ingest) return `Quire: ingesting ${ingest.index}/${ingest.total}${ingest.step ? ` · ${ingest.step}` : ""}`;
  const idx = indexingPercent(s);
  if (idx !== null) return `Quire: indexing ${idx}%`;
  if (!s.status) return "Quire: connected";
  const n = s.status.notes;
  let text = `Quire: ${count.format(n)} ${n === 1 ? "note" : "notes"}`;
  const v = vectorPercent(s);
  if (v !== null && v < 100) {
    text += ` · vectors ${v}%`;
    const left = vectorsLeft(s);
    if (left) text += `, ${timeLeft(left.secondsLeft)}`;
  }
  return text;
}
