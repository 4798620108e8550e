// Minimal GGUF v3 writer: metadata key/values and tensors, streamed to disk so that a
// multi-gigabyte benchmark model never has to sit in memory.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

const GGUF_MAGIC = 0x46554747; // "GGUF" little-endian
const GGUF_VERSION = 3;
const ALIGNMENT = 32;
const CHUNK_ELEMENTS = 1 << 20;

const ValueType = { UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7, STRING: 8, ARRAY: 9, UINT64: 10 };
export const TensorType = { F32: 0, F16: 1, Q4_0: 2 };
/** Q4_0: blocks of 32 weights, an f16 scale then 16 bytes of 4-bit values (ggml's block_q4_0). */
export const Q4_0_BLOCK = 32;
export const Q4_0_BLOCK_BYTES = 18;
const tensorBytes = {
  [TensorType.F32]: (elements) => elements * 4,
  [TensorType.F16]: (elements) => elements * 2,
  [TensorType.Q4_0]: (elements) => (elements / Q4_0_BLOCK) * Q4_0_BLOCK_BYTES,
};

class ByteSink {
  parts = [];
  u32(v) { const b = Buffer.alloc(4); b.writeUInt32LE(v); this.parts.push(b); }
  i32(v) { const b = Buffer.alloc(4); b.writeInt32LE(v); this.parts.push(b); }
  u64(v) { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); this.parts.push(b); }
  f32(v) { const b = Buffer.alloc(4); b.writeFloatLE(v); this.parts.push(b); }
  bool(v) { this.parts.push(Buffer.from([v ? 1 : 0])); }
  str(s) { const b = Buffer.from(s, 'utf8'); this.u64(b.length); this.parts.push(b); }
  toBuffer() { return Buffer.concat(this.parts); }
}

const align = (n) => Math.ceil(n / ALIGNMENT) * ALIGNMENT;

export class GgufWriter {
  #kv = [];
  #tensors = [];

  uint32(key, value) { this.#kv.push({ key, type: ValueType.UINT32, write: (s) => s.u32(value) }); return this; }
  float32(key, value) { this.#kv.push({ key, type: ValueType.FLOAT32, write: (s) => s.f32(value) }); return this; }
  bool(key, value) { this.#kv.push({ key, type: ValueType.BOOL, write: (s) => s.bool(value) }); return this; }
  string(key, value) { this.#kv.push({ key, type: ValueType.STRING, write: (s) => s.str(value) }); return this; }

  stringArray(key, values) {
    return this.#array(key, ValueType.STRING, values, (s, v) => s.str(v));
  }

  int32Array(key, values) {
    return this.#array(key, ValueType.INT32, values, (s, v) => s.i32(v));
  }

  /**
   * `dims` in ggml order (innermost first). `fill(out, start)` writes the values of elements
   * [start, start + out.length) into the Float32Array `out`; it is called in order. For Q4_0,
   * `out` is a Buffer of whole blocks and `start` the first block's element index: quantising
   * gigabytes of floats in JavaScript is too slow for a benchmark model, so its filler writes
   * the blocks itself.
   */
  tensor(name, dims, type, fill) {
    const elements = dims.reduce((a, b) => a * b, 1);
    if (type === TensorType.Q4_0 && dims[0] % Q4_0_BLOCK !== 0) throw new Error(`${name}: a Q4_0 row must be a multiple of ${Q4_0_BLOCK} long, got ${dims[0]}`);
    this.#tensors.push({ name, dims, type, fill, elements, bytes: tensorBytes[type](elements) });
    return this;
  }

  write(path) {
    mkdirSync(dirname(path), { recursive: true });
    const header = this.#header();
    const fd = openSync(path, 'w');
    try {
      writeSync(fd, header);
      let offset = header.length;
      for (const t of this.#tensors) {
        offset += writeSync(fd, Buffer.alloc(align(offset) - offset));
        offset += writeTensorData(fd, t);
      }
      return offset;
    } finally {
      closeSync(fd);
    }
  }

  #array(key, elementType, values, writeOne) {
    this.#kv.push({
      key,
      type: ValueType.ARRAY,
      write: (s) => {
        s.u32(elementType);
        s.u64(values.length);
        for (const v of values) writeOne(s, v);
      },
    });
    return this;
  }

  #header() {
    const s = new ByteSink();
    s.u32(GGUF_MAGIC);
    s.u32(GGUF_VERSION);
    s.u64(this.#tensors.length);
    s.u64(this.#kv.length);
    for (const { key, type, write } of this.#kv) {
      s.str(key);
      s.u32(type);
      write(s);
    }
    let dataOffset = 0;
    for (const t of this.#tensors) {
      dataOffset = align(dataOffset);
      s.str(t.name);
      s.u32(t.dims.length);
      for (const d of t.dims) s.u64(d);
      s.u32(t.type);
      s.u64(dataOffset);
      dataOffset += t.bytes;
    }
    const header = s.toBuffer();
    return Buffer.concat([header, Buffer.alloc(align(header.length) - header.length)]);
  }
}

function writeTensorData(fd, t) {
  if (t.type === TensorType.Q4_0) return writeBlocks(fd, t);
  let written = 0;
  for (let start = 0; start < t.elements; start += CHUNK_ELEMENTS) {
    const values = new Float32Array(Math.min(CHUNK_ELEMENTS, t.elements - start));
    t.fill(values, start);
    const typed = t.type === TensorType.F16 ? Float16Array.from(values) : values;
    written += writeSync(fd, new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength));
  }
  return written;
}

function writeBlocks(fd, t) {
  let written = 0;
  const blocksPerChunk = CHUNK_ELEMENTS / Q4_0_BLOCK;
  for (let start = 0; start < t.elements; start += CHUNK_ELEMENTS) {
    const blocks = Math.min(blocksPerChunk, (t.elements - start) / Q4_0_BLOCK);
    const out = Buffer.alloc(blocks * Q4_0_BLOCK_BYTES);
    t.fill(out, start);
    written += writeSync(fd, out);
  }
  return written;
}
