import { type App, type Plugin, PluginSettingTab, Setting } from "obsidian";
import type { ConfigResult, Settings } from "../../proto/proto.gen";
import { configErrorText, parseIgnore } from "./config";

/** QuireSettings is what the plugin stores in its data.json. */
export interface QuireSettings {
  /** binaryPath is the `quire` executable to start when no sidecar runs. */
  binaryPath: string;
  /** stateFolder is where the sidecar keeps its index; empty means `<vault>/.quire`. */
  stateFolder: string;
  /**
   * apiKey is the model server's key. It stays in the plugin's data and
   * goes only to the sidecar (config.set), which keeps it in memory.
   */
  apiKey: string;
}

/** DEFAULT_SETTINGS fills in what data.json lacks. */
export const DEFAULT_SETTINGS: Readonly<QuireSettings> = {
  binaryPath: "",
  stateFolder: "",
  apiKey: "",
};

/**
 * mergeSettings reads stored data over the defaults, keeping only known keys
 * of the right type so that a hand-edited or older data.json cannot break
 * the plugin.
 */
export function mergeSettings(stored: unknown): QuireSettings {
  const out: QuireSettings = { ...DEFAULT_SETTINGS };
  if (typeof stored !== "object" || stored === null) return out;
  const rec = stored as Record<string, unknown>;
  for (const key of Object.keys(DEFAULT_SETTINGS) as (keyof QuireSettings)[]) {
    const v = rec[key];
    if (typeof v === "string") out[key] = v;
  }
  return out;
}

/** SettingsStore is the narrow view of the plugin that the settings tab needs. */
export interface SettingsStore {
  readonly settings: QuireSettings;
  save(change: Partial<QuireSettings>): Promise<void>;
  /** config reads and changes the sidecar's own settings. */
  config?: {
    get(): Promise<ConfigResult>;
    set(settings: Settings): Promise<ConfigResult>;
  };
}

/** EMBEDDERS and PROVIDERS are the choices config.set accepts. */
const EMBEDDERS: Record<string, string> = {
  builtin: "Built in (English, on this machine)",
  model: "Embedding model on the model server",
  none: "None (keyword search only)",
};
const PROVIDERS: Record<string, string> = {
  "": "None (answers quote your notes)",
  ollama: "Ollama",
  openai: "OpenAI-compatible",
  anthropic: "Anthropic",
};

/** cloneSettings copies settings so that edits do not touch what the sidecar reported. */
function cloneSettings(s: Settings): Settings {
  return { ...s, ignore: [...(s.ignore ?? [])], model: { ...s.model } };
}

/**
 * QuireSettingTab edits the sidecar binary and state folder (the plugin's
 * own), and the sidecar's settings: models, ignore prefixes and the
 * generated-notes folder. Those are read from the sidecar when the tab
 * opens and sent back whole with Apply; they take effect at once.
 */
export class QuireSettingTab extends PluginSettingTab {
  /** draft is the form's edit of the sidecar's settings, sent whole on Apply. */
  private draft: Settings | null = null;
  private statusEl: HTMLElement | null = null;
  private seq = 0;

  constructor(
    app: App,
    plugin: Plugin,
    private readonly store: SettingsStore,
  ) {
    super(app, plugin);
  }

  // display renders imperatively: getSettingDefinitions needs Obsidian
  // 1.13, above the manifest's minAppVersion.
  override display(): void {
    const { containerEl } = this;
    containerEl.empty();
    containerEl.addClass("quire-settings");

    new Setting(containerEl)
      .setName("Sidecar binary")
      .setDesc(
        "Full path of the quire executable, started when no sidecar serves this vault. Locate it with `which quire` (macOS, Linux) or `where quire` (Windows).",
      )
      .addText((text) =>
        text
          .setPlaceholder("/usr/local/bin/quire")
          .setValue(this.store.settings.binaryPath)
          .onChange((value) => this.store.save({ binaryPath: value.trim() })),
      );

    new Setting(containerEl)
      .setName("State folder")
      .setDesc("Where the index lives. Leave empty for .quire inside the vault.")
      .addText((text) =>
        text
          .setPlaceholder(".quire")
          .setValue(this.store.settings.stateFolder)
          .onChange((value) => this.store.save({ stateFolder: value.trim() })),
      );

    new Setting(containerEl).setName("Models and indexing").setHeading();
    const section = containerEl.createDiv({ cls: "quire-settings-sidecar" });
    void this.loadSidecar(section);
  }

  override hide(): void {
    this.seq++;
  }

  /** loadSidecar asks the sidecar for its settings and draws the form, or says why it cannot. */
  async loadSidecar(section: HTMLElement): Promise<void> {
    const seq = ++this.seq;
    section.empty();
    const cfg = this.store.config;
    if (!cfg) return;
    section.createDiv({ cls: "quire-settings-note", text: "Reading the sidecar's settings…" });
    let res: ConfigResult;
    try {
      res = await cfg.get();
    } catch (err) {
      if (seq !== this.seq) return;
      section.empty();
      section.createDiv({ cls: "quire-settings-note is-error", text: configErrorText(err) });
      return;
    }
    if (seq !== this.seq) return;
    section.empty();
    this.draft = cloneSettings(res.settings);
    this.drawForm(section, res);
  }

  private drawForm(el: HTMLElement, res: ConfigResult): void {
    const d = this.draft!;
    new Setting(el)
      .setName("Embedder")
      .setDesc("What search by meaning uses. Changing it rebuilds the vectors in the background; keyword search keeps working.")
      .addDropdown((dd) =>
        dd
          .addOptions(EMBEDDERS)
          .setValue(d.embedder || "builtin")
          .onChange((v) => {
            d.embedder = v;
          }),
      );
    new Setting(el)
      .setName("Language model")
      .setDesc("Answers questions and summarises ingested pages. Without one, answers quote your notes and pages are saved unsummarised.")
      .addDropdown((dd) =>
        dd
          .addOptions(PROVIDERS)
          .setValue(d.model.provider ?? "")
          .onChange((v) => {
            d.model.provider = v;
          }),
      );
    const text = (name: string, desc: string, placeholder: string, get: () => string, set: (v: string) => void) =>
      new Setting(el)
        .setName(name)
        .setDesc(desc)
        .addText((t) => t.setPlaceholder(placeholder).setValue(get()).onChange((v) => set(v.trim())));
    text("Endpoint", "The model server's address. Empty for the provider's usual one.", "http://127.0.0.1:11434", () => d.model.endpoint ?? "", (v) => (d.model.endpoint = v));
    text("Model", "The chat model's name.", "qwen3:8b", () => d.model.model ?? "", (v) => (d.model.model = v));
    text("Embedding model", "Used when the embedder is the model server's, e.g. bge-m3.", "bge-m3", () => d.model.embedModel ?? "", (v) => (d.model.embedModel = v));
    new Setting(el)
      .setName("API key")
      .setDesc(
        `Stored in this vault's plugin data and sent only to the Quire sidecar on this machine, which keeps it in memory. ${
          res.settings.model.apiKeySet ? "The sidecar holds a key now." : "The sidecar holds no key now."
        }`,
      )
      .addText((t) => {
        t.inputEl.type = "password";
        t.inputEl.autocomplete = "off";
        t.setPlaceholder("sk-…")
          .setValue(this.store.settings.apiKey)
          .onChange((v) => this.store.save({ apiKey: v.trim() }));
      });
    new Setting(el)
      .setName("Ignore")
      .setDesc("Folders or files never indexed, one prefix per line (e.g. Templates/). Dot folders are always skipped.")
      .addTextArea((t) =>
        t
          .setPlaceholder("Templates/\nArchive/")
          .setValue((d.ignore ?? []).join("\n"))
          .onChange((v) => {
            d.ignore = parseIgnore(v);
          }),
      );
    new Setting(el)
      .setName("Generated notes folder")
      .setDesc("Where Quire writes sources, concepts, answers and review items. Your own notes are never written.")
      .addText((t) =>
        t
          .setPlaceholder("Quire")
          .setValue(d.folder ?? "")
          .onChange((v) => {
            d.folder = v.trim().replace(/^\/+|\/+$/g, "");
          }),
      );
    const apply = new Setting(el).setName("Apply").setDesc("Send these settings to the sidecar. They take effect at once.");
    apply.addButton((b) =>
      b
        .setButtonText("Apply")
        .setCta()
        .onClick(() => this.apply()),
    );
    this.statusEl = el.createDiv({ cls: "quire-settings-status" });
    if (res.restart?.length) this.statusEl.setText(`Take effect when the sidecar restarts: ${res.restart.join(", ")}.`);
  }

  /** apply sends the form to the sidecar and says how it went. */
  async apply(): Promise<void> {
    const cfg = this.store.config;
    const el = this.statusEl;
    if (!cfg || !this.draft || !el) return;
    el.removeClass("is-error");
    el.setText("Applying…");
    try {
      const res = await cfg.set(cloneSettings(this.draft));
      this.draft = cloneSettings(res.settings);
      el.setText(res.restart?.length ? `Applied. Take effect when the sidecar restarts: ${res.restart.join(", ")}.` : "Applied.");
    } catch (err) {
      el.addClass("is-error");
      el.setText(`Not applied: ${configErrorText(err)}`);
    }
  }
}
