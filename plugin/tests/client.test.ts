import { afterEach, describe, expect, it, vi } from "vitest";
import { MESSAGES, type MessageType } from "../../proto/proto.gen";
import { Client, ClientError, Latest, OTHER_CLIENTS_REQUESTS, PROTOCOL1_REQUESTS, helloProtocol, isSuperseded, lackingRequests } from "../src/sidecar/client";
import { FakeServer, FakeSocket } from "./fake-sidecar";

async function connected(server = new FakeServer()): Promise<{ client: Client; server: FakeServer; sock: FakeSocket }> {
  const client = await Client.connect({ url: "ws://127.0.0.1:1/", token: server.token, clientName: "test", socket: server.factory });
  return { client, server, sock: server.last };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("Client handshake", () => {
  it("says hello with the protocol version and token, and resolves on welcome", async () => {
    const { client, sock } = await connected();
    expect(sock.sent[0]).toEqual({ type: "hello", payload: { protocol: 1, minProtocol: 1, token: "secret", client: "test" } });
    expect(client.welcome.version).toBe("0.1.0");
    expect(client.isOpen).toBe(true);
  });

  it("pairs with engines older and newer than the plugin whose protocol range overlaps its own", async () => {
    // A newer engine that still speaks protocol 1: welcomed at 1.
    const newer = new FakeServer();
    newer.speaks = [1, 4];
    expect((await connected(newer)).client.welcome.protocol).toBe(1);
    // An engine from before ranges accepts its one version alone: the plugin names it, having read it in sidecar.json.
    const old = new FakeServer();
    old.speaks = "exact 1";
    const c = await Client.connect({ url: "ws://x/", token: "secret", clientName: "t", socket: old.factory, peerProtocol: 1 });
    expect(old.last.sent[0]).toMatchObject({ payload: { protocol: 1, minProtocol: 1 } });
    // It answers protocol 1's first requests, not those added since.
    expect(lackingRequests(c.welcome)).toEqual(["sources.list", "toc.get", "lint.run", "eval.run"]);
    // An engine that no longer speaks this plugin's protocol is refused, saying which side to update.
    const gone = new FakeServer();
    gone.speaks = [3, 4];
    await expect(connected(gone)).rejects.toMatchObject({ code: "unsupported_version", message: expect.stringContaining("update the client") });
  });

  it("a plugin of protocols 1-3 names an engine's one version to an engine from before ranges, and its own range to others", () => {
    expect(helloProtocol(1, 1, 3)).toEqual({ protocol: 1, minProtocol: 1 });
    expect(helloProtocol(0, 1, 3)).toEqual({ protocol: 3, minProtocol: 1 });
    expect(helloProtocol(5, 1, 3)).toEqual({ protocol: 3, minProtocol: 1 });
  });

  it("lackingRequests names the plugin's requests an older engine does not answer; one from before the list answers protocol 1's", () => {
    expect(lackingRequests({ requests: ["status.get", "search.query"] })).toContain("ask.query");
    expect(lackingRequests({ requests: PROTOCOL1_REQUESTS.filter((t) => t !== "answer.save") })).toEqual(["answer.save", "sources.list", "toc.get", "lint.run", "eval.run"]);
    expect(lackingRequests({})).toEqual(["sources.list", "toc.get", "lint.run", "eval.run"]);
    const all = Object.keys(MESSAGES).filter((t) => MESSAGES[t as MessageType].kind === "request");
    for (const t of PROTOCOL1_REQUESTS) expect(all).toContain(t);
    // Requests only MCP and the command line send are never missed by the plugin.
    for (const t of OTHER_CLIENTS_REQUESTS) {
      expect(all).toContain(t);
      expect(lackingRequests({ requests: [] })).not.toContain(t);
    }
  });

  it("rejects with the sidecar's error code on a bad token", async () => {
    const server = new FakeServer();
    const p = Client.connect({ url: "ws://x/", token: "wrong", clientName: "t", socket: server.factory });
    await expect(p).rejects.toMatchObject({ code: "unauthorized" });
  });

  it("rejects when the socket closes before welcome", async () => {
    const server = new FakeServer();
    server.up = false;
    await expect(Client.connect({ url: "ws://x/", token: "secret", clientName: "t", socket: server.factory })).rejects.toMatchObject({
      code: "closed",
    });
  });

  it("times out when no welcome comes", async () => {
    vi.useFakeTimers();
    const p = Client.connect({ url: "ws://x/", token: "t", clientName: "t", socket: (u) => new FakeSocket(u), timeoutMs: 100 });
    const caught = p.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(150);
    expect(await caught).toMatchObject({ code: "timeout" });
  });
});

describe("Client requests", () => {
  it("matches replies to requests by id, in any order", async () => {
    const { client, sock } = await connected();
    const a = client.request("note.get", { path: "a.md" });
    const b = client.request("note.get", { path: "b.md" });
    const [ra, rb] = sock.sent.slice(1);
    expect(ra).toMatchObject({ type: "note.get", payload: { path: "a.md" } });
    expect(ra!.id).not.toBe(rb!.id);
    sock.push({ id: rb!.id!, type: "note.result", payload: { path: "b.md", text: "B" } });
    sock.push({ id: ra!.id!, type: "note.result", payload: { path: "a.md", text: "A" } });
    expect((await a).text).toBe("A");
    expect((await b).text).toBe("B");
  });

  it("turns an error frame into a ClientError with its code", async () => {
    const { client, sock } = await connected();
    const p = client.request("note.get", { path: "x.md" });
    sock.push({ id: sock.sent[1]!.id!, type: "error", payload: { code: "not_found", message: "note not indexed: x.md" } });
    await expect(p).rejects.toEqual(new ClientError("not_found", "note not indexed: x.md"));
  });

  it("refuses to send a type that is not a request", async () => {
    const { client } = await connected();
    await expect(client.request("index.progress", { phase: "scan", done: 0, total: 0 })).rejects.toMatchObject({ code: "invalid_request" });
  });

  it("ignores malformed frames and replies nobody waits for", async () => {
    const { client, sock } = await connected();
    const p = client.request("status.get", {});
    sock.push("{not json");
    sock.push({ id: "999", type: "status.result", payload: {} });
    sock.push({ id: sock.sent[1]!.id!, type: "index.result", payload: { started: true } });
    expect(await p).toEqual({ started: true });
  });

  it("a superseded request rejects at once and its late reply is dropped", async () => {
    const { client, sock } = await connected();
    const latest = new Latest();
    const first = client.request("related.query", { path: "a.md" }, { signal: latest.next() });
    const second = client.request("related.query", { path: "b.md" }, { signal: latest.next() });
    const firstErr = await first.catch((e: unknown) => e);
    expect(isSuperseded(firstErr)).toBe(true);
    const [r1, r2] = sock.sent.slice(1);
    // The first reply arrives late: nobody sees it.
    sock.push({ id: r1!.id!, type: "related.result", payload: { notes: [{ path: "late.md" }] } });
    sock.push({ id: r2!.id!, type: "related.result", payload: { notes: [] } });
    expect(await second).toEqual({ notes: [] });
  });

  it("fails a request whose reply does not come in time", async () => {
    vi.useFakeTimers();
    const { client } = await connected();
    const p = client.request("status.get", {}, { timeoutMs: 1000 }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1001);
    expect(await p).toMatchObject({ code: "timeout" });
  });

  it("fails requests in flight when the connection drops, and tells onClose why", async () => {
    const { client, sock } = await connected();
    const reasons: string[] = [];
    client.onClose((r) => reasons.push(r));
    const p = client.request("status.get", {});
    sock.drop(1001, "sidecar shutting down");
    await expect(p).rejects.toMatchObject({ code: "closed" });
    expect(reasons).toEqual(["sidecar shutting down"]);
    expect(client.isOpen).toBe(false);
    await expect(client.request("status.get", {})).rejects.toMatchObject({ code: "closed" });
  });
});

describe("Client events and streams", () => {
  it("routes pushed events by type until unsubscribed", async () => {
    const { client, sock } = await connected();
    const got: unknown[] = [];
    const off = client.on("index.progress", (p) => got.push(p));
    sock.push({ type: "index.progress", payload: { phase: "scan", done: 1, total: 2 } });
    sock.push({ type: "index.changed", payload: { paths: [] } });
    off();
    sock.push({ type: "index.progress", payload: { phase: "scan", done: 2, total: 2 } });
    expect(got).toEqual([{ phase: "scan", done: 1, total: 2 }]);
  });

  it("streams parts to onPart and resolves with the .done payload", async () => {
    const { client, sock } = await connected();
    // No streaming request exists in this protocol version yet: pretend
    // search.query streams, as ask.query will.
    const parts: unknown[] = [];
    const p = client.stream("search.query", { query: "q" }, (f) => parts.push(f.payload));
    const id = sock.sent[1]!.id!;
    sock.push({ id, type: "search.part", payload: { n: 1 } });
    sock.push({ id, type: "search.part", payload: { n: 2 } });
    sock.push({ id, type: "search.done", payload: { total: 2 } });
    sock.push({ id, type: "search.part", payload: { n: 3 } });
    expect(await p).toEqual({ total: 2 });
    expect(parts).toEqual([{ n: 1 }, { n: 2 }]);
  });
});

describe("ReplyOf", () => {
  it("matches the generated table: every request's reply is noun.result", () => {
    for (const [type, info] of Object.entries(MESSAGES) as [MessageType, (typeof MESSAGES)[MessageType]][]) {
      if (info.kind !== "request" || info.stream) continue;
      expect(info.reply).toBe(`${type.split(".")[0]}.result`);
    }
  });
});
