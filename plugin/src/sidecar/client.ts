// The typed websocket client for the sidecar protocol in proto/. It knows
// nothing of Obsidian: it takes a socket factory, so that tests drive it
// with a fake socket and Obsidian with the renderer's WebSocket.
import {
  type ErrorCode,
  type Frame,
  MESSAGES,
  MIN_PROTOCOL_VERSION,
  type MessageType,
  PROTOCOL_VERSION,
  type Payloads,
  type Welcome,
  isDone,
} from "../../../proto/proto.gen";
import { keyPaths } from "./sourcekeys";

/** Socket is the part of the DOM WebSocket the client uses. */
export interface Socket {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: Event) => unknown) | null;
  onmessage: ((ev: MessageEvent) => unknown) | null;
  onclose: ((ev: CloseEvent) => unknown) | null;
  onerror: ((ev: Event) => unknown) | null;
}

/** SocketFactory opens a socket to url; `(url) => new WebSocket(url)` in the app. */
export type SocketFactory = (url: string) => Socket;

/** Noun is the part of a message type before its dot: "search" for "search.query". */
type Noun<T extends string> = T extends `${infer N}.${string}` ? N : T;

/**
 * ReplyOf is the reply type of request T. The protocol names replies
 * noun.result (see MESSAGES); a test checks that every request follows it.
 */
export type ReplyOf<T extends MessageType> = `${Noun<T>}.result` extends MessageType ? `${Noun<T>}.result` : never;

/** DoneOf is the final frame type of streaming request T (noun.done). */
export type DoneOf<T extends MessageType> = `${Noun<T>}.done` extends MessageType ? `${Noun<T>}.done` : never;

/** PayloadOf is the payload of message type T, or unknown for types this protocol lacks. */
export type PayloadOf<T extends string> = T extends MessageType ? Payloads[T] : unknown;

/** FailureCode is a wire error code or one of the client's own failures. */
export type FailureCode = ErrorCode | "closed" | "timeout" | "superseded";

/** ClientError is a failed request or handshake, with a code to branch on. */
export class ClientError extends Error {
  constructor(
    readonly code: FailureCode,
    message: string,
  ) {
    super(message);
    this.name = "ClientError";
  }
}

/** isSuperseded reports whether err only says that a newer request replaced this one. */
export function isSuperseded(err: unknown): boolean {
  return err instanceof ClientError && err.code === "superseded";
}

/** RequestOptions tune one request. */
export interface RequestOptions {
  /** signal cancels the request: its promise rejects with "superseded" and a late reply is dropped. */
  signal?: AbortSignal;
  /** timeoutMs fails the request when no final frame arrives in time; 0 waits forever. */
  timeoutMs?: number;
  /**
   * onId learns the request's id as it is sent: a later request may name
   * it (answer.save names the ask.query whose answer to save).
   */
  onId?: (id: string) => void;
}

interface Pending {
  resolve(payload: unknown): void;
  reject(err: ClientError): void;
  /** part receives the frames of a stream before its final one. */
  part?: (frame: Frame) => void;
  stream: boolean;
  cleanup(): void;
}

/** ConnectOptions say where and as whom to connect. */
export interface ConnectOptions {
  url: string;
  token: string;
  /** clientName goes into hello for the sidecar's log. */
  clientName: string;
  socket: SocketFactory;
  /** timeoutMs bounds the handshake. */
  timeoutMs?: number;
  /**
   * peerProtocol is the one protocol version an engine from before ranges
   * speaks (its connection file's, with no minProtocol): the hello names
   * it when this plugin speaks it too. 0 (a range engine) sends the
   * plugin's own range.
   */
  peerProtocol?: number;
  /** nonce, when set, asks the sidecar to prove in welcome that it knows the state folder's secret (see proofOf). */
  nonce?: string;
}

/**
 * PROTOCOL1_REQUESTS are the requests every protocol-1 engine answers:
 * those of its first release, before welcome listed them. A request added
 * to the protocol since is a feature such an engine lacks.
 */
export const PROTOCOL1_REQUESTS: readonly string[] = [
  "status.get",
  "search.query",
  "related.query",
  "ask.query",
  "answer.save",
  "note.get",
  "index.rebuild",
  "ingest.add",
  "queue.list",
  "config.get",
  "config.set",
  "shutdown",
];

/**
 * OTHER_CLIENTS_REQUESTS are the protocol's requests for its other clients
 * (MCP, the command line) that the plugin never sends: an engine without
 * them lacks nothing the plugin offers.
 */
export const OTHER_CLIENTS_REQUESTS: ReadonlySet<string> = new Set(["grep.query"]);

/**
 * lackingRequests lists the requests this plugin can send that the
 * welcomed engine does not answer (its welcome's list, or protocol 1's
 * for an engine from before the list), in the protocol's order.
 */
export function lackingRequests(w: Pick<Welcome, "requests">): string[] {
  const served = new Set(w.requests ?? PROTOCOL1_REQUESTS);
  return (Object.keys(MESSAGES) as MessageType[]).filter(
    (t) => MESSAGES[t].kind === "request" && !served.has(t) && !OTHER_CLIENTS_REQUESTS.has(t),
  );
}

/**
 * helloProtocol is the range the hello names: the plugin's own [min, max],
 * or a pre-range engine's one version (peer, 0 for none) when the plugin
 * speaks it.
 */
export function helloProtocol(peer: number, min = MIN_PROTOCOL_VERSION, max = PROTOCOL_VERSION): { protocol: number; minProtocol: number } {
  if (peer >= min && peer <= max) return { protocol: peer, minProtocol: peer };
  return { protocol: max, minProtocol: min };
}

type EventHandler = (payload: unknown) => void;

/**
 * Client is one welcomed connection. Requests carry ids of its own; replies
 * are matched by id; events (frames without id) go to the handlers
 * registered with on. A request cancelled or superseded is forgotten at
 * once: the protocol has no cancel message, so its reply, when it comes, is
 * dropped.
 */
export class Client {
  private nextId = 1;
  private readonly pending = new Map<string, Pending>();
  private readonly handlers = new Map<string, Set<EventHandler>>();
  private readonly closeHandlers = new Set<(reason: string) => void>();
  private closed = false;

  private constructor(
    private readonly socket: Socket,
    /** welcome is the sidecar's answer to hello. */
    readonly welcome: Welcome,
  ) {}

  /** connect opens a socket, says hello and resolves once welcomed. */
  static connect(opts: ConnectOptions): Promise<Client> {
    return new Promise((resolve, reject) => {
      let socket: Socket;
      try {
        socket = opts.socket(opts.url);
      } catch (err) {
        reject(new ClientError("closed", `connect ${opts.url}: ${String(err)}`));
        return;
      }
      let settled = false;
      const fail = (code: FailureCode, message: string) => {
        if (settled) return;
        settled = true;
        window.clearTimeout(timer);
        socket.onopen = socket.onmessage = socket.onclose = socket.onerror = null;
        try {
          socket.close();
        } catch {
          // already closed
        }
        reject(new ClientError(code, message));
      };
      const timer = window.setTimeout(() => fail("timeout", `connect ${opts.url}: no welcome`), opts.timeoutMs ?? 5000);
      socket.onopen = () => {
        const hello: Frame<"hello"> = {
          type: "hello",
          payload: { ...helloProtocol(opts.peerProtocol ?? 0), token: opts.token, client: opts.clientName, ...(opts.nonce ? { nonce: opts.nonce } : {}) },
        };
        socket.send(JSON.stringify(hello));
      };
      socket.onerror = () => {
        // A close event with the detail follows; wait for it.
      };
      socket.onclose = (ev) => fail("closed", `connect ${opts.url}: closed${ev.reason ? `: ${ev.reason}` : ""}`);
      socket.onmessage = (ev) => {
        const frame = parseFrame(ev.data);
        if (!frame) return fail("invalid_request", `connect ${opts.url}: malformed frame`);
        if (frame.type === "error") {
          const e = frame.payload;
          return fail(e.code, e.message);
        }
        if (frame.type !== "welcome") return fail("invalid_request", `connect ${opts.url}: got ${frame.type} before welcome`);
        settled = true;
        window.clearTimeout(timer);
        const client = new Client(socket, frame.payload);
        client.attach();
        resolve(client);
      };
    });
  }

  private attach(): void {
    this.socket.onmessage = (ev) => this.receive(ev.data);
    this.socket.onclose = (ev) => this.shut(ev.reason || `connection closed (${ev.code})`);
    this.socket.onerror = null;
    this.socket.onopen = null;
  }

  /** isOpen reports whether the connection still serves requests. */
  get isOpen(): boolean {
    return !this.closed;
  }

  /** request sends a plain request and resolves with its reply's payload. */
  request<T extends MessageType>(type: T, payload: Payloads[T], opts: RequestOptions = {}): Promise<PayloadOf<ReplyOf<T>>> {
    return this.send(type, payload, opts, undefined) as Promise<PayloadOf<ReplyOf<T>>>;
  }

  /**
   * stream sends a streaming request: part frames go to onPart as they
   * arrive, and the promise resolves with the final noun.done payload.
   */
  stream<T extends MessageType>(
    type: T,
    payload: Payloads[T],
    onPart: (frame: Frame) => void,
    opts: RequestOptions = {},
  ): Promise<PayloadOf<DoneOf<T>>> {
    return this.send(type, payload, opts, onPart) as Promise<PayloadOf<DoneOf<T>>>;
  }

  private send(type: MessageType, payload: unknown, opts: RequestOptions, part: ((f: Frame) => void) | undefined): Promise<unknown> {
    if (MESSAGES[type]?.kind !== "request") {
      return Promise.reject(new ClientError("invalid_request", `${type} is not a request`));
    }
    if (this.closed) return Promise.reject(new ClientError("closed", `${type}: not connected`));
    if (opts.signal?.aborted) return Promise.reject(new ClientError("superseded", `${type}: cancelled`));
    const id = String(this.nextId++);
    return new Promise((resolve, reject) => {
      let timer: number | undefined;
      const onAbort = () => {
        this.pending.get(id)?.cleanup();
        reject(new ClientError("superseded", `${type}: cancelled`));
      };
      const p: Pending = {
        resolve,
        reject,
        stream: part !== undefined,
        cleanup: () => {
          this.pending.delete(id);
          if (timer !== undefined) window.clearTimeout(timer);
          opts.signal?.removeEventListener("abort", onAbort);
        },
      };
      if (part) p.part = part;
      this.pending.set(id, p);
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      if (opts.timeoutMs) {
        timer = window.setTimeout(() => {
          p.cleanup();
          reject(new ClientError("timeout", `${type}: no reply in ${opts.timeoutMs} ms`));
        }, opts.timeoutMs);
      }
      opts.onId?.(id);
      this.socket.send(JSON.stringify({ id, type, payload }));
    });
  }

  /** on calls handler with the payload of every pushed event of this type; it returns the unsubscribe. */
  on<T extends MessageType>(type: T, handler: (payload: Payloads[T]) => void): () => void {
    let set = this.handlers.get(type);
    if (!set) this.handlers.set(type, (set = new Set()));
    const h = handler as EventHandler;
    set.add(h);
    return () => set.delete(h);
  }

  /** onClose calls handler once when the connection ends, with why; it returns the unsubscribe. */
  onClose(handler: (reason: string) => void): () => void {
    this.closeHandlers.add(handler);
    return () => this.closeHandlers.delete(handler);
  }

  /** close ends the connection; requests in flight fail with "closed". */
  close(): void {
    if (this.closed) return;
    try {
      this.socket.close(1000, "client closing");
    } catch {
      // already closed
    }
    this.shut("closed by the plugin");
  }

  private shut(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.onmessage = this.socket.onclose = null;
    for (const p of [...this.pending.values()]) {
      p.cleanup();
      p.reject(new ClientError("closed", `connection lost: ${reason}`));
    }
    for (const h of [...this.closeHandlers]) h(reason);
    this.closeHandlers.clear();
  }

  private receive(data: unknown): void {
    const frame = parseFrame(data);
    if (!frame) return; // malformed: nothing can be matched to it
    keyPaths(frame.payload);
    if (!frame.id) {
      for (const h of this.handlers.get(frame.type) ?? []) h(frame.payload ?? {});
      return;
    }
    const p = this.pending.get(frame.id);
    if (!p) return; // cancelled, superseded or timed out: dropped
    if (frame.type === "error") {
      p.cleanup();
      const e = frame.payload;
      p.reject(new ClientError(e.code, e.message));
      return;
    }
    if (p.stream && !isDone(frame.type)) {
      p.part?.(frame);
      return;
    }
    p.cleanup();
    p.resolve(frame.payload ?? {});
  }
}

function parseFrame(data: unknown): Frame | null {
  if (typeof data !== "string") return null;
  try {
    const v = JSON.parse(data) as unknown;
    if (typeof v !== "object" || v === null || typeof (v as { type?: unknown }).type !== "string") return null;
    return v as Frame;
  } catch {
    return null;
  }
}

/**
 * Latest hands out one abort signal at a time: taking a new one aborts the
 * previous, so that only the newest of a run of requests (a view refreshing
 * as the user types) is ever answered.
 */
export class Latest {
  private ctrl: AbortController | null = null;

  /** next aborts the previous signal and returns a fresh one. */
  next(): AbortSignal {
    this.ctrl?.abort();
    this.ctrl = new AbortController();
    return this.ctrl.signal;
  }

  /** cancel aborts the current signal, if any. */
  cancel(): void {
    this.ctrl?.abort();
    this.ctrl = null;
  }
}
