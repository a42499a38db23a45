// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { App, type PluginManifest } from "obsidian";
// The same module instance as "obsidian" (vitest aliases one to the other),
// imported by path for the hooks that only the stub has.
import { Setting, type TextComponent } from "./obsidian-stub";
import QuirePlugin from "../src/main";
import { DEFAULT_SETTINGS, mergeSettings } from "../src/settings";

const manifest: PluginManifest = {
  id: "quire",
  name: "Quire",
  version: "0.1.0",
  minAppVersion: "1.7.2",
  description: "",
  author: "",
  isDesktopOnly: true,
};

// The stub's Plugin carries test hooks that the real type lacks.
type StubPlugin = QuirePlugin & {
  data: unknown;
  savedData: unknown[];
  statusBarItems: HTMLElement[];
  settingTabs: { display(): void; containerEl: HTMLElement }[];
  unloadForTest(): void;
};

function newPlugin(data: unknown = null): StubPlugin {
  const p = new QuirePlugin(new App() as never, manifest as never) as StubPlugin;
  p.data = data;
  return p;
}

describe("QuirePlugin", () => {
  it("loads with a status bar item and a settings tab, and unload removes them", async () => {
    const p = newPlugin();
    await p.onload();
    expect(p.statusBarItems).toHaveLength(1);
    expect(p.statusBarItems[0]!.textContent).toBe("Quire: offline");
    expect(p.settingTabs).toHaveLength(1);
    expect(p.settings).toEqual(DEFAULT_SETTINGS);

    const ids = (p as unknown as { commands: { id: string }[] }).commands.map((c) => c.id);
    expect(ids).toEqual(["ask-vault", "ingest-clipboard", "open-related", "open-review", "show-status", "start-sidecar", "rebuild-index"]);
    expect((p as unknown as { ribbonIcons: HTMLElement[] }).ribbonIcons).toHaveLength(1);
    expect((p as unknown as { postProcessorsForTest: unknown[] }).postProcessorsForTest).toHaveLength(1);

    p.unloadForTest();
    expect(p.settingTabs).toHaveLength(0);
    expect((p as unknown as { commands: unknown[] }).commands).toHaveLength(0);
    expect((p as unknown as { postProcessorsForTest: unknown[] }).postProcessorsForTest).toHaveLength(0);
  });

  it("reads stored settings and saves edits from the settings tab", async () => {
    const p = newPlugin({ binaryPath: "/opt/quire", stateFolder: "", unknownKey: 1 });
    await p.onload();
    expect(p.settings.binaryPath).toBe("/opt/quire");

    Setting.all = [];
    const tab = p.settingTabs[0]!;
    tab.display();
    const names = [...tab.containerEl.querySelectorAll(".setting-item-name")].map((e) => e.textContent);
    expect(names.slice(0, 3)).toEqual(["Sidecar binary", "State folder", "Models and indexing"]);

    await (Setting.all[1]!.components[0] as TextComponent).typeForTest("  /var/lib/quire  ");
    expect(p.settings.stateFolder).toBe("/var/lib/quire");
    expect(p.savedData.at(-1)).toEqual({ binaryPath: "/opt/quire", stateFolder: "/var/lib/quire", apiKey: "" });
    // The save started the sidecar's lifecycle (the plugin is offline): unload
    // stops it, so none of its file reads or notices outlive the test.
    p.unloadForTest();
  });
});

describe("mergeSettings", () => {
  it.each([
    ["nothing stored", null, DEFAULT_SETTINGS],
    ["not an object", "oops", DEFAULT_SETTINGS],
    ["wrong types dropped", { binaryPath: 3, stateFolder: "s" }, { binaryPath: "", stateFolder: "s", apiKey: "" }],
    ["unknown keys dropped", { binaryPath: "b", extra: true }, { binaryPath: "b", stateFolder: "", apiKey: "" }],
    ["the API key kept", { apiKey: "sk-1" }, { binaryPath: "", stateFolder: "", apiKey: "sk-1" }],
  ])("%s", (_name, stored, want) => {
    expect(mergeSettings(stored)).toEqual(want);
  });
});
