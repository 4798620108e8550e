import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  AppError,
  ErrorCode,
  MANIFEST_MAX_ENTRIES,
  type ManifestEntry,
  SYNC_KEPT_FOLDER,
  type WorkspaceManifest,
  type WorkspaceSyncResult,
} from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { inspectArchive } from '../archive/archive-inspector';
import { assertLinkInside, extractArchive } from '../archive/archive-extractor';
import { type ArchiveLimits, EntryRejected } from '../archive/entry-policy';
import { archiveRejection, rejectingArchive } from './archive-rejection';
import { displayName } from './display-name';
import { TreeTooLarge, copyTree, describeTree, isSkippedName } from './literal-tree';
import { assertRelative } from './path-containment';
import { SyncJournal } from './sync-journal';
import { measureTree } from './workspace-usage';
import type { WorkspaceStore } from './workspace-store';

export interface SyncWorkspaceCommand {
  workspaceId: string;
  archiveBase64?: string;
  deleted: readonly string[];
  /** Bytes the workspace may hold afterwards; a sync that grows it past this is undone. */
  maxBytes?: number;
}

/** Paths reported as overwritten, at most. */
const MAX_REPORTED = 1000;

/**
 * Brings a workspace in line with the folder it was uploaded from: the manifest says what the
 * workspace holds; a sync writes the changed entries and removes the gone ones. The archive is
 * checked as an upload is (same policy, same on-disk checks) and unpacked beside the workspace
 * first; the workspace is then changed path by path with everything it loses kept aside, so any
 * failure (a bad link, the quota, a full disk) puts it back as it was. Last, the snapshot that
 * the export patch diffs against becomes the synced workspace.
 */
export class WorkspaceSync {
  constructor(
    private readonly store: WorkspaceStore,
    private readonly limits: ArchiveLimits,
    private readonly log: Logger,
  ) {}

  async manifest(workspaceId: string): Promise<WorkspaceManifest> {
    const root = await this.store.root(workspaceId);
    try {
      return { entries: await describeTree(root, '', { maxEntries: MANIFEST_MAX_ENTRIES }) };
    } catch (error) {
      if (!(error instanceof TreeTooLarge)) throw error;
      throw new AppError(ErrorCode.PayloadTooLarge, `Workspace ${workspaceId} holds ${error.message} outside .git and node_modules; it is too large to sync: upload the folder as a new workspace`, {
        maxEntries: error.maxEntries,
      });
    }
  }

  async sync(command: SyncWorkspaceCommand): Promise<WorkspaceSyncResult> {
    const { workspaceId } = command;
    const root = await this.store.root(workspaceId);
    const deleted = checkDeleted(command.deleted);
    const archive = command.archiveBase64 === undefined ? undefined : Buffer.from(command.archiveBase64, 'base64');
    // Refused before anything is written, as an upload is.
    if (archive) await rejectingArchive(this.log, workspaceId, () => inspectArchive(archive, this.limits));
    const work = await this.store.staging(workspaceId);
    const staged = join(work, 'files');
    const journal = new SyncJournal(root, join(work, 'backup'));
    await Promise.all([mkdir(staged), mkdir(join(work, 'backup'))]);
    try {
      const incoming = archive ? await this.unpack(workspaceId, archive, staged) : [];
      const before = await measureTree(root);
      const overwritten = await this.changedInWorkspace(workspaceId, root, [...deleted, ...incoming.filter((e) => e.type !== 'directory').map((e) => e.path)]);
      const result = await this.apply(journal, root, staged, deleted, incoming).catch(async (error: unknown) => {
        await this.undo(workspaceId, journal, error);
        throw syncFailure(archiveRejection(this.log, workspaceId, error));
      });
      const after = await measureTree(root);
      if (command.maxBytes !== undefined && after.bytes > command.maxBytes && after.bytes > before.bytes) {
        await this.undo(workspaceId, journal, 'quota');
        throw overQuota(after.bytes, before.bytes, command.maxBytes);
      }
      await this.renewSnapshot(workspaceId, root, work).catch(async (error: unknown) => {
        await this.undo(workspaceId, journal, error);
        throw error;
      });
      this.log.info({ workspaceId, ...result, overwritten: overwritten.length, bytes: after.bytes }, 'workspace synced');
      return { ...result, overwritten: overwritten.slice(0, MAX_REPORTED), files: after.files, bytes: after.bytes };
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  /** Unpacked and checked exactly as an upload is; then nothing under .git or node_modules, and .weft only as a folder. */
  private async unpack(workspaceId: string, archive: Buffer, staged: string): Promise<ManifestEntry[]> {
    return rejectingArchive(this.log, workspaceId, async () => {
      await extractArchive(archive, staged, this.limits);
      const entries = await describeTree(staged, '', { maxEntries: this.limits.maxEntries * 2, includeSkipped: true });
      for (const entry of entries) {
        if (entry.path.split('/').some(isSkippedName)) throw new EntryRejected(entry.path, 'is under .git or node_modules, which a sync never changes');
        if (entry.path === SYNC_KEPT_FOLDER && entry.type !== 'directory') throw new EntryRejected(entry.path, `must be a folder: ${SYNC_KEPT_FOLDER}/ holds Weft's settings`);
      }
      return entries;
    });
  }

  private async apply(journal: SyncJournal, root: string, staged: string, deleted: readonly string[], incoming: readonly ManifestEntry[]) {
    let removed = 0;
    for (const path of deleted) if (await journal.moveAway(path)) removed++;
    let written = 0;
    for (const entry of incoming) {
      if (entry.type === 'directory') {
        await journal.ensureFolder(entry.path);
      } else {
        await journal.place(staged, entry.path);
        written++;
      }
    }
    // A link is checked where it now lies, among the workspace's other entries, as an upload's are.
    for (const entry of incoming) {
      if (entry.type === 'symlink') await assertLinkInside(root, entry.path);
    }
    return { written, deleted: removed };
  }

  /** Which of `paths` differ in the workspace from its snapshot: work done there that the sync replaces. */
  private async changedInWorkspace(workspaceId: string, root: string, paths: readonly string[]): Promise<string[]> {
    const snapshot = await this.store.snapshot(workspaceId).catch((error: unknown) => {
      if (error instanceof AppError && error.code === ErrorCode.NotFound) return undefined;
      throw error;
    });
    if (!snapshot) return [];
    const changed: string[] = [];
    const options = { maxEntries: MANIFEST_MAX_ENTRIES };
    for (const path of paths) {
      const [now, then] = await Promise.all([describeTree(root, path, options), describeTree(snapshot, path, options)]);
      if (JSON.stringify(now) !== JSON.stringify(then)) changed.push(path);
    }
    return changed.sort();
  }

  /** The export patch diffs against the workspace as the folder left it. */
  private async renewSnapshot(workspaceId: string, root: string, work: string): Promise<void> {
    const fresh = join(work, 'snapshot');
    await mkdir(fresh, { mode: 0o700 });
    await copyTree(root, fresh, MANIFEST_MAX_ENTRIES * 4);
    await this.store.replaceSnapshot(workspaceId, fresh, join(work, 'old-snapshot'));
  }

  private async undo(workspaceId: string, journal: SyncJournal, reason: unknown): Promise<void> {
    try {
      await journal.rollback();
      this.log.warn({ workspaceId, err: reason instanceof Error ? reason : undefined, reason: reason instanceof Error ? undefined : reason }, 'workspace sync undone');
    } catch (error) {
      this.log.error({ workspaceId, err: error }, 'workspace sync could not be undone');
      throw new AppError(
        ErrorCode.Internal,
        `Syncing workspace ${workspaceId} failed and it could not be put back as it was; upload the folder as a new workspace`,
        { partial: true },
        false,
        { cause: error },
      );
    }
  }
}

/** Paths as a manifest names them: relative, `/`-separated, no `.` or `..`, nothing under .git, node_modules or .weft. */
function checkDeleted(paths: readonly string[]): string[] {
  for (const path of paths) {
    assertRelative(path);
    const names = path.split('/');
    const why = names.some((n) => n === '' || n === '.' || n === '..')
      ? "must name an entry plainly (no '.', '..' or empty names)"
      : names.some(isSkippedName)
        ? 'is under .git or node_modules, which a sync never changes'
        : names[0] === SYNC_KEPT_FOLDER
          ? `is in ${SYNC_KEPT_FOLDER}/, from which a sync removes nothing`
          : undefined;
    if (why) throw new AppError(ErrorCode.InvalidPath, `Cannot remove '${displayName(path)}': it ${why}`, { path: displayName(path) });
  }
  return [...new Set(paths)].sort();
}

/** The workspace changed under the sync (code run in it moved things): undone, and worth a retry. */
function syncFailure(error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== 'ELOOP' && code !== 'ENOTDIR' && code !== 'ENOENT') return error;
  return new AppError(ErrorCode.Conflict, 'The workspace changed while it was being synced (a folder was moved or replaced by a link); nothing was changed, try again', { reason: code }, true);
}

function overQuota(after: number, before: number, maxBytes: number): AppError {
  return new AppError(
    ErrorCode.PayloadTooLarge,
    `The sync would grow the workspace from ${before} to ${after} bytes; your workspace quota leaves it ${maxBytes}: delete files or workspaces first (nothing was changed)`,
    { bytes: after, quotaBytesLeft: maxBytes },
  );
}
