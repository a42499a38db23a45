// The sidecar's lifecycle as the plugin sees it: attach to the sidecar that
// serves this vault, or start one; reconnect with backoff after a drop;
// stop the process on unload only if the plugin started it. No Obsidian
// here: everything that touches the machine comes in through SidecarDeps.
import { Client, type SocketFactory } from "./client";
import { type ConnFile, connFilePath, parseConnFile } from "./connfile";

/** ChildHandle is a process the plugin started (child_process in the app). */
export interface ChildHandle {
  readonly pid: number | undefined;
  /** kill asks the process to stop (SIGTERM): the sidecar then shuts down cleanly. */
  kill(): void;
  /** onExit is called once when the process ends or could not start. */
  onExit(cb: (code: number | null, why: string) => void): void;
}

/** SidecarDeps is everything the lifecycle needs from the machine and the app. */
export interface SidecarDeps {
  /** vaultPath is the vault's absolute folder. */
  vaultPath: string;
  /** stateDir returns the state folder now (it follows the settings). */
  stateDir(): string;
  /** binaryPath returns the `quire` executable configured now; empty when unset. */
  binaryPath(): string;
  /** readFile returns a file's text, or null when it does not exist. */
  readFile(path: string): Promise<string | null>;
  /** isExecutable reports whether path names a file that can be run. */
  isExecutable(path: string): Promise<boolean>;
  /** spawn starts a process without a shell. */
  spawn(cmd: string, args: string[]): ChildHandle;
  /** isAlive reports whether a process id still runs (kill(pid, 0)). */
  isAlive(pid: number): boolean;
  socket: SocketFactory;
  /** notify shows the user a short sentence (a Notice in the app). */
  notify(message: string): void;
  /** log records detail for the developer console. */
  log(message: string, ...detail: unknown[]): void;
  clientName: string;
  /** timing overrides, for tests. */
  timing?: Partial<Timing>;
}

/** Timing holds the lifecycle's delays in milliseconds. */
export interface Timing {
  /** backoffMs is the first reconnect delay; each failure doubles it up to maxBackoffMs. */
  backoffMs: number;
  maxBackoffMs: number;
  /** pollMs is how often a started process's connection file is looked for. */
  pollMs: number;
  /** startTimeoutMs is how long a started process gets to write its connection file. */
  startTimeoutMs: number;
  /** connectTimeoutMs bounds one handshake. */
  connectTimeoutMs: number;
}

const DEFAULT_TIMING: Timing = {
  backoffMs: 500,
  maxBackoffMs: 30_000,
  pollMs: 250,
  startTimeoutMs: 60_000,
  connectTimeoutMs: 5000,
};

/** SidecarState is what the status bar and the views show. */
export type SidecarState =
  | { kind: "connecting" }
  | { kind: "starting" }
  | { kind: "online"; client: Client }
  | {
      kind: "offline";
      /** reason is a short sentence for people. */
      reason: string;
      /** canStart says whether a Start button can help (a binary is configured). */
      canStart: boolean;
      /** retryInMs is set while a reconnect is scheduled. */
      retryInMs?: number;
    };

/**
 * Sidecar owns the connection to this vault's sidecar and, when the plugin
 * started it, the process. Views read its state and subscribe to changes;
 * they never hold a client past a state change.
 */
export class Sidecar {
  private st: SidecarState = { kind: "offline", reason: "not started", canStart: false };
  private readonly listeners = new Set<(s: SidecarState) => void>();
  private readonly timing: Timing;
  private child: ChildHandle | null = null;
  private childExited = false;
  private attempt = 0;
  private timer: number | null = null;
  private disposed = false;
  /** run increases on every start/stop so that a stale async step can tell it lost. */
  private run = 0;
  private missingNoticed = "";

  constructor(private readonly deps: SidecarDeps) {
    this.timing = { ...DEFAULT_TIMING, ...deps.timing };
  }

  /** state is the current state. */
  get state(): SidecarState {
    return this.st;
  }

  /** client is the welcomed client while online, else null. */
  get client(): Client | null {
    return this.st.kind === "online" ? this.st.client : null;
  }

  /** startedProcess reports whether the plugin runs the sidecar process itself. */
  get startedProcess(): boolean {
    return this.child !== null && !this.childExited;
  }

  /** onChange calls cb on every state change; it returns the unsubscribe. */
  onChange(cb: (s: SidecarState) => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  /**
   * start attaches to a running sidecar, or starts one when none serves
   * the vault and a binary is configured. It resolves when the sidecar is
   * online or the attempt has ended offline (with a retry scheduled when
   * one might help). explicit says the user asked (a command, a button):
   * its notices show even when the same was said before.
   */
  async start(opts: { explicit?: boolean } = {}): Promise<void> {
    if (this.disposed) return;
    // An explicit action (a command, a button) always gets its answer, even one given before.
    if (opts.explicit) this.missingNoticed = "";
    this.clearTimer();
    const run = ++this.run;
    this.attempt = 0;
    this.set({ kind: "connecting" });
    if (await this.attach(run)) return;
    if (run !== this.run) return;
    await this.launch(run);
  }

  /**
   * stop closes the connection and, when the plugin started the sidecar,
   * stops it. A sidecar someone else started keeps running.
   */
  stop(): void {
    this.disposed = true;
    this.run++;
    this.clearTimer();
    this.client?.close();
    if (this.child && !this.childExited) {
      this.deps.log("stopping the sidecar the plugin started", this.child.pid);
      this.child.kill();
    }
    this.set({ kind: "offline", reason: "stopped", canStart: false });
    this.listeners.clear();
  }

  private set(s: SidecarState): void {
    this.st = s;
    for (const cb of [...this.listeners]) cb(s);
  }

  private clearTimer(): void {
    if (this.timer !== null) window.clearTimeout(this.timer);
    this.timer = null;
  }

  private async readConnFile(): Promise<ConnFile | null> {
    const text = await this.deps.readFile(connFilePath(this.deps.stateDir())).catch((err: unknown) => {
      this.deps.log("read connection file", err);
      return null;
    });
    return text === null ? null : parseConnFile(text);
  }

  /** attach connects to the sidecar named by the connection file; it reports success. */
  private async attach(run: number, wantPid?: number): Promise<boolean> {
    const cf = await this.readConnFile();
    if (run !== this.run || !cf) return false;
    if (wantPid !== undefined && cf.pid !== wantPid) return false; // a stale file from an earlier sidecar
    if (cf.pid > 0 && !this.deps.isAlive(cf.pid)) {
      this.deps.log("connection file names a process that is gone", cf.pid);
      return false;
    }
    let client: Client;
    try {
      client = await Client.connect({
        url: `ws://127.0.0.1:${cf.port}/`,
        token: cf.token,
        clientName: this.deps.clientName,
        socket: this.deps.socket,
        timeoutMs: this.timing.connectTimeoutMs,
      });
    } catch (err) {
      this.deps.log("connect", err);
      return false;
    }
    if (run !== this.run) {
      client.close();
      return false;
    }
    this.attempt = 0;
    client.onClose((reason) => this.dropped(client, reason));
    this.set({ kind: "online", client });
    return true;
  }

  /** launch starts the configured binary, or goes offline saying why it cannot. */
  private async launch(run: number): Promise<void> {
    if (this.child && !this.childExited) {
      // Ours is still starting or restarting its listener: wait for it.
      await this.waitForChild(run, this.child);
      return;
    }
    const bin = this.deps.binaryPath().trim();
    if (bin === "") {
      this.set({ kind: "offline", reason: "Quire does not run for this vault and no quire program is set.", canStart: false });
      this.noticeOnce("no-binary", "Quire does not run for this vault yet. Set the quire program in Settings → Quire to start it.");
      return;
    }
    if (!(await this.deps.isExecutable(bin))) {
      if (run !== this.run) return;
      this.set({ kind: "offline", reason: `The quire program was not found at ${bin}.`, canStart: false });
      this.noticeOnce(`missing:${bin}`, `Quire: the quire program was not found at ${bin}. Set its path in Settings → Quire.`);
      return;
    }
    if (run !== this.run) return;
    const args = ["serve", "--vault", this.deps.vaultPath, "--state", this.deps.stateDir()];
    this.deps.log("starting", bin, args);
    this.set({ kind: "starting" });
    let child: ChildHandle;
    try {
      child = this.deps.spawn(bin, args);
    } catch (err) {
      this.set({ kind: "offline", reason: `Could not start ${bin}: ${String(err)}`, canStart: true });
      return;
    }
    this.child = child;
    this.childExited = false;
    child.onExit((code, why) => {
      if (this.child !== child) return;
      this.childExited = true;
      this.deps.log("sidecar exited", code, why);
      if (this.disposed) return;
      if (this.st.kind === "starting") {
        this.set({ kind: "offline", reason: `Quire stopped while starting: ${why}`, canStart: true });
        this.deps.notify(`Quire stopped while starting (${why}). The developer console has the detail.`);
      }
    });
    await this.waitForChild(run, child);
  }

  /** waitForChild polls for the started process's connection file and attaches. */
  private async waitForChild(run: number, child: ChildHandle): Promise<void> {
    const deadline = Date.now() + this.timing.startTimeoutMs;
    while (run === this.run && this.child === child && !this.childExited) {
      // No pid yet means the spawn has not happened (or failed: onExit follows).
      if (child.pid !== undefined && (await this.attach(run, child.pid))) return;
      if (Date.now() >= deadline) {
        this.set({ kind: "offline", reason: "Quire did not start in time.", canStart: true });
        return;
      }
      await new Promise<void>((resolve) => {
        this.timer = window.setTimeout(resolve, this.timing.pollMs);
      });
    }
  }

  /** dropped reacts to a lost connection: retry with backoff. */
  private dropped(client: Client, reason: string): void {
    if (this.disposed || this.client !== client) return;
    this.deps.log("connection lost", reason);
    this.scheduleReconnect(`Connection lost: ${reason}.`);
  }

  private scheduleReconnect(reason: string): void {
    const delay = Math.min(this.timing.backoffMs * 2 ** this.attempt, this.timing.maxBackoffMs);
    this.attempt++;
    const canStart = this.deps.binaryPath().trim() !== "";
    this.set({ kind: "offline", reason, canStart, retryInMs: delay });
    const run = ++this.run;
    this.clearTimer();
    this.timer = window.setTimeout(() => {
      this.timer = null;
      void this.reconnect(run);
    }, delay);
  }

  /**
   * reconnect only attaches: a sidecar that went away may be restarting or
   * may have been stopped on purpose, and starting another behind the
   * user's back could loop on a crash. The Start button calls start.
   */
  private async reconnect(run: number): Promise<void> {
    if (run !== this.run) return;
    this.set({ kind: "connecting" });
    if (await this.attach(run)) return;
    if (run !== this.run) return;
    this.scheduleReconnect("Quire is not answering.");
  }

  private noticeOnce(key: string, message: string): void {
    if (this.disposed || this.missingNoticed === key) return;
    this.missingNoticed = key;
    this.deps.notify(message);
  }
}
