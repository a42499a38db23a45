import { Plugin } from "obsidian";
import { type QuireSettings, QuireSettingTab, mergeSettings } from "./settings";

/**
 * QuirePlugin wires Quire's surfaces into Obsidian. It stays short: each
 * surface is a narrow object built here, and everything it registers is
 * undone by Obsidian on unload.
 */
export default class QuirePlugin extends Plugin {
  override settings: QuireSettings = mergeSettings(undefined);
  private statusEl: HTMLElement | null = null;

  override async onload(): Promise<void> {
    this.settings = mergeSettings(await this.loadData());

    this.statusEl = this.addStatusBarItem();
    this.statusEl.addClass("quire-status");
    this.statusEl.setText("Quire: offline");

    this.addSettingTab(
      new QuireSettingTab(this.app, this, {
        settings: this.settings,
        save: (change) => this.saveSettings(change),
      }),
    );
  }

  override onunload(): void {
    this.statusEl = null;
  }

  private async saveSettings(change: Partial<QuireSettings>): Promise<void> {
    Object.assign(this.settings, change);
    await this.saveData(this.settings);
  }
}
