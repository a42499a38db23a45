import { type App, Modal } from "obsidian";

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
