import type { GenerateRequest } from '@weft/contracts';
import type { SamplingDefaults } from '../registry/models-config.schema';

/** node-llama-cpp's sampling options for one request: the request's values over the model's defaults. */
export interface LlamaSampling {
  temperature?: number;
  topP?: number;
  topK?: number;
  minP?: number;
  seed?: number;
  /** `false` turns the penalty off; absent keeps node-llama-cpp's default. */
  repeatPenalty?: false | { penalty: number };
  customStopTriggers?: string[];
}

export function resolveSampling(request: GenerateRequest, defaults: SamplingDefaults): LlamaSampling {
  const penalty = request.repeatPenalty ?? defaults.repeatPenalty;
  const sampling: LlamaSampling = {
    temperature: request.temperature ?? defaults.temperature,
    topP: request.topP ?? defaults.topP,
    topK: request.topK ?? defaults.topK,
    minP: request.minP ?? defaults.minP,
    seed: request.seed ?? defaults.seed,
  };
  if (penalty !== undefined) sampling.repeatPenalty = penalty === 1 ? false : { penalty };
  if (request.stop?.length) sampling.customStopTriggers = request.stop;
  return Object.fromEntries(Object.entries(sampling).filter(([, v]) => v !== undefined)) as LlamaSampling;
}
