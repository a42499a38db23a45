import { describe, expect, it } from "vitest";
import type { LintResult } from "../../proto/proto.gen";
import { checkNotes, lintText } from "../src/lint";
import type { Client } from "../src/sidecar/client";
import { FakeLifecycle, online, settle } from "./fake-sidecar";

const found: LintResult = {
  notes: 12,
  defects: [
    { check: "broken-link", note: "Quire/Sources/A.md", detail: "A links to “B”, which no note is.", target: "B", review: "Quire/Review/Lint — A links to B.md" },
    { check: "oversize", note: "Quire/Concepts/C.md", detail: "C is too long." },
  ],
  report: "Quire/Lint.md",
  review: ["Quire/Review/Lint — A links to B.md"],
};

function deps(client: () => Client | null) {
  const out = { notices: [] as string[], opened: [] as string[], refreshed: 0, logged: [] as string[] };
  return {
    out,
    d: {
      client,
      notice: (m: string) => out.notices.push(m),
      openNote: (p: string) => out.opened.push(p),
      reviewChanged: () => out.refreshed++,
      log: (w: string) => out.logged.push(w),
    },
  };
}

describe("lintText", () => {
  it("says what was found and how much waits in Review", () => {
    expect(lintText(found)).toBe("Quire checked 12 notes it wrote: 2 things to look at, 1 of them in Review.");
    expect(lintText({ notes: 1, defects: [], review: [] })).toBe("Quire checked 1 note it wrote: nothing to mend.");
    expect(lintText({ notes: 12, defects: found.defects.slice(1), review: [], warning: "Quire/Lint.md was edited" })).toBe(
      "Quire checked 12 notes it wrote: 1 thing to look at. Quire/Lint.md was edited.",
    );
  });
});

describe("Check Quire's notes", () => {
  it("sends lint.run, tells the result, refreshes Review and opens the report", async () => {
    const { server, sidecar } = await online();
    const sent: string[] = [];
    server.reply = (f, s) => {
      sent.push(f.type);
      if (f.type === "lint.run") s.push({ id: f.id!, type: "lint.result", payload: found });
    };
    const { out, d } = deps(() => sidecar.client);
    await checkNotes(d);
    await settle();
    expect(sent).toEqual(["lint.run"]);
    expect(out.notices).toEqual(["Quire checked 12 notes it wrote: 2 things to look at, 1 of them in Review."]);
    expect(out.refreshed).toBe(1);
    expect(out.opened).toEqual(["Quire/Lint.md"]);
  });

  it("opens nothing when all is well, and says so when offline or refused", async () => {
    const { server, sidecar } = await online();
    server.reply = (f, s) => {
      if (f.type === "lint.run") s.push({ id: f.id!, type: "lint.result", payload: { notes: 3, defects: [], review: [], report: "Quire/Lint.md" } });
    };
    const ok = deps(() => sidecar.client);
    await checkNotes(ok.d);
    expect(ok.out.opened).toEqual([]);
    expect(ok.out.notices).toEqual(["Quire checked 3 notes it wrote: nothing to mend."]);

    const offline = deps(() => new FakeLifecycle().client);
    await checkNotes(offline.d);
    expect(offline.out.notices[0]).toMatch(/offline/);

    server.reply = (f, s) => {
      if (f.type === "lint.run") s.push({ id: f.id!, type: "error", payload: { code: "invalid_request", message: "folder holds files Quire did not write" } });
    };
    const refused = deps(() => sidecar.client);
    await checkNotes(refused.d);
    expect(refused.out.notices[0]).toMatch(/could not be checked/);
    expect(refused.out.logged).toEqual(["lint.run"]);
  });
});
