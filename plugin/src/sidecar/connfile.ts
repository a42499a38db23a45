// Reading the sidecar's connection file, <state>/sidecar.json, which a
// running `quire serve` writes (mode 0600) and removes when it exits.

/** ConnFile mirrors server.ConnFile in the sidecar: how to reach the running sidecar. */
export interface ConnFile {
  port: number;
  token: string;
  pid: number;
  protocol: number;
  /** minProtocol is the oldest protocol the engine speaks; 0 for an engine from before ranges, which speaks protocol alone. */
  minProtocol: number;
  version: string;
}

/** CONN_FILE_NAME is the connection file's name in the state folder. */
export const CONN_FILE_NAME = "sidecar.json";

/**
 * parseConnFile reads a connection file's text, or returns null when it is
 * not one (half written, hand edited, from an unrelated tool).
 */
export function parseConnFile(text: string): ConnFile | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof v !== "object" || v === null) return null;
  const r = v as Record<string, unknown>;
  const port = r["port"];
  const token = r["token"];
  if (typeof port !== "number" || !Number.isInteger(port) || port <= 0 || port > 65535) return null;
  if (typeof token !== "string" || token === "") return null;
  return {
    port,
    token,
    pid: typeof r["pid"] === "number" ? r["pid"] : 0,
    protocol: typeof r["protocol"] === "number" ? r["protocol"] : 0,
    minProtocol: typeof r["minProtocol"] === "number" ? r["minProtocol"] : 0,
    version: typeof r["version"] === "string" ? r["version"] : "",
  };
}

/**
 * stateDir is the sidecar's state folder for a vault: the configured one
 * (absolute, or relative to the vault) or <vault>/.quire.
 */
export function stateDir(vaultPath: string, configured: string): string {
  const c = configured.trim();
  if (c === "") return joinPath(vaultPath, ".quire");
  if (isAbsolute(c)) return c;
  return joinPath(vaultPath, c);
}

/** SECRET_FILE_NAME is the state folder's secret (state.SecretFileName), which only its owner can read. */
export const SECRET_FILE_NAME = "secret";

/** secretPath is the secret file of a state folder. */
export function secretPath(state: string): string {
  return joinPath(state, SECRET_FILE_NAME);
}

/** newNonce returns a fresh random hello nonce. */
export function newNonce(): string {
  return hex(crypto.getRandomValues(new Uint8Array(16)));
}

/**
 * proofOf is what the engine of a state folder with this secret answers to
 * a hello's nonce (server.Proof): hex HMAC-SHA256 of "quire welcome " +
 * nonce, keyed by the secret.
 */
export async function proofOf(secret: string, nonce: string): Promise<string> {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return hex(new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(`quire welcome ${nonce}`))));
}

function hex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** connFilePath is where the sidecar serving stateFolder writes its connection file. */
export function connFilePath(state: string): string {
  return joinPath(state, CONN_FILE_NAME);
}

function isAbsolute(p: string): boolean {
  return p.startsWith("/") || p.startsWith("\\") || /^[A-Za-z]:[\\/]/.test(p);
}

function joinPath(dir: string, name: string): string {
  const sep = dir.includes("\\") && !dir.includes("/") ? "\\" : "/";
  return dir.endsWith("/") || dir.endsWith("\\") ? dir + name : dir + sep + name;
}
