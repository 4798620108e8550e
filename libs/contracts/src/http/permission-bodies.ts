import { z } from 'zod';
import { ruleListSchema, ruleSetSchema, writableScopes } from './permission-rules';

export const answerPermissionBodySchema = z.strictObject({
  decision: z.enum(['allow_once', 'allow_always', 'deny']),
  /** Where `allow_always` stores its rules; the session unless said otherwise. */
  scope: z.enum(writableScopes).optional(),
  /** Reaches the model with a deny. */
  reason: z.string().max(2000).optional(),
  /** Rules `allow_always` stores instead of the suggested ones. */
  rules: ruleListSchema.optional(),
});
export type AnswerPermissionBody = z.infer<typeof answerPermissionBodySchema>;

export const putRulesBodySchema = ruleSetSchema;
export type PutRulesBody = z.infer<typeof putRulesBodySchema>;

export const permissionRequestIdSchema = z.string().regex(/^perm_[a-zA-Z0-9_-]{8,64}$/, 'not a permission request id');
