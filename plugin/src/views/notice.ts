import { Notice } from "obsidian";
import type { NoticeHandle } from "../ingest";
import type { NoticeAction } from "../notices";

/** showNotice draws a notice with a message, a few lines under it and buttons. */
export function showNotice(message: string, lines: string[], actions: NoticeAction[], timeoutMs: number): Notice {
  const frag = document.createDocumentFragment();
  const box = frag.appendChild(document.createElement("div"));
  box.className = "quire-notice";
  box.createDiv({ cls: "quire-notice-message", text: message });
  for (const l of lines) box.createDiv({ cls: "quire-notice-line", text: l });
  const notice = new Notice(frag, timeoutMs);
  if (actions.length > 0) {
    const bar = box.createDiv({ cls: "quire-notice-actions" });
    for (const a of actions) {
      const b = bar.createEl("button", { cls: "quire-notice-button", text: a.label });
      b.addEventListener("click", (evt) => {
        evt.stopPropagation();
        notice.hide();
        a.run();
      });
    }
  }
  return notice;
}

/** liveNotice is a notice whose text can change in place (ingest progress). */
export function liveNotice(text: string, timeoutMs: number): NoticeHandle {
  const n = new Notice(text, timeoutMs);
  return { setText: (t) => n.setMessage(t), hide: () => n.hide() };
}
