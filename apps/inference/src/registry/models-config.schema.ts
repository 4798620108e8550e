import { z } from 'zod';

const modelId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'letters, digits, ".", "_", ":" and "-" only');

/** Per-model sampling defaults; a request's own values win. */
export const samplingDefaultsSchema = z
  .object({
    /** Higher is more random; 0 always takes the likeliest token. */
    temperature: z.number().min(0).max(2).optional(),
    /** Nucleus sampling: only the likeliest tokens whose probabilities add up to this. */
    topP: z.number().min(0).max(1).optional(),
    /** Only the this many likeliest tokens; 0 turns it off. */
    topK: z.number().int().min(0).optional(),
    /** Drops tokens less likely than this fraction of the likeliest one. */
    minP: z.number().min(0).max(1).optional(),
    /** Penalty on tokens already in the text; 1 is none, and unset means 1 (as llama.cpp's server). */
    repeatPenalty: z.number().min(0).max(4).optional(),
    /** A fixed seed makes sampling repeatable. */
    seed: z.number().int().optional(),
  })
  .strict();
export type SamplingDefaults = z.infer<typeof samplingDefaultsSchema>;

/** node-llama-cpp's built-in chat formats, or a Jinja template given inline. */
export const chatTemplateSchema = z.union([
  z.enum([
    'auto',
    'general',
    'chatML',
    'llama3.1',
    'llama3',
    'llama2Chat',
    'mistral',
    'qwen',
    'deepSeek',
    'gemma',
    'functionary',
    'harmony',
  ]),
  z.object({ jinja: z.string().min(1) }).strict(),
]);
export type ChatTemplate = z.infer<typeof chatTemplateSchema>;

const REMOTE_SOURCE = /^(hf:|https?:\/\/)/;

/** Names the environment variable with the key; only `*_API_KEY` variables are read. */
const apiKeyEnv = z.string().regex(/^[A-Z][A-Z0-9_]*_API_KEY$/, 'an environment variable name ending in _API_KEY');

/** A GGUF served by node-llama-cpp. Ids are what clients put in `GenerateRequest.model`. */
export const llamaModelSchema = z
  .object({
    /** The name clients use (`--model`, the `model` of the compatible APIs). */
    id: modelId,
    provider: z.literal('llama'),
    /** A GGUF file: absolute, or relative to MODELS_DIR. */
    path: z.string().min(1).optional(),
    /**
     * Where the GGUF comes from: a file path like `path`, or an `hf:<user>/<repo>:<quant>` URI or
     * an http(s) URL, downloaded into MODELS_DIR on first use (resumable).
     */
    source: z.string().min(1).optional(),
    /** Tokens of context per sequence (prompt and reply together). */
    contextSize: z.number().int().positive().default(4096),
    /** CPU threads for evaluation; set explicitly, a default above the core count is ruinous. */
    threads: z.number().int().positive().default(1),
    /** Layers offloaded to the GPU: `auto` as many as fit in its memory, 0 none (CPU only). */
    gpuLayers: z.union([z.number().int().nonnegative(), z.literal('auto')]).default('auto'),
    /** Generations that decode together in one batch; each holds one session's KV cache. */
    sequences: z.number().int().min(1).max(64).default(2),
    /**
     * Extra sequences only for a user with no generation running on this model: when one user's
     * agents hold all `sequences`, another user's request starts at once instead of waiting for
     * a reply to finish. Each costs a KV cache's memory; 0 turns them off.
     */
    expressSequences: z.number().int().min(0).max(8).default(0),
    /** Requests that may wait for a sequence; beyond that the worker answers INFERENCE.BUSY. */
    maxQueue: z.number().int().min(0).max(1024).default(16),
    /** llama.cpp's batch size for prompt evaluation; node-llama-cpp's default when unset. */
    batchSize: z.number().int().positive().optional(),
    /**
     * Text deltas of a reply are joined into about one message per this many milliseconds (the
     * first goes at once; the replies of a worker share one clock, so their messages leave
     * together). Every message costs a NATS publish and, on the gateway, a Redis append
     * and an SSE event: on a CPU, per-token messages cost the worker ~7 % of its tokens at 8
     * concurrent replies. 0 sends every token as it comes.
     */
    streamIntervalMs: z.number().int().min(0).max(1000).default(50),
    /**
     * Whose cached tokens a request may start from. `user`: only its own user's (their system
     * prompt and tools are still evaluated once per user). A sequence that held another user's
     * prompt is cleared first: reusing its prefix would show in `cached_tokens` and in how soon
     * the reply starts, which lets a user test guesses at a colleague's prompt. `all`: any
     * session's, for one user or a team that accepts that (a shared prompt is evaluated once).
     */
    cacheSharing: z.enum(['user', 'all']).default('user'),
    /** `auto`: the GGUF's own template; or one of node-llama-cpp's formats, or `{ "jinja": "<template>" }`. */
    chatTemplate: chatTemplateSchema.default('auto'),
    /** Sampling defaults (see their table); a request's own values win. */
    sampling: samplingDefaultsSchema.default({}),
    /** Agent roles: `senior` gets the `delegate` tool, `junior` takes delegated tasks. */
    roles: z.array(z.string().regex(/^[a-z][a-z0-9-]{0,31}$/)).default([]),
    /** Also serve embeddings (`/openai/v1/embeddings`) from this GGUF, in a context of their own. */
    embeddings: z.boolean().default(false),
    /** Never unloaded to make room for another model, nor after MODELS_IDLE_TTL_MS. */
    pinned: z.boolean().default(false),
  })
  .strict()
  .superRefine((model, ctx) => {
    if ((model.path === undefined) === (model.source === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['path'], message: 'give exactly one of "path" and "source"' });
    }
  });
export type LlamaModelConfigInput = z.infer<typeof llamaModelSchema>;

/** A llama model after boot: its source resolved to a local file or a URI to download. */
export type LlamaModelConfig = Omit<LlamaModelConfigInput, 'path' | 'source'> & {
  /** The local GGUF (for remote sources: where it lands once downloaded, unknown until then). */
  path: string;
  /** Set for `hf:` and URL sources. */
  remote?: string;
};

/** An OpenAI-compatible chat completions endpoint (llama-server, Ollama, LM Studio, vLLM, OpenAI). */
export const openAiModelSchema = z
  .object({
    /** The name clients use (`--model`, the `model` of the compatible APIs). */
    id: modelId,
    provider: z.literal('openai'),
    /** Up to and including `/v1`, e.g. `http://llama-server:8080/v1`. */
    baseUrl: z.url(),
    /** The model name the endpoint knows; defaults to `id`. */
    remoteModel: z.string().min(1).optional(),
    /** Environment variable that holds the API key; none sent when unset. */
    apiKeyEnv: apiKeyEnv.optional(),
    /** The model's real context length: prompts that do not fit are refused, never cut. */
    contextSize: z.number().int().positive(),
    /** Endpoints without native tool calling get the `<tool_call>` text format instead. */
    nativeTools: z.boolean().default(true),
    /** A stream that sends nothing for this long fails (INFERENCE.PROVIDER_FAILED). */
    timeoutMs: z.number().int().positive().default(300_000),
    /** Sampling defaults (see their table); a request's own values win. */
    sampling: samplingDefaultsSchema.default({}),
    /** Agent roles: `senior` gets the `delegate` tool, `junior` takes delegated tasks. */
    roles: z.array(z.string()).default([]),
  })
  .strict();
export type OpenAiModelConfig = z.infer<typeof openAiModelSchema>;

/** Anthropic's Messages API. */
export const anthropicModelSchema = z
  .object({
    /** The name clients use (`--model`, the `model` of the compatible APIs). */
    id: modelId,
    provider: z.literal('anthropic'),
    /** The API's address; another for a proxy or a compatible server. */
    baseUrl: z.url().default('https://api.anthropic.com'),
    /** The model name Anthropic knows (`claude-sonnet-4-5`); defaults to `id`. */
    remoteModel: z.string().min(1).optional(),
    /** Environment variable that holds the API key. */
    apiKeyEnv: apiKeyEnv.default('ANTHROPIC_API_KEY'),
    /** The model's real context length: prompts that do not fit are refused, never cut. */
    contextSize: z.number().int().positive(),
    /** Anthropic requires max_tokens on every request. */
    maxOutputTokens: z.number().int().positive().default(4096),
    /** A stream that sends nothing for this long fails (INFERENCE.PROVIDER_FAILED). */
    timeoutMs: z.number().int().positive().default(300_000),
    /** Sampling defaults (see their table); a request's own values win. */
    sampling: samplingDefaultsSchema.default({}),
    /** Agent roles: `senior` gets the `delegate` tool, `junior` takes delegated tasks. */
    roles: z.array(z.string()).default([]),
  })
  .strict();
export type AnthropicModelConfig = z.infer<typeof anthropicModelSchema>;

export const modelConfigSchema = z.discriminatedUnion('provider', [llamaModelSchema, openAiModelSchema, anthropicModelSchema]);

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

export type ModelConfig = LlamaModelConfig | OpenAiModelConfig | AnthropicModelConfig;

/** The registry after boot: paths resolved against MODELS_DIR. */
export interface ModelsConfig {
  models: ModelConfig[];
  scripted?: { dir: string };
  /** Where `hf:` and URL sources are downloaded to. */
  downloadDir?: string;
}

export function isRemoteSource(source: string): boolean {
  return REMOTE_SOURCE.test(source);
}
