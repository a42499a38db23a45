import { describe, expect, it } from "vitest";
import { MIN_PROTOCOL_VERSION, PROTOCOL_VERSION } from "../../proto/proto.gen";
import { type Candidate, type Platform, type Probe, candidates, compat, findEngine, installPlaces, readProbe } from "../src/sidecar/locate";

const linux: Platform = { platform: "linux", arch: "x64", env: { HOME: "/home/ada", PATH: "/usr/bin:/home/ada/go/bin::/usr/bin:/home/ada/Notes/bin:/home/ada/Notes" } };
const mac: Platform = { platform: "darwin", arch: "arm64", env: { HOME: "/Users/ada", PATH: "/usr/bin" } };
const win: Platform = {
  platform: "win32",
  arch: "x64",
  env: { USERPROFILE: "C:\\Users\\ada", LOCALAPPDATA: "C:\\Users\\ada\\AppData\\Local", Path: "C:\\Windows;C:\\tools\\;c:\\users\\ada\\vault\\.bin" },
};

describe("engine discovery", () => {
  it("looks in order: the configured path, PATH less the vault's folders, then where the distribution, Homebrew and the archive put it (Linux)", () => {
    expect(candidates(linux, " /opt/quire/quire ", "/home/ada/Notes")).toEqual<Candidate[]>([
      { path: "/opt/quire/quire", source: "settings" },
      { path: "/usr/bin/quire", source: "path" },
      { path: "/home/ada/go/bin/quire", source: "path" },
      { path: "/usr/local/bin/quire", source: "install" },
      { path: "/home/linuxbrew/.linuxbrew/bin/quire", source: "install" },
      { path: "/home/ada/.local/bin/quire", source: "install" },
    ]);
  });

  it("on macOS Homebrew's prefixes come first (Apple silicon, then Intel)", () => {
    expect(candidates(mac, "", "/Users/ada/Notes")).toEqual<Candidate[]>([
      { path: "/usr/bin/quire", source: "path" },
      { path: "/opt/homebrew/bin/quire", source: "install" },
      { path: "/usr/local/bin/quire", source: "install" },
      { path: "/Users/ada/.local/bin/quire", source: "install" },
    ]);
  });

  it("on Windows: quire.exe, winget's links, Scoop's shims and the archive's folder; a vault folder on Path is passed over whatever its case", () => {
    expect(candidates(win, "", "C:\\Users\\ada\\Vault")).toEqual<Candidate[]>([
      { path: "C:\\Windows\\quire.exe", source: "path" },
      { path: "C:\\tools\\quire.exe", source: "path" },
      { path: "C:\\Users\\ada\\AppData\\Local\\Microsoft\\WinGet\\Links\\quire.exe", source: "install" },
      { path: "C:\\Users\\ada\\scoop\\shims\\quire.exe", source: "install" },
      { path: "C:\\Users\\ada\\AppData\\Local\\Programs\\quire\\quire.exe", source: "install" },
    ]);
    expect(installPlaces({ ...win, env: { ...win.env, SCOOP: "D:\\scoop" } })).toContain("D:\\scoop\\shims\\quire.exe");
  });
});

describe("protocol ranges", () => {
  it("reads quire version --json; an engine from before ranges speaks protocol 1 alone, one that cannot say speaks none", () => {
    expect(readProbe('{"version":"0.2.0","protocol":3,"minProtocol":1}')).toEqual<Probe>({ version: "0.2.0", protocol: 3, minProtocol: 1 });
    expect(readProbe('{"version":"0.1.0","os":"linux"}')).toEqual<Probe>({ version: "0.1.0", protocol: 1, minProtocol: 1 });
    expect(readProbe("flag provided but not defined: -json")).toEqual<Probe>({ version: "", protocol: 0, minProtocol: 0 });
  });

  it("any overlap talks; otherwise it says which side is too old", () => {
    expect(compat(MIN_PROTOCOL_VERSION, PROTOCOL_VERSION)).toBe("ok");
    expect(compat(1, PROTOCOL_VERSION + 5)).toBe("ok");
    expect(compat(PROTOCOL_VERSION + 1, PROTOCOL_VERSION + 5)).toBe("plugin-too-old");
    expect(compat(0, MIN_PROTOCOL_VERSION - 1)).toBe("engine-too-old");
    expect(compat(0, 0)).toBe("engine-too-old");
  });
});

describe("findEngine", () => {
  const list = candidates(linux, "/opt/quire/quire", "/home/ada/Notes");
  const v = (version: string, minProtocol = MIN_PROTOCOL_VERSION, protocol = PROTOCOL_VERSION): Probe => ({ version, protocol, minProtocol });
  const world = (engines: Record<string, Probe | "crash">, unsafe: string[] = []) => {
    const probed: string[] = [];
    return {
      probed,
      deps: {
        isExecutable: async (p: string) => p in engines,
        unsafeDir: async (d: string) => unsafe.includes(d),
        probe: async (p: string) => {
          probed.push(p);
          const e = engines[p]!;
          if (e === "crash") throw new Error("exec format error");
          return e;
        },
      },
    };
  };

  it("takes the first candidate it can talk to, in discovery order, whatever its version", async () => {
    const { deps, probed } = world({ "/usr/local/bin/quire": v("0.1.0"), "/home/ada/go/bin/quire": v("0.3.0"), "/usr/bin/quire": v("0.0.7") });
    expect(await findEngine(deps, list)).toEqual({ path: "/usr/bin/quire", source: "path", ...v("0.0.7"), compat: "ok" });
    expect(probed).toEqual(["/usr/bin/quire"]);
  });

  it("an engine it cannot talk to gives way to a later one it can", async () => {
    const { deps } = world({ "/opt/quire/quire": v("9.0.0", PROTOCOL_VERSION + 1, PROTOCOL_VERSION + 2), "/home/linuxbrew/.linuxbrew/bin/quire": v("0.2.0") });
    expect(await findEngine(deps, list)).toMatchObject({ source: "install", path: "/home/linuxbrew/.linuxbrew/bin/quire", compat: "ok" });
  });

  it("with none it can talk to, returns the first one found, which the lifecycle then reports", async () => {
    const { deps } = world({ "/usr/local/bin/quire": v("9.0.0", PROTOCOL_VERSION + 1, PROTOCOL_VERSION + 2), "/home/ada/go/bin/quire": "crash" });
    expect(await findEngine(deps, list)).toEqual({ path: "/home/ada/go/bin/quire", source: "path", version: "", protocol: 0, minProtocol: 0, compat: "engine-too-old" });
  });

  it("passes over a quire in a PATH folder that every user may write to", async () => {
    const { deps, probed } = world({ "/usr/bin/quire": v("6.6.6"), "/usr/local/bin/quire": v("0.1.0") }, ["/usr/bin"]);
    expect(await findEngine(deps, list)).toMatchObject({ path: "/usr/local/bin/quire", source: "install" });
    expect(probed).toEqual(["/usr/local/bin/quire"]);
  });

  it("returns null when nothing is there", async () => {
    const { deps } = world({});
    expect(await findEngine(deps, list)).toBeNull();
  });
});
