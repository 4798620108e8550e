import { chmod, cp, lstat, mkdir, realpath, rename, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { AppError, ErrorCode, workspaceIdSchema } from '@weft/contracts';

/**
 * Pristine copies taken at import live beside the workspaces, never inside one: no workspace id
 * can name this folder (ids start with `ws_`), so no tool resolves into it and the sandbox, which
 * mounts one workspace folder, never sees it.
 */
export const SNAPSHOTS_FOLDER = '.weft-snapshots';

/** Imports (git clones) are built here, on the same volume, and become a workspace by rename. */
export const STAGING_FOLDER = '.weft-staging';

/** The workspaces volume: one folder per workspace id, plus the snapshots folder. */
export class WorkspaceStore {
  constructor(private readonly baseDir: string) {}

  /** The workspace's real root; a missing one, or one replaced by a link, is not found. */
  async root(workspaceId: string): Promise<string> {
    const path = this.pathOf(workspaceId);
    try {
      const stats = await lstat(path);
      if (stats.isDirectory()) return join(await realpath(this.baseDir), workspaceId);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    throw new AppError(ErrorCode.WorkspaceNotFound, `Workspace ${workspaceId} does not exist`, { workspaceId });
  }

  /** Creates an empty workspace and returns its real root. */
  async create(workspaceId: string): Promise<string> {
    await mkdir(this.baseDir, { recursive: true, mode: 0o755 });
    try {
      await mkdir(this.pathOf(workspaceId), { mode: 0o755 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new AppError(ErrorCode.Conflict, `Workspace ${workspaceId} already exists`, { workspaceId });
      }
      throw error;
    }
    return this.root(workspaceId);
  }

  /** A fresh empty folder beside the workspaces, for an import that `adopt` turns into one. */
  async staging(workspaceId: string): Promise<string> {
    const folder = join(this.baseDir, STAGING_FOLDER, `${basename(this.pathOf(workspaceId))}-${process.pid}-${Date.now()}`);
    await mkdir(join(this.baseDir, STAGING_FOLDER), { recursive: true, mode: 0o700 });
    await mkdir(folder, { mode: 0o700 });
    return folder;
  }

  /** Makes a staged folder the workspace, atomically; returns its real root. */
  async adopt(workspaceId: string, staged: string): Promise<string> {
    const path = this.pathOf(workspaceId);
    const taken = await lstat(path).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return false;
        throw error;
      },
    );
    if (taken) throw new AppError(ErrorCode.Conflict, `Workspace ${workspaceId} already exists`, { workspaceId });
    await chmod(staged, 0o755);
    await rename(staged, path);
    return this.root(workspaceId);
  }

  async remove(workspaceId: string): Promise<void> {
    await rm(this.pathOf(workspaceId), { recursive: true, force: true });
    await rm(this.snapshotPathOf(workspaceId), { recursive: true, force: true });
  }

  /** Copies the workspace as it is now to its snapshot (links as links), atomically by rename. */
  async saveSnapshot(workspaceId: string): Promise<void> {
    const root = await this.root(workspaceId);
    const target = this.snapshotPathOf(workspaceId);
    const staging = `${target}.partial-${process.pid}-${Date.now()}`;
    await mkdir(join(this.baseDir, SNAPSHOTS_FOLDER), { recursive: true, mode: 0o700 });
    try {
      await cp(root, staging, { recursive: true, verbatimSymlinks: true, errorOnExist: true, force: false });
      await rename(staging, target);
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }

  /**
   * Makes `fresh` (a folder on this volume) the workspace's snapshot; the old one, if any, is
   * moved to `parking` first and put back if the swap fails.
   */
  async replaceSnapshot(workspaceId: string, fresh: string, parking: string): Promise<void> {
    const target = this.snapshotPathOf(workspaceId);
    await mkdir(join(this.baseDir, SNAPSHOTS_FOLDER), { recursive: true, mode: 0o700 });
    const parked = await rename(target, parking).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return false;
        throw error;
      },
    );
    try {
      await rename(fresh, target);
    } catch (error) {
      if (parked) await rename(parking, target);
      throw error;
    }
  }

  /** The real path of a workspace's snapshot; a workspace created before snapshots has none. */
  async snapshot(workspaceId: string): Promise<string> {
    const path = this.snapshotPathOf(workspaceId);
    try {
      if ((await lstat(path)).isDirectory()) return realpath(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    throw new AppError(ErrorCode.NotFound, `Workspace ${workspaceId} has no snapshot of its original files to diff against`, {
      workspaceId,
    });
  }

  private snapshotPathOf(workspaceId: string): string {
    return join(this.baseDir, SNAPSHOTS_FOLDER, basename(this.pathOf(workspaceId)));
  }

  private pathOf(workspaceId: string): string {
    // Validated again here: this string becomes a path segment.
    if (!workspaceIdSchema.safeParse(workspaceId).success) {
      throw new AppError(ErrorCode.ValidationFailed, `'${workspaceId}' is not a workspace id`);
    }
    return join(this.baseDir, workspaceId);
  }
}
