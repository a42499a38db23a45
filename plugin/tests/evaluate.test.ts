// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import type { EvalResult, EvalRun } from "../../proto/proto.gen";
import { MARK, blankRow, formatSet, missed, parseSet, problems, rankText, toWire, writeSet } from "../src/evalset";
import { EvaluateView, defaultSetPath } from "../src/views/evaluate";
import { safeSvg } from "../src/views/svg";
import { online, settle } from "./fake-sidecar";
import { App, WorkspaceLeaf } from "./obsidian-stub";

const PATH = "Quire/eval-questions.jsonl";

describe("the questions file", () => {
  it("reads quire eval's JSON lines, keeps what the view does not edit, and writes the same format back", () => {
    const text = [
      MARK,
      "// my kitchen questions",
      '{"question": "how often do I feed the starter?", "expected": ["Kitchen/Sourdough starter.md"], "answer": "once a day", "type": "how_to", "id": "k1"}',
      "",
      '{"query": "tram 28?", "expected_notes": ["Travel/Lisbon 2025.md", "Travel/Trams.md"], "span": "Tram 28"}',
    ].join("\n");
    const set = parseSet(text);
    expect(set.ours).toBe(true);
    expect(set.comments).toEqual(["// my kitchen questions"]);
    expect(set.rows.map((r) => [r.question, r.note, r.also, r.answer, r.type])).toEqual([
      ["how often do I feed the starter?", "Kitchen/Sourdough starter.md", [], "once a day", "how_to"],
      ["tram 28?", "Travel/Lisbon 2025.md", ["Travel/Trams.md"], "Tram 28", ""],
    ]);
    const out = formatSet({ rows: [...set.rows, blankRow()], comments: set.comments });
    expect(out.split("\n")).toEqual([
      MARK,
      "// my kitchen questions",
      '{"question":"how often do I feed the starter?","expected":["Kitchen/Sourdough starter.md"],"answer":"once a day","type":"how_to","id":"k1"}',
      '{"question":"tram 28?","expected":["Travel/Lisbon 2025.md","Travel/Trams.md"],"answer":"Tram 28"}',
      "",
    ]);
    expect(parseSet(out)).toEqual(set);
    expect(parseSet('{"question": "q", "expected": ["a.md"]}').ours).toBe(false);
  });

  it("names a line it cannot read rather than drop it", () => {
    expect(() => parseSet(`${MARK}\n{"question": "q", "expected": ["a.md"]}\nnot json`)).toThrow("line 3 is not JSON");
    expect(() => parseSet('["a list"]')).toThrow("line 1 is not a JSON object");
  });

  it("says what keeps a set from running; blank rows are not questions", () => {
    const row = (question: string, note: string) => ({ ...blankRow(), question, note });
    const isNote = (p: string) => p === "a.md";
    expect(problems([row("q", "a.md"), blankRow()], isNote)).toEqual([]);
    expect(problems([row("", "a.md"), row("q", ""), row("q", "b.md")], isNote)).toEqual([
      "Question 1 has no words.",
      "Question 2 names no note that answers it.",
      "Question 3: b.md is not a note of this vault.",
    ]);
    expect(problems([blankRow()], isNote)).toEqual(["Write a question first."]);
    expect(toWire([row(" q ", "a.md"), blankRow(), { ...row("r", "a.md"), answer: "x", type: "t" }])).toEqual([
      { question: "q", expected: ["a.md"] },
      { question: "r", expected: ["a.md"], answer: "x", type: "t" },
    ]);
  });

  it("is written where there was none, and replaced only when the view wrote it and read it as it is", async () => {
    const app = new App();
    const v = app.vault;
    const text = formatSet({ rows: [{ ...blankRow(), question: "q", note: "a.md" }], comments: [] });
    await writeSet(v as never, PATH, text, null);
    expect(v.files.get(PATH)).toBe(text);
    // Read as it is: replaced.
    const next = text.replace('"q"', '"q2"');
    await writeSet(v as never, PATH, next, text);
    expect(v.files.get(PATH)).toBe(next);
    // Changed elsewhere since it was read: left alone.
    await expect(writeSet(v as never, PATH, text, text)).rejects.toThrow("changed since it was loaded");
    // Not read at all: left alone.
    await expect(writeSet(v as never, PATH, text, null)).rejects.toThrow("exists: load it first");
    // Not the view's: left alone, even when read.
    const mine = '{"question": "mine", "expected": ["a.md"]}\n';
    v.files.set("gold.jsonl", mine);
    await expect(writeSet(v as never, "gold.jsonl", text, mine)).rejects.toThrow("was not written by Quire");
    expect(v.files.get("gold.jsonl")).toBe(mine);
    await expect(writeSet(v as never, "notes.md", text, null)).rejects.toThrow(".jsonl");
    await expect(writeSet(v as never, ".obsidian/q.jsonl", text, null)).rejects.toThrow("outside dot folders");
  });

  it("lists the missed questions with the rank they reached", () => {
    const r = (rank: number, reachable = true) => ({ question: "q", type: "t", expected: "a.md", rank, noteRank: 1, reachable });
    expect(missed([r(1), r(5), r(6), r(0)], 5).map((x) => x.rank)).toEqual([6, 0]);
    expect([r(6), r(0), r(0, false)].map(rankText)).toEqual(["Rank 6", "Not in the first 50", "Unreachable: no passage holds the answer's words whole"]);
    expect(defaultSetPath("")).toBe("Quire/eval-questions.jsonl");
    expect(defaultSetPath("/Generated/")).toBe("Generated/eval-questions.jsonl");
  });
});

describe("safeSvg", () => {
  it("rebuilds the engine's pictures from known elements and attributes, text as text", () => {
    const svg = safeSvg(
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" role="img" aria-label="a &lt;b&gt; chart" onload="alert(1)">' +
        '<title>t</title><script>alert(2)</script><a href="javascript:alert(3)"><text>link</text></a>' +
        '<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">html</div></foreignObject>' +
        '<circle cx="1" cy="2" r="3" fill="url(https://example.com/x)" style="x" onclick="alert(4)"><title>&lt;img src=x onerror=alert(5)&gt; question</title></circle>' +
        '<text class="tick" x="1" y="2" text-anchor="end">0.50</text></svg>',
      document,
    );
    expect(svg).not.toBeNull();
    const out = new XMLSerializer().serializeToString(svg!);
    expect(out).not.toMatch(/onload|onclick|script|href|foreignObject|html|url\(|style|<img/);
    expect(svg!.getAttribute("aria-label")).toBe("a <b> chart");
    expect(svg!.querySelector("circle")?.getAttribute("r")).toBe("3");
    expect(svg!.querySelector("circle title")?.textContent).toBe("<img src=x onerror=alert(5)> question");
    expect(svg!.querySelector("text.tick")?.textContent).toBe("0.50");
    expect(svg!.namespaceURI).toBe("http://www.w3.org/2000/svg");
  });

  it("refuses what is not one SVG document", () => {
    expect(safeSvg("<svg", document)).toBeNull();
    expect(safeSvg('<html xmlns="http://www.w3.org/1999/xhtml"><body/></html>', document)).toBeNull();
    expect(safeSvg("", document)).toBeNull();
  });
});

const picture = (label: string) => `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 50" role="img" aria-label="${label}"><title>${label}</title><rect x="1" y="1" width="5" height="5" fill="#2f6fb0"/></svg>`;

const result: EvalResult = {
  k: 5,
  channels: [
    {
      channel: "bm25",
      spanRecallAtK: 0.5,
      spanMRR: 0.5,
      noteRecallAtK: 1,
      recallAt50: 1,
      reachable: 2,
      medianQueryMs: 1,
      byType: [{ type: "how_to", n: 2, spanRecallAtK: 0.5 }],
      ranks: [
        { question: "how often do I feed the starter?", type: "how_to", expected: "Kitchen/Sourdough starter.md", rank: 1, noteRank: 1, reachable: true },
        { question: "which tram?", type: "how_to", expected: "Travel/Lisbon 2025.md", rank: 9, noteRank: 2, reachable: true },
      ],
    },
  ],
  pictures: { recall: picture("recall at k"), types: picture("by type"), ranks: picture("ranks") },
  warnings: ["vectors cover 1 of 2 passages"],
};

async function openView(files: Record<string, string>) {
  const { server, sidecar } = await online();
  const app = new App({ files });
  document.body.replaceChildren(app.containerEl);
  const opened: string[] = [];
  const leaf = new WorkspaceLeaf(app, app.workspace.rootEl);
  const view = new EvaluateView(leaf as never, {
    client: () => sidecar.client,
    vault: app.vault as never,
    notes: () => app.vault.getMarkdownFiles().map((f) => f.path),
    folder: () => "Quire",
    openNote: (p) => opened.push(p),
  });
  leaf.view = view as never;
  view.load();
  await view.onOpen();
  const el = view.contentEl;
  const type = (sel: string, i: number, value: string) => {
    const input = el.querySelectorAll<HTMLInputElement>(sel)[i]!;
    input.value = value;
    input.dispatchEvent(new Event("input"));
  };
  const click = (sel: string) => el.querySelector<HTMLButtonElement>(sel)!.click();
  const status = () => el.querySelector(".quire-eval-status")?.textContent ?? "";
  return { server, app, view, el, type, click, status, opened };
}

const NOTES = { "Kitchen/Sourdough starter.md": "# Starter\n\nFeed it once a day.\n", "Travel/Lisbon 2025.md": "# Lisbon\n\nTram 28.\n" };

describe("EvaluateView", () => {
  it("writes questions with a note picker, saves them to the vault, runs them through eval.run and draws the result", async () => {
    const { server, app, view, el, type, click, status, opened } = await openView(NOTES);
    expect(status()).toContain(`No questions at ${PATH} yet`);
    // The note field picks from the vault's notes.
    const list = el.querySelector(".quire-eval-note")!.getAttribute("list")!;
    expect([...el.querySelectorAll(`datalist[id="${list}"] option`)].map((o) => o.getAttribute("value")).sort()).toEqual(Object.keys(NOTES).sort());
    type(".quire-eval-question", 0, "how often do I feed the starter?");
    type(".quire-eval-note", 0, "Kitchen/Sourdough starter.md");
    type(".quire-eval-answer", 0, "once a day");
    type(".quire-eval-type", 0, "how_to");
    click(".quire-eval-add");
    expect(document.activeElement).toBe(el.querySelectorAll(".quire-eval-question")[1]);
    type(".quire-eval-question", 1, "which tram?");
    type(".quire-eval-note", 1, "Travel/Lisbon.md");
    const sent: EvalRun[] = [];
    server.reply = (f, s) => {
      if (f.type !== "eval.run") return;
      sent.push(f.payload as EvalRun);
      s.push({ id: f.id!, type: "eval.result", payload: result });
    };
    // A note that is not in the vault is named, and nothing is sent.
    await view.runSet();
    expect(status()).toBe("Question 2: Travel/Lisbon.md is not a note of this vault.");
    expect(sent).toEqual([]);
    type(".quire-eval-note", 1, "Travel/Lisbon 2025.md");
    click(".quire-eval-save");
    await settle();
    expect(status()).toBe(`Saved to ${PATH}.`);
    expect(parseSet(app.vault.files.get(PATH)!).rows.map((r) => r.question)).toEqual(["how often do I feed the starter?", "which tram?"]);

    await view.runSet();
    expect(sent).toEqual([
      {
        set: PATH,
        questions: [
          { question: "how often do I feed the starter?", expected: ["Kitchen/Sourdough starter.md"], answer: "once a day", type: "how_to" },
          { question: "which tram?", expected: ["Travel/Lisbon 2025.md"] },
        ],
      },
    ]);
    expect(view.shown).toEqual(result);
    expect([...el.querySelectorAll(".quire-eval-figure svg")].map((s) => s.getAttribute("aria-label"))).toEqual(["recall at k", "by type", "ranks"]);
    expect(el.querySelector(".quire-eval-warnings")?.textContent).toBe("vectors cover 1 of 2 passages");
    expect([...el.querySelectorAll(".quire-eval-scores tbody td")].map((t) => t.textContent)).toEqual(["0.50", "0.50", "1.00", "1.00", "2 of 2"]);
    const miss = [...el.querySelectorAll(".quire-eval-misses tbody tr")].map((tr) => [...tr.children].map((c) => c.textContent));
    expect(miss).toEqual([["which tram?", "how_to", "Travel/Lisbon 2025", "Rank 9"]]);
    click(".quire-eval-open");
    expect(opened).toEqual(["Travel/Lisbon 2025.md"]);
    view.unload();
  });

  it("loads the set kept in the vault, and neither shows nor overwrites a file it cannot read whole or did not write", async () => {
    const saved = `${MARK}\n{"question": "feed?", "expected": ["Kitchen/Sourdough starter.md"]}\n`;
    const first = await openView({ ...NOTES, [PATH]: saved });
    expect(first.status()).toBe(`Loaded 1 question from ${PATH}.`);
    expect(first.view.questions.map((r) => r.question)).toEqual(["feed?"]);
    // Changed elsewhere after it was loaded: Save refuses.
    first.app.vault.files.set(PATH, saved + '{"question": "added elsewhere", "expected": ["Travel/Lisbon 2025.md"]}\n');
    expect(await first.view.saveSet()).toBe(false);
    expect(first.status()).toContain("changed since it was loaded");
    first.view.unload();

    const broken = `${MARK}\n{"question": "feed?"\n`;
    const second = await openView({ ...NOTES, [PATH]: broken });
    expect(second.status()).toContain("line 2 is not JSON");
    expect(await second.view.saveSet()).toBe(false);
    expect(second.app.vault.files.get(PATH)).toBe(broken);
    second.view.unload();

    const theirs = '{"question": "feed?", "expected": ["Kitchen/Sourdough starter.md"]}\n';
    const third = await openView({ ...NOTES, [PATH]: theirs });
    expect(third.status()).toContain("Quire did not write this file");
    third.type(".quire-eval-question", 0, "edited");
    expect(await third.view.saveSet()).toBe(false);
    expect(third.app.vault.files.get(PATH)).toBe(theirs);
    // Under another name it is saved.
    third.type(".quire-eval-path", 0, "Quire/mine.jsonl");
    expect(await third.view.saveSet()).toBe(true);
    expect(parseSet(third.app.vault.files.get("Quire/mine.jsonl")!).rows[0]!.question).toBe("edited");
    third.view.unload();
  });

  it("says when the engine is offline or refuses, and keeps the questions", async () => {
    const { server, view, type, status } = await openView(NOTES);
    type(".quire-eval-question", 0, "feed?");
    type(".quire-eval-note", 0, "Kitchen/Sourdough starter.md");
    server.reply = (f, s) => s.push({ id: f.id!, type: "error", payload: { code: "invalid_request", message: "eval.run is not answered by this sidecar" } });
    await view.runSet();
    expect(status()).toBe("Quire could not run the questions: eval.run is not answered by this sidecar");
    expect(view.shown).toBeNull();
    expect(view.questions[0]!.question).toBe("feed?");
    view.unload();
  });
});
