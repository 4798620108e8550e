import { AppError, ErrorCode, type ReadPathResult } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { ArchiveUnreadable, inspectArchive } from '../archive/archive-inspector';
import { ExportTooLarge, exportArchive } from '../archive/archive-exporter';
import { extractArchive } from '../archive/archive-extractor';
import { type ArchiveLimits, EntryRejected } from '../archive/entry-policy';
import { resolveInside } from './path-containment';
import { listEntries, openForRead } from './safe-fs';
import type { WorkspaceStore } from './workspace-store';

/** What the gateway serves from `GET /v1/workspaces/:id/files/<path>` in one reply. */
export const READ_PATH_MAX_BYTES = 8 * 1024 * 1024;

export interface CreateWorkspaceCommand {
  workspaceId: string;
  archiveBase64?: string;
}

export class WorkspaceService {
  constructor(
    private readonly store: WorkspaceStore,
    private readonly limits: ArchiveLimits,
    private readonly log: Logger,
  ) {}

  async create({ workspaceId, archiveBase64 }: CreateWorkspaceCommand): Promise<{ files: number; bytes: number }> {
    const archive = archiveBase64 === undefined ? undefined : Buffer.from(archiveBase64, 'base64');
    // Validated before the folder exists, so a rejected upload never leaves one behind.
    if (archive) await this.rejectingArchive(workspaceId, () => inspectArchive(archive, this.limits));
    const root = await this.store.create(workspaceId);
    if (!archive) return { files: 0, bytes: 0 };
    try {
      const totals = await this.rejectingArchive(workspaceId, () => extractArchive(archive, root, this.limits));
      this.log.info({ workspaceId, ...totals }, 'workspace created from archive');
      return totals;
    } catch (error) {
      await this.store.remove(workspaceId);
      throw error;
    }
  }

  private async rejectingArchive<T>(workspaceId: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof EntryRejected || error instanceof ArchiveUnreadable)) throw error;
      this.log.warn({ workspaceId, reason: error.message }, 'workspace archive rejected');
      throw new AppError(ErrorCode.ArchiveRejected, `Archive rejected: ${error.message}`, { reason: error.message });
    }
  }

  async readPath(workspaceId: string, path: string): Promise<ReadPathResult> {
    const root = await this.store.root(workspaceId);
    const target = await resolveInside(root, path === '' ? '.' : path);
    if (!target.exists) throw new AppError(ErrorCode.FileNotFound, `No file or folder at '${path}'`, { path });
    const handle = await openForRead(root, target.real);
    try {
      const stats = await handle.stat();
      if (stats.isDirectory()) return { kind: 'directory', entries: await listEntries(root, target.real) };
      if (!stats.isFile()) throw new AppError(ErrorCode.NotAFile, `'${path}' is not a regular file`, { path });
      if (stats.size > READ_PATH_MAX_BYTES) {
        throw new AppError(ErrorCode.FileTooLarge, `'${path}' is larger than ${READ_PATH_MAX_BYTES} bytes`, {
          path,
          size: stats.size,
          maxBytes: READ_PATH_MAX_BYTES,
        });
      }
      const content = await handle.readFile();
      return { kind: 'file', size: content.length, contentBase64: content.toString('base64') };
    } finally {
      await handle.close();
    }
  }

  async export(workspaceId: string): Promise<{ archiveBase64: string }> {
    const root = await this.store.root(workspaceId);
    try {
      return { archiveBase64: (await exportArchive(root)).toString('base64') };
    } catch (error) {
      if (!(error instanceof ExportTooLarge)) throw error;
      throw new AppError(ErrorCode.FileTooLarge, `Workspace ${workspaceId}: ${error.message}`, {
        workspaceId,
        maxBytes: error.maxBytes,
      });
    }
  }
}
