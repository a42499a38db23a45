import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, SECRET_ID, type QuireSettings, keyStore } from "../src/settings";

class Secrets {
  map = new Map<string, string>();
  getSecret(id: string): string | null {
    return this.map.get(id) ?? null;
  }
  setSecret(id: string, s: string): void {
    this.map.set(id, s);
  }
}

describe("keyStore", () => {
  it("moves a key found in data.json into Obsidian's secret storage and keeps it there", async () => {
    const settings: QuireSettings = { ...DEFAULT_SETTINGS, apiKey: "sk-old" };
    const saved: Partial<QuireSettings>[] = [];
    const secrets = new Secrets();
    const key = await keyStore(secrets, settings, async (c) => void (saved.push(c), Object.assign(settings, c)));
    expect(key.secure).toBe(true);
    expect(secrets.getSecret(SECRET_ID)).toBe("sk-old");
    expect(settings.apiKey).toBe("");
    expect(saved).toEqual([{ apiKey: "" }]);
    await key.set("sk-new");
    expect(key.get()).toBe("sk-new");
    expect(settings.apiKey).toBe("");
  });

  it("without secret storage keeps the key in data.json and says it is not secure", async () => {
    const settings: QuireSettings = { ...DEFAULT_SETTINGS };
    const key = await keyStore(null, settings, async (c) => void Object.assign(settings, c));
    expect(key.secure).toBe(false);
    await key.set("sk-1");
    expect(settings.apiKey).toBe("sk-1");
  });
});
