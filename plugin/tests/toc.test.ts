// @vitest-environment jsdom
import { beforeEach, describe, expect, it } from "vitest";
import type { TOCResult } from "../../proto/proto.gen";
import { Client } from "../src/sidecar/client";
import { openAt } from "../src/views/open";
import { SOURCE_NOTE_VIEW, SourceNoteView } from "../src/views/source-note";
import { TOC_VIEW, TOCView, matches } from "../src/views/toc";
import { App, MarkdownRenderer } from "./obsidian-stub";
import { FakeServer, settle } from "./fake-sidecar";

const rev = "9f2c1e0b7a4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b";
const tocs: Record<string, TOCResult> = {
  ops: {
    source: "ops",
    revision: rev,
    folders: [
      {
        folder: "runbooks",
        notes: [
          { source: "ops", path: "runbooks/deploy.md", title: "Deploy", tags: ["ops/deploy"], headings: [{ depth: 1, text: "Deploy" }, { depth: 2, text: "Rollback" }] },
          { source: "ops", path: "runbooks/dns.md", title: "DNS", headings: [{ depth: 1, text: "DNS" }] },
        ],
      },
    ],
    withheld: 1,
  },
  vault: { source: "vault", folders: [{ folder: "", notes: [{ source: "vault", path: "Home.md", title: "Home" }] }] },
};

describe("TOCView", () => {
  let app: App;
  let server: FakeServer;
  let asked: string[];
  let opened: [string, string | null, boolean][];

  beforeEach(async () => {
    app = new App();
    server = new FakeServer();
    asked = [];
    opened = [];
    server.reply = (f, s) => {
      if (f.type === "sources.list") {
        s.push({
          id: f.id!,
          type: "sources.result",
          payload: {
            sources: [
              { id: "vault", kind: "vault", where: "/v", notes: 1, passages: 1, vectors: 0 },
              { id: "ops", kind: "git", where: "/ops", revision: rev, notes: 2, passages: 5, vectors: 0 },
            ],
          },
        });
      } else if (f.type === "toc.get") {
        const source = (f.payload as { source?: string }).source ?? "vault";
        asked.push(source);
        s.push({ id: f.id!, type: "toc.result", payload: structuredClone(tocs[source]) });
      }
    };
    const client = await Client.connect({ url: "ws://x/", token: server.token, clientName: "t", socket: server.factory });
    app.viewRegistryForTest.set(TOC_VIEW, (leaf) => new TOCView(leaf as never, { client: () => client, open: (p, h, n) => opened.push([p, h, n]) }) as never);
  });

  const open = async (source?: string) => {
    const leaf = app.workspace.getRightLeaf(false)!;
    await leaf.setViewState({ type: TOC_VIEW, active: true, ...(source ? { state: { source } } : {}) });
    await settle();
    return leaf.view as unknown as TOCView;
  };

  it("lists the sources and shows the one chosen: folder, notes, headings; a note or heading opens it by its key", async () => {
    const view = await open("ops");
    const el = view.contentEl;
    const options = Array.from(el.querySelectorAll("select.quire-toc-source option")).map((o) => o.textContent);
    expect(options).toEqual(["Vault · 1 notes", "ops (git) · 2 notes"]);
    expect((el.querySelector("select.quire-toc-source") as HTMLSelectElement).value).toBe("ops");
    expect(el.querySelector(".quire-toc-meta")?.textContent).toBe(`Revision ${rev.slice(0, 12)} · 1 private notes withheld`);
    expect(el.querySelector(".quire-toc-folder summary")?.textContent).toBe("runbooks/ (2)");
    expect(Array.from(el.querySelectorAll(".quire-toc-note-title")).map((a) => a.textContent)).toEqual(["Deploy", "DNS"]);
    // The title's own top heading is not repeated under it.
    expect(Array.from(el.querySelectorAll(".quire-toc-heading")).map((a) => a.textContent)).toEqual(["Rollback"]);
    (el.querySelector(".quire-toc-note-title") as HTMLElement).click();
    (el.querySelector(".quire-toc-heading") as HTMLElement).dispatchEvent(new MouseEvent("click", { bubbles: true, ctrlKey: true }));
    expect(opened).toEqual([
      ["ops:runbooks/deploy.md", null, false],
      ["ops:runbooks/deploy.md", "Rollback", true],
    ]);
    expect(view.getState()).toEqual({ source: "ops" });
  });

  it("filters notes by path, title, tag and heading, and switches source", async () => {
    const view = await open("ops");
    const el = view.contentEl;
    const filter = el.querySelector("input.quire-toc-filter") as HTMLInputElement;
    filter.value = "rollback";
    filter.dispatchEvent(new Event("input"));
    expect(Array.from(el.querySelectorAll(".quire-toc-note-title")).map((a) => a.textContent)).toEqual(["Deploy"]);
    filter.value = "nothing-like-it";
    filter.dispatchEvent(new Event("input"));
    expect(el.querySelector(".quire-toc-empty")?.textContent).toBe("No note matches the filter.");
    const select = el.querySelector("select.quire-toc-source") as HTMLSelectElement;
    select.value = "vault";
    select.dispatchEvent(new Event("change"));
    await settle();
    expect(asked).toEqual(["ops", "vault"]);
    expect(Array.from(view.contentEl.querySelectorAll(".quire-toc-note-title")).map((a) => a.textContent)).toEqual(["Home"]);
  });

  it("matches every word of the filter", () => {
    const n = tocs["ops"]!.folders[0]!.notes[0]!;
    expect(matches(n, "#ops/deploy")).toBe(true);
    expect(matches(n, "deploy rollback")).toBe(true);
    expect(matches(n, "deploy dns")).toBe(false);
  });

  it("says so when the engine is offline", async () => {
    app.viewRegistryForTest.set(TOC_VIEW, (leaf) => new TOCView(leaf as never, { client: () => null, open: () => {} }) as never);
    const view = await open();
    expect(view.contentEl.querySelector(".quire-toc-error")?.textContent).toBe("Quire's engine is not running.");
  });
});

describe("openAt", () => {
  it("opens a vault note at a heading by its link, another source's note read-only at that heading", async () => {
    HTMLElement.prototype.scrollIntoView ??= () => {}; // jsdom has none
    const app = new App();
    const server = new FakeServer();
    const text = "# Deploy\n\nIntro.\n\n## Rollback\n\nBack.\n";
    server.reply = (f, s) => s.push({ id: f.id!, type: "note.result", payload: { source: "ops", revision: rev, path: "runbooks/deploy.md", text } });
    const client = await Client.connect({ url: "ws://x/", token: server.token, clientName: "t", socket: server.factory });
    app.viewRegistryForTest.set(SOURCE_NOTE_VIEW, (leaf) => new SourceNoteView(leaf as never, { client: () => client, render: (md, el, p, c) => MarkdownRenderer.render(app, md, el, p, c as never) }) as never);
    app.vault.files.set("Home.md", "# Home\n\n## Plans\n");
    await openAt(app.workspace as never, "Home.md", "Plans", false);
    expect(app.workspace.linksOpenedForTest).toEqual(["Home.md#Plans"]);
    await openAt(app.workspace as never, "ops:runbooks/deploy.md", "Rollback", false);
    await settle();
    const view = app.workspace.getLeavesOfType(SOURCE_NOTE_VIEW)[0]!.view as unknown as SourceNoteView;
    expect(view.contentEl.querySelector(".quire-source-note-target")?.textContent).toBe("Rollback");
    expect(view.contentEl.querySelector(".quire-source-note-crumb")?.textContent).toBe("Deploy › Rollback");
    expect(view.getState()).toEqual({ key: "ops:runbooks/deploy.md", start: 0, heading: "Rollback" });
  });
});
