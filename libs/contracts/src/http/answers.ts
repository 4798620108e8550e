import type { z } from 'zod';
import type { answerPermissionBodySchema } from './permission-bodies';
import type {
  chainsSchema,
  fileEntrySchema,
  folderSchema,
  instructionsSchema,
  meSchema,
  modelsSchema,
  noteSchema,
  scopeRulesSchema,
  sessionSchema,
  sessionSummarySchema,
  ssoProfileSchema,
  workspaceSummarySchema,
} from './responses';
import type { serverSettingsSchema } from './settings';

/** The gateway's answers as its clients read them, typed from its own schemas. */
export type Me = z.infer<typeof meSchema>;
export type SsoProfile = z.infer<typeof ssoProfileSchema>;
export type ListedModel = z.infer<typeof modelsSchema>['models'][number];
export type WorkspaceSummary = z.infer<typeof workspaceSummarySchema>;
export type Session = z.infer<typeof sessionSchema>;
export type SessionSummary = z.infer<typeof sessionSummarySchema>;
export type Note = z.infer<typeof noteSchema>;
export type ChainListing = z.infer<typeof chainsSchema>['chains'][number];
export type FileEntry = z.infer<typeof fileEntrySchema>;
export type Folder = z.infer<typeof folderSchema>;
export type ServerSettings = z.infer<typeof serverSettingsSchema>;
export type Instructions = z.infer<typeof instructionsSchema>;
export type ScopeRules = z.infer<typeof scopeRulesSchema>;
export type PermissionAnswer = Pick<z.input<typeof answerPermissionBodySchema>, 'decision' | 'reason'>;
export type PermissionDecision = PermissionAnswer['decision'];

/** How a message runs: planning mode, or straight to the junior model. */
export interface TurnOptions {
  readonly mode?: 'chat' | 'plan';
  readonly to?: 'junior';
}
