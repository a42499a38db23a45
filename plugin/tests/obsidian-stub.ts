// A small stand-in for the `obsidian` module, which exists only inside the
// app. vitest.config.ts aliases `obsidian` to this file, and the browser
// harness bundles it for the page that loads the built main.js. It
// implements just what the plugin calls, with the same names and shapes as
// obsidian.d.ts, and records what was registered so tests can look. Names
// ending in ForTest are the stub's own hooks.

import { StateField } from "@codemirror/state";

type DomInfo = { cls?: string | string[]; text?: string; attr?: Record<string, string | number | boolean> };

/** installDomHelpers adds the few HTMLElement helpers Obsidian defines globally. */
function installDomHelpers(): void {
  if (typeof HTMLElement === "undefined") return;
  const proto = HTMLElement.prototype as unknown as Record<string, unknown>;
  const make = (parent: HTMLElement, tag: string, o?: DomInfo | string) => {
    const el = parent.ownerDocument.createElement(tag);
    const info: DomInfo = typeof o === "string" ? { cls: o } : (o ?? {});
    if (info.cls) el.className = Array.isArray(info.cls) ? info.cls.join(" ") : info.cls;
    if (info.text !== undefined) el.textContent = info.text;
    for (const [k, v] of Object.entries(info.attr ?? {})) el.setAttribute(k, String(v));
    parent.appendChild(el);
    return el;
  };
  proto["empty"] ??= function (this: HTMLElement) {
    this.replaceChildren();
  };
  proto["setText"] ??= function (this: HTMLElement, text: string) {
    this.textContent = text;
  };
  proto["addClass"] ??= function (this: HTMLElement, ...cls: string[]) {
    this.classList.add(...cls);
  };
  proto["removeClass"] ??= function (this: HTMLElement, ...cls: string[]) {
    this.classList.remove(...cls);
  };
  proto["toggleClass"] ??= function (this: HTMLElement, cls: string, on: boolean) {
    this.classList.toggle(cls, on);
  };
  proto["setCssProps"] ??= function (this: HTMLElement, props: Record<string, string>) {
    for (const [k, v] of Object.entries(props)) this.style.setProperty(k, v);
  };
  proto["hasClass"] ??= function (this: HTMLElement, cls: string) {
    return this.classList.contains(cls);
  };
  proto["setAttr"] ??= function (this: HTMLElement, k: string, v: string | number | boolean | null) {
    if (v === null) this.removeAttribute(k);
    else this.setAttribute(k, String(v));
  };
  proto["createEl"] ??= function (this: HTMLElement, tag: string, o?: DomInfo | string) {
    return make(this, tag, o);
  };
  proto["createDiv"] ??= function (this: HTMLElement, o?: DomInfo | string) {
    return make(this, "div", o);
  };
  proto["createSpan"] ??= function (this: HTMLElement, o?: DomInfo | string) {
    return make(this, "span", o);
  };
  // Fragments get the same helpers, and the page the global ones Obsidian defines.
  const frag = DocumentFragment.prototype as unknown as Record<string, unknown>;
  for (const k of ["createEl", "createDiv", "createSpan"]) frag[k] ??= proto[k];
  const g = globalThis as unknown as Record<string, unknown>;
  g["createFragment"] ??= () => document.createDocumentFragment();
  g["createDiv"] ??= (o?: DomInfo | string) => (document.createDocumentFragment() as unknown as HTMLElement).createDiv(o);
}
installDomHelpers();

export interface PluginManifest {
  id: string;
  name: string;
  version: string;
  minAppVersion: string;
  description: string;
  author: string;
  isDesktopOnly?: boolean;
}

export interface EventRef {
  name: string;
  cb: (...args: unknown[]) => unknown;
  owner: Events;
}

export class Events {
  private handlers = new Map<string, Set<EventRef>>();
  on(name: string, cb: (...args: never[]) => unknown): EventRef {
    const ref: EventRef = { name, cb: cb as EventRef["cb"], owner: this };
    let set = this.handlers.get(name);
    if (!set) this.handlers.set(name, (set = new Set()));
    set.add(ref);
    return ref;
  }
  offref(ref: EventRef): void {
    this.handlers.get(ref.name)?.delete(ref);
  }
  trigger(name: string, ...args: unknown[]): void {
    for (const ref of [...(this.handlers.get(name) ?? [])]) ref.cb(...args);
  }
  /** listenerCountForTest counts the handlers of an event, to check that unload removed them. */
  listenerCountForTest(name: string): number {
    return this.handlers.get(name)?.size ?? 0;
  }
}

export class Component {
  private cleanups: (() => void)[] = [];
  private loaded = false;
  onload(): void | Promise<void> {}
  onunload(): void {}
  load(): void {
    if (this.loaded) return;
    this.loaded = true;
    void this.onload();
  }
  unload(): void {
    this.onunload();
    for (const cb of this.cleanups.splice(0).reverse()) cb();
    this.loaded = false;
  }
  register(cb: () => void): void {
    this.cleanups.push(cb);
  }
  registerEvent(ref: EventRef): void {
    this.register(() => ref.owner.offref(ref));
  }
  registerDomEvent(el: HTMLElement | Window | Document, type: string, cb: (evt: never) => unknown, options?: boolean | AddEventListenerOptions): void {
    const h = cb as unknown as EventListener;
    el.addEventListener(type, h, options);
    this.register(() => el.removeEventListener(type, h, options));
  }
  private children: Component[] = [];
  /** addChild loads child with this component (now, if this one is loaded) and unloads it with it. */
  addChild<T extends Component>(child: T): T {
    this.children.push(child);
    if (this.loaded) child.load();
    this.register(() => child.unload());
    return child;
  }
  removeChild<T extends Component>(child: T): T {
    this.children = this.children.filter((c) => c !== child);
    child.unload();
    return child;
  }
  registerInterval(id: number): number {
    this.register(() => clearInterval(id));
    return id;
  }
  /** unloadForTest runs what Obsidian runs when it disables a plugin. */
  unloadForTest(): void {
    this.unload();
  }
}

export abstract class TAbstractFile {
  constructor(
    public path: string,
    public name = path.split("/").at(-1) ?? path,
  ) {}
}

export class TFile extends TAbstractFile {
  /** stat is the file's times and size; the stub's vault sets mtime from the content, so an edit changes it. */
  stat = { ctime: 0, mtime: 0, size: 0 };
  get extension(): string {
    const i = this.name.lastIndexOf(".");
    return i < 0 ? "" : this.name.slice(i + 1);
  }
  get basename(): string {
    const i = this.name.lastIndexOf(".");
    return i < 0 ? this.name : this.name.slice(0, i);
  }
}

export class FileSystemAdapter {
  constructor(private readonly basePath: string) {}
  getBasePath(): string {
    return this.basePath;
  }
}

export class Vault extends Events {
  files = new Map<string, string>();
  constructor(public adapter: FileSystemAdapter = new FileSystemAdapter("")) {
    super();
  }
  getAbstractFileByPath(path: string): TAbstractFile | null {
    const text = this.files.get(path);
    if (text === undefined) return null;
    const f = new TFile(path);
    let h = 0;
    for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) | 0;
    f.stat = { ctime: 0, mtime: h >>> 0, size: text.length };
    return f;
  }
  getMarkdownFiles(): TFile[] {
    return [...this.files.keys()].filter((p) => p.endsWith(".md")).map((p) => new TFile(p));
  }
  async cachedRead(file: TFile): Promise<string> {
    const t = this.files.get(file.path);
    if (t === undefined) throw new Error(`no file ${file.path}`);
    return t;
  }
  async read(file: TFile): Promise<string> {
    return this.cachedRead(file);
  }
  async modify(file: TFile, data: string): Promise<void> {
    if (!this.files.has(file.path)) throw new Error(`no file ${file.path}`);
    this.writeForTest(file.path, data);
    // A write the plugin makes, as processFrontMatter's: the harness copies it to disk.
    this.onWriteForTest?.(file.path, data);
  }
  /** create adds a file the plugin writes, refusing one that exists, as Obsidian does. */
  async create(path: string, data: string): Promise<TFile> {
    if (this.files.has(path)) throw new Error("File already exists.");
    this.writeForTest(path, data);
    this.onWriteForTest?.(path, data);
    return new TFile(path);
  }
  /** createFolder is a no-op: the stub's vault has no folders of its own (the harness's disk copy makes them). */
  async createFolder(_path: string): Promise<void> {}
  /** process replaces a file's text with fn's result in one step, as Obsidian's does. */
  async process(file: TFile, fn: (data: string) => string): Promise<string> {
    const next = fn(await this.read(file));
    await this.modify(file, next);
    return next;
  }
  /** writeForTest adds or changes a file as the sidecar writing into the vault would, firing create or modify. */
  writeForTest(path: string, text: string): void {
    const isNew = !this.files.has(path);
    this.files.set(path, text);
    this.trigger(isNew ? "create" : "modify", new TFile(path));
  }
  /** onWriteForTest is told of every write the plugin makes (the harness copies it to disk). */
  onWriteForTest: ((path: string, text: string) => void) | null = null;
  /** deleteForTest removes a file, firing delete. */
  deleteForTest(path: string): void {
    if (!this.files.delete(path)) return;
    this.trigger("delete", new TFile(path));
  }
}

export abstract class View extends Component {
  app: App;
  containerEl: HTMLElement;
  constructor(public leaf: WorkspaceLeaf) {
    super();
    this.app = leaf.app;
    this.containerEl = leaf.containerEl;
  }
  abstract getViewType(): string;
  abstract getDisplayText(): string;
  getIcon(): string {
    return "";
  }
  async onOpen(): Promise<void> {}
  async onClose(): Promise<void> {}
  getState(): Record<string, unknown> {
    return {};
  }
  async setState(_state: unknown, _result: { history: boolean }): Promise<void> {}
}

export abstract class ItemView extends View {
  contentEl: HTMLElement;
  constructor(leaf: WorkspaceLeaf) {
    super(leaf);
    this.containerEl.empty();
    const header = this.containerEl.createDiv({ cls: "view-header" });
    header.createDiv({ cls: "view-header-title" });
    this.contentEl = this.containerEl.createDiv({ cls: "view-content" });
  }
  /** addAction puts a button in the view's header, as Obsidian does. */
  addAction(icon: string, title: string, cb: (evt: MouseEvent) => unknown): HTMLElement {
    const header = this.containerEl.querySelector(".view-header") as HTMLElement;
    const el = header.createEl("button", { cls: `clickable-icon view-action quire-icon-${icon}`, text: title, attr: { "aria-label": title } });
    el.addEventListener("click", (e) => cb(e));
    return el;
  }
}

/** Editor is the stub's editor: text, a cursor and the line scrolled to. */
export class Editor {
  cursor = { line: 0, ch: 0 };
  scrolledToForTest: number | null = null;
  constructor(
    private text: string,
    private readonly onScroll: (line: number) => void = () => {},
  ) {}
  getValue(): string {
    return this.text;
  }
  setValue(t: string): void {
    this.text = t;
  }
  setCursor(pos: { line: number; ch: number }): void {
    this.cursor = pos;
  }
  getCursor(which?: "from" | "to" | "head" | "anchor"): { line: number; ch: number } {
    if (this.selectionForTest && (which === "from" || which === "to")) return this.selectionForTest[which];
    return this.cursor;
  }
  /** selectionForTest is the selected range, from before to; null when nothing is selected. */
  selectionForTest: { from: { line: number; ch: number }; to: { line: number; ch: number } } | null = null;
  /** setSelection selects from anchor to head, as the editor's does. */
  setSelection(anchor: { line: number; ch: number }, head?: { line: number; ch: number }): void {
    const h = head ?? anchor;
    const [from, to] = this.posToOffset(anchor) <= this.posToOffset(h) ? [anchor, h] : [h, anchor];
    this.selectionForTest = this.posToOffset(from) === this.posToOffset(to) ? null : { from, to };
    this.cursor = h;
  }
  getSelection(): string {
    const s = this.selectionForTest;
    return s ? this.text.slice(this.posToOffset(s.from), this.posToOffset(s.to)) : "";
  }
  /** posToOffset is a position's offset in the text, in UTF-16 units, as CodeMirror counts. */
  posToOffset(pos: { line: number; ch: number }): number {
    const lines = this.text.split("\n");
    let off = 0;
    for (let i = 0; i < Math.min(pos.line, lines.length); i++) off += lines[i]!.length + 1;
    return off + pos.ch;
  }
  scrollIntoView(range: { from: { line: number; ch: number } }, _center?: boolean): void {
    this.scrolledToForTest = range.from.line;
    this.onScroll(range.from.line);
  }
  /** onEditForTest is told when the text changes through the editor (the view redraws). */
  onEditForTest: (() => void) | null = null;
  replaceSelection(replacement: string): void {
    const lines = this.text.split("\n");
    const line = lines[this.cursor.line] ?? "";
    lines[this.cursor.line] = line.slice(0, this.cursor.ch) + replacement + line.slice(this.cursor.ch);
    this.text = lines.join("\n");
    this.cursor = { line: this.cursor.line, ch: this.cursor.ch + replacement.length };
    this.onEditForTest?.();
  }
}

export class MarkdownView extends ItemView {
  file: TFile | null = null;
  editor: Editor = new Editor("");
  getViewType(): string {
    return "markdown";
  }
  getDisplayText(): string {
    return this.file?.basename ?? "";
  }
  /** showForTest draws the note as lines, so that a screenshot shows where it scrolled. */
  showForTest(file: TFile, text: string): void {
    this.file = file;
    this.contentEl.empty();
    this.contentEl.addClass("markdown-source-view");
    let lines: HTMLElement[] = [];
    const draw = (t: string) => {
      this.contentEl.empty();
      lines = t.split("\n").map((l) => this.contentEl.createDiv({ cls: "cm-line", text: l || "\u200b" }));
    };
    draw(text);
    this.editor = new Editor(text, (line) => {
      for (const l of lines) l.removeClass("is-target");
      const target = lines[line];
      target?.addClass("is-target");
      target?.scrollIntoView({ block: "start" });
    });
    const editor = this.editor;
    editor.onEditForTest = () => {
      draw(editor.getValue());
      lines[editor.cursor.line]?.addClass("is-target");
    };
    (this.containerEl.querySelector(".view-header-title") as HTMLElement | null)?.setText(file.basename);
  }
  /** typeForTest replaces the text as typing would and fires editor-change. */
  typeForTest(text: string): void {
    this.editor.setValue(text);
    this.app.workspace.trigger("editor-change", this.editor, this);
  }
}

export class WorkspaceLeaf {
  view: View | null = null;
  containerEl: HTMLElement;
  openStateForTest: unknown = null;
  constructor(
    public app: App,
    parent: HTMLElement,
  ) {
    this.containerEl = parent.createDiv({ cls: "workspace-leaf" });
  }
  async setViewState(state: { type: string; active?: boolean; state?: Record<string, unknown> }): Promise<void> {
    const factory = this.app.viewRegistryForTest.get(state.type);
    if (!factory) throw new Error(`no view ${state.type}`);
    await this.replaceView(factory(this));
    // As Obsidian does when it restores a layout: the view's saved state comes after it opened.
    if (state.state) await this.view!.setState(state.state, { history: false });
  }
  async openFile(file: TFile, openState?: unknown): Promise<void> {
    const text = await this.app.vault.cachedRead(file);
    const view = new MarkdownView(this);
    view.showForTest(file, text);
    await this.replaceView(view);
    this.openStateForTest = openState ?? null;
    this.app.workspace.activeFileForTest = file;
    this.app.workspace.trigger("file-open", file);
    this.app.workspace.trigger("active-leaf-change", this);
  }
  /** showPDFForTest stands for Obsidian's PDF viewer: the file and the subpath it was opened at ("#page=3"). */
  async showPDFForTest(path: string, subpath: string): Promise<void> {
    if (this.view) {
      await this.view.onClose();
      this.view.unload();
      this.view = null;
    }
    this.containerEl.querySelector(".pdf-viewer-for-test")?.remove();
    const v = this.containerEl.createDiv({ cls: "pdf-viewer-for-test", attr: { "data-path": path, "data-subpath": subpath } });
    v.createDiv({ cls: "pdf-toolbar", text: `${path.split("/").at(-1)} — ${subpath.replace(/^#page=/, "page ")}` });
    this.openStateForTest = { subpath };
    this.app.workspace.activeFileForTest = new TFile(path);
    this.app.workspace.trigger("file-open", this.app.workspace.activeFileForTest);
  }
  detach(): void {
    if (this.view) {
      void this.view.onClose();
      this.view.unload();
    }
    this.view = null;
    this.containerEl.remove();
    this.app.workspace.leavesForTest = this.app.workspace.leavesForTest.filter((l) => l !== this);
  }
  getViewState(): { type: string; state: Record<string, unknown> } {
    return { type: this.view?.getViewType() ?? "empty", state: this.view?.getState() ?? {} };
  }
  private async replaceView(view: View): Promise<void> {
    if (this.view) {
      await this.view.onClose();
      this.view.unload();
    }
    this.view = view;
    (this.containerEl.querySelector(".view-header-title") as HTMLElement | null)?.setText(view.getDisplayText());
    view.load();
    await view.onOpen();
  }
}

export class Workspace extends Events {
  containerEl: HTMLElement;
  rootEl: HTMLElement;
  rightEl: HTMLElement;
  leavesForTest: WorkspaceLeaf[] = [];
  activeFileForTest: TFile | null = null;
  private mainLeaf: WorkspaceLeaf | null = null;
  private readyCbs: (() => void)[] = [];
  private ready = false;
  constructor(public app: App) {
    super();
    this.containerEl = document.createElement("div");
    this.containerEl.className = "workspace";
    this.rootEl = this.containerEl.createDiv({ cls: "workspace-split mod-root" });
    this.rightEl = this.containerEl.createDiv({ cls: "workspace-split mod-right-split" });
  }
  getActiveFile(): TFile | null {
    return this.activeFileForTest;
  }
  /** layoutSavesForTest counts requestSaveLayout calls (Obsidian debounces them and writes the layout). */
  layoutSavesForTest = 0;
  async requestSaveLayout(): Promise<void> {
    this.layoutSavesForTest++;
  }
  getLeaf(_newLeaf?: boolean | string): WorkspaceLeaf {
    if (!this.mainLeaf || _newLeaf) {
      const leaf = new WorkspaceLeaf(this.app, this.rootEl);
      this.leavesForTest.push(leaf);
      if (!this.mainLeaf) this.mainLeaf = leaf;
      return leaf;
    }
    return this.mainLeaf;
  }
  /** linksOpenedForTest lists the links openLinkText followed, as written ("Docs/manual.pdf#page=3"). */
  linksOpenedForTest: string[] = [];
  /** openLinkText opens a vault path with its subpath; the stub draws a PDF as showPDFForTest and any other file in a MarkdownView. */
  async openLinkText(linktext: string, _sourcePath: string, newLeaf?: boolean | string): Promise<void> {
    this.linksOpenedForTest.push(linktext);
    const i = linktext.indexOf("#");
    const path = i < 0 ? linktext : linktext.slice(0, i);
    const leaf = this.getLeaf(newLeaf);
    if (/\.pdf$/i.test(path)) await leaf.showPDFForTest(path, i < 0 ? "" : linktext.slice(i));
    else await leaf.openFile(new TFile(path));
  }
  getRightLeaf(_split: boolean): WorkspaceLeaf | null {
    const leaf = new WorkspaceLeaf(this.app, this.rightEl);
    this.leavesForTest.push(leaf);
    return leaf;
  }
  getLeavesOfType(type: string): WorkspaceLeaf[] {
    return this.leavesForTest.filter((l) => l.view?.getViewType() === type);
  }
  detachLeavesOfType(type: string): void {
    for (const l of this.getLeavesOfType(type)) l.detach();
  }
  async revealLeaf(_leaf: WorkspaceLeaf): Promise<void> {}
  /** rootSplit stands for the main area; getMostRecentLeaf gives its leaf. */
  rootSplit = {};
  getMostRecentLeaf(_root?: unknown): WorkspaceLeaf | null {
    return this.mainLeaf;
  }
  getActiveViewOfType<T>(type: abstract new (...args: never[]) => T): T | null {
    const v = this.mainLeaf?.view;
    return v instanceof type ? v : null;
  }
  onLayoutReady(cb: () => void): void {
    if (this.ready) cb();
    else this.readyCbs.push(cb);
  }
  /** layoutReadyForTest runs the onLayoutReady callbacks, as the app does once it has drawn. */
  layoutReadyForTest(): void {
    this.ready = true;
    for (const cb of this.readyCbs.splice(0)) cb();
  }
  /** openForTest opens a vault file in the main leaf, as clicking it in the file list would. */
  async openForTest(path: string): Promise<MarkdownView> {
    const leaf = this.getLeaf(false);
    await leaf.openFile(new TFile(path));
    return leaf.view as MarkdownView;
  }
}

/**
 * parseFrontmatterForTest reads the YAML subset the sidecar writes in
 * frontmatter: scalars, lists of scalars and lists of maps of scalars
 * or lists of scalars.
 */
export function parseFrontmatterForTest(text: string): Record<string, unknown> | null {
  const m = /^---\n([\s\S]*?)\n---(?:\n|$)/.exec(text);
  if (!m) return null;
  const scalar = (raw: string): unknown => {
    const v = raw.trim();
    if (v === "") return null;
    if (v.startsWith('"')) return JSON.parse(v) as unknown;
    if (v.startsWith("'")) return v.slice(1, -1).replace(/''/g, "'");
    if (v === "true" || v === "false") return v === "true";
    if (v === "[]") return [];
    // A flow sequence of plain scalars ("tags: [baking, log]"), as YAML reads it.
    if (v.startsWith("[") && v.endsWith("]")) return v.slice(1, -1).split(",").map((x) => scalar(x));
    if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v);
    return v;
  };
  const out: Record<string, unknown> = {};
  let list: unknown[] | null = null;
  let item: Record<string, unknown> | null = null;
  // A map's key with no value on its line holds a list below it, indented
  // deeper than the map's own "- ".
  let nested: unknown[] | null = null;
  let itemIndent = 0;
  for (const line of m[1]!.split("\n")) {
    const indent = line.length - line.trimStart().length;
    const deeper = /^\s*- (.*)$/.exec(line);
    if (nested && deeper && indent > itemIndent) {
      nested.push(scalar(deeper[1]!));
      continue;
    }
    nested = null;
    const top = /^([\w-]+):(.*)$/.exec(line);
    if (top) {
      const v = top[2]!.trim();
      if (v === "") {
        list = [];
        out[top[1]!] = list;
      } else {
        out[top[1]!] = scalar(v);
        list = null;
      }
      item = null;
      continue;
    }
    const li = /^\s*- (?:([\w-]+):(.*)|(.*))$/.exec(line);
    if (li && list) {
      if (li[1] !== undefined) {
        item = { [li[1]]: scalar(li[2]!) };
        itemIndent = indent;
        list.push(item);
      } else {
        list.push(scalar(li[3]!));
        item = null;
      }
      continue;
    }
    const kv = /^\s+([\w-]+):(.*)$/.exec(line);
    if (kv && item) {
      if (kv[2]!.trim() === "") {
        nested = [];
        item[kv[1]!] = nested;
      } else item[kv[1]!] = scalar(kv[2]!);
    }
  }
  return out;
}

export class MetadataCache extends Events {
  constructor(private readonly vault: Vault) {
    super();
  }
  /** resolvedLinks maps a note to the notes its [[links]] resolve to (read from the stub vault's text, by name or path). */
  get resolvedLinks(): Record<string, Record<string, number>> {
    const out: Record<string, Record<string, number>> = {};
    for (const [path, text] of this.vault.files) {
      const links: Record<string, number> = {};
      for (const m of text.matchAll(/\[\[([^\]|#]+)/g)) {
        const name = m[1]!.trim();
        const target = [...this.vault.files.keys()].find((p) => p === `${name}.md` || p.endsWith(`/${name}.md`));
        if (target) links[target] = (links[target] ?? 0) + 1;
      }
      out[path] = links;
    }
    return out;
  }
  getFileCache(file: TFile): { frontmatter?: Record<string, unknown>; tags?: { tag: string }[] } | null {
    const text = this.vault.files.get(file.path);
    if (text === undefined) return null;
    const fm = parseFrontmatterForTest(text);
    const body = fm ? text.replace(/^---\n[\s\S]*?\n---\n?/, "") : text;
    const tags = [...body.matchAll(/(?:^|\s)(#[\p{L}\p{N}_/-]+)/gu)].map((m) => ({ tag: m[1]! }));
    return { ...(fm ? { frontmatter: fm } : {}), ...(tags.length ? { tags } : {}) };
  }
  /** fileToLinktext is the note's name when no other note shares it, else its path, without .md. */
  fileToLinktext(file: TFile, _sourcePath: string, omitMdExtension = true): string {
    const same = [...this.vault.files.keys()].filter((p) => p.split("/").at(-1) === file.path.split("/").at(-1));
    const t = same.length > 1 ? file.path : (file.path.split("/").at(-1) ?? file.path);
    return omitMdExtension ? t.replace(/\.md$/, "") : t;
  }
}

/** FileManager is the stub's: processFrontMatter rewrites the scalar keys fn changed or added. */
export class FileManager {
  constructor(private readonly vault: Vault) {}
  async processFrontMatter(file: TFile, fn: (fm: Record<string, unknown>) => void): Promise<void> {
    const text = await this.vault.cachedRead(file);
    const before = parseFrontmatterForTest(text) ?? {};
    const after: Record<string, unknown> = structuredClone(before);
    fn(after);
    const m = /^---\n([\s\S]*?)\n---\n?/.exec(text);
    let lines = m ? m[1]!.split("\n") : [];
    for (const [k, v] of Object.entries(after)) {
      if (before[k] === v || (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean")) continue;
      const line = `${k}: ${String(v)}`;
      const i = lines.findIndex((l) => l.startsWith(`${k}:`));
      if (i >= 0) lines[i] = line;
      else lines = [...lines, line];
    }
    const out = `---\n${lines.join("\n")}\n---\n${m ? text.slice(m[0].length) : text}`;
    this.vault.writeForTest(file.path, out);
    this.vault.onWriteForTest?.(file.path, out);
  }
}

export class App {
  fileManager: FileManager;
  vault: Vault;
  workspace: Workspace;
  metadataCache: MetadataCache;
  containerEl: HTMLElement;
  statusBarEl: HTMLElement;
  viewRegistryForTest = new Map<string, (leaf: WorkspaceLeaf) => View>();
  constructor(opts: { basePath?: string; files?: Record<string, string> } = {}) {
    this.vault = new Vault(new FileSystemAdapter(opts.basePath ?? ""));
    for (const [p, t] of Object.entries(opts.files ?? {})) this.vault.files.set(p, t);
    this.workspace = new Workspace(this);
    this.metadataCache = new MetadataCache(this.vault);
    this.fileManager = new FileManager(this.vault);
    this.containerEl = document.createElement("div");
    this.containerEl.className = "app-container";
    this.containerEl.appendChild(this.workspace.containerEl);
    this.statusBarEl = this.containerEl.createDiv({ cls: "status-bar" });
  }
}

export interface Command {
  id: string;
  name: string;
  callback?: () => unknown;
  checkCallback?: (checking: boolean) => boolean | void;
}

export class Plugin extends Component {
  /**
   * loadedForTest holds the plugins that registered work and were not
   * unloaded yet: tests/setup.ts fails a test that leaves one behind, since
   * its timers and file reads would outlive the test (and its DOM).
   */
  static loadedForTest = new Set<Plugin>();
  settings?: unknown;
  statusBarItems: HTMLElement[] = [];
  settingTabs: PluginSettingTab[] = [];
  commands: Command[] = [];
  ribbonIcons: HTMLElement[] = [];
  data: unknown = null;
  savedData: unknown[] = [];

  constructor(
    public app: App,
    public manifest: PluginManifest,
  ) {
    super();
  }
  override register(cb: () => void): void {
    Plugin.loadedForTest.add(this);
    super.register(cb);
  }
  override unload(): void {
    super.unload();
    Plugin.loadedForTest.delete(this);
  }
  addStatusBarItem(): HTMLElement {
    const el = this.app.statusBarEl.createDiv({ cls: "status-bar-item" });
    this.statusBarItems.push(el);
    this.register(() => {
      el.remove();
      this.statusBarItems.splice(this.statusBarItems.indexOf(el), 1);
    });
    return el;
  }
  addRibbonIcon(icon: string, title: string, cb: (evt: MouseEvent) => unknown): HTMLElement {
    const el = document.createElement("div");
    el.setAttribute("aria-label", title);
    el.dataset.icon = icon;
    el.addEventListener("click", (e) => cb(e));
    this.ribbonIcons.push(el);
    this.register(() => el.remove());
    return el;
  }
  addCommand(cmd: Command): Command {
    this.commands.push(cmd);
    this.register(() => this.commands.splice(this.commands.indexOf(cmd), 1));
    return cmd;
  }
  registerView(type: string, factory: (leaf: WorkspaceLeaf) => View): void {
    this.app.viewRegistryForTest.set(type, factory);
    this.register(() => {
      this.app.workspace.detachLeavesOfType(type);
      this.app.viewRegistryForTest.delete(type);
    });
  }
  editorExtensionsForTest: unknown[] = [];
  registerEditorExtension(ext: unknown): void {
    this.editorExtensionsForTest.push(ext);
    this.register(() => this.editorExtensionsForTest.splice(this.editorExtensionsForTest.indexOf(ext), 1));
  }
  postProcessorsForTest: MarkdownPostProcessor[] = [];
  hoverLinkSourcesForTest = new Map<string, { display: string; defaultMod: boolean }>();
  registerHoverLinkSource(id: string, info: { display: string; defaultMod: boolean }): void {
    this.hoverLinkSourcesForTest.set(id, info);
  }
  registerMarkdownPostProcessor(pp: MarkdownPostProcessor): MarkdownPostProcessor {
    this.postProcessorsForTest.push(pp);
    this.register(() => this.postProcessorsForTest.splice(this.postProcessorsForTest.indexOf(pp), 1));
    return pp;
  }
  /**
   * renderForTest draws a note as the reading view would (the stub's
   * Markdown, frontmatter parsed by the caller) and runs the post processors.
   */
  async renderForTest(path: string, body: string, frontmatter: unknown, el: HTMLElement): Promise<MarkdownRenderChild[]> {
    const children: MarkdownRenderChild[] = [];
    renderMarkdownForTest(body, el);
    const ctx: MarkdownPostProcessorContext = {
      docId: path,
      sourcePath: path,
      frontmatter,
      addChild: (c) => {
        children.push(c);
        c.load();
      },
      getSectionInfo: () => null,
    };
    for (const pp of this.postProcessorsForTest) await pp(el, ctx);
    return children;
  }
  addSettingTab(tab: PluginSettingTab): void {
    this.settingTabs.push(tab);
    this.register(() => this.settingTabs.splice(this.settingTabs.indexOf(tab), 1));
  }
  async loadData(): Promise<unknown> {
    return this.data;
  }
  async saveData(data: unknown): Promise<void> {
    this.savedData.push(structuredClone(data));
  }
}

export abstract class PluginSettingTab {
  containerEl: HTMLElement = document.createElement("div");
  constructor(
    public app: App,
    public plugin: Plugin,
  ) {}
  abstract display(): void;
  hide(): void {}
}

/** ValueComponent is what the stub's text, text area and dropdown share. */
abstract class ValueComponent<E extends HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement> {
  private changeCb: ((value: string) => unknown) | null = null;
  disabledForTest = false;
  constructor(readonly inputEl: E) {
    // As in Obsidian: a text field's onChange fires on every keystroke (input), a dropdown's on change.
    inputEl.addEventListener(inputEl.tagName === "SELECT" ? "change" : "input", () => void this.changeCb?.(inputEl.value));
  }
  setValue(v: string): this {
    this.inputEl.value = v;
    return this;
  }
  getValue(): string {
    return this.inputEl.value;
  }
  setDisabled(disabled: boolean): this {
    this.disabledForTest = disabled;
    this.inputEl.disabled = disabled;
    return this;
  }
  onChange(cb: (value: string) => unknown): this {
    this.changeCb = cb;
    return this;
  }
  /** typeForTest sets the value as a user would and fires onChange. */
  async typeForTest(v: string): Promise<void> {
    this.inputEl.value = v;
    await this.changeCb?.(v);
  }
  /** commitForTest types v and leaves the field (blur), as a user moving on would. */
  async commitForTest(v: string): Promise<void> {
    await this.typeForTest(v);
    this.inputEl.dispatchEvent(new Event("blur"));
    await new Promise((r) => setTimeout(r, 0));
  }
}

export class TextComponent extends ValueComponent<HTMLInputElement> {
  constructor(containerEl: HTMLElement) {
    super(containerEl.createEl("input"));
  }
  setPlaceholder(p: string): this {
    this.inputEl.placeholder = p;
    return this;
  }
}

export class TextAreaComponent extends ValueComponent<HTMLTextAreaElement> {
  constructor(containerEl: HTMLElement) {
    super(containerEl.createEl("textarea"));
  }
  setPlaceholder(p: string): this {
    this.inputEl.placeholder = p;
    return this;
  }
}

export class DropdownComponent extends ValueComponent<HTMLSelectElement> {
  selectEl: HTMLSelectElement;
  constructor(containerEl: HTMLElement) {
    super(containerEl.createEl("select"));
    this.selectEl = this.inputEl;
  }
  addOption(value: string, display: string): this {
    const o = this.selectEl.createEl("option", { text: display });
    o.value = value;
    return this;
  }
  addOptions(options: Record<string, string>): this {
    for (const [v, d] of Object.entries(options)) this.addOption(v, d);
    return this;
  }
}

export class ButtonComponent {
  buttonEl: HTMLButtonElement;
  private clickCb: ((evt: MouseEvent) => unknown) | null = null;
  constructor(containerEl: HTMLElement) {
    this.buttonEl = containerEl.createEl("button");
    this.buttonEl.addEventListener("click", (evt) => void this.clickCb?.(evt));
  }
  setButtonText(t: string): this {
    this.buttonEl.textContent = t;
    return this;
  }
  setCta(): this {
    this.buttonEl.addClass("mod-cta");
    return this;
  }
  setDisabled(d: boolean): this {
    this.buttonEl.disabled = d;
    return this;
  }
  onClick(cb: (evt: MouseEvent) => unknown): this {
    this.clickCb = cb;
    return this;
  }
  /** clickForTest clicks as a user would and waits for the handler. */
  async clickForTest(): Promise<void> {
    await this.clickCb?.(new MouseEvent("click"));
  }
}

type AnyComponent = TextComponent | TextAreaComponent | DropdownComponent | ButtonComponent;

export class Setting {
  settingEl: HTMLElement;
  infoEl: HTMLElement;
  nameEl: HTMLElement;
  descEl: HTMLElement;
  controlEl: HTMLElement;
  components: AnyComponent[] = [];
  constructor(containerEl: HTMLElement) {
    this.settingEl = containerEl.createDiv({ cls: "setting-item" });
    this.infoEl = this.settingEl.createDiv({ cls: "setting-item-info" });
    this.nameEl = this.infoEl.createDiv({ cls: "setting-item-name" });
    this.descEl = this.infoEl.createDiv({ cls: "setting-item-description" });
    this.controlEl = this.settingEl.createDiv({ cls: "setting-item-control" });
    Setting.all.push(this);
  }
  /** all lists every Setting created, newest last, for tests to reach the controls. */
  static all: Setting[] = [];
  /** namedForTest finds the newest setting with this name. */
  static namedForTest(name: string): Setting {
    const s = [...Setting.all].reverse().find((x) => x.nameEl.textContent === name);
    if (!s) throw new Error(`no setting named ${name}`);
    return s;
  }
  setName(name: string): this {
    this.nameEl.textContent = name;
    return this;
  }
  setDesc(desc: string | DocumentFragment): this {
    if (typeof desc === "string") this.descEl.textContent = desc;
    else this.descEl.replaceChildren(desc);
    return this;
  }
  setHeading(): this {
    this.settingEl.addClass("setting-item-heading");
    return this;
  }
  setClass(cls: string): this {
    this.settingEl.addClass(cls);
    return this;
  }
  addText(cb: (text: TextComponent) => unknown): this {
    return this.add(new TextComponent(this.controlEl), cb);
  }
  addTextArea(cb: (text: TextAreaComponent) => unknown): this {
    return this.add(new TextAreaComponent(this.controlEl), cb);
  }
  addDropdown(cb: (d: DropdownComponent) => unknown): this {
    return this.add(new DropdownComponent(this.controlEl), cb);
  }
  addButton(cb: (b: ButtonComponent) => unknown): this {
    return this.add(new ButtonComponent(this.controlEl), cb);
  }
  private add<C extends AnyComponent>(c: C, cb: (c: C) => unknown): this {
    this.components.push(c);
    cb(c);
    return this;
  }
}

export class Modal {
  containerEl: HTMLElement;
  modalEl: HTMLElement;
  titleEl: HTMLElement;
  contentEl: HTMLElement;
  /** open lists the modals open now, for tests and the harness. */
  static openForTest: Modal[] = [];
  constructor(public app: App) {
    this.containerEl = document.createElement("div");
    this.containerEl.className = "modal-container";
    this.modalEl = this.containerEl.createDiv({ cls: "modal" });
    this.titleEl = this.modalEl.createDiv({ cls: "modal-title" });
    this.contentEl = this.modalEl.createDiv({ cls: "modal-content" });
  }
  open(): void {
    document.body.appendChild(this.containerEl);
    Modal.openForTest.push(this);
    this.onOpen();
  }
  close(): void {
    this.onClose();
    this.containerEl.remove();
    Modal.openForTest = Modal.openForTest.filter((m) => m !== this);
  }
  onOpen(): void {}
  onClose(): void {}
}

export class Notice {
  /** shown lists the text of every notice made, oldest first. */
  static shown: string[] = [];
  /** liveForTest lists the notices not hidden yet. */
  static liveForTest: Notice[] = [];
  noticeEl: HTMLElement;
  messageEl: HTMLElement;
  containerEl: HTMLElement;
  hiddenForTest = false;
  constructor(message: string | DocumentFragment, _timeout?: number) {
    this.containerEl = document.createElement("div");
    this.containerEl.className = "notice";
    this.messageEl = this.noticeEl = this.containerEl;
    this.fill(message);
    Notice.shown.push(this.message);
    Notice.liveForTest.push(this);
    if (Notice.hostForTest) {
      Notice.hostForTest.appendChild(this.containerEl);
      // On the harness page notices go away as in the app; unit tests keep them to look at.
      const ms = _timeout ?? 5000;
      if (ms > 0) setTimeout(() => this.hide(), ms);
    }
  }
  /** hostForTest is where notices are drawn (the harness page sets it); none in unit tests. */
  static hostForTest: HTMLElement | null = null;
  /** message is the notice's text now. */
  get message(): string {
    return this.messageEl.textContent ?? "";
  }
  setMessage(message: string | DocumentFragment): this {
    this.fill(message);
    Notice.shown.push(this.message);
    return this;
  }
  hide(): void {
    this.hiddenForTest = true;
    this.containerEl.remove();
    Notice.liveForTest = Notice.liveForTest.filter((n) => n !== this);
  }
  private fill(message: string | DocumentFragment): void {
    if (typeof message === "string") this.messageEl.textContent = message;
    else this.messageEl.replaceChildren(message);
  }
}

/** renderMarkdownForTest is the stub's small Markdown renderer: paragraphs, headings, lists, quotes, emphasis, code and wiki links. */
function renderMarkdownForTest(markdown: string, el: HTMLElement): void {
  const doc = el.ownerDocument;
  const inline = (parent: HTMLElement, text: string) => {
    const re = /(\*\*[^*]+\*\*|\*[^*]+\*|`[^`]+`|\[\[[^\]]+\]\]|!?\[[^\]]*\]\([^)\s]+\))/g;
    let last = 0;
    for (const m of text.matchAll(re)) {
      if (m.index > last) parent.appendChild(doc.createTextNode(text.slice(last, m.index)));
      const t = m[0];
      if (t.startsWith("**")) parent.createEl("strong", { text: t.slice(2, -2) });
      else if (t.startsWith("`")) parent.createEl("code", { text: t.slice(1, -1) });
      else if (/^!?\[[^\]]*\]\(/.test(t)) {
        // A Markdown image or link, drawn as Obsidian draws one: an external link, or an <img> that loads its address.
        const [, bang, label, url] = /^(!?)\[([^\]]*)\]\(([^)\s]+)\)$/.exec(t)!;
        if (bang) parent.createEl("img", { attr: { src: url!, alt: label! } });
        else parent.createEl("a", { cls: "external-link", text: label!, attr: { href: url! } });
      } else if (t.startsWith("[[")) {
        const [target, alias] = t.slice(2, -2).split("|");
        const a = parent.createEl("a", { cls: "internal-link", text: alias ?? target ?? "" });
        a.setAttribute("data-href", target ?? "");
      } else parent.createEl("em", { text: t.slice(1, -1) });
      last = m.index + t.length;
    }
    if (last < text.length) parent.appendChild(doc.createTextNode(text.slice(last)));
  };
  for (const block of markdown.replace(/\r\n/g, "\n").split(/\n{2,}/)) {
    const lines = block.split("\n").filter((l) => l.trim() !== "");
    // Runs of quoted and plain lines in one block become a quote and a paragraph each.
    const runs: string[][] = [];
    for (const l of lines) {
      const last = runs.at(-1);
      if (last && /^>/.test(last[0]!) === /^>/.test(l)) last.push(l);
      else runs.push([l]);
    }
    for (const run of runs) renderRun(run);
  }
  function renderRun(lines: string[]): void {
    const h = /^(#{1,6})\s+(.*)$/.exec(lines[0]!);
    if (h && lines.length === 1) {
      inline(el.createEl(`h${h[1]!.length}` as "h1"), h[2]!);
    } else if (lines.every((l) => /^\s*[-*+]\s/.test(l))) {
      const ul = el.createEl("ul");
      for (const l of lines) inline(ul.createEl("li"), l.replace(/^\s*[-*+]\s/, ""));
    } else if (lines.every((l) => /^>/.test(l)) && /^>\s*\[!\w+\]/.test(lines[0]!)) {
      // A callout, drawn as Obsidian draws one.
      const [, type, title] = /^>\s*\[!(\w+)\][+-]?\s*(.*)$/.exec(lines[0]!)!;
      const c = el.createDiv({ cls: "callout" });
      c.setAttribute("data-callout", type!.toLowerCase());
      c.createDiv({ cls: "callout-title" }).createDiv({ cls: "callout-title-inner", text: title || type! });
      renderMarkdownForTest(lines.slice(1).map((l) => l.replace(/^>\s?/, "")).join("\n"), c.createDiv({ cls: "callout-content" }));
    } else if (lines.every((l) => /^>/.test(l))) {
      const q = el.createEl("blockquote");
      renderMarkdownForTest(lines.map((l) => l.replace(/^>\s?/, "")).join("\n"), q);
    } else {
      const p = el.createEl("p");
      lines.forEach((l, i) => {
        if (i > 0) p.appendChild(doc.createElement("br"));
        inline(p, l);
      });
    }
  }
}

/** editorInfoField tells an editor extension which file the editor shows, as Obsidian's does. */
export const editorInfoField = StateField.define<{ file: TFile | null }>({
  create: () => ({ file: null }),
  update: (v) => v,
});

export class MarkdownRenderChild extends Component {
  constructor(public containerEl: HTMLElement) {
    super();
  }
}

export class MarkdownRenderer {
  /** renderedForTest counts render calls, so tests can check that streaming stays cheap. */
  static renderedForTest = 0;
  static async render(_app: App, markdown: string, el: HTMLElement, _sourcePath: string, _component: Component): Promise<void> {
    MarkdownRenderer.renderedForTest++;
    renderMarkdownForTest(markdown, el);
  }
}

export interface MarkdownPostProcessorContext {
  docId: string;
  sourcePath: string;
  frontmatter: unknown;
  addChild(child: MarkdownRenderChild): void;
  getSectionInfo(el: HTMLElement): null;
}

export type MarkdownPostProcessor = (el: HTMLElement, ctx: MarkdownPostProcessorContext) => Promise<unknown> | void;

export class Keymap {
  static isModEvent(evt?: { ctrlKey?: boolean; metaKey?: boolean } | null): boolean {
    return !!(evt?.ctrlKey || evt?.metaKey);
  }
}

export function setIcon(_el: HTMLElement, _icon: string): void {}

/** getAllTags lists a note's tags with "#": the frontmatter's, then the inline ones. */
export function getAllTags(cache: { frontmatter?: Record<string, unknown>; tags?: { tag: string }[] }): string[] | null {
  const fm = cache.frontmatter?.["tags"];
  const fromFm = (Array.isArray(fm) ? fm : typeof fm === "string" ? fm.split(/[,\s]+/) : []).filter((t): t is string => typeof t === "string" && t !== "").map((t) => `#${t.replace(/^#/, "")}`);
  return [...fromFm, ...(cache.tags ?? []).map((t) => t.tag)];
}

/** normalizePath cleans a vault path as Obsidian's does: forward slashes, no doubled or outer slashes. */
export function normalizePath(path: string): string {
  const p = path.replace(/[\\/]+/g, "/").replace(/^\/+|\/+$/g, "").replace(/\u00a0|\u202f/g, " ");
  return p === "" ? "/" : p.normalize("NFC");
}
