import { AppError, ErrorCode, type GitSource, type ReadPathResult, type WorkspaceManifest, type WorkspaceSyncResult, type WorkspaceUsage } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { type ArchiveInspection, inspectArchive } from '../archive/archive-inspector';
import { ExportTooLarge, exportArchive } from '../archive/archive-exporter';
import { extractArchive } from '../archive/archive-extractor';
import { type ArchiveLimits, entryCrossing } from '../archive/entry-policy';
import type { GitImporter } from '../git/git-importer';
import { PatchTooLarge, type ExportedPatch, type PatchLimits, exportPatch } from '../patch/patch-exporter';
import { rejectingArchive } from './archive-rejection';
import { diskFullOr } from './disk-full';
import { displayName } from './display-name';
import { fsFailure } from './fs-failure';
import { readPathIn } from './read-path';
import { measureTree } from './workspace-usage';
import { type SyncWorkspaceCommand, WorkspaceSync } from './workspace-sync';
import type { WorkspaceStore } from './workspace-store';

export interface CreateWorkspaceCommand {
  workspaceId: string;
  archiveBase64?: string;
  git?: GitSource;
  /** What is left of the owner's quota; an archive that unpacks to more is refused. */
  maxBytes?: number;
}

/** Export patches travel in one NATS message, like archives. */
export const PATCH_LIMITS: PatchLimits = { maxFileBytes: 4 * 1024 * 1024, maxPatchBytes: 8 * 1024 * 1024, maxEntries: 200_000 };

export class WorkspaceService {
  private readonly syncer: WorkspaceSync;

  constructor(
    private readonly store: WorkspaceStore,
    private readonly limits: ArchiveLimits,
    private readonly log: Logger,
    private readonly git?: GitImporter,
  ) {
    this.syncer = new WorkspaceSync(store, limits, log);
  }

  async create({ workspaceId, archiveBase64, git, maxBytes }: CreateWorkspaceCommand): Promise<{ files: number; bytes: number }> {
    if (git) return this.createFromGit(workspaceId, git, maxBytes);
    const archive = archiveBase64 === undefined ? undefined : Buffer.from(archiveBase64, 'base64');
    // Validated before the folder exists, so a rejected upload never leaves one behind.
    if (archive) {
      const declared = await this.rejectingArchive(workspaceId, () => inspectArchive(archive, this.limits));
      if (maxBytes !== undefined && declared.bytes > maxBytes) throw overQuota(declared, maxBytes);
    }
    const root = await this.store.create(workspaceId);
    try {
      const totals = archive ? await this.rejectingArchive(workspaceId, () => extractArchive(archive, root, this.limits)) : { files: 0, bytes: 0 };
      await this.store.saveSnapshot(workspaceId);
      this.log.info({ workspaceId, ...totals }, 'workspace created');
      return totals;
    } catch (error) {
      // Nothing half unpacked is left behind, a full disk included.
      await this.store.remove(workspaceId);
      throw diskFullOr(error, 'the upload');
    }
  }

  private async createFromGit(workspaceId: string, source: GitSource, maxBytes?: number): Promise<{ files: number; bytes: number }> {
    if (!this.git) throw new AppError(ErrorCode.Forbidden, 'Import from git is disabled on this server');
    const totals = await this.git.import(workspaceId, source, maxBytes);
    try {
      await this.store.saveSnapshot(workspaceId);
    } catch (error) {
      await this.store.remove(workspaceId);
      throw diskFullOr(error, 'the import');
    }
    this.log.info({ workspaceId, ...totals }, 'workspace created from git');
    return totals;
  }

  /** Every file, link and folder outside .git and node_modules, files with their SHA-256. */
  manifest(workspaceId: string): Promise<WorkspaceManifest> {
    return this.syncer.manifest(workspaceId);
  }

  /** Writes the changed entries, removes the gone ones; all or nothing, a full disk included. */
  async sync(command: SyncWorkspaceCommand): Promise<WorkspaceSyncResult> {
    try {
      return await this.syncer.sync(command);
    } catch (error) {
      throw diskFullOr(error, 'the sync');
    }
  }

  /** Everything changed since the workspace was created (or last synced), as a git-style patch. */
  async exportPatch(workspaceId: string): Promise<ExportedPatch> {
    const root = await this.store.root(workspaceId);
    try {
      return await exportPatch(await this.store.snapshot(workspaceId), root, PATCH_LIMITS);
    } catch (error) {
      if (!(error instanceof PatchTooLarge)) throw error;
      throw new AppError(ErrorCode.FileTooLarge, `Workspace ${workspaceId}: ${error.message}`, { workspaceId, maxBytes: error.maxBytes });
    }
  }

  /** A workspace that does not exist uses nothing. */
  async usage(workspaceIds: readonly string[]): Promise<WorkspaceUsage[]> {
    const usages: WorkspaceUsage[] = [];
    for (const workspaceId of workspaceIds) {
      const root = await this.store.root(workspaceId).catch((error: unknown) => {
        if (error instanceof AppError && error.code === ErrorCode.WorkspaceNotFound) return null;
        throw error;
      });
      usages.push({ workspaceId, ...(root ? await measureTree(root) : { files: 0, bytes: 0 }) });
    }
    return usages;
  }

  private rejectingArchive<T>(workspaceId: string, work: () => Promise<T>): Promise<T> {
    return rejectingArchive(this.log, workspaceId, work);
  }

  async readPath(workspaceId: string, path: string): Promise<ReadPathResult> {
    const root = await this.store.root(workspaceId);
    try {
      return await readPathIn(root, path);
    } catch (error) {
      throw fsFailure(error, root) ?? error;
    }
  }

  async delete(workspaceId: string): Promise<void> {
    await this.store.remove(workspaceId);
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

/** The archive fits the server's limits but not what is left of the owner's quota. */
function overQuota(declared: ArchiveInspection, maxBytes: number): AppError {
  const crossing = entryCrossing(declared.entries, maxBytes);
  const at = crossing ? ` (entry '${displayName(crossing.path)}' takes it past the quota)` : '';
  return new AppError(ErrorCode.PayloadTooLarge, `The archive unpacks to ${declared.bytes} bytes; your workspace quota has ${maxBytes} bytes left${at}`, {
    bytes: declared.bytes,
    quotaBytesLeft: maxBytes,
    ...(crossing ? { entry: displayName(crossing.path) } : {}),
  });
}
