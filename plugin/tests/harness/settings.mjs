// The settings tab in the browser harness: the sidecar's settings round trip
// through config.get and config.set.
import { promises as fsp } from "node:fs";
import { join } from "node:path";

/** settingsScenarios runs on the model session (modelSession). */
export async function settingsScenarios(h, s) {
  const { scenario, expect, Pending, waitFor, shot } = h;
  const { pageD, vaultD, model } = s;
  await scenario("settings: the sidecar's settings round trip through config.get and config.set", async () => {
    await pageD.evaluate(() => window.harness.settings());
    await waitFor(pageD, () => document.querySelector(".quire-settings-status, .quire-settings-note:not(:empty)") && !/Reading/.test(document.querySelector(".quire-settings-sidecar")?.textContent ?? "Reading"));
    const note = await pageD.evaluate(() => document.querySelector(".quire-settings-note")?.textContent ?? "");
    if (/not answered by this sidecar/.test(note)) throw new Pending(`the sidecar does not answer config.get yet (${note})`);
    expect(!note, `settings say: ${note}`);
    const endpoint = await pageD.evaluate(() => [...document.querySelectorAll(".setting-item")].find((e) => e.querySelector(".setting-item-name")?.textContent === "Endpoint")?.querySelector("input")?.value);
    expect(endpoint === `http://127.0.0.1:${model.server.address().port}`, `endpoint shown: ${endpoint}`);
    const field = (name, sel = "input") => `.setting-item:has(.setting-item-name:text-is("${name}")) ${sel}`;
    await pageD.fill(field("Ignore", "textarea"), "Templates/\nTravel/");
    await pageD.dispatchEvent(field("Ignore", "textarea"), "change");
    await pageD.fill(field("API key"), "sk-harness-secret");
    await pageD.dispatchEvent(field("API key"), "blur");
    await shot(pageD, "settings.png");
    await pageD.click(`.setting-item:has(.setting-item-name:text-is("Apply")) button`);
    await waitFor(pageD, () => /Applied|Not applied/.test(document.querySelector(".quire-settings-status")?.textContent ?? ""));
    const status = await pageD.textContent(".quire-settings-status");
    expect(status.startsWith("Applied"), `apply: ${status}`);
    const yaml = await fsp.readFile(join(vaultD, ".quire", "config.yaml"), "utf8");
    expect(yaml.includes("Travel/"), `config.yaml lacks the new ignore prefix:\n${yaml}`);
    expect(!yaml.includes("sk-harness-secret"), "the API key was written to config.yaml");
    const data = await pageD.evaluate(() => window.harness.plugin.savedData.at(-1));
    expect(data.apiKey === "sk-harness-secret", "the API key is not in the plugin's data");
    // Reading again shows what the sidecar holds now.
    await pageD.evaluate(() => window.harness.settings());
    await waitFor(pageD, () => document.querySelector(".quire-settings-status") !== null);
    const ignore = await pageD.inputValue(field("Ignore", "textarea"));
    expect(ignore.split("\n").includes("Travel/"), `ignore after reload: ${ignore}`);
    await shot(pageD, "settings-applied.png");
    await pageD.evaluate(() => window.harness.closeSettings());
  });
}
