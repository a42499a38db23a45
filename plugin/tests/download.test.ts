// The engine download against a real local HTTP server and a real temporary
// folder: what is written, and that a file that does not match is never
// written where it could run.
import { createHash, randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { EngineBuild } from "../src/sidecar/engine";
import { DEV_BUILD_TEXT, type InstallDeps, type InstallState, Installer } from "../src/sidecar/install";
import { DownloadError, downloadEngine } from "../src/sidecar/node";

const ENGINE = Buffer.concat([Buffer.from("#!/bin/sh\necho quire\n"), randomBytes(300_000)]);
const GZ = gzipSync(ENGINE);
const SHA = createHash("sha256").update(GZ).digest("hex");

type Handler = (req: { url: string }, res: import("node:http").ServerResponse) => void;

let server: Server;
let base = "";
let handler: Handler;
let dir = "";

beforeEach(async () => {
  dir = await fs.mkdtemp(join(tmpdir(), "quire-download-"));
  handler = (_req, res) => res.writeHead(200, { "content-length": GZ.length }).end(GZ);
  server = createServer((req, res) => handler({ url: req.url ?? "" }, res));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await fs.rm(dir, { recursive: true, force: true });
});

const dest = () => join(dir, "engines", "0.1.0", "quire");
const listing = async () => (await fs.readdir(join(dir, "engines", "0.1.0")).catch(() => [] as string[])).sort();

function download(over: Partial<Parameters<typeof downloadEngine>[0]> = {}) {
  const progress: number[] = [];
  const ctrl = new AbortController();
  const p = downloadEngine({
    url: `${base}/0.1.0/quire_0.1.0_linux_amd64.gz`,
    sha256: SHA,
    size: GZ.length,
    dest: dest(),
    onProgress: (done) => progress.push(done),
    signal: ctrl.signal,
    ...over,
  });
  return { p, progress, ctrl };
}

describe("downloadEngine", () => {
  it("fetches, checks, unpacks and writes the engine executable, following a redirect", async () => {
    handler = (req, res) => {
      if (req.url.startsWith("/0.1.0/")) res.writeHead(302, { location: `/objects${req.url}` }).end();
      else res.writeHead(200, { "content-length": GZ.length }).end(GZ);
    };
    const { p, progress } = download();
    await p;
    expect((await fs.readFile(dest())).equals(ENGINE)).toBe(true); // (toEqual walks 300 kB byte by byte: seconds)
    expect((await fs.stat(dest())).mode & 0o777).toBe(0o755);
    expect(await listing()).toEqual(["quire"]);
    expect(progress.at(-1)).toBe(GZ.length);
  });

  it("refuses a file whose SHA-256 differs: nothing is written, an engine already there is untouched", async () => {
    await fs.mkdir(join(dir, "engines", "0.1.0"), { recursive: true });
    await fs.writeFile(dest(), "old engine", { mode: 0o755 });
    const bad = Buffer.from(GZ);
    bad[bad.length - 20]! ^= 0xff;
    handler = (_req, res) => res.writeHead(200, { "content-length": bad.length }).end(bad);
    const err = await download().p.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DownloadError);
    expect((err as DownloadError).refused).toBe(true);
    expect((err as Error).message).toContain(`not ${SHA}`);
    expect(await listing()).toEqual(["quire"]);
    expect(await fs.readFile(dest(), "utf8")).toBe("old engine");
  });

  it("refuses a truncated file (the server sends less than the release's size): nothing is written", async () => {
    const short = GZ.subarray(0, GZ.length - 1000);
    handler = (_req, res) => res.writeHead(200, { "content-length": short.length }).end(short);
    const err = await download().p.catch((e: unknown) => e);
    expect((err as DownloadError).refused).toBe(true);
    expect((err as Error).message).toContain("cut short");
    expect(await listing()).toEqual([]);
  });

  it("a connection that drops mid-file fails the download: nothing is written", async () => {
    handler = (_req, res) => {
      res.writeHead(200, { "content-length": GZ.length });
      res.write(GZ.subarray(0, 100_000), () => res.destroy());
    };
    const err = await download().p.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DownloadError);
    expect((err as Error).message).toMatch(/cut short at \d+ of \d+ bytes/);
    expect(await listing()).toEqual([]);
  });

  it("stops reading a file larger than the release's and refuses it", async () => {
    const big = Buffer.concat([GZ, randomBytes(200_000)]);
    handler = (_req, res) => res.writeHead(200, { "content-length": big.length }).end(big);
    const err = await download().p.catch((e: unknown) => e);
    expect((err as DownloadError).refused).toBe(true);
    expect((err as Error).message).toContain("larger than");
    expect(await listing()).toEqual([]);
  });

  it("a cancelled download writes nothing", async () => {
    handler = (_req, res) => {
      res.writeHead(200, { "content-length": GZ.length });
      res.write(GZ.subarray(0, 50_000)); // and then waits
    };
    const { p, ctrl, progress } = download();
    while (progress.length === 0) await new Promise((r) => setTimeout(r, 5));
    ctrl.abort();
    const err = await p.catch((e: unknown) => e);
    expect((err as Error).message).toBe("cancelled");
    expect(await listing()).toEqual([]);
  });

  it("says the HTTP status of a missing release file", async () => {
    handler = (_req, res) => res.writeHead(404).end("Not Found");
    const err = await download().p.catch((e: unknown) => e);
    expect((err as Error).message).toContain("HTTP 404");
    expect((err as DownloadError).refused).toBe(false);
  });
});

describe("Installer", () => {
  const build: EngineBuild = { file: "quire_0.1.0_linux_amd64.gz", sha256: SHA, size: GZ.length };
  const deps = (over: Partial<InstallDeps> = {}): InstallDeps => ({
    platform: { platform: "linux", arch: "x64", env: { HOME: dir } },
    version: "0.1.0",
    key: "linux_amd64",
    builds: { linux_amd64: build },
    releaseUrl: () => `${base}/`,
    download: downloadEngine,
    log: () => {},
    ...over,
  });

  it("downloads this version's build for this machine into the data folder", async () => {
    const inst = new Installer(deps());
    const states: InstallState["kind"][] = [];
    inst.onChange((s) => states.push(s.kind));
    expect(inst.url).toBe(`${base}/0.1.0/quire_0.1.0_linux_amd64.gz`);
    const path = await inst.install();
    expect(path).toBe(join(dir, ".local", "share", "quire", "engines", "0.1.0", "quire"));
    expect((await fs.readFile(path!)).equals(ENGINE)).toBe(true);
    expect(states[0]).toBe("downloading");
    expect(states.at(-1)).toBe("done");
    // Progress is drawn per percent, not per network chunk.
    expect(states.length).toBeLessThanOrEqual(103);
  });

  it("a development build (no checksums compiled in) refuses to download and says so plainly", async () => {
    let called = false;
    const inst = new Installer(deps({ builds: {}, download: async () => void (called = true) }));
    expect(await inst.install()).toBeNull();
    expect(called).toBe(false);
    expect(inst.state).toEqual({ kind: "failed", refused: true, message: DEV_BUILD_TEXT });
  });

  it("a checksum mismatch is said as a refusal, and the file is not kept", async () => {
    const inst = new Installer(deps({ builds: { linux_amd64: { ...build, sha256: "0".repeat(64) } } }));
    expect(await inst.install()).toBeNull();
    expect(inst.state).toMatchObject({ kind: "failed", refused: true });
    expect(inst.state.kind === "failed" && inst.state.message).toContain("does not match the SHA-256 this plugin was built with");
    await expect(fs.stat(join(dir, ".local", "share", "quire", "engines", "0.1.0", "quire"))).rejects.toThrow();
  });

  it("cancel goes back to the start, with nothing kept", async () => {
    handler = (_req, res) => {
      res.writeHead(200, { "content-length": GZ.length });
      res.write(GZ.subarray(0, 50_000));
    };
    const inst = new Installer(deps());
    const p = inst.install();
    while (inst.state.kind !== "downloading" || inst.state.done === 0) await new Promise((r) => setTimeout(r, 5));
    inst.cancel();
    expect(await p).toBeNull();
    expect(inst.state).toEqual({ kind: "idle" });
    await expect(fs.stat(join(dir, ".local", "share", "quire", "engines", "0.1.0", "quire"))).rejects.toThrow();
  });
});
