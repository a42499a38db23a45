// manifest.json's minAppVersion must cover every Obsidian API the plugin
// calls: this reads each obsidian.d.ts declaration that src/ refers to and
// takes the highest @since tag among them.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../", import.meta.url));

function cmp(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

/** usedSince maps each obsidian API that src/ uses to its @since version. */
function usedSince(): Map<string, string> {
  const config = ts.getParsedCommandLineOfConfigFile(`${root}tsconfig.json`, {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: () => {},
  })!;
  const program = ts.createProgram(config.fileNames.filter((f) => f.includes("/src/")), config.options);
  const checker = program.getTypeChecker();
  const out = new Map<string, string>();
  for (const sf of program.getSourceFiles()) {
    if (!sf.fileName.includes("/plugin/src/")) continue;
    const visit = (node: ts.Node) => {
      if (ts.isIdentifier(node)) {
        let sym = checker.getSymbolAtLocation(node);
        if (sym && sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
        for (const decl of sym?.declarations ?? []) {
          if (!decl.getSourceFile().fileName.includes("node_modules/obsidian/")) continue;
          for (const tag of ts.getJSDocTags(decl)) {
            if (tag.tagName.text !== "since" || typeof tag.comment !== "string") continue;
            out.set(`${sym!.getName()}`, tag.comment.trim());
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out;
}

describe("manifest.json", () => {
  it("minAppVersion covers every Obsidian API src/ uses", () => {
    const manifest = JSON.parse(readFileSync(`${root}../manifest.json`, "utf8")) as { minAppVersion: string; version: string };
    const versions = JSON.parse(readFileSync(`${root}../versions.json`, "utf8")) as Record<string, string>;
    const since = usedSince();
    expect(since.size).toBeGreaterThan(5); // the scan found the APIs at all
    const [api, newest] = [...since].sort((a, b) => cmp(b[1], a[1]))[0]!;
    expect(cmp(manifest.minAppVersion, newest), `${api} needs ${newest}`).toBeGreaterThanOrEqual(0);
    expect(versions[manifest.version]).toBe(manifest.minAppVersion);
  }, 60_000);
});
