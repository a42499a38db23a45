// The desktop side of starting the engine, on real processes.
import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isExecutable, probeVersion, pruneEngines, spawnProcess } from "../src/sidecar/node";

let dir = "";
beforeEach(async () => {
  dir = await fs.mkdtemp(join(tmpdir(), "quire-node-"));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const script = async (name: string, body: string, mode = 0o755) => {
  const p = join(dir, name);
  await fs.writeFile(p, `#!/bin/sh\n${body}\n`, { mode });
  return p;
};

describe.skipIf(process.platform === "win32")("engine processes", () => {
  it("terminate closes the engine's stdin, which stops it even when it ignores SIGTERM, and its last stderr lines are kept", async () => {
    const bin = await script("engine", "trap '' TERM\necho starting >&2\necho serving >&2\ncat >/dev/null\necho 'stdin closed: bye' >&2\nexit 0");
    const lines: string[] = [];
    const child = spawnProcess(bin, [], (l) => lines.push(l));
    const ended = new Promise<[number | null, string]>((resolve) => child.onExit((code, why) => resolve([code, why])));
    while (!child.stderrTail().includes("serving")) await new Promise((r) => setTimeout(r, 10));
    child.terminate();
    expect(await ended).toEqual([0, "stdin closed: bye"]);
    expect(child.stderrTail()).toEqual(["starting", "serving", "stdin closed: bye"]);
  });

  it("a killed engine says so", async () => {
    const bin = await script("engine", "cat >/dev/null");
    const child = spawnProcess(bin, [], () => {});
    const ended = new Promise<string>((resolve) => child.onExit((_c, why) => resolve(why)));
    while (child.pid === undefined) await new Promise((r) => setTimeout(r, 10));
    child.kill();
    expect(await ended).toBe("killed by SIGKILL");
  });

  it("probeVersion reads `quire version --json`, and says \"\" for an engine that cannot say", async () => {
    expect(await probeVersion(await script("new", `[ "$1 $2" = "version --json" ] && echo '{"version":"0.1.0","os":"linux"}'`))).toBe("0.1.0");
    expect(await probeVersion(await script("old", "echo 'flag provided but not defined: -json' >&2; exit 2"))).toBe("");
    expect(await probeVersion(join(dir, "missing"))).toBe("");
  });

  it("isExecutable wants a file this user may run", async () => {
    expect(await isExecutable(await script("x", "true"))).toBe(true);
    expect(await isExecutable(await script("plain", "true", 0o644))).toBe(false);
    expect(await isExecutable(dir)).toBe(false);
    expect(await isExecutable(join(dir, "missing"))).toBe(false);
  });
});

describe("pruneEngines", () => {
  it("removes the engines downloaded for other versions, and only the files it downloads", async () => {
    const put = async (rel: string) => {
      await fs.mkdir(join(dir, rel, ".."), { recursive: true });
      await fs.writeFile(join(dir, rel), "x");
    };
    await put("0.0.9/quire");
    await put("0.1.0/quire");
    await put("0.0.8/quire.exe");
    await put("0.0.8/notes.txt");
    await put("mine/quire");
    expect(await pruneEngines(dir, "0.1.0")).toEqual(["0.0.9"]);
    expect((await fs.readdir(dir)).sort()).toEqual(["0.0.8", "0.1.0", "mine"]);
    expect(await fs.readdir(join(dir, "0.0.8"))).toEqual(["notes.txt"]);
    expect(await fs.readdir(join(dir, "0.1.0"))).toEqual(["quire"]);
    expect(await fs.readdir(join(dir, "mine"))).toEqual(["quire"]);
    expect(await pruneEngines(join(dir, "missing"), "0.1.0")).toEqual([]);
  });
});
