import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode, type ReadPathResult } from '@weft/contracts';
import { newId } from '../common/ids';
import { WorkspaceFilesClient } from './workspace-files.client';
import type { WorkspaceUpload } from './workspace-upload';
import { WorkspacesRepository } from './workspaces.repository';

@Injectable()
export class WorkspacesService {
  constructor(
    private readonly workspaces: WorkspacesRepository,
    private readonly files: WorkspaceFilesClient,
  ) {}

  /** The files are unpacked first; the record only exists once the workspace does. */
  async create(ownerId: string, upload: WorkspaceUpload): Promise<{ id: string }> {
    const id = newId('ws');
    await this.files.create(id, upload.kind === 'archive' ? upload.archive : undefined);
    await this.workspaces.create({ id, ownerId, createdAt: new Date().toISOString() });
    return { id };
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

  async assertOwned(ownerId: string, workspaceId: string): Promise<void> {
    if (!(await this.workspaces.findOwned(ownerId, workspaceId))) {
      throw new AppError(ErrorCode.NotFound, `Workspace ${workspaceId} not found`);
    }
  }
}
