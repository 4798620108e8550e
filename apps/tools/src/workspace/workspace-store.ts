import { lstat, mkdir, realpath, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError, ErrorCode, workspaceIdSchema } from '@weft/contracts';

/** The workspaces volume: one folder per workspace id, nothing else. */
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

  async remove(workspaceId: string): Promise<void> {
    await rm(this.pathOf(workspaceId), { recursive: true, force: true });
  }

  private pathOf(workspaceId: string): string {
    // Validated again here: this string becomes a path segment.
    if (!workspaceIdSchema.safeParse(workspaceId).success) {
      throw new AppError(ErrorCode.ValidationFailed, `'${workspaceId}' is not a workspace id`);
    }
    return join(this.baseDir, workspaceId);
  }
}
