import { z } from 'zod';
import { toolCallSchema } from './inference';

/**
 * Set on the events of a conversation other than the session's own: a delegated junior's loop
 * (`del_<callId>`) or a planning subtask (`sub_<n>`). Absent on the main conversation's events.
 */
const threadId = z.string().optional();

export const subtaskSchema = z.object({ title: z.string(), description: z.string() });
export type Subtask = z.infer<typeof subtaskSchema>;

/** Why a turn was interrupted before the model finished by itself. */
export const interruptReasonSchema = z.enum(['iteration_limit', 'loop_detected', 'repeated_error', 'token_budget', 'time_budget']);
export type InterruptReason = z.infer<typeof interruptReasonSchema>;

/** Events of a session's log, as stored in Redis and sent to clients over SSE. */
export const sessionEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('message.created'), turnId: z.string(), role: z.literal('user'), content: z.string() }),
  z.object({
    type: z.literal('turn.started'),
    turnId: z.string(),
    model: z.string(),
    /** Another replica took the turn over after the one running it stopped. */
    resumed: z.boolean().optional(),
  }),
  z.object({ type: z.literal('message.delta'), turnId: z.string(), text: z.string(), threadId }),
  /**
   * The `message.delta`s of the generation just streamed on this thread do not add up to what
   * the model wrote (some were lost between inference and the gateway, as in a NATS outage):
   * `text` is that generation's whole text. A client replaces the text its deltas showed since
   * the thread's last other event with it. Logged after the generation's deltas, before anything else of it.
   */
  z.object({ type: z.literal('message.resync'), turnId: z.string(), text: z.string(), threadId }),
  /**
   * The turn's model is not loaded on the worker that took it and is loading now (models on
   * demand): the reply starts once it is loaded. Sent when the load starts and as it progresses.
   */
  z.object({ type: z.literal('model.loading'), turnId: z.string(), model: z.string(), progress: z.number().min(0).max(1), threadId }),
  /**
   * The worker streaming this thread's generation died (killed, its node lost, its heartbeats
   * stopped) and another worker, or the same one restarted, took the generation over: it goes
   * on from the `streamedChars` characters already streamed, with no delta repeated or lost.
   */
  z.object({
    type: z.literal('generation.resumed'),
    turnId: z.string(),
    model: z.string(),
    streamedChars: z.number().int().nonnegative(),
    /** How long the generation waited between the loss and the new worker taking it. */
    pausedMs: z.number().nonnegative(),
    threadId,
  }),
  z.object({
    type: z.literal('tool.called'),
    turnId: z.string(),
    call: toolCallSchema,
    threadId,
  }),
  /**
   * Output of a long sandbox run as it comes, before its `tool.completed`. Chunks are bounded
   * and their total per call is capped; the full (capped) result is in `tool.completed`.
   */
  z.object({
    type: z.literal('tool.output'),
    turnId: z.string(),
    threadId,
    callId: z.string(),
    stream: z.enum(['stdout', 'stderr']),
    text: z.string(),
  }),
  z.object({
    type: z.literal('tool.completed'),
    turnId: z.string(),
    threadId,
    callId: z.string(),
    name: z.string(),
    isError: z.boolean(),
    output: z.string(),
  }),
  z.object({ type: z.literal('message.completed'), turnId: z.string(), content: z.string() }),
  z.object({
    type: z.literal('turn.completed'),
    turnId: z.string(),
    /** Summed over the turn's generations; `cachedTokens`/`evaluatedTokens` where the worker reports them. */
    usage: z.object({
      promptTokens: z.number(),
      completionTokens: z.number(),
      cachedTokens: z.number().optional(),
      evaluatedTokens: z.number().optional(),
    }),
    iterations: z.number().int(),
    /** Set when a guard rail interrupted the turn and the final answer is the model's summary. */
    stopReason: interruptReasonSchema.optional(),
  }),
  z.object({ type: z.literal('turn.failed'), turnId: z.string(), code: z.string(), message: z.string() }),
  /** The run waits for a person: `POST /v1/sessions/:id/permissions/:requestId` answers it. */
  z.object({
    type: z.literal('permission.requested'),
    turnId: z.string(),
    requestId: z.string(),
    callId: z.string(),
    /** The exact call, arguments included. */
    call: toolCallSchema,
    /** The command, or the paths and what would happen to them. */
    subject: z.string(),
    reasons: z.array(z.string()),
    /** What `allow_always` stores; empty when no rule can vouch for the call (a risky command). */
    suggestedRules: z.array(z.string()),
    expiresAt: z.string(),
  }),
  /** Every tool call's permission outcome, and who decided it: the audit trail. */
  z.object({
    type: z.literal('permission.decided'),
    turnId: z.string(),
    callId: z.string(),
    tool: z.string(),
    decision: z.enum(['allow', 'deny']),
    decidedBy: z.enum(['policy', 'user', 'timeout', 'cancel']),
    requestId: z.string().optional(),
    /** The deciding user, when a person answered. */
    userId: z.string().optional(),
    /** The rule and its scope, when a rule decided; the rules stored by `allow_always`. */
    rule: z.string().optional(),
    scope: z.string().optional(),
    storedRules: z.array(z.string()).optional(),
    reason: z.string().optional(),
  }),
  /** A guard rail stopped the loop; the model is asked for a summary, which ends the turn. */
  z.object({ type: z.literal('turn.interrupted'), turnId: z.string(), reason: interruptReasonSchema, message: z.string(), threadId }),
  /**
   * The history no longer fit the model's context: older messages were replaced by a summary in
   * what the model sees (the stored messages keep them). Token counts are estimates.
   */
  z.object({
    type: z.literal('context.compacted'),
    turnId: z.string(),
    contextSize: z.number().int(),
    /** Estimated prompt tokens before and after. */
    tokensBefore: z.number().int(),
    tokensAfter: z.number().int(),
    /** Messages now covered by the summary, and messages still sent as they are. */
    summarisedMessages: z.number().int(),
    keptMessages: z.number().int(),
  }),
  /** Planning mode: the model's architecture plan and the subtasks it split the request into. */
  z.object({ type: z.literal('plan.created'), turnId: z.string(), plan: z.string(), subtasks: z.array(subtaskSchema) }),
  z.object({
    type: z.literal('subtask.started'),
    turnId: z.string(),
    threadId: z.string(),
    /** Counts from 1. */
    index: z.number().int(),
    total: z.number().int(),
    title: z.string(),
  }),
  z.object({
    type: z.literal('subtask.completed'),
    turnId: z.string(),
    threadId: z.string(),
    /** Counts from 1. */
    index: z.number().int(),
    total: z.number().int(),
    title: z.string(),
    /** `stopped`: a guard rail (the same error three times, the step cap) ended it early. */
    status: z.enum(['completed', 'stopped']),
    summary: z.string(),
  }),
  /** The senior model handed a task to the junior model; its loop's events carry `threadId`. */
  z.object({
    type: z.literal('delegation.started'),
    turnId: z.string(),
    threadId: z.string(),
    callId: z.string(),
    from: z.string(),
    to: z.string(),
    task: z.string(),
  }),
  /** The junior's answer, going back to the senior for review. */
  z.object({
    type: z.literal('delegation.completed'),
    turnId: z.string(),
    threadId: z.string(),
    callId: z.string(),
    from: z.string(),
    to: z.string(),
    status: z.enum(['completed', 'stopped']),
    result: z.string(),
  }),
  /** A shared note of the workspace was stored: by the `remember` tool or from a line of an answer. */
  z.object({
    type: z.literal('note.saved'),
    turnId: z.string(),
    noteId: z.string(),
    text: z.string(),
    source: z.enum(['tool', 'answer']),
    model: z.string(),
  }),
  z.object({
    type: z.literal('chain.step.started'),
    turnId: z.string(),
    chain: z.string(),
    step: z.string(),
    /** Counts from 1. */
    index: z.number().int(),
    total: z.number().int(),
    kind: z.enum(['prompt', 'tool']),
  }),
  z.object({
    type: z.literal('chain.step.completed'),
    turnId: z.string(),
    chain: z.string(),
    step: z.string(),
    /** Counts from 1. */
    index: z.number().int(),
    total: z.number().int(),
    isError: z.boolean(),
    output: z.string(),
  }),
  /** An MCP server of the session could not be used this turn; its tools are missing, the turn goes on. */
  z.object({
    type: z.literal('mcp.server.unavailable'),
    turnId: z.string(),
    server: z.string(),
    scope: z.enum(['server', 'user', 'workspace']),
    state: z.enum(['failed', 'refused', 'invalid']),
    problem: z.string(),
  }),
  z.object({
    type: z.literal('turn.cancelled'),
    turnId: z.string(),
    /** The user who cancelled it. */
    userId: z.string().optional(),
  }),
]);

export type SessionEvent = z.infer<typeof sessionEventSchema>;
export type SessionEventType = SessionEvent['type'];

/** An event as a client receives it: the Redis stream id doubles as the SSE id. */
export type StoredSessionEvent = SessionEvent & { id: string; at: string };
