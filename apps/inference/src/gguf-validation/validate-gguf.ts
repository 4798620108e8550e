import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { GGML_MAX_DIMS, GGML_MAX_NAME, GGML_TYPES, GGUF_FIXED_SIZES, GgufType, isGgufType } from './ggml-types';
import { GgufReader } from './gguf-reader';

/** What one validation may read and spend; every limit is far above what real models need. */
export interface GgufLimits {
  /** Metadata and tensor list together (a 256k-token vocabulary takes about 10 MiB). */
  maxHeaderBytes: number;
  timeBudgetMs: number;
  /** Real models have a few thousand at most (a 671B MoE about 1,100). */
  maxTensors: number;
  /** Real models have under a hundred. */
  maxMetadataEntries: number;
  maxArrayLength: number;
  maxStringBytes: number;
  /** Longer strings (a whole tokenizer.json some converters embed) are checked, not kept. */
  maxKeptStringBytes: number;
}

export const GGUF_LIMITS: GgufLimits = {
  maxHeaderBytes: 64 * 1024 * 1024,
  timeBudgetMs: 15_000,
  maxTensors: 65_536,
  maxMetadataEntries: 65_536,
  maxArrayLength: 16 * 1024 * 1024,
  maxStringBytes: 16 * 1024 * 1024,
  maxKeptStringBytes: 1024 * 1024,
};

/** GGUF versions llama.cpp reads (1 had 32-bit counts and is long gone). */
export const GGUF_VERSIONS: readonly number[] = [2, 3];
const DEFAULT_ALIGNMENT = 32;
/** Magic, version, tensor count, metadata count. */
const PREAMBLE_BYTES = 24;
/** The least one metadata entry can take: key length, a 1-byte key, type, a 1-byte value. */
const MIN_ENTRY_BYTES = 8 + 1 + 4 + 1;
/** The least one tensor's description can take: name length, no dimensions, type, offset. */
const MIN_TENSOR_BYTES = 8 + 4 + 4 + 8;
const INT64_LIMIT = 1n << 63n;
/** Loops check the clock this often. */
const CLOCK_EVERY = 1024;

export type GgufScalar = number | bigint | boolean | string;

/** One metadata entry: its type, and its value when it is a scalar or a string short enough to keep. */
export interface GgufEntry {
  type: GgufType;
  value?: GgufScalar;
  /** Arrays: the elements' type and count; strings not kept: their length. */
  arrayOf?: GgufType;
  length?: number;
}

/** A GGUF's header as the validator found it: every count, length, type and offset checked. */
export interface GgufHeader {
  version: number;
  tensorCount: number;
  alignment: number;
  /** Where the tensor data begins (aligned), and how many bytes of it the tensors take. */
  dataOffset: number;
  dataBytes: number;
  metadata: ReadonlyMap<string, GgufEntry>;
}

/**
 * Validates a GGUF's header before anything trusts it (llama.cpp and node-llama-cpp parse counts
 * and lengths as given, so a 259-byte file claiming 2^62 tensors held a worker's main thread for
 * good). Reads only the header, through a small window, yielding between reads; refuses, with an
 * INFERENCE.MODEL_FILE_INVALID naming the field, whatever llama.cpp's own reader refuses and whatever
 * passes the limits. Throws nothing else for a file it could open.
 */
export async function validateGguf(path: string, limits: GgufLimits = GGUF_LIMITS): Promise<GgufHeader> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const started = performance.now();
    const reader = new GgufReader(handle, size, basename(path), { maxHeaderBytes: limits.maxHeaderBytes, deadline: started + limits.timeBudgetMs, timeBudgetMs: limits.timeBudgetMs });
    return await parse(reader, limits);
  } finally {
    await handle.close();
  }
}

async function parse(reader: GgufReader, limits: GgufLimits): Promise<GgufHeader> {
  if (reader.size < 4 || (await reader.bytes(4, 'magic')).toString('latin1') !== 'GGUF') reader.fail('magic', 'the file does not start with "GGUF"');
  const version = await reader.u32('version');
  if (!GGUF_VERSIONS.includes(version)) reader.fail('version', `unsupported GGUF version ${version}: llama.cpp reads ${GGUF_VERSIONS.join(' or ')}`);
  const tensorCount = await reader.u64('tensor_count');
  const entryCount = await reader.u64('metadata_kv_count');
  checkCount(reader, 'tensor_count', tensorCount, limits.maxTensors, MIN_TENSOR_BYTES, 'tensors');
  checkCount(reader, 'metadata_kv_count', entryCount, limits.maxMetadataEntries, MIN_ENTRY_BYTES, 'metadata entries');
  const least = BigInt(PREAMBLE_BYTES) + tensorCount * BigInt(MIN_TENSOR_BYTES) + entryCount * BigInt(MIN_ENTRY_BYTES);
  if (least > BigInt(reader.size)) reader.fail('tensor_count', `${tensorCount} tensors and ${entryCount} metadata entries need at least ${least} bytes; the file has ${reader.size} (the GGUF is truncated, or the counts are false)`);

  const metadata = new Map<string, GgufEntry>();
  for (let i = 0; i < Number(entryCount); i++) {
    const key = await readString(reader, `metadata entry ${i} key`, limits.maxStringBytes, limits.maxKeptStringBytes);
    if (typeof key !== 'string' || key.length === 0) reader.fail(`metadata entry ${i} key`, key === '' ? 'the key is empty' : 'the key is too long');
    if (metadata.has(key)) reader.fail(key, 'the key appears twice');
    metadata.set(key, await readEntry(reader, key, limits));
  }
  const alignment = alignmentOf(reader, metadata.get('general.alignment'));

  let expectedOffset = 0n;
  const described: { name: string; offset: bigint; bytes: bigint }[] = [];
  const names = new Set<string>();
  for (let i = 0; i < Number(tensorCount); i++) {
    if (i % CLOCK_EVERY === 0) reader.checkTime(`tensor ${i}`);
    const tensor = await readTensorInfo(reader, i, names);
    if (tensor.offset !== expectedOffset) reader.fail(`tensor ${tensor.name} offset`, `is ${tensor.offset}; llama.cpp expects ${expectedOffset} (tensors laid out in order, each padded to ${alignment} bytes)`);
    expectedOffset += pad(tensor.bytes, BigInt(alignment));
    described.push(tensor);
  }
  const dataOffset = Number(pad(BigInt(reader.position), BigInt(alignment)));
  for (const tensor of described) {
    const end = BigInt(dataOffset) + tensor.offset + tensor.bytes;
    if (end > BigInt(reader.size)) reader.fail(`tensor ${tensor.name} offset`, `the GGUF is truncated: the tensor's data ends at byte ${end}, past the end of the file (${reader.size} bytes)`);
  }
  const last = described.at(-1);
  return { version, tensorCount: described.length, alignment, dataOffset, dataBytes: last ? Number(last.offset + last.bytes) : 0, metadata };
}

function checkCount(reader: GgufReader, field: string, count: bigint, max: number, minBytes: number, what: string): void {
  if (count > BigInt(max)) reader.fail(field, `claims ${count} ${what}; Weft reads at most ${max}`);
  if (count * BigInt(minBytes) > BigInt(reader.remaining())) reader.fail(field, `claims ${count} ${what}, which need at least ${count * BigInt(minBytes)} bytes; ${reader.remaining()} are left in the file (the GGUF is truncated, or the count is false)`);
}

async function readEntry(reader: GgufReader, key: string, limits: GgufLimits): Promise<GgufEntry> {
  const type = await readType(reader, `${key} type`);
  if (type !== GgufType.Array) {
    const value = await readValue(reader, type, key, limits);
    return typeof value === 'object' ? { type, length: value.length } : { type, value };
  }
  const arrayOf = await readType(reader, `${key} element type`);
  if (arrayOf === GgufType.Array) reader.fail(key, 'an array of arrays (llama.cpp reads none)');
  const count = await reader.u64(`${key} length`);
  const least = GGUF_FIXED_SIZES.get(arrayOf) ?? 8;
  if (count > BigInt(limits.maxArrayLength)) reader.fail(`${key} length`, `claims ${count} elements; Weft reads at most ${limits.maxArrayLength}`);
  if (count * BigInt(least) > BigInt(reader.remaining())) reader.fail(`${key} length`, `claims ${count} elements, which need at least ${count * BigInt(least)} bytes; ${reader.remaining()} are left in the file (the GGUF is truncated, or the length is false)`);
  const length = Number(count);
  const fixed = GGUF_FIXED_SIZES.get(arrayOf);
  const maxString = BigInt(limits.maxStringBytes);
  if (fixed !== undefined) {
    reader.skip(length * fixed, key);
  } else {
    // Vocabularies hold hundreds of thousands of strings: parsed from the window without a wait
    // per string, waiting (and so yielding to the event loop) only when the window runs out.
    for (let i = 0; i < length; i++) {
      if (i % CLOCK_EVERY === 0) reader.checkTime(key);
      if (!reader.buffered(8)) await reader.ensure(8, `${key}[${i}] length`);
      const bytes = reader.u64Now(key);
      // The field's name is built only for a refusal: this loop is hot.
      if (bytes > maxString || bytes > BigInt(reader.remaining())) checkStringLength(reader, bytes, `${key}[${i}]`, limits.maxStringBytes);
      reader.skip(Number(bytes), key);
    }
  }
  return { type, arrayOf, length };
}

async function readType(reader: GgufReader, field: string): Promise<GgufType> {
  const type = await reader.u32(field);
  if (!isGgufType(type)) reader.fail(field, `${type} is not a GGUF value type (0 to 12)`);
  return type;
}

async function readValue(reader: GgufReader, type: Exclude<GgufType, 9>, field: string, limits: GgufLimits): Promise<GgufScalar | { length: number }> {
  switch (type) {
    case GgufType.Uint8:
      return reader.u8(field);
    case GgufType.Int8:
      return (await reader.bytes(1, field)).readInt8(0);
    case GgufType.Uint16:
      return (await reader.bytes(2, field)).readUInt16LE(0);
    case GgufType.Int16:
      return (await reader.bytes(2, field)).readInt16LE(0);
    case GgufType.Uint32:
      return reader.u32(field);
    case GgufType.Int32:
      return (await reader.bytes(4, field)).readInt32LE(0);
    case GgufType.Float32:
      return (await reader.bytes(4, field)).readFloatLE(0);
    case GgufType.Bool:
      return (await reader.u8(field)) !== 0;
    case GgufType.String:
      return readString(reader, field, limits.maxStringBytes, limits.maxKeptStringBytes);
    case GgufType.Uint64:
      return narrow(await reader.u64(field));
    case GgufType.Int64:
      return narrow((await reader.bytes(8, field)).readBigInt64LE(0));
    case GgufType.Float64:
      return (await reader.bytes(8, field)).readDoubleLE(0);
  }
}

/** A string's text, or only its length when longer than `keep` bytes (then it is skipped unread). */
async function readString(reader: GgufReader, field: string, max: number, keep: number): Promise<string | { length: number }> {
  const length = await reader.u64(`${field} length`);
  checkStringLength(reader, length, field, max);
  const bytes = Number(length);
  if (bytes > keep) {
    reader.skip(bytes, field);
    return { length: bytes };
  }
  return (await reader.bytes(bytes, field)).toString('utf8');
}

function checkStringLength(reader: GgufReader, length: bigint, field: string, max: number): void {
  if (length > BigInt(max)) reader.fail(`${field} length`, `claims ${length} bytes; Weft reads strings of at most ${max}`);
  if (length > BigInt(reader.remaining())) reader.fail(`${field} length`, `claims ${length} bytes; ${reader.remaining()} are left in the file (the GGUF is truncated, or the length is false)`);
}

async function readTensorInfo(reader: GgufReader, index: number, names: Set<string>): Promise<{ name: string; offset: bigint; bytes: bigint }> {
  const name = await readString(reader, `tensor ${index} name`, GGML_MAX_NAME - 1, GGML_MAX_NAME - 1);
  if (typeof name !== 'string') return reader.fail(`tensor ${index} name`, 'too long');
  if (names.has(name)) reader.fail(`tensor ${name}`, 'the name appears twice');
  names.add(name);
  const dimensions = await reader.u32(`tensor ${name} n_dims`);
  if (dimensions > GGML_MAX_DIMS) reader.fail(`tensor ${name} n_dims`, `${dimensions} dimensions; llama.cpp reads at most ${GGML_MAX_DIMS}`);
  const shape: bigint[] = [];
  for (let d = 0; d < dimensions; d++) {
    const extent = await reader.u64(`tensor ${name} dimension ${d}`);
    if (extent >= INT64_LIMIT) reader.fail(`tensor ${name} dimension ${d}`, `${extent} elements is negative as llama.cpp reads it`);
    shape.push(extent);
  }
  const elements = shape.reduce((product, extent) => product * extent, 1n);
  if (elements >= INT64_LIMIT) reader.fail(`tensor ${name} shape`, `${shape.join(' x ')} elements overflow a 64-bit count`);
  const typeId = await reader.u32(`tensor ${name} type`);
  const ggml = GGML_TYPES.get(typeId);
  if (!ggml) return reader.fail(`tensor ${name} type`, `${typeId} is not a ggml tensor type llama.cpp reads`);
  const rowLength = shape[0] ?? 1n;
  if (rowLength % BigInt(ggml.blockSize) !== 0n) reader.fail(`tensor ${name} shape`, `rows of ${rowLength} elements are not whole ${ggml.name} blocks of ${ggml.blockSize}`);
  const offset = await reader.u64(`tensor ${name} offset`);
  return { name, offset, bytes: (elements / BigInt(ggml.blockSize)) * BigInt(ggml.typeSize) };
}

function alignmentOf(reader: GgufReader, entry: GgufEntry | undefined): number {
  if (!entry) return DEFAULT_ALIGNMENT;
  if (entry.type !== GgufType.Uint32 || typeof entry.value !== 'number') return reader.fail('general.alignment', 'must be a uint32');
  if (entry.value === 0 || (entry.value & (entry.value - 1)) !== 0) reader.fail('general.alignment', `${entry.value} is not a power of 2`);
  return entry.value;
}

function pad(value: bigint, alignment: bigint): bigint {
  return ((value + alignment - 1n) / alignment) * alignment;
}

function narrow(value: bigint): number | bigint {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(value) : value;
}
