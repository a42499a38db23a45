// Pack and unpack the weights file as sidecar/vector/use embeds it
// (weights.go, unpackWeights): "QUSZ", the file's length and the packed
// length of its odd bytes (uint32 LE), its odd bytes as raw DEFLATE,
// then its even bytes as they are. Matrices are float16 at 4-aligned
// offsets, so the odd bytes are their signs and exponents, which DEFLATE
// shrinks by 30%, and the even bytes the low mantissa bits, which it
// shrinks by 1% at the cost of decoding them: 12.1 MB instead of 14.2 MB
// in the binary.
"use strict";

const zlib = require("zlib");

function planes(buf) {
  const even = Buffer.alloc(Math.ceil(buf.length / 2));
  const odd = Buffer.alloc(Math.floor(buf.length / 2));
  for (let i = 0; i < buf.length; i++) (i % 2 ? odd : even)[i >> 1] = buf[i];
  return [even, odd];
}

function pack(buf) {
  const [even, odd] = planes(buf);
  const zo = zlib.deflateRawSync(odd, { level: 9 });
  const pre = Buffer.alloc(12);
  pre.write("QUSZ", 0, "latin1");
  pre.writeUInt32LE(buf.length, 4);
  pre.writeUInt32LE(zo.length, 8);
  return Buffer.concat([pre, zo, even]);
}

function unpack(packed) {
  if (packed.toString("latin1", 0, 4) !== "QUSZ") throw new Error("not a packed weights file");
  const n = packed.readUInt32LE(4);
  const no = packed.readUInt32LE(8);
  const odd = zlib.inflateRawSync(packed.subarray(12, 12 + no));
  const even = packed.subarray(12 + no);
  const out = Buffer.alloc(n);
  for (let i = 0; i < n; i++) out[i] = (i % 2 ? odd : even)[i >> 1];
  return out;
}

module.exports = { pack, unpack };
