import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: {
      // The real `obsidian` package is types only; tests run against a stub.
      obsidian: fileURLToPath(new URL("./tests/obsidian-stub.ts", import.meta.url)),
    },
  },
  test: {
    include: ["tests/**/*.test.ts"],
    environment: "node",
    setupFiles: ["./tests/setup.ts"],
    // Some tests start real processes and servers; on a loaded 2-core CI
    // machine they take seconds, not the default 5 s budget's few ms.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ["default", "./tests/summary-reporter.ts"],
  },
});
