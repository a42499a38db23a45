import { type App, Modal, Notice } from "obsidian";
import { type EngineProblem, type Sidecar, incompatibleText } from "../sidecar/lifecycle";
import { type Found, PLUGIN_VERSION } from "../sidecar/locate";
import { type Install, type System, installFor } from "../sidecar/setup";

/** CHECK_MS is how often the open panel looks for an engine by itself: an install is noticed within seconds. */
export const CHECK_MS = 2000;

/** EngineModalDeps is what the first-run panel needs. */
export interface EngineModalDeps {
  /** problem is why the panel opened: no engine, one this plugin cannot talk to, or one that lacks features. */
  problem: EngineProblem;
  /** install is the command for this system. */
  install: Install;
  /** copy puts text on the clipboard. */
  copy(text: string): Promise<void>;
  /**
   * check looks for an engine again and, when it finds one this plugin can
   * talk to that solves the problem, starts it; it resolves true once that
   * engine serves (the panel then closes). asked says the user pressed
   * Check again, rather than the panel's own look every few seconds.
   */
  check(asked: boolean): Promise<boolean>;
  /** openSettings opens Quire's settings, to set the engine's path by hand. */
  openSettings(): void;
  /** checkMs overrides CHECK_MS, for tests. */
  checkMs?: number;
}

/**
 * EngineModal is the first-run panel. Quire never installs a program
 * itself (Obsidian's developer policies forbid it): the panel names this
 * system and shows the one command that installs (or upgrades) the engine
 * with its package manager, with Copy and Check again, and looks for the
 * engine by itself every few seconds while it is open.
 */
export class EngineModal extends Modal {
  private timer: number | null = null;
  private checking = false;
  /** askedMeanwhile says Check again was pressed while the panel's own look ran: the user gets a look of theirs after it. */
  private askedMeanwhile = false;
  private stateEl: HTMLElement | null = null;

  constructor(
    app: App,
    private readonly deps: EngineModalDeps,
  ) {
    super(app);
  }

  override onOpen(): void {
    this.modalEl.addClass("quire-engine-modal");
    const p = this.deps.problem;
    this.titleEl.setText(p.kind === "missing" ? "Set up Quire" : p.kind === "incompatible" && p.compat === "plugin-too-old" ? "Update the Quire plugin" : "Upgrade Quire's engine");
    this.draw();
    this.timer = window.setInterval(() => void this.check(false), this.deps.checkMs ?? CHECK_MS);
  }

  override onClose(): void {
    if (this.timer !== null) window.clearInterval(this.timer);
    this.timer = null;
    this.contentEl.empty();
  }

  private draw(): void {
    const el = this.contentEl;
    el.empty();
    el.addClass("quire-engine");
    const p = this.deps.problem;
    const inst = this.deps.install;
    let command = inst.install;
    if (p.kind === "missing") {
      const where = p.configured ? `was not found at ${p.configured} (the path in the plugin's settings), nor on the system path or where package managers put it` : "is not on this computer yet: not on the system path, nor where package managers put it";
      el.createEl("p", { text: `Quire's engine, the program that indexes and searches your notes on this computer, ${where}.` });
      el.createEl("p", { cls: "quire-engine-system", text: `On ${inst.system}, install it with ${inst.via}:` });
    } else if (p.kind === "incompatible" && p.compat === "plugin-too-old") {
      el.createEl("p", { text: incompatibleText(p) });
      command = "";
    } else {
      el.createEl("p", { text: p.kind === "incompatible" ? incompatibleText(p) : `Quire's engine ${p.version} is older than this plugin and lacks ${p.lacking.join(", ")}; the rest works.` });
      el.createEl("p", { cls: "quire-engine-system", text: `On ${inst.system}, upgrade it with ${inst.via}:` });
      command = inst.upgrade;
    }
    if (command) {
      el.createEl("pre", { cls: "quire-engine-command", text: command });
      el.createEl("p", { cls: "quire-engine-note", text: "Run it in a terminal. Quire never downloads or installs programs itself; this panel notices the engine by itself a few seconds after it is installed." });
    }
    const bar = el.createDiv({ cls: "modal-button-container" });
    if (command) {
      const copy = bar.createEl("button", { cls: "mod-cta", text: "Copy" });
      copy.addEventListener("click", () => {
        void this.deps.copy(command).then(
          () => copy.setText("Copied"),
          () => copy.setText("Copy failed: select the command"),
        );
      });
    }
    bar.createEl("button", { text: "Check again" }).addEventListener("click", () => void this.check(true));
    bar.createEl("button", { text: "Set the path in settings" }).addEventListener("click", () => {
      this.close();
      this.deps.openSettings();
    });
    bar.createEl("button", { text: "Not now" }).addEventListener("click", () => this.close());
    this.stateEl = el.createDiv({ cls: "quire-engine-state", attr: { "aria-live": "polite" } });
  }

  /** check looks for the engine once; asked says the user pressed Check again, who is told what it found. */
  private async check(asked: boolean): Promise<void> {
    if (asked) this.stateEl?.setText("Looking for the engine…");
    if (this.checking) {
      // Pressing Check again during the panel's own look (slow on a busy
      // machine) is not dropped: the user is answered once that look ends.
      this.askedMeanwhile ||= asked;
      return;
    }
    this.checking = true;
    try {
      if (await this.deps.check(asked)) {
        this.close();
        return;
      }
      if (asked) this.stateEl?.setText(this.deps.problem.kind === "missing" ? "No engine found yet." : "The engine found is still the same one.");
    } finally {
      this.checking = false;
      if (this.askedMeanwhile && this.timer !== null) {
        this.askedMeanwhile = false;
        void this.check(true);
      }
    }
  }
}

/** openQuireSettings opens the app's settings at Quire's tab. */
export function openQuireSettings(app: App, id: string): void {
  const setting = (app as unknown as { setting?: { open(): void; openTabById(id: string): void } }).setting;
  setting?.open();
  setting?.openTabById(id);
}

/** EnginePanelDeps is what EnginePanel needs; main.ts builds it. */
export interface EnginePanelDeps {
  app: App;
  pluginId: string;
  /** system reads this system (OS, CPU, package managers) for the install command. */
  system(): Promise<System>;
  /** locate looks for an engine (settings, PATH, the package managers' places). */
  locate(): Promise<Found | null>;
  sidecar(): Pick<Sidecar, "start" | "replace" | "state" | "engine">;
}

/**
 * EnginePanel opens the first-run panel for a problem, one at a time: a
 * problem reported while the panel is open, or while the system is still
 * being read for it, opens no second one.
 */
export class EnginePanel {
  // The panel, or its opening while the system is read.
  private panel: EngineModal | Promise<void> | null = null;

  constructor(private readonly deps: EnginePanelDeps) {}

  open(problem: EngineProblem): void {
    if (this.panel) return;
    const opening = this.deps.system().then((system) => {
      if (this.panel !== opening) return;
      const m = new EngineModal(this.deps.app, {
        problem,
        install: installFor(system, PLUGIN_VERSION),
        copy: (text) => navigator.clipboard.writeText(text),
        check: (asked) => this.check(problem, asked),
        openSettings: () => openQuireSettings(this.deps.app, this.deps.pluginId),
      });
      const close = m.onClose.bind(m);
      m.onClose = () => {
        close();
        this.panel = null;
      };
      this.panel = m;
      m.open();
    });
    this.panel = opening;
  }

  /** dispose closes the panel; one still reading the system opens no more. */
  dispose(): void {
    if (this.panel instanceof EngineModal) this.panel.close();
    this.panel = null;
  }

  private async check(problem: EngineProblem, asked: boolean): Promise<boolean> {
    // An engine that runs (maybe for another front end) is stopped only when the user asks.
    if (problem.kind !== "missing" && problem.source === "running" && !asked) return false;
    const found = await this.deps.locate();
    if (!found || found.compat !== "ok") return false;
    // A lacking engine that serves is still the same one until its version changes.
    if (problem.kind === "lacking" && found.version === problem.version) return false;
    const sidecar = this.deps.sidecar();
    if (problem.kind === "missing") await sidecar.start({ explicit: true });
    else await sidecar.replace();
    if (sidecar.state.kind !== "online") return false;
    new Notice(`Quire's engine ${sidecar.engine?.version ?? found.version} is running.`, 6000);
    return true;
  }
}
