import { z } from 'zod';
import { workspaceIdSchema } from './tools';

export const execRequestSchema = z.discriminatedUnion('mode', [
  z.object({
    mode: z.literal('command'),
    workspaceId: workspaceIdSchema,
    command: z.string().min(1),
    cwd: z.string().optional(),
    /** Mount the workspace read-write; read-only otherwise. */
    writable: z.boolean().default(false),
    timeoutMs: z.number().int().positive().max(600_000).optional(),
  }),
  z.object({
    mode: z.literal('code'),
    workspaceId: workspaceIdSchema.optional(),
    language: z.enum(['python', 'node', 'bash', 'lua']),
    code: z.string().min(1),
    stdin: z.string().optional(),
    timeoutMs: z.number().int().positive().max(600_000).optional(),
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
