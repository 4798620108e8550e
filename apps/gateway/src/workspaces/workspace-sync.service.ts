import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode, type WorkspaceManifest, type WorkspaceSyncBody, type WorkspaceSyncResult } from '@weft/contracts';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { WorkspaceFilesClient } from './workspace-files.client';
import { WorkspaceLocks } from './workspace-locks';
import { WorkspacesRepository } from './workspaces.repository';
import { WorkspacesService } from './workspaces.service';

/**
 * `weft run` in a folder it uploaded before: the client reads the workspace's manifest, diffs
 * it with the folder and sends only what changed. The folder wins: files changed in the
 * workspace are replaced by the folder's version (the result names them).
 */
@Injectable()
export class WorkspaceSyncService {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly records: WorkspacesRepository,
    private readonly files: WorkspaceFilesClient,
    private readonly locks: WorkspaceLocks,
    @Inject(GATEWAY_CONFIG) private readonly config: Pick<GatewaySettings, 'WORKSPACE_QUOTA_BYTES' | 'WORKSPACE_UPLOAD_MAX_BYTES'>,
  ) {}

  async manifest(ownerId: string, workspaceId: string): Promise<WorkspaceManifest> {
    await this.workspaces.assertOwned(ownerId, workspaceId);
    return this.files.manifest(workspaceId);
  }

  /**
   * Refused (409) while a turn runs in the workspace, or while another sync or a delete holds
   * it. The archive is held to the upload size limit and the result to the owner's quota; any
   * failure leaves the workspace as it was.
   */
  async sync(ownerId: string, workspaceId: string, body: WorkspaceSyncBody): Promise<WorkspaceSyncResult> {
    await this.workspaces.assertOwned(ownerId, workspaceId);
    const archiveBytes = body.archiveBase64 === undefined ? 0 : Buffer.byteLength(body.archiveBase64, 'base64');
    if (archiveBytes > this.config.WORKSPACE_UPLOAD_MAX_BYTES) {
      throw new AppError(ErrorCode.PayloadTooLarge, `The sync archive is ${archiveBytes} bytes; this server accepts at most ${this.config.WORKSPACE_UPLOAD_MAX_BYTES}`, {
        bytes: archiveBytes,
        maxBytes: this.config.WORKSPACE_UPLOAD_MAX_BYTES,
      });
    }
    return this.locks.run(workspaceId, 'sync', async () => {
      await this.workspaces.assertNoTurnRunning(ownerId, workspaceId, 'sync');
      const result = await this.files.sync(workspaceId, { archiveBase64: body.archiveBase64, deleted: body.deleted, maxBytes: await this.bytesAllowed(ownerId, workspaceId) });
      await this.records.touch(workspaceId);
      return result;
    });
  }

  /** The owner's quota less what their other workspaces hold. */
  private async bytesAllowed(ownerId: string, workspaceId: string): Promise<number> {
    const others = (await this.records.listOwned(ownerId)).map((w) => w.id).filter((id) => id !== workspaceId);
    return Math.max(0, this.config.WORKSPACE_QUOTA_BYTES - (await this.files.usedBytes(others)));
  }
}
