// Quire's MCP server with the official TypeScript SDK as its client, the
// way Claude Desktop and Claude Code drive it over stdio:
//
//  1. reindex {full: true} on the ariostea-wiki bench corpus (copied to a
//     temporary vault), indexed first, finishes inside the SDK's default
//     request timeout with progress notifications, and embeds nothing again
//     (the fingerprint is unchanged);
//  2. two `quire mcp` servers started at the same time with no sidecar
//     running end up on one sidecar, and they and a plugin-like websocket
//     client all answer a search at the same time;
//  3. once every client has gone, the shared sidecar stops by itself.
//
// The embedder is a stand-in Ollama server (/api/embed) in this process
// that counts what it embeds: the only fake; quire, the vault and the
// index are real. Set MCP_SDK_EMBEDDER=builtin to use the builtin model
// instead (slower: the corpus is embedded on this machine's cores first).
//
// It builds quire from sidecar/ (QUIRE_BIN=PATH uses another build) and
// looks for shared/bench beside the repository (QUIRE_BENCH=DIR elsewhere).
// The last line is `N passed, N failed`.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import fsp from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { DEFAULT_REQUEST_TIMEOUT_MSEC } from "@modelcontextprotocol/sdk/shared/protocol.js";
import WebSocket from "ws";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..", "..");
const log = (...a) => process.stderr.write(`mcp-sdk: ${a.join(" ")}\n`);

/** A stand-in Ollama embedding server: bag-of-words vectors, every input counted. */
function fakeEmbedder() {
  const dims = 64;
  // seen: every text embedded so far, so that a passage embedded twice
  // (its vector redone) is told from what a starting sidecar embeds: the
  // dimension probe (sidecar/engine/open.go) and, once, the made-up words
  // that measure the vault's dense floor.
  const state = { inputs: 0, seen: new Set(), repeats: 0 };
  const embed = (text) => {
    const v = new Array(dims).fill(0);
    for (const w of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
      if (!w) continue;
      let h = 2166136261;
      for (const ch of w) h = Math.imul(h ^ ch.codePointAt(0), 16777619) >>> 0;
      v[h % dims] += 1;
    }
    const n = Math.hypot(...v) || 1;
    return v.map((x) => x / n);
  };
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/api/embed") {
        res.writeHead(404).end();
        return;
      }
      const { input } = JSON.parse(body);
      const texts = Array.isArray(input) ? input : [input];
      state.inputs += texts.length;
      for (const t of texts) {
        if (state.seen.has(t) && t !== "dimension probe") state.repeats++;
        state.seen.add(t);
      }
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ embeddings: texts.map(embed) }));
    });
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok({ server, state, url: `http://127.0.0.1:${server.address().port}` })));
}

/** mcpClient starts `quire mcp` for vault and connects the SDK's client to it over stdio. */
async function mcpClient(bin, vault, name) {
  const transport = new StdioClientTransport({
    command: bin,
    args: ["mcp", "--vault", vault, "--sidecar-idle", "3s"],
    env: getDefaultEnvironment(),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d) => (stderr += d));
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** call runs a tool with the SDK's defaults (its 60 s timeout) and returns its structured result. */
async function call(client, name, args, options) {
  const res = await client.callTool({ name, arguments: args }, undefined, options);
  if (res.isError) throw new Error(`${name}: tool error ${JSON.stringify(res.content)}`);
  return res.structuredContent;
}

/** wsClient connects the way the plugin does: the connection file, Obsidian's Origin, hello. */
async function wsClient(stateDir) {
  const cf = JSON.parse(await fsp.readFile(join(stateDir, "sidecar.json"), "utf8"));
  const ws = new WebSocket(`ws://127.0.0.1:${cf.port}/`, { headers: { Origin: "app://obsidian.md" } });
  const waiting = new Map();
  let welcome;
  const welcomed = new Promise((ok, fail) => {
    welcome = { ok, fail };
    ws.once("error", fail);
  });
  ws.on("message", (data) => {
    const env = JSON.parse(String(data));
    if (env.type === "welcome") welcome.ok(env.payload);
    else if (env.type === "error" && !env.id) welcome.fail(new Error(env.payload.message));
    else if (env.id && waiting.has(env.id)) {
      waiting.get(env.id)(env);
      waiting.delete(env.id);
    }
  });
  await new Promise((ok, fail) => {
    ws.once("open", ok);
    ws.once("error", fail);
  });
  ws.send(JSON.stringify({ type: "hello", payload: { protocol: cf.protocol, token: cf.token, client: "plugin-like test 1.0.0" } }));
  const w = await welcomed;
  let next = 0;
  const request = (type, payload) =>
    new Promise((ok, fail) => {
      const id = String(++next);
      waiting.set(id, (env) => (env.type === "error" ? fail(new Error(`${type}: ${env.payload.message}`)) : ok(env.payload)));
      ws.send(JSON.stringify({ id, type, payload }));
    });
  return { cf, welcome: w, request, close: () => ws.close() };
}

/** waitFor polls f until it returns a truthy value or ms pass. */
async function waitFor(what, f, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** run runs a program and returns its stdout; its stderr goes to ours. */
function run(cmd, args, opts = {}) {
  return new Promise((ok, fail) => {
    const child = execFile(cmd, args, { ...opts, encoding: "utf8", maxBuffer: 64 << 20 }, (err, stdout) => (err ? fail(err) : ok(stdout)));
    child.stderr.pipe(process.stderr);
  });
}

const connFile = (stateDir) => join(stateDir, "sidecar.json");
/**
 * stopped reports whether the vault's sidecar has stopped: its connection
 * file removed and its lock file emptied, the last things it does. (Its
 * pid would not do: an orphan that init does not reap looks alive.)
 */
const stopped = async (stateDir) =>
  !existsSync(connFile(stateDir)) && (await fsp.readFile(join(stateDir, "lock"), "utf8").catch(() => "")).trim() === "";
const readConn = async (stateDir) => JSON.parse(await fsp.readFile(connFile(stateDir), "utf8"));
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function main() {
  const results = [];
  const scenario = async (name, f) => {
    const began = Date.now();
    try {
      await f();
      log(`ok   ${name} (${((Date.now() - began) / 1000).toFixed(1)} s)`);
      results.push(true);
    } catch (err) {
      log(`FAIL ${name}: ${err?.stack ?? err}`);
      results.push(false);
    }
  };
  const tmp = await fsp.mkdtemp(join(os.tmpdir(), "quire-mcp-sdk-"));
  const sidecars = new Set(); // pids of the shared sidecars seen, stopped at the end if still running
  const clients = [];
  // closeClients ends every client a scenario opened, even one that failed,
  // so that the next scenario finds the sidecar as a fresh start would.
  const closeClients = async () => {
    for (const c of clients.splice(0)) await Promise.resolve(c.client.close()).catch(() => {});
  };
  let embedder;
  let stateDir = "";
  try {
    let bin = process.env.QUIRE_BIN || "";
    if (!bin) {
      bin = join(tmp, "quire");
      log("building quire");
      await run("go", ["build", "-o", bin, "./cmd/quire"], { cwd: join(repo, "sidecar") });
    }
    const bench = [process.env.QUIRE_BENCH, join(repo, "..", "shared", "bench")].find((d) => d && existsSync(join(d, "ariostea-wiki", "corpus")));
    if (!bench) throw new Error("no shared/bench beside the repository (set QUIRE_BENCH=DIR)");
    const vault = join(tmp, "vault");
    stateDir = join(vault, ".quire");
    await fsp.cp(join(bench, "ariostea-wiki", "corpus"), vault, { recursive: true });
    await fsp.mkdir(stateDir, { recursive: true });
    if (process.env.MCP_SDK_EMBEDDER === "builtin") {
      embedder = { state: null };
    } else {
      embedder = await fakeEmbedder();
      await fsp.writeFile(
        join(stateDir, "config.yaml"),
        `dense:\n  embedder: model\nmodel:\n  provider: ollama\n  endpoint: ${embedder.url}\n  embed_model: fake-embed\n`,
      );
    }
    const embeddedSoFar = () => embedder.state?.inputs ?? 0;
    const repeatedSoFar = () => embedder.state?.repeats ?? 0;

    // The vault indexed first, vectors and all, as a user who ran quire index has it.
    log("indexing the corpus");
    // Not execFileSync: the stand-in embedder answers from this process's event loop.
    const indexed = JSON.parse(await run(bin, ["index", "--vault", vault, "--json"]));
    log(`indexed ${indexed.notes} notes, ${indexed.chunks} passages, vectors ${indexed.vectors?.embedded}/${indexed.vectors?.passages}; ${embeddedSoFar()} texts embedded`);

    await scenario(`reindex {full: true} on the bench corpus: within the SDK's ${DEFAULT_REQUEST_TIMEOUT_MSEC / 1000} s timeout, with progress, nothing embedded again`, async () => {
      const a = await mcpClient(bin, vault, "sdk-a");
      clients.push(a);
      const st = await call(a.client, "status", {});
      sidecars.add((await readConn(stateDir)).pid);
      if (st.chunks !== indexed.chunks) throw new Error(`status: ${st.chunks} passages, want ${indexed.chunks} as indexed`);
      const before = repeatedSoFar();
      const progress = [];
      const began = Date.now();
      // The SDK's defaults: a 60 s timeout that progress does not extend.
      const r = await call(a.client, "reindex", { full: true }, { onprogress: (p) => progress.push(p) });
      const took = Date.now() - began;
      const again = repeatedSoFar() - before;
      log(`reindex {full: true}: ${(took / 1000).toFixed(1)} s, ${progress.length} progress notifications, ${r.notes} notes, ${r.chunks} passages, ` +
        `vectors ${r.vectors?.embedded}/${r.vectors?.total}, ${embedder.state ? again : "(builtin: not counted)"} texts embedded again`);
      for (const p of progress.length > 5 ? progress.slice(0, 3).concat(progress.slice(-2)) : progress) log(`  progress ${p.progress}/${p.total ?? "?"} ${p.message ?? ""}`);
      if (!r.full || r.changed !== indexed.notes) throw new Error(`reindex: ${JSON.stringify(r)}, want every note re-read`);
      if (progress.length === 0) throw new Error("no progress notifications");
      if (progress.some((p, i) => i > 0 && p.progress <= progress[i - 1].progress)) throw new Error("progress went backwards");
      if (embedder.state && again !== 0) throw new Error(`${again} texts embedded again, want 0 (fingerprint unchanged)`);
      if (!r.vectors || r.vectors.embedded !== r.vectors.total || r.vectors.total !== indexed.chunks) {
        throw new Error(`vectors after the rebuild: ${JSON.stringify(r.vectors)}, want all ${indexed.chunks}`);
      }
      // Progress about vectors never counted fewer than all: none were dropped to be redone.
      const dropped = progress.map((p) => /vectors: (\d+)\/(\d+)/.exec(p.message ?? "")).filter((m) => m && m[1] !== m[2]);
      if (dropped.length) throw new Error(`vectors recomputed during the rebuild: ${dropped.map((m) => m[0]).join(", ")}`);
    }).finally(closeClients);

    await scenario("the shared sidecar stops once its last client has gone", async () => {
      await waitFor("sidecar stopped", () => stopped(stateDir), 60_000);
    });

    await scenario("two MCP servers started at once and a plugin-like websocket client: one sidecar, three searches at the same time", async () => {
      const [a, b] = await Promise.all([mcpClient(bin, vault, "sdk-a"), mcpClient(bin, vault, "sdk-b")]);
      clients.push(a, b);
      const query = "how is parmigiano reggiano aged";
      // Both servers' first calls race to start the vault's sidecar.
      const [sa, sb] = await Promise.all([call(a.client, "status", {}), call(b.client, "status", {})]);
      const cf = await readConn(stateDir);
      sidecars.add(cf.pid);
      const want = `pid ${cf.pid})`;
      if (!sa.via.endsWith(want) || !sb.via.endsWith(want)) throw new Error(`via ${sa.via} and ${sb.via}, want both ${want}`);
      const ws = await wsClient(stateDir);
      clients.push({ client: { close: ws.close } });
      if (ws.welcome.vault !== vault && resolve(ws.welcome.vault) !== resolve(vault)) throw new Error(`welcome: vault ${ws.welcome.vault}`);
      const [ra, rb, rw] = await Promise.all([
        call(a.client, "search_knowledge", { query, k: 5 }),
        call(b.client, "search_knowledge", { query, k: 5 }),
        ws.request("search.query", { query, k: 5, channel: "hybrid" }),
      ]);
      const tops = [ra.passages[0]?.path, rb.passages[0]?.path, rw.passages[0]?.path];
      log(`three searches at once: ${ra.passages.length}, ${rb.passages.length} and ${rw.passages.length} passages, first ${tops.join(" | ")}`);
      if (tops.some((t) => !t)) throw new Error("a search found nothing");
      if (new Set(tops).size !== 1) throw new Error(`first passages differ: ${tops.join(", ")}`);
      await closeClients();
      await waitFor("sidecar stopped after the last client", () => stopped(stateDir), 60_000);
    }).finally(closeClients);
  } catch (err) {
    log(`setup: ${err?.stack ?? err}`);
    results.push(false);
  } finally {
    await closeClients();
    // A sidecar left running by a failed scenario is stopped (an orphan
    // init does not reap still answers kill 0, so ask the vault instead).
    if (stateDir && !(await stopped(stateDir))) {
      for (const pid of sidecars) {
        if (!alive(pid)) continue;
        log(`stopping sidecar ${pid}, still running`);
        try {
          process.kill(pid, "SIGTERM");
        } catch {}
      }
    }
    embedder?.server?.close();
    await fsp.rm(tmp, { recursive: true, force: true }).catch(() => {});
  }
  const passed = results.filter((r) => r).length;
  const failed = results.length - passed;
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  process.exitCode = failed ? 1 : 0;
}

await main();
