import { assertUnreachable } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { LlamaDriver, type LlamaDriverOptions } from '../llama/llama.driver';
import type { AnthropicModelConfig, LlamaModelConfig, ModelsConfig, OpenAiModelConfig } from '../registry/models-config.schema';
import { AnthropicDriver } from '../remote/anthropic.driver';
import { OpenAiDriver } from '../remote/openai.driver';
import { ScriptedDriver } from '../scripted/scripted.driver';
import type { DriverHooks, InferenceDriver } from './inference-driver';

export interface DriverOptions {
  /** Where `hf:` and URL model sources are downloaded. */
  downloadDir: string;
  kvState?: LlamaDriverOptions['kvState'];
  binary?: LlamaDriverOptions['binary'];
  generationLoop?: LlamaDriverOptions['generationLoop'];
  grammarBudgetMs?: LlamaDriverOptions['grammarBudgetMs'];
  memory?: LlamaDriverOptions['memory'];
  hooks?: DriverHooks;
  /** `*_API_KEY` variables for remote providers, by name. */
  apiKeys?: Readonly<Record<string, string>>;
}

/** One driver per provider that the registry uses. */
export function createDrivers(config: ModelsConfig, log: Logger, options: DriverOptions): InferenceDriver[] {
  const drivers: InferenceDriver[] = [];
  const llama: LlamaModelConfig[] = [];
  const openai: OpenAiModelConfig[] = [];
  const anthropic: AnthropicModelConfig[] = [];
  for (const model of config.models) {
    switch (model.provider) {
      case 'llama':
        llama.push(model);
        break;
      case 'openai':
        openai.push(model);
        break;
      case 'anthropic':
        anthropic.push(model);
        break;
      default:
        assertUnreachable(model);
    }
  }
  const keys = options.apiKeys ?? {};
  // Always there: an admin may pull a GGUF into a worker that started with none.
  drivers.push(new LlamaDriver(llama, log.child({ provider: 'llama' }), options));
  if (openai.length > 0) drivers.push(new OpenAiDriver(openai, keys, log.child({ provider: 'openai' })));
  if (anthropic.length > 0) drivers.push(new AnthropicDriver(anthropic, keys, log.child({ provider: 'anthropic' })));
  if (config.scripted) drivers.push(new ScriptedDriver(config.scripted.dir, log.child({ provider: 'scripted' })));
  return drivers;
}
