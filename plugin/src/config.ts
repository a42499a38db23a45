// The sidecar's settings as the plugin sees them: read with config.get,
// changed with config.set, and the API key handed over on every
// connection (the sidecar keeps it in memory only; the plugin keeps it in
// its data and sends it nowhere else).
import type { ConfigResult, Settings } from "../../proto/proto.gen";
import { ClientError } from "./sidecar/client";
import { followClient } from "./sidecar/follow";
import type { Sidecar } from "./sidecar/lifecycle";

/** ConfigSyncDeps is what ConfigSync needs. */
export interface ConfigSyncDeps {
  sidecar: Pick<Sidecar, "state" | "onChange" | "client">;
  /** apiKey returns the key stored in the plugin's data; empty for none. */
  apiKey(): string;
  log(message: string, ...detail: unknown[]): void;
}

/** DEFAULT_FOLDER is the generated-notes folder when the sidecar has not said otherwise. */
export const DEFAULT_FOLDER = "Quire";

/**
 * ConfigSync keeps the last settings the sidecar reported and gives the
 * sidecar the API key whenever a connection opens without one.
 */
export class ConfigSync {
  private last: ConfigResult | null = null;
  private readonly unfollow: () => void;
  private readonly listeners = new Set<(r: ConfigResult | null) => void>();

  constructor(private readonly deps: ConfigSyncDeps) {
    this.unfollow = followClient(deps.sidecar, (client) => {
      if (client) void this.handOver();
      else this.remember(null);
    });
  }

  /** current is the last config.result, or null before one came (or while offline). */
  get current(): ConfigResult | null {
    return this.last;
  }

  /** folder is the generated-notes folder in force. */
  get folder(): string {
    return this.last?.settings.folder || DEFAULT_FOLDER;
  }

  /** onChange calls cb when the settings in force change; it returns the unsubscribe. */
  onChange(cb: (r: ConfigResult | null) => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  /** get asks the sidecar for its settings. */
  async get(): Promise<ConfigResult> {
    const c = this.deps.sidecar.client;
    if (!c) throw new ClientError("closed", "Quire is offline.");
    const r = await c.request("config.get", {}, { timeoutMs: 10_000 });
    this.remember(r);
    return r;
  }

  /**
   * set sends settings (all of them, as config.set wants) with the stored
   * API key, and returns what the sidecar put in force.
   */
  async set(settings: Settings): Promise<ConfigResult> {
    const c = this.deps.sidecar.client;
    if (!c) throw new ClientError("closed", "Quire is offline.");
    // Only to the engine that proved it is this vault's (see SidecarState).
    const key = this.proven() ? this.deps.apiKey() : "";
    if (key === "" && this.deps.apiKey() !== "") this.deps.log("config: the engine did not prove it is this vault's; the API key is not sent");
    const model = { ...settings.model };
    delete model.apiKey;
    if (key !== "") model.apiKey = key;
    const r = await c.request("config.set", { settings: { ...settings, model } }, { timeoutMs: 30_000 });
    this.remember(r);
    return r;
  }

  /** dispose stops following the sidecar. */
  dispose(): void {
    this.unfollow();
    this.listeners.clear();
  }

  /** handOver reads the settings of a new connection and gives the sidecar the key it lacks. */
  private async handOver(): Promise<void> {
    try {
      const r = await this.get();
      if (this.proven() && this.deps.apiKey() !== "" && !r.settings.model.apiKeySet) await this.set(r.settings);
    } catch (err) {
      this.deps.log("config", err);
    }
  }

  /** proven says the engine online proved it knows the state folder's secret. */
  private proven(): boolean {
    const st = this.deps.sidecar.state;
    return st.kind === "online" && st.proven === true;
  }

  private remember(r: ConfigResult | null): void {
    this.last = r;
    for (const cb of [...this.listeners]) cb(r);
  }
}

/** parseIgnore turns the settings tab's text (one prefix per line or comma) into prefixes. */
export function parseIgnore(text: string): string[] {
  const out: string[] = [];
  for (const part of text.split(/[\n,]/)) {
    const p = part.trim().replace(/^\/+/, "");
    if (p !== "" && !out.includes(p)) out.push(p);
  }
  return out;
}

/** configErrorText is a short sentence for a failed config request. */
export function configErrorText(err: unknown): string {
  if (err instanceof ClientError) {
    if (err.code === "closed") return "Quire is offline. Start it, then change these settings.";
    if (err.code === "invalid_request") return err.message.replace(/^config\.set: /, "");
    return err.message;
  }
  return err instanceof Error ? err.message : String(err);
}

/** modelText says which model answers, for the status view: "openai/gpt-4o-mini (key held)", or that none does. */
export function modelText(r: ConfigResult | null): string | null {
  if (!r) return null;
  const m = r.settings.model;
  if (!m.provider) return "none: answers quote your notes, sources are saved unsummarised";
  const name = `${m.provider}/${m.model || "?"}`;
  const where = m.endpoint ? ` at ${m.endpoint}` : "";
  return m.provider === "ollama" ? `${name}${where}` : `${name}${where}${m.apiKeySet ? " (key held)" : " (no key)"}`;
}
