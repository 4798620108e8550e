import { z } from 'zod';
import { MAX_STOP_CHARS, MAX_STOP_STRINGS } from './request-cost';

export const toolCallSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()),
  /**
   * Set by the worker when the arguments do not match the tool's schema (a model that slipped
   * past the grammar): the caller should answer with this error instead of running the tool.
   */
  argumentsError: z.object({ code: z.string(), message: z.string() }).optional(),
});
export type ToolCall = z.infer<typeof toolCallSchema>;

export const chatMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string() }),
  z.object({
    role: z.literal('assistant'),
    content: z.string(),
    toolCalls: z.array(toolCallSchema).optional(),
  }),
  z.object({
    role: z.literal('tool'),
    toolCallId: z.string(),
    name: z.string(),
    content: z.string(),
  }),
]);
export type ChatMessage = z.infer<typeof chatMessageSchema>;

/** A tool as the model sees it: `parameters` is a JSON Schema object. */
export const toolDefinitionSchema = z.object({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()),
});
export type ToolDefinition = z.infer<typeof toolDefinitionSchema>;

/** `auto`: the model decides; `required`: it must call one of the tools; `{ name }`: that tool. */
export const toolChoiceSchema = z.union([
  z.enum(['auto', 'required', 'none']),
  z.object({ name: z.string().min(1) }),
]);
export type ToolChoice = z.infer<typeof toolChoiceSchema>;

/** What to do with a prompt that does not fit the context: fail, or drop the oldest turns. */
export const contextOverflowSchema = z.enum(['error', 'drop-oldest']);

/** The longest reply one generation may ask for (`maxTokens`); a model's context may cut it shorter. */
export const MAX_REPLY_TOKENS = 32_768;

/** The most a reply on a model with `contextSize` tokens can hold: what the model lists advertise as its output limit. */
export function replyTokenLimit(contextSize: number): number {
  return Math.min(contextSize, MAX_REPLY_TOKENS);
}

export const generateRequestSchema = z.object({
  model: z.string().min(1),
  messages: z.array(chatMessageSchema).min(1),
  tools: z.array(toolDefinitionSchema).optional(),
  maxTokens: z.number().int().positive().max(MAX_REPLY_TOKENS).optional(),
  temperature: z.number().min(0).max(2).optional(),
  seed: z.number().int().optional(),
  /** Lets the worker keep a session's KV cache between turns. */
  sessionId: z.string().optional(),
  /** Names this generation for `weft.inference.v1.cancel`; the caller picks it (a UUID). */
  requestId: z.string().min(1).max(128).optional(),
  /**
   * Whose generation this is. When every sequence is busy, a worker serves the waiting requests
   * in weighted fair order across users (a weight-2 user gets twice the turns of a weight-1
   * user), not in arrival order. Absent: the request shares one anonymous user's turns; no
   * weight: 1. The gateway sets the weight from the user's limits.
   */
  user: z.object({ id: z.string().min(1).max(128), weight: z.number().int().min(1).max(100).optional() }).optional(),
  topP: z.number().min(0).max(1).optional(),
  topK: z.number().int().min(0).optional(),
  minP: z.number().min(0).max(1).optional(),
  /** 1 (or absent) is off; above 1 penalises recently generated tokens. */
  repeatPenalty: z.number().min(0).max(4).optional(),
  /** Generation stops before any of these strings; they are not part of the text. */
  stop: z.array(z.string().min(1).max(MAX_STOP_CHARS)).max(MAX_STOP_STRINGS).optional(),
  /** The reply is one JSON value matching this JSON Schema (grammar-constrained); not with tools. */
  jsonSchema: z.record(z.string(), z.unknown()).optional(),
  toolChoice: toolChoiceSchema.optional(),
  contextOverflow: contextOverflowSchema.optional(),
  /**
   * Renders and counts the prompt without generating: the result has `usage.promptTokens`
   * (the model's own template and tokenizer), no text, and holds no sequence.
   */
  countOnly: z.boolean().optional(),
  /**
   * A raw text completion instead of a chat reply: `prompt` is continued as is, without the chat
   * template; with `suffix`, the model fills in the middle (its FIM tokens). `messages` then
   * holds the prompt as one user message, for routing, scripted models and accounting.
   */
  completion: z.object({ prompt: z.string(), suffix: z.string().optional() }).optional(),
  /**
   * The start of the reply, already streamed by a worker that died: the worker evaluates it as
   * prompt (the last assistant turn, left open; after `completion.prompt` for a raw completion)
   * and continues it. Deltas carry only the new text; the result's `text` starts with this, and
   * its usage counts these tokens as completion tokens, not prompt tokens, as if one worker had
   * generated the whole reply. Not with `jsonSchema` (the grammar's state cannot be carried).
   */
  continueFrom: z.string().min(1).optional(),
});
export type GenerateRequest = z.infer<typeof generateRequestSchema>;

export const finishReasonSchema = z.enum(['stop', 'tool_calls', 'length']);

export const generateResultSchema = z.object({
  text: z.string(),
  toolCalls: z.array(toolCallSchema),
  finishReason: finishReasonSchema,
  /** The string of the request's `stop` that ended the reply (left out of `text`); absent for any other end. */
  stopSequence: z.string().optional(),
  usage: z.object({
    /** Tokens of the whole prompt (the rendered conversation). */
    promptTokens: z.number().int().nonnegative(),
    completionTokens: z.number().int().nonnegative(),
    /** Prompt tokens whose KV cache was reused from the session's earlier turns. */
    cachedTokens: z.number().int().nonnegative().optional(),
    /** Prompt tokens actually evaluated for this request (`promptTokens - cachedTokens`). */
    evaluatedTokens: z.number().int().nonnegative().optional(),
  }),
  timings: z.object({
    timeToFirstTokenMs: z.number().nonnegative().optional(),
    totalMs: z.number().nonnegative(),
    /** Time spent waiting for a free sequence before the generation started. */
    queuedMs: z.number().nonnegative().optional(),
  }),
  /** The worker that served the request; the gateway routes the session's next turn to it. */
  workerId: z.string().optional(),
  /** Oldest messages dropped to fit the context (`contextOverflow: 'drop-oldest'`). */
  droppedMessages: z.number().int().nonnegative().optional(),
});
export type GenerateResult = z.infer<typeof generateResultSchema>;

/**
 * The model of a request is being loaded on the worker (models on demand): sent before the
 * first delta and again every few seconds while the load lasts, so the stream's idle timeout
 * waits for it. `progress` is the share loaded, 0 to 1.
 */
export const modelLoadingChunkSchema = z.object({
  type: z.literal('model.loading'),
  model: z.string(),
  progress: z.number().min(0).max(1),
  elapsedMs: z.number().nonnegative(),
});
export type ModelLoadingChunk = z.infer<typeof modelLoadingChunkSchema>;

/** One message of a streamed generate reply: text deltas, then exactly one `done`; `model.loading` before them while the model loads. */
export const generateChunkSchema = z.discriminatedUnion('type', [
  modelLoadingChunkSchema,
  z.object({ type: z.literal('delta'), text: z.string() }),
  z.object({ type: z.literal('done'), result: generateResultSchema }),
]);
export type GenerateChunk = z.infer<typeof generateChunkSchema>;

export const modelInfoSchema = z.object({
  id: z.string(),
  provider: z.enum(['llama', 'scripted', 'openai', 'anthropic']),
  contextSize: z.number().int().positive(),
  /** Hints for picking a model per job, e.g. `senior` (plans, reviews) or `junior` (edits). */
  roles: z.array(z.string()).optional(),
  /** Generations that run at once on one worker. */
  sequences: z.number().int().positive().optional(),
  /** The model also serves embeddings (`weft.inference.v1.embed`). */
  embeddings: z.boolean().optional(),
});
export type ModelInfo = z.infer<typeof modelInfoSchema>;

export const listModelsRequestSchema = z.object({});
export const listModelsResultSchema = z.object({ models: z.array(modelInfoSchema) });
export type ListModelsResult = z.infer<typeof listModelsResultSchema>;

/** Texts one embedding request may hold. */
export const EMBED_MAX_INPUTS = 256;
/**
 * Characters one embedding input may hold: 32 a token of the largest embedding context (8,192
 * tokens), so that tokenizing an input on the worker's main thread stays short.
 */
export const EMBED_MAX_INPUT_CHARS = 262_144;

export const embedRequestSchema = z.object({
  model: z.string().min(1),
  /** Texts to embed, each into one vector. */
  input: z
    .array(z.string().max(EMBED_MAX_INPUT_CHARS, `An input may hold at most ${EMBED_MAX_INPUT_CHARS} characters`))
    .min(1)
    .max(EMBED_MAX_INPUTS, `At most ${EMBED_MAX_INPUTS} inputs a request`),
  /** Names this request for `weft.inference.v1.cancel`, as a generation's does. */
  requestId: z.string().min(1).max(128).optional(),
  /** Whose request this is: inputs of concurrent requests take turns in weighted fair order across users. */
  user: z.object({ id: z.string().min(1).max(128), weight: z.number().int().min(1).max(100).optional() }).optional(),
});
export type EmbedRequest = z.infer<typeof embedRequestSchema>;

export const embedResultSchema = z.object({
  embeddings: z.array(z.array(z.number())),
  /** Tokens of all inputs together. */
  promptTokens: z.number().int().nonnegative(),
  workerId: z.string().optional(),
});
export type EmbedResult = z.infer<typeof embedResultSchema>;

/** Published on `weft.inference.v1.cancel` and seen by every worker (no queue group). */
export const cancelGenerationSchema = z.object({ requestId: z.string().min(1).max(128) });
export type CancelGeneration = z.infer<typeof cancelGenerationSchema>;

/** A worker's load on one model, as announced in its heartbeat. */
export const workerModelStatusSchema = modelInfoSchema.extend({
  loaded: z.boolean(),
  freeSequences: z.number().int().nonnegative(),
  queued: z.number().int().nonnegative(),
  maxQueue: z.number().int().nonnegative(),
  /** Sessions whose KV cache this worker holds for the model (most recent first, capped). */
  cachedSessions: z.array(z.string()),
  /** `loading` from the first request for it until it serves; absent from workers that predate it. */
  state: z.enum(['loaded', 'loading', 'unloaded']).optional(),
  /** Memory it takes when loaded (node-llama-cpp's estimate: VRAM on a GPU, RAM on a CPU), once known. */
  memoryBytes: z.number().int().nonnegative().optional(),
  /** Never unloaded to make room for another model. */
  pinned: z.boolean().optional(),
});
export type WorkerModelStatus = z.infer<typeof workerModelStatusSchema>;

/** Every few seconds on `weft.inference.v1.worker.announced`; `draining` and `stopped` say goodbye. */
export const workerHeartbeatSchema = z.object({
  workerId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  status: z.enum(['ready', 'draining', 'stopped']),
  /** The machine (container) it runs on, for the admin's fleet view. */
  host: z.string().max(253).optional(),
  /** A worker is dropped after missing about three of these. */
  intervalMs: z.number().int().positive(),
  startedAt: z.string(),
  sentAt: z.string(),
  /**
   * How long the worker's main loop has been too busy to refresh this beat's figures (0 when it
   * is free). Beats come from a thread of their own, so a busy loop does not silence them.
   */
  stalledMs: z.number().int().nonnegative().optional(),
  inFlight: z.number().int().nonnegative(),
  models: z.array(workerModelStatusSchema),
  gpu: z
    .object({ type: z.string(), vramTotalBytes: z.number().nonnegative(), vramUsedBytes: z.number().nonnegative() })
    .optional(),
  /** The loaded models' memory budget (MODELS_MAX_LOADED_BYTES) and what they take of it, once known. */
  memory: z.object({ budgetBytes: z.number().int().nonnegative(), usedBytes: z.number().int().nonnegative() }).optional(),
});
export type WorkerHeartbeat = z.infer<typeof workerHeartbeatSchema>;
