// The machine side of SidecarDeps in the desktop app: files, processes and
// signals through Node's modules, which Obsidian's renderer provides.
import { spawn } from "child_process";
import { constants, promises as fs } from "fs";
import type { ChildHandle } from "./lifecycle";

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
 * spawnProcess starts cmd without a shell and keeps the tail of its stderr,
 * so that a sidecar that dies while starting can say why.
 */
export function spawnProcess(cmd: string, args: string[], log: (msg: string) => void): ChildHandle {
  const child = spawn(cmd, args, { stdio: ["ignore", "ignore", "pipe"], windowsHide: true });
  let tail = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    log(chunk.trimEnd());
    tail = (tail + chunk).slice(-2000);
  });
  const exitCbs: ((code: number | null, why: string) => void)[] = [];
  let exited = false;
  const fire = (code: number | null, why: string) => {
    if (exited) return;
    exited = true;
    for (const cb of exitCbs) cb(code, why);
  };
  child.on("error", (err) => fire(null, err.message));
  child.on("exit", (code, signal) => {
    const last = tail.trim().split("\n").at(-1) ?? "";
    fire(code, signal ? `killed by ${signal}` : last || `exit code ${code}`);
  });
  return {
    get pid() {
      return child.pid;
    },
    kill: () => {
      child.kill("SIGTERM");
    },
    onExit: (cb) => {
      exitCbs.push(cb);
    },
  };
}
