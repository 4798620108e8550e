import { rm } from 'node:fs/promises';
import { AppError, ErrorCode, type GitSource, gitUrlHost } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { scanTree } from '../archive/archive-extractor';
import { type ArchiveLimits, type ArchiveTotals, EntryRejected } from '../archive/entry-policy';
import type { WorkspaceStore } from '../workspace/workspace-store';
import { CloneFailed, type GitCloner } from './git-cloner';
import { assertNoCredentials, redactGitUrl, resolveFileSource } from './git-source-policy';

export interface GitImportSettings {
  /** Lower-cased hosts; `file` allows file:// URLs. Empty: import from git is off. */
  allowedHosts: readonly string[];
  cloneTimeoutMs: number;
  /** The workspaces volume: a file:// URL may never point into it. */
  workspacesDir: string;
}

/**
 * A workspace from a git URL: cloned into a staging folder, held to the same checks as an
 * unpacked archive (links out, special files, size and file caps, the owner's quota), then
 * renamed into place. Nothing is left behind when any step fails.
 */
export class GitImporter {
  constructor(
    private readonly store: WorkspaceStore,
    private readonly cloner: GitCloner,
    private readonly limits: ArchiveLimits,
    private readonly settings: GitImportSettings,
    private readonly log: Logger,
  ) {}

  async import(workspaceId: string, source: GitSource, maxBytes?: number): Promise<ArchiveTotals> {
    assertNoCredentials(source.url);
    const host = this.assertAllowed(source.url);
    const url = host === 'file' ? await resolveFileSource(source.url, this.settings.workspacesDir) : source.url;
    const staged = await this.store.staging(workspaceId);
    try {
      const totals = await this.cloneAndCheck(workspaceId, { ...source, url }, staged, host);
      if (maxBytes !== undefined && totals.bytes > maxBytes) {
        throw new AppError(ErrorCode.PayloadTooLarge, `The repository holds ${totals.bytes} bytes; your workspace quota has ${maxBytes} bytes left`, {
          bytes: totals.bytes,
          quotaBytesLeft: maxBytes,
        });
      }
      await this.store.adopt(workspaceId, staged);
      return totals;
    } finally {
      await rm(staged, { recursive: true, force: true });
    }
  }

  private async cloneAndCheck(workspaceId: string, source: GitSource, staged: string, host: string): Promise<ArchiveTotals> {
    try {
      await this.cloner.clone(source, staged, { allowFile: host === 'file', timeoutMs: this.settings.cloneTimeoutMs });
      return await scanTree(staged, this.limits);
    } catch (error) {
      if (!(error instanceof CloneFailed || error instanceof EntryRejected)) throw error;
      this.log.warn({ workspaceId, host, reason: error.message }, 'git import rejected');
      throw new AppError(ErrorCode.ArchiveRejected, `Repository rejected: ${error.message}`, { reason: error.message });
    }
  }

  private assertAllowed(url: string): string {
    const host = gitUrlHost(url);
    if (this.settings.allowedHosts.length === 0) {
      throw new AppError(ErrorCode.Forbidden, 'Import from git is disabled on this server (WORKSPACE_GIT_ALLOWED_HOSTS is empty)');
    }
    if (host === null || !this.settings.allowedHosts.includes(host)) {
      throw new AppError(ErrorCode.Forbidden, `Import from git host '${host ?? redactGitUrl(url)}' is not allowed on this server`, { host });
    }
    return host;
  }
}
