import { describe, expect, it } from "vitest";
import { keyPaths, sourceOf } from "../src/sidecar/sourcekeys";

describe("source keys", () => {
  it("names another source's notes by source:path and leaves the vault's paths alone", () => {
    const payload = {
      passages: [
        { id: "ops:runbooks/deploy.md#0", source: "ops", path: "runbooks/deploy.md" },
        { id: "Kitchen/Bread.md#0", source: "vault", path: "Kitchen/Bread.md" },
        { id: "Old.md#0", path: "Old.md" }, // an engine before sources
      ],
      notes: [{ path: "runbooks/a.md", passage: { source: "work", path: "runbooks/a.md" } }],
    };
    keyPaths(payload);
    expect(payload.passages.map((p) => p.path)).toEqual(["ops:runbooks/deploy.md", "Kitchen/Bread.md", "Old.md"]);
    expect(payload.notes[0]!.passage.path).toBe("work:runbooks/a.md");
    keyPaths(payload); // twice is once
    expect(payload.passages[0]!.path).toBe("ops:runbooks/deploy.md");
  });

  it("tells a source's key from a vault path", () => {
    expect(sourceOf("ops:runbooks/deploy.md")).toBe("ops");
    expect(sourceOf("runbooks/deploy.md")).toBeNull();
    expect(sourceOf("a/b:c.md")).toBeNull();
  });
});
