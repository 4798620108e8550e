import { z } from 'zod';

/** Request bodies and queries of the routes that have no module of their own here. */

/** A note is one or two sentences; the agent's `remember` tool has the same cap. */
export const MAX_NOTE_CHARS = 1000;
export const addNoteBodySchema = z.strictObject({
  text: z.string().trim().min(1, 'must not be empty').max(MAX_NOTE_CHARS, `must be at most ${MAX_NOTE_CHARS} characters`),
});

/** An empty `content` removes the instructions. */
export const putInstructionsBodySchema = z.strictObject({ content: z.string().max(100_000, 'must be at most 100000 characters') });

const workspaceName = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
/** `POST /v1/workspaces?name=…`: what the listing calls it (the uploaded folder's name). */
export const createWorkspaceQuerySchema = z.strictObject({ name: workspaceName.optional() });
export const renameWorkspaceBodySchema = z.strictObject({ name: workspaceName });
export const expireWorkspacesBodySchema = z.strictObject({
  /** Defaults to WORKSPACE_IDLE_DAYS. */
  idleDays: z.number().positive().optional(),
  dryRun: z.boolean().default(false),
});

/** A quota of 0 is off. */
const quota = z.number().int().min(0).max(1_000_000_000_000);
/** What an admin may set for one user; a field left out takes the server default. */
export const limitOverridesBodySchema = z.strictObject({
  /** Share of the GPU when sequences are busy: a weight-2 user gets twice the turns of a weight-1 user. */
  weight: z.number().int().min(1).max(100).optional(),
  requestsPerMinute: quota.optional(),
  concurrentTurns: quota.optional(),
  tokensPerDay: quota.optional(),
  sandboxSecondsPerDay: quota.optional(),
});
export type LimitOverridesBody = z.infer<typeof limitOverridesBodySchema>;
