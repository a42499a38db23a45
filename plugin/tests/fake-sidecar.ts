// A fake sidecar end for the client and lifecycle tests: sockets that the
// test drives by hand, and a server that answers hello like the real one.
import { MESSAGES, type MessageType } from "../../proto/proto.gen";
import { Client, type Socket } from "../src/sidecar/client";
import { proofOf } from "../src/sidecar/connfile";
import type { SidecarState } from "../src/sidecar/lifecycle";

type Frame = { id?: string; type: string; payload?: unknown };

/** FakeSocket is one client socket whose server side the test plays. */
export class FakeSocket implements Socket {
  onopen: ((ev: Event) => unknown) | null = null;
  onmessage: ((ev: MessageEvent) => unknown) | null = null;
  onclose: ((ev: CloseEvent) => unknown) | null = null;
  onerror: ((ev: Event) => unknown) | null = null;
  sent: Frame[] = [];
  closed = false;
  onSend: (f: Frame) => void = () => {};
  constructor(readonly url: string) {}
  send(data: string): void {
    if (this.closed) throw new Error("send on closed socket");
    const f = JSON.parse(data) as Frame;
    this.sent.push(f);
    this.onSend(f);
  }
  close(code = 1000, reason = ""): void {
    this.drop(code, reason);
  }
  open(): void {
    this.onopen?.({} as Event);
  }
  /** push delivers a frame (or raw text) from the server. */
  push(f: Frame | string): void {
    this.onmessage?.({ data: typeof f === "string" ? f : JSON.stringify(f) } as MessageEvent);
  }
  /** drop closes the socket from the server's side. */
  drop(code = 1006, reason = ""): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.({ code, reason } as CloseEvent);
  }
}

/** FakeServer answers hello with welcome when the token matches, and requests with reply(). */
export class FakeServer {
  up = true;
  token = "secret";
  sockets: FakeSocket[] = [];
  reply: (f: Frame, s: FakeSocket) => void = () => {};
  /** version is what welcome says; protocolError makes hello fail with unsupported_version. */
  version = "0.1.0";
  protocolError = false;
  /**
   * speaks is the engine's protocol range, negotiated as the Go server
   * does (proto.Negotiate); "exact 1" is an engine from before ranges,
   * which accepts a hello of protocol 1 alone and lists no requests.
   */
  speaks: [number, number] | "exact 1" = [1, 1];
  /** requests is what welcome lists (an engine of the range kind); undefined lists every request. */
  requests: string[] | undefined = undefined;
  /** secret is the state folder's secret welcome proves it knows; "" answers no proof (an older engine, or a stranger). */
  secret = "";
  factory = (url: string): Socket => {
    const s = new FakeSocket(url);
    this.sockets.push(s);
    queueMicrotask(() => {
      if (!this.up) return s.drop(1006, "");
      s.open();
    });
    s.onSend = (f) => {
      if (f.type === "hello") {
        const p = f.payload as { token: string };
        if (p.token !== this.token) {
          s.push({ type: "error", payload: { code: "unauthorized", message: "bad token" } });
          s.drop(1008, "bad token");
          return;
        }
        const hello = f.payload as { protocol: number; minProtocol?: number };
        const version = this.negotiate(hello.minProtocol ?? 0, hello.protocol);
        if (this.protocolError || typeof version === "string") {
          const message = typeof version === "string" ? version : "protocol 2 only";
          s.push({ type: "error", payload: { code: "unsupported_version", message } });
          s.drop(1008, "unsupported version");
          return;
        }
        const requests = this.speaks === "exact 1" ? {} : { requests: this.requests ?? Object.keys(MESSAGES).filter((t) => MESSAGES[t as MessageType].kind === "request") };
        const nonce = (f.payload as { nonce?: string }).nonce ?? "";
        const welcome = { protocol: version, version: this.version, vault: "/v", ...requests };
        if (nonce === "" || this.secret === "") s.push({ type: "welcome", payload: welcome });
        else void proofOf(this.secret, nonce).then((proof) => s.push({ type: "welcome", payload: { ...welcome, proof } }));
        return;
      }
      this.reply(f, s);
    };
    return s;
  };
  /** negotiate is proto.Negotiate's rule: the newest common version, or the refusal's message. */
  private negotiate(min: number, max: number): number | string {
    if (this.speaks === "exact 1") return max === 1 ? 1 : `protocol ${max} not supported; this sidecar speaks 1`;
    const [lo, hi] = this.speaks;
    const peerMin = min <= 0 || min > max ? max : min;
    const v = Math.min(max, hi);
    if (v >= Math.max(peerMin, lo)) return v;
    return `protocol ${peerMin}-${max} not supported: this sidecar speaks ${lo}-${hi}; ${max < lo ? "update the client" : "update the sidecar"}`;
  }

  /** last is the newest socket. */
  get last(): FakeSocket {
    const s = this.sockets.at(-1);
    if (!s) throw new Error("no socket yet");
    return s;
  }
}

/** FakeLifecycle stands in for Sidecar: a state the test sets, and its listeners. */
export class FakeLifecycle {
  private listeners = new Set<(s: SidecarState) => void>();
  starts = 0;
  constructor(public state: SidecarState = { kind: "offline", reason: "not started", canStart: false }) {}
  get client(): Client | null {
    return this.state.kind === "online" ? this.state.client : null;
  }
  onChange(cb: (s: SidecarState) => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }
  async start(): Promise<void> {
    this.starts++;
  }
  set(s: SidecarState): void {
    this.state = s;
    for (const cb of [...this.listeners]) cb(s);
  }
}

/** online connects a client to a fresh FakeServer and returns all three parts. */
export async function online(): Promise<{ server: FakeServer; client: Client; sock: FakeSocket; sidecar: FakeLifecycle }> {
  const server = new FakeServer();
  const client = await Client.connect({ url: "ws://127.0.0.1:1/", token: server.token, clientName: "test", socket: server.factory });
  const sidecar = new FakeLifecycle({ kind: "online", client, proven: true });
  return { server, client, sock: server.last, sidecar };
}

/** settle lets queued promise callbacks run. */
export async function settle(times = 5): Promise<void> {
  for (let i = 0; i < times; i++) await new Promise((r) => setTimeout(r, 0));
}
