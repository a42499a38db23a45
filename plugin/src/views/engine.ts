import { type App, Modal } from "obsidian";
import { formatBytes } from "../sidecar/engine";
import type { InstallState, Installer } from "../sidecar/install";
import type { EngineProblem } from "../sidecar/lifecycle";

/** EngineModalDeps is what the first-run panel needs. */
export interface EngineModalDeps {
  installer: Installer;
  /** problem is why the panel opened: no engine, or one of another version. */
  problem: EngineProblem;
  /** installed runs after a good download: the plugin starts (or replaces) the engine. */
  installed(): Promise<void>;
  /** openSettings opens Quire's settings, to set the engine's path by hand. */
  openSettings(): void;
}

/**
 * EngineModal is the first-run panel: it says that Quire needs its engine,
 * what will be downloaded from where (size, address, folder), and shows
 * the download's progress with a Cancel button. It also serves "Update the
 * engine" when the engine found or running is of another version.
 */
export class EngineModal extends Modal {
  private unsub: (() => void) | null = null;

  constructor(
    app: App,
    private readonly deps: EngineModalDeps,
  ) {
    super(app);
  }

  override onOpen(): void {
    this.modalEl.addClass("quire-engine-modal");
    this.titleEl.setText(this.deps.problem.kind === "missing" ? "Set up Quire" : "Update Quire's engine");
    this.draw(this.deps.installer.state);
    this.unsub = this.deps.installer.onChange((s) => this.draw(s));
  }

  override onClose(): void {
    this.unsub?.();
    this.contentEl.empty();
  }

  private draw(s: InstallState): void {
    const el = this.contentEl;
    el.empty();
    el.addClass("quire-engine");
    const inst = this.deps.installer;
    const p = this.deps.problem;
    if (p.kind === "missing") {
      const where = p.configured ? `not found at ${p.configured} (the path in the plugin's settings)` : "not found: not in the plugin's settings";
      el.createEl("p", { text: `Quire's engine, the program that indexes and searches your notes on this computer, was ${where}, not downloaded by the plugin, and not on the system path or in the usual install folders.` });
    } else {
      const where = p.source === "running" ? `The engine running for this vault` : `The engine at ${p.path ?? "?"}`;
      el.createEl("p", { text: `${where} is ${p.version ? `version ${p.version}` : "an older version"}; this plugin needs version ${p.want}.` });
    }
    const b = inst.build;
    if (b) {
      const list = el.createEl("ul", { cls: "quire-engine-facts" });
      list.createEl("li", { text: `Download: ${b.file}, ${formatBytes(b.size)}` });
      list.createEl("li", { text: `From: ${inst.url}` });
      list.createEl("li", { text: `Kept in: ${inst.dest ?? "?"} (outside the vault, so sync does not copy it)` });
      list.createEl("li", { text: "Checked against the SHA-256 built into this plugin before it is ever run." });
    } else {
      el.createEl("p", { cls: "quire-engine-note", text: inst.noBuild() });
    }
    const msg = el.createDiv({ cls: "quire-engine-state" });
    const bar = el.createDiv({ cls: "modal-button-container" });
    switch (s.kind) {
      case "idle":
      case "failed": {
        if (s.kind === "failed") msg.createDiv({ cls: "quire-engine-error", text: s.message });
        if (b) {
          const go = bar.createEl("button", { cls: "mod-cta", text: `${s.kind === "failed" ? "Try again" : p.kind === "missing" ? "Download" : "Update the engine"} (${formatBytes(b.size)})` });
          go.addEventListener("click", () => void this.download());
        }
        bar.createEl("button", { text: "Set the path in settings" }).addEventListener("click", () => {
          this.close();
          this.deps.openSettings();
        });
        bar.createEl("button", { text: "Not now" }).addEventListener("click", () => this.close());
        break;
      }
      case "downloading": {
        const box = msg.createDiv({ cls: "quire-engine-progress" });
        const bar2 = box.createEl("progress");
        bar2.max = s.total;
        bar2.value = s.done;
        box.createDiv({ cls: "quire-engine-progress-text", text: `${formatBytes(s.done)} of ${formatBytes(s.total)} (${Math.floor((s.done / Math.max(1, s.total)) * 100)}%)` });
        bar.createEl("button", { text: "Cancel" }).addEventListener("click", () => inst.cancel());
        break;
      }
      case "done":
        msg.createDiv({ cls: "quire-engine-ok", text: "The engine is in place and matches its checksum. Starting Quire…" });
        bar.createEl("button", { text: "Close" }).addEventListener("click", () => this.close());
        break;
    }
  }

  private async download(): Promise<void> {
    const path = await this.deps.installer.install();
    if (path === null) return;
    await this.deps.installed();
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
