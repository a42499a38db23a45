// Downloading the engine: the build for this OS and CPU and this plugin's
// exact version, from the release address, checked against the SHA-256
// compiled into main.js. The panel (views/engine.ts) draws its state.
import { type EngineBuild, assetName, downloadedPath, type Platform } from "./engine";
import type { Download } from "./node";

/** DEV_BUILD_TEXT says why a development build of the plugin downloads nothing. */
export const DEV_BUILD_TEXT =
  "This is a development build of the plugin: it carries no engine checksums, so it will not download an engine it cannot check. Build the engine (scripts/build) and set its path in Settings → Quire.";

/** InstallState is what the first-run panel shows. */
export type InstallState =
  | { kind: "idle" }
  | { kind: "downloading"; done: number; total: number }
  | { kind: "failed"; message: string; refused: boolean }
  | { kind: "done"; path: string };

/** InstallDeps is what a download needs. */
export interface InstallDeps {
  platform: Platform;
  version: string;
  /** key is this machine's build ("linux_amd64"), null when there is none. */
  key: string | null;
  builds: Readonly<Record<string, EngineBuild>>;
  /** releaseUrl is the address releases are under (<url>/<version>/<asset>). */
  releaseUrl(): string;
  download(d: Download): Promise<void>;
  log(message: string, ...detail: unknown[]): void;
}

/** Installer downloads the engine once at a time and reports its progress. */
export class Installer {
  private st: InstallState = { kind: "idle" };
  private ctrl: AbortController | null = null;
  private readonly listeners = new Set<(s: InstallState) => void>();

  constructor(private readonly deps: InstallDeps) {}

  get state(): InstallState {
    return this.st;
  }

  /** build is the release file for this machine, or null when this plugin build has none (a development build, or an OS without one). */
  get build(): EngineBuild | null {
    return this.deps.key ? (this.deps.builds[this.deps.key] ?? null) : null;
  }

  /** url is where the build is downloaded from. */
  get url(): string {
    const b = this.build;
    return b ? `${this.deps.releaseUrl().replace(/\/+$/, "")}/${this.deps.version}/${b.file}` : "";
  }

  /** dest is where the engine is kept, in the user's data folder. */
  get dest(): string | null {
    return downloadedPath(this.deps.platform, this.deps.version);
  }

  onChange(cb: (s: InstallState) => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  /** install downloads and checks the engine; it resolves with its path, or null when it failed or was cancelled. */
  async install(): Promise<string | null> {
    if (this.st.kind === "downloading") return null;
    const b = this.build;
    const dest = this.dest;
    if (!b || !dest) {
      this.set({ kind: "failed", refused: true, message: this.noBuild() });
      return null;
    }
    if (b.file !== assetName(this.deps.version, this.deps.key ?? "")) this.deps.log("unexpected asset name", b.file);
    const ctrl = new AbortController();
    this.ctrl = ctrl;
    this.set({ kind: "downloading", done: 0, total: b.size });
    try {
      await this.deps.download({
        url: this.url,
        sha256: b.sha256,
        size: b.size,
        dest,
        signal: ctrl.signal,
        onProgress: (done, total) => {
          // One redraw per percent, not one per network chunk.
          const pct = (n: number) => Math.floor((n * 100) / Math.max(1, total));
          const cur = this.st;
          if (cur.kind === "downloading" && pct(cur.done) === pct(done) && done < total) return;
          this.set({ kind: "downloading", done, total });
        },
      });
    } catch (err) {
      this.ctrl = null;
      if (ctrl.signal.aborted) {
        this.set({ kind: "idle" });
        return null;
      }
      const refused = (err as { refused?: boolean }).refused === true;
      this.deps.log("download", err);
      this.set({
        kind: "failed",
        refused,
        message: refused
          ? `The downloaded file does not match the SHA-256 this plugin was built with, so it was thrown away and never run (${(err as Error).message}).`
          : `The download failed: ${(err as Error).message}.`,
      });
      return null;
    }
    this.ctrl = null;
    this.set({ kind: "done", path: dest });
    return dest;
  }

  /** noBuild says why there is nothing to download: a development build carries no checksums, so it downloads nothing. */
  noBuild(): string {
    if (Object.keys(this.deps.builds).length === 0) return DEV_BUILD_TEXT;
    if (!this.deps.key) return "Quire has no engine build for this kind of computer: build the engine from source and set its path in Settings → Quire.";
    return `This release of the plugin carries no engine build for ${this.deps.key}: build the engine from source and set its path in Settings → Quire.`;
  }

  /** cancel stops a download; nothing of it is kept. */
  cancel(): void {
    this.ctrl?.abort();
  }

  private set(s: InstallState): void {
    this.st = s;
    for (const cb of [...this.listeners]) cb(s);
  }
}
