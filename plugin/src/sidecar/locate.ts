// Where the quire engine comes from. Obsidian's developer policies forbid
// a plugin to install or update itself or its dependencies, so the plugin
// only finds an engine the user installed with their system's tools: the
// path in its settings, PATH (less the folders that are not safe to run
// from), and the places package managers put programs. It starts any
// engine whose protocol range overlaps its own, whatever its version. No
// Node and no Obsidian here: the machine comes in through EngineDeps.
import manifest from "../../../manifest.json";
import { MIN_PROTOCOL_VERSION, PROTOCOL_VERSION } from "../../../proto/proto.gen";

/** PLUGIN_VERSION is this plugin's release, whose engine packages the install commands name. */
export const PLUGIN_VERSION: string = manifest.version;

/** EngineSource says where an engine was found, for the status view. */
export type EngineSource = "settings" | "path" | "install" | "running";

/** SOURCE_TEXT words each source for people. */
export const SOURCE_TEXT: Record<EngineSource, string> = {
  settings: "the path in settings",
  path: "found on PATH",
  install: "found where a package manager installs it",
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

/** isInside reports whether path is dir or below it (Windows paths compare without case). */
export function isInside(p: Pick<Platform, "platform">, path: string, dir: string): boolean {
  if (dir.trim() === "") return false;
  const norm = (s: string) => {
    const t = s.replace(/[\\/]+/g, "/").replace(/\/+$/, "");
    return p.platform === "win32" ? t.toLowerCase() : t;
  };
  const a = norm(path);
  const b = norm(dir);
  return a === b || a.startsWith(`${b}/`);
}

/**
 * installPlaces lists where the package managers Quire ships for put the
 * program, per system: Homebrew's prefixes (Apple silicon, Intel, Linux),
 * the distributions' /usr/bin, Scoop's shims and winget's links, and the
 * folders the archive's install command unpacks into.
 */
export function installPlaces(p: Platform): string[] {
  const e = p.env;
  const home = e["HOME"] ?? e["USERPROFILE"] ?? "";
  const exe = exeName(p);
  if (p.platform === "win32") {
    const out: string[] = [];
    const profile = e["USERPROFILE"] ?? "";
    const local = e["LOCALAPPDATA"] || (profile ? joinPath(p, profile, "AppData", "Local") : "");
    const scoop = e["SCOOP"] || (profile ? joinPath(p, profile, "scoop") : "");
    if (local) out.push(joinPath(p, local, "Microsoft", "WinGet", "Links", exe));
    if (scoop) out.push(joinPath(p, scoop, "shims", exe));
    if (local) out.push(joinPath(p, local, "Programs", "quire", exe));
    return out;
  }
  const out =
    p.platform === "darwin"
      ? [`/opt/homebrew/bin/${exe}`, `/usr/local/bin/${exe}`]
      : [`/usr/bin/${exe}`, `/usr/local/bin/${exe}`, `/home/linuxbrew/.linuxbrew/bin/${exe}`];
  if (home) out.push(joinPath(p, home, ".local", "bin", exe));
  return out;
}

/**
 * candidates lists where to look, in order: the configured path, every
 * PATH folder that is not inside the vault (a note folder is no place to
 * run a program from, and a synced vault would carry one to every
 * device), then the install places.
 */
export function candidates(p: Platform, configured: string, vaultPath: string): Candidate[] {
  const out: Candidate[] = [];
  const add = (path: string | null, source: EngineSource) => {
    if (path && !out.some((c) => c.path === path)) out.push({ path, source });
  };
  add(configured.trim() || null, "settings");
  const exe = exeName(p);
  const sep = p.platform === "win32" ? ";" : ":";
  const pathVar = p.env["PATH"] ?? p.env["Path"] ?? "";
  for (const raw of pathVar.split(sep)) {
    const dir = raw.trim();
    if (dir === "" || isInside(p, dir, vaultPath)) continue;
    add(joinPath(p, dir, exe), "path");
  }
  for (const path of installPlaces(p)) add(path, "install");
  return out;
}

/** Probe is what `quire version --json` says about an engine. */
export interface Probe {
  /** version is the engine's release ("" when it could not say: a build from before `version`). */
  version: string;
  /** protocol and minProtocol are the newest and oldest protocol versions it speaks. */
  protocol: number;
  minProtocol: number;
}

/**
 * readProbe reads `quire version --json`'s output. An engine from before
 * protocol ranges prints no protocol: it speaks protocol 1 alone, the
 * only one there was. Output that is not a version document says nothing.
 */
export function readProbe(out: string): Probe {
  let v: unknown;
  try {
    v = JSON.parse(out);
  } catch {
    return { version: "", protocol: 0, minProtocol: 0 };
  }
  const r = typeof v === "object" && v !== null ? (v as Record<string, unknown>) : {};
  const version = typeof r["version"] === "string" ? r["version"] : "";
  if (version === "") return { version, protocol: 0, minProtocol: 0 };
  const protocol = typeof r["protocol"] === "number" ? r["protocol"] : 1;
  const minProtocol = typeof r["minProtocol"] === "number" && r["minProtocol"] > 0 ? r["minProtocol"] : protocol;
  return { version, protocol, minProtocol };
}

/**
 * Compat says whether this plugin can talk to an engine of a protocol
 * range: ok, or which side is too old for the other (an engine that cannot
 * say its protocol counts as too old).
 */
export type Compat = "ok" | "engine-too-old" | "plugin-too-old";

/** compat compares an engine's protocol range [minProtocol, protocol] with this plugin's. */
export function compat(minProtocol: number, protocol: number): Compat {
  if (protocol <= 0 || protocol < MIN_PROTOCOL_VERSION) return "engine-too-old";
  if (Math.max(minProtocol, 1) > PROTOCOL_VERSION) return "plugin-too-old";
  return "ok";
}

/** Found is an engine on this machine and what it says it is. */
export interface Found extends Candidate, Probe {
  compat: Compat;
}

/** EngineDeps is what finding an engine needs from the machine. */
export interface EngineDeps {
  isExecutable(path: string): Promise<boolean>;
  /**
   * unsafeDir reports whether a folder on PATH is writable by every user
   * of the machine (where anyone could have put a quire): such folders
   * are passed over.
   */
  unsafeDir(dir: string): Promise<boolean>;
  /** probe runs `PATH version --json`. */
  probe(path: string): Promise<Probe>;
}

/**
 * findEngine returns the engine to start: the first candidate this plugin
 * can talk to (so a package manager's up-to-date engine wins over an old
 * one earlier on PATH), else the first one found at all, whose protocol
 * the lifecycle then reports, or null when there is none.
 */
export async function findEngine(deps: EngineDeps, list: Candidate[]): Promise<Found | null> {
  let first: Found | null = null;
  for (const c of list) {
    if (!(await deps.isExecutable(c.path))) continue;
    if (c.source === "path" && (await deps.unsafeDir(c.path.replace(/[\\/][^\\/]*$/, "")))) continue;
    const probe = await deps.probe(c.path).catch((): Probe => ({ version: "", protocol: 0, minProtocol: 0 }));
    const f: Found = { ...c, ...probe, compat: compat(probe.minProtocol, probe.protocol) };
    if (f.compat === "ok") return f;
    first ??= f;
  }
  return first;
}
