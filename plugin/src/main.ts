import { type App, Component, FileSystemAdapter, MarkdownRenderer, MarkdownView, Modal, Notice, Plugin, TFile, getAllTags } from "obsidian";
import { Conversation, History } from "./ask";
import { ConfigSync, modelText } from "./config";
import { answerNoteProcessor } from "./hover/answer-note";
import { CitationHover } from "./hover/citation";
import { answerEditorHover } from "./hover/editor";
import { IngestRunner, IngestTracker, resummarisable, resummariseButtons } from "./ingest";
import { checkNotes } from "./lint";
import { AskModal } from "./modals/ask";
import { SearchModal } from "./modals/search";
import { wikiLink } from "./search";
import { LastOffer, PushedNotices } from "./notices";
import { type QuireSettings, QuireSettingTab, type SecretStorageLike, hiddenNotes, keyStore, mergeSettings, relatedExcludes } from "./settings";
import { stateDir } from "./sidecar/connfile";
import { PLUGIN_VERSION, type Platform, candidates, findEngine } from "./sidecar/engine";
import { type EngineProblem, Sidecar } from "./sidecar/lifecycle";
import { detectSystem, isAlive, isExecutable, probeVersion, readFileOrNull, spawnProcess, trustDeps, unsafeDir } from "./sidecar/node";
import { installFor } from "./sidecar/setup";
import { trustedCandidates } from "./sidecar/trust";
import { EngineModal, LogModal, openQuireSettings } from "./views/engine";
import { StatusTracker, indexingPercent } from "./sidecar/status";
import { liveNotice, showNotice } from "./views/notice";
import { NoteOpener, openSidebarView } from "./views/open";
import { lineAtByte } from "./passage";
import { ASK_VIEW, type AskPanelDeps, AskView } from "./views/ask";
import { EVALUATE_VIEW, EvaluateView } from "./views/evaluate";
import { RELATED_VIEW, RelatedView, workspaceEvents } from "./views/related";
import { REVIEW_VIEW, ReviewView, markReview, refreshReviewViews } from "./views/review";
import { StatusBar, StatusModal } from "./views/status";

/**
 * QuirePlugin wires Quire's surfaces into Obsidian. It stays short: each
 * surface is a narrow object built here, and everything it registers is
 * undone on unload (the sidecar process too, when the plugin started it).
 */
export default class QuirePlugin extends Plugin {
  override settings: QuireSettings = mergeSettings(undefined);
  /** askHistory is the questions asked, newest first, as data.json keeps them beside the settings. */
  private askHistory: string[] = [];

  override async onload(): Promise<void> {
    const data: unknown = await this.loadData();
    this.settings = mergeSettings(data);
    // The questions asked, newest first, kept across restarts beside the settings.
    const kept = typeof data === "object" && data !== null ? (data as Record<string, unknown>)["askHistory"] : undefined;
    this.askHistory = Array.isArray(kept) ? kept.filter((q): q is string => typeof q === "string") : [];
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
    // The panel, or its opening while the system is read: one at a time.
    let panel: EngineModal | Promise<void> | null = null;
    const openEngineModal = (problem: EngineProblem) => {
      if (panel) return;
      const opening = detectSystem(platform).then((system) => {
        if (panel !== opening) return;
        const m = new EngineModal(this.app, {
          problem,
          install: installFor(system, PLUGIN_VERSION),
          copy: (text) => navigator.clipboard.writeText(text),
          check: async (asked) => {
            // An engine that runs (maybe for another front end) is stopped only when the user asks.
            if (problem.kind !== "missing" && problem.source === "running" && !asked) return false;
            const found = await locate();
            if (!found || found.compat !== "ok") return false;
            // A lacking engine that serves is still the same one until its version changes.
            if (problem.kind === "lacking" && found.version === problem.version) return false;
            if (problem.kind === "missing") await sidecar.start({ explicit: true });
            else await sidecar.replace();
            if (sidecar.state.kind !== "online") return false;
            new Notice(`Quire's engine ${sidecar.engine?.version ?? found.version} is running.`, 6000);
            return true;
          },
          openSettings: () => openQuireSettings(this.app, this.manifest.id),
        });
        const close = m.onClose.bind(m);
        m.onClose = () => {
          close();
          panel = null;
        };
        panel = m;
        m.open();
      });
      panel = opening;
    };
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
      setup: openEngineModal,
      showLog: (lines) => new LogModal(this.app, lines).open(),
      log,
      clientName: `obsidian-plugin ${this.manifest.version}`,
    });
    this.register(() => {
      if (panel instanceof EngineModal) panel.close();
      // A panel still reading the system opens no more.
      panel = null;
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
    const opener = new NoteOpener({ vault, workspace });
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
    const rebuild = async () => {
      const client = sidecar.client;
      if (!client) {
        new Notice("Quire is offline: start it (Quire: Start or reconnect), then rebuild the index.", 8000);
        return;
      }
      if (!(await confirm(this.app, "Rebuild the index?", "Quire reads every note again and computes its vectors anew. Search keeps answering from the current index meanwhile; on a large vault this takes minutes.", "Rebuild"))) return;
      try {
        await client.request("index.rebuild", {}, { timeoutMs: 30_000 });
        new Notice("Quire: rebuilding the index. The status bar shows the progress.", 6000);
      } catch (err) {
        log("index.rebuild", err);
        new Notice("Quire: the index could not be rebuilt. The developer console has the detail.", 8000);
      }
    };
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
        setup: openEngineModal,
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
          openPassage: (path, at, newLeaf) => void opener.open(path, at, newLeaf),
          exclude: () => relatedExcludes(this.settings.relatedExclude),
          linked: (sourcePath) => Object.keys(metadataCache.resolvedLinks[sourcePath] ?? {}),
          hidden: () => hiddenNotes(this.settings.relatedHidden),
          hide: (path) => void this.saveSettings({ relatedHidden: [...hiddenNotes(this.settings.relatedHidden), path].join("\n") }),
          copy: (text) => navigator.clipboard.writeText(text),
          subscribe: workspaceEvents(workspace),
          linkText: (path, sourcePath) => {
            const f = vault.getAbstractFileByPath(path);
            return f instanceof TFile ? metadataCache.fileToLinktext(f, sourcePath, true) : path.replace(/\.md$/, "");
          },
          hoverLink: (event, hoverParent, targetEl, path, start, sourcePath) => {
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
    /** tagsOf is a note's tags without "#", from the metadata cache (none when it has no cache yet). */
    const tagsOf = (f: TFile): string[] => {
      const cache = metadataCache.getFileCache(f);
      return cache ? (getAllTags(cache) ?? []).map((t) => t.replace(/^#/, "")) : [];
    };
    /** askDeps are the Ask panel's deps; editing is the note that Insert at cursor writes to. */
    const askDeps = (editing: () => MarkdownView | null): Omit<AskPanelDeps, "conversation" | "leave"> => ({
      linkText: (path) => {
        const f = vault.getAbstractFileByPath(path);
        return f instanceof TFile ? metadataCache.fileToLinktext(f, editing()?.file?.path ?? "", true) : path.replace(/\.md$/, "");
      },
      insert: (md) => {
        const view = editing();
        if (!view?.file) return false;
        view.editor.replaceSelection(md);
        return true;
      },
      copy: (text) => navigator.clipboard.writeText(text),
      client: () => sidecar.client,
      history,
      // The scope control offers the folders and tags of the note being edited.
      scopeNote: () => {
        const f = editing()?.file;
        return f ? { path: f.path, tags: tagsOf(f) } : null;
      },
      noteText: (path) => opener.read(path),
      openPassage: (path, at) => void opener.open(path, at),
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
        tagsOf: (path) => {
          const f = vault.getAbstractFileByPath(path);
          return f instanceof TFile ? tagsOf(f) : [];
        },
        openPassage: (path, at, newLeaf) => void opener.open(path, at, newLeaf),
        indexing: () => indexingPercent(tracker.snapshot),
        insertLink: (path, headingPath) => {
          const f = vault.getAbstractFileByPath(path);
          if (!editing?.file || !(f instanceof TFile)) return false;
          editing.editor.replaceSelection(wikiLink(metadataCache.fileToLinktext(f, editing.file.path, true), headingPath));
          return true;
        },
      }).open();
    };
    // Each popover's rendering lives until the next one is drawn (or the plugin unloads).
    let popoverRender: Component | null = null;
    this.register(() => popoverRender?.unload());
    const citationDeps = {
      noteText: (path: string) => opener.read(path),
      open: (path: string, at: number) => void opener.open(path, at),
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
    const ingestClipboard = () => void runner.fromClipboard();
    const resummarise = (source: string) => void runner.ingest(source, true);
    this.registerMarkdownPostProcessor(resummariseButtons(resummarise));
    this.addRibbonIcon("search", "Quire: search vault", search);
    this.addRibbonIcon("message-square", "Quire: ask vault in the sidebar", () => void openSidebarView(workspace, ASK_VIEW));
    this.addRibbonIcon("link", "Quire: ingest the URL on the clipboard", ingestClipboard);

    this.addCommand({ id: "search-vault", name: "Search vault", callback: search });
    this.addCommand({ id: "ask-vault", name: "Ask vault", callback: ask });
    this.addCommand({
      id: "ask-this-note",
      name: "Ask about this note",
      checkCallback: (checking) => {
        const editing = workspace.getActiveViewOfType(MarkdownView);
        const file = editing?.file;
        if (!editing || !file || file.extension !== "md") return false;
        if (!checking) new AskModal(this.app, askDeps(() => editing), "", { note: file.path }).open();
        return true;
      },
    });
    this.addCommand({ id: "open-ask-view", name: "Ask vault in the sidebar", callback: () => void openSidebarView(workspace, ASK_VIEW) });
    this.addCommand({ id: "ingest-clipboard", name: "Ingest the URL on the clipboard", callback: ingestClipboard });
    this.addCommand({
      id: "resummarise-source",
      name: "Summarise this source again",
      checkCallback: (checking) => {
        const f = workspace.getActiveFile();
        const source = f ? resummarisable(metadataCache.getFileCache(f)?.frontmatter) : null;
        if (source && !checking) resummarise(source);
        return source !== null;
      },
    });
    this.addCommand({
      id: "open-related",
      name: "Open related pages",
      callback: async () => {
        await openSidebarView(workspace, RELATED_VIEW);
        // Revealing the view leaves the keyboard in the editor: move it into the list.
        const view = workspace.getLeavesOfType(RELATED_VIEW)[0]?.view;
        if (view instanceof RelatedView) view.focusList();
      },
    });
    this.addCommand({ id: "open-review", name: "Open review items", callback: () => void openSidebarView(workspace, REVIEW_VIEW) });
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
    this.addCommand({
      id: "evaluate-search",
      name: "Evaluate search",
      callback: async () => {
        // An open view keeps its questions and result: it is shown, not opened again.
        let leaf = workspace.getLeavesOfType(EVALUATE_VIEW)[0];
        if (!leaf) {
          leaf = workspace.getLeaf("tab");
          await leaf.setViewState({ type: EVALUATE_VIEW, active: true });
        }
        await workspace.revealLeaf(leaf);
      },
    });
    this.addCommand({
      id: "check-notes",
      name: "Check the generated notes",
      callback: () =>
        void checkNotes({
          client: () => sidecar.client,
          notice: (m, ms) => new Notice(m, ms),
          openNote: (p) => void openGenerated(p),
          reviewChanged: () => refreshReviewViews(workspace),
          log,
        }),
    });
    this.addCommand({ id: "show-status", name: "Show status", callback: showStatus });
    // A notice's Open button takes no focus: this reaches it from the keyboard.
    this.addCommand({
      id: "open-from-notice",
      name: "Open what the last notice offered",
      callback: () => {
        if (!lastOffer.run()) new Notice("No notice is offering anything to open.");
      },
    });
    // The id stays as it was so that users' hotkeys keep working.
    this.addCommand({ id: "start-sidecar", name: "Start or reconnect", callback: () => void start() });
    this.addCommand({ id: "rebuild-index", name: "Rebuild the index", callback: () => void rebuild() });

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
    await this.saveData({ ...this.settings, askHistory: this.askHistory });
  }
}

/** confirm asks a yes-or-no question in a modal; it resolves true only on the action button. */
function confirm(app: App, title: string, body: string, action: string): Promise<boolean> {
  return new Promise((resolve) => {
    let answer = false;
    const m = new Modal(app);
    m.titleEl.setText(title);
    m.contentEl.createEl("p", { text: body });
    const bar = m.contentEl.createDiv({ cls: "modal-button-container" });
    const yes = bar.createEl("button", { cls: "mod-cta", text: action });
    const no = bar.createEl("button", { text: "Cancel" });
    yes.addEventListener("click", () => {
      answer = true;
      m.close();
    });
    no.addEventListener("click", () => m.close());
    m.onClose = () => resolve(answer);
    m.open();
    yes.focus();
  });
}
