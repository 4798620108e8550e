import { AppError, ErrorCode, gitUrlHost } from '@weft/contracts';

/**
 * The gateway's early answer (the tools worker checks again before it runs git): a URL whose
 * host is not in `WORKSPACE_GIT_ALLOWED_HOSTS` is refused with 403, naming the host.
 */
export function assertGitHostAllowed(url: string, allowedHosts: readonly string[]): void {
  if (allowedHosts.length === 0) {
    throw new AppError(ErrorCode.Forbidden, 'Import from git is disabled on this server (WORKSPACE_GIT_ALLOWED_HOSTS is empty)');
  }
  const host = gitUrlHost(url);
  if (host === null || !allowedHosts.includes(host)) {
    throw new AppError(ErrorCode.Forbidden, `Import from git host '${host ?? url}' is not allowed on this server`, { host });
  }
}
