import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode, type ReadPathResult, assertUnreachable } from '@weft/contracts';
import { newId } from '../common/ids';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { assertGitHostAllowed } from './git-hosts';
import { quotaLeft } from './workspace-quota';
import { WorkspaceFilesClient } from './workspace-files.client';
import { WorkspaceLocks } from './workspace-locks';
import type { WorkspaceUpload } from './workspace-upload';
import { type Workspace, WorkspacesRepository } from './workspaces.repository';

@Injectable()
export class WorkspacesService {
  constructor(
    private readonly workspaces: WorkspacesRepository,
    private readonly files: WorkspaceFilesClient,
    private readonly locks: WorkspaceLocks,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewaySettings,
  ) {}

  /**
   * The files are unpacked first; the record only exists once the workspace does. An archive or
   * a clone is held to what is left of the owner's quota (two uploads racing can both pass: a soft quota).
   */
  async create(ownerId: string, upload: WorkspaceUpload, name?: string): Promise<{ id: string; name: string }> {
    const id = newId('ws');
    switch (upload.kind) {
      case 'archive':
        await this.files.create(id, { archive: upload.archive, maxBytes: await this.quotaLeft(ownerId) });
        break;
      case 'git':
        assertGitHostAllowed(upload.git.url, this.config.WORKSPACE_GIT_ALLOWED_HOSTS);
        await this.files.create(id, { git: upload.git, maxBytes: await this.quotaLeft(ownerId) }, this.config.WORKSPACE_GIT_TIMEOUT_MS);
        break;
      case 'empty':
        await this.files.create(id, {});
        break;
      default:
        assertUnreachable(upload);
    }
    const createdAt = new Date().toISOString();
    const given = name ?? defaultName(upload);
    await this.workspaces.create({ id, ownerId, name: given, createdAt, lastUsedAt: createdAt });
    return { id, name: given };
  }

  async rename(ownerId: string, workspaceId: string, name: string) {
    await this.assertOwned(ownerId, workspaceId);
    await this.workspaces.rename(workspaceId, name);
    return this.describe(ownerId, workspaceId);
  }

  /**
   * Removes the workspace's files, its snapshot and its notes. Refused (409) while a turn runs
   * in it or while it is being synced; sessions on it stay readable, and a new turn there fails
   * with the workspace missing.
   */
  async delete(ownerId: string, workspaceId: string): Promise<void> {
    await this.assertOwned(ownerId, workspaceId);
    await this.locks.run(workspaceId, 'delete', async () => {
      await this.assertNoTurnRunning(ownerId, workspaceId, 'delete');
      await this.remove(ownerId, workspaceId);
    });
  }

  /**
   * Deletes the workspace as `delete` does if it was last used at or before `cutoff` and no turn
   * runs in it; a workspace busy with another operation is left for the next sweep.
   */
  async expireIfIdle(ownerId: string, workspaceId: string, cutoff: Date): Promise<'expired' | 'in use' | 'busy' | 'gone'> {
    const outcome = await this.locks.tryRun(workspaceId, 'expiry', async () => {
      // Read again under the lock: a session may have been made on it since it was listed.
      const workspace = await this.workspaces.findOwned(ownerId, workspaceId);
      if (!workspace) return 'gone' as const;
      if (Date.parse(workspace.lastUsedAt) > cutoff.getTime()) return 'in use' as const;
      if ((await this.workspaces.sessionsRunningIn(ownerId, workspaceId)).length > 0) return 'in use' as const;
      await this.remove(ownerId, workspaceId);
      return 'expired' as const;
    });
    return outcome.ran ? outcome.value : 'busy';
  }

  /** 409 naming the sessions whose turns run in the workspace. */
  async assertNoTurnRunning(ownerId: string, workspaceId: string, action: string): Promise<void> {
    const running = await this.workspaces.sessionsRunningIn(ownerId, workspaceId);
    if (running.length > 0) {
      throw new AppError(ErrorCode.Conflict, `Workspace ${workspaceId} has a turn running in session ${running.join(', ')}; cancel it or wait, then ${action}`, { sessions: running });
    }
  }

  private async remove(ownerId: string, workspaceId: string): Promise<void> {
    await this.files.delete(workspaceId);
    await this.workspaces.remove(ownerId, workspaceId);
  }

  /** A session was made on it or a turn started in it: the listing shows what is in use. */
  async touch(workspaceId: string): Promise<void> {
    await this.workspaces.touch(workspaceId);
  }

  private async quotaLeft(ownerId: string): Promise<number> {
    const owned = await this.workspaces.listOwned(ownerId);
    return quotaLeft(this.config.WORKSPACE_QUOTA_BYTES, await this.files.usedBytes(owned.map((w) => w.id)));
  }

  /** The ids of the owner's workspaces, newest first. */
  async ids(ownerId: string): Promise<string[]> {
    return (await this.workspaces.listOwned(ownerId)).map((w) => w.id);
  }

  /** Newest first, each with its size on disk. */
  async list(ownerId: string) {
    const workspaces = await this.workspaces.listOwned(ownerId);
    const sizes = await this.files.usage(workspaces.map((w) => w.id));
    return { workspaces: workspaces.map((w) => view(w, sizes.get(w.id))) };
  }

  async describe(ownerId: string, workspaceId: string) {
    const workspace = await this.workspaces.findOwned(ownerId, workspaceId);
    if (!workspace) throw new AppError(ErrorCode.NotFound, `Workspace ${workspaceId} not found`);
    return view(workspace, (await this.files.usage([workspaceId])).get(workspaceId));
  }

  async readPath(ownerId: string, workspaceId: string, path: string): Promise<ReadPathResult> {
    await this.assertOwned(ownerId, workspaceId);
    return this.files.readPath(workspaceId, path);
  }

  async exportArchive(ownerId: string, workspaceId: string): Promise<Buffer> {
    await this.assertOwned(ownerId, workspaceId);
    return this.files.exportArchive(workspaceId);
  }

  async exportPatch(ownerId: string, workspaceId: string): Promise<string> {
    await this.assertOwned(ownerId, workspaceId);
    return this.files.exportPatch(workspaceId);
  }

  async assertOwned(ownerId: string, workspaceId: string): Promise<void> {
    if (!(await this.workspaces.findOwned(ownerId, workspaceId))) {
      throw new AppError(ErrorCode.NotFound, `Workspace ${workspaceId} not found`);
    }
  }
}

function view(w: Workspace, size: { files: number; bytes: number } | undefined) {
  return { id: w.id, name: w.name, createdAt: w.createdAt, lastUsedAt: w.lastUsedAt, files: size?.files ?? 0, bytes: size?.bytes ?? 0 };
}

/** A clone is named after its repository; an upload without a name after what it is. */
function defaultName(upload: WorkspaceUpload): string {
  if (upload.kind === 'git') return /([^/:]+?)(\.git)?\/?$/.exec(upload.git.url)?.[1] ?? 'repository';
  return upload.kind === 'archive' ? 'upload' : 'workspace';
}
