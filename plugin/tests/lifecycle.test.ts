import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type ChildHandle, Sidecar, type SidecarDeps, type SidecarState } from "../src/sidecar/lifecycle";
import { FakeServer } from "./fake-sidecar";

class FakeChild implements ChildHandle {
  killed = false;
  private exitCbs: ((code: number | null, why: string) => void)[] = [];
  constructor(readonly pid: number | undefined) {}
  kill(): void {
    this.killed = true;
    this.exit(0, "killed by SIGTERM");
  }
  onExit(cb: (code: number | null, why: string) => void): void {
    this.exitCbs.push(cb);
  }
  exit(code: number | null, why: string): void {
    for (const cb of this.exitCbs.splice(0)) cb(code, why);
  }
}

interface World {
  server: FakeServer;
  files: Map<string, string>;
  alive: Set<number>;
  executables: Set<string>;
  spawned: { cmd: string; args: string[]; child: FakeChild }[];
  notices: string[];
  binary: string;
  /** onSpawn runs when the plugin starts a process: a real sidecar would write its file. */
  onSpawn: (child: FakeChild) => void;
}

const CONN = "/vault/.quire/sidecar.json";
const connFile = (pid: number, port = 4000, token = "secret") => JSON.stringify({ port, token, pid, protocol: 1, version: "0.1.0" });

function newWorld(): World {
  return {
    server: new FakeServer(),
    files: new Map(),
    alive: new Set(),
    executables: new Set(["/bin/quire"]),
    spawned: [],
    notices: [],
    binary: "",
    onSpawn: () => {},
  };
}

function newSidecar(w: World): Sidecar {
  let nextPid = 500;
  const deps: SidecarDeps = {
    vaultPath: "/vault",
    stateDir: () => "/vault/.quire",
    binaryPath: () => w.binary,
    readFile: async (p) => w.files.get(p) ?? null,
    isExecutable: async (p) => w.executables.has(p),
    spawn: (cmd, args) => {
      const child = new FakeChild(nextPid++);
      w.alive.add(child.pid!);
      child.onExit(() => w.alive.delete(child.pid!));
      w.spawned.push({ cmd, args, child });
      w.onSpawn(child);
      return child;
    },
    isAlive: (pid) => w.alive.has(pid),
    socket: w.server.factory,
    notify: (m) => w.notices.push(m),
    log: () => {},
    clientName: "test",
    timing: { backoffMs: 100, maxBackoffMs: 800, pollMs: 50, startTimeoutMs: 1000, connectTimeoutMs: 200 },
  };
  return new Sidecar(deps);
}

function kinds(sc: Sidecar): SidecarState["kind"][] {
  const seen: SidecarState["kind"][] = [];
  sc.onChange((s) => seen.push(s.kind));
  return seen;
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
  });

  it("without a running sidecar or a binary goes offline with a notice saying where to set it", async () => {
    const sc = newSidecar(w);
    await sc.start();
    expect(sc.state).toMatchObject({ kind: "offline", canStart: false });
    expect(w.notices).toHaveLength(1);
    expect(w.notices[0]).toContain("Settings → Quire");
  });

  it("says clearly when the configured binary is missing", async () => {
    w.binary = "/opt/nowhere/quire";
    const sc = newSidecar(w);
    await sc.start();
    expect(sc.state).toMatchObject({ kind: "offline" });
    expect(w.notices).toEqual(["Quire: the quire program was not found at /opt/nowhere/quire. Set its path in Settings → Quire."]);
    await sc.start();
    expect(w.notices).toHaveLength(1); // once, not on every retry
  });

  it("answers every explicit start, even one that says the same again", async () => {
    w.binary = "/opt/nowhere/quire";
    const sc = newSidecar(w);
    await sc.start({ explicit: true });
    await sc.start({ explicit: true });
    expect(w.notices).toHaveLength(2);
  });

  it("starts quire serve for this vault and attaches once it writes its connection file", async () => {
    w.binary = "/bin/quire";
    // A stale file from an earlier sidecar whose process is gone.
    w.files.set(CONN, connFile(7, 1111, "old"));
    w.onSpawn = (child) => setTimeout(() => w.files.set(CONN, connFile(child.pid!, 5555)), 120);
    const sc = newSidecar(w);
    const seen = kinds(sc);
    const started = sc.start();
    await vi.advanceTimersByTimeAsync(300);
    await started;
    expect(w.spawned.map((s) => [s.cmd, ...s.args])).toEqual([["/bin/quire", "serve", "--vault", "/vault", "--state", "/vault/.quire"]]);
    expect(seen).toEqual(["connecting", "starting", "online"]);
    expect(w.server.last.url).toBe("ws://127.0.0.1:5555/");
    expect(sc.startedProcess).toBe(true);
  });

  it("reports a started process that dies before it serves", async () => {
    w.binary = "/bin/quire";
    w.onSpawn = (child) => setTimeout(() => child.exit(1, "quire: vault folder is empty"), 60);
    const sc = newSidecar(w);
    const started = sc.start();
    await vi.advanceTimersByTimeAsync(200);
    await started;
    expect(sc.state).toMatchObject({ kind: "offline", canStart: true });
    expect(w.notices.at(-1)).toContain("vault folder is empty");
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

  it("stop kills the process the plugin started", async () => {
    w.binary = "/bin/quire";
    w.onSpawn = (child) => w.files.set(CONN, connFile(child.pid!));
    const sc = newSidecar(w);
    await sc.start();
    expect(sc.state.kind).toBe("online");
    const sock = w.server.last;
    sc.stop();
    expect(w.spawned[0]!.child.killed).toBe(true);
    expect(sock.closed).toBe(true);
    await vi.advanceTimersByTimeAsync(5000);
    expect(w.server.sockets).toHaveLength(1); // no reconnect after stop
  });

  it("stop leaves a sidecar it attached to running", async () => {
    w.files.set(CONN, connFile(42));
    w.alive.add(42);
    w.binary = "/bin/quire";
    const sc = newSidecar(w);
    await sc.start();
    sc.stop();
    expect(w.spawned).toEqual([]);
    expect(w.alive.has(42)).toBe(true);
    expect(w.server.last.closed).toBe(true);
  });
});
