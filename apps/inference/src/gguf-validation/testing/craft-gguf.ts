import { GgufType } from '../ggml-types';

/** Little-endian pieces of a GGUF, for crafting valid and hostile headers in tests. */
export const piece = {
  u32: (value: number) => {
    const buffer = Buffer.alloc(4);
    buffer.writeUInt32LE(value);
    return buffer;
  },
  u64: (value: bigint | number) => {
    const buffer = Buffer.alloc(8);
    buffer.writeBigUInt64LE(BigInt(value));
    return buffer;
  },
  str: (text: string) => {
    const bytes = Buffer.from(text, 'utf8');
    return Buffer.concat([piece.u64(bytes.length), bytes]);
  },
};

export function preamble(version: number, tensors: bigint | number, entries: bigint | number): Buffer {
  return Buffer.concat([Buffer.from('GGUF', 'latin1'), piece.u32(version), piece.u64(tensors), piece.u64(entries)]);
}

export function stringEntry(key: string, value: string): Buffer {
  return Buffer.concat([piece.str(key), piece.u32(GgufType.String), piece.str(value)]);
}

export function u32Entry(key: string, value: number): Buffer {
  return Buffer.concat([piece.str(key), piece.u32(GgufType.Uint32), piece.u32(value)]);
}

export function tensorInfo(name: string, shape: (number | bigint)[], type: number, offset: bigint | number): Buffer {
  return Buffer.concat([piece.str(name), piece.u32(shape.length), ...shape.map((extent) => piece.u64(extent)), piece.u32(type), piece.u64(offset)]);
}

/**
 * A small GGUF the validator accepts: a llama with the keys llama.cpp needs, a token list and two
 * F32 tensors whose data follows, aligned to 32 bytes.
 */
export function validGguf(): Buffer {
  const entries = [
    stringEntry('general.architecture', 'llama'),
    u32Entry('llama.feed_forward_length', 64),
    u32Entry('llama.attention.head_count', 2),
    u32Entry('general.alignment', 32),
    Buffer.concat([piece.str('tokenizer.ggml.tokens'), piece.u32(GgufType.Array), piece.u32(GgufType.String), piece.u64(3), piece.str('a'), piece.str('b'), piece.str('c')]),
  ];
  const tensors = [tensorInfo('token_embd.weight', [8, 3], 0, 0), tensorInfo('output_norm.weight', [8], 0, 96)];
  const header = Buffer.concat([preamble(3, tensors.length, entries.length), ...entries, ...tensors]);
  const padding = Buffer.alloc((32 - (header.length % 32)) % 32);
  return Buffer.concat([header, padding, Buffer.alloc(96 + 32)]);
}

/**
 * The hostile files of issue #46: each the validator must refuse, quickly, naming the field.
 * Bytes are few: they are written by the tests.
 */
export function hostileCorpus(): { name: string; bytes: Buffer; field: RegExp }[] {
  const valid = validGguf();
  return [
    // 259 bytes claiming 2^62 tensors: what held a worker's main thread at 100 % for good.
    { name: 'tensors-2e62', bytes: Buffer.concat([preamble(3, 1n << 62n, 1), stringEntry('general.architecture', 'llama'), Buffer.alloc(259 - 24 - 8 - 20 - 4 - 8 - 5)]).subarray(0, 259), field: /^tensor_count$/ },
    // 69 bytes claiming 10^7 metadata entries: 16-25 s and ~500 MB at pull time.
    { name: 'entries-1e7', bytes: Buffer.concat([preamble(3, 0, 10_000_000), Buffer.alloc(45)]), field: /^metadata_kv_count$/ },
    { name: 'version-99', bytes: Buffer.concat([Buffer.from('GGUF'), piece.u32(99), valid.subarray(8)]), field: /^version$/ },
    { name: 'not-gguf', bytes: Buffer.from('<html>Entry not found</html>'), field: /^magic$/ },
    { name: 'offset-past-end', bytes: valid.subarray(0, valid.length - 40), field: /offset$/ },
    { name: 'truncated-in-tensor-list', bytes: valid.subarray(0, valid.length - 128 - 40), field: /^tensor output_norm\.weight/ },
    { name: 'string-longer-than-file', bytes: Buffer.concat([preamble(3, 0, 1), piece.u64(1n << 40n), Buffer.from('general')]), field: /key length$/ },
    { name: 'array-of-arrays', bytes: Buffer.concat([preamble(3, 0, 1), piece.str('a'), piece.u32(GgufType.Array), piece.u32(GgufType.Array), piece.u64(1), Buffer.alloc(16)]), field: /^a$/ },
    { name: 'array-longer-than-file', bytes: Buffer.concat([preamble(3, 0, 1), piece.str('a'), piece.u32(GgufType.Array), piece.u32(GgufType.Uint64), piece.u64(1n << 60n), Buffer.alloc(16)]), field: /^a length$/ },
    { name: 'unknown-value-type', bytes: Buffer.concat([preamble(3, 0, 1), piece.str('a'), piece.u32(77), Buffer.alloc(16)]), field: /^a type$/ },
    {
      name: 'five-dimensions',
      bytes: Buffer.concat([preamble(3, 1, 1), stringEntry('general.architecture', 'llama'), tensorInfo('t', [32, 1, 1, 1, 1], 0, 0), Buffer.alloc(512)]),
      field: /n_dims$/,
    },
    { name: 'unknown-tensor-type', bytes: Buffer.concat([preamble(3, 1, 1), stringEntry('general.architecture', 'llama'), tensorInfo('t', [32], 4, 0), Buffer.alloc(512)]), field: /type$/ },
    { name: 'huge-tensor', bytes: Buffer.concat([preamble(3, 1, 1), stringEntry('general.architecture', 'llama'), tensorInfo('t', [1n << 40n, 1n << 30n], 0, 0), Buffer.alloc(512)]), field: /shape$|offset$/ },
    { name: 'no-architecture', bytes: Buffer.concat([preamble(3, 0, 1), u32Entry('general.alignment', 32)]), field: /^general\.architecture$/ },
  ];
}
