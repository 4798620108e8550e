import { Injectable } from '@nestjs/common';
import { type ReadPathResult, Routes } from '@weft/contracts';
import { RpcClient } from '@weft/messaging';

/** The tools worker's workspace operations (create, read, export, usage), over NATS. */
@Injectable()
export class WorkspaceFilesClient {
  constructor(private readonly rpc: RpcClient) {}

  /** `maxBytes`: an archive that unpacks to more is refused (COMMON.PAYLOAD_TOO_LARGE). */
  create(workspaceId: string, archive?: Buffer, maxBytes?: number): Promise<{ files: number; bytes: number }> {
    return this.rpc.request(Routes.toolsCreateWorkspace, { workspaceId, archiveBase64: archive?.toString('base64'), maxBytes });
  }

  readPath(workspaceId: string, path: string): Promise<ReadPathResult> {
    return this.rpc.request(Routes.toolsReadPath, { workspaceId, path });
  }

  async exportArchive(workspaceId: string): Promise<Buffer> {
    const { archiveBase64 } = await this.rpc.request(Routes.toolsExportWorkspace, { workspaceId });
    return Buffer.from(archiveBase64, 'base64');
  }

  async exportPatch(workspaceId: string): Promise<string> {
    return (await this.rpc.request(Routes.toolsExportPatch, { workspaceId })).patch;
  }

  /** Bytes the given workspaces hold together. */
  async usedBytes(workspaceIds: string[]): Promise<number> {
    if (workspaceIds.length === 0) return 0;
    const { workspaces } = await this.rpc.request(Routes.toolsWorkspaceUsage, { workspaceIds });
    return workspaces.reduce((sum, w) => sum + w.bytes, 0);
  }
}
