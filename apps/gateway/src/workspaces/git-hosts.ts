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
    throw new AppError(ErrorCode.Forbidden, `Import from git host '${host ?? redactGitUrl(url)}' is not allowed on this server`, { host });
  }
}

/** `scheme://userinfo@` as it is written, whatever a URL parser would make of the rest. */
const USERINFO = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/?#]*)@/;

/**
 * A user name or password in a git URL is refused (400) before the URL goes anywhere: git would
 * send it, and errors and logs would carry it (`https://<token>@github.com/…` is how a token is
 * usually written). The message never repeats the URL. The tools worker checks again.
 */
export function assertNoGitCredentials(url: string): void {
  if (!USERINFO.test(url)) return;
  throw new AppError(
    ErrorCode.ValidationFailed,
    'The git URL holds a user name or password: Weft does not send credentials to git hosts (they would end up in errors and logs). Give the URL without them; only repositories readable without signing in can be imported',
  );
}

/** The URL with any user name and password replaced, for messages. */
export function redactGitUrl(url: string): string {
  return url.replace(USERINFO, '$1***@');
}
