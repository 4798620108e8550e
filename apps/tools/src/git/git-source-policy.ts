import { realpath } from 'node:fs/promises';
import { sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AppError, ErrorCode } from '@weft/contracts';

/** `scheme://userinfo@` as it is written, whatever a URL parser would make of the rest. */
const USERINFO = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/?#]*)@/;

/**
 * A user name or password in the URL is refused, before anything runs: git would send it, and
 * git's own errors, ours and the log would carry it (`https://<token>@github.com/…` is how a
 * token is usually written). The message never repeats the URL.
 */
export function assertNoCredentials(url: string): void {
  if (!USERINFO.test(url)) return;
  throw new AppError(
    ErrorCode.ValidationFailed,
    'The git URL holds a user name or password: Weft does not send credentials to git hosts (they would end up in errors and logs). Give the URL without them; only repositories readable without signing in can be imported',
  );
}

/** The URL with any user name and password replaced, for messages and logs. */
export function redactGitUrl(url: string): string {
  return url.replace(USERINFO, '$1***@');
}

/**
 * The path git is given for a `file://` URL: its real path (links resolved), refused when it lies
 * in the workspaces volume, where every user's workspace, snapshot and import in progress live.
 * git then clones that real path, so a link swapped after this check changes nothing.
 */
export async function resolveFileSource(url: string, workspacesDir: string): Promise<string> {
  let real: string;
  try {
    real = await realpath(fileURLToPath(url));
  } catch {
    throw new AppError(ErrorCode.Forbidden, 'The file:// URL names no folder on this server that can be imported');
  }
  const volume = await realpath(workspacesDir).catch(() => workspacesDir);
  if (real === volume || real.startsWith(volume.endsWith(sep) ? volume : `${volume}${sep}`)) {
    throw new AppError(ErrorCode.Forbidden, "A file:// URL may not point into the workspaces volume: another user's workspace is not a repository to import");
  }
  return pathToFileURL(real).href;
}
