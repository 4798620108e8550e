import { z } from 'zod';

export const toolCallSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()),
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

export const generateRequestSchema = z.object({
  model: z.string().min(1),
  messages: z.array(chatMessageSchema).min(1),
  tools: z.array(toolDefinitionSchema).optional(),
  maxTokens: z.number().int().positive().max(32768).optional(),
  temperature: z.number().min(0).max(2).optional(),
  seed: z.number().int().optional(),
  /** Lets the worker keep a session's KV cache between turns. */
  sessionId: z.string().optional(),
});
export type GenerateRequest = z.infer<typeof generateRequestSchema>;

export const finishReasonSchema = z.enum(['stop', 'tool_calls', 'length']);

export const generateResultSchema = z.object({
  text: z.string(),
  toolCalls: z.array(toolCallSchema),
  finishReason: finishReasonSchema,
  usage: z.object({
    promptTokens: z.number().int().nonnegative(),
    completionTokens: z.number().int().nonnegative(),
  }),
  timings: z.object({
    timeToFirstTokenMs: z.number().nonnegative().optional(),
    totalMs: z.number().nonnegative(),
  }),
});
export type GenerateResult = z.infer<typeof generateResultSchema>;

/** One message of a streamed generate reply: text deltas, then exactly one `done`. */
export const generateChunkSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('delta'), text: z.string() }),
  z.object({ type: z.literal('done'), result: generateResultSchema }),
]);
export type GenerateChunk = z.infer<typeof generateChunkSchema>;

export const modelInfoSchema = z.object({
  id: z.string(),
  provider: z.enum(['llama', 'scripted']),
  contextSize: z.number().int().positive(),
});
export type ModelInfo = z.infer<typeof modelInfoSchema>;

export const listModelsRequestSchema = z.object({});
export const listModelsResultSchema = z.object({ models: z.array(modelInfoSchema) });
export type ListModelsResult = z.infer<typeof listModelsResultSchema>;
