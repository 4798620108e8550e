import { assertUnreachable } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { LlamaDriver } from '../llama/llama.driver';
import type { LlamaModelConfig, ModelsConfig } from '../registry/models-config.schema';
import { ScriptedDriver } from '../scripted/scripted.driver';
import type { DriverHooks, InferenceDriver } from './inference-driver';

export interface DriverOptions {
  /** Where `hf:` and URL model sources are downloaded. */
  downloadDir: string;
  kvState?: { dir: string; maxBytes: number };
  hooks?: DriverHooks;
}

/** One driver per provider that the registry uses. */
export function createDrivers(config: ModelsConfig, log: Logger, options: DriverOptions): InferenceDriver[] {
  const drivers: InferenceDriver[] = [];
  const llama: LlamaModelConfig[] = [];
  for (const model of config.models) {
    switch (model.provider) {
      case 'llama':
        llama.push(model);
        break;
      case 'openai':
      case 'anthropic':
        break;
      default:
        assertUnreachable(model);
    }
  }
  if (llama.length > 0) drivers.push(new LlamaDriver(llama, log.child({ provider: 'llama' }), options));
  if (config.scripted) drivers.push(new ScriptedDriver(config.scripted.dir, log.child({ provider: 'scripted' })));
  return drivers;
}
