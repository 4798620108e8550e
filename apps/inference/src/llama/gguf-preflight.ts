import { ggufFileChecks } from '../gguf-validation/gguf-checks';
import type { GgufHeader } from '../gguf-validation/validate-gguf';
import type { NodeLlamaCpp } from './llama-runtime';

/**
 * Nothing reaches node-llama-cpp or llama.cpp before Weft's bounded validator has read the file:
 * both parse counts and lengths as the file gives them (a header claiming 2^62 tensors held the
 * worker's main thread for good), and llama.cpp aborts the whole process on some malformed GGUFs
 * (without feed_forward_length or head_count). A refused file is an INFERENCE.MODEL_FILE_INVALID
 * naming the field, and stays refused (quarantined) until the file changes.
 */
export async function assertLoadableGguf(_lib: NodeLlamaCpp, path: string): Promise<GgufHeader> {
  return ggufFileChecks.check(path);
}
