// The machine side of SidecarDeps in the desktop app: files, processes
// and signals through Node's modules, which Obsidian's renderer provides
// (the plugin is desktop only). It only reads files and starts the engine
// the user installed: nothing here writes a file or changes its mode
// (tests/no-install.test.ts holds it to that).
import { spawn } from "child_process";
import { constants, promises as fs } from "fs";
import { type Platform, type Probe, readProbe } from "./locate";
import type { ChildHandle } from "./lifecycle";
import { type System, managerPlaces, parseOsRelease } from "./setup";
import type { TrustDeps } from "./trust";

/** readFileOrNull returns a file's text, or null when it does not exist. */
export async function readFileOrNull(path: string): Promise<string | null> {
  try {
    return await fs.readFile(path, "utf8");
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return null;
    throw err;
  }
}

/** isExecutable reports whether path is a file this user may run. */
export async function isExecutable(path: string): Promise<boolean> {
  try {
    const st = await fs.stat(path);
    if (!st.isFile()) return false;
    await fs.access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * unsafeDir reports whether dir is writable by every user (mode o+w, as
 * /tmp is): anyone could have put a quire there. Windows has no such
 * bit to read; its PATH folders are taken as they are.
 */
export async function unsafeDir(dir: string): Promise<boolean> {
  if (process.platform === "win32") return false;
  try {
    return ((await fs.stat(dir)).mode & 0o002) !== 0;
  } catch {
    return false;
  }
}

/** exists reports whether something is at path (an app execution alias such as winget.exe cannot be stat'ed, only seen). */
async function exists(path: string): Promise<boolean> {
  try {
    await fs.lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** detectSystem reads what the first-run panel needs to know: the Linux distribution and the package managers present. */
export async function detectSystem(p: Platform): Promise<System> {
  const managers = new Set<string>();
  for (const [name, places] of Object.entries(managerPlaces(p))) {
    for (const place of places) {
      if (await exists(place)) {
        managers.add(name);
        break;
      }
    }
  }
  const osRelease = p.platform === "linux" ? ((await readFileOrNull("/etc/os-release").catch(() => null)) ?? (await readFileOrNull("/usr/lib/os-release").catch(() => null))) : null;
  return { platform: p.platform, arch: p.arch, distro: osRelease === null ? null : parseOsRelease(osRelease), managers };
}

/** isAlive reports whether a process with this id runs (signal 0 only checks). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as { code?: string }).code === "EPERM";
  }
}

/**
 * probeVersion runs `bin version --json` and returns its version and
 * protocol range (an empty version when it cannot say: an engine from
 * before `version`).
 */
export function probeVersion(bin: string, timeoutMs = 10_000): Promise<Probe> {
  return new Promise((resolve) => {
    let out = "";
    let done = false;
    const finish = (v: Probe) => {
      if (done) return;
      done = true;
      window.clearTimeout(timer);
      resolve(v);
    };
    const child = spawn(bin, ["version", "--json"], { stdio: ["ignore", "pipe", "ignore"], windowsHide: true });
    const timer = window.setTimeout(() => {
      child.kill();
      finish(readProbe(""));
    }, timeoutMs);
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (d: string) => (out += d));
    child.on("error", () => finish(readProbe("")));
    child.on("exit", () => finish(readProbe(out)));
  });
}

/** STDERR_LINES is how many of the engine's last stderr lines are kept for "Show log". */
const STDERR_LINES = 40;

/**
 * spawnProcess starts cmd without a shell, with a stdin pipe it never
 * writes to (the engine ends when it closes, so a force-quit of the app
 * leaves nothing running), and keeps the tail of its stderr.
 */
export function spawnProcess(cmd: string, args: string[], log: (msg: string) => void): ChildHandle {
  const child = spawn(cmd, args, { stdio: ["pipe", "ignore", "pipe"], windowsHide: true });
  let tail: string[] = [];
  let partial = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    log(chunk.trimEnd());
    const lines = (partial + chunk).split("\n");
    partial = lines.pop() ?? "";
    tail = [...tail, ...lines.filter((l) => l.trim() !== "")].slice(-STDERR_LINES);
  });
  const exitCbs: ((code: number | null, why: string) => void)[] = [];
  let exited = false;
  const fire = (code: number | null, why: string) => {
    if (exited) return;
    exited = true;
    for (const cb of exitCbs.splice(0)) cb(code, why);
  };
  child.on("error", (err) => fire(null, err.message));
  child.on("exit", (code, signal) => {
    const last = [...tail, partial].filter((l) => l.trim() !== "").at(-1) ?? "";
    fire(code, signal ? `killed by ${signal}` : last || `exit code ${code}`);
  });
  return {
    get pid() {
      return child.pid;
    },
    terminate: () => {
      // The engine stops cleanly when its stdin closes, on every OS; SIGTERM
      // too where there is one (on Windows kill("SIGTERM") is a hard kill).
      child.stdin?.end();
      if (process.platform !== "win32") child.kill("SIGTERM");
    },
    kill: () => {
      child.kill("SIGKILL");
    },
    onExit: (cb) => {
      if (exited) return;
      exitCbs.push(cb);
    },
    stderrTail: () => [...tail, partial].filter((l) => l.trim() !== ""),
  };
}

/** trustDeps is the machine side of trustedCandidates: modes read and links resolved through fs, nothing written. */
export function trustDeps(platform: string, vaultPath: string): TrustDeps {
  return {
    platform,
    vaultPath,
    mode(p) {
      return fs.stat(p).then((s) => s.mode, () => null);
    },
    realpath(p) {
      return fs.realpath(p).catch(() => p);
    },
  };
}
