import { assertUnreachable } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { LlamaDriver } from '../llama/llama.driver';
import type { ModelConfig, ModelsConfig } from '../registry/models-config.schema';
import { ScriptedDriver } from '../scripted/scripted.driver';
import type { InferenceDriver } from './inference-driver';

/** One driver per provider that the registry uses. */
export function createDrivers(config: ModelsConfig, log: Logger): InferenceDriver[] {
  const drivers: InferenceDriver[] = [];
  const byProvider = new Map<ModelConfig['provider'], ModelConfig[]>();
  for (const model of config.models) {
    byProvider.set(model.provider, [...(byProvider.get(model.provider) ?? []), model]);
  }
  for (const [provider, models] of byProvider) {
    switch (provider) {
      case 'llama':
        drivers.push(new LlamaDriver(models, log.child({ provider })));
        break;
      default:
        assertUnreachable(provider);
    }
  }
  if (config.scripted) drivers.push(new ScriptedDriver(config.scripted.dir, log.child({ provider: 'scripted' })));
  return drivers;
}
