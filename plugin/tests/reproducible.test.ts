// Obsidian's community directory review rebuilds main.js from the
// sources and compares it with the release's. The bundle must depend on
// the sources and the pinned packages alone: built twice (into other
// folders, at other times) it is the same bytes, and it carries nothing
// of the machine that built it. scripts/release checks its own main.js
// against a plain build the same way.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const plugin = join(__dirname, "..");
const dirs: string[] = [];

/** build runs the production bundle (what `npm run build` runs after the type check) into a new folder. */
async function build(): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), "quire-build-"));
  dirs.push(dir);
  const out = join(dir, "main.js");
  execFileSync(process.execPath, ["esbuild.config.mjs", "production"], { cwd: plugin, env: { ...process.env, QUIRE_PLUGIN_OUT: out }, stdio: ["ignore", "ignore", "pipe"] });
  return readFileSync(out);
}

afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe("main.js is reproducible", () => {
  it("two builds are the same bytes", async () => {
    const a = await build();
    await new Promise((r) => setTimeout(r, 1100)); // another second on the clock
    const b = await build();
    const sha = (x: Buffer) => createHash("sha256").update(x).digest("hex");
    expect(b.length).toBe(a.length);
    expect(sha(b)).toBe(sha(a));
  });

  it("carries no path of the machine that built it, and no engine hashes", async () => {
    const text = (await build()).toString("utf8");
    const root = join(plugin, "..");
    expect(text.includes(root)).toBe(false);
    expect(text.includes(tmpdir())).toBe(false);
    expect(/__QUIRE_ENGINES__|\b[0-9a-f]{64}\b/.exec(text)?.[0] ?? null).toBeNull();
  });
});
