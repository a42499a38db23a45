// @vitest-environment jsdom
import { beforeEach, describe, expect, it } from "vitest";
import type { ConfigResult, Settings } from "../../proto/proto.gen";
import { ConfigSync, modelText, parseIgnore } from "../src/config";
import { DEFAULT_SETTINGS, QuireSettingTab, type QuireSettings } from "../src/settings";
import { type FakeLifecycle, type FakeServer, online, settle } from "./fake-sidecar";
import { App, type ButtonComponent, type DropdownComponent, Plugin, Setting, type TextAreaComponent, type TextComponent } from "./obsidian-stub";

const sidecarSettings = (): Settings => ({
  ignore: ["Templates/"],
  folder: "Quire",
  embedder: "builtin",
  model: { provider: "", endpoint: "", model: "", embedModel: "", apiKeySet: false },
});

/** configServer answers config.get/set like the sidecar: the key is held, never echoed. */
function configServer(server: FakeServer, opts: { refuse?: string; rank?: boolean } = {}) {
  let current = sidecarSettings();
  if (opts.rank) current.rank = { rerank: "off", reranker: { provider: "", endpoint: "", model: "", remote: "auto" } };
  const sets: Settings[] = [];
  server.reply = (f, s) => {
    const result = (): ConfigResult => ({ settings: { ...current, model: { ...current.model, apiKey: "" } }, restart: [] });
    if (f.type === "config.get") s.push({ id: f.id!, type: "config.result", payload: result() });
    if (f.type === "config.set") {
      const next = (f.payload as { settings: Settings }).settings;
      sets.push(structuredClone(next));
      if (opts.refuse) {
        s.push({ id: f.id!, type: "error", payload: { code: "invalid_request", message: `config.set: ${opts.refuse}` } });
        return;
      }
      current = { ...next, model: { ...next.model, apiKeySet: current.model.apiKeySet || !!next.model.apiKey } };
      delete current.model.apiKey;
      s.push({ id: f.id!, type: "config.result", payload: result() });
    }
  };
  return { sets, current: () => current };
}

describe("parseIgnore", () => {
  it.each([
    ["lines", "Templates/\n\nArchive/ \n", ["Templates/", "Archive/"]],
    ["commas and leading slashes, no repeats", "/Templates/, Archive/,Templates/", ["Templates/", "Archive/"]],
    ["empty", "  ", []],
  ])("%s", (_n, input, want) => expect(parseIgnore(input)).toEqual(want));
});

describe("modelText", () => {
  const r = (model: Partial<Settings["model"]>): ConfigResult => ({ settings: { ...sidecarSettings(), model: { ...sidecarSettings().model, ...model } }, restart: [] });
  it.each([
    ["unknown", null, null],
    ["none", r({}), "none: answers quote your notes, sources are saved unsummarised"],
    ["remote with key", r({ provider: "openai", model: "gpt-4o-mini", apiKeySet: true }), "openai/gpt-4o-mini (key held)"],
    ["compatible server without key", r({ provider: "openai", model: "fake", endpoint: "http://127.0.0.1:9" }), "openai/fake at http://127.0.0.1:9 (no key)"],
    ["ollama", r({ provider: "ollama", model: "qwen3" }), "ollama/qwen3"],
  ])("%s", (_n, res, want) => expect(modelText(res)).toBe(want));
});

describe("ConfigSync", () => {
  let server: FakeServer;
  let sidecar: FakeLifecycle;

  beforeEach(async () => {
    ({ server, sidecar } = await online());
  });

  it("gives a new connection the stored API key once, and knows the folder", async () => {
    const cs = configServer(server);
    const sync = new ConfigSync({ sidecar, apiKey: () => "sk-test", log: () => {} });
    await settle();
    expect(cs.sets).toHaveLength(1);
    expect(cs.sets[0]!.model.apiKey).toBe("sk-test");
    expect(sync.current?.settings.model.apiKeySet).toBe(true);
    expect(sync.folder).toBe("Quire");
    sidecar.set({ kind: "offline", reason: "x", canStart: false });
    expect(sync.current).toBeNull();
    expect(sync.folder).toBe("Quire");
  });

  it("sends no key to an engine that did not prove it is this vault's", async () => {
    const cs = configServer(server);
    sidecar.set({ kind: "online", client: sidecar.client!, proven: false });
    const sync = new ConfigSync({ sidecar, apiKey: () => "sk-test", log: () => {} });
    await settle();
    expect(cs.sets).toHaveLength(0);
    await sync.set({ ...sidecarSettings(), folder: "Wiki" });
    expect(cs.sets[0]!.model).not.toHaveProperty("apiKey");
  });

  it("sends no key when none is stored", async () => {
    const cs = configServer(server);
    const sync = new ConfigSync({ sidecar, apiKey: () => "", log: () => {} });
    await settle();
    expect(cs.sets).toHaveLength(0);
    await sync.set({ ...sidecarSettings(), folder: "Wiki" });
    expect(cs.sets[0]!.model).not.toHaveProperty("apiKey");
    expect(sync.folder).toBe("Wiki");
  });
});

describe("QuireSettingTab", () => {
  let server: FakeServer;
  let sidecar: FakeLifecycle;
  let stored: QuireSettings;
  let tab: QuireSettingTab;
  let sync: ConfigSync;

  const setup = () => {
    stored = { ...DEFAULT_SETTINGS };
    const app = new App();
    sync = new ConfigSync({ sidecar, apiKey: () => stored.apiKey, log: () => {} });
    tab = new QuireSettingTab(app as never, new Plugin(app, {} as never) as never, {
      settings: stored,
      save: async (c) => void Object.assign(stored, c),
      key: { secure: false, get: () => stored.apiKey, set: async (k) => void (stored.apiKey = k) },
      config: sync,
    });
    Setting.all = [];
    tab.display();
  };
  const text = (name: string) => Setting.namedForTest(name).components[0] as TextComponent;

  beforeEach(async () => {
    ({ server, sidecar } = await online());
  });

  it("reads the sidecar's settings, edits them, stores the key locally, and applies them with config.set", async () => {
    const cs = configServer(server);
    setup();
    await settle();
    const names = [...tab.containerEl.querySelectorAll(".setting-item-name")].map((e) => e.textContent);
    expect(names).toEqual(["Quire program", "State folder", "Related pages", "Leave out folders", "Hidden notes", "Models and indexing", "Embedder", "Language model", "Endpoint", "Model", "Embedding model", "Where the model runs", "API key", "Ignore", "Generated notes folder", "Apply"]);
    expect((Setting.namedForTest("Ignore").components[0] as TextAreaComponent).getValue()).toBe("Templates/");

    await (Setting.namedForTest("Embedder").components[0] as DropdownComponent).typeForTest("model");
    await (Setting.namedForTest("Language model").components[0] as DropdownComponent).typeForTest("openai");
    await text("Endpoint").typeForTest(" http://127.0.0.1:9999 ");
    await text("Model").typeForTest("fake");
    await text("Embedding model").typeForTest("bge-m3");
    await (Setting.namedForTest("Where the model runs").components[0] as DropdownComponent).typeForTest("true");
    await text("API key").commitForTest("sk-secret");
    expect(text("API key").inputEl.type).toBe("password");
    expect(stored.apiKey).toBe("sk-secret");
    await (Setting.namedForTest("Ignore").components[0] as TextAreaComponent).typeForTest("Templates/\nArchive/");
    await text("Generated notes folder").typeForTest("Wiki/");
    expect(cs.sets.filter((s) => s.folder === "Wiki")).toHaveLength(0); // nothing is sent before Apply

    await (Setting.namedForTest("Apply").components[0] as ButtonComponent).clickForTest();
    expect(cs.sets.at(-1)).toEqual({
      ignore: ["Templates/", "Archive/"],
      folder: "Wiki",
      embedder: "model",
      model: { provider: "openai", endpoint: "http://127.0.0.1:9999", model: "fake", embedModel: "bge-m3", remote: "true", apiKey: "sk-secret", apiKeySet: false },
    });
    expect(tab.containerEl.querySelector(".quire-settings-status")!.textContent).toBe("Applied.");
    expect(sync.folder).toBe("Wiki");
  });

  it("edits the ranking when the engine has it, and leaves it out of config.set when it has not", async () => {
    const cs = configServer(server, { rank: true });
    setup();
    await settle();
    const names = [...tab.containerEl.querySelectorAll(".setting-item-name")].map((e) => e.textContent);
    expect(names.slice(-7)).toEqual(["Ranking", "Reorder results", "Reranker server", "Reranker address", "Reranker model", "Where the reranker runs", "Apply"]);
    await (Setting.namedForTest("Reorder results").components[0] as DropdownComponent).typeForTest("endpoint");
    await (Setting.namedForTest("Reranker server").components[0] as DropdownComponent).typeForTest("tei");
    await text("Reranker address").typeForTest(" http://127.0.0.1:8080 ");
    await (Setting.namedForTest("Where the reranker runs").components[0] as DropdownComponent).typeForTest("false");
    await (Setting.namedForTest("Apply").components[0] as ButtonComponent).clickForTest();
    expect(cs.sets.at(-1)!.rank).toEqual({ rerank: "endpoint", reranker: { provider: "tei", endpoint: "http://127.0.0.1:8080", model: "", remote: "false" } });
    expect(cs.current().rank!.rerank).toBe("endpoint");

    // An engine without the setting: no section, and none sent back.
    const old = configServer(server);
    setup();
    await settle();
    expect(() => Setting.namedForTest("Reorder results")).toThrow();
    await (Setting.namedForTest("Apply").components[0] as ButtonComponent).clickForTest();
    expect(old.sets.at(-1)).not.toHaveProperty("rank");
  });

  it("shows the sidecar's refusal and keeps the form", async () => {
    configServer(server, { refuse: "model.endpoint: not a URL" });
    setup();
    await settle();
    await text("Endpoint").typeForTest("::nope");
    await (Setting.namedForTest("Apply").components[0] as ButtonComponent).clickForTest();
    const status = tab.containerEl.querySelector(".quire-settings-status")!;
    expect(status.textContent).toBe("Not applied: model.endpoint: not a URL");
    expect(status.classList.contains("is-error")).toBe(true);
    expect(text("Endpoint").getValue()).toBe("::nope");
  });

  it("offline, it says to start the sidecar instead of showing a form", async () => {
    sidecar.set({ kind: "offline", reason: "x", canStart: false });
    setup();
    await settle();
    expect(tab.containerEl.querySelector(".quire-settings-note")!.textContent).toBe("Quire is offline. Start it, then change these settings.");
    expect(() => Setting.namedForTest("Apply")).toThrow();
  });
});
