import { describe, expect, it } from "vitest";
import { Client } from "../src/sidecar/client";
import { followClient } from "../src/sidecar/follow";
import { FakeLifecycle, FakeServer, type FakeSocket } from "./fake-sidecar";

async function connect(server: FakeServer): Promise<{ client: Client; sock: FakeSocket }> {
  const client = await Client.connect({ url: "ws://127.0.0.1:1/", token: server.token, clientName: "test", socket: server.factory });
  return { client, sock: server.last };
}

const changed = (sock: FakeSocket) => sock.push({ type: "index.changed", payload: { paths: ["a.md"] } });

describe("followClient", () => {
  it("attaches to the client, moves to a new one on reconnect, lets go offline and on dispose", async () => {
    const server = new FakeServer();
    const a = await connect(server);
    const b = await connect(server);
    const sidecar = new FakeLifecycle({ kind: "online", client: a.client });
    const calls: (Client | null)[] = [];
    const heard: string[] = [];
    const dispose = followClient(sidecar, (client) => {
      calls.push(client);
      if (!client) return;
      const name = client === a.client ? "a" : "b";
      return [client.on("index.changed", () => heard.push(name))];
    });

    // Already online: attached at once.
    expect(calls).toEqual([a.client]);
    changed(a.sock);
    expect(heard).toEqual(["a"]);

    // A state change that keeps the client calls nothing.
    sidecar.set({ kind: "online", client: a.client });
    expect(calls).toEqual([a.client]);

    // Reconnect to a new client: the old client's handler is gone.
    sidecar.set({ kind: "online", client: b.client });
    expect(calls).toEqual([a.client, b.client]);
    changed(a.sock);
    changed(b.sock);
    expect(heard).toEqual(["a", "b"]);

    // Offline: null once, handlers gone; staying offline calls nothing more.
    sidecar.set({ kind: "offline", reason: "lost", canStart: false });
    sidecar.set({ kind: "connecting" });
    expect(calls).toEqual([a.client, b.client, null]);
    changed(b.sock);
    expect(heard).toEqual(["a", "b"]);

    // Back online, then dispose: handlers gone and later changes ignored.
    sidecar.set({ kind: "online", client: a.client });
    changed(a.sock);
    expect(heard).toEqual(["a", "b", "a"]);
    dispose();
    changed(a.sock);
    sidecar.set({ kind: "online", client: b.client });
    changed(b.sock);
    expect(heard).toEqual(["a", "b", "a"]);
    expect(calls).toEqual([a.client, b.client, null, a.client]);
  });

  it("starts quiet while offline", () => {
    const sidecar = new FakeLifecycle();
    const calls: (Client | null)[] = [];
    const dispose = followClient(sidecar, (client) => {
      calls.push(client);
    });
    expect(calls).toEqual([]);
    dispose();
  });
});
