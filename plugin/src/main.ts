import { Component, FileSystemAdapter, MarkdownRenderer, MarkdownView, Notice, Plugin, TFile } from "obsidian";
import { Conversation, History, selectionScope } from "./ask-session";
import { ConversationArchive, type SavedConversation } from "./conversations";
import { ConfigSync, modelText } from "./config";
import { answerNoteProcessor } from "./hover/answer-note";
import { CitationHover } from "./hover/citation";
import { answerEditorHover } from "./hover/editor";
import { IngestRunner, IngestTracker, resummariseButtons } from "./ingest";
import { checkNotes } from "./lint";
import { AskModal } from "./modals/ask-modal";
import { SearchModal } from "./modals/search-modal";
import { wikiLink } from "./search-results";
import { LastOffer, PushedNotices } from "./notices";
import { type QuireSettings, QuireSettingTab, type SecretStorageLike, hiddenNotes, keyStore, mergeSettings, relatedExcludes } from "./settings";
import { stateDir } from "./sidecar/connfile";
import { type Platform, candidates, findEngine } from "./sidecar/locate";
import { Sidecar } from "./sidecar/lifecycle";
import { detectSystem, isAlive, isExecutable, probeVersion, readFileOrNull, spawnProcess, trustDeps, unsafeDir } from "./sidecar/node";
import { trustedCandidates } from "./sidecar/trust";
import { EnginePanel } from "./modals/engine-modal";
import { LogModal } from "./modals/log-modal";
import { StatusTracker, indexingPercent } from "./sidecar/status-tracker";
import { liveNotice, showNotice } from "./views/notice";
import { NoteOpener, openAt } from "./views/open";
import { lineAtByte } from "./passage";
import { addCommands, rebuildIndex } from "./commands";
import { ASK_VIEW, type AskPanelDeps, AskView } from "./views/ask-panel";
import { EVALUATE_VIEW, EvaluateView, openEvaluateView } from "./views/evaluate";
import { RELATED_VIEW, RelatedView, workspaceEvents } from "./views/related";
import { REVIEW_VIEW, ReviewView, markReview, refreshReviewViews } from "./views/review";
import { SOURCE_NOTE_VIEW, SourceNoteView, fetchSourceNote } from "./views/source-note";
import { TOC_VIEW, TOCView } from "./views/toc";
import { sourceOf } from "./sidecar/sourcekeys";
import { StatusModal } from "./modals/status-modal";
import { StatusBar } from "./views/status-bar";

/**
 * QuirePlugin wires Quire's surfaces into Obsidian. It stays short: each
 * surface is a narrow object built here, and everything it registers is
 * undone on unload (the sidecar process too, when the plugin started it).
 */
export default class QuirePlugin extends Plugin {
  override settings: QuireSettings = mergeSettings(undefined);
  /** askHistory is the questions asked, newest first, as data.json keeps them beside the settings. */
  private askHistory: string[] = [];
  /** askConversations are the past Ask conversations, newest first, kept beside the settings too. */
  private askConversations: readonly SavedConversation[] = [];

  override async onload(): Promise<void> {
    const data: unknown = await this.loadData();
    this.settings = mergeSettings(data);
    // The questions asked, newest first, kept across restarts beside the settings.
    const kept = typeof data === "object" && data !== null ? (data as Record<string, unknown>)["askHistory"] : undefined;
    this.askHistory = Array.isArray(kept) ? kept.filter((q): q is string => typeof q === "string") : [];
    const archive = new ConversationArchive(typeof data === "object" && data !== null ? (data as Record<string, unknown>)["askConversations"] : undefined, (list) => {
      this.askConversations = list;
      void this.saveSettings({});
    });
    this.askConversations = archive.list;
    const { vault, workspace, metadataCache } = this.app;
    const vaultPath = vault.adapter instanceof FileSystemAdapter ? vault.adapter.getBasePath() : "";
    const log = (msg: string, ...detail: unknown[]) => console.debug(`[${this.manifest.id}] ${msg}`, ...detail);
    const lastOffer = new LastOffer();

    // The engine: one the user installed with their system's package
    // manager, found (settings, PATH, the package managers' places), never
    // downloaded; any version whose protocol range overlaps the plugin's.
    const platform: Platform = { platform: process.platform, arch: process.arch, env: process.env };
    // A PATH candidate inside the vault or where any user can write is never run (trustedCandidates).
    const locate = async () => {
      const found = await trustedCandidates(candidates(platform, this.settings.binaryPath, vaultPath), trustDeps(process.platform, vaultPath));
      return findEngine({ isExecutable, unsafeDir, probe: (p) => probeVersion(p) }, found);
    };
    const panel = new EnginePanel({
      app: this.app,
      pluginId: this.manifest.id,
      system: () => detectSystem(platform),
      locate,
      sidecar: () => sidecar,
    });
    const sidecar: Sidecar = new Sidecar({
      vaultPath,
      stateDir: () => stateDir(vaultPath, this.settings.stateFolder),
      locate,
      configured: () => this.settings.binaryPath.trim(),
      parentPid: process.pid,
      readFile: readFileOrNull,
      spawn: (cmd, args) => spawnProcess(cmd, args, (line) => log(line)),
      isAlive,
      socket: (url) => new WebSocket(url),
      notify: (msg, actions = []) => void showNotice(msg, [], actions, 10_000, lastOffer),
      setup: (problem) => panel.open(problem),
      showLog: (lines) => new LogModal(this.app, lines).open(),
      log,
      clientName: `obsidian-plugin ${this.manifest.version}`,
    });
    this.register(() => {
      panel.dispose();
      sidecar.stop();
    });
    const tracker = new StatusTracker(sidecar);
    this.register(() => tracker.dispose());
    const ingest = new IngestTracker(sidecar);
    this.register(() => ingest.dispose());
    // Obsidian 1.11.4+ has secret storage; it is looked up, not required, so minAppVersion stays 1.7.2.
    const secrets = (this.app as unknown as { secretStorage?: SecretStorageLike }).secretStorage ?? null;
    const key = await keyStore(secrets, this.settings, (change) => this.saveSettings(change));
    const config = new ConfigSync({ sidecar, apiKey: () => key.get(), log });
    this.register(() => config.dispose());
    const opener = new NoteOpener({ vault, workspace, metadataCache, sourceText: async (key) => (await fetchSourceNote(sidecar.client, key)).text });
    const render = (md: string, el: HTMLElement, sourcePath: string, component: Component) => MarkdownRenderer.render(this.app, md, el, sourcePath, component);
    this.registerView(SOURCE_NOTE_VIEW, (leaf) => new SourceNoteView(leaf, { client: () => sidecar.client, render }));
    this.registerView(TOC_VIEW, (leaf) => new TOCView(leaf, { client: () => sidecar.client, open: (path, heading, newLeaf) => void openAt(workspace, path, heading, newLeaf) }));
    const pushed = new PushedNotices({
      sidecar,
      show: (msg, lines, actions, ms) => void showNotice(msg, lines, actions, ms, lastOffer),
      openNote: (path) => void opener.openNote(path),
      // A review leaf in a hidden sidebar tab holds a DeferredView until shown: only a loaded ReviewView can refresh.
      reviewCreated: () => refreshReviewViews(workspace),
    });
    this.register(() => pushed.dispose());
    const openGenerated = async (path: string) => {
      pushed.opening(path);
      await opener.openNote(path);
    };
    const start = () => sidecar.start({ explicit: true });
    const rebuild = () => rebuildIndex({ app: this.app, client: () => sidecar.client, log });
    const showStatus = () =>
      new StatusModal(this.app, {
        tracker,
        rebuild,
        start,
        queue: () => ingest.queue(),
        ingest,
        model: () => modelText(config.current),
        engine: () => sidecar.engine,
        problem: () => (sidecar.state.kind === "offline" ? (sidecar.state.problem ?? null) : null),
        setup: (problem) => panel.open(problem),
      }).open();

    const statusEl = this.addStatusBarItem();
    this.register(new StatusBar({ el: statusEl, tracker, ingest }).bind());
    this.registerDomEvent(statusEl, "click", showStatus);

    this.registerView(
      RELATED_VIEW,
      (leaf) =>
        new RelatedView(leaf, {
          sidecar,
          tracker,
          mtime: (path) => {
            const f = vault.getAbstractFileByPath(path);
            return f instanceof TFile ? f.stat.mtime : null;
          },
          activeNote: () => {
            const f = workspace.getActiveFile();
            return f && f.extension === "md" ? { path: f.path } : null;
          },
          readNote: (path) => opener.read(path),
          openPassage: (path, at, newLeaf, page) => void opener.open(path, at, newLeaf, page),
          exclude: () => relatedExcludes(this.settings.relatedExclude),
          linked: (sourcePath) => Object.keys(metadataCache.resolvedLinks[sourcePath] ?? {}),
          hidden: () => hiddenNotes(this.settings.relatedHidden),
          hide: (path) => void this.saveSettings({ relatedHidden: [...hiddenNotes(this.settings.relatedHidden), path].join("\n") }),
          copy: (text) => navigator.clipboard.writeText(text),
          subscribe: workspaceEvents(workspace),
          linkText: (path, sourcePath) => opener.linkText(path, sourcePath),
          hoverLink: (event, hoverParent, targetEl, path, start, sourcePath) => {
            if (sourceOf(path)) return; // Obsidian's preview would look for a vault note of that name
            void opener.read(path).then((text) =>
              workspace.trigger("hover-link", { event, source: RELATED_VIEW, hoverParent, targetEl, linktext: path, sourcePath, state: { scroll: lineAtByte(text, start) } }),
            );
          },
        }),
    );
    this.registerHoverLinkSource(RELATED_VIEW, { display: "Quire related pages", defaultMod: false });
    this.registerView(
      REVIEW_VIEW,
      (leaf) =>
        new ReviewView(leaf, {
          vault,
          metadataCache,
          folder: () => config.folder,
          openNote: (p, newLeaf) => void opener.openNote(p, newLeaf),
          mark: (path, status) => markReview({ vault, fileManager: this.app.fileManager }, path, status),
        }),
    );

    const history = new History(20, this.askHistory, (list) => {
      this.askHistory = [...list];
      void this.saveSettings({});
    });
    /** askDeps are the Ask panel's deps; editing is the note that Insert at cursor writes to. */
    const askDeps = (editing: () => MarkdownView | null): Omit<AskPanelDeps, "conversation" | "leave"> => ({
      linkText: (path) => opener.linkText(path, editing()?.file?.path ?? ""),
      insert: (md) => {
        const view = editing();
        if (!view?.file) return false;
        view.editor.replaceSelection(md);
        return true;
      },
      copy: (text) => navigator.clipboard.writeText(text),
      client: () => sidecar.client,
      history,
      archive,
      // The scope control offers the folders and tags of the note being edited.
      scopeNote: () => {
        const f = editing()?.file;
        return f ? { path: f.path, tags: opener.tags(f.path) } : null;
      },
      noteText: (path) => opener.read(path),
      openPassage: (path, at, page) => void opener.open(path, at, false, page),
      openNote: openGenerated,
    });
    const ask = () => {
      // Insert at cursor goes to the note being edited when the question began.
      const editing = workspace.getActiveViewOfType(MarkdownView);
      new AskModal(this.app, askDeps(() => editing)).open();
    };
    // The sidebar's conversation outlives its view; its Insert at cursor goes to the last note edited in the main area.
    const sidebarConversation = new Conversation();
    const lastEditor = () => {
      const view = workspace.getMostRecentLeaf(workspace.rootSplit)?.view;
      return view instanceof MarkdownView ? view : workspace.getActiveViewOfType(MarkdownView);
    };
    this.registerView(ASK_VIEW, (leaf) => new AskView(leaf, { ...askDeps(lastEditor), conversation: sidebarConversation }));
    const search = () => {
      // The link goes where the cursor was when the search began.
      const editing = workspace.getActiveViewOfType(MarkdownView);
      new SearchModal(this.app, {
        client: () => sidecar.client,
        state: () => sidecar.state,
        openPassage: (path, at, newLeaf, page) => void opener.open(path, at, newLeaf, page),
        indexing: () => indexingPercent(tracker.snapshot),
        insertLink: (path, headingPath) => {
          if (!editing?.file || !opener.has(path)) return false;
          editing.editor.replaceSelection(wikiLink(opener.linkText(path, editing.file.path), headingPath));
          return true;
        },
      }).open();
    };
    // Each popover's rendering lives until the next one is drawn (or the plugin unloads).
    let popoverRender: Component | null = null;
    this.register(() => popoverRender?.unload());
    const citationDeps = {
      noteText: (path: string) => opener.read(path),
      open: (path: string, at: number, page?: number) => void opener.open(path, at, false, page),
      render: (md: string, el: HTMLElement, sourcePath: string) => {
        popoverRender?.unload();
        popoverRender = new Component();
        popoverRender.load();
        return MarkdownRenderer.render(this.app, md, el, sourcePath, popoverRender);
      },
    };
    this.registerMarkdownPostProcessor(answerNoteProcessor(citationDeps));
    const editorHover = new CitationHover(citationDeps);
    this.register(() => editorHover.dispose());
    this.registerEditorExtension(answerEditorHover({ metadataCache, hover: editorHover, open: citationDeps.open }));

    const runner = new IngestRunner({
      sidecar,
      tracker: ingest,
      readClipboard: () => navigator.clipboard.readText(),
      notice: (text, ms) => liveNotice(text, ms, lastOffer),
      openNote: openGenerated,
      log,
    });
    this.register(() => runner.dispose());
    const resummarise = (source: string) => void runner.ingest(source, true);
    this.registerMarkdownPostProcessor(resummariseButtons(resummarise));
    this.registerView(
      EVALUATE_VIEW,
      (leaf) =>
        new EvaluateView(leaf, {
          client: () => sidecar.client,
          vault,
          notes: () => vault.getMarkdownFiles().map((f) => f.path).sort(),
          folder: () => config.folder,
          openNote: (p) => void opener.openNote(p),
        }),
    );
    addCommands(this, {
      workspace,
      metadataCache,
      search,
      ask,
      askAbout: (editing, path) => new AskModal(this.app, askDeps(() => editing), "", { note: path }).open(),
      askSelection: (editing, path, text, before) => new AskModal(this.app, askDeps(() => editing), "", selectionScope(path, text, before)).open(),
      ingestClipboard: () => void runner.fromClipboard(),
      resummarise,
      evaluate: () => void openEvaluateView(workspace),
      checkNotes: () =>
        void checkNotes({
          client: () => sidecar.client,
          notice: (m, ms) => new Notice(m, ms),
          openNote: (p) => void openGenerated(p),
          reviewChanged: () => refreshReviewViews(workspace),
          log,
        }),
      showStatus,
      openOffered: () => lastOffer.run(),
      start: () => void start(),
      rebuild: () => void rebuild(),
    });

    this.addSettingTab(
      new QuireSettingTab(this.app, this, {
        settings: this.settings,
        key,
        save: async (change) => {
          await this.saveSettings(change);
          if (sidecar.state.kind === "offline" && ("binaryPath" in change || "stateFolder" in change)) void start();
          if ("relatedExclude" in change) this.refreshRelated();
        },
        config,
      }),
    );
    // Not an explicit start: a missing engine opens the first-run panel once, rather than a notice.
    workspace.onLayoutReady(() => void sidecar.start());
  }

  /** onExternalSettingsChange reads data.json again when Sync or another device changed it. */
  override async onExternalSettingsChange(): Promise<void> {
    const before = this.settings.relatedExclude;
    Object.assign(this.settings, mergeSettings(await this.loadData()));
    if (this.settings.relatedExclude !== before) this.refreshRelated();
  }

  /** refreshRelated asks the open Related pages views again (their left-out folders changed). */
  private refreshRelated(): void {
    for (const leaf of this.app.workspace.getLeavesOfType(RELATED_VIEW)) {
      if (leaf.view instanceof RelatedView) void leaf.view.refresh();
    }
  }

  private async saveSettings(change: Partial<QuireSettings>): Promise<void> {
    Object.assign(this.settings, change);
    await this.saveData({ ...this.settings, askHistory: this.askHistory, askConversations: this.askConversations });
  }
}
