import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode, type ReadPathResult, assertUnreachable } from '@weft/contracts';
import { newId } from '../common/ids';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { assertGitHostAllowed } from './git-hosts';
import { quotaLeft } from './workspace-quota';
import { WorkspaceFilesClient } from './workspace-files.client';
import type { WorkspaceUpload } from './workspace-upload';
import { WorkspacesRepository } from './workspaces.repository';

@Injectable()
export class WorkspacesService {
  constructor(
    private readonly workspaces: WorkspacesRepository,
    private readonly files: WorkspaceFilesClient,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewaySettings,
  ) {}

  /**
   * The files are unpacked first; the record only exists once the workspace does. An archive or
   * a clone is held to what is left of the owner's quota (two uploads racing can both pass: a soft quota).
   */
  async create(ownerId: string, upload: WorkspaceUpload): Promise<{ id: string }> {
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
    await this.workspaces.create({ id, ownerId, createdAt: new Date().toISOString() });
    return { id };
  }

  private async quotaLeft(ownerId: string): Promise<number> {
    const owned = await this.workspaces.listOwned(ownerId);
    return quotaLeft(this.config.WORKSPACE_QUOTA_BYTES, await this.files.usedBytes(owned.map((w) => w.id)));
  }

  async list(ownerId: string) {
    const workspaces = await this.workspaces.listOwned(ownerId);
    return { workspaces: workspaces.map(({ id, createdAt }) => ({ id, createdAt })) };
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
