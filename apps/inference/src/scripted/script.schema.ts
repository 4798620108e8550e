import { z } from 'zod';

export const scriptTurnSchema = z.object({
  text: z.string().optional(),
  toolCalls: z
    .array(z.object({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()).default({}) }))
    .optional(),
  /**
   * A pause before each delta, so a test can act while a generation streams (kill the worker,
   * cancel the turn). Capped: a script must not hold a sequence for long.
   */
  delayMs: z.number().int().nonnegative().max(10_000).optional(),
});
export type ScriptTurn = z.infer<typeof scriptTurnSchema>;

/**
 * A scripted model: turn N is the reply to a conversation holding N assistant messages. A
 * conversation whose first user message matches a branch's `when` (a regular expression) replays
 * that branch's turns instead: a planning subtask or a delegated task starts a conversation of its own.
 */
export const scriptSchema = z.object({
  contextSize: z.number().int().positive().optional(),
  /** Announced like a configured model's roles (`senior`, `junior`). */
  roles: z.array(z.string().regex(/^[a-z][a-z0-9-]{0,31}$/)).optional(),
  turns: z.array(scriptTurnSchema),
  branches: z
    .array(
      z.object({
        when: z.string().min(1).refine(isRegExp, 'must be a valid regular expression'),
        turns: z.array(scriptTurnSchema),
      }),
    )
    .optional(),
});

function isRegExp(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}
export type Script = z.infer<typeof scriptSchema>;

export const SCRIPTED_PREFIX = 'scripted/';
export const SCRIPTED_DEFAULT_CONTEXT = 32_768;
