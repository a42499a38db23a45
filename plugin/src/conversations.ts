// Past Ask conversations, kept across restarts in the plugin's data beside
// the settings, newest first, so that one can be reopened and followed up.
import type { AskScope, Conversation, Turn } from "./ask-session";

/** SavedConversation is one conversation as the plugin's data keeps it. */
export interface SavedConversation {
  id: string;
  /** title is its first question. */
  title: string;
  /** updated is when its last turn finished, in ms since the epoch. */
  updated: number;
  scope?: AskScope;
  turns: Turn[];
}

/** maxConversations and maxTurns bound what data.json keeps: each turn holds its cited passages. */
const maxConversations = 20;
const maxTurns = 20;

/**
 * ConversationArchive holds the past conversations, newest first. record
 * keeps a conversation as it stands each time a turn finishes; save is
 * given the whole list to write.
 */
export class ConversationArchive {
  private items: SavedConversation[];

  constructor(
    kept: unknown,
    private readonly save: (list: readonly SavedConversation[]) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.items = readConversations(kept);
  }

  /** list is the past conversations, the most recently continued first. */
  get list(): readonly SavedConversation[] {
    return this.items;
  }

  /** record keeps c (replacing its earlier copy) as the newest; a conversation with no finished turn is not kept. */
  record(c: Conversation): void {
    if (c.turns.length === 0) return;
    const first = c.turns[0]!;
    const saved: SavedConversation = {
      id: c.id,
      title: first.question,
      updated: this.now(),
      ...(Object.keys(c.scope).length > 0 ? { scope: c.scope } : {}),
      turns: c.turns.slice(-maxTurns),
    };
    this.items = [saved, ...this.items.filter((x) => x.id !== c.id)].slice(0, maxConversations);
    this.save(this.items);
  }

  /** get is the saved conversation id, or null. */
  get(id: string): SavedConversation | null {
    return this.items.find((x) => x.id === id) ?? null;
  }
}

/** readConversations takes the conversations from what data.json held, dropping any that is not whole. */
export function readConversations(kept: unknown): SavedConversation[] {
  if (!Array.isArray(kept)) return [];
  const out: SavedConversation[] = [];
  for (const x of kept as unknown[]) {
    if (typeof x !== "object" || x === null) continue;
    const c = x as Partial<SavedConversation>;
    if (typeof c.id !== "string" || typeof c.title !== "string" || typeof c.updated !== "number" || !Array.isArray(c.turns)) continue;
    const turns = c.turns.filter((t): t is Turn => typeof t === "object" && t !== null && typeof t.question === "string" && ["done", "stopped", "error"].includes(t.kind));
    if (turns.length === 0) continue;
    out.push({ id: c.id, title: c.title, updated: c.updated, ...(c.scope ? { scope: c.scope } : {}), turns });
  }
  return out.slice(0, maxConversations);
}

/** whenLabel says when a conversation was last continued: the time today, else the date. */
export function whenLabel(updated: number, now = Date.now()): string {
  const d = new Date(updated);
  const today = new Date(now);
  if (d.toDateString() === today.toDateString()) return d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return d.toLocaleDateString([], { year: d.getFullYear() === today.getFullYear() ? undefined : "numeric", month: "short", day: "numeric" });
}
