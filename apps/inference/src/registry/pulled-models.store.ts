import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ggufFactsSchema, modelSettingsSchema } from '@weft/contracts';
import { z } from 'zod';
import { llamaModelSchema, type LlamaModelConfig } from './models-config.schema';

/** The registry of pulled models, in the models volume beside the GGUFs it names. */
export const PULLED_REGISTRY_FILE = 'weft-models.json';

export const pulledModelSchema = z.object({
  id: z.string(),
  /** The GGUF's name in MODELS_DIR. */
  file: z.string().regex(/^[^/\\]+\.gguf$/i),
  source: z.string(),
  sha256: z.string(),
  sizeBytes: z.number().int().nonnegative(),
  pulledAt: z.string(),
  gguf: ggufFactsSchema,
  settings: modelSettingsSchema,
});
export type PulledModel = z.infer<typeof pulledModelSchema>;

const registryFileSchema = z.object({ models: z.array(pulledModelSchema) });

/**
 * Reads and writes `weft-models.json`. Writes go to a temporary file renamed over the old one, so
 * a worker reading it meanwhile sees the old or the new registry, never half of one.
 */
export class PulledModelsStore {
  readonly path: string;

  constructor(readonly modelsDir: string) {
    this.path = join(modelsDir, PULLED_REGISTRY_FILE);
  }

  async read(): Promise<PulledModel[]> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const parsed = registryFileSchema.safeParse(JSON.parse(text));
    if (!parsed.success) throw new Error(`${this.path} is not a registry of pulled models: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    return parsed.data.models;
  }

  async write(models: readonly PulledModel[]): Promise<void> {
    const temporary = `${this.path}.${randomBytes(4).toString('hex')}.tmp`;
    await writeFile(temporary, `${JSON.stringify({ models }, null, 2)}\n`);
    await rename(temporary, this.path);
  }

  /** Reads, changes and writes the registry; `change` returns the new list. */
  async update(change: (models: PulledModel[]) => PulledModel[]): Promise<PulledModel[]> {
    const next = change(await this.read());
    await this.write(next);
    return next;
  }

  /** The llama config a pulled model is served with. */
  configOf(model: PulledModel): LlamaModelConfig {
    const config = llamaModelSchema.parse({ id: model.id, provider: 'llama', path: model.file, ...model.settings });
    return { ...config, path: resolve(this.modelsDir, model.file) };
  }
}
