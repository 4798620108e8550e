import type { AdminModel, ModelSettings } from '@weft/contracts';
import type { ModelConfig } from './models-config.schema';
import type { PulledModel } from './pulled-models.store';

/** A model of the config file, as `weft admin models list` shows it. */
export function adminModelOfConfig(model: ModelConfig): AdminModel {
  if (model.provider !== 'llama') {
    return { id: model.id, origin: 'config', provider: model.provider, contextSize: model.contextSize, settings: { contextSize: model.contextSize, roles: model.roles } };
  }
  const settings: ModelSettings = {
    contextSize: model.contextSize,
    threads: model.threads,
    gpuLayers: model.gpuLayers,
    sequences: model.sequences,
    expressSequences: model.expressSequences,
    roles: model.roles,
    embeddings: model.embeddings,
  };
  return { id: model.id, origin: 'config', provider: 'llama', contextSize: model.contextSize, settings, ...(model.remote ? { source: model.remote } : { file: model.path }) };
}

export function adminModelOfPulled(model: PulledModel): AdminModel {
  return {
    id: model.id,
    origin: 'pulled',
    provider: 'llama',
    contextSize: model.settings.contextSize ?? 4096,
    settings: model.settings,
    file: model.file,
    source: model.source,
    sizeBytes: model.sizeBytes,
    sha256: model.sha256,
    pulledAt: model.pulledAt,
    gguf: model.gguf,
  };
}
