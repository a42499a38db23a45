import { type App, Modal } from "obsidian";
import { type EngineProblem, incompatibleText } from "../sidecar/lifecycle";
import type { Install } from "../sidecar/setup";

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
    if (this.checking) return;
    this.checking = true;
    if (asked) this.stateEl?.setText("Looking for the engine…");
    try {
      if (await this.deps.check(asked)) {
        this.close();
        return;
      }
      if (asked) this.stateEl?.setText(this.deps.problem.kind === "missing" ? "No engine found yet." : "The engine found is still the same one.");
    } finally {
      this.checking = false;
    }
  }
}

/** LogModal shows the engine's last stderr lines ("Show log" after it crashed for good). */
export class LogModal extends Modal {
  constructor(
    app: App,
    private readonly lines: string[],
  ) {
    super(app);
  }

  override onOpen(): void {
    this.titleEl.setText("Quire engine log");
    this.contentEl.createEl("p", { text: "The last lines the engine wrote before it stopped:" });
    this.contentEl.createEl("pre", { cls: "quire-engine-log", text: this.lines.length > 0 ? this.lines.join("\n") : "(it wrote nothing)" });
  }

  override onClose(): void {
    this.contentEl.empty();
  }
}

/** openQuireSettings opens the app's settings at Quire's tab. */
export function openQuireSettings(app: App, id: string): void {
  const setting = (app as unknown as { setting?: { open(): void; openTabById(id: string): void } }).setting;
  setting?.open();
  setting?.openTabById(id);
}
