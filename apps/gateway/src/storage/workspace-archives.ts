import { Injectable } from '@nestjs/common';
import { Routes } from '@weft/contracts';
import { RpcClient } from '@weft/messaging';

/** A large workspace takes longer to pack or unpack than an ordinary request. */
const ARCHIVE_TIMEOUT_MS = 300_000;

/**
 * The tools worker's workspace export and import over NATS, one workspace a request (each bounded
 * by NATS's max_payload, as `weft workspace download` is).
 */
@Injectable()
export class WorkspaceArchives {
  constructor(private readonly rpc: RpcClient) {}

  async export(workspaceId: string): Promise<Buffer> {
    const { archiveBase64 } = await this.rpc.request(Routes.toolsExportWorkspace, { workspaceId }, { timeoutMs: ARCHIVE_TIMEOUT_MS });
    return Buffer.from(archiveBase64, 'base64');
  }

  /** `replace`: the workspace's current files are removed first (the tools worker refuses to create over them). */
  async import(workspaceId: string, archive: Buffer, replace: boolean): Promise<void> {
    if (replace) await this.rpc.request(Routes.toolsDeleteWorkspace, { workspaceId });
    await this.rpc.request(Routes.toolsCreateWorkspace, { workspaceId, archiveBase64: archive.toString('base64') }, { timeoutMs: ARCHIVE_TIMEOUT_MS });
  }
}
