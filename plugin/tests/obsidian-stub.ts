// A small stand-in for the `obsidian` module, which exists only inside the
// app. vitest.config.ts aliases `obsidian` to this file. It implements just
// what the plugin calls, with the same names and shapes as obsidian.d.ts, and
// records what was registered so tests can look.

/** installDomHelpers adds the few HTMLElement helpers Obsidian defines globally. */
function installDomHelpers(): void {
  if (typeof HTMLElement === "undefined") return;
  const proto = HTMLElement.prototype as unknown as Record<string, unknown>;
  proto["empty"] ??= function (this: HTMLElement) {
    this.replaceChildren();
  };
  proto["setText"] ??= function (this: HTMLElement, text: string) {
    this.textContent = text;
  };
  proto["addClass"] ??= function (this: HTMLElement, ...cls: string[]) {
    this.classList.add(...cls);
  };
  proto["createDiv"] ??= function (this: HTMLElement, o?: { cls?: string; text?: string }) {
    const el = document.createElement("div");
    if (o?.cls) el.className = o.cls;
    if (o?.text) el.textContent = o.text;
    this.appendChild(el);
    return el;
  };
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

export class App {}

export class Component {
  private cleanups: (() => void)[] = [];
  onload(): void | Promise<void> {}
  onunload(): void {}
  register(cb: () => void): void {
    this.cleanups.push(cb);
  }
  /** unloadForTest runs what Obsidian runs when it disables a plugin. */
  unloadForTest(): void {
    this.onunload();
    for (const cb of this.cleanups.splice(0).reverse()) cb();
  }
}

export class Plugin extends Component {
  settings?: unknown;
  statusBarItems: HTMLElement[] = [];
  settingTabs: PluginSettingTab[] = [];
  data: unknown = null;
  savedData: unknown[] = [];

  constructor(
    public app: App,
    public manifest: PluginManifest,
  ) {
    super();
  }
  addStatusBarItem(): HTMLElement {
    const el = document.createElement("div");
    this.statusBarItems.push(el);
    this.register(() => el.remove());
    return el;
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

export class TextComponent {
  inputEl: HTMLInputElement = document.createElement("input");
  private changeCb: ((value: string) => unknown) | null = null;
  constructor(containerEl: HTMLElement) {
    containerEl.appendChild(this.inputEl);
  }
  setPlaceholder(p: string): this {
    this.inputEl.placeholder = p;
    return this;
  }
  setValue(v: string): this {
    this.inputEl.value = v;
    return this;
  }
  getValue(): string {
    return this.inputEl.value;
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
}

export class Setting {
  settingEl: HTMLElement;
  nameEl: HTMLElement;
  descEl: HTMLElement;
  controlEl: HTMLElement;
  components: TextComponent[] = [];
  constructor(containerEl: HTMLElement) {
    this.settingEl = document.createElement("div");
    this.settingEl.className = "setting-item";
    this.nameEl = document.createElement("div");
    this.nameEl.className = "setting-item-name";
    this.descEl = document.createElement("div");
    this.descEl.className = "setting-item-description";
    this.controlEl = document.createElement("div");
    this.settingEl.append(this.nameEl, this.descEl, this.controlEl);
    containerEl.appendChild(this.settingEl);
    Setting.all.push(this);
  }
  /** all lists every Setting created, newest last, for tests to reach the controls. */
  static all: Setting[] = [];
  setName(name: string): this {
    this.nameEl.textContent = name;
    return this;
  }
  setDesc(desc: string): this {
    this.descEl.textContent = desc;
    return this;
  }
  addText(cb: (text: TextComponent) => unknown): this {
    const t = new TextComponent(this.controlEl);
    this.components.push(t);
    cb(t);
    return this;
  }
}

export class Notice {
  static shown: string[] = [];
  constructor(public message: string) {
    Notice.shown.push(message);
  }
  hide(): void {}
}
