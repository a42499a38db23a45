// @vitest-environment jsdom
// The first-run panel: this system's one command with Copy and Check
// again, and the engine noticed by itself within seconds of its install.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { EngineProblem } from "../src/sidecar/lifecycle";
import { installFor } from "../src/sidecar/setup";
import { CHECK_MS, EngineModal, type EngineModalDeps } from "../src/modals/engine-modal";
import { App, Modal } from "./obsidian-stub";

const mac = installFor({ platform: "darwin", arch: "arm64", distro: null, managers: new Set(["brew"]) }, "0.3.0");

function panel(problem: EngineProblem, over: Partial<EngineModalDeps> = {}) {
  const copied: string[] = [];
  let installed = false;
  const checks: boolean[] = [];
  const deps: EngineModalDeps = {
    problem,
    install: mac,
    copy: async (t) => void copied.push(t),
    check: async (asked) => {
      checks.push(asked);
      return installed;
    },
    openSettings: () => {},
    ...over,
  };
  const m = new EngineModal(new App() as never, deps);
  m.open();
  const el = m.modalEl;
  const button = (text: string) => [...el.querySelectorAll("button")].find((b) => b.textContent === text) as HTMLButtonElement | undefined;
  return { m, el, copied, checks, button, install: () => (installed = true) };
}

describe("the first-run panel", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    for (const m of [...Modal.openForTest]) m.close();
    vi.useRealTimers();
  });

  it("with no engine: names the system and shows the one command; Copy puts it on the clipboard", async () => {
    const { el, copied, button } = panel({ kind: "missing", configured: "" });
    expect(el.querySelector(".modal-title")?.textContent).toBe("Set up Quire");
    expect(el.querySelector(".quire-engine-system")?.textContent).toBe("On macOS on Apple silicon, install it with Homebrew:");
    expect(el.querySelector(".quire-engine-command")?.textContent).toBe("brew install quire-app/tap/quire");
    expect(el.textContent).toContain("never downloads or installs programs itself");
    button("Copy")!.click();
    await vi.advanceTimersByTimeAsync(0);
    expect(copied).toEqual(["brew install quire-app/tap/quire"]);
    expect(button("Copied")).toBeDefined();
  });

  it("Check again says when nothing is there yet, and closes once the engine serves", async () => {
    const p = panel({ kind: "missing", configured: "" });
    p.button("Check again")!.click();
    await vi.advanceTimersByTimeAsync(0);
    expect(p.checks).toEqual([true]);
    expect(p.el.querySelector(".quire-engine-state")?.textContent).toBe("No engine found yet.");
    p.install();
    p.button("Check again")!.click();
    await vi.advanceTimersByTimeAsync(0);
    expect(Modal.openForTest).not.toContain(p.m);
  });

  it("Check again pressed while the panel's own look runs is answered once that look ends", async () => {
    let finish: (found: boolean) => void = () => {};
    const checks: boolean[] = [];
    const p = panel(
      { kind: "missing", configured: "" },
      {
        check: (asked) => {
          checks.push(asked);
          return asked ? Promise.resolve(false) : new Promise((r) => (finish = r));
        },
      },
    );
    await vi.advanceTimersByTimeAsync(CHECK_MS);
    expect(checks).toEqual([false]);
    p.button("Check again")!.click();
    await vi.advanceTimersByTimeAsync(0);
    expect(p.el.querySelector(".quire-engine-state")?.textContent).toBe("Looking for the engine…");
    finish(false);
    await vi.advanceTimersByTimeAsync(0);
    expect(checks).toEqual([false, true]);
    expect(p.el.querySelector(".quire-engine-state")?.textContent).toBe("No engine found yet.");
  });

  it("notices an engine installed while it is open by itself, within seconds, and stops looking once closed", async () => {
    const p = panel({ kind: "missing", configured: "" });
    await vi.advanceTimersByTimeAsync(CHECK_MS * 2);
    // The panel's own looks, not the user's: a running engine is never stopped by them.
    expect(p.checks).toEqual([false, false]);
    p.install();
    await vi.advanceTimersByTimeAsync(CHECK_MS);
    expect(Modal.openForTest).not.toContain(p.m);
    const n = p.checks.length;
    await vi.advanceTimersByTimeAsync(CHECK_MS * 5);
    expect(p.checks).toHaveLength(n);
  });

  it("an engine too old shows the upgrade command; one too new for the plugin says to update the plugin and shows no command", () => {
    const old = panel({ kind: "incompatible", compat: "engine-too-old", version: "0.0.1", source: "install", path: "/opt/homebrew/bin/quire" });
    expect(old.el.querySelector(".modal-title")?.textContent).toBe("Upgrade Quire's engine");
    expect(old.el.textContent).toContain("The Quire engine at /opt/homebrew/bin/quire is version 0.0.1, too old for this plugin: upgrade the engine.");
    expect(old.el.querySelector(".quire-engine-command")?.textContent).toBe("brew upgrade quire");
    old.m.close();
    const lacking = panel({ kind: "lacking", version: "0.0.9", lacking: ["ask.query"], source: "running" });
    expect(lacking.el.querySelector(".quire-engine-command")?.textContent).toBe("brew upgrade quire");
    expect(lacking.el.textContent).toContain("lacks ask.query");
    lacking.m.close();
    const newer = panel({ kind: "incompatible", compat: "plugin-too-old", version: "9.0.0", source: "running", pid: 7 });
    expect(newer.el.querySelector(".modal-title")?.textContent).toBe("Update the Quire plugin");
    expect(newer.el.querySelector(".quire-engine-command")).toBeNull();
    expect(newer.button("Copy")).toBeUndefined();
  });
});
