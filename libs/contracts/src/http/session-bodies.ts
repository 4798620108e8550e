import { sandboxImageIdSchema, sandboxNetworkSchema } from '../sandbox';
import { workspaceIdSchema } from '../tools';
import { z } from 'zod';

export const sandboxWorkspaceSchema = z.enum(['read-only', 'read-write']);
export type SandboxWorkspace = z.infer<typeof sandboxWorkspaceSchema>;

const title = z.string().max(200, 'must be at most 200 characters');
const maxIterations = z.number().int().min(1).max(500);

export const createSessionBodySchema = z.strictObject({
  workspaceId: workspaceIdSchema,
  model: z.string().min(1, 'must not be empty').max(200),
  title: title.optional(),
  /** This session's cap on model steps per turn, over the server's AGENT_MAX_ITERATIONS. */
  maxIterations: maxIterations.optional(),
  /** Every turn of the session runs in planning mode unless its message says otherwise. */
  planning: z.boolean().optional(),
  /**
   * The session's sandbox network: `proxy` (package registries through the allow-listing proxy),
   * `none`, or `egress` where the server sets SANDBOX_EGRESS_ALLOWED. The server's
   * SANDBOX_DEFAULT_NETWORK when absent.
   */
  sandboxNetwork: sandboxNetworkSchema.optional(),
  /** Whether commands may write to the workspace; `read-write` unless the server turns writes off. */
  sandboxWorkspace: sandboxWorkspaceSchema.optional(),
  /** An image of the server's catalogue (`GET /v1/sandbox/images`); absent, the workspace's choice or the default. */
  sandboxImage: sandboxImageIdSchema.optional(),
});
export type CreateSessionBody = z.infer<typeof createSessionBodySchema>;

export const updateSessionBodySchema = z
  .strictObject({ title: title.nullable().optional(), maxIterations: maxIterations.nullable().optional(), planning: z.boolean().optional() })
  .refine(
    (body) => body.title !== undefined || body.maxIterations !== undefined || body.planning !== undefined,
    'give title, maxIterations or planning',
  );
export type UpdateSessionBody = z.infer<typeof updateSessionBodySchema>;

export const postMessageBodySchema = z.strictObject({
  content: z.string().min(1, 'must not be empty').max(200_000, 'must be at most 200000 characters'),
  /** `plan`: planning mode for this turn; `chat`: the plain loop even in a planning session. */
  mode: z.enum(['chat', 'plan']).optional(),
  /** `junior`: the task goes straight to the model with the junior role, not the session's model. */
  to: z.enum(['junior']).optional(),
});
export type PostMessageBody = z.infer<typeof postMessageBodySchema>;

export const runChainBodySchema = z.strictObject({
  inputs: z.record(z.string(), z.string().max(100_000, 'must be at most 100000 characters')).default({}),
});
export type RunChainBody = z.infer<typeof runChainBodySchema>;

export const exportQuerySchema = z.object({ format: z.enum(['jsonl', 'markdown']).default('jsonl') });
export type ExportQuery = z.infer<typeof exportQuerySchema>;

export const turnIdSchema = z.string().regex(/^turn_[a-zA-Z0-9_-]{8,64}$/, 'not a turn id');
