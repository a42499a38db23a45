// @vitest-environment jsdom
import { beforeEach, describe, expect, it } from "vitest";
import { Client } from "../src/sidecar/client";
import { NoteOpener } from "../src/views/open";
import { SOURCE_NOTE_VIEW, SourceNoteView, headingsAt, resolveIn } from "../src/views/source-note";
import { App, MarkdownRenderer, MarkdownView } from "./obsidian-stub";
import { FakeServer, settle } from "./fake-sidecar";

const deploy = "---\ntags: [ops]\n---\n# Deploy\n\nShip it on Fridays.\n\n```sh\n# not a heading\n```\n\n## Rollback\n\nRoll the pods back one by one. See [[checks]].\n\n## After\n\nTell the team.\n";
const rev = "9f2c1e0b7a4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b";
const byteOf = (text: string, s: string) => new TextEncoder().encode(text.slice(0, text.indexOf(s))).length;

describe("headingsAt", () => {
  it("gives the heading path above a byte offset, leaving frontmatter and fenced code out", () => {
    const at = headingsAt(deploy, byteOf(deploy, "Roll the pods"));
    expect(at.path.map((h) => h.text)).toEqual(["Deploy", "Rollback"]);
    expect(at.index).toBe(1); // "# not a heading" is code: the second heading drawn is Rollback
    expect(headingsAt(deploy, byteOf(deploy, "Tell the team")).path.map((h) => h.text)).toEqual(["Deploy", "After"]);
    expect(headingsAt("Text above any heading.\n# Later\n", 0)).toEqual({ path: [], index: -1 });
  });

  it("resolves a link target against the note's folder", () => {
    expect(resolveIn("runbooks/", "checks.md")).toBe("runbooks/checks.md");
    expect(resolveIn("runbooks/db/", "../checks.md")).toBe("runbooks/checks.md");
    expect(resolveIn("runbooks/", "/index.md")).toBe("index.md");
  });
});

describe("SourceNoteView", () => {
  let app: App;
  let server: FakeServer;
  let asked: { source?: string; path: string }[];
  let opener: NoteOpener;

  beforeEach(async () => {
    HTMLElement.prototype.scrollIntoView ??= () => {}; // jsdom has none
    app = new App();
    // A vault note of the same path as the source's: never what is shown.
    app.vault.files.set("runbooks/deploy.md", "# Vault deploy\n");
    server = new FakeServer();
    asked = [];
    server.reply = (f, s) => {
      if (f.type !== "note.get") return;
      const q = f.payload as { source?: string; path: string };
      asked.push(q);
      if (q.path === "runbooks/deploy.md") s.push({ id: f.id!, type: "note.result", payload: { source: "ops", revision: rev, path: q.path, text: deploy } });
      else s.push({ id: f.id!, type: "error", payload: { code: "not_found", message: `note not indexed: ops:${q.path}` } });
    };
    const client = await Client.connect({ url: "ws://x/", token: server.token, clientName: "t", socket: server.factory });
    app.viewRegistryForTest.set(SOURCE_NOTE_VIEW, (leaf) => new SourceNoteView(leaf as never, { client: () => client, render: (md, el, p, c) => MarkdownRenderer.render(app, md, el, p, c as never) }) as never);
    opener = new NoteOpener({ vault: app.vault as never, workspace: app.workspace as never, metadataCache: app.metadataCache as never });
  });

  const shown = () => app.workspace.getLeavesOfType(SOURCE_NOTE_VIEW)[0]?.view as unknown as SourceNoteView | undefined;

  it("opens a git source's passage read-only: its text rendered, the heading path marked, the source and revision named", async () => {
    await opener.open("ops:runbooks/deploy.md", byteOf(deploy, "## Rollback"));
    await settle();
    expect(asked).toEqual([{ source: "ops", path: "runbooks/deploy.md" }]);
    const view = shown()!;
    const el = view.contentEl;
    expect(el.querySelector(".quire-source-note-meta")?.textContent).toBe(`Read-only Source ops · revision ${rev.slice(0, 12)} · runbooks/deploy.md`);
    expect(el.querySelector(".quire-source-note-crumb")?.textContent).toBe("Deploy › Rollback");
    expect(el.querySelector(".quire-source-note-target")?.textContent).toBe("Rollback");
    expect(el.querySelector(".quire-source-note-body")?.textContent).toContain("Roll the pods back one by one.");
    expect(el.querySelector(".quire-source-note-body")?.textContent).not.toContain("tags: [ops]");
    expect(view.getDisplayText()).toBe("deploy (ops)");
    expect(view.getState()).toEqual({ key: "ops:runbooks/deploy.md", start: byteOf(deploy, "## Rollback") });
    // Never a vault file: no editor opened, the vault's note of that path untouched.
    expect(app.workspace.getLeavesOfType("markdown")).toHaveLength(0);
    expect(app.workspace.getActiveViewOfType(MarkdownView)).toBeNull();
    expect(app.vault.files.get("runbooks/deploy.md")).toBe("# Vault deploy\n");
  });

  it("follows a link to the source's own note, not to a vault note", async () => {
    await opener.open("ops:runbooks/deploy.md", 0);
    await settle();
    expect(shown()!.contentEl.querySelector(".quire-source-note-target")).toBeNull();
    (shown()!.contentEl.querySelector("a.internal-link") as HTMLElement).click();
    await settle();
    expect(asked.at(-1)).toEqual({ source: "ops", path: "runbooks/checks.md" });
    expect(shown()!.contentEl.querySelector(".quire-source-note-error")?.textContent).toContain("note not indexed: ops:runbooks/checks.md");
    expect(app.vault.files.has("checks.md")).toBe(false);
  });

  it("refuses a reply without the source: an older engine read a vault path", async () => {
    server.reply = (f, s) => s.push({ id: f.id!, type: "note.result", payload: { path: "runbooks/deploy.md", text: "# Vault deploy\n" } });
    await opener.open("ops:runbooks/deploy.md", 0);
    await settle();
    expect(shown()!.contentEl.querySelector(".quire-source-note-error")?.textContent).toContain("upgrade");
    expect(shown()!.contentEl.textContent).not.toContain("Vault deploy");
  });

  it("reads a source's note for a hover from the engine, a vault note from the vault", async () => {
    const read = new NoteOpener({
      vault: app.vault as never,
      workspace: app.workspace as never,
      metadataCache: app.metadataCache as never,
      sourceText: async (key) => `engine text of ${key}`,
    });
    expect(await read.read("ops:runbooks/deploy.md")).toBe("engine text of ops:runbooks/deploy.md");
    expect(await read.read("runbooks/deploy.md")).toBe("# Vault deploy\n");
    await expect(opener.read("ops:runbooks/deploy.md")).rejects.toThrow("not in the vault");
  });
});
