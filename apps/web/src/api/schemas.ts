import { chatMessageSchema, modelInfoSchema } from '@weft/contracts';
import { z } from 'zod';

/**
 * The answers of the gateway's public API that this client reads (docs/api.md). They move to
 * libs/contracts with the rest of the HTTP contract (issue #13); until then they are declared here.
 */
export const meSchema = z.object({ id: z.string(), name: z.string() });
export type Me = z.infer<typeof meSchema>;

export const modelsSchema = z.object({ models: z.array(modelInfoSchema) });
export type ModelInfo = z.infer<typeof modelsSchema>['models'][number];

export const workspaceSchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullish(),
  files: z.number().optional(),
  bytes: z.number().optional(),
});
export type Workspace = z.infer<typeof workspaceSchema>;
export const workspacesSchema = z.object({ workspaces: z.array(workspaceSchema) });
export const createdSchema = z.object({ id: z.string() });

const sessionFields = {
  id: z.string(),
  workspaceId: z.string(),
  model: z.string(),
  title: z.string().nullish(),
  createdAt: z.string(),
  activeTurnId: z.string().nullish(),
};
export const sessionSummarySchema = z.object({ ...sessionFields, preview: z.string().nullish(), lastActivityAt: z.string().nullish() });
export type SessionSummary = z.infer<typeof sessionSummarySchema>;
export const sessionsSchema = z.object({ sessions: z.array(sessionSummarySchema) });
export const sessionSchema = z.object({ ...sessionFields, lastEventId: z.string().nullish(), messages: z.array(chatMessageSchema) });
export type Session = z.infer<typeof sessionSchema>;

export const turnSchema = z.object({ turnId: z.string() });
export const permissionAnswerSchema = z.object({
  requestId: z.string(),
  decision: z.string(),
  scope: z.string().nullish(),
  storedRules: z.array(z.string()).nullish(),
});
export type PermissionDecision = 'allow_once' | 'allow_always' | 'deny';

export const fileEntrySchema = z.object({ name: z.string(), type: z.enum(['file', 'directory', 'symlink', 'other']), size: z.number().optional() });
export type FileEntry = z.infer<typeof fileEntrySchema>;
export const folderSchema = z.object({ path: z.string(), entries: z.array(fileEntrySchema) });
export type Folder = z.infer<typeof folderSchema>;

/** `{ error: { code, message, details } }`: every error of the API. */
export const wireErrorBodySchema = z.object({ error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }) });
