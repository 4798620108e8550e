import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { ggufInvalid, isGgufInvalid } from './gguf-invalid';
import { GGUF_LIMITS, validateGguf, type GgufHeader, type GgufLimits } from './validate-gguf';

/** Files whose result is remembered; the oldest is forgotten past this. */
const REMEMBERED_FILES = 256;

/**
 * Remembers each model file's validation by its identity (size, mtime, inode): a file that failed
 * stays refused (quarantined) without being parsed again until it changes, one that passed is not
 * re-read for every estimate, load or listing.
 */
export class GgufFileChecks {
  private readonly results = new Map<string, { identity: string; result: Promise<GgufHeader> }>();

  /** The validated header; an INFERENCE.MODEL_FILE_INVALID for a refused file. */
  async check(path: string): Promise<GgufHeader> {
    const info = await stat(path);
    const identity = `${info.size}:${info.mtimeMs}:${info.ino}`;
    const known = this.results.get(path);
    if (known?.identity === identity) return known.result;
    const result = validateModelFile(path);
    this.results.delete(path);
    this.results.set(path, { identity, result });
    if (this.results.size > REMEMBERED_FILES) this.results.delete(this.results.keys().next().value as string);
    // Errors other than a refusal (the file vanished, EIO) are not remembered.
    result.catch((error: unknown) => {
      if (!isGgufInvalid(error) && this.results.get(path)?.result === result) this.results.delete(path);
    });
    return result;
  }

  /** Why the file is quarantined, or undefined when it passed (or cannot be read at all). */
  async problemOf(path: string): Promise<{ field: string; reason: string } | undefined> {
    try {
      await this.check(path);
      return undefined;
    } catch (error) {
      if (!isGgufInvalid(error)) return undefined;
      return { field: String(error.details?.field), reason: error.message };
    }
  }
}

/** The worker's one memory of checked files, shared by pulls, loads and listings. */
export const ggufFileChecks = new GgufFileChecks();

/** A GGUF's header validated, and the keys llama.cpp cannot load a model without present. */
export async function validateModelFile(path: string, limits: GgufLimits = GGUF_LIMITS): Promise<GgufHeader> {
  const header = await validateGguf(path, limits);
  assertRequiredKeys(basename(path), header);
  return header;
}

/**
 * llama.cpp aborts the whole process (no exception) on some malformed GGUFs, e.g. without
 * feed_forward_length or head_count: such a file is refused like any other invalid one.
 */
export function assertRequiredKeys(file: string, header: GgufHeader): void {
  const arch = header.metadata.get('general.architecture')?.value;
  if (typeof arch !== 'string' || arch === '') throw ggufInvalid(file, 'general.architecture', 'missing (or not a string)');
  for (const key of [`${arch}.feed_forward_length`, `${arch}.attention.head_count`]) {
    if (!header.metadata.has(key)) throw ggufInvalid(file, key, 'missing: llama.cpp needs it to load the model');
  }
}
