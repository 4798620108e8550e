import { z } from 'zod';
import { workspaceIdSchema } from './tools';

/**
 * Names never uploaded, never listed in a manifest and never touched by a sync, at any depth:
 * version-control internals and installed dependencies (the agent may install them in the
 * workspace; a sync leaves them alone).
 */
export const SYNC_SKIPPED_NAMES: readonly string[] = ['.git', 'node_modules'];

/**
 * Weft's own folder in a workspace. A sync writes the files the uploaded folder has there but
 * removes nothing from it: what the server keeps there is not the folder's to take away.
 */
export const SYNC_KEPT_FOLDER = '.weft';

/** Most entries (files, links and folders) a manifest lists; past it a workspace cannot be synced. */
export const MANIFEST_MAX_ENTRIES = 50_000;
/** Most paths one sync may remove (a removed folder counts once). */
export const SYNC_MAX_DELETED = 50_000;
/** Characters of all removed paths together, so a sync stays within one NATS message. */
export const SYNC_MAX_DELETED_CHARS = 4 * 1024 * 1024;

const relativePath = z.string().min(1).max(4096);

/** One entry of a workspace or folder, path relative to its root with `/` separators. */
export const manifestEntrySchema = z.discriminatedUnion('type', [
  z.object({
    path: relativePath,
    type: z.literal('file'),
    size: z.number().int().nonnegative(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    executable: z.boolean(),
  }),
  z.object({ path: relativePath, type: z.literal('symlink'), target: z.string() }),
  z.object({ path: relativePath, type: z.literal('directory') }),
  /** A FIFO, socket or device made by code run in the workspace; no upload can hold one. */
  z.object({ path: relativePath, type: z.literal('other') }),
]);
export type ManifestEntry = z.infer<typeof manifestEntrySchema>;

/** Every entry outside SYNC_SKIPPED_NAMES, each folder before what it holds. */
export const workspaceManifestSchema = z.object({ entries: z.array(manifestEntrySchema) });
export type WorkspaceManifest = z.infer<typeof workspaceManifestSchema>;

const deletedPathsSchema = z
  .array(relativePath)
  .max(SYNC_MAX_DELETED)
  .refine((paths) => paths.reduce((sum, p) => sum + p.length, 0) <= SYNC_MAX_DELETED_CHARS, `the removed paths must add up to at most ${SYNC_MAX_DELETED_CHARS} characters`);

/** `POST /v1/workspaces/:id/sync`: the changed and new entries as a tar.gz, and the paths to remove. */
export const workspaceSyncBodySchema = z.strictObject({
  /** A tar.gz of the files, links and folders to write (each replaces what is at its path); absent when only removing. */
  archiveBase64: z.string().min(1).optional(),
  /** Paths to remove: files, links, or folders with everything in them. */
  deleted: deletedPathsSchema.default([]),
});
export type WorkspaceSyncBody = z.infer<typeof workspaceSyncBodySchema>;

export const workspaceSyncResultSchema = z.object({
  /** Files and links written from the archive. */
  written: z.number().int().nonnegative(),
  /** Removed paths that existed (a folder counts once). */
  deleted: z.number().int().nonnegative(),
  /**
   * Paths this sync replaced or removed that had changed in the workspace since it was uploaded
   * or last synced (the agent's work nobody applied to the folder): the folder won.
   */
  overwritten: z.array(z.string()),
  /** The workspace after the sync. */
  files: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
});
export type WorkspaceSyncResult = z.infer<typeof workspaceSyncResultSchema>;

export const workspaceManifestRequestSchema = z.object({ workspaceId: workspaceIdSchema });
export const syncWorkspaceRequestSchema = z.object({
  workspaceId: workspaceIdSchema,
  archiveBase64: z.string().min(1).optional(),
  deleted: deletedPathsSchema,
  /** Bytes the workspace may hold after the sync (the owner's quota less their other workspaces); a sync that grows it past this is undone. */
  maxBytes: z.number().int().nonnegative().optional(),
});
