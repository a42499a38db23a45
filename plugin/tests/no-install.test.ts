// Obsidian's developer policies: a plugin must not install or update
// itself or its dependencies. Quire's plugin finds the engine the user
// installed; no code path of it writes an executable or changes a file's
// mode. This holds it to that twice: over the sources (only node.ts
// touches Node's file and process modules, and only to read, stat and
// spawn) and over the bundle Obsidian loads (no Node call that writes a
// file, makes a folder or sets a mode is in main.js at all).
import { readFileSync, readdirSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const plugin = join(__dirname, "..");
const src = join(plugin, "src");

/** sources lists plugin/src's TypeScript files, relative to src. */
function sources(dir = src): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith(".ts") ? [relative(src, p)] : [];
  });
}

/** NODE_MODULE matches an import of one of Node's modules that reach the file system or processes. */
const NODE_MODULE = /from\s+["'](?:node:)?(fs|fs\/promises|child_process|zlib|http|https|net|os|path|crypto|stream)["']|require\(\s*["'](?:node:)?\w+["']\s*\)/g;

/** WRITES are Node's calls that write, move, link or delete a file, make a folder or set a mode. */
const WRITES = ["writeFile", "appendFile", "createWriteStream", "copyFile", "cp", "rename", "symlink", "link", "mkdir", "mkdtemp", "rm", "rmdir", "unlink", "truncate", "chmod", "fchmod", "lchmod", "chown", "utimes", "open", "execFile", "exec", "fork"];

describe("the plugin never installs", () => {
  it("only sidecar/node.ts imports Node's file, process or network modules", () => {
    const importers = sources().filter((f) => NODE_MODULE.test(readFileSync(join(src, f), "utf8")) && ((NODE_MODULE.lastIndex = 0), true));
    expect(importers).toEqual(["sidecar/node.ts"]);
    const text = readFileSync(join(src, "sidecar", "node.ts"), "utf8");
    expect([...text.matchAll(NODE_MODULE)].map((m) => m[1])).toEqual(["child_process", "fs"]);
  });

  it("node.ts reads, stats and spawns: it names no call that writes a file or sets a mode", () => {
    const text = readFileSync(join(src, "sidecar", "node.ts"), "utf8");
    const used = new Set([...text.matchAll(/\bfs\.(\w+)/g)].map((m) => m[1]));
    expect([...used].sort()).toEqual(["access", "lstat", "readFile", "realpath", "stat"]);
    const named = /import\s*\{([^}]*)\}\s*from\s*"fs"/.exec(text)?.[1] ?? "";
    expect(named.split(",").map((s) => s.trim())).toEqual(["constants", "promises as fs"]);
    expect(/import\s*\{([^}]*)\}\s*from\s*"child_process"/.exec(text)?.[1]?.trim()).toBe("spawn");
    // A mode in any form: chmod, a file's mode option, an octal mode with an execute bit.
    expect(text).not.toMatch(/chmod|\bmode\s*:|\b0o[0-7]*[1357][0-7]{2}\b/);
  });

  describe("the bundle", () => {
    let dir = "";
    let bundle = "";
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "quire-bundle-"));
      const out = join(dir, "main.js");
      execFileSync(process.execPath, ["esbuild.config.mjs", "production"], { cwd: plugin, env: { ...process.env, QUIRE_PLUGIN_OUT: out }, stdio: ["ignore", "ignore", "pipe"] });
      bundle = readFileSync(out, "utf8");
    }, 60_000);
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it("requires only fs and child_process of Node's own modules", () => {
      const required = new Set([...bundle.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]));
      expect([...required].filter((m) => !["obsidian", "electron"].includes(m!) && !m!.startsWith("@codemirror/")).sort()).toEqual(["child_process", "fs"]);
    });

    it("uses nothing of them but reading, stat'ing and spawning", () => {
      // esbuild binds each required module to a name and keeps property
      // names: every use reads NAME.member or NAME.promises.member.
      const names = [...bundle.matchAll(/(?:var |,)([\w$]+)=require\("(fs|child_process)"\)/g)].map((m) => m[1]!);
      expect(names.length).toBe(2);
      const used = new Set<string>();
      for (const n of names) {
        const esc = n.replace(/\$/g, "\\$");
        for (const m of bundle.matchAll(new RegExp(`(?<![\\w$.])${esc}\\.(promises\\.)?([\\w$]+)`, "g"))) used.add(`${m[1] ?? ""}${m[2]}`);
        // Anything else (the module passed around whole, destructured, indexed) would hide what it calls.
        // (A regex's Unicode class, /\p{M}/, is no use of a module the minifier happened to call M, nor is a word
        // of a sentence, "do I feed", which minified code never writes: a name it uses is followed by punctuation.)
        const bare = [...bundle.matchAll(new RegExp(`(?<![\\w$.]|\\\\p\\{)${esc}(?![\\w$]|\\.|=require| [a-z])`, "g"))];
        expect(bare.length, `${n} used other than by member`).toBe(0);
      }
      expect([...used].sort()).toEqual(["constants", "promises.access", "promises.lstat", "promises.readFile", "promises.realpath", "promises.stat", "spawn"]);
      expect([...used].filter((u) => WRITES.some((w) => u === w || u === `promises.${w}` || u === `${w}Sync`))).toEqual([]);
    });
  });
});
