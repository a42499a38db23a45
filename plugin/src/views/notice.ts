import { Notice } from "obsidian";
import type { NoticeHandle } from "../ingest";
import type { LastOffer, NoticeAction } from "../notices";

/** noticeBody is a notice's content: a message, a few lines under it and buttons that hide it when used; last, when given, keeps them for the keyboard. */
function noticeBody(message: string, lines: string[], actions: NoticeAction[], hide: () => void, last?: LastOffer): DocumentFragment {
  last?.remember(actions, hide);
  const frag = createFragment();
  const box = frag.createDiv({ cls: "quire-notice" });
  box.createDiv({ cls: "quire-notice-message", text: message });
  for (const l of lines) box.createDiv({ cls: "quire-notice-line", text: l });
  if (actions.length > 0) {
    const bar = box.createDiv({ cls: "quire-notice-actions" });
    for (const a of actions) {
      const b = bar.createEl("button", { cls: "quire-notice-button", text: a.label });
      b.setAttr("title", "Or run the command Open what the last notice offered");
      b.addEventListener("click", (evt) => {
        evt.stopPropagation();
        last?.forget();
        hide();
        a.run();
      });
    }
  }
  return frag;
}

/** showNotice draws a notice with a message, a few lines under it and buttons. */
export function showNotice(message: string, lines: string[], actions: NoticeAction[], timeoutMs: number, last?: LastOffer): Notice {
  let notice: Notice | null = null;
  notice = new Notice(noticeBody(message, lines, actions, () => notice?.hide(), last), timeoutMs);
  return notice;
}

/** liveNotice is a notice whose text can change in place (ingest progress), and end with buttons. */
export function liveNotice(text: string, timeoutMs: number, last?: LastOffer): NoticeHandle {
  const n = new Notice(text, timeoutMs);
  return {
    setText: (t) => n.setMessage(t),
    hide: () => n.hide(),
    offer: (t, actions) => n.setMessage(noticeBody(t, [], actions, () => n.hide(), last)),
  };
}
