// Where the quire engine comes from. The plugin looks, in order, at the
// path in its settings, its own downloaded copy, PATH and the usual
// install places; when none holds the engine of its exact version, it
// offers to download that build from the project's release, checked
// against a SHA-256 compiled into main.js at release time. No Node and no
// Obsidian here: the machine comes in through EngineDeps.
import manifest from "../../../manifest.json";

/** ENGINE_VERSION is the engine version this plugin speaks to: its own (one number for both). */
export const ENGINE_VERSION: string = manifest.version;

/** DEFAULT_RELEASE_URL is where release builds are downloaded from: <url>/<version>/<asset>. */
export const DEFAULT_RELEASE_URL = "https://github.com/quire-app/quire/releases/download";

/** EngineBuild is one downloadable engine: the gzipped binary of a release. */
export interface EngineBuild {
  /** file is the release asset's name, e.g. quire_0.1.0_linux_amd64.gz. */
  file: string;
  /** sha256 is the asset's SHA-256 in hex, as in the release's checksums file. */
  sha256: string;
  /** size is the asset's size in bytes. */
  size: number;
}

/**
 * RELEASE_BUILDS maps a platform ("linux_amd64") to its build. scripts/release
 * fills it in when it bundles main.js (esbuild define, from the engines it
 * just built); a development build has none and can only use an engine it
 * finds.
 */
export const RELEASE_BUILDS: Readonly<Record<string, EngineBuild>> = typeof __QUIRE_ENGINES__ === "undefined" ? {} : __QUIRE_ENGINES__;

// esbuild.config.mjs replaces this name with the table (its `define`); in
// a build without QUIRE_ENGINE_DIR, and in tests, it stays undefined.
declare const __QUIRE_ENGINES__: Record<string, EngineBuild> | undefined;

/** EngineSource says where an engine was found, for the status view. */
export type EngineSource = "settings" | "downloaded" | "path" | "install" | "running";

/** SOURCE_TEXT words each source for people. */
export const SOURCE_TEXT: Record<EngineSource, string> = {
  settings: "the path in settings",
  downloaded: "downloaded by the plugin",
  path: "found on PATH",
  install: "found in an install folder",
  running: "already running",
};

/** Candidate is a place an engine might be. */
export interface Candidate {
  path: string;
  source: EngineSource;
}

/** Platform is the machine as Node reports it (process.platform, process.arch, process.env). */
export interface Platform {
  platform: string;
  arch: string;
  env: Record<string, string | undefined>;
}

/** platformKey names this machine's build ("linux_amd64"), or null when there is none for it. */
export function platformKey(p: Pick<Platform, "platform" | "arch">): string | null {
  const os = { linux: "linux", darwin: "darwin", win32: "windows" }[p.platform];
  const arch = { x64: "amd64", arm64: "arm64" }[p.arch];
  return os && arch ? `${os}_${arch}` : null;
}

/** assetName is the release asset of the gzipped engine, as .goreleaser.yaml names it. */
export function assetName(version: string, key: string): string {
  return `quire_${version}_${key}${key.startsWith("windows_") ? ".exe" : ""}.gz`;
}

/** exeName is the engine's file name on this platform. */
export function exeName(p: Pick<Platform, "platform">): string {
  return p.platform === "win32" ? "quire.exe" : "quire";
}

/** joinPath joins with the platform's separator. */
export function joinPath(p: Pick<Platform, "platform">, ...parts: string[]): string {
  const sep = p.platform === "win32" ? "\\" : "/";
  return parts
    .filter((s) => s !== "")
    .map((s, i) => (i === 0 ? s.replace(/[\\/]+$/, "") || s : s.replace(/^[\\/]+|[\\/]+$/g, "")))
    .join(sep);
}

/**
 * dataDir is the user's data folder for Quire, outside any vault (sync
 * tools, iCloud and git must not copy a large executable): Windows
 * %LOCALAPPDATA%\quire, macOS ~/Library/Application Support/quire, else
 * $XDG_DATA_HOME/quire or ~/.local/share/quire. Null when the environment
 * names no home.
 */
export function dataDir(p: Platform): string | null {
  const e = p.env;
  if (p.platform === "win32") {
    const base = e["LOCALAPPDATA"] || (e["USERPROFILE"] ? joinPath(p, e["USERPROFILE"], "AppData", "Local") : "");
    return base ? joinPath(p, base, "quire") : null;
  }
  const home = e["HOME"] ?? "";
  if (p.platform === "darwin") return home ? joinPath(p, home, "Library", "Application Support", "quire") : null;
  if (e["XDG_DATA_HOME"]) return joinPath(p, e["XDG_DATA_HOME"], "quire");
  return home ? joinPath(p, home, ".local", "share", "quire") : null;
}

/** enginesDir is the folder of the engines the plugin downloaded, one folder per version. */
export function enginesDir(p: Platform): string | null {
  const d = dataDir(p);
  return d ? joinPath(p, d, "engines") : null;
}

/** downloadedPath is where the plugin keeps the engine of version it downloaded. */
export function downloadedPath(p: Platform, version: string): string | null {
  const d = enginesDir(p);
  return d ? joinPath(p, d, version, exeName(p)) : null;
}

/**
 * candidates lists where to look, in order: the configured path, the
 * plugin's own copy, every PATH folder, then the usual install places.
 */
export function candidates(p: Platform, configured: string, version: string): Candidate[] {
  const out: Candidate[] = [];
  const add = (path: string | null, source: EngineSource) => {
    if (path && !out.some((c) => c.path === path)) out.push({ path, source });
  };
  add(configured.trim() || null, "settings");
  add(downloadedPath(p, version), "downloaded");
  const exe = exeName(p);
  const sep = p.platform === "win32" ? ";" : ":";
  const pathVar = p.env["PATH"] ?? p.env["Path"] ?? "";
  for (const dir of pathVar.split(sep)) if (dir.trim() !== "") add(joinPath(p, dir.trim(), exe), "path");
  const home = p.env["HOME"] ?? p.env["USERPROFILE"] ?? "";
  if (p.platform === "win32") {
    const local = p.env["LOCALAPPDATA"];
    if (local) add(joinPath(p, local, "Programs", "quire", exe), "install");
  } else {
    if (home) add(joinPath(p, home, ".local", "bin", exe), "install");
    add(`/usr/local/bin/${exe}`, "install");
    if (p.platform === "darwin") add(`/opt/homebrew/bin/${exe}`, "install");
  }
  return out;
}

/** Found is an engine on this machine and what it says it is. */
export interface Found extends Candidate {
  /** version is what `quire version --json` printed, "" when it could not say (an old build). */
  version: string;
}

/** EngineDeps is what finding an engine needs from the machine. */
export interface EngineDeps {
  isExecutable(path: string): Promise<boolean>;
  /** probe runs `PATH version --json` and returns its version, or "" when it cannot tell. */
  probe(path: string): Promise<string>;
}

/**
 * findEngine returns the engine to start: the first candidate of the
 * wanted version (so the plugin's own download wins over an older engine
 * on PATH, and over an older one set in settings once the user has
 * updated), else the first candidate found at all, whose version then
 * differs and the plugin says so, or null when there is none.
 */
export async function findEngine(deps: EngineDeps, list: Candidate[], want: string): Promise<Found | null> {
  let first: Found | null = null;
  for (const c of list) {
    if (!(await deps.isExecutable(c.path))) continue;
    const version = await deps.probe(c.path).catch(() => "");
    const f = { ...c, version };
    if (version === want) return f;
    first ??= f;
  }
  return first;
}

/** formatBytes writes a size for people: "23.4 MB". */
export function formatBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  if (n < 1e6) return `${(n / 1e3).toFixed(1)} kB`;
  return `${(n / 1e6).toFixed(1)} MB`;
}
