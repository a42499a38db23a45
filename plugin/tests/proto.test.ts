// Decodes every canonical example in proto/testdata against the schema
// generated from the Go types, and checks that the generated TypeScript
// table agrees with it. The Go tests decode the same files into the Go
// types, so both sides read one set of examples.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import Ajv2020Module from "ajv/dist/2020.js";
import { type Frame, MESSAGES, MIN_PROTOCOL_VERSION, type MessageType, PROTOCOL_VERSION, isDone } from "../../proto/proto.gen";

const protoDir = new URL("../../proto/", import.meta.url);
const testdata = new URL("testdata/", protoDir);

interface MessageRow {
  type: MessageType;
  kind: string;
  payload: string;
  reply?: string;
  stream?: boolean;
}
const schema = JSON.parse(readFileSync(new URL("schema.json", protoDir), "utf8")) as {
  $id: string;
  "x-protocolVersion": number;
  "x-minProtocolVersion": number;
  "x-messages": MessageRow[];
};

// ajv ships CommonJS; under ESM its class is the default export's default.
const Ajv2020 = ((Ajv2020Module as unknown as { default?: unknown }).default ?? Ajv2020Module) as typeof Ajv2020Module;
const ajv = new Ajv2020({ allErrors: true, strict: true });
ajv.addVocabulary(["x-messages", "x-protocolVersion", "x-minProtocolVersion"]);
ajv.addFormat("date-time", (s: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(s));
ajv.addSchema(schema);

function validator(def: string) {
  const v = ajv.getSchema(`${schema.$id}#/$defs/${def}`);
  if (!v) throw new Error(`schema has no definition ${def}`);
  return v;
}

const rows = new Map(schema["x-messages"].map((m) => [m.type, m]));

/** check validates one frame and returns the problems found, empty when valid. */
function check(frame: unknown): string[] {
  const envelope = validator("Envelope");
  if (!envelope(frame)) return [`envelope: ${ajv.errorsText(envelope.errors)}`];
  const f = frame as { id?: string; type: MessageType; payload?: unknown };
  const row = rows.get(f.type);
  if (!row) return [`unknown type ${f.type}`];
  const problems: string[] = [];
  const wantsId = ["request", "reply", "part", "done"].includes(row.kind);
  if (wantsId !== (f.id !== undefined && f.id !== "")) {
    problems.push(`${row.kind} frame ${wantsId ? "without" : "with"} id`);
  }
  const payload = validator(row.payload);
  if (!payload(f.payload ?? {})) problems.push(`payload: ${ajv.errorsText(payload.errors)}`);
  return problems;
}

const files = readdirSync(testdata).filter((f) => f.endsWith(".json")).sort();

describe("proto/testdata examples", () => {
  it.each(files)("%s decodes against the generated schema", (file) => {
    const frame = JSON.parse(readFileSync(new URL(file, testdata), "utf8")) as { type: string };
    expect(frame.type).toBe(file.replace(/\.json$/, ""));
    expect(Object.keys(MESSAGES)).toContain(frame.type);
    expect(check(frame)).toEqual([]);
  });

  it("has one example per message type", () => {
    const have = new Set(files.map((f) => f.replace(/\.json$/, "")));
    const missing = Object.keys(MESSAGES).filter((t) => !have.has(t));
    expect(missing).toEqual([]);
  });
});

describe("the validator", () => {
  const example = JSON.parse(readFileSync(new URL("search.result.json", testdata), "utf8")) as {
    payload: { passages: Record<string, unknown>[] };
  };

  // A checker that accepts everything would pass the examples too: these
  // show that it notices the mistakes a stale example would have.
  it.each([
    ["a renamed field", (p: Record<string, unknown>) => { p["headings"] = p["headingPath"]; delete p["headingPath"]; }],
    ["a missing field", (p: Record<string, unknown>) => { delete p["score"]; }],
    ["a wrong type", (p: Record<string, unknown>) => { p["start"] = "412"; }],
  ])("rejects %s", (_name, mutate) => {
    const frame = structuredClone(example);
    mutate(frame.payload.passages[0]!);
    expect(check(frame)).not.toEqual([]);
  });

  it("rejects an unknown type, an unknown error code and an event with an id", () => {
    expect(check({ id: "1", type: "search.find", payload: {} })).not.toEqual([]);
    expect(check({ id: "1", type: "error", payload: { code: "oops", message: "x" } })).not.toEqual([]);
    expect(check({ id: "1", type: "index.changed", payload: { paths: [] } })).not.toEqual([]);
  });
});

describe("generated TypeScript", () => {
  it("agrees with the schema's message table", () => {
    expect(PROTOCOL_VERSION).toBe(schema["x-protocolVersion"]);
    expect(MIN_PROTOCOL_VERSION).toBe(schema["x-minProtocolVersion"]);
    for (const row of schema["x-messages"]) {
      const info = MESSAGES[row.type];
      expect(info.kind).toBe(row.kind);
      expect(info.reply).toBe(row.reply);
    }
    expect(Object.keys(MESSAGES)).toEqual(schema["x-messages"].map((m) => m.type));
  });

  it("types frames that the schema accepts", () => {
    // These literals are checked by tsc against the generated types and at
    // run time against the schema: a field renamed in Go breaks one or the
    // other.
    const frames: Frame[] = [
      { type: "hello", payload: { protocol: PROTOCOL_VERSION, token: "t", client: "test" } },
      { id: "1", type: "search.query", payload: { query: "bread", k: 3, channel: "bm25" } },
      { id: "2", type: "related.query", payload: { path: "a.md" } },
      { id: "3", type: "error", payload: { code: "not_ready", message: "starting" } },
      { type: "index.progress", payload: { phase: "scan", done: 1, total: 2 } },
    ];
    for (const f of frames) expect(check(f)).toEqual([]);
  });

  it("ends streams only on .done types", () => {
    expect(isDone("ask.done")).toBe(true);
    expect(isDone("search.result")).toBe(false);
  });
});
