import { z } from 'zod';

/** BullMQ queue and job names are persisted in Redis: do not rename. */
export const Queues = {
  agentTurns: 'weft-agent-turns',
} as const;

export const Jobs = {
  runTurn: 'run-turn',
} as const;

export const runTurnJobSchema = z.object({
  kind: z.literal(Jobs.runTurn),
  sessionId: z.string(),
  turnId: z.string(),
  userId: z.string(),
});
export const agentJobSchema = z.discriminatedUnion('kind', [runTurnJobSchema]);
export type RunTurnJob = z.infer<typeof runTurnJobSchema>;
export type AgentJob = z.infer<typeof agentJobSchema>;
