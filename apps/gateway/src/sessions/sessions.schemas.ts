import { workspaceIdSchema } from '@weft/contracts';
import { z } from 'zod';

export const createSessionBodySchema = z.strictObject({
  workspaceId: workspaceIdSchema,
  model: z.string().min(1, 'must not be empty').max(200),
  title: z.string().max(200, 'must be at most 200 characters').optional(),
});
export type CreateSessionBody = z.infer<typeof createSessionBodySchema>;

export const postMessageBodySchema = z.strictObject({
  content: z.string().min(1, 'must not be empty').max(200_000, 'must be at most 200000 characters'),
});
export type PostMessageBody = z.infer<typeof postMessageBodySchema>;
