import { z } from 'zod';

/** BullMQ queue and job names are persisted in Redis: do not rename. */
export const Queues = {
  agentTurns: 'weft-agent-turns',
} as const;

export const Jobs = {
  runTurn: 'run-turn',
} as const;

/** How a turn runs: the plain tool loop, planning mode (plan, subtasks, each its own loop), or a chain. */
export const turnModeSchema = z.enum(['chat', 'plan', 'chain']);
export type TurnMode = z.infer<typeof turnModeSchema>;

export const chainInvocationSchema = z.object({
  name: z.string(),
  inputs: z.record(z.string(), z.string()),
});
export type ChainInvocation = z.infer<typeof chainInvocationSchema>;

export const runTurnJobSchema = z.object({
  kind: z.literal(Jobs.runTurn),
  sessionId: z.string(),
  turnId: z.string(),
  userId: z.string(),
  /** Jobs queued before modes existed have none: they are chat turns. */
  mode: turnModeSchema.default('chat'),
  /** The model of this turn when not the session's (a task sent straight to the junior). */
  model: z.string().optional(),
  chain: chainInvocationSchema.optional(),
});
export const agentJobSchema = z.discriminatedUnion('kind', [runTurnJobSchema]);
export type RunTurnJob = z.infer<typeof runTurnJobSchema>;
export type RunTurnJobInput = z.input<typeof runTurnJobSchema>;
export type AgentJob = z.infer<typeof agentJobSchema>;
