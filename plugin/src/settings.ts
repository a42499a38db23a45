import { type App, type Plugin, PluginSettingTab, Setting, type TextComponent, normalizePath } from "obsidian";
import type { ConfigResult, Settings } from "../../proto/proto.gen";
import { configErrorText, parseIgnore } from "./config";

/** QuireSettings is what the plugin stores in its data.json. */
export interface QuireSettings {
  /** binaryPath is the `quire` executable to start when no sidecar runs. */
  binaryPath: string;
  /** stateFolder is where the sidecar keeps its index; empty means `<vault>/.quire`. */
  stateFolder: string;
  /**
   * apiKey is the model server's key, kept here only where Obsidian has no
   * secret storage (before 1.11.4); it goes only to Quire's engine
   * (config.set), which keeps it in memory.
   */
  apiKey: string;
  /**
   * relatedExclude lists folders, one per line, whose notes Related pages
   * never shows (an archive, daily notes); search and Ask still find them.
   */
  relatedExclude: string;
  /** relatedHidden lists notes, one path per line, hidden from Related pages with Delete on their row. */
  relatedHidden: string;
}

/** DEFAULT_SETTINGS fills in what data.json lacks. */
export const DEFAULT_SETTINGS: Readonly<QuireSettings> = {
  binaryPath: "",
  stateFolder: "",
  apiKey: "",
  relatedExclude: "",
  relatedHidden: "",
};

/** hiddenNotes reads the notes hidden from Related pages: one path per line, each once. */
export function hiddenNotes(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const p = line.trim();
    if (p !== "" && !out.includes(p)) out.push(p);
  }
  return out;
}

/** relatedExcludes reads the Related pages' left-out folders: one per line (or comma), without surrounding slashes, each once. */
export function relatedExcludes(text: string): string[] {
  const out: string[] = [];
  for (const part of text.split(/[\n,]/)) {
    const p = part.trim().replace(/^\/+|\/+$/g, "");
    if (p !== "" && !out.includes(p)) out.push(p);
  }
  return out;
}

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

/** KeyStore keeps the model server's API key. */
export interface KeyStore {
  /** secure says the key is in Obsidian's secret storage, not in the vault's plugin data. */
  readonly secure: boolean;
  get(): string;
  set(key: string): Promise<void>;
}

/** SECRET_ID names the API key in Obsidian's secret storage. */
export const SECRET_ID = "quire-api-key";

/** SecretStorageLike is the part of Obsidian's SecretStorage (1.11.4+) the plugin uses. */
export interface SecretStorageLike {
  getSecret(id: string): string | null;
  setSecret(id: string, secret: string): void;
}

/**
 * keyStore keeps the API key in Obsidian's secret storage when the app has
 * one (1.11.4+), moving a key found in data.json there; else in data.json,
 * which Sync and git copy (the settings tab says so).
 */
export async function keyStore(
  secrets: SecretStorageLike | null,
  settings: QuireSettings,
  save: (change: Partial<QuireSettings>) => Promise<void>,
): Promise<KeyStore> {
  if (!secrets) return { secure: false, get: () => settings.apiKey, set: (key) => save({ apiKey: key }) };
  if (settings.apiKey !== "") {
    if ((secrets.getSecret(SECRET_ID) ?? "") === "") secrets.setSecret(SECRET_ID, settings.apiKey);
    await save({ apiKey: "" });
  }
  return {
    secure: true,
    get: () => secrets.getSecret(SECRET_ID) ?? "",
    set: async (key) => secrets.setSecret(SECRET_ID, key),
  };
}

/** SettingsStore is the narrow view of the plugin that the settings tab needs. */
export interface SettingsStore {
  readonly settings: QuireSettings;
  save(change: Partial<QuireSettings>): Promise<void>;
  /** key keeps the model server's API key. */
  key: KeyStore;
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
const REMOTE: Record<string, string> = {
  auto: "Off this machine unless the address is this machine's",
  true: "Off this machine (a local proxy to a hosted API)",
  false: "On this machine",
};
const PROVIDERS: Record<string, string> = {
  "": "None (answers quote your notes)",
  ollama: "Ollama",
  openai: "OpenAI-compatible",
  anthropic: "Anthropic",
};

/** RERANK and RERANKERS are the ranking choices config.set accepts. */
const RERANK: Record<string, string> = {
  off: "Off (keyword and meaning scores as they are)",
  builtin: "Built-in reranker (on this machine)",
  endpoint: "Reranker server (below)",
};
const RERANKERS: Record<string, string> = {
  "": "None",
  tei: "Text Embeddings Inference",
  llamacpp: "llama.cpp, vLLM or another /v1/rerank server",
  cohere: "Cohere",
  jina: "Jina",
};

/**
 * commitOnLeave calls commit with the field's trimmed value when the user
 * leaves it or presses Enter, not on every keystroke: a path typed letter
 * by letter must not be saved, and started, at each letter.
 */
function commitOnLeave(text: TextComponent, commit: (value: string) => unknown): void {
  const done = () => void commit(text.getValue().trim());
  text.inputEl.addEventListener("blur", done);
  text.inputEl.addEventListener("keydown", (evt) => {
    if (evt.key === "Enter") done();
  });
}

/** cloneSettings copies settings so that edits do not touch what the sidecar reported. */
function cloneSettings(s: Settings): Settings {
  const out: Settings = { ...s, ignore: [...(s.ignore ?? [])], model: { ...s.model } };
  if (s.rank) out.rank = { ...s.rank, reranker: { ...s.rank.reranker } };
  return out;
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
      .setName("Quire program")
      .setDesc(
        "Full path of the Quire program, started when Quire does not run for this vault yet. Leave empty to use the one your package manager installed, found on the system path or in the package managers' folders. Saved when you leave the field or press Enter.",
      )
      .addText((text) => {
        text.setPlaceholder("/usr/local/bin/quire").setValue(this.store.settings.binaryPath);
        commitOnLeave(text, (value) => value !== this.store.settings.binaryPath && void this.store.save({ binaryPath: value }));
      });

    new Setting(containerEl)
      .setName("State folder")
      .setDesc("Where the index lives. Leave empty for .quire inside the vault. Saved when you leave the field or press Enter.")
      .addText((text) => {
        text.setPlaceholder(".quire").setValue(this.store.settings.stateFolder);
        commitOnLeave(text, (value) => value !== this.store.settings.stateFolder && void this.store.save({ stateFolder: value }));
      });

    new Setting(containerEl).setName("Related pages").setHeading();
    new Setting(containerEl)
      .setName("Leave out folders")
      .setDesc("Notes in these folders, and in their subfolders, are never listed as related; search and questions still find them. One folder per line, for example an archive or daily notes. Saved when you leave the field.")
      .addTextArea((area) => {
        area.setPlaceholder("Archive").setValue(this.store.settings.relatedExclude);
        area.inputEl.rows = 3;
        area.inputEl.addEventListener("blur", () => {
          const value = relatedExcludes(area.getValue()).join("\n");
          if (value !== this.store.settings.relatedExclude) void this.store.save({ relatedExclude: value });
        });
      });

    new Setting(containerEl)
      .setName("Hidden notes")
      .setDesc("Notes you hid from the related list (the delete key on a row), one path per line. Remove a line to list the note again. Saved when you leave the field.")
      .addTextArea((area) => {
        area.setValue(this.store.settings.relatedHidden);
        area.inputEl.rows = 3;
        area.inputEl.addEventListener("blur", () => {
          const value = hiddenNotes(area.getValue()).join("\n");
          if (value !== this.store.settings.relatedHidden) void this.store.save({ relatedHidden: value });
        });
      });

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
    section.createDiv({ cls: "quire-settings-note", text: "Reading Quire's settings…" });
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
      .setName("Where the model runs")
      .setDesc("Notes in private folders are never sent to a model off this machine. Say so when the endpoint is a local proxy to a hosted API.")
      .addDropdown((dd) =>
        dd
          .addOptions(REMOTE)
          .setValue(d.model.remote || "auto")
          .onChange((v) => {
            d.model.remote = v;
          }),
      );
    const key = this.store.key;
    const where = key.secure
      ? "Kept in Obsidian's secret storage on this device, not in the vault,"
      : "Warning: this version of Obsidian has no secret storage (1.11.4 and later do), so the key is kept in this vault's plugin data (data.json), which Sync and git copy. It is";
    new Setting(el)
      .setName("API key")
      .setDesc(`${where} and sent only to Quire on this machine, which keeps it in memory. ${res.settings.model.apiKeySet ? "Quire holds a key now." : "Quire holds no key now."}`)
      .addText((t) => {
        t.inputEl.type = "password";
        t.inputEl.autocomplete = "off";
        t.setPlaceholder("sk-…").setValue(key.get());
        commitOnLeave(t, (v) => v !== key.get() && void key.set(v));
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
            const f = v.trim().replace(/^\/+|\/+$/g, "");
            d.folder = f === "" ? "" : normalizePath(f);
          }),
      );
    this.drawRank(el, text);
    const apply = new Setting(el).setName("Apply").setDesc("Send these settings to Quire. They take effect at once.");
    apply.addButton((b) =>
      b
        .setButtonText("Apply")
        .setCta()
        .onClick(() => this.apply()),
    );
    this.statusEl = el.createDiv({ cls: "quire-settings-status" });
    this.statusEl.setAttr("aria-live", "polite");
    if (res.restart?.length) this.statusEl.setText(`Take effect when Quire restarts: ${res.restart.join(", ")}.`);
  }

  /**
   * drawRank draws how results are reordered, when the engine has the
   * setting (an older engine sends no rank, and a form that sends none
   * back leaves the engine's as it is).
   */
  private drawRank(el: HTMLElement, text: (name: string, desc: string, placeholder: string, get: () => string, set: (v: string) => void) => Setting): void {
    const rank = this.draft?.rank;
    if (!rank) return;
    new Setting(el).setName("Ranking").setHeading();
    new Setting(el)
      .setName("Reorder results")
      .setDesc("How the first results are chosen from the best fifty, for search, related pages, questions and other apps alike. The built-in reranker is off by default: it gains on some of the test vaults and loses on one.")
      .addDropdown((dd) =>
        dd
          .addOptions(RERANK)
          .setValue(rank.rerank || "off")
          .onChange((v) => {
            rank.rerank = v;
          }),
      );
    new Setting(el)
      .setName("Reranker server")
      .setDesc("A reranker model you run or use. Its API key, when it needs one, stays with Quire: it reads it from the environment or the state folder's config file, never from this plugin.")
      .addDropdown((dd) =>
        dd
          .addOptions(RERANKERS)
          .setValue(rank.reranker.provider ?? "")
          .onChange((v) => {
            rank.reranker.provider = v;
          }),
      );
    text("Reranker address", "The reranker server's address. Empty for the provider's usual one.", "http://127.0.0.1:8080", () => rank.reranker.endpoint ?? "", (v) => (rank.reranker.endpoint = v));
    text("Reranker model", "The reranker model's name; Cohere and Jina need one.", "rerank-v3.5", () => rank.reranker.model ?? "", (v) => (rank.reranker.model = v));
    new Setting(el)
      .setName("Where the reranker runs")
      .setDesc("A reranker off this machine never sees results that hold a private note: Quire's built-in reranker orders those.")
      .addDropdown((dd) =>
        dd
          .addOptions(REMOTE)
          .setValue(rank.reranker.remote || "auto")
          .onChange((v) => {
            rank.reranker.remote = v;
          }),
      );
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
      el.setText(res.restart?.length ? `Applied. Take effect when Quire restarts: ${res.restart.join(", ")}.` : "Applied.");
    } catch (err) {
      el.addClass("is-error");
      el.setText(`Not applied: ${configErrorText(err)}`);
    }
  }
}
