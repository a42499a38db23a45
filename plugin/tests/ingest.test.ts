import { describe, expect, it } from "vitest";
import { ingestProgressText, parseClipboardUrl } from "../src/ingest";

describe("parseClipboardUrl", () => {
  it.each([
    ["https url", "  https://example.org/a?b=1 \n", { ok: true, url: "https://example.org/a?b=1" }],
    ["http url", "http://example.org", { ok: true, url: "http://example.org/" }],
    ["empty", "   ", { ok: false, message: "The clipboard is empty. Copy a web address first." }],
    ["text", "bread recipe", { ok: false, message: "The clipboard holds more than one web address." }],
    ["not a url", "bread", { ok: false, message: "The clipboard does not hold a web address." }],
    ["file url", "file:///etc/passwd", { ok: false, message: "Only http and https addresses can be ingested, not file." }],
    ["javascript", "javascript:alert(1)", { ok: false, message: "Only http and https addresses can be ingested, not javascript." }],
  ])("%s", (_n, input, want) => {
    expect(parseClipboardUrl(input)).toEqual(want);
  });
});

describe("ingestProgressText", () => {
  it("words each stage", () => {
    expect(ingestProgressText({ stage: "reading", done: 3, total: 8 })).toBe("Quire: reading 3/8");
    expect(ingestProgressText({ stage: "queued" })).toBe("Quire: queued");
  });
});
