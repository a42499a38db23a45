import { type App, Modal } from "obsidian";

/** confirm asks a yes-or-no question in a modal; it resolves true only on the action button. */
export function confirm(app: App, title: string, body: string, action: string): Promise<boolean> {
  return new Promise((resolve) => {
    let answer = false;
    const m = new Modal(app);
    m.titleEl.setText(title);
    m.contentEl.createEl("p", { text: body });
    const bar = m.contentEl.createDiv({ cls: "modal-button-container" });
    const yes = bar.createEl("button", { cls: "mod-cta", text: action });
    const no = bar.createEl("button", { text: "Cancel" });
    yes.addEventListener("click", () => {
      answer = true;
      m.close();
    });
    no.addEventListener("click", () => m.close());
    m.onClose = () => resolve(answer);
    m.open();
    yes.focus();
  });
}
