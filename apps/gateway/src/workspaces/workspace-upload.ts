import { AppError, ErrorCode, type GitSource, createWorkspaceJsonBodySchema } from '@weft/contracts';
import { assertNoGitCredentials } from './git-hosts';

export const GZIP_TYPES = ['application/gzip', 'application/x-gzip'];

/** What `POST /v1/workspaces` was given: nothing (an empty workspace), a tar.gz, or a git URL. */
export type WorkspaceUpload = { kind: 'empty' } | { kind: 'archive'; archive: Buffer } | { kind: 'git'; git: GitSource };

/** Reads the upload from the already-parsed body (express.json or express.raw). */
export function parseWorkspaceUpload(contentType: string | undefined, body: unknown): WorkspaceUpload {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  if (type && GZIP_TYPES.includes(type)) {
    if (!Buffer.isBuffer(body) || body.length === 0) {
      throw new AppError(ErrorCode.ValidationFailed, 'The tar.gz body is empty');
    }
    return { kind: 'archive', archive: body };
  }
  if (type && type !== 'application/json') {
    throw new AppError(
      ErrorCode.ValidationFailed,
      `Unsupported Content-Type ${type}: send application/json {} or application/gzip (a tar.gz)`,
    );
  }
  // Before the schema, whose answer to `user:pass@` would be a less helpful "not a git URL".
  const url = (body as { git?: { url?: unknown } } | null)?.git?.url;
  if (typeof url === 'string') assertNoGitCredentials(url);
  const parsed = createWorkspaceJsonBodySchema.safeParse(body ?? {});
  if (!parsed.success) {
    const fields = parsed.error.issues.map((i) => {
      const where = [...i.path, ...('keys' in i ? i.keys : [])].join('.') || 'body';
      return i.code === 'unrecognized_keys' ? where : `${where}: ${i.message}`;
    });
    throw new AppError(ErrorCode.ValidationFailed, `Invalid body: expected {} or { "git": { "url", "ref"? } } (${fields.join(', ')})`);
  }
  return parsed.data.git ? { kind: 'git', git: parsed.data.git } : { kind: 'empty' };
}
