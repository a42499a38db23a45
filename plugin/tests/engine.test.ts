import { describe, expect, it } from "vitest";
import { type Candidate, type Platform, assetName, candidates, dataDir, downloadedPath, findEngine, formatBytes, platformKey } from "../src/sidecar/engine";

const linux: Platform = { platform: "linux", arch: "x64", env: { HOME: "/home/ada", PATH: "/usr/bin:/home/ada/go/bin::/usr/bin" } };
const mac: Platform = { platform: "darwin", arch: "arm64", env: { HOME: "/Users/ada", PATH: "/usr/bin" } };
const win: Platform = {
  platform: "win32",
  arch: "x64",
  env: { USERPROFILE: "C:\\Users\\ada", LOCALAPPDATA: "C:\\Users\\ada\\AppData\\Local", Path: "C:\\Windows;C:\\tools\\" },
};

describe("engine discovery", () => {
  it("looks in order: the configured path, the plugin's own copy, PATH, then the usual install places (Linux)", () => {
    expect(candidates(linux, " /opt/quire/quire ", "0.1.0")).toEqual<Candidate[]>([
      { path: "/opt/quire/quire", source: "settings" },
      { path: "/home/ada/.local/share/quire/engines/0.1.0/quire", source: "downloaded" },
      { path: "/usr/bin/quire", source: "path" },
      { path: "/home/ada/go/bin/quire", source: "path" },
      { path: "/home/ada/.local/bin/quire", source: "install" },
      { path: "/usr/local/bin/quire", source: "install" },
    ]);
  });

  it("on macOS the copy is in Application Support and Homebrew's folder is looked at", () => {
    expect(candidates(mac, "", "0.1.0")).toEqual<Candidate[]>([
      { path: "/Users/ada/Library/Application Support/quire/engines/0.1.0/quire", source: "downloaded" },
      { path: "/usr/bin/quire", source: "path" },
      { path: "/Users/ada/.local/bin/quire", source: "install" },
      { path: "/usr/local/bin/quire", source: "install" },
      { path: "/opt/homebrew/bin/quire", source: "install" },
    ]);
  });

  it("on Windows: quire.exe, %LOCALAPPDATA% for the copy and Programs\\quire for an install", () => {
    expect(candidates(win, "", "0.1.0")).toEqual<Candidate[]>([
      { path: "C:\\Users\\ada\\AppData\\Local\\quire\\engines\\0.1.0\\quire.exe", source: "downloaded" },
      { path: "C:\\Windows\\quire.exe", source: "path" },
      { path: "C:\\tools\\quire.exe", source: "path" },
      { path: "C:\\Users\\ada\\AppData\\Local\\Programs\\quire\\quire.exe", source: "install" },
    ]);
  });

  it("keeps the engine in the user's data folder, never in a vault", () => {
    expect(dataDir({ ...linux, env: { ...linux.env, XDG_DATA_HOME: "/data" } })).toBe("/data/quire");
    expect(dataDir({ ...linux, env: {} })).toBeNull();
    expect(downloadedPath(win, "0.2.0")).toBe("C:\\Users\\ada\\AppData\\Local\\quire\\engines\\0.2.0\\quire.exe");
  });

  it("names this machine's build and asset as .goreleaser.yaml does", () => {
    expect(platformKey(linux)).toBe("linux_amd64");
    expect(platformKey(mac)).toBe("darwin_arm64");
    expect(platformKey({ platform: "freebsd", arch: "x64" })).toBeNull();
    expect(platformKey({ platform: "linux", arch: "ia32" })).toBeNull();
    expect(assetName("0.1.0", "windows_amd64")).toBe("quire_0.1.0_windows_amd64.exe.gz");
    expect(assetName("0.1.0", "linux_arm64")).toBe("quire_0.1.0_linux_arm64.gz");
  });

  it("formats sizes for people", () => {
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(36_014_545)).toBe("36.0 MB");
  });
});

describe("findEngine", () => {
  const list = candidates(linux, "/opt/quire/quire", "0.1.0");
  const world = (engines: Record<string, string>) => {
    const probed: string[] = [];
    return {
      probed,
      deps: {
        isExecutable: async (p: string) => p in engines,
        probe: async (p: string) => {
          probed.push(p);
          const v = engines[p]!;
          if (v === "crash") throw new Error("exec format error");
          return v;
        },
      },
    };
  };

  it("takes the first candidate of the wanted version, in discovery order", async () => {
    const { deps, probed } = world({ "/usr/local/bin/quire": "0.1.0", "/home/ada/go/bin/quire": "0.1.0", "/usr/bin/quire": "0.1.0" });
    expect(await findEngine(deps, list, "0.1.0")).toEqual({ path: "/usr/bin/quire", source: "path", version: "0.1.0" });
    expect(probed).toEqual(["/usr/bin/quire"]);
  });

  it("the configured path comes first when it is the wanted version", async () => {
    const { deps } = world({ "/opt/quire/quire": "0.1.0", "/home/ada/.local/share/quire/engines/0.1.0/quire": "0.1.0" });
    expect(await findEngine(deps, list, "0.1.0")).toMatchObject({ source: "settings" });
  });

  it("an older engine in settings or on PATH gives way to the plugin's download of the right version", async () => {
    const { deps } = world({ "/opt/quire/quire": "0.0.9", "/usr/bin/quire": "0.0.9", "/home/ada/.local/share/quire/engines/0.1.0/quire": "0.1.0" });
    expect(await findEngine(deps, list, "0.1.0")).toMatchObject({ source: "downloaded", version: "0.1.0" });
  });

  it("with none of the wanted version, returns the first one found, whose version the lifecycle then reports", async () => {
    const { deps } = world({ "/usr/local/bin/quire": "0.0.9", "/home/ada/go/bin/quire": "crash" });
    expect(await findEngine(deps, list, "0.1.0")).toEqual({ path: "/home/ada/go/bin/quire", source: "path", version: "" });
  });

  it("returns null when nothing is there", async () => {
    const { deps } = world({});
    expect(await findEngine(deps, list, "0.1.0")).toBeNull();
  });
});
