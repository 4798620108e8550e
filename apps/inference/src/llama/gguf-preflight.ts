import { open } from 'node:fs/promises';
import type { NodeLlamaCpp } from './llama-runtime';

/**
 * llama.cpp aborts the whole process (no exception) on some malformed GGUFs, e.g. without
 * feed_forward_length or head_count. Read the header first so such a file is a typed error.
 */
export async function assertLoadableGguf(lib: NodeLlamaCpp, path: string): Promise<void> {
  await assertGgufVersion(path);
  const info = await lib.readGgufFileInfo(path, { readTensorInfo: false });
  const arch = info.metadata.general?.architecture;
  if (!arch) throw new Error('GGUF has no general.architecture');
  const hyper = (info.architectureMetadata ?? {}) as {
    feed_forward_length?: unknown;
    attention?: { head_count?: unknown };
  };
  const missing = [
    hyper.feed_forward_length === undefined && `${arch}.feed_forward_length`,
    hyper.attention?.head_count === undefined && `${arch}.attention.head_count`,
  ].filter((key): key is string => typeof key === 'string');
  if (missing.length > 0) throw new Error(`GGUF lacks required keys: ${missing.join(', ')}`);
}

/** GGUF versions llama.cpp reads. */
const GGUF_VERSIONS = new Set([2, 3]);

/**
 * node-llama-cpp reads a file with an unknown version as version 3 and, on a file that is not a
 * GGUF past its magic, never returns: check the magic and the version first.
 */
async function assertGgufVersion(path: string): Promise<void> {
  const file = await open(path, 'r');
  try {
    const { bytesRead, buffer } = await file.read(Buffer.alloc(8), 0, 8, 0);
    if (bytesRead < 8 || buffer.toString('latin1', 0, 4) !== 'GGUF') throw new Error('not a GGUF file (no GGUF magic)');
    const version = buffer.readUInt32LE(4);
    if (!GGUF_VERSIONS.has(version)) throw new Error(`unsupported GGUF version ${version}`);
  } finally {
    await file.close();
  }
}
