import type { GenerateRequest } from '@weft/contracts';
import type { SamplingDefaults } from '../registry/models-config.schema';

/** node-llama-cpp's sampling options for one request: the request's values over the model's defaults. */
export interface LlamaSampling {
  temperature?: number;
  topP?: number;
  topK?: number;
  minP?: number;
  seed?: number;
  /** `false`: no penalty (the default); never left to node-llama-cpp's own (1.1 over the last 64 tokens). */
  repeatPenalty: false | { penalty: number };
  customStopTriggers?: string[];
}

/**
 * No repeat penalty unless the request or the model's `sampling` asks for one, as llama.cpp's
 * server (`repeat_penalty` 1.0) and the OpenAI and Anthropic APIs (no penalty by default) do:
 * clients sent through their routes expect that, and code repeats its tokens by nature (braces,
 * names, JSON keys). node-llama-cpp's own default penalised the last 64 tokens at 1.1, and
 * handed the native sampler a new token list on every token.
 */
const NO_PENALTY = 1;

export function resolveSampling(request: GenerateRequest, defaults: SamplingDefaults): LlamaSampling {
  const penalty = request.repeatPenalty ?? defaults.repeatPenalty ?? NO_PENALTY;
  const sampling: LlamaSampling = {
    temperature: request.temperature ?? defaults.temperature,
    topP: request.topP ?? defaults.topP,
    topK: request.topK ?? defaults.topK,
    minP: request.minP ?? defaults.minP,
    seed: request.seed ?? defaults.seed,
    repeatPenalty: penalty === NO_PENALTY ? false : { penalty },
  };
  if (request.stop?.length) sampling.customStopTriggers = request.stop;
  return Object.fromEntries(Object.entries(sampling).filter(([, v]) => v !== undefined)) as LlamaSampling;
}
