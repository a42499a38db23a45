// Obsidian's review rules (eslint-plugin-obsidianmd, recommended config) over
// the code that ships in main.js, and its manifest rule over the manifest at
// the repository root. `npm run lint` runs it from the root, where the
// plugin's rules read manifest.json (minAppVersion, isDesktopOnly).
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import tsparser from "@typescript-eslint/parser";
import { defineConfig } from "eslint/config";
import obsidianmd from "eslint-plugin-obsidianmd";

const here = dirname(fileURLToPath(import.meta.url));

export default defineConfig([
  ...obsidianmd.configs.recommended,
  {
    files: ["plugin/src/**/*.ts"],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: here },
    },
    rules: {
      // The recommended options, plus the names the UI uses as names and
      // placeholders that are values, not sentences (an API key's prefix, folder names).
      "obsidianmd/ui/sentence-case": [
        "warn",
        { enforceCamelCaseLower: true, brands: ["Quire", "Obsidian", "Ollama", "OpenAI", "Anthropic"], ignoreWords: ["Enter"], ignoreRegex: ["^sk-…$", "^Templates/\\nArchive/$", "^/usr/local/bin/quire$", "\\.quire\\b"] },
      ],
      // getSettingDefinitions needs Obsidian 1.13; minAppVersion is 1.7.2, where only display() exists.
      "obsidianmd/settings-tab/prefer-setting-definitions": "off",
    },
  },
  {
    files: ["manifest.json"],
    languageOptions: { parser: tsparser, parserOptions: { extraFileExtensions: [".json"] } },
    rules: { "obsidianmd/validate-manifest": "error" },
  },
]);
