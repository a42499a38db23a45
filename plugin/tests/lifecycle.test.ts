import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Found } from "../src/sidecar/locate";
import { type Action, type ChildHandle, EXIT_LOCKED, type EngineProblem, MAX_RESTARTS, Sidecar, type SidecarDeps, type SidecarState } from "../src/sidecar/lifecycle";
import { FakeServer } from "./fake-sidecar";

class FakeChild implements ChildHandle {
  killed = false;
  terminated = false;
  stderr: string[] = [];
  private exitCbs: ((code: number | null, why: string) => void)[] = [];
  private gone = false;
  constructor(readonly pid: number | undefined) {}
  terminate(): void {
    this.terminated = true;
    this.exit(0, "stopped by SIGTERM");
  }
  kill(): void {
    this.killed = true;
    this.exit(null, "killed by SIGKILL");
  }
  onExit(cb: (code: number | null, why: string) => void): void {
    if (!this.gone) this.exitCbs.push(cb);
  }
  stderrTail(): string[] {
    return [...this.stderr];
  }
  exit(code: number | null, why: string): void {
    this.gone = true;
    for (const cb of this.exitCbs.splice(0)) cb(code, why);
  }
}

interface Notice {
  message: string;
  actions: Action[];
}

interface World {
  server: FakeServer;
  files: Map<string, string>;
  alive: Set<number>;
  spawned: { cmd: string; args: string[]; child: FakeChild }[];
  notices: Notice[];
  /** found is what locate returns: the engine discovery found (engine.test.ts tests discovery itself). */
  found: Found | null;
  configured: string;
  setups: EngineProblem[];
  logs: string[][];
  terminatedPids: number[];
  /** onSpawn runs when the plugin starts a process: a real sidecar would write its file. */
  onSpawn: (child: FakeChild) => void;
}

const CONN = "/vault/.quire/sidecar.json";
const connFile = (pid: number, port = 4000, token = "secret", protocol = 1, version = "0.1.0", minProtocol = 1) => JSON.stringify({ port, token, pid, protocol, minProtocol, version });
const ENGINE: Found = { path: "/bin/quire", source: "path", version: "0.1.0", protocol: 1, minProtocol: 1, compat: "ok" };

function newWorld(): World {
  return {
    server: new FakeServer(),
    files: new Map(),
    alive: new Set(),
    spawned: [],
    notices: [],
    found: null,
    configured: "",
    setups: [],
    logs: [],
    terminatedPids: [],
    onSpawn: () => {},
  };
}

function newSidecar(w: World, opts: { setup?: boolean } = {}): Sidecar {
  let nextPid = 500;
  const deps: SidecarDeps = {
    vaultPath: "/vault",
    stateDir: () => "/vault/.quire",
    locate: async () => w.found,
    configured: () => w.configured,
    parentPid: 77,
    readFile: async (p) => w.files.get(p) ?? null,
    spawn: (cmd, args) => {
      const child = new FakeChild(nextPid++);
      w.alive.add(child.pid!);
      child.onExit(() => {
        w.alive.delete(child.pid!);
        // A crashed engine leaves its connection file behind; a real one that stops cleanly removes it.
      });
      w.spawned.push({ cmd, args, child });
      w.onSpawn(child);
      return child;
    },
    isAlive: (pid) => w.alive.has(pid),
    // Not a dependency any more: recorded in case the lifecycle signalled a pid again.
    ...({
      terminate: (pid: number) => {
        w.terminatedPids.push(pid);
        w.alive.delete(pid);
      },
    } as object),
    socket: w.server.factory,
    notify: (message, actions = []) => w.notices.push({ message, actions }),
    ...(opts.setup === false ? {} : { setup: (p: EngineProblem) => void w.setups.push(p) }),
    showLog: (lines) => w.logs.push(lines),
    log: () => {},
    clientName: "test",
    timing: { backoffMs: 100, maxBackoffMs: 800, pollMs: 50, startTimeoutMs: 1000, connectTimeoutMs: 200, restartMs: 1000, stableMs: 60_000, stopTimeoutMs: 5000 },
  };
  return new Sidecar(deps);
}

function kinds(sc: Sidecar): SidecarState["kind"][] {
  const seen: SidecarState["kind"][] = [];
  sc.onChange((s) => seen.push(s.kind));
  return seen;
}

/** serveOnSpawn makes every started engine write its connection file at once, as a healthy one does. */
function serveOnSpawn(w: World): void {
  w.onSpawn = (child) => w.files.set(CONN, connFile(child.pid!, 5000 + child.pid!));
}

describe("Sidecar lifecycle", () => {
  let w: World;
  beforeEach(() => {
    vi.useFakeTimers();
    w = newWorld();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("attaches to the sidecar named by the connection file", async () => {
    w.files.set(CONN, connFile(42, 4321));
    w.alive.add(42);
    const sc = newSidecar(w);
    await sc.start();
    expect(sc.state.kind).toBe("online");
    expect(w.server.last.url).toBe("ws://127.0.0.1:4321/");
    expect(w.spawned).toEqual([]);
    expect(sc.startedProcess).toBe(false);
    expect(sc.engine).toMatchObject({ version: "0.1.0", source: "running", pid: 42, lacking: [] });
  });

  it("with no engine anywhere, the first automatic start opens the first-run panel once; later starts say it in a notice with a button to it", async () => {
    const sc = newSidecar(w);
    await sc.start();
    expect(sc.state).toMatchObject({ kind: "offline", canStart: false, problem: { kind: "missing" } });
    expect(w.setups).toEqual([{ kind: "missing", configured: "" }]);
    expect(w.notices).toEqual([]);
    await sc.start(); // an automatic retry: nothing said again
    expect(w.setups).toHaveLength(1);
    expect(w.notices).toEqual([]);
    await sc.start({ explicit: true });
    expect(w.setups).toHaveLength(1);
    expect(w.notices).toHaveLength(1);
    expect(w.notices[0]!.message).toContain("Install it with your system's package manager, or set its path in Settings → Quire");
    expect(w.notices[0]!.actions.map((a) => a.label)).toEqual(["Set up the engine"]);
    w.notices[0]!.actions[0]!.run();
    expect(w.setups).toHaveLength(2);
    expect(w.spawned).toEqual([]);
  });

  it("says clearly when the configured binary is missing, once", async () => {
    w.configured = "/opt/nowhere/quire";
    const sc = newSidecar(w, { setup: false });
    await sc.start();
    expect(sc.state).toMatchObject({ kind: "offline", problem: { kind: "missing", configured: "/opt/nowhere/quire" } });
    expect(w.notices.map((n) => n.message)).toEqual(["Quire: the quire program was not found at /opt/nowhere/quire. Install it with your system's package manager, or set its path in Settings → Quire."]);
    await sc.start();
    expect(w.notices).toHaveLength(1); // once, not on every retry
  });

  it("answers every explicit start, even one that says the same again", async () => {
    w.configured = "/opt/nowhere/quire";
    const sc = newSidecar(w);
    await sc.start({ explicit: true });
    await sc.start({ explicit: true });
    expect(w.notices).toHaveLength(2);
    expect(w.setups).toEqual([]);
  });

  it("starts quire serve for this vault with --parent-pid and attaches once it writes its connection file", async () => {
    w.found = ENGINE;
    // A stale file from an earlier sidecar whose process is gone.
    w.files.set(CONN, connFile(7, 1111, "old"));
    w.onSpawn = (child) => setTimeout(() => w.files.set(CONN, connFile(child.pid!, 5555)), 120);
    const sc = newSidecar(w);
    const seen = kinds(sc);
    const started = sc.start();
    await vi.advanceTimersByTimeAsync(300);
    await started;
    expect(w.spawned.map((s) => [s.cmd, ...s.args])).toEqual([["/bin/quire", "serve", "--vault", "/vault", "--state", "/vault/.quire", "--parent-pid", "77"]]);
    expect(seen).toEqual(["connecting", "starting", "online"]);
    expect(w.server.last.url).toBe("ws://127.0.0.1:5555/");
    expect(sc.startedProcess).toBe(true);
    expect(sc.engine).toMatchObject({ version: "0.1.0", source: "path", path: "/bin/quire", pid: 500 });
  });

  it("restarts an engine it started that dies, after 1, 2 and 4 s; the fourth death gets one notice with Show log holding its last stderr lines", async () => {
    w.found = ENGINE;
    serveOnSpawn(w);
    const sc = newSidecar(w);
    await sc.start();
    expect(sc.state.kind).toBe("online");
    const delays: number[] = [];
    for (let i = 0; i < MAX_RESTARTS; i++) {
      const child = w.spawned.at(-1)!.child;
      child.stderr = [`panic: crash ${i}`];
      child.exit(2, `panic: crash ${i}`);
      const st = sc.state;
      expect(st).toMatchObject({ kind: "offline", canStart: true });
      delays.push(st.kind === "offline" ? (st.retryInMs ?? -1) : -1);
      const before = w.spawned.length;
      await vi.advanceTimersByTimeAsync(delays.at(-1)! - 1);
      expect(w.spawned).toHaveLength(before); // not before its time
      await vi.advanceTimersByTimeAsync(1);
      expect(w.spawned).toHaveLength(before + 1);
      await vi.advanceTimersByTimeAsync(10);
      expect(sc.state.kind).toBe("online");
    }
    expect(delays).toEqual([1000, 2000, 4000]);
    expect(w.notices).toEqual([]);
    const last = w.spawned.at(-1)!.child;
    last.stderr = ["quire: open index: disk I/O error", "quire: exiting"];
    last.exit(1, "quire: exiting");
    await vi.advanceTimersByTimeAsync(60_000);
    expect(w.spawned).toHaveLength(1 + MAX_RESTARTS); // given up: no fifth engine
    expect(sc.state).toMatchObject({ kind: "offline", canStart: true });
    expect(w.notices).toHaveLength(1);
    expect(w.notices[0]!.message).toContain(`after ${MAX_RESTARTS} restarts`);
    expect(w.notices[0]!.actions.map((a) => a.label)).toEqual(["Show log"]);
    w.notices[0]!.actions[0]!.run();
    expect(w.logs).toEqual([["quire: open index: disk I/O error", "quire: exiting"]]);
    // Start (the status view's button) gives it its tries anew.
    await sc.start({ explicit: true });
    expect(sc.state.kind).toBe("online");
    expect(w.spawned).toHaveLength(2 + MAX_RESTARTS);
    sc.stop();
  });

  it("an engine that served steadily for a while starts its crash count over", async () => {
    w.found = ENGINE;
    serveOnSpawn(w);
    const sc = newSidecar(w);
    await sc.start();
    w.spawned.at(-1)!.child.exit(2, "crash");
    await vi.advanceTimersByTimeAsync(1010);
    expect(sc.state.kind).toBe("online");
    await vi.advanceTimersByTimeAsync(60_000);
    w.spawned.at(-1)!.child.exit(2, "crash");
    expect(sc.state).toMatchObject({ retryInMs: 1000 });
    sc.stop();
  });

  it("reports a started process that dies before it serves, and restarts it", async () => {
    w.found = ENGINE;
    w.onSpawn = (child) => {
      child.stderr = ["quire: vault folder is empty"];
      setTimeout(() => child.exit(1, "quire: vault folder is empty"), 60);
    };
    const sc = newSidecar(w);
    const started = sc.start();
    await vi.advanceTimersByTimeAsync(200);
    await started;
    expect(sc.state).toMatchObject({ kind: "offline", canStart: true });
    expect(sc.state.kind === "offline" && sc.state.reason).toContain("vault folder is empty");
    await vi.advanceTimersByTimeAsync(20_000);
    expect(w.spawned).toHaveLength(1 + MAX_RESTARTS);
    expect(w.notices).toHaveLength(1);
    expect(w.notices[0]!.message).toContain("vault folder is empty");
  });

  it("reconnects with doubling backoff after a drop, and attaches when the sidecar is back", async () => {
    w.files.set(CONN, connFile(42));
    w.alive.add(42);
    const sc = newSidecar(w);
    await sc.start();
    const connects = () => w.server.sockets.length;
    expect(connects()).toBe(1);

    w.server.up = false;
    w.server.last.drop(1001, "sidecar shutting down");
    expect(sc.state).toMatchObject({ kind: "offline", retryInMs: 100 });

    await vi.advanceTimersByTimeAsync(99);
    expect(connects()).toBe(1);
    await vi.advanceTimersByTimeAsync(1); // 100 ms: first retry, refused
    expect(connects()).toBe(2);
    expect(sc.state).toMatchObject({ kind: "offline", retryInMs: 200 });
    await vi.advanceTimersByTimeAsync(200); // second retry
    expect(connects()).toBe(3);
    expect(sc.state).toMatchObject({ retryInMs: 400 });
    await vi.advanceTimersByTimeAsync(400);
    await vi.advanceTimersByTimeAsync(800);
    expect(sc.state).toMatchObject({ retryInMs: 800 }); // capped
    const before = connects();

    w.server.up = true;
    await vi.advanceTimersByTimeAsync(800);
    expect(connects()).toBe(before + 1);
    expect(sc.state.kind).toBe("online");

    // The backoff starts over after a success.
    w.server.last.drop();
    expect(sc.state).toMatchObject({ kind: "offline", retryInMs: 100 });
    sc.stop();
  });

  it("stop asks the engine it started to shut down over the websocket, and neither signals nor kills it when it does", async () => {
    w.found = ENGINE;
    serveOnSpawn(w);
    const sc = newSidecar(w);
    await sc.start();
    const child = w.spawned[0]!.child;
    const sock = w.server.last;
    w.server.reply = (f, s) => {
      if (f.type !== "shutdown") return;
      s.push({ id: f.id!, type: "shutdown.result", payload: { pid: child.pid } });
      setTimeout(() => child.exit(0, "exit code 0"), 100);
    };
    sc.stop();
    expect(sock.sent.map((f) => f.type)).toContain("shutdown");
    await vi.advanceTimersByTimeAsync(10_000);
    expect(child.terminated).toBe(false);
    expect(child.killed).toBe(false);
    expect(sock.closed).toBe(true);
    expect(w.spawned).toHaveLength(1); // its exit is no crash: not restarted
    expect(w.server.sockets).toHaveLength(1); // no reconnect after stop
  });

  it("stop kills the engine it started when it does not stop within the timeout", async () => {
    w.found = ENGINE;
    serveOnSpawn(w);
    const sc = newSidecar(w);
    await sc.start();
    const child = w.spawned[0]!.child;
    w.server.reply = (f, s) => {
      if (f.type === "shutdown") s.push({ id: f.id!, type: "shutdown.result", payload: { pid: child.pid } });
    };
    sc.stop();
    await vi.advanceTimersByTimeAsync(4999);
    expect(child.killed).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(child.killed).toBe(true);
    expect(w.spawned).toHaveLength(1);
  });

  it("stop leaves a sidecar it attached to running", async () => {
    w.files.set(CONN, connFile(42));
    w.alive.add(42);
    w.found = ENGINE;
    const sc = newSidecar(w);
    await sc.start();
    sc.stop();
    expect(w.spawned).toEqual([]);
    expect(w.alive.has(42)).toBe(true);
    expect(w.server.last.sent.map((f) => f.type)).not.toContain("shutdown");
    expect(w.server.last.closed).toBe(true);
  });

  it("a running engine whose protocol range is past the plugin's (connection file) says to update the plugin, and no second engine is started on its locked vault", async () => {
    w.files.set(CONN, connFile(42, 4000, "secret", 99, "9.0.0", 98));
    w.alive.add(42);
    w.found = ENGINE;
    const sc = newSidecar(w);
    await sc.start();
    expect(sc.state).toMatchObject({ kind: "offline", problem: { kind: "incompatible", compat: "plugin-too-old", version: "9.0.0", source: "running", pid: 42 } });
    expect(sc.state.kind === "offline" && sc.state.reason).toBe(
      "The Quire engine running for this vault (pid 42) is version 9.0.0, newer than this plugin can talk to: update the plugin (Settings → Community plugins → Check for updates).",
    );
    expect(w.setups).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(w.spawned).toEqual([]);
    expect(w.server.sockets).toEqual([]);
  });

  it("a newer engine whose range still holds the plugin's protocol works, and its version alone is no reason to speak", async () => {
    w.files.set(CONN, connFile(42, 4000, "secret", 4, "0.9.0", 1));
    w.alive.add(42);
    w.server.speaks = [1, 4];
    w.server.version = "0.9.0";
    const sc = newSidecar(w);
    await sc.start();
    expect(sc.state.kind).toBe("online");
    expect(sc.engine).toMatchObject({ version: "0.9.0", lacking: [] });
    expect(w.server.last.sent[0]).toMatchObject({ type: "hello", payload: { protocol: 1, minProtocol: 1 } });
    expect(w.notices).toEqual([]);
    sc.stop();
  });

  it("an engine from before protocol ranges (no minProtocol, no request list) works with a newer plugin", async () => {
    w.files.set(CONN, JSON.stringify({ port: 4000, token: "secret", pid: 42, protocol: 1, version: "0.0.9" }));
    w.alive.add(42);
    w.server.speaks = "exact 1";
    w.server.version = "0.0.9";
    const sc = newSidecar(w);
    await sc.start();
    expect(sc.state.kind).toBe("online");
    // It lacks only what was added since protocol 1's first release.
    expect(sc.engine).toMatchObject({ version: "0.0.9", lacking: ["sources.list", "toc.get", "lint.run", "eval.run"] });
    expect(w.notices.map((n) => n.message)).toEqual(["Quire's engine 0.0.9 is older than this plugin and lacks sources.list, toc.get, lint.run, eval.run; the rest works. Upgrade the engine for them."]);
    sc.stop();
  });

  it("an older engine that lacks some of the plugin's requests works, and says which, with the upgrade", async () => {
    w.files.set(CONN, connFile(42, 4000, "secret", 1, "0.0.9"));
    w.alive.add(42);
    w.server.version = "0.0.9";
    w.server.requests = ["status.get", "search.query", "related.query", "note.get", "index.rebuild", "ingest.add", "queue.list", "config.get", "config.set", "shutdown"];
    const sc = newSidecar(w);
    await sc.start();
    expect(sc.state.kind).toBe("online");
    expect(sc.engine).toMatchObject({ version: "0.0.9", lacking: ["ask.query", "answer.save", "sources.list", "toc.get", "lint.run", "eval.run"] });
    expect(w.notices.map((n) => n.message)).toEqual(["Quire's engine 0.0.9 is older than this plugin and lacks ask.query, answer.save, sources.list, toc.get, lint.run, eval.run; the rest works. Upgrade the engine for them."]);
    expect(w.notices[0]!.actions.map((a) => a.label)).toEqual(["Upgrade the engine"]);
    w.notices[0]!.actions[0]!.run();
    expect(w.setups).toEqual([{ kind: "lacking", version: "0.0.9", lacking: ["ask.query", "answer.save", "sources.list", "toc.get", "lint.run", "eval.run"], source: "running", pid: 42 }]);
    sc.stop();
  });

  it("an engine that refuses the handshake as too old for it says to update the plugin; one the plugin finds too old says to upgrade it", async () => {
    w.files.set(CONN, connFile(42, 4000, "secret", 1, "0.2.0"));
    w.alive.add(42);
    w.found = ENGINE;
    w.server.speaks = [2, 3];
    const sc = newSidecar(w);
    await sc.start({ explicit: true });
    expect(sc.state).toMatchObject({ kind: "offline", problem: { kind: "incompatible", compat: "plugin-too-old", version: "0.2.0" } });
    expect(w.notices).toHaveLength(1);
    expect(w.notices[0]!.actions.map((a) => a.label)).toEqual(["What to do"]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(w.spawned).toEqual([]);
  });

  it("an engine found on disk that the plugin cannot talk to is not started; once an upgraded one is found, replace starts it", async () => {
    w.found = { path: "/usr/local/bin/quire", source: "install", version: "0.0.1", protocol: 0, minProtocol: 0, compat: "engine-too-old" };
    serveOnSpawn(w);
    const sc = newSidecar(w);
    await sc.start();
    expect(sc.state).toMatchObject({ kind: "offline", problem: { kind: "incompatible", compat: "engine-too-old", version: "0.0.1", source: "install", path: "/usr/local/bin/quire" } });
    expect(sc.state.kind === "offline" && sc.state.reason).toBe("The Quire engine at /usr/local/bin/quire is version 0.0.1, too old for this plugin: upgrade the engine.");
    expect(w.spawned).toEqual([]);
    // The user ran the panel's upgrade command: discovery now finds a newer engine.
    w.found = { ...ENGINE, path: "/usr/local/bin/quire", source: "install", version: "0.2.0" };
    w.server.version = "0.2.0";
    await sc.replace();
    expect(sc.state.kind).toBe("online");
    expect(w.spawned.map((s) => s.cmd)).toEqual(["/usr/local/bin/quire"]);
    expect(sc.engine).toMatchObject({ source: "install", version: "0.2.0" });
    sc.stop();
  });

  it("replace stops the engine it started (shutdown first) before it starts the new one", async () => {
    w.found = ENGINE;
    serveOnSpawn(w);
    const sc = newSidecar(w);
    await sc.start();
    const old = w.spawned[0]!.child;
    w.server.reply = (f, s) => {
      if (f.type !== "shutdown") return;
      s.push({ id: f.id!, type: "shutdown.result", payload: { pid: old.pid } });
      setTimeout(() => {
        w.files.delete(CONN);
        old.exit(0, "exit code 0");
      }, 50);
    };
    w.found = { ...ENGINE, path: "/new/quire", version: "0.2.0" };
    const done = sc.replace();
    await vi.advanceTimersByTimeAsync(200);
    await done;
    expect(old.killed).toBe(false);
    expect(w.spawned.map((s) => s.cmd)).toEqual(["/bin/quire", "/new/quire"]);
    expect(sc.state.kind).toBe("online");
    expect(w.notices).toEqual([]); // the old engine's exit was no crash
    sc.stop();
  });

  it("starts an engine once the old one has gone, when it came up while the old one was shutting down", async () => {
    // The old engine still holds the vault: the engine started to try the lock exits with EXIT_LOCKED.
    w.files.set(CONN, connFile(42));
    w.alive.add(42);
    w.server.up = false;
    w.found = ENGINE;
    w.onSpawn = (child) => setTimeout(() => child.exit(EXIT_LOCKED, "quire: vault in use"), 10);
    const sc = newSidecar(w);
    const started = sc.start(); // it waits for the engine it started
    await vi.advanceTimersByTimeAsync(60);
    await started;
    expect(w.spawned).toHaveLength(1);
    expect(sc.state).toMatchObject({ kind: "offline", reason: "Quire runs for this vault but does not answer yet." });
    // Then it is gone, files and all.
    w.alive.delete(42);
    w.files.delete(CONN);
    w.server.up = true;
    serveOnSpawn(w);
    await vi.advanceTimersByTimeAsync(1000);
    expect(sc.state.kind).toBe("online");
    expect(w.spawned).toHaveLength(2);
    expect(w.notices).toEqual([]); // the locked exit was no crash
    sc.stop();
  });

  it("starts an engine when the one it attached to shuts down for good", async () => {
    w.files.set(CONN, connFile(42));
    w.alive.add(42);
    w.found = ENGINE;
    const sc = newSidecar(w);
    await sc.start();
    expect(sc.state.kind).toBe("online");
    w.alive.delete(42);
    w.files.delete(CONN);
    serveOnSpawn(w);
    w.server.last.drop(1001, "sidecar shutting down");
    await vi.advanceTimersByTimeAsync(200);
    expect(w.spawned).toHaveLength(1);
    expect(sc.state.kind).toBe("online");
    sc.stop();
  });

  it("stale files naming a live process that is not the engine: the lock decides, the engine starts and that pid is never signalled", async () => {
    w.files.set(CONN, connFile(42)); // pid 42 is some other program now
    w.alive.add(42);
    w.server.up = false;
    w.found = ENGINE;
    w.onSpawn = (child) => {
      w.files.set(CONN, connFile(child.pid!, 5000 + child.pid!));
      w.server.up = true;
    };
    const sc = newSidecar(w);
    await sc.start();
    await vi.advanceTimersByTimeAsync(100);
    expect(sc.state.kind).toBe("online");
    expect(w.spawned).toHaveLength(1);

    // The panel's replace after an upgrade, with the stale files back and the new engine not answering: nothing is signalled.
    w.files.set(CONN, connFile(42));
    w.server.up = false;
    w.server.last.drop();
    w.found = { ...ENGINE, path: "/new/quire", version: "0.2.0" };
    w.spawned[0]!.child.exit(2, "crash");
    const done = sc.replace();
    await vi.advanceTimersByTimeAsync(6000);
    await done;
    expect(w.terminatedPids).toEqual([]);
    expect(w.alive.has(42)).toBe(true);
    sc.stop();
  });

  it("an engine of its own that another client stopped (exit 0) is no crash: a new one starts each time, with no notice", async () => {
    w.found = ENGINE;
    serveOnSpawn(w);
    const sc = newSidecar(w);
    await sc.start();
    for (let i = 0; i < MAX_RESTARTS + 2; i++) {
      expect(sc.state.kind).toBe("online");
      w.files.delete(CONN);
      w.spawned.at(-1)!.child.exit(0, "exit code 0");
      await vi.advanceTimersByTimeAsync(1000);
    }
    expect(sc.state.kind).toBe("online");
    expect(w.spawned).toHaveLength(MAX_RESTARTS + 3);
    expect(w.notices).toEqual([]);
    expect(sc.engine?.restarts).toBe(0);
    sc.stop();
  });

  it("is proven only by a welcome that proves the state folder's secret, which never goes out", async () => {
    w.files.set(CONN, connFile(42));
    w.alive.add(42);
    w.files.set("/vault/.quire/secret", "0123456789abcdef0123456789abcdef\n");
    w.server.secret = "0123456789abcdef0123456789abcdef";
    const sc = newSidecar(w);
    await sc.start();
    expect(sc.state).toMatchObject({ kind: "online", proven: true });
    const hello = w.server.last.sent[0]!.payload as { nonce?: string };
    expect(hello.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.stringify(w.server.last.sent)).not.toContain("0123456789abcdef0123456789abcdef");
    sc.stop();

    // Something else on the port: it knows the token (every hello carries it), not the secret.
    w.server.secret = "another secret of the same length, or any";
    const stranger = newSidecar(w);
    await stranger.start();
    expect(stranger.state).toMatchObject({ kind: "online", proven: false });
    stranger.stop();
  });

  it("with no engine of its own to start, it keeps reconnecting to one that went away, and attaches when it is back", async () => {
    w.files.set(CONN, connFile(42));
    w.alive.add(42);
    const sc = newSidecar(w);
    await sc.start();
    w.alive.delete(42);
    w.files.delete(CONN);
    w.server.last.drop(1001, "sidecar shutting down");
    await vi.advanceTimersByTimeAsync(1000);
    expect(sc.state).toMatchObject({ kind: "offline", reason: "Quire is not answering." });
    expect(w.setups).toEqual([]);
    expect(w.notices).toEqual([]);
    w.files.set(CONN, connFile(43));
    w.alive.add(43);
    await vi.advanceTimersByTimeAsync(2000);
    expect(sc.state.kind).toBe("online");
    sc.stop();
  });

  it("with only an engine it cannot talk to on disk, a reconnect starts nothing and keeps reconnecting, and attaches when one is back", async () => {
    w.files.set(CONN, connFile(42));
    w.alive.add(42);
    const sc = newSidecar(w);
    await sc.start();
    w.found = { ...ENGINE, version: "9.0.0", protocol: 9, minProtocol: 9, compat: "plugin-too-old" };
    w.alive.delete(42);
    w.files.delete(CONN);
    w.server.last.drop(1001, "sidecar shutting down");
    await vi.advanceTimersByTimeAsync(1000);
    expect(sc.state).toMatchObject({ kind: "offline", reason: "Quire is not answering." });
    expect(w.spawned).toEqual([]);
    expect(w.setups).toEqual([]);
    w.files.set(CONN, connFile(43));
    w.alive.add(43);
    await vi.advanceTimersByTimeAsync(2000);
    expect(sc.state.kind).toBe("online");
    sc.stop();
  });
});
