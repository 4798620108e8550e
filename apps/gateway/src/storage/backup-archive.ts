import { z } from 'zod';

/** Names inside a backup archive; persisted in every backup taken, do not rename. */
export const BACKUP_MANIFEST = 'weft-backup.json';
export const BACKUP_REDIS = 'redis.jsonl';
export const BACKUP_WORKSPACES = 'workspaces';

export const backupManifestSchema = z.strictObject({
  format: z.literal('weft-backup'),
  formatVersion: z.literal(1),
  /** The stored format of `redis.jsonl`: restore migrates from it, and refuses a newer one. */
  storageVersion: z.number().int().nonnegative(),
  createdAt: z.string(),
  /** When the Redis export began and ended: a key changed in between may be in it or not. */
  redisWindow: z.strictObject({ startedAt: z.string(), finishedAt: z.string() }),
  keys: z.number().int().nonnegative(),
  /** The workspaces in `workspaces/<id>.tar.gz`; those the tools worker could not export are in `missingWorkspaces`. */
  workspaces: z.array(z.string()),
  missingWorkspaces: z.array(z.strictObject({ workspaceId: z.string(), code: z.string() })),
});
export type BackupManifest = z.infer<typeof backupManifestSchema>;

export interface RestoreResult {
  keys: number;
  workspaces: number;
  /** Workspaces whose files the tools worker refused, with its error code. */
  failedWorkspaces: Array<{ workspaceId: string; code: string }>;
  /** The backup's stored format, and the one the store has now. */
  migratedFrom: number;
  storageVersion: number;
}
