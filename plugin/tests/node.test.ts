// The desktop side of starting the engine, on real processes.
import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { detectSystem, isExecutable, probeVersion, spawnProcess, unsafeDir } from "../src/sidecar/node";

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

  it("probeVersion reads `quire version --json` with its protocol range, and says nothing for an engine that cannot say", async () => {
    const none = { version: "", protocol: 0, minProtocol: 0 };
    expect(await probeVersion(await script("new", `[ "$1 $2" = "version --json" ] && echo '{"version":"0.2.0","protocol":2,"minProtocol":1}'`))).toEqual({ version: "0.2.0", protocol: 2, minProtocol: 1 });
    expect(await probeVersion(await script("ranges", `[ "$1 $2" = "version --json" ] && echo '{"version":"0.1.0","os":"linux"}'`))).toEqual({ version: "0.1.0", protocol: 1, minProtocol: 1 });
    expect(await probeVersion(await script("old", "echo 'flag provided but not defined: -json' >&2; exit 2"))).toEqual(none);
    expect(await probeVersion(join(dir, "missing"))).toEqual(none);
  });

  it("unsafeDir is true for a folder every user may write to, as /tmp", async () => {
    const shared = join(dir, "shared");
    await fs.mkdir(shared);
    await fs.chmod(shared, 0o1777);
    expect(await unsafeDir(shared)).toBe(true);
    expect(await unsafeDir(dir)).toBe(false);
    expect(await unsafeDir(join(dir, "missing"))).toBe(false);
  });

  it("detectSystem finds a package manager by its program and reads the distribution", async () => {
    const s = await detectSystem({ platform: "win32", arch: "x64", env: { LOCALAPPDATA: dir, USERPROFILE: join(dir, "none") } });
    expect([...s.managers]).toEqual([]);
    // The Windows path is joined with "\\", which on this POSIX machine is one file name in dir's parent.
    const flat = join(dir, "..", `${dir.split("/").at(-1)}\\Microsoft\\WindowsApps\\winget.exe`);
    await fs.writeFile(flat, "");
    try {
      expect([...(await detectSystem({ platform: "win32", arch: "x64", env: { LOCALAPPDATA: dir } })).managers]).toEqual(["winget"]);
    } finally {
      await fs.rm(flat, { force: true });
    }
    // This machine's own /etc/os-release (every Linux with systemd has one).
    const linux = await detectSystem({ platform: "linux", arch: "x64", env: {} });
    expect(linux.distro?.id).toMatch(/^[a-z0-9._-]+$/);
  });

  it("isExecutable wants a file this user may run", async () => {
    expect(await isExecutable(await script("x", "true"))).toBe(true);
    expect(await isExecutable(await script("plain", "true", 0o644))).toBe(false);
    expect(await isExecutable(dir)).toBe(false);
    expect(await isExecutable(join(dir, "missing"))).toBe(false);
  });
});

