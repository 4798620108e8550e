import type { GgufFacts } from '@weft/contracts';
import { pullFailed } from './pull-errors';

/** A context larger than this is not the default even when the model was trained for it: KV memory grows with it. */
export const MAX_DEFAULT_CONTEXT = 32_768;
/** Models that say nothing of their training context get this. */
export const FALLBACK_CONTEXT = 4_096;

/**
 * Reads what the GGUF's metadata says: architecture, trained context, chat template, whether the
 * template renders tools, FIM tokens. Only the header is read (node-llama-cpp's parser, no weights).
 */
export async function readGgufFacts(path: string): Promise<GgufFacts> {
  const { readGgufFileInfo } = await import('node-llama-cpp');
  let metadata: Record<string, unknown>;
  try {
    metadata = (await readGgufFileInfo(path, { readTensorInfo: false })).metadata as unknown as Record<string, unknown>;
  } catch (error) {
    throw pullFailed('not-gguf', `The downloaded file is not a GGUF model (${error instanceof Error ? error.message : String(error)}): it is deleted and nothing was registered`, { path }, error);
  }
  return factsOf(metadata);
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

/** The context size a newly pulled model gets: what it was trained for, within MAX_DEFAULT_CONTEXT. */
export function defaultContextSize(facts: GgufFacts): number {
  return Math.min(facts.trainedContextSize ?? FALLBACK_CONTEXT, MAX_DEFAULT_CONTEXT);
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}
