import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "fs";
import { promises as fs } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { afterAll, describe, expect, it } from "vitest";
import type { Candidate } from "../src/sidecar/locate";
import { trustedCandidates, type TrustDeps } from "../src/sidecar/trust";

// Real folders and files in a temp folder, with real modes.
function deps(vaultPath: string, platform = "linux"): TrustDeps {
  return {
    platform,
    vaultPath,
    mode: (p) => fs.stat(p).then((s) => s.mode).catch(() => null),
    realpath: (p) => fs.realpath(p).catch(() => p),
  };
}

function exe(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  chmodSync(dir, 0o755);
  const p = join(dir, "quire");
  writeFileSync(p, "#!/bin/sh\n", { mode: 0o755 });
  return p;
}

describe.skipIf(process.platform === "win32")("trustedCandidates", () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "quire-trust-")));
  chmodSync(root, 0o755);
  const vault = join(root, "vault");
  mkdirSync(vault, { mode: 0o755 });
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const path = (p: string): Candidate => ({ path: p, source: "path" });

  it("keeps an engine in a folder only its owner writes", async () => {
    const ok = exe(join(root, "bin"));
    expect(await trustedCandidates([path(ok)], deps(vault))).toEqual([path(ok)]);
  });

  it("drops one inside the vault, also through a link to it", async () => {
    const inside = exe(join(vault, "tools"));
    symlinkSync(vault, join(root, "vault-link"));
    const viaLink = join(root, "vault-link", "tools", "quire");
    expect(await trustedCandidates([path(inside), path(viaLink)], deps(vault))).toEqual([]);
  });

  it("drops one in a folder any user can write, sticky or not, and one any user can write", async () => {
    const shared = exe(join(root, "shared"));
    chmodSync(join(root, "shared"), 0o1777);
    const loose = exe(join(root, "loose"));
    chmodSync(loose, 0o757);
    expect(await trustedCandidates([path(shared), path(loose)], deps(vault))).toEqual([]);
  });

  it("drops one below a folder any user can rename, keeps one below a sticky one like /tmp", async () => {
    mkdirSync(join(root, "open"), { mode: 0o755 });
    const below = exe(join(root, "open", "bin"));
    chmodSync(join(root, "open"), 0o777);
    mkdirSync(join(root, "sticky"), { mode: 0o755 });
    const belowSticky = exe(join(root, "sticky", "bin"));
    chmodSync(join(root, "sticky"), 0o1777);
    expect(await trustedCandidates([path(below), path(belowSticky)], deps(vault))).toEqual([path(belowSticky)]);
  });

  it("drops a relative PATH entry, and keeps the other sources as they are", async () => {
    const inside = exe(join(vault, "mine"));
    const kept: Candidate[] = [{ path: inside, source: "settings" }, { path: "/x/quire", source: "install" }];
    expect(await trustedCandidates([path("bin/quire"), path("./quire"), ...kept], deps(vault))).toEqual(kept);
  });
});

describe("trustedCandidates on Windows", () => {
  it("drops a relative entry and one inside the vault, case aside", async () => {
    const d: TrustDeps = { platform: "win32", vaultPath: "C:\\Users\\u\\Vault", mode: async () => null, realpath: async (p) => p };
    const list: Candidate[] = [
      { path: "C:\\Program Files\\quire\\quire.exe", source: "path" },
      { path: "c:\\users\\u\\vault\\bin\\quire.exe", source: "path" },
      { path: "bin\\quire.exe", source: "path" },
    ];
    expect(await trustedCandidates(list, d)).toEqual([list[0]]);
  });
});
