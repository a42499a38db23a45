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
  const fs = {
    constants: { F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1 },
    promises: {
      async readFile(path) {
        const r = await call("harnessFs", { op: "read", path });
        return r.error ? fail(r, path) : r.text;
      },
      async stat(path) {
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
      // What the engine download writes (sidecar/node.ts): bytes go to Node as base64.
      async mkdir(path) {
        const r = await call("harnessFs", { op: "mkdir", path });
        if (r.error) fail(r, path);
      },
      async writeFile(path, data, opts) {
        const r = await call("harnessFs", { op: "writeBytes", path, base64: toBase64(data), mode: opts?.mode });
        if (r.error) fail(r, path);
      },
      async chmod(path, mode) {
        const r = await call("harnessFs", { op: "chmod", path, mode });
        if (r.error) fail(r, path);
      },
      async rename(from, to) {
        const r = await call("harnessFs", { op: "rename", path: from, to });
        if (r.error) fail(r, from);
      },
      async unlink(path) {
        const r = await call("harnessFs", { op: "unlink", path });
        if (r.error) fail(r, path);
      },
      async rmdir(path) {
        const r = await call("harnessFs", { op: "rmdir", path });
        if (r.error) fail(r, path);
      },
      async readdir(path) {
        const r = await call("harnessFs", { op: "readdir", path });
        return r.error ? fail(r, path) : r.names;
      },
    },
  };

  function toBase64(data) {
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    let bin = "";
    for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(bin);
  }

  // Node's http/https get, as the engine download uses it, over the page's
  // fetch (the fake release server allows any origin). fetch follows
  // redirects itself; the unit tests cover the plugin's own redirect code.
  const emit = (hs, ev, ...a) => { for (const f of hs[ev] ?? []) f(...a); };
  const httpGet = (url, opts, cb) => {
    const ctrl = new AbortController();
    const reqH = {};
    const resH = {};
    let destroyed = false;
    const req = {
      on(ev, f) { (reqH[ev] ??= []).push(f); return req; },
      destroy(err) {
        if (destroyed) return;
        destroyed = true;
        ctrl.abort();
        if (err) emit(reqH, "error", err);
        emit(reqH, "close");
      },
    };
    const res = { statusCode: 0, headers: {}, complete: false, on(ev, f) { (resH[ev] ??= []).push(f); return res; }, resume() {}, setEncoding() {} };
    fetch(url, { signal: ctrl.signal, cache: "no-store" }).then(
      async (r) => {
        res.statusCode = r.status;
        res.headers = { location: r.headers.get("location") ?? undefined };
        cb(res);
        if (!r.body) return;
        const reader = r.body.getReader();
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            emit(resH, "data", value);
          }
          res.complete = true;
          emit(resH, "end");
        } catch (err) {
          emit(resH, "error", err);
        }
        emit(resH, "close");
        if (!destroyed) emit(reqH, "close");
      },
      (err) => {
        if (!destroyed) emit(reqH, "error", err);
        emit(reqH, "close");
      },
    );
    return req;
  };
  const http = { get: httpGet };

  // zlib.gunzip over the browser's DecompressionStream.
  const zlib = {
    gunzip(data, cb) {
      new Response(new Blob([data]).stream().pipeThrough(new DecompressionStream("gzip")))
        .arrayBuffer()
        .then((b) => cb(null, new Uint8Array(b)), (err) => cb(err));
    },
  };

  // crypto.createHash("sha256"), in plain JavaScript (SubtleCrypto is async; the plugin's call is not).
  const K = new Uint32Array([
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
  ]);
  function sha256(bytes) {
    const len = bytes.length;
    const padded = new Uint8Array(((len + 9 + 63) >> 6) << 6);
    padded.set(bytes);
    padded[len] = 0x80;
    const dv = new DataView(padded.buffer);
    dv.setUint32(padded.length - 8, Math.floor(len / 0x20000000));
    dv.setUint32(padded.length - 4, (len << 3) >>> 0);
    const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
    const w = new Uint32Array(64);
    const rotr = (x, n) => (x >>> n) | (x << (32 - n));
    for (let off = 0; off < padded.length; off += 64) {
      for (let i = 0; i < 16; i++) w[i] = dv.getUint32(off + i * 4);
      for (let i = 16; i < 64; i++) {
        const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
        const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
        w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
      }
      let [a, b, c, d, e, f, g, hh] = h;
      for (let i = 0; i < 64; i++) {
        const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
        const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
        hh = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
      }
      h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
    }
    return [...h].map((x) => x.toString(16).padStart(8, "0")).join("");
  }
  const crypto = {
    createHash(alg) {
      if (alg !== "sha256") throw new Error(`harness: no hash ${alg}`);
      const parts = [];
      const hash = {
        update(d) { parts.push(d); return hash; },
        digest() {
          const n = parts.reduce((a, p) => a + p.length, 0);
          const all = new Uint8Array(n);
          let at = 0;
          for (const p of parts) { all.set(p, at); at += p.length; }
          return sha256(all);
        },
      };
      return hash;
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
  // the vault folder for the same effect.
  let watchTimer = null;
  const watchVault = (app, basePath) => {
    clearInterval(watchTimer);
    watchTimer = setInterval(async () => {
      const r = await call("harnessFs", { op: "list", path: basePath });
      if (r.error) return;
      for (const [p, text] of Object.entries(r.files)) {
        if (app.vault.files.get(p) !== text) app.vault.writeForTest(p, text);
      }
      for (const p of [...app.vault.files.keys()]) if (!(p in r.files)) app.vault.deleteForTest(p);
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
    http,
    https: http,
    zlib,
    crypto,
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
    async load({ basePath, files, settings, manifest, env, main }) {
      window.process.env = env ?? {};
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
      watchVault(app, basePath);
      // What the plugin writes through the vault reaches the disk, as in the app.
      app.vault.onWriteForTest = (p, text) => void call("harnessFs", { op: "write", path: `${basePath}/${p}`, text });
      plugin = new module.exports.default(app, manifest);
      plugin.data = settings;
      await plugin.onload();
      app.workspace.layoutReadyForTest();
    },
    unload() {
      clearInterval(watchTimer);
      plugin.unloadForTest();
    },
    setClipboard(text) { clipboardText = text; },
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
      return cmd.callback();
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
