import { z } from 'zod';
import { generateResultSchema } from './inference';
import { execRequestSchema } from './sandbox';

/** BullMQ queue and job names are persisted in Redis: do not rename. */
export const Queues = {
  agentTurns: 'weft-agent-turns',
  /** Long sandbox runs (installs, test suites), taken by the sandbox workers. */
  sandboxRuns: 'weft-sandbox-runs',
} as const;

export const Jobs = {
  runTurn: 'run-turn',
  longRun: 'long-run',
} as const;

/** How a turn runs: the plain tool loop, planning mode (plan, subtasks, each its own loop), or a chain. */
export const turnModeSchema = z.enum(['chat', 'plan', 'chain']);
export type TurnMode = z.infer<typeof turnModeSchema>;

export const chainInvocationSchema = z.object({
  name: z.string(),
  inputs: z.record(z.string(), z.string()),
});
export type ChainInvocation = z.infer<typeof chainInvocationSchema>;

/** W3C trace context (docs/tracing.md) a job carries, so whoever runs it joins the caller's trace. */
export const traceCarrierSchema = z.object({ traceparent: z.string().max(128), tracestate: z.string().max(512).optional() });

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
  /** W3C trace context of the request that queued the turn, so its run joins that trace. */
  trace: traceCarrierSchema.optional(),
  /**
   * Set while the turn is parked (waiting for a person without holding a slot): what its runs
   * before the park spent, so the resumed run carries the turn's usage and time budget on.
   */
  parked: z
    .object({
      usage: generateResultSchema.shape.usage,
      /** Time the turn ran, not counting waits for a person. */
      activeMs: z.number().nonnegative(),
      /** Tool calls the turn made so far. */
      toolCalls: z.number().int().nonnegative(),
      /** How many times the turn has been parked. */
      count: z.number().int().positive(),
    })
    .optional(),
});
export const agentJobSchema = z.discriminatedUnion('kind', [runTurnJobSchema]);
export type RunTurnJob = z.infer<typeof runTurnJobSchema>;
export type RunTurnJobInput = z.input<typeof runTurnJobSchema>;
export type AgentJob = z.infer<typeof agentJobSchema>;

/** A run ids are made of, safe as one NATS subject token and as a BullMQ job id. */
export const runIdSchema = z.string().regex(/^run_[A-Za-z0-9_-]{8,64}$/, 'not a run id');

export const longRunJobSchema = z.object({
  kind: z.literal(Jobs.longRun),
  /** Also the job id and the token of its output subject. */
  runId: runIdSchema,
  request: execRequestSchema,
  /** For the worker's log lines only. */
  sessionId: z.string().optional(),
  turnId: z.string().optional(),
  /** The trace of the tool call that queued the run. */
  trace: traceCarrierSchema.optional(),
});
export const sandboxJobSchema = z.discriminatedUnion('kind', [longRunJobSchema]);
export type LongRunJob = z.input<typeof longRunJobSchema>;
export type SandboxJob = z.infer<typeof sandboxJobSchema>;
