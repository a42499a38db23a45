// The engine's lifecycle as the plugin sees it: attach to the engine that
// serves this vault, or find an engine the user installed whose protocol
// range overlaps the plugin's and start it; restart it with backoff when
// it dies; stop it on unload, politely first, if the plugin started it.
// No Obsidian here: everything that touches the machine comes in through
// SidecarDeps.
import { Client, ClientError, type SocketFactory, lackingRequests } from "./client";
import { type ConnFile, connFilePath, newNonce, parseConnFile, proofOf, secretPath } from "./connfile";
import { type Compat, type EngineSource, type Found, compat } from "./locate";

/** ChildHandle is a process the plugin started (child_process in the app). */
export interface ChildHandle {
  readonly pid: number | undefined;
  /** terminate asks the process to stop: its stdin pipe closed, and SIGTERM where there is one. */
  terminate(): void;
  /** kill ends the process at once. */
  kill(): void;
  /** onExit is called once when the process ends or could not start. */
  onExit(cb: (code: number | null, why: string) => void): void;
  /** stderrTail is the last lines the process wrote to stderr. */
  stderrTail(): string[];
}

/** Action is a button on a notice. */
export interface Action {
  label: string;
  run(): void;
}

/** SidecarDeps is everything the lifecycle needs from the machine and the app. */
export interface SidecarDeps {
  /** vaultPath is the vault's absolute folder. */
  vaultPath: string;
  /** stateDir returns the state folder now (it follows the settings). */
  stateDir(): string;
  /** locate finds the engine to start (see engine.findEngine), or null when there is none. */
  locate(): Promise<Found | null>;
  /** configured is the engine path in settings ("" when none), for the message when no engine is found. */
  configured?(): string;
  /** parentPid is the app's process id, passed as --parent-pid so the engine ends with the app. */
  parentPid: number;
  /** readFile returns a file's text, or null when it does not exist. */
  readFile(path: string): Promise<string | null>;
  /** spawn starts a process without a shell. */
  spawn(cmd: string, args: string[]): ChildHandle;
  /** isAlive reports whether a process id still runs (kill(pid, 0)). */
  isAlive(pid: number): boolean;
  socket: SocketFactory;
  /** notify shows the user a short sentence (a Notice in the app), with buttons when actions are given. */
  notify(message: string, actions?: Action[]): void;
  /**
   * setup opens the first-run panel for a problem (no engine, one this
   * plugin cannot talk to, or one that lacks features), which shows the
   * command that installs or upgrades the engine on this system. The
   * lifecycle opens it by itself once, at the first automatic start; after
   * that, and when the user asked, a notice says the problem with a button
   * to it.
   */
  setup?: (p: EngineProblem) => void;
  /** showLog shows the engine's last stderr lines. */
  showLog?(lines: string[]): void;
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
  /** restartMs is the delay before the first restart of a crashed engine; it doubles per try. */
  restartMs: number;
  /** stableMs is how long an engine must have served for its crash count to start over. */
  stableMs: number;
  /** stopTimeoutMs is how long an engine asked to stop gets before it is killed. */
  stopTimeoutMs: number;
}

const DEFAULT_TIMING: Timing = {
  backoffMs: 500,
  maxBackoffMs: 30_000,
  pollMs: 250,
  startTimeoutMs: 60_000,
  connectTimeoutMs: 5000,
  restartMs: 1000,
  stableMs: 60_000,
  stopTimeoutMs: 5000,
};

/** MAX_RESTARTS is how many times a crashed engine is started again before the plugin gives up and says so. */
export const MAX_RESTARTS = 3;

/**
 * EXIT_LOCKED is the engine's exit code when the vault or its state folder
 * is in use by another quire (exitLocked in sidecar/cmd/quire): an engine
 * serves the vault, it is no crash.
 */
export const EXIT_LOCKED = 3;

const BUSY = "Quire runs for this vault but does not answer yet.";

/**
 * EngineProblem is what the first-run panel helps with: no engine found;
 * one whose protocol this plugin cannot talk (too old, or too new for
 * this plugin); or one that serves but lacks some of the plugin's
 * requests, being older.
 */
export type EngineProblem =
  | {
      kind: "missing";
      /** configured is the path in settings that holds no engine ("" when none is set). */
      configured: string;
    }
  | {
      kind: "incompatible";
      /** compat says which side is too old for the other. */
      compat: Exclude<Compat, "ok">;
      /** version is the engine's ("" when it could not say). */
      version: string;
      source: EngineSource;
      /** path is the engine's file, when the plugin found it. */
      path?: string;
      /** pid is the running engine's process, when one runs. */
      pid?: number;
    }
  | {
      kind: "lacking";
      version: string;
      /** lacking lists the request types this plugin has and the engine does not answer. */
      lacking: string[];
      source: EngineSource;
      pid?: number;
    };

/** EngineInfo is what the status view says about the engine. */
export interface EngineInfo {
  version: string;
  source: EngineSource;
  path: string;
  pid: number;
  /** restarts counts the restarts after crashes since it last served steadily. */
  restarts: number;
  /** lastExit says how the last crashed engine ended ("" when none did). */
  lastExit: string;
  /** lacking lists the plugin's requests that this (older) engine does not answer; empty when it answers all. */
  lacking: string[];
}

/** SidecarState is what the status bar and the views show. */
export type SidecarState =
  | { kind: "connecting" }
  | { kind: "starting" }
  | {
      kind: "online";
      client: Client;
      /**
       * proven says the engine proved it knows the state folder's secret
       * (welcome's proof): only then is it handed the API key. Anything may
       * listen on the port a stale connection file names.
       */
      proven?: boolean;
    }
  | {
      kind: "offline";
      /** reason is a short sentence for people. */
      reason: string;
      /** canStart says whether a Start button can help (an engine is there to start). */
      canStart: boolean;
      /** retryInMs is set while a reconnect or restart is scheduled. */
      retryInMs?: number;
      /** problem is set when the engine is missing or of another version: the first-run panel helps. */
      problem?: EngineProblem;
    };

type AttachResult = "online" | "none" | "busy" | "incompatible";

/**
 * Sidecar owns the connection to this vault's engine and, when the plugin
 * started it, the process. Views read its state and subscribe to changes;
 * they never hold a client past a state change.
 */
export class Sidecar {
  private st: SidecarState = { kind: "offline", reason: "not started", canStart: false };
  private readonly listeners = new Set<(s: SidecarState) => void>();
  private readonly timing: Timing;
  private child: ChildHandle | null = null;
  private childExited = false;
  /** found is the engine the plugin started last. */
  private found: Found | null = null;
  private info: EngineInfo | null = null;
  private attempt = 0;
  private restarts = 0;
  private lastExit = "";
  private onlineSince = 0;
  private timer: number | null = null;
  private disposed = false;
  /** stopping is set while the plugin itself stops its engine: its exit is no crash. */
  private stopping = false;
  /** run increases on every start/stop so that a stale async step can tell it lost. */
  private run = 0;
  private missingNoticed = "";
  /** explicit says the user asked for the current start (a command, a button, a settings change). */
  private explicit = false;
  /** panelOffered is set once the first-run panel has opened by itself. */
  private panelOffered = false;

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

  /** startedProcess reports whether the plugin runs the engine process itself. */
  get startedProcess(): boolean {
    return this.child !== null && !this.childExited;
  }

  /** engine describes the engine served by now (or last), or null before any. */
  get engine(): EngineInfo | null {
    return this.info ? { ...this.info, restarts: this.restarts, lastExit: this.lastExit } : null;
  }

  /** onChange calls cb on every state change; it returns the unsubscribe. */
  onChange(cb: (s: SidecarState) => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  /**
   * start attaches to a running engine, or starts one when none serves the
   * vault. It resolves when the engine is online or the attempt has ended
   * offline (with a retry scheduled when one might help). explicit says
   * the user asked (a command, a button): its notices show even when the
   * same was said before, and a crashed engine gets its tries anew.
   */
  async start(opts: { explicit?: boolean } = {}): Promise<void> {
    if (this.disposed) return;
    this.explicit = opts.explicit === true;
    if (opts.explicit) {
      this.missingNoticed = "";
      this.restarts = 0;
    }
    this.clearTimer();
    const run = ++this.run;
    this.attempt = 0;
    this.set({ kind: "connecting" });
    const got = await this.attach(run);
    if (run !== this.run || got === "online" || got === "incompatible") return;
    await this.launch(run, got === "busy" ? BUSY : undefined);
  }

  /**
   * replace stops the engine that runs now (the plugin's, or another one
   * when the user upgraded it by the panel's command) and starts the one
   * locate finds: the upgraded engine, once the panel has seen it.
   * An engine the plugin did not start is only asked to stop over a
   * welcomed connection: the pid in the connection file may since belong
   * to any process, and is never signalled.
   */
  async replace(): Promise<void> {
    if (this.disposed) return;
    this.clearTimer();
    this.run++;
    // The engine's exit and its socket's close are this step's doing, not a crash.
    this.stopping = true;
    const cf = await this.readConnFile();
    const child = this.child && !this.childExited ? this.child : null;
    if (child) {
      await this.stopChild(child);
    } else if (cf && cf.pid > 0 && this.client && this.deps.isAlive(cf.pid)) {
      void this.client.request("shutdown", {}, { timeoutMs: this.timing.stopTimeoutMs }).catch(() => undefined);
      await this.waitGone(cf.pid);
    }
    this.client?.close();
    this.stopping = false;
    await this.start({ explicit: true });
  }

  /**
   * stop closes the connection and, when the plugin started the engine,
   * stops it: a shutdown request over the websocket (or SIGTERM when not
   * connected), then a kill if it is still there after stopTimeoutMs. An
   * engine someone else started keeps running.
   */
  stop(): void {
    this.disposed = true;
    this.run++;
    this.clearTimer();
    const child = this.child && !this.childExited ? this.child : null;
    if (child) {
      this.deps.log("stopping the engine the plugin started", child.pid);
      void this.stopChild(child);
    } else {
      this.client?.close();
    }
    this.set({ kind: "offline", reason: "stopped", canStart: false });
    this.listeners.clear();
  }

  /** stopChild asks the plugin's engine to stop and kills it after the timeout; it resolves once it is gone. */
  private stopChild(child: ChildHandle): Promise<void> {
    this.stopping = true;
    const exited = new Promise<void>((resolve) => child.onExit(() => resolve()));
    const client = this.client;
    if (client) {
      void client
        .request("shutdown", {}, { timeoutMs: this.timing.stopTimeoutMs })
        .catch((err: unknown) => {
          // An engine from before the shutdown request: SIGTERM stops it cleanly (not on Windows).
          this.deps.log("shutdown request", err);
          child.terminate();
        })
        .finally(() => client.close());
    } else {
      child.terminate();
    }
    const killer = window.setTimeout(() => {
      this.deps.log("the engine did not stop in time: killing it", child.pid);
      child.kill();
    }, this.timing.stopTimeoutMs);
    return exited.then(() => window.clearTimeout(killer));
  }

  /** waitGone polls until pid has ended or the stop timeout has passed. */
  private async waitGone(pid: number): Promise<void> {
    const deadline = Date.now() + this.timing.stopTimeoutMs;
    while (this.deps.isAlive(pid) && Date.now() < deadline) {
      await new Promise<void>((resolve) => window.setTimeout(resolve, this.timing.pollMs));
    }
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

  /**
   * attach connects to the engine named by the connection file. It says
   * what it found: online; none (no file, or its process is gone); busy (a
   * live engine that does not answer); incompatible (one whose protocol
   * range does not overlap the plugin's, said to the user).
   */
  private async attach(run: number, wantPid?: number): Promise<AttachResult> {
    const cf = await this.readConnFile();
    if (run !== this.run || !cf) return "none";
    if (wantPid !== undefined && cf.pid !== wantPid) return "none"; // a stale file from an earlier engine
    if (cf.pid > 0 && !this.deps.isAlive(cf.pid)) {
      this.deps.log("connection file names a process that is gone", cf.pid);
      return "none";
    }
    const c = cf.protocol !== 0 ? compat(cf.minProtocol || cf.protocol, cf.protocol) : "ok";
    if (c !== "ok") {
      this.incompatible({ kind: "incompatible", compat: c, version: cf.version, source: "running", pid: cf.pid });
      return "incompatible";
    }
    let client: Client;
    const nonce = newNonce();
    try {
      client = await Client.connect({
        url: `ws://127.0.0.1:${cf.port}/`,
        token: cf.token,
        clientName: this.deps.clientName,
        socket: this.deps.socket,
        timeoutMs: this.timing.connectTimeoutMs,
        // An engine from before protocol ranges writes no minProtocol and
        // accepts its own version alone: the hello names that one.
        peerProtocol: cf.minProtocol === 0 ? cf.protocol : 0,
        nonce,
      });
    } catch (err) {
      this.deps.log("connect", err);
      if (run !== this.run) return "none";
      if (err instanceof ClientError && err.code === "unsupported_version") {
        const side = /update the client/.test(err.message) ? "plugin-too-old" : "engine-too-old";
        this.incompatible({ kind: "incompatible", compat: side, version: cf.version, source: "running", pid: cf.pid });
        return "incompatible";
      }
      return cf.pid > 0 ? "busy" : "none";
    }
    if (run !== this.run) {
      client.close();
      return "none";
    }
    this.attempt = 0;
    const ours = this.child !== null && !this.childExited && cf.pid === this.child.pid && this.found !== null;
    const version = client.welcome.version || cf.version;
    const lacking = lackingRequests(client.welcome);
    const source = ours && this.found ? this.found.source : "running";
    this.info = { version, source, path: ours && this.found ? this.found.path : "", pid: cf.pid, restarts: 0, lastExit: "", lacking };
    this.onlineSince = Date.now();
    const proven = await this.proves(client.welcome.proof ?? "", nonce);
    if (run !== this.run) {
      client.close();
      return "none";
    }
    if (!proven) this.deps.log("the engine did not prove it knows the state folder's secret: no API key goes to it", cf.port);
    client.onClose((reason) => this.dropped(client, reason));
    this.set({ kind: "online", client, proven });
    if (lacking.length > 0) {
      // It works: only the features it lacks do not. The engine's version
      // alone (older or newer than the plugin's) is no reason to speak.
      const p: EngineProblem = { kind: "lacking", version, lacking, source, pid: cf.pid };
      const setup = this.deps.setup;
      this.noticeOnce(
        `lacking:${version}`,
        `Quire's engine ${version} is older than this plugin and lacks ${lacking.join(", ")}; the rest works. Upgrade the engine for them.`,
        setup ? [{ label: "Upgrade the engine", run: () => setup(p) }] : [],
      );
    }
    return "online";
  }

  /** proves checks welcome's proof against the state folder's secret, which the plugin reads from the file. */
  private async proves(proof: string, nonce: string): Promise<boolean> {
    if (proof === "") return false;
    const secret = (await this.deps.readFile(secretPath(this.deps.stateDir())).catch(() => null))?.trim() ?? "";
    return secret !== "" && (await proofOf(secret, nonce)) === proof;
  }

  /** incompatible goes offline saying which engine runs or was found and which side to update. */
  private incompatible(p: Extract<EngineProblem, { kind: "incompatible" }>): void {
    const reason = incompatibleText(p);
    this.set({ kind: "offline", reason, canStart: false, problem: p });
    this.report(`incompatible:${p.version}:${p.path ?? p.pid ?? ""}`, p, `Quire: ${reason}`);
  }

  /**
   * report tells the user about a problem once: the first-run panel at the
   * first automatic start, else a notice with a button that opens it.
   */
  private report(key: string, p: EngineProblem, message: string): void {
    const setup = this.deps.setup;
    if (setup && !this.explicit && !this.panelOffered) {
      this.panelOffered = true;
      this.missingNoticed = key;
      setup(p);
      return;
    }
    this.noticeOnce(key, message, setup ? [{ label: problemAction(p), run: () => setup(p) }] : []);
  }

  /**
   * launch finds the engine and starts it, or goes offline saying why it
   * cannot. With wait set (an engine's connection file names a live
   * process that does not answer, or a reconnect), an engine is only
   * started when the plugin finds one whose protocol range is compatible,
   * and otherwise it keeps
   * reconnecting with wait as the reason: that pid may be anyone's by now,
   * so the lock decides, and the engine started to try it exits with
   * EXIT_LOCKED when another holds it.
   */
  private async launch(run: number, wait?: string): Promise<void> {
    if (this.child && !this.childExited) {
      // Ours is still starting or restarting its listener: wait for it.
      await this.waitForChild(run, this.child);
      return;
    }
    const found = await this.deps.locate();
    if (run !== this.run) return;
    if (wait !== undefined && (!found || found.compat !== "ok")) {
      this.scheduleReconnect(wait);
      return;
    }
    if (!found) {
      const configured = this.deps.configured?.() ?? "";
      const p: EngineProblem = { kind: "missing", configured };
      const reason = configured ? `The quire program was not found at ${configured}, nor anywhere else Quire looks.` : "Quire's engine is not on this computer yet.";
      this.set({ kind: "offline", reason, canStart: false, problem: p });
      this.report(`missing:${configured}`, p, `Quire: ${configured ? `the quire program was not found at ${configured}` : "Quire's engine was not found on this computer"}. Install it with your system's package manager, or set its path in Settings → Quire.`);
      return;
    }
    if (found.compat !== "ok") {
      this.incompatible({ kind: "incompatible", compat: found.compat, version: found.version, source: found.source, path: found.path });
      return;
    }
    const args = ["serve", "--vault", this.deps.vaultPath, "--state", this.deps.stateDir(), "--parent-pid", String(this.deps.parentPid)];
    this.deps.log("starting", found.path, args);
    this.set({ kind: "starting" });
    let child: ChildHandle;
    try {
      child = this.deps.spawn(found.path, args);
    } catch (err) {
      this.set({ kind: "offline", reason: `Could not start ${found.path}: ${String(err)}`, canStart: true });
      return;
    }
    this.found = found;
    this.child = child;
    this.childExited = false;
    child.onExit((code, why) => this.exited(child, code, why));
    await this.waitForChild(run, child);
  }

  /** exited reacts to the end of a process the plugin started: a crash is restarted with backoff, three times. */
  private exited(child: ChildHandle, code: number | null, why: string): void {
    if (this.child !== child) return;
    this.childExited = true;
    this.deps.log("engine exited", code, why);
    if (this.disposed || this.stopping) return;
    if (code === EXIT_LOCKED || code === 0) {
      // Not a crash: another engine holds the vault (the one to attach
      // to), or this one was asked to stop (by any client holding the
      // token: quire mcp, the CLI). Reconnecting attaches to whichever
      // engine serves the vault, or starts one once none does.
      this.client?.close();
      this.scheduleReconnect(code === 0 ? "Quire's engine was stopped." : BUSY);
      return;
    }
    this.lastExit = why;
    if (this.onlineSince > 0 && Date.now() - this.onlineSince >= this.timing.stableMs) this.restarts = 0;
    this.onlineSince = 0;
    this.clearTimer();
    const run = ++this.run;
    // The socket closes too; dropped leaves the crash to this handler.
    this.client?.close();
    if (this.restarts >= MAX_RESTARTS) {
      const tail = child.stderrTail();
      this.set({ kind: "offline", reason: `Quire's engine stopped ${MAX_RESTARTS + 1} times (${why}).`, canStart: true });
      this.deps.notify(
        `Quire's engine stopped again (${why}) after ${MAX_RESTARTS} restarts, so it was left stopped. Start it again from the status view.`,
        this.deps.showLog ? [{ label: "Show log", run: () => this.deps.showLog?.(tail) }] : [],
      );
      return;
    }
    const delay = this.timing.restartMs * 2 ** this.restarts;
    this.restarts++;
    this.set({
      kind: "offline",
      reason: `Quire's engine stopped (${why}); starting it again (try ${this.restarts} of ${MAX_RESTARTS}).`,
      canStart: true,
      retryInMs: delay,
    });
    this.timer = window.setTimeout(() => {
      this.timer = null;
      if (run !== this.run || this.disposed) return;
      this.set({ kind: "starting" });
      void this.launch(run);
    }, delay);
  }

  /** waitForChild polls for the started process's connection file and attaches. */
  private async waitForChild(run: number, child: ChildHandle): Promise<void> {
    const deadline = Date.now() + this.timing.startTimeoutMs;
    while (run === this.run && this.child === child && !this.childExited) {
      // No pid yet means the spawn has not happened (or failed: onExit follows).
      if (child.pid !== undefined && (await this.attach(run, child.pid)) === "online") return;
      if (Date.now() >= deadline) {
        this.set({ kind: "offline", reason: "Quire did not start in time.", canStart: true });
        return;
      }
      // Not this.timer: clearTimer (a crash, a stop) would leave this wait, and start, hanging for good.
      await new Promise<void>((resolve) => window.setTimeout(resolve, this.timing.pollMs));
    }
  }

  /** dropped reacts to a lost connection: retry with backoff, unless the plugin's engine died (exited restarts it). */
  private dropped(client: Client, reason: string): void {
    if (this.disposed || this.client !== client || this.stopping) return;
    if (this.child && this.childExited) return;
    this.deps.log("connection lost", reason);
    this.scheduleReconnect(`Connection lost: ${reason}.`);
  }

  private scheduleReconnect(reason: string): void {
    const delay = Math.min(this.timing.backoffMs * 2 ** this.attempt, this.timing.maxBackoffMs);
    this.attempt++;
    this.set({ kind: "offline", reason, canStart: this.child !== null || this.found !== null, retryInMs: delay });
    const run = ++this.run;
    this.clearTimer();
    this.timer = window.setTimeout(() => {
      this.timer = null;
      void this.reconnect(run);
    }, delay);
  }

  /**
   * reconnect attaches to the engine that serves the vault and, once none
   * does (the old one has shut down, or its files name a process that is
   * not it), starts one: a plugin that came up while the old engine was
   * still shutting down would otherwise stay offline. The plugin's own
   * engine, when it crashes, is restarted by exited, three times.
   */
  private async reconnect(run: number): Promise<void> {
    if (run !== this.run) return;
    this.set({ kind: "connecting" });
    const got = await this.attach(run);
    if (run !== this.run || got === "online" || got === "incompatible") return;
    await this.launch(run, got === "busy" ? BUSY : "Quire is not answering.");
  }

  private noticeOnce(key: string, message: string, actions: Action[] = []): void {
    if (this.disposed || this.missingNoticed === key) return;
    this.missingNoticed = key;
    this.deps.notify(message, actions);
  }
}

/** incompatibleText says which engine this plugin cannot talk to and which side to update. */
export function incompatibleText(p: Extract<EngineProblem, { kind: "incompatible" }>): string {
  const what = p.version ? `version ${p.version}` : "an older version that cannot say its version";
  const where = p.source === "running" ? `The Quire engine running for this vault (pid ${p.pid ?? "?"}) is ${what}` : `The Quire engine at ${p.path ?? "?"} is ${what}`;
  return p.compat === "engine-too-old"
    ? `${where}, too old for this plugin: upgrade the engine.`
    : `${where}, newer than this plugin can talk to: update the plugin (Settings → Community plugins → Check for updates).`;
}

/** problemAction labels the button that opens the first-run panel for a problem. */
export function problemAction(p: EngineProblem): string {
  if (p.kind === "missing") return "Set up the engine";
  if (p.kind === "incompatible" && p.compat === "plugin-too-old") return "What to do";
  return "Upgrade the engine";
}
