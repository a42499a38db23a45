// The harness page's side of the Obsidian desktop renderer: `require` for
// the modules the built main.js asks for (obsidian from the stub; fs and
// child_process forwarded to the harness's Node process), and the
// WebSocket origin Obsidian's renderer has (see run.mjs's origin proxy).
(function () {
  const params = new URLSearchParams(location.search);
  const proxyPort = params.get("proxy");

  const call = (name, ...args) => window[name](...args);
  const fail = (r, path) => {
    const err = new Error(`${r.error}: ${path}`);
    err.code = r.error;
    throw err;
  };
  // Only what the plugin's sidecar/node.ts calls: it reads and stats, and
  // never writes a file or sets a mode (no such call is forwarded, so one
  // would fail here as a missing function). `system` fakes another OS's
  // files for the first-run panel: a package manager's program that lstat
  // sees, and /etc/os-release's text.
  const system = { present: new Set(), osRelease: null };
  const fs = {
    constants: { F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1 },
    promises: {
      async readFile(path) {
        if (path === "/etc/os-release" && system.osRelease !== null) return system.osRelease;
        const r = await call("harnessFs", { op: "read", path });
        return r.error ? fail(r, path) : r.text;
      },
      async stat(path) {
        const r = await call("harnessFs", { op: "stat", path });
        return r.error ? fail(r, path) : { isFile: () => r.isFile, mode: r.mode };
      },
      async lstat(path) {
        if (system.present.has(path)) return { isFile: () => true, mode: 0o100644 };
        const r = await call("harnessFs", { op: "stat", path });
        return r.error ? fail(r, path) : { isFile: () => r.isFile, mode: r.mode };
      },
      async realpath(path) {
        const r = await call("harnessFs", { op: "realpath", path });
        return r.error ? fail(r, path) : r.path;
      },
      async access(path, mode) {
        const r = await call("harnessFs", { op: "access", path, mode });
        if (r.error) fail(r, path);
      },
    },
  };

  // The clipboard the plugin reads: the harness sets its text.
  let clipboardText = "";
  Object.defineProperty(navigator, "clipboard", {
    configurable: true,
    value: { readText: async () => clipboardText, writeText: async (t) => void (clipboardText = t) },
  });

  // Obsidian notices a file written from outside (the sidecar's notes, an
  // edit in another program) through its file watcher; the harness polls
  // the vault folder for the same effect: the files' stamps (mtime, size),
  // then the text of those whose stamp changed, one poll at a time (reading
  // every file of a 1,000-note vault four times a second would busy the
  // page the timings measure).
  let watchTimer = null;
  const watchVault = async (app, basePath) => {
    clearInterval(watchTimer);
    const seen = new Map();
    const first = await call("harnessFs", { op: "stamps", path: basePath });
    // The files load() was given were read just before: their stamps are the ones seen.
    for (const [p, stamp] of Object.entries(first.stamps ?? {})) if (app.vault.files.has(p)) seen.set(p, stamp);
    let busy = false;
    watchTimer = setInterval(async () => {
      if (busy) return;
      busy = true;
      try {
        const r = await call("harnessFs", { op: "stamps", path: basePath });
        if (r.error) return;
        for (const [p, stamp] of Object.entries(r.stamps)) {
          if (seen.get(p) === stamp) continue;
          const f = await call("harnessFs", { op: "read", path: `${basePath}/${p}` });
          if (f.error) continue;
          seen.set(p, stamp);
          if (app.vault.files.get(p) !== f.text) app.vault.writeForTest(p, f.text);
        }
        for (const p of [...app.vault.files.keys()]) {
          if (p in r.stamps) continue;
          seen.delete(p);
          app.vault.deleteForTest(p);
        }
      } finally {
        busy = false;
      }
    }, 250);
  };

  const children = new Map();
  let nextChild = 1;
  const childProcess = {
    spawn(cmd, args, opts) {
      const id = nextChild++;
      const handlers = { exit: [], error: [] };
      const dataCbs = [];
      const outCbs = [];
      const stdio = opts?.stdio ?? ["ignore", "ignore", "pipe"];
      const child = {
        pid: undefined,
        stderr: { setEncoding() {}, on(ev, cb) { if (ev === "data") dataCbs.push(cb); } },
        stdout: stdio[1] === "pipe" ? { setEncoding() {}, on(ev, cb) { if (ev === "data") outCbs.push(cb); } } : null,
        stdin: stdio[0] === "pipe" ? { end() {}, on() {} } : null,
        on(ev, cb) { (handlers[ev] ??= []).push(cb); },
        kill(signal) { void call("harnessKill", id, signal ?? "SIGTERM"); return true; },
      };
      children.set(id, { child, handlers, dataCbs, outCbs });
      call("harnessSpawn", id, cmd, args, stdio).then((r) => {
        if (r.error) for (const cb of handlers.error) cb(new Error(r.error));
        else child.pid = r.pid;
      });
      return child;
    },
  };
  // Called by the harness when a child writes to stderr or exits.
  window.__harnessChild = (id, type, a, b) => {
    const c = children.get(id);
    if (!c) return;
    if (type === "stderr") for (const cb of c.dataCbs) cb(a);
    if (type === "stdout") for (const cb of c.outCbs) cb(a);
    if (type === "exit") for (const cb of c.handlers.exit) cb(a, b);
  };

  const modules = {
    obsidian: window.ObsidianStub,
    fs,
    "child_process": childProcess,
    "@codemirror/view": window.QuireCodeMirror.view,
    "@codemirror/state": window.QuireCodeMirror.state,
  };
  window.require = (name) => {
    const m = modules[name.replace(/^node:/, "")];
    if (!m) throw new Error(`harness: no module ${name}`);
    return m;
  };
  // The plugin checks that processes named in sidecar.json still run; the
  // harness's processes do while it runs.
  // platform, arch, pid and env are what engine discovery reads; load() sets
  // env (HOME, PATH) per scenario, and pid is the harness's own (--parent-pid).
  window.process = { kill() { return true; }, platform: "linux", arch: "x64", pid: Number(params.get("pid") ?? 0), env: {} };

  // Obsidian's renderer sends Origin app://obsidian.md, which a page
  // cannot: every socket goes through the harness's proxy, which sets it.
  const NativeWebSocket = window.WebSocket;
  window.WebSocket = class extends NativeWebSocket {
    constructor(url, protocols) {
      const u = new URL(url);
      if (u.hostname !== "127.0.0.1") throw new Error(`harness: unexpected socket host ${u.hostname}`);
      super(`ws://127.0.0.1:${proxyPort}/${u.port}${u.pathname}${u.search}`, protocols);
    }
  };

  const stub = window.ObsidianStub;
  let app = null;
  let plugin = null;
  window.harness = {
    stub,
    get app() { return app; },
    get plugin() { return plugin; },
    async load({ basePath, files, settings, manifest, env, main, platform, arch, present, osRelease }) {
      window.process.env = env ?? {};
      window.process.platform = platform ?? "linux";
      window.process.arch = arch ?? "x64";
      system.present = new Set(present ?? []);
      system.osRelease = osRelease ?? null;
      const module = { exports: {} };
      const res = await fetch(main ?? "/main.js");
      const code = await res.text();
      new Function("module", "exports", "require", code)(module, module.exports, window.require);
      app = new stub.App({ basePath, files });
      document.body.replaceChildren(app.containerEl);
      const host = document.createElement("div");
      host.className = "notice-container";
      document.body.appendChild(host);
      stub.Notice.hostForTest = host;
      stub.Notice.shown = [];
      await watchVault(app, basePath);
      // What the plugin writes through the vault reaches the disk, as in the
      // app, in the order it wrote it: two writes of one note in a row (a
      // review decision, then its seal) copied concurrently could land out
      // of order, and the poll above would bring the older one back.
      let writes = Promise.resolve();
      app.vault.onWriteForTest = (p, text) => {
        writes = writes.then(() => call("harnessFs", { op: "write", path: `${basePath}/${p}`, text }));
      };
      plugin = new module.exports.default(app, manifest);
      plugin.data = settings;
      await plugin.onload();
      app.workspace.layoutReadyForTest();
    },
    /** savedData is what the plugin last wrote to its data.json (settings, questions, conversations). */
    savedData() {
      return plugin.savedData.at(-1) ?? null;
    },
    unload() {
      clearInterval(watchTimer);
      plugin.unloadForTest();
    },
    setClipboard(text) { clipboardText = text; },
    clipboard() { return clipboardText; },
    /** ribbon clicks the ribbon icon whose label holds name (the ingest one by default). */
    ribbon(name = "ingest") {
      const icon = plugin.ribbonIcons.find((el) => (el.getAttribute("aria-label") ?? "").includes(name));
      if (!icon) throw new Error(`no ribbon icon for ${name}`);
      icon.click();
    },
    /** noteText is the text the open note's editor holds now. */
    noteText() {
      return app.workspace.getActiveViewOfType(stub.MarkdownView)?.editor.getValue() ?? null;
    },
    /** selectFirstLine selects the open note's first line of prose (no frontmatter, heading or blank line), as a drag over it would; it returns the text. */
    selectFirstLine() {
      const ed = app.workspace.getActiveViewOfType(stub.MarkdownView).editor;
      const lines = ed.getValue().split("\n");
      let inFront = lines[0] === "---";
      for (let i = inFront ? 1 : 0; i < lines.length; i++) {
        if (inFront) {
          if (lines[i] === "---") inFront = false;
          continue;
        }
        if (lines[i].trim() === "" || /^#/.test(lines[i])) continue;
        ed.setSelection({ line: i, ch: 0 }, { line: i, ch: lines[i].length });
        return ed.getSelection();
      }
      return null;
    },
    /** cursorAtEnd puts the open note's cursor at the end of its text, as a click there would. */
    cursorAtEnd() {
      const ed = app.workspace.getActiveViewOfType(stub.MarkdownView).editor;
      const lines = ed.getValue().split("\n");
      ed.setCursor({ line: lines.length - 1, ch: lines.at(-1).length });
    },
    /** timeKeystrokes records, for each text the search field takes, the time until results for exactly that text are drawn. */
    timeKeystrokes() {
      const input = document.querySelector(".quire-search-input");
      const list = document.querySelector(".quire-search-results");
      const typed = new Map();
      const lat = [];
      input.addEventListener("input", () => typed.set(input.value.trim(), performance.now()));
      new MutationObserver(() => {
        const q = list.getAttribute("data-query");
        const t0 = typed.get(q);
        if (t0 === undefined) return;
        lat.push(performance.now() - t0);
        typed.delete(q);
      }).observe(list, { attributes: true, attributeFilter: ["data-query"] });
      window.__keystrokes = lat;
    },
    notices() { return stub.Notice.shown.slice(); },
    liveNotices() { return stub.Notice.liveForTest.map((n) => n.message); },
    modal() { return stub.Modal.openForTest.at(-1) ?? null; },
    closeModals() { for (const m of stub.Modal.openForTest.slice()) m.close(); },
    /** closeView closes every leaf of a view type, as closing its tab does. */
    closeView(type) { for (const l of app.workspace.getLeavesOfType(type)) l.detach(); },
    /** reading draws a vault note as the reading view would, running the plugin's post processors. */
    async reading(path) {
      const text = app.vault.files.get(path);
      if (text === undefined) throw new Error(`no note ${path}`);
      const fm = stub.parseFrontmatterForTest(text);
      const body = fm ? text.replace(/^---\n[\s\S]*?\n---\n?/, "") : text;
      const leaf = app.workspace.getLeaf(false);
      leaf.containerEl.replaceChildren();
      const view = leaf.containerEl.createDiv({ cls: "markdown-reading-view markdown-rendered" });
      await plugin.renderForTest(path, body, fm, view);
    },
    /** editor shows a vault note in a real CodeMirror editor with the plugin's editor extensions, as Live Preview would. */
    editor(path) {
      const { view: cmView, state: cmState } = window.QuireCodeMirror;
      const leaf = app.workspace.getLeaf(false);
      leaf.containerEl.replaceChildren();
      const host = leaf.containerEl.createDiv({ cls: "markdown-source-view harness-cm" });
      this.cm?.destroy();
      this.cm = new cmView.EditorView({
        state: cmState.EditorState.create({
          doc: app.vault.files.get(path),
          extensions: [cmView.EditorView.lineWrapping, stub.editorInfoField.init(() => ({ file: new stub.TFile(path) })), ...plugin.editorExtensionsForTest],
        }),
        parent: host,
      });
    },
    /** editorCoords is the middle of the last occurrence of text in the editor, in page pixels. */
    editorCoords(text) {
      const i = this.cm.state.doc.toString().lastIndexOf(text);
      const a = this.cm.coordsAtPos(i + 1);
      return { x: (a.left + a.right) / 2, y: (a.top + a.bottom) / 2 };
    },
    /** settings draws the plugin's settings tab in a panel. */
    settings() {
      const tab = plugin.settingTabs[0];
      let panel = document.querySelector(".harness-settings");
      if (!panel) {
        panel = document.createElement("div");
        panel.className = "harness-settings modal-container";
        document.body.appendChild(panel);
      }
      const box = document.createElement("div");
      box.className = "modal vertical-tab-content";
      panel.replaceChildren(box);
      box.appendChild(tab.containerEl);
      tab.display();
    },
    closeSettings() {
      plugin.settingTabs[0]?.hide();
      document.querySelector(".harness-settings")?.remove();
    },
    command(id) {
      const cmd = plugin.commands.find((c) => c.id === id);
      if (!cmd) throw new Error(`no command ${id}`);
      if (cmd.callback) return cmd.callback();
      // A command offered only where it applies runs as the palette runs it: checked, then done.
      if (!cmd.checkCallback(true)) throw new Error(`command ${id} is not available here`);
      return cmd.checkCallback(false);
    },
    open(path) { return app.workspace.openForTest(path).then(() => undefined); },
    type(text) { app.workspace.getActiveViewOfType(stub.MarkdownView).typeForTest(text); },
    statusText() { return plugin.statusBarItems[0]?.textContent ?? ""; },
    relatedTitles() {
      return [...document.querySelectorAll(".quire-related-item .quire-related-title")].map((e) => e.textContent);
    },
    mainNote() {
      const v = app.workspace.getActiveViewOfType(stub.MarkdownView);
      return v ? { path: v.file?.path ?? null, line: v.editor.scrolledToForTest } : null;
    },
    theme(name) { document.body.className = `theme-${name}`; },
    /** deferredReviewLeaf adds a review leaf that holds a placeholder view, as Obsidian's DeferredView does for a tab not shown yet. */
    deferredReviewLeaf() {
      class DeferredView extends stub.ItemView {
        getViewType() { return "quire-review"; }
        getDisplayText() { return "Quire review"; }
      }
      const leaf = app.workspace.getRightLeaf(false);
      leaf.view = new DeferredView(leaf);
    },
  };
})();
