import type { chainsSchema, fileEntrySchema, folderSchema, meSchema, modelsSchema, noteSchema, serverSettingsSchema, sessionSchema, sessionSummarySchema, workspaceSummarySchema } from '@weft/contracts';
import type { z } from 'zod';

/** The answers this page reads, typed from the gateway's own schemas (libs/contracts). */
export type Me = z.infer<typeof meSchema>;
export type ModelInfo = z.infer<typeof modelsSchema>['models'][number];
export type Workspace = z.infer<typeof workspaceSummarySchema>;
export type SessionSummary = z.infer<typeof sessionSummarySchema>;
export type Session = z.infer<typeof sessionSchema>;
export type FileEntry = z.infer<typeof fileEntrySchema>;
export type Folder = z.infer<typeof folderSchema>;
export type ServerSettings = z.infer<typeof serverSettingsSchema>;
export type Note = z.infer<typeof noteSchema>;
export type ChainListing = z.infer<typeof chainsSchema>['chains'][number];
export type PermissionDecision = 'allow_once' | 'allow_always' | 'deny';
