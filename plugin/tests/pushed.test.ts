// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LastOffer, PushedNotices, writtenText } from "../src/notices";
import { liveNotice, showNotice } from "../src/views/notice";
import { createHash } from "node:crypto";
import { REVIEW_VIEW, ReviewView, listReview, markReview, quireReview, reviewFolder } from "../src/views/review";
import { type FakeLifecycle, type FakeSocket, online } from "./fake-sidecar";
import { App, Notice, WorkspaceLeaf } from "./obsidian-stub";

describe("PushedNotices", () => {
  let sock: FakeSocket;
  let sidecar: FakeLifecycle;
  let shown: { message: string; lines: string[]; actions: string[] }[];
  let runs: (() => void)[];
  let opened: string[];
  let p: PushedNotices;

  beforeEach(async () => {
    vi.useFakeTimers();
    ({ sock, sidecar } = await online());
    shown = [];
    runs = [];
    opened = [];
    p = new PushedNotices({
      sidecar,
      show: (message, lines, actions) => {
        shown.push({ message, lines, actions: actions.map((a) => a.label) });
        runs.push(...actions.map((a) => a.run));
      },
      openNote: (path) => opened.push(path),
      settleMs: 100,
    });
  });
  afterEach(() => {
    p.dispose();
    vi.useRealTimers();
  });

  const written = (path: string, kind = "source", created = true) => sock.push({ type: "note.written", payload: { path, kind, created } });

  it("one write makes one notice with an Open button", () => {
    written("Quire/Sources/Article.md");
    expect(shown).toEqual([]);
    vi.advanceTimersByTime(100);
    expect(shown).toEqual([{ message: "Quire wrote the source note “Article”.", lines: [], actions: ["Open"] }]);
    runs[0]!();
    expect(opened).toEqual(["Quire/Sources/Article.md"]);
  });

  it("a burst of writes makes one notice; index and log writes make none", () => {
    written("Quire/Sources/A.md");
    written("Quire/Concepts/B.md", "concept");
    written("Quire/Entities/C.md", "entity", false);
    written("Quire/index.md", "index");
    vi.advanceTimersByTime(100);
    expect(shown).toEqual([{ message: "Quire wrote 3 notes.", lines: ["Quire/Sources/A", "Quire/Concepts/B", "Quire/Entities/C"], actions: ["Open"] }]);
  });

  it("a note a surface opens by itself gets no notice, whether its event comes before or after", () => {
    written("Quire/Answers/Q.md", "answer");
    p.opening("Quire/Answers/Q.md");
    p.opening("Quire/Sources/S.md");
    written("Quire/Sources/S.md");
    vi.advanceTimersByTime(100);
    expect(shown).toEqual([]);
  });

  it("a review item makes a notice at once, and tells the review view", async () => {
    const told: string[] = [];
    p.dispose();
    p = new PushedNotices({
      sidecar,
      show: (message, _l, actions) => {
        shown.push({ message, lines: [], actions: actions.map((a) => a.label) });
        runs.push(...actions.map((a) => a.run));
      },
      openNote: (path) => opened.push(path),
      reviewCreated: (r) => told.push(r.path),
    });
    sock.push({ type: "review.created", payload: { path: "Quire/Review/X.md", reason: "The source may contradict Y.", about: "Y.md" } });
    written("Quire/Review/X.md", "review");
    vi.advanceTimersByTime(1000);
    expect(shown).toEqual([{ message: "Quire: something to review. The source may contradict Y.", lines: [], actions: ["Open"] }]);
    expect(told).toEqual(["Quire/Review/X.md"]);
    runs[0]!();
    expect(opened).toEqual(["Quire/Review/X.md"]);
  });

  it("stops following a connection that went away", () => {
    const old = sock;
    sidecar.set({ kind: "offline", reason: "gone", canStart: false });
    old.push({ type: "note.written", payload: { path: "Quire/Sources/Z.md", kind: "source", created: true } });
    vi.advanceTimersByTime(1000);
    expect(shown).toEqual([]);
  });

  it("words updates and unknown kinds", () => {
    expect(writtenText({ path: "Quire/Concepts/Leaven.md", kind: "concept", created: false })).toBe("Quire updated the concept page “Leaven”.");
    expect(writtenText({ path: "X.md", kind: "new-kind", created: true })).toBe("Quire wrote the note “X”.");
  });
});

describe("showNotice", () => {
  it("draws the message, lines and buttons; a button hides the notice and runs", () => {
    let ran = 0;
    const n = showNotice("Quire wrote 2 notes.", ["A", "B"], [{ label: "Open", run: () => ran++ }], 5000) as unknown as Notice;
    expect(n.message).toBe("Quire wrote 2 notes.ABOpen");
    n.messageEl.querySelector("button")!.click();
    expect(ran).toBe(1);
    expect(n.hiddenForTest).toBe(true);
  });
});

describe("ReviewView", () => {
  /** sealed is a page as the engine seals it: the SHA-256 of its bytes with quire_hash empty, put in that line. */
  const sealed = (text: string) => text.replace('quire_hash: ""', `quire_hash: ${createHash("sha256").update(text).digest("hex")}`);
  const review = (reason: string, about = "") =>
    sealed(`---\nquire: generated\nquire_kind: review\nreason: "${reason}"\n${about ? `about: ${about}\n` : ""}quire_hash: ""\n---\n\n# Possible contradiction\n`);
  /** listed waits for the view's listing, which reads and hashes each note. */
  const listed = async (view: ReviewView, n: number) => {
    await vi.advanceTimersByTimeAsync(300);
    await vi.waitFor(() => expect(view.current).toHaveLength(n));
  };
  let app: App;

  beforeEach(() => {
    vi.useFakeTimers();
    app = new App({
      files: {
        "Quire/Review/Contradiction A.md": review("The source A may contradict Bread.", "Kitchen/Bread.md"),
        "Quire/Sources/A.md": "# A\n",
        "Kitchen/Bread.md": "# Bread\n",
      },
    });
  });
  afterEach(() => vi.useRealTimers());

  it.each([
    ["Quire", "Quire/Review/"],
    ["", "Quire/Review/"],
    ["/Wiki/", "Wiki/Review/"],
  ])("reviewFolder(%j)", (f, want) => expect(reviewFolder(f)).toBe(want));

  it("Resolve records the decision in the review note; the list then shows open items only", async () => {
    app.viewRegistryForTest.set(
      REVIEW_VIEW,
      (leaf) =>
        new ReviewView(leaf as never, {
          vault: app.vault as never,
          metadataCache: app.metadataCache as never,
          folder: () => "Quire",
          openNote: () => {},
          mark: (p, status) => markReview({ vault: app.vault as never, fileManager: app.fileManager }, p, status),
        }) as never,
    );
    const leaf = new WorkspaceLeaf(app, app.workspace.rightEl);
    await leaf.setViewState({ type: REVIEW_VIEW });
    const view = leaf.view as unknown as ReviewView;
    await listed(view, 1);
    view.contentEl.querySelector<HTMLButtonElement>(".quire-review-resolve")!.click();
    await vi.waitFor(() => expect(app.vault.files.get("Quire/Review/Contradiction A.md")).toMatch(/\nstatus: resolved\n/));
    await vi.waitFor(async () => expect(await quireReview(app.vault.files.get("Quire/Review/Contradiction A.md")!)).toBe(true));
    await listed(view, 1);
    await vi.waitFor(() => expect(view.contentEl.querySelector(".quire-review-count")!.textContent).toBe("0 open items"));
    expect(view.contentEl.querySelectorAll(".quire-review-item")).toHaveLength(0);
    view.contentEl.querySelector<HTMLButtonElement>(".quire-review-filter")!.click();
    expect(view.contentEl.querySelector(".quire-review-item.is-resolved .quire-review-status")!.textContent).toBe("Resolved");
    leaf.detach();
  });

  it("lists the review notes with their reason, opens them, and follows the vault", async () => {
    expect(await listReview({ vault: app.vault as never, metadataCache: app.metadataCache as never, folder: () => "Quire" })).toEqual([
      { path: "Quire/Review/Contradiction A.md", title: "Contradiction A", reason: "The source A may contradict Bread.", about: "Kitchen/Bread.md", status: "open" },
    ]);
    const opened: string[] = [];
    app.viewRegistryForTest.set(
      REVIEW_VIEW,
      (leaf) =>
        new ReviewView(leaf as never, {
          vault: app.vault as never,
          metadataCache: app.metadataCache as never,
          folder: () => "Quire",
          openNote: (p) => opened.push(p),
        }) as never,
    );
    const leaf = new WorkspaceLeaf(app, app.workspace.rightEl);
    await leaf.setViewState({ type: REVIEW_VIEW });
    const view = leaf.view as unknown as ReviewView;
    const el = view.contentEl;
    await listed(view, 1);
    expect(el.querySelector(".quire-review-count")!.textContent).toBe("1 open item");
    expect(el.querySelector(".quire-review-reason")!.textContent).toBe("The source A may contradict Bread.");
    el.querySelector<HTMLElement>(".quire-review-title")!.click();
    el.querySelector<HTMLElement>(".quire-review-about")!.click();
    expect(opened).toEqual(["Quire/Review/Contradiction A.md", "Kitchen/Bread.md"]);

    app.vault.writeForTest("Quire/Review/Edited page.md", review("You edited Leaven since Quire wrote it."));
    await listed(view, 2);
    expect(view.current.map((i) => i.title)).toEqual(["Contradiction A", "Edited page"]);
    app.vault.deleteForTest("Quire/Review/Contradiction A.md");
    app.vault.deleteForTest("Quire/Review/Edited page.md");
    await listed(view, 0);
    await vi.waitFor(() => expect(el.querySelector(".quire-review-empty")!.textContent).toMatch(/^Nothing to review/));
    leaf.detach();
    expect(app.vault.listenerCountForTest("create")).toBe(0);
  });

  it("lists and changes only Quire's own review notes: a user's note under Review/, or one that only claims to be Quire's, is left out and never rewritten", async () => {
    const mine = "---\ntags: [todo]\n---\n# Things to review myself\n";
    const claimed = "---\nquire: generated\nquire_kind: review\nreason: \"Looks like Quire's\"\nquire_hash: " + "0".repeat(64) + "\n---\n# Claimed\n";
    app.vault.writeForTest("Quire/Review/Mine.md", mine);
    app.vault.writeForTest("Quire/Review/Claimed.md", claimed);
    const edited = review("Quire wrote this one.").replace("# Possible contradiction", "# Possible contradiction, edited");
    app.vault.writeForTest("Quire/Review/Edited.md", edited);
    const items = await listReview({ vault: app.vault as never, metadataCache: app.metadataCache as never, folder: () => "Quire" });
    expect(items.map((i) => i.path)).toEqual(["Quire/Review/Contradiction A.md"]);
    for (const p of ["Quire/Review/Mine.md", "Quire/Review/Claimed.md", "Quire/Review/Edited.md"]) {
      await expect(markReview({ vault: app.vault as never, fileManager: app.fileManager }, p, "resolved")).rejects.toThrow(/not a review note Quire wrote/);
    }
    expect(app.vault.files.get("Quire/Review/Mine.md")).toBe(mine);
    expect(app.vault.files.get("Quire/Review/Claimed.md")).toBe(claimed);
    expect(app.vault.files.get("Quire/Review/Edited.md")).toBe(edited);
  });
});

// Issue 25: a notice's Open button is mouse-only, and a finished ingest
// offered its note to the mouse alone. The command "Open what the last
// notice offered" runs the last notice's first button, once, and hides it.
describe("LastOffer", () => {
  it("keeps the last notice's buttons for the keyboard, once", () => {
    const last = new LastOffer();
    const opened: string[] = [];
    expect(last.run()).toBe(false);
    const first = showNotice("Quire wrote the source note A", [], [{ label: "Open", run: () => opened.push("A") }], 8000, last);
    const ingest = liveNotice("Quire: reading…", 0, last);
    ingest.offer("Quire: saved B", [{ label: "Open", run: () => opened.push("B") }]);
    showNotice("Quire is offline.", [], [], 8000, last); // no button: the offer stands
    expect(last.run()).toBe(true);
    expect(opened).toEqual(["B"]);
    expect(last.run()).toBe(false);
    // A button used by mouse is no longer offered.
    const again = new LastOffer();
    const n = showNotice("Quire wrote C", [], [{ label: "Open", run: () => opened.push("C") }], 8000, again);
    n.noticeEl.querySelector("button")!.click();
    expect(opened).toEqual(["B", "C"]);
    expect(again.run()).toBe(false);
    expect(first.noticeEl.querySelector("button")!.getAttribute("title")).toContain("Open what the last notice offered");
  });
});
