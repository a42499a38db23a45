import { type App, type Plugin, PluginSettingTab, Setting } from "obsidian";

/** QuireSettings is what the plugin stores in its data.json. */
export interface QuireSettings {
  /** binaryPath is the `quire` executable to start when no sidecar runs. */
  binaryPath: string;
  /** stateFolder is where the sidecar keeps its index; empty means `<vault>/.quire`. */
  stateFolder: string;
}

/** DEFAULT_SETTINGS fills in what data.json lacks. */
export const DEFAULT_SETTINGS: Readonly<QuireSettings> = {
  binaryPath: "",
  stateFolder: "",
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
}

/** QuireSettingTab edits the sidecar binary path and the state folder. */
export class QuireSettingTab extends PluginSettingTab {
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
  }
}
