import { Injectable } from '@nestjs/common';
import { type ReadPathResult, Routes } from '@weft/contracts';
import { RpcClient } from '@weft/messaging';

/** The tools worker's workspace operations (create, read, export), over NATS. */
@Injectable()
export class WorkspaceFilesClient {
  constructor(private readonly rpc: RpcClient) {}

  async create(workspaceId: string, archive?: Buffer): Promise<void> {
    await this.rpc.request(Routes.toolsCreateWorkspace, {
      workspaceId,
      archiveBase64: archive?.toString('base64'),
    });
  }

  readPath(workspaceId: string, path: string): Promise<ReadPathResult> {
    return this.rpc.request(Routes.toolsReadPath, { workspaceId, path });
  }

  async exportArchive(workspaceId: string): Promise<Buffer> {
    const { archiveBase64 } = await this.rpc.request(Routes.toolsExportWorkspace, { workspaceId });
    return Buffer.from(archiveBase64, 'base64');
  }
}
