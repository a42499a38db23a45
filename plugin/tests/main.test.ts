// @vitest-environment jsdom
import { describe, expect, it, vi } from "vitest";
import { App, type PluginManifest } from "obsidian";
// The same module instance as "obsidian" (vitest aliases one to the other),
// imported by path for the hooks that only the stub has.
import { App as StubApp, ItemView, Notice, Setting, type TextComponent, WorkspaceLeaf } from "./obsidian-stub";
import { REVIEW_VIEW, ReviewView, refreshReviewViews } from "../src/views/review";
import QuirePlugin from "../src/main";
import { DEFAULT_SETTINGS, mergeSettings } from "../src/settings";
import { settle } from "./fake-sidecar";

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
  it("offers Summarise this source again only on a source note the model did not read whole", async () => {
    const files = {
      "Quire/Sources/Article.md": "---\nquire: quire\nquire_kind: source\nsource: https://example.test/article\nsummarised: false\n---\n# Article\n",
      "Quire/Sources/Read.md": "---\nquire: quire\nquire_kind: source\nsource: https://example.test/read\nsummarised: true\n---\n# Read\n",
      "Notes/Mine.md": "# Mine\n",
    };
    const app = new StubApp({ files });
    const p = new QuirePlugin(app as never, manifest as never) as StubPlugin;
    await p.onload();
    const cmd = (p as unknown as { commands: { id: string; checkCallback?(checking: boolean): boolean | void }[] }).commands.find((c) => c.id === "resummarise-source")!;
    const available: Record<string, boolean> = {};
    for (const path of Object.keys(files)) {
      await app.workspace.getLeaf().openFile(app.vault.getAbstractFileByPath(path) as never);
      available[path] = cmd.checkCallback!(true) === true;
    }
    expect(available).toEqual({ "Quire/Sources/Article.md": true, "Quire/Sources/Read.md": false, "Notes/Mine.md": false });
    p.unloadForTest();
  });

  it("offers Ask about this note on a Markdown note, and opens Ask scoped to it", async () => {
    const app = new StubApp({ files: { "Notes/Mine.md": "# Mine\n" } });
    const p = new QuirePlugin(app as never, manifest as never) as StubPlugin;
    await p.onload();
    const cmd = (p as unknown as { commands: { id: string; checkCallback?(checking: boolean): boolean | void }[] }).commands.find((c) => c.id === "ask-this-note")!;
    expect(cmd.checkCallback!(true)).toBe(false); // no note open
    await app.workspace.getLeaf().openFile(app.vault.getAbstractFileByPath("Notes/Mine.md") as never);
    expect(cmd.checkCallback!(true)).toBe(true);
    cmd.checkCallback!(false);
    const select = document.querySelector<HTMLSelectElement>(".quire-ask-modal select.quire-ask-scope-select");
    expect(select?.value).toBe("note:Notes/Mine.md");
    for (const el of document.querySelectorAll(".modal-container")) el.remove();
    p.unloadForTest();
  });

  it("offers Ask about the selection when text is selected, and opens Ask with it", async () => {
    const app = new StubApp({ files: { "Notes/Mine.md": "# Mine\n\nThe grinder is set to 14.\n" } });
    const p = new QuirePlugin(app as never, manifest as never) as StubPlugin;
    await p.onload();
    const cmd = (p as unknown as { commands: { id: string; checkCallback?(checking: boolean): boolean | void }[] }).commands.find((c) => c.id === "ask-selection")!;
    expect(cmd.checkCallback!(true)).toBe(false); // no note open
    await app.workspace.getLeaf().openFile(app.vault.getAbstractFileByPath("Notes/Mine.md") as never);
    expect(cmd.checkCallback!(true)).toBe(false); // nothing selected
    const editor = (app.workspace.getLeaf().view as unknown as { editor: { setSelection(a: { line: number; ch: number }, h: { line: number; ch: number }): void } }).editor;
    editor.setSelection({ line: 2, ch: 4 }, { line: 2, ch: 11 });
    expect(cmd.checkCallback!(true)).toBe(true);
    cmd.checkCallback!(false);
    const select = document.querySelector<HTMLSelectElement>(".quire-ask-modal select.quire-ask-scope-select");
    expect(select?.value).toBe(`selection:Notes/Mine.md:${"# Mine\n\nThe ".length}`);
    expect(select?.selectedOptions[0]?.textContent).toBe("Selection in Mine");
    for (const el of document.querySelectorAll(".modal-container")) el.remove();
    p.unloadForTest();
  });

  it("loads with a status bar item and a settings tab, and unload removes them", async () => {
    const p = newPlugin();
    await p.onload();
    expect(p.statusBarItems).toHaveLength(1);
    expect(p.statusBarItems[0]!.textContent).toBe("Quire: offline");
    expect(p.settingTabs).toHaveLength(1);
    expect(p.settings).toEqual(DEFAULT_SETTINGS);

    const ids = (p as unknown as { commands: { id: string }[] }).commands.map((c) => c.id);
    expect(ids).toEqual(["search-vault", "ask-vault", "ask-this-note", "ask-selection", "open-ask-view", "ingest-clipboard", "resummarise-source", "open-related", "open-review", "open-sources", "evaluate-search", "check-notes", "show-status", "open-from-notice", "start-sidecar", "rebuild-index"]);
    const ribbon = (p as unknown as { ribbonIcons: HTMLElement[] }).ribbonIcons;
    expect(ribbon.map((el) => [el.dataset.icon, el.getAttribute("aria-label")])).toEqual([
      ["search", "Quire: search vault"],
      ["message-square", "Quire: ask vault in the sidebar"],
      ["link", "Quire: ingest the URL on the clipboard"],
    ]);
    // The ask ribbon icon opens the Ask sidebar view (one, however often it is clicked).
    ribbon[1]!.click();
    await vi.waitFor(() => expect(p.app.workspace.getLeavesOfType("quire-ask")).toHaveLength(1));
    ribbon[1]!.click();
    await settle();
    expect(p.app.workspace.getLeavesOfType("quire-ask")).toHaveLength(1);
    // Citation markers in saved answers, and Summarise again in source notes.
    expect((p as unknown as { postProcessorsForTest: unknown[] }).postProcessorsForTest).toHaveLength(2);

    p.unloadForTest();
    expect(p.settingTabs).toHaveLength(0);
    expect((p as unknown as { commands: unknown[] }).commands).toHaveLength(0);
    expect((p as unknown as { postProcessorsForTest: unknown[] }).postProcessorsForTest).toHaveLength(0);
  });

  // Issue 25: the question history was lost on restart.
  it("keeps the questions asked across restarts, beside the settings", async () => {
    const p = newPlugin({ binaryPath: "/opt/quire", askHistory: ["How long do I knead?", 3, "Where is the kiln?"] });
    await p.onload();
    const tab = p.settingTabs[0]!;
    Setting.all = [];
    tab.display();
    await (Setting.all[1]!.components[0] as TextComponent).commitForTest("/var/lib/quire");
    expect(p.savedData.at(-1)).toMatchObject({ stateFolder: "/var/lib/quire", askHistory: ["How long do I knead?", "Where is the kiln?"] });
    p.unloadForTest();
  });

  it("reads stored settings and saves edits from the settings tab", async () => {
    const p = newPlugin({ binaryPath: "/opt/quire", stateFolder: "", unknownKey: 1 });
    await p.onload();
    expect(p.settings.binaryPath).toBe("/opt/quire");

    Setting.all = [];
    const tab = p.settingTabs[0]!;
    tab.display();
    const names = [...tab.containerEl.querySelectorAll(".setting-item-name")].map((e) => e.textContent);
    expect(names.slice(0, 6)).toEqual(["Quire program", "State folder", "Related pages", "Leave out folders", "Hidden notes", "Models and indexing"]);

    await (Setting.all[1]!.components[0] as TextComponent).commitForTest("  /var/lib/quire  ");
    expect(p.settings.stateFolder).toBe("/var/lib/quire");
    expect(p.savedData.at(-1)).toEqual({ binaryPath: "/opt/quire", stateFolder: "/var/lib/quire", apiKey: "", relatedExclude: "", relatedHidden: "", askHistory: [], askConversations: [] });
    // Related pages' left-out folders: saved on leaving the field, one clean folder per line.
    const area = [...tab.containerEl.querySelectorAll(".setting-item")].find((e) => e.querySelector(".setting-item-name")?.textContent === "Leave out folders")!.querySelector("textarea")!;
    area.value = " /Archive/ \nDaily, Archive\n\n";
    area.dispatchEvent(new Event("blur"));
    await settle();
    expect(p.settings.relatedExclude).toBe("Archive\nDaily");
    expect(p.savedData.at(-1)).toMatchObject({ relatedExclude: "Archive\nDaily" });
    // The save started the sidecar's lifecycle (the plugin is offline): unload
    // stops it, so none of its file reads or notices outlive the test.
    p.unloadForTest();
  });
});

describe("defects", () => {
  it("typing the program path letter by letter saves and starts nothing until the field is left", async () => {
    const p = newPlugin();
    await p.onload();
    try {
      Setting.all = [];
      p.settingTabs[0]!.display();
      const field = Setting.all[0]!.components[0] as TextComponent;
      const before = Notice.shown.length;
      const path = "/nonexistent/quire-harness/bin/quire";
      for (let i = 1; i <= path.length; i++) await field.typeForTest(path.slice(0, i));
      await new Promise((r) => setTimeout(r, 20));
      expect(p.savedData).toEqual([]);
      expect(Notice.shown.slice(before)).toEqual([]);
      await field.commitForTest(path);
      // The start that follows checks the file on disk: wait for its one
      // notice rather than a fixed time, which a loaded machine outlasts.
      await vi.waitFor(
        () => {
          expect(p.savedData.at(-1)).toMatchObject({ binaryPath: path });
          expect(Notice.shown.slice(before).filter((n) => n.includes("not found"))).toHaveLength(1);
        },
        { timeout: 20_000, interval: 10 },
      );
    } finally {
      p.unloadForTest();
    }
  });

  it("review.created skips a review leaf that still holds a deferred view", async () => {
    class DeferredView extends ItemView {
      override getViewType(): string {
        return REVIEW_VIEW;
      }
      override getDisplayText(): string {
        return "";
      }
    }
    const app = new App();
    const leaf = new WorkspaceLeaf(app as never, document.createElement("div"));
    leaf.view = new DeferredView(leaf);
    (app.workspace as unknown as { leavesForTest: WorkspaceLeaf[] }).leavesForTest.push(leaf);
    expect(() => refreshReviewViews(app.workspace as never)).not.toThrow();
    expect(leaf.view instanceof ReviewView).toBe(false);
  });
});

describe("mergeSettings", () => {
  it.each([
    ["nothing stored", null, DEFAULT_SETTINGS],
    ["not an object", "oops", DEFAULT_SETTINGS],
    ["wrong types dropped", { binaryPath: 3, stateFolder: "s", relatedExclude: ["Archive"] }, { ...DEFAULT_SETTINGS, stateFolder: "s" }],
    ["unknown keys dropped", { binaryPath: "b", extra: true }, { ...DEFAULT_SETTINGS, binaryPath: "b" }],
    ["the API key kept", { apiKey: "sk-1" }, { ...DEFAULT_SETTINGS, apiKey: "sk-1" }],
    ["the left-out folders kept", { relatedExclude: "Archive\nDaily" }, { ...DEFAULT_SETTINGS, relatedExclude: "Archive\nDaily" }],
  ])("%s", (_name, stored, want) => {
    expect(mergeSettings(stored)).toEqual(want);
  });
});
