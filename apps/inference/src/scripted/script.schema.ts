import { z } from 'zod';

export const scriptTurnSchema = z.object({
  text: z.string().optional(),
  toolCalls: z
    .array(z.object({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()).default({}) }))
    .optional(),
});
export type ScriptTurn = z.infer<typeof scriptTurnSchema>;

/** A scripted model: turn N is the reply to a conversation holding N assistant messages. */
export const scriptSchema = z.object({
  contextSize: z.number().int().positive().optional(),
  turns: z.array(scriptTurnSchema),
});
export type Script = z.infer<typeof scriptSchema>;

export const SCRIPTED_PREFIX = 'scripted/';
export const SCRIPTED_DEFAULT_CONTEXT = 32_768;
