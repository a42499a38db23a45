// Every test must end with nothing of the plugin still running: a plugin left
// loaded keeps its sidecar lifecycle going (file reads, timers, notices),
// which then runs after the test's DOM is gone and fails the suite at random.
import { afterEach } from "vitest";
import { Plugin } from "./obsidian-stub";

// The plugin calls window.setTimeout (Obsidian's rule, for popout windows);
// in the node environment the window is the global object, as in a renderer.
if (typeof window === "undefined") Object.defineProperty(globalThis, "window", { value: globalThis, configurable: true });

afterEach(() => {
  const left = [...Plugin.loadedForTest];
  for (const p of left) p.unload();
  if (left.length > 0) throw new Error(`the test left ${left.length} plugin(s) loaded: unload them (unloadForTest) before it ends`);
});
