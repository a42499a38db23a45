import { type App, Modal } from "obsidian";
import { type AskScope, type AskState, Conversation } from "../ask-session";
import { AskPanel, type AskPanelDeps } from "../views/ask-panel";

/** AskModalDeps is what the Ask modal needs; main.ts builds it. Each modal holds its own conversation. */
export type AskModalDeps = Omit<AskPanelDeps, "conversation" | "leave">;

/**
 * AskModal asks the vault questions in a conversation of its own (see
 * AskPanel); it closes when an action takes the user to a note. The Ask
 * sidebar view holds the same panel and keeps its conversation.
 */
export class AskModal extends Modal {
  private readonly panel: AskPanel;

  constructor(
    app: App,
    deps: AskModalDeps,
    private readonly initial = "",
    scope: AskScope = {},
  ) {
    super(app);
    const conversation = new Conversation();
    conversation.scope = scope;
    this.panel = new AskPanel(app, { ...deps, conversation, leave: () => this.close() }, this.contentEl);
  }

  /** state is the current question's state, for tests. */
  get state(): AskState {
    return this.panel.state;
  }

  override onOpen(): void {
    this.modalEl.addClass("quire-ask-modal");
    this.titleEl.setText("Ask vault");
    this.panel.open(this.initial);
  }

  override onClose(): void {
    this.panel.close();
  }

  /** submit asks what the question field holds. */
  async submit(): Promise<void> {
    await this.panel.submit();
  }
}
