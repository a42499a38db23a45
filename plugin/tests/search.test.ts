// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Passage } from "../../proto/proto.gen";
import { SearchModal } from "../src/modals/search-modal";
import { datesLabel, filterFields, highlight, normalizeTag, queryTerms, wikiLink } from "../src/search-results";
import { type FakeLifecycle, type FakeServer, online, settle } from "./fake-sidecar";
import { App } from "./obsidian-stub";

const passage = (path: string, text: string, headingPath: string[] = []): Passage => ({
  id: `${path}#0`,
  path,
  source: "vault",
  title: path.replace(/\.md$/, "").split("/").at(-1)!,
  headingPath,
  start: 10,
  end: 10 + text.length,
  text,
  score: 1,
});

describe("search helpers", () => {
  it("marks the query's words, accents folded, in a line cut around the first one", () => {
    expect(queryTerms("Café, CAFE and a b")).toEqual(["cafe", "and"]);
    const pieces = highlight("## Brewing\n\nA long opening sentence about nothing. ".repeat(6) + "The café brews **espresso** daily.", ["cafe", "espresso"], 80);
    expect(pieces[0]!.text.startsWith("…") && !pieces[0]!.hit).toBe(true);
    expect(pieces.filter((p) => p.hit).map((p) => p.text)).toEqual(["café", "espresso"]);
    expect(pieces.map((p) => p.text).join("")).not.toContain("**");
  });

  it("marks exactly the words the engine matched when it says which: inflected forms, not look-alike prefixes", () => {
    const text = "Harding fed the starter; feeding it daily keeps it hard.";
    // The engine matched "feeding" and "fed" (its translation or stem), not "Harding".
    const hits = highlight(text, ["hard", "feed"], 180, ["fed", "feeding", "hard"]).filter((p) => p.hit).map((p) => p.text);
    expect(hits).toEqual(["fed", "feeding", "hard"]);
    // Without the engine's words, the prefix rule marks "Harding" too.
    expect(highlight(text, ["hard", "feed"]).filter((p) => p.hit).map((p) => p.text)).toContain("Harding");
  });

  it("compares tags without # and trailing slashes, in lower case", () => {
    expect(normalizeTag(" #A/b/ ")).toBe("a/b");
  });

  it("sends the filter in the form the engine compares, leaving out empty parts", () => {
    expect(filterFields({ folder: " /Garden/Herbs/ ", tag: " #Plot/Beds/ " })).toEqual({ folder: "Garden/Herbs", tag: "plot/beds" });
    expect(filterFields({ folder: "", tag: "  " })).toEqual({});
  });

  it("links to the innermost heading, without characters a link cannot hold", () => {
    expect(wikiLink("Bread", ["Bread", "Method"])).toBe("[[Bread#Method]]");
    expect(wikiLink("Bread", [])).toBe("[[Bread]]");
    expect(wikiLink("Bread", ["A [draft] | #1"])).toBe("[[Bread#A draft 1]]");
  });
});

describe("datesLabel", () => {
  it("names a month, a year, a day or a span of days as the engine read them", () => {
    expect(datesLabel({ from: "2024-03-01", through: "2024-03-31", phrase: "in March 2024" }, "en")).toBe("notes from March 2024");
    expect(datesLabel({ from: "2024-02-01", through: "2024-02-29", phrase: "2024-02" }, "en")).toBe("notes from February 2024");
    expect(datesLabel({ from: "2025-01-01", through: "2025-12-31", phrase: "last year" }, "en")).toBe("notes from 2025");
    expect(datesLabel({ from: "2026-11-23", through: "2026-11-29", phrase: "last week" }, "en")).toBe("notes from Nov 23, 2026 to Nov 29, 2026");
    expect(datesLabel({ from: "2026-12-05", through: "2026-12-05", phrase: "yesterday" }, "en")).toBe("notes from Dec 5, 2026");
    expect(datesLabel({ from: "x", through: "y", phrase: "" }, "en")).toBe("");
  });
});

describe("SearchModal", () => {
  let server: FakeServer;
  let sidecar: FakeLifecycle;
  let asked: { query: string; k?: number; typing?: boolean; folder?: string; tag?: string }[];
  // engineFilters: the fake engine applies folder and tag, as Quire does since it took them.
  let engineFilters: boolean;
  const results: Record<string, Passage[]> = {
    bread: [passage("Kitchen/Bread.md", "Knead the bread dough for ten minutes.", ["Bread", "Method"]), passage("Garden/Wheat.md", "Wheat for bread grows in summer.")],
  };
  const opened: [string, number, boolean][] = [];
  const links: string[] = [];

  beforeEach(async () => {
    ({ server, sidecar } = await online());
    asked = [];
    engineFilters = false;
    opened.length = 0;
    links.length = 0;
    server.reply = (f, s) => {
      if (f.type !== "search.query") return;
      const q = f.payload as { query: string; k?: number; typing?: boolean; folder?: string; tag?: string };
      asked.push(q);
      let passages = results[q.query] ?? [];
      if (engineFilters && q.folder) passages = passages.filter((p) => p.path.startsWith(`${q.folder}/`));
      const dates = q.query.endsWith("last week") ? { dates: { from: "2026-11-23", through: "2026-11-29", phrase: "last week" } } : {};
      if (q.query.endsWith("last week")) passages = results.bread!;
      s.push({ id: f.id!, type: "search.result", payload: { passages, channel: "hybrid", ...dates } });
    };
  });
  afterEach(() => {
    for (const el of document.querySelectorAll(".modal-container")) el.remove();
  });

  const open = () => {
    const m = new SearchModal(new App() as never, {
      client: () => sidecar.client,
      state: () => sidecar.state,
      openPassage: (p, at, tab) => opened.push([p, at, tab]),
      insertLink: (p, h) => links.push(wikiLink(p.replace(/\.md$/, ""), h)) > 0,
      debounceMs: 0,
    });
    m.open();
    return m;
  };
  const input = (m: SearchModal) => m.contentEl.querySelector<HTMLInputElement>(".quire-search-input")!;
  const key = (m: SearchModal, k: string, mods: KeyboardEventInit = {}) => input(m).dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true, ...mods }));
  const type = async (m: SearchModal, q: string) => {
    m.setQuery(q);
    await new Promise((r) => setTimeout(r, 5));
    await settle();
  };

  it("lists one row per passage with title, heading path and marked words; arrows move, Enter opens", async () => {
    const m = open();
    expect(input(m).getAttribute("role")).toBe("combobox");
    await type(m, "bread");
    const rows = m.contentEl.querySelectorAll(".quire-search-item");
    expect(rows).toHaveLength(2);
    expect(rows[0]!.querySelector(".quire-search-heading")!.textContent).toBe("Bread › Method");
    expect([...rows[0]!.querySelectorAll("mark")].map((e) => e.textContent)).toEqual(["bread"]);
    expect(rows[0]!.getAttribute("aria-selected")).toBe("true");
    key(m, "ArrowDown");
    expect(rows[1]!.getAttribute("aria-selected")).toBe("true");
    expect(input(m).getAttribute("aria-activedescendant")).toBe(rows[1]!.id);
    key(m, "ArrowDown");
    expect(rows[0]!.getAttribute("aria-selected")).toBe("true"); // wraps
    key(m, "Enter", { ctrlKey: true });
    expect(opened).toEqual([["Kitchen/Bread.md", 10, true]]);
  });

  it("says which days come first when the query named some", async () => {
    const m = open();
    await type(m, "bread last week");
    const status = m.contentEl.querySelector(".quire-search-status")!.textContent!;
    expect(status).toMatch(/^2 passages · notes from .*23.* to .*29.* first$/);
    await type(m, "bread");
    expect(m.contentEl.querySelector(".quire-search-status")!.textContent).toBe("2 passages");
  });

  it("says the last word is still being typed until a space ends it", async () => {
    const m = open();
    await type(m, "sourd");
    expect(asked.at(-1)).toEqual({ query: "sourd", k: 20, typing: true });
    await type(m, "sourdough ");
    expect(asked.at(-1)).toEqual({ query: "sourdough", k: 20, typing: false });
  });

  it("Alt+Enter inserts a link to the passage's heading", async () => {
    const m = open();
    await type(m, "bread");
    key(m, "Enter", { altKey: true });
    expect(links).toEqual(["[[Kitchen/Bread#Method]]"]);
    expect(opened).toEqual([]);
  });

  const setFilter = (m: SearchModal, folder: string, tag: string) => {
    for (const [cls, v] of [["folder", folder], ["tag", tag]] as const) {
      const el = m.contentEl.querySelector<HTMLInputElement>(`.quire-search-${cls}`)!;
      el.value = v;
      el.dispatchEvent(new Event("input"));
    }
  };

  it("sends the folder and tag filters to the engine, which filters before cutting to k", async () => {
    engineFilters = true;
    const m = open();
    await type(m, "bread");
    expect(asked.at(-1)).toEqual({ query: "bread", k: 20, typing: true });
    setFilter(m, "/Garden/", "#Garden");
    await type(m, "bread");
    expect(asked.at(-1)).toEqual({ query: "bread", k: 20, typing: true, folder: "Garden", tag: "garden" });
    expect([...m.contentEl.querySelectorAll(".quire-search-item")].map((e) => e.getAttribute("data-path"))).toEqual(["Garden/Wheat.md"]);
    expect(m.contentEl.querySelector(".quire-search-status")!.textContent).toBe("1 passage");
  });

  it("while Quire starts, it says so (no error) and searches once it is up", async () => {
    const up = sidecar.state;
    sidecar.set({ kind: "starting" });
    const m = new SearchModal(new App() as never, { client: () => sidecar.client, state: () => sidecar.state, openPassage: () => {}, debounceMs: 0, retryMs: 5 });
    m.open();
    await type(m, "bread");
    const status = m.contentEl.querySelector(".quire-search-status")!;
    expect(status.textContent).toBe("Starting Quire… results appear as soon as it is up.");
    expect(status.classList.contains("is-error")).toBe(false);
    expect(asked).toEqual([]);
    sidecar.set(up);
    await new Promise((r) => setTimeout(r, 30));
    await settle();
    expect(asked.map((q) => q.query)).toEqual(["bread"]);
    expect(m.contentEl.querySelectorAll(".quire-search-item")).toHaveLength(2);
    m.close();
  });

  it("while the first pass indexes, no match says how far it has read, not that nothing matches", async () => {
    let pct: number | null = 9;
    const m = new SearchModal(new App() as never, { client: () => sidecar.client, state: () => sidecar.state, openPassage: () => {}, debounceMs: 0, indexing: () => pct });
    m.open();
    await type(m, "sourdough");
    const status = m.contentEl.querySelector(".quire-search-status")!;
    expect(status.textContent).toBe("Indexing 9 % — results appear as notes are read.");
    pct = null;
    await type(m, "sourdough starter");
    expect(status.textContent).toBe("No passages match.");
    m.close();
  });

  it("offline, it says so and sends nothing", async () => {
    sidecar.set({ kind: "offline", reason: "Quire is not answering.", canStart: true });
    const m = open();
    await type(m, "bread");
    expect(asked).toEqual([]);
    expect(m.contentEl.querySelector(".quire-search-status")!.textContent).toContain("Quire is not answering.");
  });
});
