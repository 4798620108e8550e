import { z } from 'zod';

/** A GGUF served by node-llama-cpp. Ids are what clients put in `GenerateRequest.model`. */
export const llamaModelSchema = z.object({
  id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'letters, digits, ".", "_", ":" and "-" only'),
  provider: z.literal('llama'),
  /** Absolute, or relative to MODELS_DIR. */
  path: z.string().min(1),
  contextSize: z.number().int().positive().default(4096),
  /** CPU threads for evaluation; set explicitly, a default above the core count is ruinous. */
  threads: z.number().int().positive().default(1),
  gpuLayers: z.union([z.number().int().nonnegative(), z.literal('auto')]).default('auto'),
  /** Generations that run at once on this model; more requests wait for a free sequence. */
  sequences: z.number().int().min(1).max(64).default(2),
});
export type LlamaModelConfig = z.infer<typeof llamaModelSchema>;

export const modelConfigSchema = z.discriminatedUnion('provider', [llamaModelSchema]);
export type ModelConfig = z.infer<typeof modelConfigSchema>;

export const modelsConfigSchema = z
  .object({
    models: z.array(modelConfigSchema).default([]),
    /** Every `<name>.json` in `dir` is served as `scripted/<name>`. */
    scripted: z.object({ dir: z.string().min(1) }).optional(),
  })
  .superRefine((config, ctx) => {
    const seen = new Set<string>();
    config.models.forEach((model, index) => {
      if (seen.has(model.id)) {
        ctx.addIssue({ code: 'custom', path: ['models', index, 'id'], message: `duplicate model id "${model.id}"` });
      }
      seen.add(model.id);
    });
  });
export type ModelsConfig = z.infer<typeof modelsConfigSchema>;
