import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { ConfigError } from '@weft/config';
import { assertUnreachable } from '@weft/contracts';
import { isRemoteSource, modelsConfigSchema, type ModelConfig, type ModelsConfig } from './models-config.schema';

/** Reads the model registry once at boot; fails with every problem listed. */
export function loadModelsConfig(file: string, modelsDir: string): ModelsConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError([`MODELS_CONFIG (${file}): ${reason}`]);
  }
  return parseModelsConfig(raw, modelsDir, file);
}

/** Validates a registry and resolves relative paths against `modelsDir`. */
export function parseModelsConfig(raw: unknown, modelsDir: string, source = 'models config'): ModelsConfig {
  const parsed = modelsConfigSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${source}: ${issue.path.join('.') || '(root)'}: ${issue.message}`),
    );
  }
  const within = (path: string) => (isAbsolute(path) ? path : resolve(modelsDir, path));
  const config = parsed.data;
  const models = config.models.map((model): ModelConfig => {
    switch (model.provider) {
      case 'llama': {
        const { path, source, ...rest } = model;
        const location = path ?? source ?? '';
        if (isRemoteSource(location)) return { ...rest, path: '', remote: location };
        return { ...rest, path: within(location) };
      }
      case 'openai':
      case 'anthropic':
        return model;
      default:
        return assertUnreachable(model);
    }
  });
  return { models, scripted: config.scripted && { dir: within(config.scripted.dir) }, downloadDir: modelsDir };
}
