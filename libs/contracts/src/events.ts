import { z } from 'zod';
import { toolCallSchema } from './inference';

/** Events of a session's log, as stored in Redis and sent to clients over SSE. */
export const sessionEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('message.created'), turnId: z.string(), role: z.literal('user'), content: z.string() }),
  z.object({ type: z.literal('turn.started'), turnId: z.string(), model: z.string() }),
  z.object({ type: z.literal('message.delta'), turnId: z.string(), text: z.string() }),
  z.object({
    type: z.literal('tool.called'),
    turnId: z.string(),
    call: toolCallSchema,
  }),
  z.object({
    type: z.literal('tool.completed'),
    turnId: z.string(),
    callId: z.string(),
    name: z.string(),
    isError: z.boolean(),
    output: z.string(),
  }),
  z.object({ type: z.literal('message.completed'), turnId: z.string(), content: z.string() }),
  z.object({
    type: z.literal('turn.completed'),
    turnId: z.string(),
    usage: z.object({ promptTokens: z.number(), completionTokens: z.number() }),
    iterations: z.number().int(),
  }),
  z.object({ type: z.literal('turn.failed'), turnId: z.string(), code: z.string(), message: z.string() }),
]);
export type SessionEvent = z.infer<typeof sessionEventSchema>;
export type SessionEventType = SessionEvent['type'];

/** An event as a client receives it: the Redis stream id doubles as the SSE id. */
export type StoredSessionEvent = SessionEvent & { id: string; at: string };
