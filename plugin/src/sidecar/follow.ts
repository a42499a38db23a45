// Following the sidecar's current client across reconnects. Every reconnect
// brings a new Client, and handlers left on the old one would never fire
// again (or fire twice once both are open), so the objects that listen to
// pushed events share this one place that moves them from client to client.
import type { Client } from "./client";
import type { Sidecar, SidecarState } from "./lifecycle";

/**
 * followClient calls onClient with the sidecar's client each time it
 * changes: the new client once it is online, null once it is not. Before
 * each call it undoes what the previous call returned (the unsubscribes of
 * the old client's handlers). The first call happens at once when the
 * sidecar is already online. It returns a dispose that stops following and
 * undoes the current client's subscriptions.
 */
export function followClient(
  sidecar: Pick<Sidecar, "state" | "onChange">,
  onClient: (client: Client | null) => (() => void)[] | void,
): () => void {
  let current: Client | null = null;
  let undo: (() => void)[] = [];
  const release = () => {
    for (const u of undo.splice(0)) u();
  };
  const onState = (s: SidecarState) => {
    const client = s.kind === "online" ? s.client : null;
    if (client === current) return;
    release();
    current = client;
    undo = onClient(client) ?? [];
  };
  const unsub = sidecar.onChange(onState);
  onState(sidecar.state);
  return () => {
    unsub();
    release();
  };
}
