import { z } from 'zod';
import { wireErrorSchema } from './errors';
import { workspaceIdSchema } from './tools';

/**
 * A run's network: `none` (loopback only, the default) or `egress`, a dedicated bridge network
 * that reaches the internet but not the services of the deployment. The gateway decides which
 * from the session's policy and the server's SANDBOX_EGRESS_ALLOWED.
 */
export const sandboxNetworkSchema = z.enum(['none', 'egress']);
export type SandboxNetwork = z.infer<typeof sandboxNetworkSchema>;

export const execRequestSchema = z.discriminatedUnion('mode', [
  z.object({
    mode: z.literal('command'),
    workspaceId: workspaceIdSchema,
    command: z.string().min(1),
    cwd: z.string().optional(),
    /** Mount the workspace read-write; read-only otherwise. */
    writable: z.boolean().default(false),
    timeoutMs: z.number().int().positive().max(600_000).optional(),
    network: sandboxNetworkSchema.default('none'),
  }),
  z.object({
    mode: z.literal('code'),
    workspaceId: workspaceIdSchema.optional(),
    language: z.enum(['python', 'node', 'bash', 'lua']),
    code: z.string().min(1),
    stdin: z.string().optional(),
    timeoutMs: z.number().int().positive().max(600_000).optional(),
    network: sandboxNetworkSchema.default('none'),
  }),
]);
export type ExecRequest = z.input<typeof execRequestSchema>;

export const execResultSchema = z.object({
  exitCode: z.number().int().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  stdoutTruncated: z.boolean(),
  stderrTruncated: z.boolean(),
  timedOut: z.boolean(),
  oomKilled: z.boolean(),
  durationMs: z.number().nonnegative(),
});
export type ExecResult = z.infer<typeof execResultSchema>;

/** Largest piece of output one streamed chunk carries; the sandbox splits bigger ones. */
export const RUN_OUTPUT_CHUNK_MAX_CHARS = 8192;

/**
 * What a long run publishes on its own subject (`sandboxRunOutputSubject`), in order: `started`
 * when a worker takes it, output chunks as they come (each stream capped in total like the
 * result's output), then exactly one `result` or `failed`.
 */
export const runOutputMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('started'), runId: z.string(), timeoutMs: z.number().int().positive() }),
  z.object({
    type: z.literal('chunk'),
    runId: z.string(),
    stream: z.enum(['stdout', 'stderr']),
    text: z.string().max(RUN_OUTPUT_CHUNK_MAX_CHARS),
  }),
  z.object({ type: z.literal('result'), runId: z.string(), result: execResultSchema }),
  z.object({ type: z.literal('failed'), runId: z.string(), error: wireErrorSchema }),
]);
export type RunOutputMessage = z.infer<typeof runOutputMessageSchema>;

/** Stops a long run wherever it is: its container is killed and removed, or it never starts. */
export const cancelRunSchema = z.object({ runId: z.string().min(1) });
export type CancelRun = z.infer<typeof cancelRunSchema>;
