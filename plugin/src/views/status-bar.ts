import type { Batch } from "../ingest";
import { type IndexSnapshot, indexingPercent, statusBarText } from "../sidecar/status-tracker";

/** StatusBarDeps is what the status bar item needs. */
export interface StatusBarDeps {
  el: HTMLElement;
  tracker: { readonly snapshot: IndexSnapshot; onChange(cb: (s: IndexSnapshot) => void): () => void };
  /** ingest counts the batch of ingests running, when there is one. */
  ingest?: IngestFollower;
}

/** IngestFollower is the part of IngestTracker the status surfaces read. */
export interface IngestFollower {
  readonly batch: Batch | null;
  onChange(cb: () => void): () => void;
}

/**
 * StatusBar keeps the status bar item's text in step with the sidecar. It
 * returns its unsubscribe from bind, for the plugin to register.
 */
export class StatusBar {
  constructor(private readonly deps: StatusBarDeps) {
    deps.el.addClass("quire-status");
    deps.el.setAttr("aria-label", "Quire status: click for details");
  }

  /** bind draws now and on every change; it returns the unsubscribe. */
  bind(): () => void {
    const redraw = () => this.draw(this.deps.tracker.snapshot);
    redraw();
    const offs = [this.deps.tracker.onChange(redraw)];
    if (this.deps.ingest) offs.push(this.deps.ingest.onChange(redraw));
    return () => {
      for (const off of offs) off();
    };
  }

  private draw(s: IndexSnapshot): void {
    const el = this.deps.el;
    const batch = s.state === "online" ? (this.deps.ingest?.batch ?? null) : null;
    el.setText(statusBarText(s, batch));
    el.toggleClass("is-offline", s.state === "offline");
    el.toggleClass("is-busy", s.state === "online" && (batch !== null || indexingPercent(s) !== null));
  }
}
