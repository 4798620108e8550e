import { AppError, ErrorCode, type GgufFacts } from '@weft/contracts';
import { ggufFileChecks } from '../../gguf-validation/gguf-checks';
import { isGgufInvalid } from '../../gguf-validation/gguf-invalid';
import type { GgufHeader } from '../../gguf-validation/validate-gguf';

/** A context larger than this is not the default even when the model was trained for it: KV memory grows with it. */
export const MAX_DEFAULT_CONTEXT = 32_768;
/** Models that say nothing of their training context get this. */
export const FALLBACK_CONTEXT = 4_096;

/**
 * Validates the downloaded GGUF (Weft's bounded parser: header only, no weights) and reads what its
 * metadata says: architecture, trained context, chat template, whether the template renders tools,
 * FIM tokens. A refused file is an INFERENCE.MODEL_FILE_INVALID naming the field.
 */
export async function readGgufFacts(path: string): Promise<GgufFacts> {
  let header: GgufHeader;
  try {
    header = await ggufFileChecks.check(path);
  } catch (error) {
    if (!isGgufInvalid(error)) throw error;
    const { field, problem } = error.details as { field: string; problem: string };
    throw new AppError(ErrorCode.ModelFileInvalid, `The downloaded file is not a GGUF Weft can load safely (${field}: ${problem}): it is deleted and nothing was registered`, { reason: 'not-gguf', field, problem }, false, { cause: error });
  }
  return factsOf(metadataTree(header));
}

/** The header's kept values as a tree (`general.name` → `{ general: { name } }`). */
export function metadataTree(header: GgufHeader): Record<string, unknown> {
  // Keys come from the file: null-prototype nodes, so `__proto__.x` is a key like any other.
  const tree = Object.create(null) as Record<string, unknown>;
  for (const [key, entry] of header.metadata) {
    if (entry.value === undefined) continue;
    const parts = key.split('.');
    const node = branch(tree, parts.slice(0, -1));
    const leaf = parts.at(-1) ?? key;
    if (node && node[leaf] === undefined) node[leaf] = entry.value;
  }
  return tree;
}

/** The facts from a parsed metadata tree (exported for the unit test). */
export function factsOf(metadata: Record<string, unknown>): GgufFacts {
  const general = record(metadata.general);
  const architecture = typeof general.architecture === 'string' ? general.architecture : undefined;
  const arch = architecture ? record(metadata[architecture]) : {};
  const tokenizer = record(metadata.tokenizer);
  const ggml = record(tokenizer.ggml);
  const template = typeof tokenizer.chat_template === 'string' ? tokenizer.chat_template : undefined;
  const trained = typeof arch.context_length === 'number' && arch.context_length > 0 ? arch.context_length : undefined;
  return {
    ...(architecture ? { architecture } : {}),
    ...(typeof general.name === 'string' ? { name: general.name } : {}),
    ...(trained ? { trainedContextSize: trained } : {}),
    chatTemplate: template !== undefined,
    // Templates of tool-trained models render the `tools` variable (Qwen, Llama 3.1, Mistral, Hermes…).
    toolCalls: template !== undefined && /\btools\b/.test(template),
    fim: ['fim_pre_token_id', 'fim_suf_token_id', 'fim_mid_token_id'].every((key) => typeof ggml[key] === 'number'),
  };
}

/** The node at `path`, made as needed; undefined where a value already sits on the way. */
function branch(tree: Record<string, unknown>, path: string[]): Record<string, unknown> | undefined {
  let node = tree;
  for (const part of path) {
    const next = node[part] ?? (node[part] = Object.create(null));
    if (typeof next !== 'object' || next === null) return undefined;
    node = next as Record<string, unknown>;
  }
  return node;
}

/** The context size a newly pulled model gets: what it was trained for, within MAX_DEFAULT_CONTEXT. */
export function defaultContextSize(facts: GgufFacts): number {
  return Math.min(facts.trainedContextSize ?? FALLBACK_CONTEXT, MAX_DEFAULT_CONTEXT);
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}
