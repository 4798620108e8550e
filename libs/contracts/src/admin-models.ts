import { z } from 'zod';

/** Model ids as the inference registry takes them. */
export const adminModelIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'letters, digits, ".", "_", ":" and "-" only');

const sha256Schema = z
  .string()
  .regex(/^[A-Fa-f0-9]{64}$/, 'a SHA-256 as 64 hexadecimal digits')
  .transform((hex) => hex.toLowerCase());

/** What an admin may change of a pulled model; the rest comes from the GGUF. */
export const modelSettingsSchema = z
  .object({
    contextSize: z.number().int().positive(),
    threads: z.number().int().positive(),
    gpuLayers: z.union([z.number().int().nonnegative(), z.literal('auto')]),
    sequences: z.number().int().min(1).max(64),
    expressSequences: z.number().int().min(0).max(8),
    roles: z.array(z.string().regex(/^[a-z][a-z0-9-]{0,31}$/)),
    embeddings: z.boolean(),
  })
  .partial()
  .strict();
export type ModelSettings = z.infer<typeof modelSettingsSchema>;

/** `weft admin models pull`: an `hf:owner/repo/file.gguf` URI or an http(s) URL. */
export const pullModelBodySchema = z
  .object({
    source: z.string().min(1).max(2048),
    /** The registry id; by default the file's name without `.gguf`. */
    id: adminModelIdSchema.optional(),
    /** Checked instead of (or besides) what the source publishes. */
    sha256: sha256Schema.optional(),
    settings: modelSettingsSchema.optional(),
    /**
     * The most bytes the file may have; a larger one is refused before or while it downloads. By
     * default the models volume's free space less 1 GiB.
     */
    maxSizeBytes: z.number().int().positive().optional(),
  })
  .strict();
export type PullModelBody = z.input<typeof pullModelBodySchema>;

/** What the GGUF's metadata says about the model. */
export const ggufFactsSchema = z.object({
  architecture: z.string().optional(),
  name: z.string().optional(),
  trainedContextSize: z.number().int().positive().optional(),
  /** The GGUF carries a chat template (`tokenizer.chat_template`). */
  chatTemplate: z.boolean(),
  /** The chat template renders tool definitions, so the model was trained to call tools. */
  toolCalls: z.boolean(),
  /** Fill-in-the-middle tokens (prefix, suffix, middle) are declared. */
  fim: z.boolean(),
});
export type GgufFacts = z.infer<typeof ggufFactsSchema>;

/** One model of the registry as an admin sees it. */
export const adminModelSchema = z.object({
  id: z.string(),
  /** `config`: from the models config file (read-only here); `pulled`: by `weft admin models pull`. */
  origin: z.enum(['config', 'pulled']),
  provider: z.string(),
  contextSize: z.number().int().positive(),
  settings: modelSettingsSchema,
  file: z.string().optional(),
  source: z.string().optional(),
  sizeBytes: z.number().int().nonnegative().optional(),
  sha256: z.string().optional(),
  pulledAt: z.string().optional(),
  gguf: ggufFactsSchema.optional(),
  /**
   * The model's GGUF failed validation (INFERENCE.MODEL_FILE_INVALID): it is not loaded until the
   * file changes. `field` names the part of the file, `reason` says what is wrong.
   */
  quarantined: z.object({ field: z.string(), reason: z.string() }).optional(),
});
export type AdminModel = z.infer<typeof adminModelSchema>;

export const adminModelsSchema = z.object({ models: z.array(adminModelSchema) });

/**
 * One message of a pull, streamed by the worker and relayed as NDJSON by the gateway. The last is
 * `done`; a failure ends the stream with an error (over HTTP: an `error` line).
 */
export const pullProgressSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('started'),
    id: z.string(),
    url: z.string(),
    file: z.string(),
    totalBytes: z.number().int().nonnegative().optional(),
    /** Bytes already in the `.part` file from an earlier, interrupted pull. */
    resumedFrom: z.number().int().nonnegative(),
    /** Where the expected SHA-256 comes from; `none` when the source publishes none. */
    checksum: z.enum(['hub', 'sha256-file', 'given', 'none']),
  }),
  z.object({ type: z.literal('progress'), downloadedBytes: z.number().int().nonnegative(), totalBytes: z.number().int().nonnegative().optional() }),
  z.object({ type: z.literal('verifying'), hashedBytes: z.number().int().nonnegative(), totalBytes: z.number().int().nonnegative() }),
  z.object({ type: z.literal('done'), model: adminModelSchema }),
]);
export type PullProgress = z.infer<typeof pullProgressSchema>;

/** The gateway's NDJSON line for a pull that failed after it started. */
export const pullErrorLineSchema = z.object({
  type: z.literal('error'),
  error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }),
});
export const pullLineSchema = z.union([pullProgressSchema, pullErrorLineSchema]);
export type PullLine = z.infer<typeof pullLineSchema>;

export const setModelRequestSchema = z.object({ id: z.string().min(1), settings: modelSettingsSchema }).strict();
export const removeModelRequestSchema = z.object({ id: z.string().min(1), keepFile: z.boolean().default(false) }).strict();
export const removedModelSchema = z.object({ id: z.string(), fileRemoved: z.boolean() });
/** Every worker re-reads the pulled models' registry when one changes it. */
export const modelsChangedSchema = z.object({ workerId: z.string(), id: z.string() });
