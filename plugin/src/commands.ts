import { type App, MarkdownView, type MetadataCache, Notice, type Plugin, type Workspace } from "obsidian";
import { resummarisable } from "./ingest";
import { confirm } from "./modals/confirm";
import type { Client } from "./sidecar/client";
import { openSidebarView } from "./views/open";
import { ASK_VIEW } from "./views/ask-panel";
import { RELATED_VIEW, RelatedView } from "./views/related";
import { REVIEW_VIEW } from "./views/review";
import { TOC_VIEW } from "./views/toc";

/** Actions are what the commands and ribbon icons start; main.ts builds them. */
export interface Actions {
  workspace: Workspace;
  metadataCache: MetadataCache;
  search: () => void;
  ask: () => void;
  /** askAbout opens Ask scoped to the note at path; editing is where Insert at cursor writes. */
  askAbout: (editing: MarkdownView, path: string) => void;
  /** askSelection opens Ask about text selected in the note at path; before is the note's text up to it. */
  askSelection: (editing: MarkdownView, path: string, text: string, before: string) => void;
  ingestClipboard: () => void;
  resummarise: (source: string) => void;
  /** evaluate opens the Evaluate search view. */
  evaluate: () => void;
  checkNotes: () => void;
  showStatus: () => void;
  /** openOffered runs the last notice's offer; false when there is none. */
  openOffered: () => boolean;
  start: () => void;
  rebuild: () => void;
}

/** addCommands registers Quire's commands and ribbon icons; unload removes them with the plugin. */
export function addCommands(plugin: Pick<Plugin, "addCommand" | "addRibbonIcon">, a: Actions): void {
  const { workspace, metadataCache } = a;
  const openAskView = () => void openSidebarView(workspace, ASK_VIEW);
  plugin.addRibbonIcon("search", "Quire: search vault", a.search);
  plugin.addRibbonIcon("message-square", "Quire: ask vault in the sidebar", openAskView);
  plugin.addRibbonIcon("link", "Quire: ingest the URL on the clipboard", a.ingestClipboard);

  plugin.addCommand({ id: "search-vault", name: "Search vault", callback: a.search });
  plugin.addCommand({ id: "ask-vault", name: "Ask vault", callback: a.ask });
  plugin.addCommand({
    id: "ask-this-note",
    name: "Ask about this note",
    checkCallback: (checking) => {
      const editing = workspace.getActiveViewOfType(MarkdownView);
      const file = editing?.file;
      if (!editing || !file || file.extension !== "md") return false;
      if (!checking) a.askAbout(editing, file.path);
      return true;
    },
  });
  plugin.addCommand({
    id: "ask-selection",
    name: "Ask about the selection",
    checkCallback: (checking) => {
      const editing = workspace.getActiveViewOfType(MarkdownView);
      const file = editing?.file;
      const text = editing?.editor.getSelection() ?? "";
      if (!editing || !file || file.extension !== "md" || text.trim() === "") return false;
      const before = editing.editor.getValue().slice(0, editing.editor.posToOffset(editing.editor.getCursor("from")));
      if (!checking) a.askSelection(editing, file.path, text, before);
      return true;
    },
  });
  plugin.addCommand({ id: "open-ask-view", name: "Ask vault in the sidebar", callback: openAskView });
  plugin.addCommand({ id: "ingest-clipboard", name: "Ingest the URL on the clipboard", callback: a.ingestClipboard });
  plugin.addCommand({
    id: "resummarise-source",
    name: "Summarise this source again",
    checkCallback: (checking) => {
      const f = workspace.getActiveFile();
      const source = f ? resummarisable(metadataCache.getFileCache(f)?.frontmatter) : null;
      if (source && !checking) a.resummarise(source);
      return source !== null;
    },
  });
  plugin.addCommand({
    id: "open-related",
    name: "Open related pages",
    callback: async () => {
      await openSidebarView(workspace, RELATED_VIEW);
      // Revealing the view leaves the keyboard in the editor: move it into the list.
      const view = workspace.getLeavesOfType(RELATED_VIEW)[0]?.view;
      if (view instanceof RelatedView) view.focusList();
    },
  });
  plugin.addCommand({ id: "open-review", name: "Open review items", callback: () => void openSidebarView(workspace, REVIEW_VIEW) });
  plugin.addCommand({ id: "open-sources", name: "Browse sources (tables of contents)", callback: () => void openSidebarView(workspace, TOC_VIEW) });
  plugin.addCommand({ id: "evaluate-search", name: "Evaluate search", callback: a.evaluate });
  plugin.addCommand({ id: "check-notes", name: "Check the generated notes", callback: a.checkNotes });
  plugin.addCommand({ id: "show-status", name: "Show status", callback: a.showStatus });
  // A notice's Open button takes no focus: this reaches it from the keyboard.
  plugin.addCommand({
    id: "open-from-notice",
    name: "Open what the last notice offered",
    callback: () => {
      if (!a.openOffered()) new Notice("No notice is offering anything to open.");
    },
  });
  // The id stays as it was so that users' hotkeys keep working.
  plugin.addCommand({ id: "start-sidecar", name: "Start or reconnect", callback: a.start });
  plugin.addCommand({ id: "rebuild-index", name: "Rebuild the index", callback: a.rebuild });
}

/** RebuildDeps is what the rebuild flow needs. */
export interface RebuildDeps {
  app: App;
  client: () => Client | null;
  log: (msg: string, ...detail: unknown[]) => void;
}

/** rebuildIndex asks the user, then the engine, to rebuild the index; search keeps serving meanwhile. */
export async function rebuildIndex(d: RebuildDeps): Promise<void> {
  const client = d.client();
  if (!client) {
    new Notice("Quire is offline: start it (Quire: Start or reconnect), then rebuild the index.", 8000);
    return;
  }
  if (!(await confirm(d.app, "Rebuild the index?", "Quire reads every note again and computes its vectors anew. Search keeps answering from the current index meanwhile; on a large vault this takes minutes.", "Rebuild"))) return;
  try {
    await client.request("index.rebuild", {}, { timeoutMs: 30_000 });
    new Notice("Quire: rebuilding the index. The status bar shows the progress.", 6000);
  } catch (err) {
    d.log("index.rebuild", err);
    new Notice("Quire: the index could not be rebuilt. The developer console has the detail.", 8000);
  }
}
