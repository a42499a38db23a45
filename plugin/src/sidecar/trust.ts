// Which of the engines found on PATH the plugin may run at all. Finding an
// engine runs `quire version --json` of every candidate, so a `quire` that
// lies inside the vault (synced from anywhere) or in a folder any user can
// write (planted by anyone) would run with the user's rights at start.
// No Node here: the machine comes in through TrustDeps.
import type { Candidate } from "./locate";

/** TrustDeps is what trustedCandidates needs from the machine. */
export interface TrustDeps {
  /** platform is process.platform. */
  platform: string;
  /** vaultPath is the vault's absolute folder. */
  vaultPath: string;
  /** mode returns a path's mode bits (fs.Stats.mode), or null when it cannot be read. */
  mode(path: string): Promise<number | null>;
  /** realpath resolves links, or returns the path as given when it cannot. */
  realpath(path: string): Promise<string>;
}

const WORLD_WRITABLE = 0o002;
const STICKY = 0o1000;

/**
 * trustedCandidates drops the PATH candidates the plugin must not run: a
 * relative one (it would resolve against the app's working folder), one
 * inside the vault, and, where modes mean something (not Windows), one
 * that any user can write, or whose folder any user can write or whose
 * folders above it any user can rename (world-writable without the sticky
 * bit). The other sources (settings, the plugin's download, the install
 * places) are kept as they are.
 */
export async function trustedCandidates(list: Candidate[], deps: TrustDeps): Promise<Candidate[]> {
  const out: Candidate[] = [];
  for (const c of list) {
    if (c.source !== "path" || (await runnable(c.path, deps))) out.push(c);
  }
  return out;
}

async function runnable(path: string, deps: TrustDeps): Promise<boolean> {
  const win = deps.platform === "win32";
  const sep = win ? "\\" : "/";
  const absolute = win ? /^([A-Za-z]:[\\/]|\\\\)/.test(path) : path.startsWith("/");
  if (!absolute) return false;
  const real = await deps.realpath(path);
  const vault = (await deps.realpath(deps.vaultPath)).replace(/[\\/]+$/, "");
  // Windows and macOS compare names without case by default.
  const fold = (s: string) => (win || deps.platform === "darwin" ? s.toLowerCase() : s);
  if (fold(real) === fold(vault) || fold(real).startsWith(fold(vault + sep))) return false;
  if (win) return true;
  const fileMode = await deps.mode(real);
  if (fileMode === null || fileMode & WORLD_WRITABLE) return false;
  let dir = real.slice(0, real.lastIndexOf("/")) || "/";
  const own = await deps.mode(dir);
  if (own === null || own & WORLD_WRITABLE) return false;
  while (dir !== "/") {
    dir = dir.slice(0, dir.lastIndexOf("/")) || "/";
    const m = await deps.mode(dir);
    if (m === null || (m & WORLD_WRITABLE && !(m & STICKY))) return false;
  }
  return true;
}
