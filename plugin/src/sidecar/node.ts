// The machine side of SidecarDeps in the desktop app: files, processes,
// signals and downloads through Node's modules, which Obsidian's renderer
// provides (the plugin is desktop only).
import { spawn } from "child_process";
import { createHash } from "crypto";
import { constants, promises as fs } from "fs";
import * as http from "http";
import * as https from "https";
import { gunzip } from "zlib";
import type { ChildHandle } from "./lifecycle";
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
 * probeVersion runs `bin version --json` and returns the version it
 * prints, or "" when it cannot say (an engine from before `version`).
 */
export function probeVersion(bin: string, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve) => {
    let out = "";
    let done = false;
    const finish = (v: string) => {
      if (done) return;
      done = true;
      window.clearTimeout(timer);
      resolve(v);
    };
    const child = spawn(bin, ["version", "--json"], { stdio: ["ignore", "pipe", "ignore"], windowsHide: true });
    const timer = window.setTimeout(() => {
      child.kill();
      finish("");
    }, timeoutMs);
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (d: string) => (out += d));
    child.on("error", () => finish(""));
    child.on("exit", () => {
      try {
        const v = (JSON.parse(out) as { version?: unknown }).version;
        finish(typeof v === "string" ? v : "");
      } catch {
        finish("");
      }
    });
  });
}

/**
 * pruneEngines removes the engines the plugin downloaded for other
 * versions (dir/<version>/quire[.exe], some 70 MB each) once the current
 * one serves. It deletes only those files and then the folder if it is
 * empty: anything else someone put there stays, and an engine still
 * running (Windows refuses to delete it) is left for next time. It
 * returns the versions whose folders went.
 */
export async function pruneEngines(dir: string, keep: string): Promise<string[]> {
  const removed: string[] = [];
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return removed;
  }
  for (const v of names) {
    if (v === keep || !/^\d+\.\d+\.\d+(?:[-+][\w.-]+)?$/.test(v)) continue;
    const sub = `${dir}/${v}`;
    for (const f of ["quire", "quire.exe", "quire.download", "quire.exe.download"]) await fs.unlink(`${sub}/${f}`).catch(() => undefined);
    try {
      await fs.rmdir(sub);
      removed.push(v);
    } catch {
      // not empty, or still in use
    }
  }
  return removed;
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

/** DownloadError is a download that failed; refused says the file was there but did not match its checksum or size. */
export class DownloadError extends Error {
  constructor(
    message: string,
    readonly refused = false,
  ) {
    super(message);
    this.name = "DownloadError";
  }
}

/** Download says what to fetch and where to keep it. */
export interface Download {
  url: string;
  /** sha256 and size are the gzipped file's, compiled into main.js. */
  sha256: string;
  size: number;
  /** dest is the engine's path; its folder is created. */
  dest: string;
  onProgress(done: number, total: number): void;
  signal: AbortSignal;
}

/**
 * downloadEngine fetches a gzipped engine, checks its size and SHA-256
 * before anything is written, unpacks it next to dest, marks it
 * executable and renames it into place. A file that does not match is
 * never written, so it can never be run.
 */
export async function downloadEngine(d: Download): Promise<void> {
  const data = await fetchBytes(d.url, d, 5);
  if (data.length !== d.size) throw new DownloadError(`the download is ${data.length} bytes, not ${d.size}: it was cut short or is not this release's file`, true);
  const got = createHash("sha256").update(data).digest("hex");
  if (got !== d.sha256) throw new DownloadError(`the download's SHA-256 is ${got}, not ${d.sha256}`, true);
  const bin = await new Promise<Uint8Array>((resolve, reject) => gunzip(data, (err, out) => (err ? reject(new DownloadError(`unpack: ${err.message}`)) : resolve(out))));
  const dir = d.dest.replace(/[\\/][^\\/]*$/, "");
  await fs.mkdir(dir, { recursive: true });
  const tmp = `${d.dest}.download`;
  try {
    await fs.writeFile(tmp, bin, { mode: 0o755 });
    await fs.chmod(tmp, 0o755);
    await fs.rename(tmp, d.dest);
  } catch (err) {
    await fs.unlink(tmp).catch(() => undefined);
    throw err;
  }
}

/** fetchBytes GETs url into memory, following redirects (GitHub sends release files from another host). */
function fetchBytes(url: string, d: Download, redirects: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    if (d.signal.aborted) return reject(new DownloadError("cancelled"));
    const mod = url.startsWith("https:") ? https : url.startsWith("http:") ? http : null;
    if (!mod) return reject(new DownloadError(`not a web address: ${url}`));
    const req = mod.get(url, { headers: { "user-agent": "quire-obsidian-plugin" } }, (res) => {
      const status = res.statusCode ?? 0;
      const loc = res.headers.location;
      if (status >= 300 && status < 400 && loc) {
        res.resume();
        if (redirects <= 0) return reject(new DownloadError(`too many redirects at ${url}`));
        return resolve(fetchBytes(new URL(loc, url).toString(), d, redirects - 1));
      }
      if (status !== 200) {
        res.resume();
        return reject(new DownloadError(`${url}: HTTP ${status}`));
      }
      const chunks: Uint8Array[] = [];
      let done = 0;
      res.on("data", (c: Uint8Array) => {
        chunks.push(c);
        done += c.length;
        // A file larger than announced is not the release's: stop reading it.
        if (done > d.size) req.destroy(new DownloadError(`the download is larger than ${d.size} bytes: it is not this release's file`, true));
        else d.onProgress(done, d.size);
      });
      const cut = () => new DownloadError(`the download was cut short at ${done} of ${d.size} bytes`);
      res.on("error", (err) => reject(err instanceof DownloadError ? err : d.signal.aborted ? new DownloadError("cancelled") : cut()));
      // A connection closed before the announced end is a cut-short file, never a finished one.
      res.on("close", () => {
        if (!res.complete) reject(d.signal.aborted ? new DownloadError("cancelled") : cut());
      });
      res.on("end", () => {
        const out = new Uint8Array(done);
        let at = 0;
        for (const c of chunks) {
          out.set(c, at);
          at += c.length;
        }
        resolve(out);
      });
    });
    const onAbort = () => req.destroy(new DownloadError("cancelled"));
    d.signal.addEventListener("abort", onAbort, { once: true });
    req.on("error", (err) => reject(err instanceof DownloadError ? err : new DownloadError(`${url}: ${err.message}`)));
    req.on("close", () => d.signal.removeEventListener("abort", onAbort));
  });
}

/** trustDeps is the machine side of trustedCandidates: modes and links through fs. */
export function trustDeps(platform: string, vaultPath: string): TrustDeps {
  return {
    platform,
    vaultPath,
    mode: (p) => fs.stat(p).then((s) => s.mode, () => null),
    realpath: (p) => fs.realpath(p).catch(() => p),
  };
}
