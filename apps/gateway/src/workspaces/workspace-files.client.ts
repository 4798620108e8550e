import { Injectable } from '@nestjs/common';
import { type GitSource, type ReadPathResult, Routes, type WorkspaceManifest, type WorkspaceSyncResult } from '@weft/contracts';
import { RpcClient } from '@weft/messaging';

/** Hashing every file of a large workspace, or syncing one, takes longer than an ordinary request. */
export const WORKSPACE_SYNC_TIMEOUT_MS = 120_000;

/** The tools worker's workspace operations (create, read, export, usage, manifest, sync), over NATS. */
@Injectable()
export class WorkspaceFilesClient {
  constructor(private readonly rpc: RpcClient) {}

  /**
   * Empty, from a tar.gz, or cloned from git. `maxBytes`: files past it are refused
   * (COMMON.PAYLOAD_TOO_LARGE). A clone may take longer than the default request timeout.
   */
  create(
    workspaceId: string,
    source: { archive?: Buffer; git?: GitSource; maxBytes?: number },
    timeoutMs?: number,
  ): Promise<{ files: number; bytes: number }> {
    const { archive, git, maxBytes } = source;
    return this.rpc.request(
      Routes.toolsCreateWorkspace,
      { workspaceId, archiveBase64: archive?.toString('base64'), git, maxBytes },
      timeoutMs === undefined ? {} : { timeoutMs },
    );
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

  manifest(workspaceId: string): Promise<WorkspaceManifest> {
    return this.rpc.request(Routes.toolsWorkspaceManifest, { workspaceId }, { timeoutMs: WORKSPACE_SYNC_TIMEOUT_MS });
  }

  /** `maxBytes`: what the workspace may hold afterwards; a sync that grows it past this is undone. */
  sync(workspaceId: string, change: { archiveBase64?: string; deleted: string[]; maxBytes: number }): Promise<WorkspaceSyncResult> {
    return this.rpc.request(Routes.toolsSyncWorkspace, { workspaceId, ...change }, { timeoutMs: WORKSPACE_SYNC_TIMEOUT_MS });
  }

  async delete(workspaceId: string): Promise<void> {
    await this.rpc.request(Routes.toolsDeleteWorkspace, { workspaceId });
  }

  /** Files and bytes of each of the given workspaces. */
  async usage(workspaceIds: string[]): Promise<Map<string, { files: number; bytes: number }>> {
    if (workspaceIds.length === 0) return new Map();
    const { workspaces } = await this.rpc.request(Routes.toolsWorkspaceUsage, { workspaceIds });
    return new Map(workspaces.map((w) => [w.workspaceId, { files: w.files, bytes: w.bytes }]));
  }

  /** Bytes the given workspaces hold together. */
  async usedBytes(workspaceIds: string[]): Promise<number> {
    if (workspaceIds.length === 0) return 0;
    const { workspaces } = await this.rpc.request(Routes.toolsWorkspaceUsage, { workspaceIds });
    return workspaces.reduce((sum, w) => sum + w.bytes, 0);
  }
}
