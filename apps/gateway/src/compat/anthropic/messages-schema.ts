import { z } from 'zod';
import { exceededLimit } from '../request-limits';
import { invalidField, schemaError } from './anthropic-errors';

/** Blocks keep fields Weft does not read (`cache_control`, `citations`…); their `type` decides the rest. */
const blockSchema = z.looseObject({ type: z.string() });
const contentSchema = z.union([z.string(), z.array(blockSchema)]);
const textBlockSchema = z.looseObject({ type: z.literal('text'), text: z.string() });

/** A client tool; `cache_control`, `strict`, `input_examples`, `eager_input_streaming` are accepted and not read. */
const toolSchema = z.looseObject({
  type: z.string().optional(),
  name: z.string(),
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown()).optional(),
  /** Kept out of the prompt until a `tool_reference` loads it (Anthropic's tool search). */
  defer_loading: z.boolean().optional(),
});
export type MessagesTool = z.infer<typeof toolSchema>;

/** Read for its shape only: Weft's generate request has no reasoning mode to give it to. */
const thinkingSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('enabled'), budget_tokens: z.number().int().positive() }),
  z.looseObject({ type: z.literal('adaptive') }),
  z.looseObject({ type: z.literal('disabled') }),
]);

/**
 * Anthropic's Messages request. Top-level fields and `output_config` are closed, as Anthropic's
 * are: an unknown one is a 400 in Anthropic's words, which clients read to drop it and retry.
 */
export const messagesRequestSchema = z.strictObject({
  model: z.string().min(1),
  max_tokens: z.number().int().positive(),
  messages: z.array(z.object({ role: z.enum(['user', 'assistant', 'system']), content: contentSchema })).min(1),
  system: z.union([z.string(), z.array(textBlockSchema)]).optional(),
  tools: z.array(toolSchema).optional(),
  tool_choice: z
    .looseObject({ type: z.enum(['auto', 'any', 'tool', 'none']), name: z.string().optional(), disable_parallel_tool_use: z.boolean().optional() })
    .optional(),
  stop_sequences: z.array(z.string()).optional(),
  temperature: z.number().optional(),
  top_p: z.number().optional(),
  top_k: z.number().int().optional(),
  stream: z.boolean().optional(),
  thinking: thinkingSchema.optional(),
  output_config: z
    .strictObject({
      effort: z.string().optional(),
      format: z.looseObject({ type: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()) }).nullable().optional(),
    })
    .optional(),
  // Accepted and not read: Weft keeps no per-request state these would steer.
  metadata: z.looseObject({ user_id: z.string().nullable().optional() }).optional(),
  context_management: z.looseObject({ edits: z.array(z.looseObject({ type: z.string() })).optional() }).nullable().optional(),
  service_tier: z.enum(['auto', 'standard_only']).optional(),
  // Read only to refuse: both need Anthropic's servers.
  container: z.unknown().optional(),
  mcp_servers: z.array(z.unknown()).optional(),
});
export type MessagesRequest = z.infer<typeof messagesRequestSchema>;

/** `count_tokens` takes the same prompt; `max_tokens` and `stream` may come and are not read. */
export const countTokensRequestSchema = messagesRequestSchema.extend({ max_tokens: z.number().int().positive().optional() });
export type CountTokensRequest = z.infer<typeof countTokensRequestSchema>;

/** Parses a body within the request limits; the first failure is a 400 in Anthropic's words. */
export function parseMessagesBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const exceeded = exceededLimit(body, 'messages');
  if (exceeded) {
    const { path, limit, count } = exceeded;
    throw invalidField(
      path,
      exceeded.what === 'items'
        ? `List should have at most ${limit} items after validation, not ${count}`
        : `messages hold more than ${limit} content blocks by here: at most ${limit} are accepted in one request`,
    );
  }
  const parsed = schema.safeParse(body ?? {}, { reportInput: true });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw issue ? schemaError(issue) : invalidField([], 'Invalid request body');
}
